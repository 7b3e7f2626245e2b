//! The kinds the test server serves (a few built-in ones plus those of Established CRDs) and
//! the discovery documents that describe them, legacy and aggregated.

use serde_json::{Value, json};

/// One served resource type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceType {
    pub group: String,
    pub version: String,
    pub kind: String,
    pub plural: String,
    pub singular: String,
    pub namespaced: bool,
    pub verbs: Vec<&'static str>,
    /// Writes to the main resource leave `status` alone, as with a status subresource.
    pub status_subresource: bool,
    pub short_names: Vec<String>,
    /// Served from a CRD rather than built in.
    pub custom: bool,
}

const ALL_VERBS: &[&str] = &[
    "create",
    "delete",
    "deletecollection",
    "get",
    "list",
    "patch",
    "update",
    "watch",
];

impl ResourceType {
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    /// `deployments.apps`, `secrets`: how messages name the resource.
    pub fn qualified(&self) -> String {
        if self.group.is_empty() {
            self.plural.clone()
        } else {
            format!("{}.{}", self.plural, self.group)
        }
    }

    pub fn is(&self, group: &str, plural: &str) -> bool {
        self.group == group && self.plural == plural
    }

    fn builtin(
        group: &str,
        kind: &str,
        plural: &str,
        namespaced: bool,
        status: bool,
        short: &[&str],
    ) -> ResourceType {
        ResourceType {
            group: group.into(),
            version: "v1".into(),
            kind: kind.into(),
            plural: plural.into(),
            singular: kind.to_lowercase(),
            namespaced,
            verbs: ALL_VERBS.to_vec(),
            status_subresource: status,
            short_names: short.iter().map(|s| s.to_string()).collect(),
            custom: false,
        }
    }

    /// The kinds of one CRD object, once it is Established.
    pub fn from_crd(crd: &Value) -> Vec<ResourceType> {
        let spec = &crd["spec"];
        let names = &spec["names"];
        let text = |v: &Value| v.as_str().unwrap_or_default().to_string();
        spec["versions"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|v| v["served"] != false)
            .map(|v| ResourceType {
                group: text(&spec["group"]),
                version: text(&v["name"]),
                kind: text(&names["kind"]),
                plural: text(&names["plural"]),
                singular: names["singular"]
                    .as_str()
                    .map(String::from)
                    .unwrap_or_else(|| text(&names["kind"]).to_lowercase()),
                namespaced: spec["scope"] != "Cluster",
                verbs: ALL_VERBS.to_vec(),
                status_subresource: v
                    .pointer("/subresources/status")
                    .is_some_and(|s| !s.is_null()),
                short_names: names["shortNames"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|s| s.as_str().map(String::from))
                    .collect(),
                custom: true,
            })
            .collect()
    }
}

/// The built-in kinds: what a generated operator's deploy files and a rollout report use.
pub fn builtins() -> Vec<ResourceType> {
    let rbac = "rbac.authorization.k8s.io";
    let mut types = vec![
        ResourceType::builtin("", "Namespace", "namespaces", false, true, &["ns"]),
        ResourceType::builtin(
            "",
            "ServiceAccount",
            "serviceaccounts",
            true,
            false,
            &["sa"],
        ),
        ResourceType::builtin("", "ConfigMap", "configmaps", true, false, &["cm"]),
        ResourceType::builtin("", "Secret", "secrets", true, false, &[]),
        ResourceType::builtin("", "Service", "services", true, true, &["svc"]),
        ResourceType::builtin("", "Pod", "pods", true, true, &["po"]),
        ResourceType::builtin("", "Event", "events", true, false, &["ev"]),
        ResourceType::builtin("apps", "Deployment", "deployments", true, true, &["deploy"]),
        ResourceType::builtin(rbac, "Role", "roles", true, false, &[]),
        ResourceType::builtin(rbac, "RoleBinding", "rolebindings", true, false, &[]),
        ResourceType::builtin(rbac, "ClusterRole", "clusterroles", false, false, &[]),
        ResourceType::builtin(
            rbac,
            "ClusterRoleBinding",
            "clusterrolebindings",
            false,
            false,
            &[],
        ),
        ResourceType::builtin(
            "apiextensions.k8s.io",
            "CustomResourceDefinition",
            "customresourcedefinitions",
            false,
            true,
            &["crd", "crds"],
        ),
        // What controllers and Helm charts use besides.
        ResourceType::builtin("coordination.k8s.io", "Lease", "leases", true, false, &[]),
        ResourceType::builtin("events.k8s.io", "Event", "events", true, false, &["ev"]),
        ResourceType::builtin(
            "",
            "PersistentVolumeClaim",
            "persistentvolumeclaims",
            true,
            true,
            &["pvc"],
        ),
        ResourceType::builtin("", "Endpoints", "endpoints", true, false, &["ep"]),
        // Where the webhooks of a Service are called ([`super::webhook_client`]).
        ResourceType::builtin(
            "discovery.k8s.io",
            "EndpointSlice",
            "endpointslices",
            true,
            false,
            &[],
        ),
        ResourceType::builtin("apps", "StatefulSet", "statefulsets", true, true, &["sts"]),
        ResourceType::builtin("apps", "DaemonSet", "daemonsets", true, true, &["ds"]),
        ResourceType::builtin("apps", "ReplicaSet", "replicasets", true, true, &["rs"]),
        ResourceType::builtin("batch", "Job", "jobs", true, true, &[]),
        ResourceType::builtin("batch", "CronJob", "cronjobs", true, true, &["cj"]),
        ResourceType::builtin(
            "networking.k8s.io",
            "Ingress",
            "ingresses",
            true,
            true,
            &["ing"],
        ),
        ResourceType::builtin(
            "networking.k8s.io",
            "IngressClass",
            "ingressclasses",
            false,
            false,
            &[],
        ),
        ResourceType::builtin(
            "admissionregistration.k8s.io",
            "ValidatingWebhookConfiguration",
            "validatingwebhookconfigurations",
            false,
            false,
            &[],
        ),
        ResourceType::builtin(
            "admissionregistration.k8s.io",
            "MutatingWebhookConfiguration",
            "mutatingwebhookconfigurations",
            false,
            false,
            &[],
        ),
        ResourceType::builtin(
            "networking.k8s.io",
            "NetworkPolicy",
            "networkpolicies",
            true,
            false,
            &["netpol"],
        ),
        ResourceType::builtin(
            "policy",
            "PodDisruptionBudget",
            "poddisruptionbudgets",
            true,
            true,
            &["pdb"],
        ),
        // Charts that run critical pods (rancher) create their own.
        ResourceType::builtin(
            "scheduling.k8s.io",
            "PriorityClass",
            "priorityclasses",
            false,
            false,
            &["pc"],
        ),
    ];
    let mut reviews = ResourceType::builtin(
        "authentication.k8s.io",
        "SelfSubjectReview",
        "selfsubjectreviews",
        false,
        false,
        &[],
    );
    reviews.verbs = vec!["create"];
    types.push(reviews);
    // Asked by operators that delegate authentication and authorization of their endpoints
    // to the API server ([`super::reviews`]).
    for (group, kind, plural) in [
        ("authentication.k8s.io", "TokenReview", "tokenreviews"),
        (
            "authorization.k8s.io",
            "SubjectAccessReview",
            "subjectaccessreviews",
        ),
    ] {
        let mut review = ResourceType::builtin(group, kind, plural, false, false, &[]);
        review.verbs = vec!["create"];
        types.push(review);
    }
    types
}

/// Group names in first-seen order, core group excluded.
fn groups(types: &[ResourceType]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for t in types {
        if !t.group.is_empty() && !out.contains(&t.group) {
            out.push(t.group.clone());
        }
    }
    out
}

fn versions_of(types: &[ResourceType], group: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for t in types.iter().filter(|t| t.group == group) {
        if !out.contains(&t.version) {
            out.push(t.version.clone());
        }
    }
    out
}

/// `GET /api`, legacy form.
pub fn legacy_core(address: &str) -> Value {
    json!({
        "kind": "APIVersions",
        "versions": ["v1"],
        "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": address}],
    })
}

/// `GET /apis`, legacy form.
pub fn legacy_groups(types: &[ResourceType]) -> Value {
    let groups: Vec<Value> = groups(types)
        .iter()
        .map(|group| legacy_group(types, group))
        .collect();
    json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups})
}

/// `GET /apis/<group>`.
pub fn legacy_group(types: &[ResourceType], group: &str) -> Value {
    let versions: Vec<Value> = versions_of(types, group)
        .iter()
        .map(|v| json!({"groupVersion": format!("{group}/{v}"), "version": v}))
        .collect();
    json!({
        "kind": "APIGroup",
        "apiVersion": "v1",
        "name": group,
        "preferredVersion": versions.first().cloned().unwrap_or(Value::Null),
        "versions": versions,
    })
}

/// `GET /api/v1` or `/apis/<group>/<version>`.
pub fn resource_list(types: &[ResourceType], group: &str, version: &str) -> Option<Value> {
    let matching: Vec<&ResourceType> = types
        .iter()
        .filter(|t| t.group == group && t.version == version)
        .collect();
    if matching.is_empty() {
        return None;
    }
    let mut resources = Vec::new();
    for t in matching {
        resources.push(json!({
            "name": t.plural,
            "singularName": t.singular,
            "namespaced": t.namespaced,
            "kind": t.kind,
            "verbs": t.verbs,
            "shortNames": t.short_names,
        }));
        if t.status_subresource {
            resources.push(json!({
                "name": format!("{}/status", t.plural),
                "singularName": "",
                "namespaced": t.namespaced,
                "kind": t.kind,
                "verbs": ["get", "patch", "update"],
            }));
        }
    }
    let group_version = if group.is_empty() {
        version.to_string()
    } else {
        format!("{group}/{version}")
    };
    Some(json!({
        "kind": "APIResourceList",
        "apiVersion": "v1",
        "groupVersion": group_version,
        "resources": resources,
    }))
}

pub const AGGREGATED_CONTENT_TYPE: &str =
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

fn aggregated_group(types: &[ResourceType], group: &str) -> Value {
    let versions: Vec<Value> = versions_of(types, group)
        .iter()
        .map(|version| {
            let resources: Vec<Value> = types
                .iter()
                .filter(|t| t.group == group && &t.version == version)
                .map(|t| {
                    let kind = json!({"group": t.group, "version": t.version, "kind": t.kind});
                    let subresources: Vec<Value> = if t.status_subresource {
                        vec![json!({"subresource": "status", "responseKind": kind,
                                    "verbs": ["get", "patch", "update"]})]
                    } else {
                        vec![]
                    };
                    json!({
                        "resource": t.plural,
                        "responseKind": kind,
                        "scope": if t.namespaced { "Namespaced" } else { "Cluster" },
                        "singularResource": t.singular,
                        "verbs": t.verbs,
                        "shortNames": t.short_names,
                        "subresources": subresources,
                    })
                })
                .collect();
            json!({"version": version, "resources": resources, "freshness": "Current"})
        })
        .collect();
    let metadata = if group.is_empty() {
        json!({"creationTimestamp": null})
    } else {
        json!({"name": group, "creationTimestamp": null})
    };
    json!({"metadata": metadata, "versions": versions})
}

/// `GET /api` or `/apis` asked for `apidiscovery.k8s.io/v2`: every resource in one answer.
pub fn aggregated(types: &[ResourceType], core: bool) -> Value {
    let items: Vec<Value> = if core {
        vec![aggregated_group(types, "")]
    } else {
        groups(types)
            .iter()
            .map(|g| aggregated_group(types, g))
            .collect()
    };
    json!({
        "kind": "APIGroupDiscoveryList",
        "apiVersion": "apidiscovery.k8s.io/v2",
        "metadata": {},
        "items": items,
    })
}

/// `GET /openapi/v3`: where each group version's document is. kubectl reads it to learn that
/// the server validates fields itself (`fieldValidation`), and skips client-side validation.
pub fn openapi_index(types: &[ResourceType]) -> Value {
    let mut paths = serde_json::Map::new();
    for t in types {
        let prefix = openapi_prefix(t);
        let url = format!("/openapi/v3/{prefix}?hash={}", openapi_hash(types, t));
        paths.insert(prefix, json!({"serverRelativeURL": url}));
    }
    json!({"paths": paths})
}

fn openapi_prefix(t: &ResourceType) -> String {
    if t.group.is_empty() {
        format!("api/{}", t.version)
    } else {
        format!("apis/{}/{}", t.group, t.version)
    }
}

/// Changes when the group version's kinds change, so kubectl's cache is refreshed.
fn openapi_hash(types: &[ResourceType], of: &ResourceType) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for t in types
        .iter()
        .filter(|t| openapi_prefix(t) == openapi_prefix(of))
    {
        for byte in t.kind.bytes().chain(t.plural.bytes()) {
            hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{hash:016X}")
}

/// `GET /openapi/v3/<prefix>`: the PATCH operation of each kind, with its query parameters
/// and no schemas (the test server validates nothing against them).
pub fn openapi_document(types: &[ResourceType], prefix: &str) -> Option<Value> {
    let mut paths = serde_json::Map::new();
    for t in types.iter().filter(|t| openapi_prefix(t) == prefix) {
        let parameters: Vec<Value> = ["dryRun", "fieldManager", "fieldValidation", "force"]
            .iter()
            .map(|name| json!({"name": name, "in": "query", "schema": {"type": "string"}}))
            .collect();
        let operation = json!({
            "operationId": format!("patch{}", t.kind),
            "x-kubernetes-action": "patch",
            "x-kubernetes-group-version-kind": {"group": t.group, "version": t.version, "kind": t.kind},
            "parameters": parameters,
            "responses": {"200": {"description": "OK"}},
        });
        let path = if t.namespaced {
            format!("/{prefix}/namespaces/{{namespace}}/{}/{{name}}", t.plural)
        } else {
            format!("/{prefix}/{}/{{name}}", t.plural)
        };
        paths.insert(path, json!({"patch": operation}));
    }
    if paths.is_empty() {
        return None;
    }
    Some(json!({
        "openapi": "3.0.0",
        "info": {"title": "Kubernetes", "version": "v1.33.0"},
        "paths": paths,
        "components": {"schemas": {}},
    }))
}
