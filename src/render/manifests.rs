//! What becomes of rendered templates, as Helm sorts them: each template's text split into
//! YAML documents, empty ones dropped, hooks (`helm.sh/hook`) kept apart with their weights and
//! delete policies, and everything else in Helm's install order of kinds.

use std::collections::BTreeMap;

use serde::Deserialize;
use thiserror::Error;

use super::manifest_head;

#[derive(Debug, Error)]
#[error("YAML parse error on {template}: {detail}")]
pub struct ManifestError {
    pub template: String,
    pub detail: String,
}

/// Kinds in the order Helm installs them; unknown kinds go last, alphabetically.
pub const INSTALL_ORDER: &[&str] = &[
    "PriorityClass",
    "Namespace",
    "NetworkPolicy",
    "ResourceQuota",
    "LimitRange",
    "PodSecurityPolicy",
    "PodDisruptionBudget",
    "ServiceAccount",
    "Secret",
    "SecretList",
    "ConfigMap",
    "StorageClass",
    "PersistentVolume",
    "PersistentVolumeClaim",
    "CustomResourceDefinition",
    "ClusterRole",
    "ClusterRoleList",
    "ClusterRoleBinding",
    "ClusterRoleBindingList",
    "Role",
    "RoleList",
    "RoleBinding",
    "RoleBindingList",
    "Service",
    "DaemonSet",
    "Pod",
    "ReplicationController",
    "ReplicaSet",
    "Deployment",
    "HorizontalPodAutoscaler",
    "StatefulSet",
    "Job",
    "CronJob",
    "IngressClass",
    "Ingress",
    "APIService",
    "MutatingWebhookConfiguration",
    "ValidatingWebhookConfiguration",
];

/// Kinds in the order Helm uninstalls them (not quite the reverse of [`INSTALL_ORDER`]).
pub const UNINSTALL_ORDER: &[&str] = &[
    "APIService",
    "Ingress",
    "IngressClass",
    "Service",
    "CronJob",
    "Job",
    "StatefulSet",
    "HorizontalPodAutoscaler",
    "Deployment",
    "ReplicaSet",
    "ReplicationController",
    "Pod",
    "DaemonSet",
    "RoleBindingList",
    "RoleBinding",
    "RoleList",
    "Role",
    "ClusterRoleBindingList",
    "ClusterRoleBinding",
    "ClusterRoleList",
    "ClusterRole",
    "CustomResourceDefinition",
    "PersistentVolumeClaim",
    "PersistentVolume",
    "StorageClass",
    "ConfigMap",
    "SecretList",
    "Secret",
    "ServiceAccount",
    "PodDisruptionBudget",
    "PodSecurityPolicy",
    "LimitRange",
    "ResourceQuota",
    "NetworkPolicy",
    "Namespace",
    "PriorityClass",
];

pub const HOOK_ANNOTATION: &str = "helm.sh/hook";
pub const HOOK_WEIGHT_ANNOTATION: &str = "helm.sh/hook-weight";
pub const HOOK_DELETE_ANNOTATION: &str = "helm.sh/hook-delete-policy";
pub const HOOK_OUTPUT_LOG_ANNOTATION: &str = "helm.sh/hook-output-log-policy";

const HOOK_EVENTS: &[&str] = &[
    "pre-install",
    "post-install",
    "pre-delete",
    "post-delete",
    "pre-upgrade",
    "post-upgrade",
    "pre-rollback",
    "post-rollback",
    "test",
];

/// One object of the release's manifest.
#[derive(Debug, Clone, PartialEq)]
pub struct Manifest {
    /// The template it came from (`chart/templates/x.yaml`).
    pub template: String,
    pub content: String,
    pub api_version: String,
    pub kind: String,
    pub name: String,
    /// `metadata.namespace`; empty when the release's namespace applies.
    pub namespace: String,
}

/// A hook object, run by Helm around install, upgrade, delete, rollback or test.
#[derive(Debug, Clone, PartialEq)]
pub struct Hook {
    pub template: String,
    pub content: String,
    pub api_version: String,
    pub kind: String,
    pub name: String,
    /// `metadata.namespace`; empty when the release's namespace applies.
    pub namespace: String,
    pub events: Vec<String>,
    pub weight: i64,
    pub delete_policies: Vec<String>,
    pub output_log_policies: Vec<String>,
}

#[derive(Debug, Default, PartialEq)]
pub struct Sorted {
    pub hooks: Vec<Hook>,
    pub manifests: Vec<Manifest>,
}

#[derive(Deserialize, Default)]
struct Head {
    #[serde(default, rename = "apiVersion")]
    api_version: Option<serde_json::Value>,
    #[serde(default)]
    kind: Option<serde_json::Value>,
    #[serde(default)]
    metadata: Option<HeadMetadata>,
}

#[derive(Deserialize, Default)]
struct HeadMetadata {
    #[serde(default)]
    name: Option<serde_json::Value>,
    #[serde(default)]
    namespace: Option<serde_json::Value>,
    #[serde(default)]
    annotations: Option<BTreeMap<String, serde_json::Value>>,
}

fn text(value: &Option<serde_json::Value>) -> String {
    match value {
        None | Some(serde_json::Value::Null) => String::new(),
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

/// Splits a template's output into documents at lines starting with `---`, dropping empty
/// ones and leading whitespace, as Helm's SplitManifests.
pub fn split_documents(text: &str) -> Vec<String> {
    document_slices(text)
        .into_iter()
        .map(str::to_string)
        .collect()
}

/// [`split_documents`] without copying: the documents as slices of `text`.
fn document_slices(text: &str) -> Vec<&str> {
    let text = text.trim_start();
    let mut docs = Vec::new();
    let mut start = 0;
    // Separators are lines starting with `---`: the text's start, and each "\n---".
    let separators = text
        .starts_with("---")
        .then_some(0)
        .into_iter()
        .chain(memchr::memmem::find_iter(text.as_bytes(), b"\n---").map(|i| i + 1));
    for line in separators {
        // A separator inside the rest of the previous separator's line is not at a line start.
        if line < start {
            continue;
        }
        docs.push(&text[start..line]);
        // The rest of the separator's line belongs to the next document.
        let after = line + 3;
        start = text.len() - text[after..].trim_start_matches([' ', '\t']).len();
    }
    docs.push(&text[start..]);
    docs.into_iter()
        .filter(|d| !d.trim().is_empty())
        .map(str::trim_start)
        .collect()
}

/// Helm's SortManifests: `rendered` gives template paths and their output, in path order;
/// partials and NOTES must already be out.
pub fn sort<'a>(
    rendered: impl IntoIterator<Item = (&'a String, &'a String)>,
) -> Result<Sorted, ManifestError> {
    let mut sorted = Sorted::default();
    for (template, content) in rendered {
        let base = template.rsplit('/').next().unwrap_or(template);
        if base.starts_with('_') || content.trim().is_empty() {
            continue;
        }
        for doc in document_slices(content) {
            // Only the head's lines are parsed when the rest is surely valid YAML.
            let excerpt = manifest_head::head_excerpt(doc);
            let head: Head = crate::yaml::from_str_last_key_wins::<Option<Head>>(
                excerpt.as_deref().unwrap_or(doc),
            )
            .map_err(|e| ManifestError {
                template: template.clone(),
                detail: e.to_string(),
            })?
            .unwrap_or_default();
            let doc = doc.to_string();
            let kind = text(&head.kind);
            let metadata = head.metadata.unwrap_or_default();
            let name = text(&metadata.name);
            let namespace = text(&metadata.namespace);
            let api_version = text(&head.api_version);
            let annotations: BTreeMap<String, String> = metadata
                .annotations
                .unwrap_or_default()
                .into_iter()
                .map(|(k, v)| (k, text(&Some(v))))
                .collect();
            let Some(hook_types) = annotations.get(HOOK_ANNOTATION) else {
                sorted.manifests.push(Manifest {
                    template: template.clone(),
                    content: doc,
                    api_version,
                    kind,
                    name,
                    namespace,
                });
                continue;
            };
            let mut events = Vec::new();
            let mut unknown = false;
            for event in hook_types.split(',') {
                let event = event.trim().to_lowercase();
                let event = if event == "test-success" {
                    "test".to_string()
                } else {
                    event
                };
                if !HOOK_EVENTS.contains(&event.as_str()) {
                    unknown = true;
                    break;
                }
                events.push(event);
            }
            if unknown {
                // Helm skips objects with unknown hook events altogether.
                continue;
            }
            let list = |key: &str| -> Vec<String> {
                annotations
                    .get(key)
                    .map(|v| v.split(',').map(|p| p.trim().to_lowercase()).collect())
                    .unwrap_or_default()
            };
            sorted.hooks.push(Hook {
                template: template.clone(),
                content: doc,
                api_version,
                kind,
                name,
                namespace,
                events,
                weight: annotations
                    .get(HOOK_WEIGHT_ANNOTATION)
                    .and_then(|w| go_atoi(w))
                    .unwrap_or(0),
                delete_policies: list(HOOK_DELETE_ANNOTATION),
                output_log_policies: list(HOOK_OUTPUT_LOG_ANNOTATION),
            });
        }
    }
    sorted
        .manifests
        .sort_by(|a, b| kind_order(&a.kind, &b.kind));
    sorted.hooks.sort_by(|a, b| kind_order(&a.kind, &b.kind));
    Ok(sorted)
}

/// Go's strconv.Atoi: an optional sign and decimal digits, nothing else.
fn go_atoi(text: &str) -> Option<i64> {
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// Helm's kind comparison (used with a stable sort).
pub fn kind_order(a: &str, b: &str) -> std::cmp::Ordering {
    kind_order_in(INSTALL_ORDER, a, b)
}

/// Helm's kind comparison for a given order of kinds: unknown kinds last, alphabetically.
pub fn kind_order_in(order: &[&str], a: &str, b: &str) -> std::cmp::Ordering {
    let position = |k: &str| order.iter().position(|x| *x == k);
    match (position(a), position(b)) {
        (Some(x), Some(y)) => x.cmp(&y),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => a.cmp(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_keys_are_read_as_helm_reads_them_the_last_one_wins() {
        let mut rendered = BTreeMap::new();
        rendered.insert(
            "c/templates/a.yaml".to_string(),
            "kind: ConfigMap\nkind: Secret\nmetadata:\n  name: s\ndata:\n  a: \"1\"\n  a: \"2\"\n"
                .to_string(),
        );
        let sorted = sort(&rendered).unwrap();
        assert_eq!(sorted.manifests[0].kind, "Secret");
    }

    #[test]
    fn documents_split_at_line_starts() {
        let docs = split_documents("\n---\na: 1\n---  \nb: '---'\n--- # c\n\n---\n");
        assert_eq!(docs, vec!["a: 1\n", "b: '---'\n", "# c\n\n"]);
    }

    #[test]
    fn hooks_are_kept_apart_and_kinds_sorted() {
        let mut rendered = BTreeMap::new();
        rendered.insert(
            "c/templates/a.yaml".to_string(),
            "kind: Deployment\nmetadata:\n  name: d\n---\nkind: Foo\n---\nkind: Namespace\n"
                .to_string(),
        );
        rendered.insert(
            "c/templates/job.yaml".to_string(),
            "kind: Job\nmetadata:\n  name: j\n  annotations:\n    helm.sh/hook: pre-install,Post-Upgrade\n    helm.sh/hook-weight: \"-5\"\n    helm.sh/hook-delete-policy: before-hook-creation, hook-succeeded\n".to_string(),
        );
        rendered.insert(
            "c/templates/_h.tpl".to_string(),
            "kind: Secret\n".to_string(),
        );
        let sorted = sort(&rendered).unwrap();
        let kinds: Vec<&str> = sorted.manifests.iter().map(|m| m.kind.as_str()).collect();
        assert_eq!(kinds, vec!["Namespace", "Deployment", "Foo"]);
        let hook = &sorted.hooks[0];
        assert_eq!(hook.events, vec!["pre-install", "post-upgrade"]);
        assert_eq!(hook.weight, -5);
        assert_eq!(
            hook.delete_policies,
            vec!["before-hook-creation", "hook-succeeded"]
        );
    }
}
