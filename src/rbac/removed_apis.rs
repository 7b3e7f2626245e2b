//! Built-in API versions that Kubernetes no longer serves in the oldest release operator-rs
//! supports ([`OLDEST_SUPPORTED`]).
//!
//! Charts keep templates for them behind `.Capabilities.APIVersions.Has` or a version check,
//! so that one chart installs on old and new clusters. On a supported cluster those templates
//! never render (or render with the current version), so a rule for them would only widen the
//! role: `policy/v1beta1` PodSecurityPolicy alone would turn it cluster-wide.

/// The oldest Kubernetes release operator-rs generates operators for.
pub const OLDEST_SUPPORTED: &str = "1.33";

/// One removed API: the kinds of `group/version` listed (empty: every kind of it), and the
/// Kubernetes release that stopped serving it.
struct Removed {
    api_version: &'static str,
    kinds: &'static [&'static str],
    since: &'static str,
}

const fn gone(
    api_version: &'static str,
    kinds: &'static [&'static str],
    since: &'static str,
) -> Removed {
    Removed {
        api_version,
        kinds,
        since,
    }
}

/// From the Kubernetes deprecated API migration guide, up to 1.33.
const REMOVED: &[Removed] = &[
    gone("extensions/v1beta1", &[], "1.22"),
    gone("apps/v1beta1", &[], "1.16"),
    gone("apps/v1beta2", &[], "1.16"),
    gone("policy/v1beta1", &[], "1.25"),
    gone("batch/v1beta1", &[], "1.25"),
    gone("batch/v2alpha1", &[], "1.21"),
    gone("autoscaling/v2beta1", &[], "1.25"),
    gone("autoscaling/v2beta2", &[], "1.26"),
    gone(
        "networking.k8s.io/v1beta1",
        &["Ingress", "IngressClass"],
        "1.22",
    ),
    gone("rbac.authorization.k8s.io/v1beta1", &[], "1.22"),
    gone("rbac.authorization.k8s.io/v1alpha1", &[], "1.22"),
    gone("scheduling.k8s.io/v1beta1", &[], "1.22"),
    gone("scheduling.k8s.io/v1alpha1", &[], "1.22"),
    gone("admissionregistration.k8s.io/v1beta1", &[], "1.22"),
    gone("apiextensions.k8s.io/v1beta1", &[], "1.22"),
    gone("apiregistration.k8s.io/v1beta1", &[], "1.22"),
    gone("certificates.k8s.io/v1beta1", &[], "1.22"),
    gone("coordination.k8s.io/v1beta1", &[], "1.22"),
    gone(
        "storage.k8s.io/v1beta1",
        &["CSIDriver", "CSINode", "StorageClass", "VolumeAttachment"],
        "1.22",
    ),
    gone("storage.k8s.io/v1beta1", &["CSIStorageCapacity"], "1.27"),
    gone("discovery.k8s.io/v1beta1", &[], "1.25"),
    gone("events.k8s.io/v1beta1", &[], "1.25"),
    gone("node.k8s.io/v1beta1", &[], "1.25"),
    gone("flowcontrol.apiserver.k8s.io/v1beta1", &[], "1.26"),
    gone("flowcontrol.apiserver.k8s.io/v1beta2", &[], "1.29"),
    gone("flowcontrol.apiserver.k8s.io/v1beta3", &[], "1.32"),
    gone("settings.k8s.io/v1alpha1", &[], "1.20"),
];

/// The release that stopped serving `kind` in `api_version`, or `None` when a supported
/// cluster serves it (or it is not a built-in API we know to be gone).
pub fn removed_since(api_version: &str, kind: &str) -> Option<&'static str> {
    REMOVED
        .iter()
        .find(|r| r.api_version == api_version && (r.kinds.is_empty() || r.kinds.contains(&kind)))
        .map(|r| r.since)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn removed_and_served_versions() {
        assert_eq!(
            removed_since("policy/v1beta1", "PodSecurityPolicy"),
            Some("1.25")
        );
        assert_eq!(removed_since("extensions/v1beta1", "Ingress"), Some("1.22"));
        assert_eq!(
            removed_since("networking.k8s.io/v1beta1", "Ingress"),
            Some("1.22")
        );
        assert_eq!(
            removed_since("autoscaling/v2beta2", "HorizontalPodAutoscaler"),
            Some("1.26")
        );
        // Still served, or not built in.
        assert_eq!(
            removed_since("networking.k8s.io/v1beta1", "ServiceCIDR"),
            None
        );
        assert_eq!(removed_since("policy/v1", "PodDisruptionBudget"), None);
        assert_eq!(
            removed_since("cert-manager.io/v1alpha2", "Certificate"),
            None
        );
        assert_eq!(removed_since("v1", "Pod"), None);
    }
}
