//! The objects of a Helm release as the API sees them: a release manifest (or a hook) parsed
//! into Kubernetes objects, placed in the release namespace when their kind is namespaced,
//! and marked as Helm marks what it owns, so that real Helm can later upgrade or uninstall a
//! release this runtime made, and this runtime refuses to take over what is not its release's.

use std::collections::BTreeMap;

use serde_json::{Map, Value};
use thiserror::Error;

use crate::kube::{Cluster, KubeError};
use crate::manifests::{Manifest, Origin, Scope};
use crate::render::manifests::split_documents;

/// The label Helm puts on every object of a release (hooks aside).
pub const MANAGED_BY_LABEL: &str = "app.kubernetes.io/managed-by";
pub const MANAGED_BY_HELM: &str = "Helm";
/// The annotations that tie an object to its release.
pub const RELEASE_NAME_ANNOTATION: &str = "meta.helm.sh/release-name";
pub const RELEASE_NAMESPACE_ANNOTATION: &str = "meta.helm.sh/release-namespace";
/// `keep`: Helm leaves the object in place on uninstall and when an upgrade drops it.
pub const RESOURCE_POLICY_ANNOTATION: &str = "helm.sh/resource-policy";
/// The helm-operator's marks on objects an owner reference cannot tie to their custom
/// resource: `namespace/name` and `Kind.group` of it.
pub const PRIMARY_RESOURCE_ANNOTATION: &str = "operator-sdk/primary-resource";
pub const PRIMARY_RESOURCE_TYPE_ANNOTATION: &str = "operator-sdk/primary-resource-type";

/// The object a release belongs to (the helm-operator's custom resource).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Owner {
    pub api_version: String,
    pub kind: String,
    pub name: String,
    pub uid: String,
    /// `None` for a cluster-scoped owner.
    pub namespace: Option<String>,
}

#[derive(Debug, Error)]
pub enum ObjectError {
    #[error("template {template} renders a document that is not valid YAML: {detail}")]
    Yaml { template: String, detail: String },
    #[error("template {template} renders an object without {field}: every object needs one")]
    Incomplete {
        template: String,
        field: &'static str,
    },
}

/// The `# Source: ` line Helm writes above each document of a release manifest.
const SOURCE_PREFIX: &str = "# Source: ";

/// Parses one template's output (`content`, a document or several) into objects; `kind: List`
/// wrappers are flattened into their items, as Helm's resource builder does.
pub fn parse(template: &str, content: &str) -> Result<Vec<Manifest>, ObjectError> {
    let mut out = Vec::new();
    for document in split_documents(content) {
        let value: Option<Value> =
            crate::yaml::from_str_yaml11(&document).map_err(|e| ObjectError::Yaml {
                template: template.to_string(),
                detail: e.to_string(),
            })?;
        let Some(value) = value else { continue };
        if !value.is_object() {
            continue;
        }
        let items = match (
            value.get("kind").and_then(Value::as_str),
            value.get("items"),
        ) {
            (Some(kind), Some(Value::Array(items))) if kind.ends_with("List") => items.clone(),
            _ => vec![value],
        };
        for object in items {
            out.push(checked(template, object)?);
        }
    }
    Ok(out)
}

/// Parses a stored release manifest (documents under `# Source:` lines) into its objects, each
/// named after its template.
pub fn parse_manifest(manifest: &str) -> Result<Vec<Manifest>, ObjectError> {
    let mut out = Vec::new();
    for document in split_documents(manifest) {
        let template = document
            .lines()
            .find_map(|l| l.strip_prefix(SOURCE_PREFIX))
            .unwrap_or("the release manifest")
            .to_string();
        out.extend(parse(&template, &document)?);
    }
    Ok(out)
}

fn checked(template: &str, object: Value) -> Result<Manifest, ObjectError> {
    let missing = |field| ObjectError::Incomplete {
        template: template.to_string(),
        field,
    };
    let text = |pointer: &str| {
        object
            .pointer(pointer)
            .and_then(Value::as_str)
            .is_some_and(|s| !s.is_empty())
    };
    if !text("/apiVersion") {
        return Err(missing("apiVersion"));
    }
    if !text("/kind") {
        return Err(missing("kind"));
    }
    if !text("/metadata/name") {
        return Err(missing("metadata.name"));
    }
    Ok(Manifest {
        origin: Origin::Template(template.to_string()),
        object,
    })
}

/// What to do with an object whose kind the server does not serve.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unserved {
    /// Writing it is impossible: an error naming the kind.
    Refuse,
    /// It is gone with its kind (deleting it): leave it as it is.
    Skip,
}

/// Gives each object of a namespaced kind the release namespace when it names none, and takes
/// the namespace off objects of cluster-scoped kinds, as Helm's client does. Kinds discovery
/// does not know yet are asked for once (a CRD installed a moment ago).
pub async fn place(
    cluster: &mut Cluster,
    objects: &mut [Manifest],
    namespace: &str,
    unserved: Unserved,
) -> Result<(), KubeError> {
    let refs: Vec<&Manifest> = objects.iter().collect();
    cluster.discover_missing(&refs).await?;
    for object in objects.iter_mut() {
        let scope = match cluster.lookup(object.group(), object.version(), object.kind()) {
            Some(served) => served.scope,
            None if unserved == Unserved::Skip => continue,
            None => {
                return Err(KubeError::NotServed {
                    endpoint: cluster.endpoint.clone(),
                    api_version: object.api_version().to_string(),
                    kind: object.kind().to_string(),
                });
            }
        };
        let metadata = metadata_mut(&mut object.object);
        match scope {
            Scope::Namespaced => {
                let has_namespace = metadata
                    .get("namespace")
                    .and_then(Value::as_str)
                    .is_some_and(|ns| !ns.is_empty());
                if !has_namespace {
                    metadata.insert("namespace".into(), Value::String(namespace.to_string()));
                }
            }
            Scope::Cluster => {
                metadata.remove("namespace");
            }
        }
    }
    Ok(())
}

/// Helm's ownership marks on an object of the release `name` in `namespace`.
pub fn mark_owned(object: &mut Manifest, name: &str, namespace: &str) {
    add_labels(
        object,
        &BTreeMap::from([(MANAGED_BY_LABEL.to_string(), MANAGED_BY_HELM.to_string())]),
    );
    let metadata = metadata_mut(&mut object.object);
    let annotations = child_map(metadata, "annotations");
    annotations.insert(
        RELEASE_NAME_ANNOTATION.into(),
        Value::String(name.to_string()),
    );
    annotations.insert(
        RELEASE_NAMESPACE_ANNOTATION.into(),
        Value::String(namespace.to_string()),
    );
}

/// Adds labels (the helm-operator's `helm.sdk.operatorframework.io/chart`, say), over the
/// object's own ones of the same key.
pub fn add_labels(object: &mut Manifest, labels: &BTreeMap<String, String>) {
    if labels.is_empty() {
        return;
    }
    let metadata = metadata_mut(&mut object.object);
    let own = child_map(metadata, "labels");
    for (key, value) in labels {
        own.insert(key.clone(), Value::String(value.clone()));
    }
}

/// Ties a placed object to `owner` as the helm-operator does: a controller owner reference
/// where Kubernetes' garbage collector honours one (the owner is cluster-scoped, or both live
/// in one namespace) and the object is not kept by policy (the collector would delete it with
/// the owner); otherwise the annotations naming the owner.
pub fn set_owner(object: &mut Manifest, owner: &Owner) {
    let same_namespace = match (&owner.namespace, object.namespace()) {
        (None, _) => true,
        (Some(ns), Some(object_ns)) => ns == object_ns,
        // After `place`, an object without a namespace is cluster-scoped.
        (Some(_), None) => false,
    };
    let kept = is_kept(object);
    let metadata = metadata_mut(&mut object.object);
    if same_namespace && !kept {
        let reference = serde_json::json!({
            "apiVersion": owner.api_version,
            "kind": owner.kind,
            "name": owner.name,
            "uid": owner.uid,
            "controller": true,
            "blockOwnerDeletion": true,
        });
        metadata.insert("ownerReferences".into(), Value::Array(vec![reference]));
        return;
    }
    let group = crate::manifests::split_api_version(&owner.api_version).0;
    let annotations = child_map(metadata, "annotations");
    annotations.insert(
        PRIMARY_RESOURCE_ANNOTATION.into(),
        Value::String(format!(
            "{}/{}",
            owner.namespace.as_deref().unwrap_or_default(),
            owner.name
        )),
    );
    annotations.insert(
        PRIMARY_RESOURCE_TYPE_ANNOTATION.into(),
        Value::String(format!("{}.{group}", owner.kind)),
    );
}

/// Why an existing object cannot become part of the release, or `None` when it already carries
/// the release's marks (Helm then adopts it).
pub fn foreign_ownership(existing: &Value, name: &str, namespace: &str) -> Option<String> {
    let label = |key: &str| {
        existing
            .pointer("/metadata/labels")
            .and_then(|l| l.get(key))
            .and_then(Value::as_str)
    };
    let annotation = |key: &str| {
        existing
            .pointer("/metadata/annotations")
            .and_then(|a| a.get(key))
            .and_then(Value::as_str)
    };
    let mut problems = Vec::new();
    let mut expect = |what: &str, key: &str, found: Option<&str>, wanted: &str| match found {
        Some(found) if found == wanted => {}
        Some(found) => problems.push(format!("{what} {key} is \"{found}\", not \"{wanted}\"")),
        None => problems.push(format!("{what} {key} is missing (it must be \"{wanted}\")")),
    };
    expect(
        "label",
        MANAGED_BY_LABEL,
        label(MANAGED_BY_LABEL),
        MANAGED_BY_HELM,
    );
    expect(
        "annotation",
        RELEASE_NAME_ANNOTATION,
        annotation(RELEASE_NAME_ANNOTATION),
        name,
    );
    expect(
        "annotation",
        RELEASE_NAMESPACE_ANNOTATION,
        annotation(RELEASE_NAMESPACE_ANNOTATION),
        namespace,
    );
    if problems.is_empty() {
        None
    } else {
        Some(problems.join("; "))
    }
}

/// `helm.sh/resource-policy: keep`.
pub fn is_kept(object: &Manifest) -> bool {
    object
        .object
        .pointer("/metadata/annotations")
        .and_then(|a| a.get(RESOURCE_POLICY_ANNOTATION))
        .and_then(Value::as_str)
        .is_some_and(|p| p.trim().eq_ignore_ascii_case("keep"))
}

/// What makes two objects the same one for Helm: group, kind, namespace and name (the version
/// may change between revisions).
pub fn identity(object: &Manifest) -> (String, String, Option<String>, String) {
    (
        object.group().to_string(),
        object.kind().to_string(),
        object.namespace().map(str::to_string),
        object.name().to_string(),
    )
}

fn metadata_mut(object: &mut Value) -> &mut Map<String, Value> {
    if !object.is_object() {
        *object = Value::Object(Map::new());
    }
    let Value::Object(map) = object else {
        unreachable!("made an object just above")
    };
    child_map(map, "metadata")
}

/// `map[key]` as an object, made one when absent or null.
fn child_map<'a>(map: &'a mut Map<String, Value>, key: &str) -> &'a mut Map<String, Value> {
    let entry = map
        .entry(key.to_string())
        .or_insert_with(|| Value::Object(Map::new()));
    if !entry.is_object() {
        *entry = Value::Object(Map::new());
    }
    match entry {
        Value::Object(m) => m,
        _ => unreachable!("made an object just above"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn manifests_parse_into_named_objects_and_lists_flatten() {
        let manifest = "---\n# Source: c/templates/a.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  enabled: yes\n---\n# Source: c/templates/list.yaml\napiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Secret\n  metadata:\n    name: s\n";
        let objects = parse_manifest(manifest).unwrap();
        assert_eq!(objects.len(), 2);
        assert_eq!(
            objects[0].origin,
            Origin::Template("c/templates/a.yaml".into())
        );
        // YAML 1.1, as Kubernetes reads manifests: `yes` is a boolean.
        assert_eq!(objects[0].object["data"], json!({"enabled": true}));
        assert_eq!(objects[1].kind(), "Secret");
        let err = parse("c/templates/b.yaml", "kind: ConfigMap\napiVersion: v1\n").unwrap_err();
        assert!(err.to_string().contains("metadata.name"), "{err}");
    }

    #[test]
    fn ownership_is_helms_three_marks() {
        let mut object = parse("t", "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\n")
            .unwrap()
            .remove(0);
        assert!(foreign_ownership(&object.object, "web", "default").is_some());
        mark_owned(&mut object, "web", "default");
        assert_eq!(foreign_ownership(&object.object, "web", "default"), None);
        let problem = foreign_ownership(&object.object, "other", "default").unwrap();
        assert!(problem.contains("is \"web\", not \"other\""), "{problem}");
    }

    #[test]
    fn owners_are_referenced_where_the_collector_can_and_annotated_elsewhere() {
        let owner = Owner {
            api_version: "cache.example.com/v1".into(),
            kind: "Memcached".into(),
            name: "m".into(),
            uid: "u-1".into(),
            namespace: Some("team".into()),
        };
        let object = |text: &str| parse("t", text).unwrap().remove(0);
        let mut same =
            object("apiVersion: v1\nkind: Service\nmetadata:\n  name: s\n  namespace: team\n");
        set_owner(&mut same, &owner);
        assert_eq!(same.object["metadata"]["ownerReferences"][0]["uid"], "u-1");
        assert_eq!(
            same.object["metadata"]["ownerReferences"][0]["controller"],
            true
        );
        let mut cluster_wide = object(
            "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: r\n",
        );
        set_owner(&mut cluster_wide, &owner);
        assert!(
            cluster_wide.object["metadata"]
                .get("ownerReferences")
                .is_none()
        );
        let annotations = &cluster_wide.object["metadata"]["annotations"];
        assert_eq!(annotations[PRIMARY_RESOURCE_ANNOTATION], "team/m");
        assert_eq!(
            annotations[PRIMARY_RESOURCE_TYPE_ANNOTATION],
            "Memcached.cache.example.com"
        );
        let mut kept = object(
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: k\n  namespace: team\n  annotations:\n    helm.sh/resource-policy: keep\n",
        );
        set_owner(&mut kept, &owner);
        assert!(kept.object["metadata"].get("ownerReferences").is_none());
    }

    #[test]
    fn keep_policy_is_read_as_helm_reads_it() {
        let object = parse(
            "t",
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n  annotations:\n    helm.sh/resource-policy: ' Keep '\n",
        )
        .unwrap()
        .remove(0);
        assert!(is_kept(&object));
    }
}
