//! Events have one storage and two APIs, as in Kubernetes: `events.k8s.io/v1` Events (what
//! kube-runtime's `Recorder` writes) are core `v1` Events under other field names, so
//! `kubectl get events` shows what an operator recorded. Objects are stored in the core
//! shape; reads and writes through `events.k8s.io` are converted field by field.

use serde_json::Value;

use super::resources::ResourceType;

/// (core v1 name, events.k8s.io/v1 name) of each renamed field.
const RENAMED: &[(&str, &str)] = &[
    ("message", "note"),
    ("involvedObject", "regarding"),
    ("source", "deprecatedSource"),
    ("firstTimestamp", "deprecatedFirstTimestamp"),
    ("lastTimestamp", "deprecatedLastTimestamp"),
    ("count", "deprecatedCount"),
    ("reportingComponent", "reportingController"),
];

fn is_new_api(t: &ResourceType) -> bool {
    t.is("events.k8s.io", "events")
}

/// The group whose storage a type's objects live in.
pub fn storage_group(t: &ResourceType) -> &str {
    if is_new_api(t) { "" } else { &t.group }
}

fn rename(mut object: Value, to_new: bool) -> Value {
    if let Some(map) = object.as_object_mut() {
        for (core, new) in RENAMED {
            let (from, to) = if to_new { (core, new) } else { (new, core) };
            if let Some(value) = map.remove(*from) {
                map.insert((*to).to_string(), value);
            }
        }
    }
    object
}

/// A stored object as the API `t` shows it.
pub fn viewed(t: &ResourceType, object: Value) -> Value {
    if is_new_api(t) {
        rename(object, true)
    } else {
        object
    }
}

/// An object written through `t`, in its stored shape.
pub fn stored(t: &ResourceType, object: Value) -> Value {
    if is_new_api(t) {
        rename(object, false)
    } else {
        object
    }
}
