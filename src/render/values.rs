//! Values as Helm holds them, and Helm's two ways of combining them: coalescing (a `null` from a
//! higher layer deletes the key) and merging (nulls are kept, for a later coalesce to act on).
//!
//! Values are JSON-like trees. Numbers read from YAML become floats, as Helm reads every values
//! file through JSON: a chart's `1000000` prints as `1e+06`. Go maps have no order, so the order
//! of keys here means nothing; every reader that shows keys sorts them.

use serde_json::{Map, Value};

use super::tree::ChartNode;

pub type Values = Map<String, Value>;

/// The key every chart shares with its subcharts.
pub const GLOBAL: &str = "global";

/// Reads one YAML values document as Helm does: numbers become floats, keys become strings,
/// an empty document is an empty map.
pub fn from_yaml(text: &str) -> Result<Values, String> {
    if text.trim().is_empty() {
        return Ok(Values::new());
    }
    let value: Value = crate::yaml::from_str_yaml11(text).map_err(|e| e.to_string())?;
    match as_go_values(value) {
        Value::Object(map) => Ok(map),
        Value::Null => Ok(Values::new()),
        other => Err(format!(
            "the document is {} where a map of values was expected",
            kind_of(&other)
        )),
    }
}

/// Reads a values file with several YAML documents: later documents are merged over earlier
/// ones, as Helm's chart loader does for `values.yaml`.
pub fn from_yaml_stream(text: &str) -> Result<Values, String> {
    let documents: Vec<Value> =
        crate::yaml::from_str_multi_yaml11(text).map_err(|e| e.to_string())?;
    let mut out = Values::new();
    for document in documents {
        if let Value::Object(map) = as_go_values(document) {
            merge_maps(&mut out, map);
        }
    }
    Ok(out)
}

/// Helm's loader merge of several documents: maps merge, anything else replaces.
pub fn merge_maps(into: &mut Values, from: Values) {
    for (key, value) in from {
        match (into.get_mut(&key), value) {
            (Some(Value::Object(existing)), Value::Object(new)) => merge_maps(existing, new),
            (_, value) => {
                into.insert(key, value);
            }
        }
    }
}

/// Every number becomes a float, as after Go's `json.Unmarshal` into `interface{}`.
pub fn as_go_values(mut value: Value) -> Value {
    make_go_numbers(&mut value);
    value
}

/// [`as_go_values`] in place: the maps and lists are kept, not rebuilt, since rebuilding every
/// map of a large chart's values (redis has 100 KB of them) hashed each key again.
fn make_go_numbers(value: &mut Value) {
    match value {
        Value::Number(n) => {
            *value = n
                .as_f64()
                .and_then(serde_json::Number::from_f64)
                .map(Value::Number)
                .unwrap_or(Value::Null);
        }
        Value::Array(items) => items.iter_mut().for_each(make_go_numbers),
        Value::Object(map) => map.values_mut().for_each(make_go_numbers),
        _ => {}
    }
}

pub fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a map",
    }
}

/// Go's `%v` of a value, for warnings.
fn go_display(value: &Value) -> String {
    match value {
        Value::Null => "<nil>".to_string(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn concat_prefix(a: &str, b: &str) -> String {
    if a.is_empty() {
        b.to_string()
    } else {
        format!("{a}.{b}")
    }
}

/// Warnings Helm prints while combining values (a map given where a scalar was, ...).
#[derive(Debug, Default)]
pub struct Warnings(pub Vec<String>);

/// Helm's CoalesceValues: the chart's defaults (and its subcharts', scoped under their names,
/// with `global` flowing down) under `user`; a `null` in `user` deletes the key.
pub fn coalesce_values(chart: &ChartNode, user: &Values, warnings: &mut Warnings) -> Values {
    let mut dest = user.clone();
    coalesce(chart, &mut dest, "", false, warnings);
    dest
}

/// Helm's MergeValues: as [`coalesce_values`], but nulls are kept.
pub fn merge_values(chart: &ChartNode, user: &Values, warnings: &mut Warnings) -> Values {
    let mut dest = user.clone();
    coalesce(chart, &mut dest, "", true, warnings);
    dest
}

fn coalesce(
    chart: &ChartNode,
    dest: &mut Values,
    prefix: &str,
    merge: bool,
    warnings: &mut Warnings,
) {
    coalesce_chart_values(chart, dest, prefix, merge, warnings);
    coalesce_dependencies(chart, dest, prefix, merge, warnings);
}

fn coalesce_dependencies(
    chart: &ChartNode,
    dest: &mut Values,
    prefix: &str,
    merge: bool,
    warnings: &mut Warnings,
) {
    for sub in &chart.dependencies {
        let name = sub.name();
        match dest.get(name) {
            None => {
                dest.insert(name.to_string(), Value::Object(Values::new()));
            }
            Some(Value::Object(_)) => {}
            Some(other) => {
                // Helm fails the whole render here; a later lookup of the subchart's table
                // reports it, so keep the value and warn.
                warnings.0.push(format!(
                    "type mismatch on {name}: {} is not a table",
                    go_display(other)
                ));
                continue;
            }
        }
        let parent_global = dest.get(GLOBAL).cloned();
        let sub_prefix = concat_prefix(prefix, chart.name());
        let Some(Value::Object(table)) = dest.get_mut(name) else {
            continue;
        };
        let mut table = std::mem::take(table);
        coalesce_globals(&mut table, parent_global.as_ref(), &sub_prefix, warnings);
        coalesce(sub, &mut table, &sub_prefix, merge, warnings);
        dest.insert(name.to_string(), Value::Object(table));
    }
}

/// Copies the parent's globals into a subchart's table; the parent's win.
fn coalesce_globals(
    dest: &mut Values,
    parent_global: Option<&Value>,
    prefix: &str,
    warnings: &mut Warnings,
) {
    let mut dest_global = match dest.get(GLOBAL) {
        None => Values::new(),
        Some(Value::Object(map)) => map.clone(),
        Some(_) => {
            warnings.0.push(format!(
                "warning: skipping globals because destination {GLOBAL} is not a table."
            ));
            return;
        }
    };
    let source_global = match parent_global {
        None => Values::new(),
        Some(Value::Object(map)) => map.clone(),
        Some(_) => {
            warnings.0.push(format!(
                "warning: skipping globals because source {GLOBAL} is not a table."
            ));
            return;
        }
    };
    for (key, value) in source_global {
        match value {
            Value::Object(parent_table) => match dest_global.get(&key) {
                None => {
                    dest_global.insert(key, Value::Object(parent_table));
                }
                Some(Value::Object(child_table)) => {
                    let mut merged = parent_table;
                    coalesce_tables(
                        &mut merged,
                        child_table.clone(),
                        &concat_prefix(prefix, &key),
                        true,
                        warnings,
                    );
                    dest_global.insert(key, Value::Object(merged));
                }
                Some(_) => warnings.0.push(format!(
                    "Conflict: cannot merge map onto non-map for {key:?}. Skipping."
                )),
            },
            value => {
                if matches!(dest_global.get(&key), Some(Value::Object(_))) {
                    warnings.0.push(format!("key {key} is table. Skipping"));
                } else {
                    dest_global.insert(key, value);
                }
            }
        }
    }
    dest.insert(GLOBAL.to_string(), Value::Object(dest_global));
}

/// Puts a chart's own defaults under `dest`.
fn coalesce_chart_values(
    chart: &ChartNode,
    dest: &mut Values,
    prefix: &str,
    merge: bool,
    warnings: &mut Warnings,
) {
    let sub_prefix = concat_prefix(prefix, chart.name());
    for (key, default) in chart.values.clone() {
        match dest.get_mut(&key) {
            Some(Value::Null) if !merge => {
                // A null from a values file or --set removes the chart's default.
                dest.remove(&key);
            }
            Some(Value::Object(table)) => match default {
                Value::Object(mut defaults) => {
                    let merge = merge || chart.dependencies.iter().any(|d| d.name() == key);
                    if !merge {
                        clean_nulls(&mut defaults);
                    }
                    coalesce_tables(
                        table,
                        defaults,
                        &concat_prefix(&sub_prefix, &key),
                        merge,
                        warnings,
                    );
                }
                Value::Null => {}
                _ => warnings.0.push(format!(
                    "warning: skipped value for {sub_prefix}.{key}: Not a table."
                )),
            },
            Some(_) => {}
            None => {
                let mut default = default;
                if !merge {
                    if default.is_null() {
                        continue;
                    }
                    if let Value::Object(map) = &mut default {
                        clean_nulls(map);
                    }
                }
                dest.insert(key, default);
            }
        }
    }
}

/// Helm's CoalesceTables: `src` under `dst`, `dst` authoritative.
pub fn coalesce_tables_into(dst: &mut Values, src: Values, warnings: &mut Warnings) {
    coalesce_tables(dst, src, "", false, warnings);
}

/// Helm's MergeTables: as [`coalesce_tables_into`], keeping nulls.
pub fn merge_tables_into(dst: &mut Values, src: Values, warnings: &mut Warnings) {
    coalesce_tables(dst, src, "", true, warnings);
}

fn coalesce_tables(
    dst: &mut Values,
    mut src: Values,
    prefix: &str,
    merge: bool,
    warnings: &mut Warnings,
) {
    let originally_set: std::collections::HashSet<String> = src
        .iter()
        .filter(|(_, v)| !v.is_null())
        .map(|(k, _)| k.clone())
        .collect();
    for (key, value) in dst.iter() {
        if value.is_null() {
            src.insert(key.clone(), Value::Null);
        }
    }
    for (key, value) in src {
        let full_key = concat_prefix(prefix, &key);
        match dst.get_mut(&key) {
            Some(Value::Null) if !merge && originally_set.contains(&key) => {
                // The user nulled a chart default: the key goes.
                dst.remove(&key);
            }
            None => {
                dst.insert(key, value);
            }
            Some(existing) => match value {
                Value::Object(src_table) => {
                    if let Value::Object(dst_table) = existing {
                        coalesce_tables(dst_table, src_table, &full_key, merge, warnings);
                    } else {
                        warnings.0.push(format!(
                            "warning: cannot overwrite table with non table for {full_key} ({})",
                            go_display(&Value::Object(src_table))
                        ));
                    }
                }
                value if existing.is_object() && !value.is_null() => warnings.0.push(format!(
                    "warning: destination for {full_key} is a table. Ignoring non-table value ({})",
                    go_display(&value)
                )),
                _ => {}
            },
        }
    }
}

/// Removes nulls at every depth of maps (not inside lists), as Helm does to chart defaults.
pub fn clean_nulls(map: &mut Values) {
    map.retain(|_, v| !v.is_null());
    for value in map.values_mut() {
        if let Value::Object(inner) = value {
            clean_nulls(inner);
        }
    }
}

/// Removes nulls at every depth, as Helm's trimNilValues.
pub fn trim_nulls(map: &Values) -> Values {
    let mut out = map.clone();
    clean_nulls(&mut out);
    out
}

/// The table at a dotted path (`a.b.c`), as Helm's `Values.Table`.
pub fn table<'a>(values: &'a Values, path: &str) -> Option<&'a Values> {
    let mut current = values;
    for part in path.split('.') {
        match current.get(part) {
            Some(Value::Object(map)) => current = map,
            _ => return None,
        }
    }
    Some(current)
}

/// The non-table value at a dotted path, as Helm's `Values.PathValue`.
pub fn path_value<'a>(values: &'a Values, path: &str) -> Option<&'a Value> {
    let (parent, key) = match path.rsplit_once('.') {
        Some((parent, key)) => (table(values, parent)?, key),
        None => (values, path),
    };
    parent.get(key).filter(|v| !v.is_object())
}

/// A map nested under a dotted path (`a.b` -> `{a: {b: data}}`); `.` is the map itself.
pub fn path_to_map(path: &str, data: Values) -> Values {
    if path == "." {
        return data;
    }
    let mut current = data;
    for part in path.split('.').rev() {
        let mut outer = Values::new();
        outer.insert(part.to_string(), Value::Object(current));
        current = outer;
    }
    current
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn map(v: Value) -> Values {
        match v {
            Value::Object(m) => m,
            _ => panic!("not a map"),
        }
    }

    #[test]
    fn numbers_from_yaml_are_floats() {
        let v = from_yaml("a: 1000000\nb: [1, 2]\n").unwrap();
        assert!(v["a"].is_f64());
        assert!(v["b"][0].is_f64());
        // Nested maps and lists are read in place: every number, at any depth, and the keys
        // in the order written.
        let nested = as_go_values(json!({"z": {"y": [{"x": 7}], "w": 1.5}, "a": "s", "n": null}));
        assert_eq!(
            serde_json::to_string(&nested).unwrap(),
            r#"{"z":{"y":[{"x":7.0}],"w":1.5},"a":"s","n":null}"#
        );
    }

    #[test]
    fn tables_coalesce_with_user_values_winning_and_null_deleting() {
        let mut dst = map(json!({"a": {"x": 1, "gone": null}, "s": "user"}));
        let src = map(json!({"a": {"x": 2, "y": 3, "gone": "default"}, "s": "default", "t": 4}));
        coalesce_tables_into(&mut dst, src, &mut Warnings::default());
        assert_eq!(
            Value::Object(dst),
            json!({"a": {"x": 1, "y": 3}, "s": "user", "t": 4})
        );
    }

    #[test]
    fn merging_keeps_nulls() {
        let mut dst = map(json!({"a": null}));
        merge_tables_into(&mut dst, map(json!({"a": 1})), &mut Warnings::default());
        assert_eq!(Value::Object(dst), json!({"a": null}));
    }

    #[test]
    fn paths_and_tables() {
        let v = map(json!({"a": {"b": {"c": true}}}));
        assert_eq!(path_value(&v, "a.b.c"), Some(&json!(true)));
        assert_eq!(path_value(&v, "a.b"), None);
        assert!(table(&v, "a.b").is_some());
        assert_eq!(
            Value::Object(path_to_map("x.y", map(json!({"k": 1})))),
            json!({"x": {"y": {"k": 1}}})
        );
    }
}
