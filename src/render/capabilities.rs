//! `.Capabilities`: the Kubernetes version and API versions a chart may ask about, and the Helm
//! version whose behaviour this renderer follows.

use thiserror::Error;

/// The Kubernetes version offline rendering assumes, as Helm 4.2 does (its client-go's minor).
pub const DEFAULT_KUBE_VERSION: &str = "v1.36.0";

/// The Helm release whose rendering rules are implemented here.
pub const HELM_VERSION: &str = "v4.2";
pub const HELM_GO_VERSION: &str = "go1.26.6";
pub const HELM_KUBE_CLIENT_VERSION: &str = "v1.36";

/// The group/versions the Kubernetes client library of that Helm release knows; charts test
/// them with `.Capabilities.APIVersions.Has`.
pub const DEFAULT_API_VERSIONS: &[&str] = &[
    "v1",
    "admissionregistration.k8s.io/v1",
    "admissionregistration.k8s.io/v1alpha1",
    "admissionregistration.k8s.io/v1beta1",
    "internal.apiserver.k8s.io/v1alpha1",
    "apps/v1",
    "apps/v1beta1",
    "apps/v1beta2",
    "authentication.k8s.io/v1",
    "authentication.k8s.io/v1alpha1",
    "authentication.k8s.io/v1beta1",
    "authorization.k8s.io/v1",
    "authorization.k8s.io/v1beta1",
    "autoscaling/v1",
    "autoscaling/v2",
    "batch/v1",
    "batch/v1beta1",
    "certificates.k8s.io/v1",
    "certificates.k8s.io/v1beta1",
    "certificates.k8s.io/v1alpha1",
    "coordination.k8s.io/v1alpha2",
    "coordination.k8s.io/v1beta1",
    "coordination.k8s.io/v1",
    "discovery.k8s.io/v1",
    "discovery.k8s.io/v1beta1",
    "events.k8s.io/v1",
    "events.k8s.io/v1beta1",
    "extensions/v1beta1",
    "flowcontrol.apiserver.k8s.io/v1",
    "flowcontrol.apiserver.k8s.io/v1beta1",
    "flowcontrol.apiserver.k8s.io/v1beta2",
    "flowcontrol.apiserver.k8s.io/v1beta3",
    "networking.k8s.io/v1",
    "networking.k8s.io/v1beta1",
    "node.k8s.io/v1",
    "node.k8s.io/v1alpha1",
    "node.k8s.io/v1beta1",
    "policy/v1",
    "policy/v1beta1",
    "rbac.authorization.k8s.io/v1",
    "rbac.authorization.k8s.io/v1beta1",
    "rbac.authorization.k8s.io/v1alpha1",
    "resource.k8s.io/v1",
    "resource.k8s.io/v1beta2",
    "resource.k8s.io/v1beta1",
    "resource.k8s.io/v1alpha3",
    "scheduling.k8s.io/v1alpha2",
    "scheduling.k8s.io/v1beta1",
    "scheduling.k8s.io/v1",
    "storage.k8s.io/v1beta1",
    "storage.k8s.io/v1",
    "storage.k8s.io/v1alpha1",
    "storagemigration.k8s.io/v1beta1",
    "apiextensions.k8s.io/v1beta1",
    "apiextensions.k8s.io/v1",
];

#[derive(Debug, Error)]
#[error(
    "invalid kube version '{0}': expected MAJOR.MINOR[.PATCH] with an optional leading v and suffix (for example 1.33 or v1.33.4-gke.1)"
)]
pub struct BadKubeVersion(pub String);

#[derive(Debug, Clone, PartialEq)]
pub struct KubeVersion {
    /// As given, with a leading `v` (`v1.33.4-gke.1`): `.Version` and `.GitVersion`.
    pub version: String,
    /// `v1.33.4`: what `{{ .Capabilities.KubeVersion }}` prints and constraints check.
    pub normalized: String,
    pub major: String,
    pub minor: String,
}

impl KubeVersion {
    /// Parses as Kubernetes' ParseGeneric: `[v]MAJOR.MINOR[.PATCH]` and anything after.
    pub fn parse(text: &str) -> Result<KubeVersion, BadKubeVersion> {
        let bad = || BadKubeVersion(text.to_string());
        let trimmed = text.trim();
        let body = trimmed.strip_prefix('v').unwrap_or(trimmed);
        let end = body
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(body.len());
        let numbers: Vec<&str> = body[..end].split('.').collect();
        if !(2..=3).contains(&numbers.len()) || numbers.iter().any(|n| n.is_empty()) {
            return Err(bad());
        }
        let parse = |n: &str| n.parse::<u64>().map_err(|_| bad());
        let (major, minor) = (parse(numbers[0])?, parse(numbers[1])?);
        let patch = numbers.get(2).map(|n| parse(n)).transpose()?.unwrap_or(0);
        let rest = &body[end..];
        let normalized = format!("v{major}.{minor}.{patch}{}", generic_suffix(rest));
        let version = if text.starts_with('v') {
            text.to_string()
        } else {
            format!("v{text}")
        };
        Ok(KubeVersion {
            version,
            normalized,
            major: major.to_string(),
            minor: minor.to_string(),
        })
    }
}

/// ParseGeneric keeps a pre-release (`-rc.1`) and build (`+x`) suffix in its String().
fn generic_suffix(rest: &str) -> String {
    if rest.starts_with(['-', '+']) {
        rest.to_string()
    } else {
        String::new()
    }
}

#[derive(Debug, Clone)]
pub struct Capabilities {
    pub kube_version: KubeVersion,
    pub api_versions: Vec<String>,
}

impl Capabilities {
    /// The offline defaults, plus extra API versions (`--api-versions`).
    pub fn new(kube_version: Option<KubeVersion>, extra_api_versions: &[String]) -> Capabilities {
        let kube_version = kube_version.unwrap_or_else(|| {
            KubeVersion::parse(DEFAULT_KUBE_VERSION)
                .unwrap_or_else(|_| unreachable!("the default Kubernetes version parses"))
        });
        let mut api_versions: Vec<String> =
            DEFAULT_API_VERSIONS.iter().map(|s| s.to_string()).collect();
        api_versions.extend(extra_api_versions.iter().cloned());
        Capabilities {
            kube_version,
            api_versions,
        }
    }

    /// `.Capabilities.APIVersions.Has`: an exact entry (`apps/v1`, or `group/version/Kind` when
    /// such an entry was given).
    pub fn has(&self, api_version: &str) -> bool {
        self.api_versions.iter().any(|v| v == api_version)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kube_versions_parse_like_kubernetes() {
        let v = KubeVersion::parse("1.33").unwrap();
        assert_eq!(
            (v.version.as_str(), v.normalized.as_str()),
            ("v1.33", "v1.33.0")
        );
        let v = KubeVersion::parse("v1.33.4-gke.1245000").unwrap();
        assert_eq!(v.version, "v1.33.4-gke.1245000");
        assert_eq!(v.normalized, "v1.33.4-gke.1245000");
        assert_eq!((v.major.as_str(), v.minor.as_str()), ("1", "33"));
        assert!(KubeVersion::parse("banana").is_err());
    }
}
