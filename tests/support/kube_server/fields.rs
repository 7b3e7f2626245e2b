//! Field ownership, the core of server-side apply, approximated closely enough for real
//! clients: field sets in the `FieldsV1` encoding, `managedFields` entries per manager and
//! operation, conflicts, removal of fields an applier stopped setting, and merging.
//!
//! Lists of objects whose items all carry distinct `name`s are associative (merged by name,
//! like containers or env), and so are those whose items carry distinct `type`s (merged by type,
//! like the `conditions` that CRDs declare `x-kubernetes-list-type: map` with the key `type`):
//! the real server reads the key from the schema, this one from the items. Every other list is
//! atomic, owned and replaced as a whole.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

/// A set of field paths as a tree, keyed like `FieldsV1`: `f:<field>`, `k:<key json>` for an
/// item of an associative list, and `.` for the item itself.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Fields(pub BTreeMap<String, Fields>);

pub type Path = Vec<String>;

/// Metadata the server owns; never part of anyone's field set.
const SERVER_METADATA: &[&str] = &[
    "creationTimestamp",
    "deletionGracePeriodSeconds",
    "deletionTimestamp",
    "generation",
    "managedFields",
    "resourceVersion",
    "selfLink",
    "uid",
];

impl Fields {
    /// The fields an object sets, leaving out type information and server-owned metadata.
    pub fn of_object(object: &Value) -> Fields {
        let mut fields = Fields::default();
        if let Value::Object(map) = object {
            for (key, value) in map {
                if key == "apiVersion" || key == "kind" {
                    continue;
                }
                if key == "metadata"
                    && let Value::Object(metadata) = value
                {
                    let mut meta = Fields::default();
                    for (k, v) in metadata {
                        if !SERVER_METADATA.contains(&k.as_str()) {
                            meta.0.insert(format!("f:{k}"), Fields::of_value(v));
                        }
                    }
                    if !meta.0.is_empty() {
                        fields.0.insert("f:metadata".into(), meta);
                    }
                    continue;
                }
                fields.0.insert(format!("f:{key}"), Fields::of_value(value));
            }
        }
        fields
    }

    fn of_value(value: &Value) -> Fields {
        match value {
            Value::Object(map) => Fields(
                map.iter()
                    .map(|(k, v)| (format!("f:{k}"), Fields::of_value(v)))
                    .collect(),
            ),
            Value::Array(items) if let Some(key) = list_key(items) => Fields(
                items
                    .iter()
                    .map(|item| {
                        let mut inner = Fields::of_value(item);
                        inner.0.insert(".".into(), Fields::default());
                        (format!("k:{}", json!({ key: item[key] })), inner)
                    })
                    .collect(),
            ),
            _ => Fields::default(),
        }
    }

    /// Every leaf path: scalars, atomic lists, empty maps and list items themselves (`.`).
    pub fn leaves(&self) -> Vec<Path> {
        let mut out = Vec::new();
        self.collect(&mut Vec::new(), &mut out);
        out
    }

    fn collect(&self, prefix: &mut Path, out: &mut Vec<Path>) {
        for (key, child) in &self.0 {
            prefix.push(key.clone());
            if child.0.is_empty() {
                out.push(prefix.clone());
            } else {
                child.collect(prefix, out);
            }
            prefix.pop();
        }
    }

    pub fn contains(&self, path: &[String]) -> bool {
        match path.split_first() {
            None => true,
            Some((first, rest)) => self.0.get(first).is_some_and(|c| c.contains(rest)),
        }
    }

    /// True when this set holds `path` or anything below it; for a list item (`.`), anything
    /// inside the item.
    pub fn touches(&self, path: &[String]) -> bool {
        match path.split_last() {
            Some((last, item)) if last == "." => self.contains(item),
            _ => self.contains(path),
        }
    }

    pub fn insert(&mut self, path: &[String]) {
        if let Some((first, rest)) = path.split_first() {
            self.0.entry(first.clone()).or_default().insert(rest);
        }
    }

    /// Removes a leaf path, and parents that become empty.
    pub fn remove(&mut self, path: &[String]) {
        let Some((first, rest)) = path.split_first() else {
            return;
        };
        if rest.is_empty() {
            self.0.remove(first);
            return;
        }
        if let Some(child) = self.0.get_mut(first) {
            child.remove(rest);
            if child.0.is_empty() {
                self.0.remove(first);
            }
        }
    }

    pub fn to_json(&self) -> Value {
        Value::Object(
            self.0
                .iter()
                .map(|(k, v)| (k.clone(), v.to_json()))
                .collect(),
        )
    }

    pub fn from_json(value: &Value) -> Fields {
        match value {
            Value::Object(map) => Fields(
                map.iter()
                    .map(|(k, v)| (k.clone(), Fields::from_json(v)))
                    .collect(),
            ),
            _ => Fields::default(),
        }
    }
}

/// The fields that key the items of an associative list, `name` before `type`.
const LIST_KEYS: [&str; 2] = ["name", "type"];

/// The key of a list whose every item is an object with a distinct string value of it.
fn list_key(items: &[Value]) -> Option<&'static str> {
    LIST_KEYS.into_iter().find(|key| {
        let mut seen = std::collections::HashSet::new();
        !items.is_empty()
            && items.iter().all(|item| {
                item.get(*key)
                    .and_then(Value::as_str)
                    .is_some_and(|value| seen.insert(value.to_string()))
            })
    })
}

/// Whether `item` is the one a `k:` path element names.
fn matches_key(item: &Value, key: &str) -> bool {
    let Some(json) = key.strip_prefix("k:") else {
        return false;
    };
    let Ok(Value::Object(wanted)) = serde_json::from_str::<Value>(json) else {
        return false;
    };
    wanted
        .iter()
        .all(|(field, value)| item.get(field) == Some(value))
}

/// The value at a field path; `.` yields the list item itself.
pub fn value_at<'a>(value: &'a Value, path: &[String]) -> Option<&'a Value> {
    let Some((first, rest)) = path.split_first() else {
        return Some(value);
    };
    if first == "." {
        return Some(value);
    }
    let next = if let Some(field) = first.strip_prefix("f:") {
        value.as_object()?.get(field)?
    } else {
        value
            .as_array()?
            .iter()
            .find(|item| matches_key(item, first))?
    };
    value_at(next, rest)
}

/// Removes the value at a field path (a `.` path removes the whole list item).
pub fn remove_at(value: &mut Value, path: &[String]) {
    match path {
        [] => {}
        [only] | [only, _] if path.len() == 1 || path[1] == "." => {
            if let Some(field) = only.strip_prefix("f:") {
                if let Some(map) = value.as_object_mut() {
                    map.remove(field);
                }
            } else if let Some(items) = value.as_array_mut() {
                items.retain(|item| !matches_key(item, only));
            }
        }
        [first, rest @ ..] => {
            let next = if let Some(field) = first.strip_prefix("f:") {
                value.as_object_mut().and_then(|m| m.get_mut(field))
            } else {
                value
                    .as_array_mut()
                    .and_then(|items| items.iter_mut().find(|item| matches_key(item, first)))
            };
            if let Some(next) = next {
                remove_at(next, rest);
            }
        }
    }
}

/// Merges an applied configuration into the live object: maps key by key, associative lists
/// item by item (configured items first, in their order), everything else replaced.
pub fn merge(live: &Value, config: &Value) -> Value {
    match (live, config) {
        (Value::Object(live), Value::Object(config)) => {
            let mut out: Map<String, Value> = live.clone();
            for (key, value) in config {
                let merged = match live.get(key) {
                    Some(existing) => merge(existing, value),
                    None => value.clone(),
                };
                out.insert(key.clone(), merged);
            }
            Value::Object(out)
        }
        (Value::Array(live), Value::Array(config))
            if list_key(config).is_some()
                && (live.is_empty() || list_key(live) == list_key(config)) =>
        {
            let key = list_key(config).unwrap_or("name");
            let name = |v: &Value| v.get(key).and_then(Value::as_str).map(String::from);
            let mut out: Vec<Value> = config
                .iter()
                .map(|item| match live.iter().find(|l| name(l) == name(item)) {
                    Some(existing) => merge(existing, item),
                    None => item.clone(),
                })
                .collect();
            out.extend(
                live.iter()
                    .filter(|l| !config.iter().any(|c| name(c) == name(l)))
                    .cloned(),
            );
            Value::Array(out)
        }
        _ => config.clone(),
    }
}

/// One `managedFields` entry.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub manager: String,
    /// `Apply` or `Update`.
    pub operation: String,
    pub api_version: String,
    pub time: String,
    pub subresource: Option<String>,
    pub fields: Fields,
}

impl Entry {
    pub fn to_json(&self) -> Value {
        let mut entry = json!({
            "manager": self.manager,
            "operation": self.operation,
            "apiVersion": self.api_version,
            "time": self.time,
            "fieldsType": "FieldsV1",
            "fieldsV1": self.fields.to_json(),
        });
        if let Some(sub) = &self.subresource {
            entry["subresource"] = Value::String(sub.clone());
        }
        entry
    }

    fn from_json(value: &Value) -> Option<Entry> {
        Some(Entry {
            manager: value.get("manager")?.as_str()?.to_string(),
            operation: value.get("operation")?.as_str()?.to_string(),
            api_version: value
                .get("apiVersion")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
            time: value
                .get("time")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
            subresource: value
                .get("subresource")
                .and_then(Value::as_str)
                .map(String::from),
            fields: Fields::from_json(value.get("fieldsV1").unwrap_or(&Value::Null)),
        })
    }
}

pub fn entries_of(object: &Value) -> Vec<Entry> {
    object
        .pointer("/metadata/managedFields")
        .and_then(Value::as_array)
        .map(|items| items.iter().filter_map(Entry::from_json).collect())
        .unwrap_or_default()
}

pub fn set_entries(object: &mut Value, entries: &[Entry]) {
    if let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        if entries.is_empty() {
            metadata.remove("managedFields");
        } else {
            metadata.insert(
                "managedFields".into(),
                Value::Array(entries.iter().map(Entry::to_json).collect()),
            );
        }
    }
}

/// A field another manager owns with a different value than the applier wants.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conflict {
    pub manager: String,
    pub field: String,
}

/// `.spec.replicas`, `.spec.template.spec.containers[name="op"].image`: how the API server
/// names a field in conflict messages.
pub fn describe(path: &[String]) -> String {
    let mut out = String::new();
    for part in path {
        if let Some(field) = part.strip_prefix("f:") {
            out.push('.');
            out.push_str(field);
        } else if let Some(Value::Object(key)) = part
            .strip_prefix("k:")
            .and_then(|k| serde_json::from_str(k).ok())
        {
            for (field, value) in key {
                out.push_str(&format!("[{field}={value}]"));
            }
        }
    }
    out
}

/// Server-side apply of `config` by `manager` onto `live` (absent when creating). Returns the
/// new object with its `managedFields`, or the conflicts when `force` is false.
pub fn apply(
    live: Option<&Value>,
    config: &Value,
    manager: &str,
    force: bool,
    now: &str,
) -> Result<Value, Vec<Conflict>> {
    apply_to(live, config, manager, None, force, now)
}

/// [`apply`] through a subresource (`Some("status")`): the manager's entry for it is separate
/// from its entry for the main resource, as in the API server.
pub fn apply_to(
    live: Option<&Value>,
    config: &Value,
    manager: &str,
    subresource: Option<&str>,
    force: bool,
    now: &str,
) -> Result<Value, Vec<Conflict>> {
    let subresource_name = subresource.map(String::from);
    let api_version = config
        .get("apiVersion")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let applied = Fields::of_object(config);
    let Some(live) = live else {
        let mut object = config.clone();
        let entry = Entry {
            manager: manager.to_string(),
            operation: "Apply".into(),
            api_version,
            time: now.to_string(),
            subresource: subresource_name,
            fields: applied,
        };
        set_entries(&mut object, &[entry]);
        return Ok(object);
    };

    let is_mine = |e: &Entry| {
        e.manager == manager && e.operation == "Apply" && e.subresource.as_deref() == subresource
    };
    let mut entries = entries_of(live);
    let mut conflicts = Vec::new();
    for entry in entries.iter_mut().filter(|e| !is_mine(e)) {
        for path in entry.fields.leaves() {
            if path.last().is_some_and(|p| p == ".") || !applied.contains(&path) {
                continue;
            }
            let (Some(theirs), Some(mine)) = (value_at(live, &path), value_at(config, &path))
            else {
                continue;
            };
            if theirs != mine {
                if force {
                    entry.fields.remove(&path);
                } else {
                    conflicts.push(Conflict {
                        manager: entry.manager.clone(),
                        field: describe(&path),
                    });
                }
            }
        }
    }
    if !conflicts.is_empty() {
        return Err(conflicts);
    }

    // Fields this manager applied before and no longer does are removed, unless someone
    // else still owns them.
    let previous = entries
        .iter()
        .find(|e| is_mine(e))
        .map(|e| e.fields.clone())
        .unwrap_or_default();
    let mut object = live.clone();
    for path in previous.leaves() {
        let still_applied = applied.contains(&path);
        let owned_elsewhere = entries
            .iter()
            .filter(|e| !is_mine(e))
            .any(|e| e.fields.touches(&path));
        if !still_applied && !owned_elsewhere {
            remove_at(&mut object, &path);
        }
    }
    let mut object = merge(&object, &strip_server_metadata(config));

    let unchanged_set = previous == applied;
    entries.retain(|e| !e.fields.0.is_empty() || is_mine(e));
    match entries.iter_mut().find(|e| is_mine(e)) {
        Some(mine) => {
            if !unchanged_set || without_managed(&object) != without_managed(live) {
                mine.time = now.to_string();
            }
            mine.fields = applied;
            mine.api_version = api_version;
        }
        None => entries.push(Entry {
            manager: manager.to_string(),
            operation: "Apply".into(),
            api_version,
            time: now.to_string(),
            subresource: subresource_name,
            fields: applied,
        }),
    }
    entries.retain(|e| !e.fields.0.is_empty());
    set_entries(&mut object, &entries);
    Ok(object)
}

/// Records a non-apply write (create, update, merge patch) by `manager`: it takes every field
/// it changed, from whoever owned it, as the API server does.
pub fn record_update(old: Option<&Value>, new: &mut Value, manager: &str, now: &str) {
    record_update_of(old, new, manager, None, now);
}

/// [`record_update`] through a subresource (`Some("status")`).
pub fn record_update_of(
    old: Option<&Value>,
    new: &mut Value,
    manager: &str,
    subresource: Option<&str>,
    now: &str,
) {
    let mut entries = old.map(entries_of).unwrap_or_default();
    let new_fields = Fields::of_object(new);
    let changed: Vec<Path> = new_fields
        .leaves()
        .into_iter()
        .filter(|path| old.and_then(|o| value_at(o, path)) != value_at(new, path))
        .collect();
    // Fields that disappeared belong to nobody any more.
    for entry in &mut entries {
        for path in entry.fields.leaves() {
            if !new_fields.contains(&path) {
                entry.fields.remove(&path);
            }
        }
    }
    if !changed.is_empty() {
        for entry in entries.iter_mut() {
            for path in &changed {
                entry.fields.remove(path);
            }
        }
        let api_version = new
            .get("apiVersion")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let position = entries.iter().position(|e| {
            e.manager == manager
                && e.operation == "Update"
                && e.subresource.as_deref() == subresource
        });
        let entry = match position {
            Some(i) => &mut entries[i],
            None => {
                entries.push(Entry {
                    manager: manager.to_string(),
                    operation: "Update".into(),
                    api_version: api_version.clone(),
                    time: now.to_string(),
                    subresource: subresource.map(String::from),
                    fields: Fields::default(),
                });
                let last = entries.len() - 1;
                &mut entries[last]
            }
        };
        for path in &changed {
            entry.fields.insert(path);
        }
        entry.time = now.to_string();
        entry.api_version = api_version;
    }
    entries.retain(|e| !e.fields.0.is_empty());
    set_entries(new, &entries);
}

/// RFC 7386 JSON merge patch.
pub fn merge_patch(target: &Value, patch: &Value) -> Value {
    match patch {
        Value::Object(patch) => {
            let mut out = target.as_object().cloned().unwrap_or_default();
            for (key, value) in patch {
                if value.is_null() {
                    out.remove(key);
                } else {
                    let merged = merge_patch(out.get(key).unwrap_or(&Value::Null), value);
                    out.insert(key.clone(), merged);
                }
            }
            Value::Object(out)
        }
        other => other.clone(),
    }
}

fn strip_server_metadata(object: &Value) -> Value {
    let mut object = object.clone();
    if let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        for field in SERVER_METADATA {
            metadata.remove(*field);
        }
    }
    object
}

fn without_managed(object: &Value) -> Value {
    let mut object = object.clone();
    if let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        metadata.remove("managedFields");
    }
    object
}
