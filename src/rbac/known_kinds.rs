//! The kinds operator-rs knows without asking a cluster: every built-in Kubernetes kind a chart
//! can create, and the custom kinds of widespread projects, with their API group, resource
//! plural and scope.
//!
//! Plurals cannot be derived from kinds reliably (`Endpoints`, `Prometheus` ->
//! `prometheuses`), and scope cannot be derived at all, so both are written out. When a kind
//! is known under several groups (Istio's `Gateway` and Gateway API's), the first entry is the
//! one assumed when a template computes the apiVersion.
//!
//! Only kinds a supported cluster serves are here: `extensions` and PodSecurityPolicy are gone
//! (see [`super::removed_apis`]), so a template for them never widens the role.

/// One kind as the API server serves it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KnownKind {
    pub group: &'static str,
    pub kind: &'static str,
    pub plural: &'static str,
    pub namespaced: bool,
}

const fn ns(group: &'static str, kind: &'static str, plural: &'static str) -> KnownKind {
    KnownKind {
        group,
        kind,
        plural,
        namespaced: true,
    }
}

const fn cluster(group: &'static str, kind: &'static str, plural: &'static str) -> KnownKind {
    KnownKind {
        group,
        kind,
        plural,
        namespaced: false,
    }
}

/// The table. Order matters only for kinds served by several groups: the first is preferred.
pub const KNOWN_KINDS: &[KnownKind] = &[
    // core
    ns("", "Pod", "pods"),
    ns("", "Service", "services"),
    ns("", "ServiceAccount", "serviceaccounts"),
    ns("", "ConfigMap", "configmaps"),
    ns("", "Secret", "secrets"),
    ns("", "Endpoints", "endpoints"),
    ns("", "PersistentVolumeClaim", "persistentvolumeclaims"),
    ns("", "ReplicationController", "replicationcontrollers"),
    ns("", "LimitRange", "limitranges"),
    ns("", "ResourceQuota", "resourcequotas"),
    ns("", "Event", "events"),
    ns("", "PodTemplate", "podtemplates"),
    cluster("", "Namespace", "namespaces"),
    cluster("", "PersistentVolume", "persistentvolumes"),
    cluster("", "Node", "nodes"),
    // apps
    ns("apps", "Deployment", "deployments"),
    ns("apps", "StatefulSet", "statefulsets"),
    ns("apps", "DaemonSet", "daemonsets"),
    ns("apps", "ReplicaSet", "replicasets"),
    ns("apps", "ControllerRevision", "controllerrevisions"),
    // batch
    ns("batch", "Job", "jobs"),
    ns("batch", "CronJob", "cronjobs"),
    // autoscaling
    ns(
        "autoscaling",
        "HorizontalPodAutoscaler",
        "horizontalpodautoscalers",
    ),
    // networking.k8s.io
    ns("networking.k8s.io", "Ingress", "ingresses"),
    ns("networking.k8s.io", "NetworkPolicy", "networkpolicies"),
    cluster("networking.k8s.io", "IngressClass", "ingressclasses"),
    cluster("networking.k8s.io", "IPAddress", "ipaddresses"),
    cluster("networking.k8s.io", "ServiceCIDR", "servicecidrs"),
    // policy
    ns("policy", "PodDisruptionBudget", "poddisruptionbudgets"),
    // rbac.authorization.k8s.io
    ns("rbac.authorization.k8s.io", "Role", "roles"),
    ns("rbac.authorization.k8s.io", "RoleBinding", "rolebindings"),
    cluster("rbac.authorization.k8s.io", "ClusterRole", "clusterroles"),
    cluster(
        "rbac.authorization.k8s.io",
        "ClusterRoleBinding",
        "clusterrolebindings",
    ),
    // storage.k8s.io
    cluster("storage.k8s.io", "StorageClass", "storageclasses"),
    cluster("storage.k8s.io", "VolumeAttachment", "volumeattachments"),
    cluster("storage.k8s.io", "CSIDriver", "csidrivers"),
    cluster("storage.k8s.io", "CSINode", "csinodes"),
    ns(
        "storage.k8s.io",
        "CSIStorageCapacity",
        "csistoragecapacities",
    ),
    cluster(
        "storage.k8s.io",
        "VolumeAttributesClass",
        "volumeattributesclasses",
    ),
    // scheduling.k8s.io
    cluster("scheduling.k8s.io", "PriorityClass", "priorityclasses"),
    // coordination.k8s.io
    ns("coordination.k8s.io", "Lease", "leases"),
    // discovery.k8s.io
    ns("discovery.k8s.io", "EndpointSlice", "endpointslices"),
    // events.k8s.io (after core, which is preferred for a computed apiVersion)
    ns("events.k8s.io", "Event", "events"),
    // admissionregistration.k8s.io
    cluster(
        "admissionregistration.k8s.io",
        "MutatingWebhookConfiguration",
        "mutatingwebhookconfigurations",
    ),
    cluster(
        "admissionregistration.k8s.io",
        "ValidatingWebhookConfiguration",
        "validatingwebhookconfigurations",
    ),
    cluster(
        "admissionregistration.k8s.io",
        "ValidatingAdmissionPolicy",
        "validatingadmissionpolicies",
    ),
    cluster(
        "admissionregistration.k8s.io",
        "ValidatingAdmissionPolicyBinding",
        "validatingadmissionpolicybindings",
    ),
    cluster(
        "admissionregistration.k8s.io",
        "MutatingAdmissionPolicy",
        "mutatingadmissionpolicies",
    ),
    cluster(
        "admissionregistration.k8s.io",
        "MutatingAdmissionPolicyBinding",
        "mutatingadmissionpolicybindings",
    ),
    // apiextensions.k8s.io, apiregistration.k8s.io
    cluster(
        "apiextensions.k8s.io",
        "CustomResourceDefinition",
        "customresourcedefinitions",
    ),
    cluster("apiregistration.k8s.io", "APIService", "apiservices"),
    // certificates.k8s.io
    cluster(
        "certificates.k8s.io",
        "CertificateSigningRequest",
        "certificatesigningrequests",
    ),
    cluster(
        "certificates.k8s.io",
        "ClusterTrustBundle",
        "clustertrustbundles",
    ),
    // node.k8s.io
    cluster("node.k8s.io", "RuntimeClass", "runtimeclasses"),
    // flowcontrol.apiserver.k8s.io
    cluster("flowcontrol.apiserver.k8s.io", "FlowSchema", "flowschemas"),
    cluster(
        "flowcontrol.apiserver.k8s.io",
        "PriorityLevelConfiguration",
        "prioritylevelconfigurations",
    ),
    // resource.k8s.io (dynamic resource allocation)
    ns("resource.k8s.io", "ResourceClaim", "resourceclaims"),
    ns(
        "resource.k8s.io",
        "ResourceClaimTemplate",
        "resourceclaimtemplates",
    ),
    cluster("resource.k8s.io", "DeviceClass", "deviceclasses"),
    cluster("resource.k8s.io", "ResourceSlice", "resourceslices"),
    // snapshot.storage.k8s.io (CSI snapshots)
    ns(
        "snapshot.storage.k8s.io",
        "VolumeSnapshot",
        "volumesnapshots",
    ),
    cluster(
        "snapshot.storage.k8s.io",
        "VolumeSnapshotClass",
        "volumesnapshotclasses",
    ),
    cluster(
        "snapshot.storage.k8s.io",
        "VolumeSnapshotContent",
        "volumesnapshotcontents",
    ),
    // autoscaling.k8s.io (Vertical Pod Autoscaler)
    ns(
        "autoscaling.k8s.io",
        "VerticalPodAutoscaler",
        "verticalpodautoscalers",
    ),
    ns(
        "autoscaling.k8s.io",
        "VerticalPodAutoscalerCheckpoint",
        "verticalpodautoscalercheckpoints",
    ),
    // gateway.networking.k8s.io (Gateway API)
    ns("gateway.networking.k8s.io", "Gateway", "gateways"),
    cluster(
        "gateway.networking.k8s.io",
        "GatewayClass",
        "gatewayclasses",
    ),
    ns("gateway.networking.k8s.io", "HTTPRoute", "httproutes"),
    ns("gateway.networking.k8s.io", "GRPCRoute", "grpcroutes"),
    ns("gateway.networking.k8s.io", "TCPRoute", "tcproutes"),
    ns("gateway.networking.k8s.io", "TLSRoute", "tlsroutes"),
    ns("gateway.networking.k8s.io", "UDPRoute", "udproutes"),
    ns(
        "gateway.networking.k8s.io",
        "ReferenceGrant",
        "referencegrants",
    ),
    ns(
        "gateway.networking.k8s.io",
        "BackendTLSPolicy",
        "backendtlspolicies",
    ),
    ns("gateway.networking.k8s.io", "ListenerSet", "listenersets"),
    // cert-manager.io, acme.cert-manager.io
    ns("cert-manager.io", "Certificate", "certificates"),
    ns(
        "cert-manager.io",
        "CertificateRequest",
        "certificaterequests",
    ),
    ns("cert-manager.io", "Issuer", "issuers"),
    cluster("cert-manager.io", "ClusterIssuer", "clusterissuers"),
    ns("acme.cert-manager.io", "Order", "orders"),
    ns("acme.cert-manager.io", "Challenge", "challenges"),
    // monitoring.coreos.com (Prometheus Operator)
    ns("monitoring.coreos.com", "ServiceMonitor", "servicemonitors"),
    ns("monitoring.coreos.com", "PodMonitor", "podmonitors"),
    ns("monitoring.coreos.com", "PrometheusRule", "prometheusrules"),
    ns("monitoring.coreos.com", "Probe", "probes"),
    ns("monitoring.coreos.com", "ScrapeConfig", "scrapeconfigs"),
    ns("monitoring.coreos.com", "Prometheus", "prometheuses"),
    ns(
        "monitoring.coreos.com",
        "PrometheusAgent",
        "prometheusagents",
    ),
    ns("monitoring.coreos.com", "Alertmanager", "alertmanagers"),
    ns(
        "monitoring.coreos.com",
        "AlertmanagerConfig",
        "alertmanagerconfigs",
    ),
    ns("monitoring.coreos.com", "ThanosRuler", "thanosrulers"),
    // Istio
    ns("networking.istio.io", "VirtualService", "virtualservices"),
    ns("networking.istio.io", "DestinationRule", "destinationrules"),
    ns("networking.istio.io", "Gateway", "gateways"),
    ns("networking.istio.io", "ServiceEntry", "serviceentries"),
    ns("networking.istio.io", "Sidecar", "sidecars"),
    ns("networking.istio.io", "EnvoyFilter", "envoyfilters"),
    ns("networking.istio.io", "WorkloadEntry", "workloadentries"),
    ns("networking.istio.io", "WorkloadGroup", "workloadgroups"),
    ns("networking.istio.io", "ProxyConfig", "proxyconfigs"),
    ns(
        "security.istio.io",
        "AuthorizationPolicy",
        "authorizationpolicies",
    ),
    ns(
        "security.istio.io",
        "PeerAuthentication",
        "peerauthentications",
    ),
    ns(
        "security.istio.io",
        "RequestAuthentication",
        "requestauthentications",
    ),
    ns("telemetry.istio.io", "Telemetry", "telemetries"),
    // Traefik (current group, then the one before v3)
    ns("traefik.io", "IngressRoute", "ingressroutes"),
    ns("traefik.io", "IngressRouteTCP", "ingressroutetcps"),
    ns("traefik.io", "IngressRouteUDP", "ingressrouteudps"),
    ns("traefik.io", "Middleware", "middlewares"),
    ns("traefik.io", "MiddlewareTCP", "middlewaretcps"),
    ns("traefik.io", "TLSOption", "tlsoptions"),
    ns("traefik.io", "TLSStore", "tlsstores"),
    ns("traefik.io", "TraefikService", "traefikservices"),
    ns("traefik.io", "ServersTransport", "serverstransports"),
    ns("traefik.io", "ServersTransportTCP", "serverstransporttcps"),
    ns("traefik.containo.us", "IngressRoute", "ingressroutes"),
    ns("traefik.containo.us", "IngressRouteTCP", "ingressroutetcps"),
    ns("traefik.containo.us", "IngressRouteUDP", "ingressrouteudps"),
    ns("traefik.containo.us", "Middleware", "middlewares"),
    ns("traefik.containo.us", "MiddlewareTCP", "middlewaretcps"),
    ns("traefik.containo.us", "TLSOption", "tlsoptions"),
    ns("traefik.containo.us", "TLSStore", "tlsstores"),
    ns("traefik.containo.us", "TraefikService", "traefikservices"),
    ns(
        "traefik.containo.us",
        "ServersTransport",
        "serverstransports",
    ),
    // KEDA
    ns("keda.sh", "ScaledObject", "scaledobjects"),
    ns("keda.sh", "ScaledJob", "scaledjobs"),
    ns("keda.sh", "TriggerAuthentication", "triggerauthentications"),
    cluster(
        "keda.sh",
        "ClusterTriggerAuthentication",
        "clustertriggerauthentications",
    ),
    // Argo CD, Argo Rollouts, Argo Workflows
    ns("argoproj.io", "Application", "applications"),
    ns("argoproj.io", "ApplicationSet", "applicationsets"),
    ns("argoproj.io", "AppProject", "appprojects"),
    ns("argoproj.io", "Rollout", "rollouts"),
    ns("argoproj.io", "AnalysisTemplate", "analysistemplates"),
    cluster(
        "argoproj.io",
        "ClusterAnalysisTemplate",
        "clusteranalysistemplates",
    ),
    ns("argoproj.io", "AnalysisRun", "analysisruns"),
    ns("argoproj.io", "Experiment", "experiments"),
    ns("argoproj.io", "Workflow", "workflows"),
    ns("argoproj.io", "WorkflowTemplate", "workflowtemplates"),
    cluster(
        "argoproj.io",
        "ClusterWorkflowTemplate",
        "clusterworkflowtemplates",
    ),
    ns("argoproj.io", "CronWorkflow", "cronworkflows"),
    // External Secrets, Sealed Secrets
    ns("external-secrets.io", "ExternalSecret", "externalsecrets"),
    ns("external-secrets.io", "SecretStore", "secretstores"),
    ns("external-secrets.io", "PushSecret", "pushsecrets"),
    cluster(
        "external-secrets.io",
        "ClusterSecretStore",
        "clustersecretstores",
    ),
    cluster(
        "external-secrets.io",
        "ClusterExternalSecret",
        "clusterexternalsecrets",
    ),
    ns("bitnami.com", "SealedSecret", "sealedsecrets"),
    // Cilium, Kyverno
    ns("cilium.io", "CiliumNetworkPolicy", "ciliumnetworkpolicies"),
    cluster(
        "cilium.io",
        "CiliumClusterwideNetworkPolicy",
        "ciliumclusterwidenetworkpolicies",
    ),
    ns("kyverno.io", "Policy", "policies"),
    cluster("kyverno.io", "ClusterPolicy", "clusterpolicies"),
    // Flux
    ns(
        "source.toolkit.fluxcd.io",
        "GitRepository",
        "gitrepositories",
    ),
    ns(
        "source.toolkit.fluxcd.io",
        "HelmRepository",
        "helmrepositories",
    ),
    ns(
        "source.toolkit.fluxcd.io",
        "OCIRepository",
        "ocirepositories",
    ),
    ns("helm.toolkit.fluxcd.io", "HelmRelease", "helmreleases"),
    ns(
        "kustomize.toolkit.fluxcd.io",
        "Kustomization",
        "kustomizations",
    ),
    // Operator Lifecycle Manager
    ns("operators.coreos.com", "Subscription", "subscriptions"),
    ns("operators.coreos.com", "OperatorGroup", "operatorgroups"),
    ns("operators.coreos.com", "CatalogSource", "catalogsources"),
    ns(
        "operators.coreos.com",
        "ClusterServiceVersion",
        "clusterserviceversions",
    ),
    // OpenShift
    ns("route.openshift.io", "Route", "routes"),
    cluster(
        "security.openshift.io",
        "SecurityContextConstraints",
        "securitycontextconstraints",
    ),
];

/// The entry for `kind` in `group`.
pub fn lookup(group: &str, kind: &str) -> Option<&'static KnownKind> {
    KNOWN_KINDS
        .iter()
        .find(|k| k.group == group && k.kind == kind)
}

/// The preferred entry for `kind` in any group (for a template that computes its apiVersion).
pub fn lookup_kind(kind: &str) -> Option<&'static KnownKind> {
    KNOWN_KINDS.iter().find(|k| k.kind == kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_unique_and_well_formed() {
        for (i, a) in KNOWN_KINDS.iter().enumerate() {
            assert!(
                KNOWN_KINDS[i + 1..]
                    .iter()
                    .all(|b| (a.group, a.kind) != (b.group, b.kind)),
                "{a:?} is listed twice"
            );
            assert!(
                a.plural
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit()),
                "{a:?}"
            );
            assert!(
                a.kind.starts_with(|c: char| c.is_ascii_uppercase()),
                "{a:?}"
            );
        }
    }

    #[test]
    fn plurals_agree_with_the_english_rules_where_they_apply() {
        // The table exists because the rules are not enough; this guards against typos in
        // the many entries where they are.
        let irregular = ["Endpoints", "SecurityContextConstraints"];
        for known in KNOWN_KINDS {
            if irregular.contains(&known.kind) {
                continue;
            }
            assert_eq!(
                crate::names::pluralize(&known.kind.to_ascii_lowercase()),
                known.plural,
                "{known:?}"
            );
        }
    }

    #[test]
    fn preferred_groups_for_shared_kind_names() {
        assert_eq!(
            lookup_kind("Gateway").unwrap().group,
            "gateway.networking.k8s.io"
        );
        assert_eq!(lookup_kind("Event").unwrap().group, "");
        assert_eq!(lookup_kind("Ingress").unwrap().group, "networking.k8s.io");
        assert!(!lookup("", "Namespace").unwrap().namespaced);
        assert!(lookup("cert-manager.io", "Issuer").unwrap().namespaced);
    }
}
