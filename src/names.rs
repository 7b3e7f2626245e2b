//! Validated names of the things a project is made of, and the case conversions and plurals
//! the generated files need. Each rule is the one the Kubernetes API server (or Cargo) enforces,
//! so a name accepted here is never rejected later by `kubectl apply`.

use std::fmt;

use heck::{ToKebabCase, ToSnakeCase, ToUpperCamelCase};
use thiserror::Error;

#[derive(Debug, Error, PartialEq, Eq)]
pub enum NameError {
    #[error(
        "kind \"{0}\" must start with an upper-case letter and contain only letters and digits (for example \"{1}\")"
    )]
    Kind(String, String),
    #[error(
        "group \"{0}\" must be a DNS subdomain with at least one dot: lower-case letters, digits, '-' and '.', each part starting and ending with a letter or digit, at most 253 characters (for example \"cache.example.com\")"
    )]
    Group(String),
    #[error(
        "version \"{0}\" must look like v1, v1alpha1 or v2beta3: 'v', a number, then optionally alpha or beta and a number"
    )]
    Version(String),
    #[error(
        "api version \"{0}\" must be GROUP/VERSION (for example \"cache.example.com/v1alpha1\")"
    )]
    ApiVersion(String),
    #[error(
        "project name \"{0}\" must be a DNS-1123 label: at most 63 lower-case letters, digits and '-', starting with a letter and ending with a letter or digit (for example \"{1}\")"
    )]
    ProjectName(String, String),
    #[error(
        "plural \"{0}\" must be lower-case letters and digits, starting with a letter (for example \"memcacheds\")"
    )]
    Plural(String),
    #[error(
        "domain \"{0}\" must be a DNS subdomain: lower-case letters, digits, '-' and '.', each part starting and ending with a letter or digit"
    )]
    Domain(String),
}

/// A Kubernetes kind: UpperCamelCase, letters and digits (`Rancher`, `HTTPRoute`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Kind(String);

impl Kind {
    pub fn parse(value: &str) -> Result<Self, NameError> {
        let valid = value.len() <= 63
            && value.starts_with(|c: char| c.is_ascii_uppercase())
            && value.chars().all(|c| c.is_ascii_alphanumeric());
        if valid {
            Ok(Kind(value.to_string()))
        } else {
            let suggestion = value
                .chars()
                .filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
                .collect::<String>()
                .to_upper_camel_case();
            let suggestion = if suggestion.starts_with(|c: char| c.is_ascii_uppercase()) {
                suggestion
            } else {
                "Memcached".to_string()
            };
            Err(NameError::Kind(value.to_string(), suggestion))
        }
    }

    /// The kind a chart name suggests: `prometheus-node-exporter` -> `PrometheusNodeExporter`.
    pub fn from_chart_name(chart: &str) -> Result<Self, NameError> {
        Kind::parse(&chart.to_upper_camel_case())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// `HTTPRoute` -> `httproute`: the form Kubernetes uses in `names.singular` and file names.
    pub fn lower(&self) -> String {
        self.0.to_ascii_lowercase()
    }

    /// `HTTPRoute` -> `http_route`, a module or file name in Rust.
    pub fn snake(&self) -> String {
        self.0.to_snake_case()
    }

    /// `HTTPRoute` -> `http-route`.
    pub fn kebab(&self) -> String {
        self.0.to_kebab_case()
    }

    /// The English plural in lower case, as `kubectl get <plural>` expects it.
    pub fn plural(&self) -> String {
        pluralize(&self.lower())
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// English plural of a lower-case word, with the rules that matter for kinds: `proxy` ->
/// `proxies`, `ingress` -> `ingresses`, `policy` -> `policies`, `endpoints` stays.
pub fn pluralize(word: &str) -> String {
    // Words that are already plural or do not change ("metrics", "analytics", "series").
    const UNCHANGED: &[&str] = &[
        "endpoints",
        "data",
        "metadata",
        "series",
        "species",
        "ics",
        "news",
    ];
    const IRREGULAR: &[(&str, &str)] = &[
        ("person", "people"),
        ("child", "children"),
        ("man", "men"),
        ("woman", "women"),
        ("mouse", "mice"),
        ("index", "indices"),
        ("matrix", "matrices"),
        ("vertex", "vertices"),
        ("chassis", "chassis"),
    ];
    if UNCHANGED.iter().any(|w| word.ends_with(w)) {
        return word.to_string();
    }
    for (singular, plural) in IRREGULAR {
        if let Some(stem) = word.strip_suffix(singular) {
            return format!("{stem}{plural}");
        }
    }
    let ends_consonant_y = word.ends_with('y')
        && !word[..word.len() - 1].ends_with(|c: char| "aeiou".contains(c))
        && word.len() > 1;
    if ends_consonant_y {
        return format!("{}ies", &word[..word.len() - 1]);
    }
    if ["s", "x", "z", "ch", "sh"]
        .iter()
        .any(|s| word.ends_with(s))
    {
        return format!("{word}es");
    }
    format!("{word}s")
}

fn is_dns_label(part: &str) -> bool {
    !part.is_empty()
        && part.len() <= 63
        && part
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && !part.starts_with('-')
        && !part.ends_with('-')
}

/// A DNS-1123 subdomain (lower-case labels joined by dots, at most 253 characters).
pub(crate) fn is_dns_subdomain(value: &str) -> bool {
    !value.is_empty() && value.len() <= 253 && value.split('.').all(is_dns_label)
}

/// An API group: a DNS subdomain with at least one dot, as the API server requires for CRDs.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Group(String);

impl Group {
    pub fn parse(value: &str) -> Result<Self, NameError> {
        if is_dns_subdomain(value) && value.contains('.') {
            Ok(Group(value.to_string()))
        } else {
            Err(NameError::Group(value.to_string()))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Group {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A domain for default groups (`charts.<domain>`).
pub fn parse_domain(value: &str) -> Result<String, NameError> {
    if is_dns_subdomain(value) {
        Ok(value.to_string())
    } else {
        Err(NameError::Domain(value.to_string()))
    }
}

/// An API version as Kubernetes orders them: `v1`, `v1alpha1`, `v2beta3`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Version(String);

impl Version {
    pub fn parse(value: &str) -> Result<Self, NameError> {
        let err = || NameError::Version(value.to_string());
        let rest = value.strip_prefix('v').ok_or_else(err)?;
        let major_len = rest.chars().take_while(|c| c.is_ascii_digit()).count();
        let (major, tail) = rest.split_at(major_len);
        if major.is_empty() || major.starts_with('0') {
            return Err(err());
        }
        if tail.is_empty() {
            return Ok(Version(value.to_string()));
        }
        let number = tail
            .strip_prefix("alpha")
            .or_else(|| tail.strip_prefix("beta"))
            .ok_or_else(err)?;
        let valid_number = !number.is_empty()
            && number.chars().all(|c| c.is_ascii_digit())
            && !number.starts_with('0');
        if valid_number {
            Ok(Version(value.to_string()))
        } else {
            Err(err())
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// `group/version`, as given to `--api-version`.
pub fn parse_api_version(value: &str) -> Result<(Group, Version), NameError> {
    let (group, version) = value
        .split_once('/')
        .ok_or_else(|| NameError::ApiVersion(value.to_string()))?;
    Ok((Group::parse(group)?, Version::parse(version)?))
}

/// A resource plural given with `--plural`.
pub fn parse_plural(value: &str) -> Result<String, NameError> {
    let valid = value.starts_with(|c: char| c.is_ascii_lowercase())
        && value.len() <= 63
        && value
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit());
    if valid {
        Ok(value.to_string())
    } else {
        Err(NameError::Plural(value.to_string()))
    }
}

/// A project name: a DNS-1123 label, because it names the Deployment, the service account and
/// the image, and it must also be a valid Cargo package name for Rust projects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectName(String);

impl ProjectName {
    pub fn parse(value: &str) -> Result<Self, NameError> {
        if is_dns_label(value) && value.starts_with(|c: char| c.is_ascii_lowercase()) {
            Ok(ProjectName(value.to_string()))
        } else {
            let mut suggestion = value.to_kebab_case();
            suggestion.retain(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
            let suggestion = suggestion.trim_matches('-').to_string();
            let suggestion = if suggestion.is_empty()
                || !suggestion.starts_with(|c: char| c.is_ascii_lowercase())
            {
                "my-operator".to_string()
            } else {
                suggestion.chars().take(63).collect()
            };
            Err(NameError::ProjectName(value.to_string(), suggestion))
        }
    }

    /// The default name: `<kind in kebab-case>-operator`.
    pub fn for_kind(kind: &Kind) -> Result<Self, NameError> {
        ProjectName::parse(&format!("{}-operator", kind.kebab()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// `memcached-operator` -> `memcached_operator`, the crate name in Rust code.
    pub fn snake(&self) -> String {
        self.0.replace('-', "_")
    }
}

impl fmt::Display for ProjectName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plurals_follow_english() {
        for (kind, plural) in [
            ("Proxy", "proxies"),
            ("Ingress", "ingresses"),
            ("Policy", "policies"),
            ("Rancher", "ranchers"),
            ("Gateway", "gateways"),
            ("Memcached", "memcacheds"),
            ("Box", "boxes"),
            ("Endpoints", "endpoints"),
            ("HTTPRoute", "httproutes"),
            ("Mesh", "meshes"),
            ("Index", "indices"),
            ("KubeStateMetrics", "kubestatemetrics"),
            ("Status", "statuses"),
        ] {
            assert_eq!(Kind::parse(kind).unwrap().plural(), plural, "{kind}");
        }
    }

    #[test]
    fn kinds_must_be_camel_case() {
        assert!(Kind::parse("Rancher").is_ok());
        assert!(Kind::parse("HTTPRoute").is_ok());
        let err = Kind::parse("rancher").unwrap_err().to_string();
        assert!(
            err.contains("\"rancher\"") && err.contains("\"Rancher\""),
            "{err}"
        );
        assert!(Kind::parse("My-Kind").is_err());
        assert!(Kind::parse("").is_err());
    }

    #[test]
    fn case_conversions_handle_acronyms() {
        let kind = Kind::parse("HTTPRoute").unwrap();
        assert_eq!(kind.snake(), "http_route");
        assert_eq!(kind.kebab(), "http-route");
        assert_eq!(kind.lower(), "httproute");
        assert_eq!(
            Kind::from_chart_name("prometheus-node-exporter")
                .unwrap()
                .as_str(),
            "PrometheusNodeExporter"
        );
    }

    #[test]
    fn versions_follow_kubernetes() {
        for ok in ["v1", "v1alpha1", "v2beta3", "v10"] {
            assert!(Version::parse(ok).is_ok(), "{ok}");
        }
        for bad in [
            "1", "v", "v0", "v1gamma1", "v1alpha", "v1alpha0", "V1", "v1beta01",
        ] {
            assert!(Version::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn groups_are_dns_subdomains_with_a_dot() {
        assert!(Group::parse("cache.example.com").is_ok());
        assert!(Group::parse("a.b.c.d.example.io").is_ok());
        for bad in [
            "example",
            "Cache.example.com",
            "-a.example.com",
            "a..b",
            "a_b.com",
        ] {
            assert!(Group::parse(bad).is_err(), "{bad}");
        }
        assert!(parse_api_version("rancher.com/v1alpha1").is_ok());
        assert!(parse_api_version("rancher.com").is_err());
    }

    #[test]
    fn project_names_are_dns_labels() {
        assert!(ProjectName::parse("rancher-op").is_ok());
        let err = ProjectName::parse("Rancher_Op").unwrap_err().to_string();
        assert!(err.contains("\"rancher-op\""), "{err}");
        assert!(ProjectName::parse("1abc").is_err());
        assert!(ProjectName::parse(&"a".repeat(64)).is_err());
        assert_eq!(
            ProjectName::for_kind(&Kind::parse("HTTPRoute").unwrap())
                .unwrap()
                .as_str(),
            "http-route-operator"
        );
    }
}
