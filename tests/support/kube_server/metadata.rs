//! Metadata-only views (`PartialObjectMetadata`, `PartialObjectMetadataList` of
//! `meta.k8s.io/v1`), which kube-runtime's `metadata_watcher` and a Helm runtime's drift
//! watches ask for with their Accept header.

use serde_json::{Value, json};

pub const API_VERSION: &str = "meta.k8s.io/v1";
pub const KIND: &str = "PartialObjectMetadata";

/// True when the client's preferred media type is a metadata-only view. A client that
/// prefers something else (kubectl's `as=Table`) gets the full object, as from any server
/// that cannot produce its first choice.
pub fn requested(accept: &str) -> bool {
    let Some(first) = accept.split(',').next() else {
        return false;
    };
    let params: Vec<(&str, &str)> = first
        .split(';')
        .skip(1)
        .filter_map(|p| p.trim().split_once('='))
        .collect();
    let has =
        |name: &str, values: &[&str]| params.iter().any(|(k, v)| *k == name && values.contains(v));
    first.trim_start().starts_with("application/json")
        && has(
            "as",
            &["PartialObjectMetadata", "PartialObjectMetadataList"],
        )
        && has("g", &["meta.k8s.io"])
        && has("v", &["v1", "v1beta1"])
}

pub fn content_type(list: bool) -> String {
    let kind = if list {
        "PartialObjectMetadataList"
    } else {
        KIND
    };
    format!("application/json;as={kind};g=meta.k8s.io;v=v1")
}

/// One object's metadata view.
pub fn partial(object: &Value) -> Value {
    json!({"apiVersion": API_VERSION, "kind": KIND,
           "metadata": object.get("metadata").cloned().unwrap_or(json!({}))})
}

/// A list's metadata view: the list's own metadata, each item's metadata.
pub fn partial_list(list: &Value) -> Value {
    let items: Vec<Value> = list["items"]
        .as_array()
        .into_iter()
        .flatten()
        .map(partial)
        .collect();
    json!({"apiVersion": API_VERSION, "kind": "PartialObjectMetadataList",
           "metadata": list.get("metadata").cloned().unwrap_or(json!({})), "items": items})
}
