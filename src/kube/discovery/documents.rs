//! The discovery documents of the Kubernetes API, in the two forms a server may answer with,
//! and the one form everything else here works on (the legacy one, which is also what
//! kubectl keeps in its disk cache).
//!
//! The types are our own and lenient (missing fields default) because proxies and emulators
//! leave out fields that the generated API types insist on.

use serde::{Deserialize, Serialize};

/// What `Accept` asks for: aggregated discovery (v2, then v2beta1) and the legacy documents
/// as the fallback, in the order client-go asks.
pub const ACCEPT: &str = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json;q=0.9";

/// Only the legacy documents: used when an aggregated answer turned out empty.
pub const ACCEPT_LEGACY: &str = "application/json";

const AGGREGATED_KIND: &str = "APIGroupDiscoveryList";

/// `APIGroupList` (`/apis`, and kubectl's `servergroups.json`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GroupList {
    #[serde(default = "group_list_kind")]
    pub kind: String,
    #[serde(default = "v1")]
    pub api_version: String,
    #[serde(default)]
    pub groups: Vec<Group>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Group {
    /// Empty for the core group.
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub versions: Vec<GroupVersionRef>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preferred_version: Option<GroupVersionRef>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GroupVersionRef {
    /// `apps/v1`, or `v1` for the core group.
    #[serde(default)]
    pub group_version: String,
    #[serde(default)]
    pub version: String,
}

/// `APIVersions` (`/api`): the versions of the core group.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct CoreVersions {
    #[serde(default)]
    pub versions: Vec<String>,
}

/// `APIResourceList` (`/api/v1`, `/apis/GROUP/VERSION`, and kubectl's
/// `GROUP/VERSION/serverresources.json`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceList {
    #[serde(default = "resource_list_kind")]
    pub kind: String,
    #[serde(default = "v1")]
    pub api_version: String,
    #[serde(default)]
    pub group_version: String,
    #[serde(default)]
    pub resources: Vec<Resource>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Resource {
    /// The plural, or `plural/subresource`.
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub singular_name: String,
    #[serde(default)]
    pub namespaced: bool,
    #[serde(default)]
    pub kind: String,
    #[serde(default)]
    pub verbs: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub short_names: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub categories: Vec<String>,
}

fn group_list_kind() -> String {
    "APIGroupList".into()
}

fn resource_list_kind() -> String {
    "APIResourceList".into()
}

fn v1() -> String {
    "v1".into()
}

impl GroupList {
    pub fn new(groups: Vec<Group>) -> GroupList {
        GroupList {
            kind: group_list_kind(),
            api_version: v1(),
            groups,
        }
    }

    /// Every `group/version` (`v1` for the core group) the list names.
    pub fn group_versions(&self) -> impl Iterator<Item = &str> {
        self.groups
            .iter()
            .flat_map(|g| g.versions.iter().map(|v| v.group_version.as_str()))
    }

    /// Adds `group_version` unless it is listed already; the new version is not preferred.
    pub fn insert(&mut self, group_version: &str) {
        let (group, version) = split_group_version(group_version);
        let entry = GroupVersionRef {
            group_version: group_version.to_string(),
            version: version.to_string(),
        };
        match self.groups.iter_mut().find(|g| g.name == group) {
            Some(existing) => {
                if !existing.versions.iter().any(|v| v.version == version) {
                    existing.versions.push(entry);
                }
            }
            None => self.groups.push(Group {
                name: group.to_string(),
                versions: vec![entry.clone()],
                preferred_version: Some(entry),
            }),
        }
    }
}

impl ResourceList {
    pub fn new(group_version: &str, resources: Vec<Resource>) -> ResourceList {
        ResourceList {
            kind: resource_list_kind(),
            api_version: v1(),
            group_version: group_version.to_string(),
            resources,
        }
    }
}

/// `apps/v1` -> (`apps`, `v1`); `v1` -> (``, `v1`).
pub fn split_group_version(group_version: &str) -> (&str, &str) {
    group_version.split_once('/').unwrap_or(("", group_version))
}

/// `GROUP/VERSION`, or `VERSION` alone for the core group.
pub fn join_group_version(group: &str, version: &str) -> String {
    if group.is_empty() {
        version.to_string()
    } else {
        format!("{group}/{version}")
    }
}

/// Whether an answer is aggregated discovery: by its media type, as client-go decides, and
/// by its `kind` for intermediaries that drop the media type parameters.
pub fn is_aggregated(content_type: &str, body: &serde_json::Value) -> bool {
    media_type_is_aggregated(content_type) || body["kind"] == AGGREGATED_KIND
}

/// `application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList`, with the
/// parameters in any order, any spacing and any others added (a charset, say).
fn media_type_is_aggregated(content_type: &str) -> bool {
    let mut parts = content_type.split(';').map(str::trim);
    let base = parts.next().unwrap_or_default();
    if !base.eq_ignore_ascii_case("application/json") {
        return false;
    }
    let (mut group, mut version, mut kind) = (None, None, None);
    for parameter in parts {
        let Some((name, value)) = parameter.split_once('=') else {
            continue;
        };
        let value = value.trim().trim_matches('"');
        match name.trim().to_ascii_lowercase().as_str() {
            "g" => group = Some(value),
            "v" => version = Some(value),
            "as" => kind = Some(value),
            _ => {}
        }
    }
    group == Some("apidiscovery.k8s.io")
        && matches!(version, Some("v2" | "v2beta1"))
        && kind == Some(AGGREGATED_KIND)
}

/// An aggregated answer (`APIGroupDiscoveryList`).
#[derive(Debug, Default, Deserialize)]
struct AggregatedList {
    #[serde(default)]
    items: Vec<AggregatedGroup>,
}

#[derive(Debug, Default, Deserialize)]
struct AggregatedGroup {
    #[serde(default)]
    metadata: AggregatedMeta,
    #[serde(default)]
    versions: Vec<AggregatedVersion>,
}

#[derive(Debug, Default, Deserialize)]
struct AggregatedMeta {
    #[serde(default)]
    name: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct AggregatedVersion {
    #[serde(default)]
    version: String,
    #[serde(default)]
    resources: Vec<AggregatedResource>,
    #[serde(default)]
    freshness: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct AggregatedResource {
    #[serde(default)]
    resource: String,
    #[serde(default)]
    response_kind: Option<ResponseKind>,
    #[serde(default)]
    scope: String,
    #[serde(default)]
    singular_resource: String,
    #[serde(default)]
    verbs: Vec<String>,
    #[serde(default)]
    short_names: Vec<String>,
    #[serde(default)]
    categories: Vec<String>,
    #[serde(default)]
    subresources: Vec<AggregatedSubresource>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct AggregatedSubresource {
    #[serde(default)]
    subresource: String,
    #[serde(default)]
    response_kind: Option<ResponseKind>,
    #[serde(default)]
    verbs: Vec<String>,
}

#[derive(Debug, Default, Deserialize)]
struct ResponseKind {
    #[serde(default)]
    kind: String,
}

/// Groups and their resource lists, the legacy way, from an aggregated answer. Versions the
/// server marks `Stale` are left out, as client-go does: their resources may be wrong.
pub fn split_aggregated(
    body: serde_json::Value,
) -> Result<(Vec<Group>, Vec<ResourceList>), serde_json::Error> {
    let list: AggregatedList = serde_json::from_value(body)?;
    let mut groups = Vec::new();
    let mut lists = Vec::new();
    for item in list.items {
        let name = item.metadata.name;
        let mut versions = Vec::new();
        for version in item.versions {
            if version.freshness.eq_ignore_ascii_case("stale") || version.version.is_empty() {
                continue;
            }
            let group_version = join_group_version(&name, &version.version);
            let mut resources = Vec::new();
            for r in version.resources {
                let namespaced = r.scope == "Namespaced";
                let kind = r.response_kind.map(|k| k.kind).unwrap_or_default();
                resources.push(Resource {
                    name: r.resource.clone(),
                    singular_name: r.singular_resource,
                    namespaced,
                    kind,
                    verbs: r.verbs,
                    short_names: r.short_names,
                    categories: r.categories,
                });
                for sub in r.subresources {
                    resources.push(Resource {
                        name: format!("{}/{}", r.resource, sub.subresource),
                        singular_name: String::new(),
                        namespaced,
                        kind: sub.response_kind.map(|k| k.kind).unwrap_or_default(),
                        verbs: sub.verbs,
                        short_names: Vec::new(),
                        categories: Vec::new(),
                    });
                }
            }
            versions.push(GroupVersionRef {
                group_version: group_version.clone(),
                version: version.version,
            });
            lists.push(ResourceList::new(&group_version, resources));
        }
        if versions.is_empty() {
            continue;
        }
        groups.push(Group {
            name,
            preferred_version: versions.first().cloned(),
            versions,
        });
    }
    Ok((groups, lists))
}

/// The core group of a legacy `/api` answer (`APIVersions`).
pub fn core_group(versions: CoreVersions) -> Option<Group> {
    let refs: Vec<GroupVersionRef> = versions
        .versions
        .into_iter()
        .map(|v| GroupVersionRef {
            group_version: v.clone(),
            version: v,
        })
        .collect();
    (!refs.is_empty()).then(|| Group {
        name: String::new(),
        preferred_version: refs.first().cloned(),
        versions: refs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn media_types_are_read_like_client_go() {
        let body = json!({});
        for aggregated in [
            "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
            "application/json; as=APIGroupDiscoveryList;v=v2;g=apidiscovery.k8s.io",
            "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList;charset=utf-8",
        ] {
            assert!(is_aggregated(aggregated, &body), "{aggregated}");
        }
        for legacy in [
            "application/json",
            "application/json; charset=UTF-8",
            "application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList",
            "text/plain;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
            "",
        ] {
            assert!(!is_aggregated(legacy, &body), "{legacy}");
        }
        // A proxy that drops the parameters still passes the kind through.
        assert!(is_aggregated(
            "application/json",
            &json!({"kind": "APIGroupDiscoveryList", "items": []})
        ));
        assert!(!is_aggregated(
            "application/json",
            &json!({"kind": "APIGroupList", "groups": []})
        ));
    }

    #[test]
    fn an_aggregated_answer_becomes_groups_and_resource_lists() {
        let body = json!({
            "kind": "APIGroupDiscoveryList",
            "items": [
                {"metadata": {"name": "apps"}, "versions": [
                    {"version": "v1", "resources": [
                        {"resource": "deployments", "responseKind": {"kind": "Deployment"},
                         "scope": "Namespaced", "singularResource": "deployment",
                         "verbs": ["get", "patch"], "shortNames": ["deploy"],
                         "subresources": [{"subresource": "status",
                                           "responseKind": {"kind": "Deployment"},
                                           "verbs": ["get"]}]}
                    ]},
                    {"version": "v1beta9", "freshness": "Stale", "resources": []}
                ]},
                {"metadata": {"name": "gone.example.com"}, "versions": [
                    {"version": "v1", "freshness": "Stale", "resources": []}
                ]}
            ]
        });
        let (groups, lists) = split_aggregated(body).unwrap();
        assert_eq!(groups.len(), 1, "{groups:?}");
        assert_eq!(groups[0].name, "apps");
        assert_eq!(groups[0].versions.len(), 1);
        assert_eq!(
            groups[0].preferred_version.as_ref().unwrap().group_version,
            "apps/v1"
        );
        assert_eq!(lists.len(), 1);
        assert_eq!(lists[0].group_version, "apps/v1");
        let names: Vec<&str> = lists[0].resources.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["deployments", "deployments/status"]);
        let deployments = &lists[0].resources[0];
        assert!(deployments.namespaced);
        assert_eq!(deployments.kind, "Deployment");
        assert_eq!(deployments.singular_name, "deployment");
    }

    #[test]
    fn documents_are_written_as_kubectl_reads_them() {
        let mut groups = GroupList::new(vec![]);
        groups.insert("v1");
        groups.insert("apps/v1");
        groups.insert("apps/v1");
        groups.insert("charts.example.com/v1alpha1");
        let text = serde_json::to_value(&groups).unwrap();
        assert_eq!(text["kind"], "APIGroupList");
        assert_eq!(text["apiVersion"], "v1");
        assert_eq!(text["groups"][0]["name"], "");
        assert_eq!(text["groups"][1]["versions"].as_array().unwrap().len(), 1);
        let versions: Vec<&str> = groups.group_versions().collect();
        assert_eq!(versions, ["v1", "apps/v1", "charts.example.com/v1alpha1"]);
        let list = ResourceList::new("apps/v1", vec![]);
        let text = serde_json::to_value(&list).unwrap();
        assert_eq!(text["kind"], "APIResourceList");
        assert_eq!(text["groupVersion"], "apps/v1");
    }
}
