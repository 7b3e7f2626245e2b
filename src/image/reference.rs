//! Image references (`[registry[:port]/]path[:tag][@digest]`), checked against the grammar of the
//! distribution spec before any builder runs, so a typo is a usage error and not a failed build.

use std::fmt;
use std::net::{Ipv4Addr, Ipv6Addr};

use thiserror::Error;

/// The tag a reference without one gets, as every container tool does.
pub const DEFAULT_TAG: &str = "latest";

/// The longest repository name (registry plus path) the distribution spec allows.
const MAX_NAME_LEN: usize = 255;

#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("image \"{value}\" is not a valid image reference: {problem}")]
pub struct ReferenceError {
    pub value: String,
    pub problem: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageRef {
    registry: Option<String>,
    repository: String,
    tag: Option<String>,
    digest: Option<String>,
}

impl ImageRef {
    pub fn parse(value: &str) -> Result<Self, ReferenceError> {
        let fail = |problem: String| ReferenceError {
            value: value.to_string(),
            problem,
        };
        if value.is_empty() {
            return Err(fail(
                "it is empty; give one like registry.example.com/team/my-operator:v0.1.0".into(),
            ));
        }
        if let Some(c) = value.chars().find(|c| c.is_whitespace() || c.is_control()) {
            return Err(fail(format!(
                "it contains {c:?}; references have no spaces or control characters"
            )));
        }

        let (name_and_tag, digest) = match value.split_once('@') {
            Some((rest, digest)) => (rest, Some(check_digest(digest).map_err(fail)?)),
            None => (value, None),
        };
        // A colon after the last slash starts the tag; one before it belongs to a registry port.
        let last_slash = name_and_tag.rfind('/').map_or(0, |i| i + 1);
        let (name, tag) = match name_and_tag[last_slash..].rfind(':') {
            Some(i) => {
                let at = last_slash + i;
                let tag = &name_and_tag[at + 1..];
                (&name_and_tag[..at], Some(check_tag(tag).map_err(fail)?))
            }
            None => (name_and_tag, None),
        };
        if name.is_empty() {
            return Err(fail("the repository name is missing before the tag".into()));
        }

        let (registry, path) = split_registry(name);
        if let Some(registry) = registry {
            check_registry(registry).map_err(fail)?;
        }
        check_path(path).map_err(fail)?;
        if name.len() > MAX_NAME_LEN {
            return Err(fail(format!(
                "the name is {} characters long; at most {MAX_NAME_LEN} are allowed",
                name.len()
            )));
        }
        Ok(ImageRef {
            registry: registry.map(str::to_string),
            repository: path.to_string(),
            tag,
            digest,
        })
    }

    /// The registry host (with port) the reference names, or `None` for the default registry
    /// (Docker Hub).
    pub fn registry(&self) -> Option<&str> {
        self.registry.as_deref()
    }

    pub fn repository(&self) -> &str {
        &self.repository
    }

    pub fn tag(&self) -> Option<&str> {
        self.tag.as_deref()
    }

    pub fn digest(&self) -> Option<&str> {
        self.digest.as_deref()
    }

    /// The same reference with `latest` when it has neither tag nor digest.
    pub fn with_default_tag(mut self) -> Self {
        if self.tag.is_none() && self.digest.is_none() {
            self.tag = Some(DEFAULT_TAG.to_string());
        }
        self
    }

    /// True for registries on this machine (`localhost`, 127.0.0.0/8, `::1`). Docker talks plain
    /// HTTP to those by default; podman and buildah must be told to.
    pub fn is_loopback_registry(&self) -> bool {
        let Some(registry) = self.registry() else {
            return false;
        };
        let host = host_of(registry);
        if host.eq_ignore_ascii_case("localhost") {
            return true;
        }
        if let Some(inner) = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
            return inner.parse::<Ipv6Addr>().is_ok_and(|ip| ip.is_loopback());
        }
        host.parse::<Ipv4Addr>().is_ok_and(|ip| ip.is_loopback())
    }
}

impl fmt::Display for ImageRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(registry) = &self.registry {
            write!(f, "{registry}/")?;
        }
        f.write_str(&self.repository)?;
        if let Some(tag) = &self.tag {
            write!(f, ":{tag}")?;
        }
        if let Some(digest) = &self.digest {
            write!(f, "@{digest}")?;
        }
        Ok(())
    }
}

/// Docker's rule: the first component is a registry when it looks like a host (has a dot or a
/// port, is `localhost`, or has upper case, which repository paths never have).
fn split_registry(name: &str) -> (Option<&str>, &str) {
    match name.split_once('/') {
        Some((first, rest))
            if first.contains(['.', ':'])
                || first == "localhost"
                || first.chars().any(|c| c.is_ascii_uppercase()) =>
        {
            (Some(first), rest)
        }
        _ => (None, name),
    }
}

fn host_of(registry: &str) -> &str {
    if registry.starts_with('[') {
        // `[v6]:port` or `[v6]`
        return match registry.find(']') {
            Some(end) => &registry[..=end],
            None => registry,
        };
    }
    registry.split(':').next().unwrap_or(registry)
}

fn check_registry(registry: &str) -> Result<(), String> {
    let host = host_of(registry);
    let port = &registry[host.len()..];
    if !port.is_empty() {
        let digits = port.strip_prefix(':').unwrap_or("");
        if digits.is_empty()
            || !digits.bytes().all(|b| b.is_ascii_digit())
            || digits.parse::<u16>().is_err()
        {
            return Err(format!(
                "registry \"{registry}\" has port \"{}\"; a port is a number from 0 to 65535",
                port.trim_start_matches(':')
            ));
        }
    }
    if let Some(inner) = host.strip_prefix('[') {
        let ok = inner
            .strip_suffix(']')
            .is_some_and(|ip| ip.parse::<Ipv6Addr>().is_ok());
        return if ok {
            Ok(())
        } else {
            Err(format!(
                "registry \"{registry}\" is not a valid bracketed IPv6 address like [::1]:5000"
            ))
        };
    }
    let valid_component = |c: &str| {
        !c.is_empty()
            && c.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
            && !c.starts_with('-')
            && !c.ends_with('-')
    };
    if host.split('.').all(valid_component) {
        Ok(())
    } else {
        Err(format!(
            "registry \"{registry}\" is not a host name: use letters, digits, '-' and '.' (for example registry.example.com:5000)"
        ))
    }
}

fn check_path(path: &str) -> Result<(), String> {
    if path.chars().any(|c| c.is_ascii_uppercase()) {
        return Err(format!(
            "repository \"{path}\" must be lower-case (for example \"{}\")",
            path.to_ascii_lowercase()
        ));
    }
    for component in path.split('/') {
        if !is_path_component(component) {
            return Err(format!(
                "repository component \"{component}\" of \"{path}\" must be lower-case letters and digits, separated by one '.', one or two '_', or dashes, and must not start or end with a separator"
            ));
        }
    }
    Ok(())
}

/// `[a-z0-9]+((\.|_|__|-+)[a-z0-9]+)*` from the distribution spec.
fn is_path_component(component: &str) -> bool {
    let bytes = component.as_bytes();
    let alnum = |b: u8| b.is_ascii_lowercase() || b.is_ascii_digit();
    let mut i = 0;
    loop {
        let start = i;
        while i < bytes.len() && alnum(bytes[i]) {
            i += 1;
        }
        if i == start {
            return false;
        }
        if i == bytes.len() {
            return true;
        }
        let sep_start = i;
        while i < bytes.len() && !alnum(bytes[i]) {
            i += 1;
        }
        let separator = &component[sep_start..i];
        let ok = matches!(separator, "." | "_" | "__") || separator.bytes().all(|b| b == b'-');
        if !ok {
            return false;
        }
    }
}

fn check_tag(tag: &str) -> Result<String, String> {
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let bytes = tag.as_bytes();
    let valid = !bytes.is_empty()
        && bytes.len() <= 128
        && word(bytes[0])
        && bytes[1..]
            .iter()
            .all(|&b| word(b) || b == b'.' || b == b'-');
    if valid {
        Ok(tag.to_string())
    } else {
        Err(format!(
            "tag \"{tag}\" must be 1 to 128 letters, digits, '_', '.' or '-', not starting with '.' or '-' (for example v0.1.0)"
        ))
    }
}

fn check_digest(digest: &str) -> Result<String, String> {
    let problem = || {
        format!(
            "digest \"{digest}\" must be ALGORITHM:HEX, for example sha256: followed by 64 hexadecimal digits"
        )
    };
    let (algorithm, hex) = digest.split_once(':').ok_or_else(problem)?;
    let algorithm_ok = !algorithm.is_empty()
        && algorithm.split(['+', '.', '-', '_']).all(|c| {
            c.starts_with(|ch: char| ch.is_ascii_alphabetic())
                && c.bytes().all(|b| b.is_ascii_alphanumeric())
        });
    let hex_ok = hex.len() >= 32 && hex.bytes().all(|b| b.is_ascii_hexdigit());
    if !algorithm_ok || !hex_ok {
        return Err(problem());
    }
    let expected_len = match algorithm {
        "sha256" => Some(64),
        "sha512" => Some(128),
        _ => None,
    };
    if let Some(len) = expected_len {
        if hex.len() != len {
            return Err(format!(
                "digest \"{digest}\" has {} hexadecimal digits; {algorithm} has exactly {len}",
                hex.len()
            ));
        }
        if hex.bytes().any(|b| b.is_ascii_uppercase()) {
            return Err(format!(
                "digest \"{digest}\" must use lower-case hexadecimal digits"
            ));
        }
    }
    Ok(digest.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(value: &str) -> ImageRef {
        ImageRef::parse(value).unwrap_or_else(|e| panic!("{value}: {e}"))
    }

    fn err(value: &str) -> String {
        ImageRef::parse(value)
            .map(|r| panic!("{value} parsed as {r:?}"))
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn splits_registry_repository_tag_and_digest() {
        let r = ok("registry.example.com/me/rancher-op:v0.1.6");
        assert_eq!(r.registry(), Some("registry.example.com"));
        assert_eq!(r.repository(), "me/rancher-op");
        assert_eq!(r.tag(), Some("v0.1.6"));
        assert_eq!(r.digest(), None);

        let r = ok("127.0.0.1:5000/team/op");
        assert_eq!(r.registry(), Some("127.0.0.1:5000"));
        assert_eq!(r.repository(), "team/op");
        assert_eq!(r.tag(), None);

        let r = ok("localhost/op:dev");
        assert_eq!(r.registry(), Some("localhost"));

        let r = ok("rancher-op:dev");
        assert_eq!(r.registry(), None);
        assert_eq!(r.repository(), "rancher-op");

        let r = ok("library/busybox");
        assert_eq!(r.registry(), None);
        assert_eq!(r.repository(), "library/busybox");

        let digest = format!("sha256:{}", "a".repeat(64));
        let r = ok(&format!("[::1]:5000/op:v1@{digest}"));
        assert_eq!(r.registry(), Some("[::1]:5000"));
        assert_eq!(r.tag(), Some("v1"));
        assert_eq!(r.digest(), Some(digest.as_str()));
    }

    #[test]
    fn displays_what_it_parsed() {
        for value in [
            "registry.example.com:5000/a/b__c/d-e.f:V1_x.y-z",
            "op",
            "localhost:1/op@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
        ] {
            assert_eq!(ok(value).to_string(), value);
        }
    }

    #[test]
    fn a_missing_tag_becomes_latest() {
        assert_eq!(ok("a/b").with_default_tag().to_string(), "a/b:latest");
        assert_eq!(ok("a/b:v1").with_default_tag().to_string(), "a/b:v1");
    }

    #[test]
    fn rejects_what_the_grammar_forbids() {
        assert!(err("").contains("empty"));
        // Upper case in the first part makes it a registry host; the path must still be lower-case.
        assert!(err("Me/Op:v1").contains("repository \"Op\" must be lower-case"));
        assert!(
            err("registry.example.com/Me/Op")
                .contains("must be lower-case (for example \"me/op\")")
        );
        assert!(err("a b").contains("' '"));
        assert!(err("op:").contains("tag \"\""));
        assert!(err("op:-x").contains("tag \"-x\""));
        assert!(err(&format!("op:{}", "x".repeat(129))).contains("1 to 128"));
        assert!(err("op:v1:v2").contains("component \"op:v1\""));
        assert!(err("a//b").contains("component \"\""));
        assert!(err("a/b-").contains("component \"b-\""));
        assert!(err("a/.b").contains("component \".b\""));
        assert!(err("a/b...c").contains("component \"b...c\""));
        assert!(err("a/b___c").contains("component \"b___c\""));
        assert!(err("registry.example.com:99999/op").contains("port \"99999\""));
        assert!(err("registry.example.com:/op").contains("port"));
        assert!(err("-bad.example.com/op").contains("not a host name"));
        assert!(err("[zz]:5000/op").contains("IPv6"));
        assert!(err(":v1").contains("missing"));
        assert!(err("op@sha256:abc").contains("64"));
        assert!(err("op@md5").contains("ALGORITHM:HEX"));
        assert!(err(&format!("op@sha256:{}", "A".repeat(64))).contains("lower-case"));
        assert!(err(&format!("{}/op", "a".repeat(260))).contains("at most 255"));
    }

    #[test]
    fn separators_follow_the_spec() {
        for good in ["a.b", "a_b", "a__b", "a-b", "a---b", "a1.b2_c3__d4-e5"] {
            assert!(is_path_component(good), "{good}");
        }
        for bad in ["", ".a", "a.", "a..b", "a___b", "a_.b", "a-_b", "A"] {
            assert!(!is_path_component(bad), "{bad}");
        }
    }

    #[test]
    fn knows_loopback_registries() {
        for value in [
            "localhost/op",
            "localhost:5000/op",
            "127.0.0.1:5000/op",
            "127.8.9.1/op",
            "[::1]:5000/op",
        ] {
            assert!(ok(value).is_loopback_registry(), "{value}");
        }
        for value in [
            "op",
            "registry.example.com/op",
            "10.0.0.1:5000/op",
            "[::2]/op",
        ] {
            assert!(!ok(value).is_loopback_registry(), "{value}");
        }
    }
}
