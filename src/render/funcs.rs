//! Helm's own template functions, added to the engine's Sprig set: `include` and `tpl` (with
//! Helm's limit of nested includes), `required` and `fail` (whose messages Helm lifts out of
//! Go's error text), the YAML, JSON and TOML converters, `lookup`, and Helm's removals.

use std::collections::HashMap;
use std::sync::Arc;

use gotemplate::{Context, Effects, Error, Function, Functions, Map, Type, Value};

use super::go_json::{self, from_engine, to_engine};
use super::go_toml;
use super::go_yaml;
use super::values;

/// Helm stops nested `include`s of one name past this many.
pub const MAX_INCLUDE_DEPTH: usize = 1000;

/// Markers Helm puts around the messages of `required` and `fail`, to find them again in
/// Go's error text.
pub const ERR_START: &str = "HELM_ERR_START";
pub const ERR_END: &str = "HELM_ERR_END";

/// What Helm's functions keep during one render.
#[derive(Default)]
pub struct Host {
    /// How many `include`s of each name are under way.
    pub included: HashMap<String, usize>,
    /// The maps `fromYaml` read, by text: charts read the same text again and again (redis
    /// reads its common labels 24 times a render, each ConfigMap it checksums twice), and a
    /// YAML parse costs several times what making the engine's values afresh does.
    maps_read: HashMap<String, serde_json::Value>,
}

impl Host {
    /// `fromYaml`, reading each text once a render. Each call still gets values of its own:
    /// a template may change the map it was given (`set`, `merge`).
    fn read_yaml(&mut self, text: &str) -> Value {
        if let Some(map) = self.maps_read.get(text) {
            return to_engine(map);
        }
        match read_yaml_map(text) {
            Ok(map) => {
                let value = to_engine(&map);
                self.maps_read.insert(text.to_string(), map);
                value
            }
            Err(error) => error,
        }
    }
}

/// Reads objects from a cluster for `lookup`. Offline rendering uses [`NoCluster`].
pub trait Lookup: Send + Sync {
    /// The object (or, with an empty name, the list) as JSON; an empty map when not found.
    fn lookup(
        &self,
        api_version: &str,
        kind: &str,
        namespace: &str,
        name: &str,
    ) -> Result<serde_json::Value, String>;

    /// Whether a lookup reads a cluster: such a render does nothing before Helm would.
    fn reads_a_cluster(&self) -> bool {
        true
    }
}

/// No cluster: every lookup finds nothing, as `helm template` does.
pub struct NoCluster;

impl Lookup for NoCluster {
    fn lookup(&self, _: &str, _: &str, _: &str, _: &str) -> Result<serde_json::Value, String> {
        Ok(serde_json::Value::Object(serde_json::Map::new()))
    }

    fn reads_a_cluster(&self) -> bool {
        false
    }
}

/// The name Helm gives text parsed by `tpl` (its root template's name).
pub const TPL_NAME: &str = "gotpl";

/// Go's text/template with Sprig and Helm's functions.
pub fn helm_functions(lookup: Arc<dyn Lookup>) -> Functions {
    let mut f = Functions::sprig();
    f.remove("env");
    f.remove("expandenv");

    f.insert(
        "include",
        Function::new(&[Type::String, Type::Any], include),
    );
    f.insert("tpl", Function::new(&[Type::String, Type::Any], tpl));
    f.insert(
        "required",
        Function::new(&[Type::String, Type::Any], |_, args| {
            let missing = match &args[1] {
                Value::Nil => true,
                Value::String(s) => s.is_empty(),
                _ => false,
            };
            if missing {
                return Err(Error::func(wrap(args[0].as_str().unwrap_or_default())));
            }
            Ok(args[1].clone())
        }),
    );
    f.insert(
        "fail",
        Function::new(&[Type::String], |_, args| {
            Err(Error::func(wrap(args[0].as_str().unwrap_or_default())))
        }),
    );
    f.insert(
        "toYaml",
        Function::new(&[Type::Any], |_, args| Ok(Value::String(to_yaml(&args[0])))),
    );
    f.insert(
        "mustToYaml",
        Function::new(&[Type::Any], |_, args| match go_json::yaml_node(&args[0]) {
            Ok(node) => Ok(Value::String(trim_newline(go_yaml::emit(&node.sorted())))),
            Err(e) => Err(Error::func(format!("error marshaling into JSON: {e}"))),
        }),
    );
    f.insert(
        "toYamlPretty",
        Function::new(&[Type::Any], |_, args| {
            let node = go_json::yaml_node_direct(&args[0])
                .map_err(Error::func)?
                .sorted();
            Ok(Value::String(trim_newline(go_yaml::emit_v3(&node))))
        }),
    );
    f.insert(
        "fromYaml",
        Function::new(&[Type::String], |ctx, args| {
            let text = args[0].as_str().unwrap_or_default();
            Ok(match ctx.host::<Host>() {
                Some(host) => host.read_yaml(text),
                None => from_yaml(text),
            })
        }),
    );
    f.insert(
        "fromYamlArray",
        Function::new(&[Type::String], |_, args| {
            Ok(from_yaml_array(args[0].as_str().unwrap_or_default()))
        }),
    );
    f.insert(
        "toJson",
        Function::new(&[Type::Any], |_, args| {
            Ok(Value::String(
                go_json::marshal(&args[0]).unwrap_or_default(),
            ))
        }),
    );
    f.insert(
        "mustToJson",
        Function::new(&[Type::Any], |_, args| {
            go_json::marshal(&args[0])
                .map(Value::String)
                .map_err(Error::func)
        }),
    );
    f.insert(
        "fromJson",
        Function::new(&[Type::String], |_, args| {
            let text = args[0].as_str().unwrap_or_default();
            Ok(match serde_json::from_str::<serde_json::Value>(text) {
                Ok(serde_json::Value::Object(map)) => {
                    to_engine(&values::as_go_values(serde_json::Value::Object(map)))
                }
                Ok(_) => error_map(
                    "json: cannot unmarshal into Go value of type map[string]interface {}",
                ),
                Err(e) => error_map(&e.to_string()),
            })
        }),
    );
    f.insert(
        "fromJsonArray",
        Function::new(&[Type::String], |_, args| {
            let text = args[0].as_str().unwrap_or_default();
            Ok(match serde_json::from_str::<serde_json::Value>(text) {
                Ok(serde_json::Value::Array(items)) => {
                    to_engine(&values::as_go_values(serde_json::Value::Array(items)))
                }
                Ok(_) => Value::list(vec![Value::str(
                    "json: cannot unmarshal into Go value of type []interface {}",
                )]),
                Err(e) => Value::list(vec![Value::String(e.to_string())]),
            })
        }),
    );
    f.insert(
        "toToml",
        Function::new(&[Type::Any], |_, args| match &args[0] {
            // Helm's encoder panics on a nil interface; the others errors it prints.
            Value::Nil => Err(Error::func(
                go_toml::to_toml(&args[0]).err().unwrap_or_default(),
            )),
            v => Ok(Value::String(go_toml::to_toml(v).unwrap_or_else(|e| e))),
        }),
    );
    f.insert(
        "mustToToml",
        Function::new(&[Type::Any], |_, args| {
            go_toml::to_toml(&args[0])
                .map(Value::String)
                .map_err(Error::func)
        }),
    );
    f.insert(
        "fromToml",
        Function::new(&[Type::String], |_, args| {
            Ok(go_toml::from_toml(args[0].as_str().unwrap_or_default()))
        }),
    );
    f.insert(
        "lookup",
        Function::new(
            &[Type::String, Type::String, Type::String, Type::String],
            move |_, args| {
                let text = |i: usize| args[i].as_str().unwrap_or_default().to_string();
                lookup
                    .lookup(&text(0), &text(1), &text(2), &text(3))
                    .map(|v| to_engine(&values::as_go_values(v)))
                    .map_err(Error::func)
            },
        ),
    );
    // Helm answers DNS lookups only when asked to (`--enable-dns`), never offline.
    f.insert(
        "getHostByName",
        Function::new(&[Type::String], |_, _| Ok(Value::str(""))),
    );
    declare_effects(&mut f);
    f
}

/// What Helm's functions do besides computing their result, for renders that ask whether
/// another Kubernetes version would have rendered the same (`fail` and `lookup`, which may
/// ask a cluster, stay of unknown effects).
fn declare_effects(f: &mut Functions) {
    for name in ["include", "tpl"] {
        f.set_effects(name, Effects::Executes);
    }
    for name in [
        "required",
        "toYaml",
        "mustToYaml",
        "toYamlPretty",
        "fromYaml",
        "fromYamlArray",
        "toJson",
        "mustToJson",
        "fromJson",
        "fromJsonArray",
        "toToml",
        "mustToToml",
        "fromToml",
        "getHostByName",
    ] {
        f.set_effects(name, Effects::Pure);
    }
}

fn wrap(message: &str) -> String {
    format!("{ERR_START}{message}{ERR_END}")
}

fn trim_newline(s: String) -> String {
    s.strip_suffix('\n').map(str::to_string).unwrap_or(s)
}

/// Helm's `toYaml`: "" when the value cannot be marshalled.
pub fn to_yaml(value: &Value) -> String {
    match go_json::yaml_node(value) {
        Ok(node) => trim_newline(go_yaml::emit(&node.sorted())),
        Err(_) => String::new(),
    }
}

fn error_map(message: &str) -> Value {
    let map = Map::new();
    map.insert("Error", Value::str(message));
    Value::Map(map)
}

fn from_yaml(text: &str) -> Value {
    match read_yaml_map(text) {
        Ok(map) => to_engine(&map),
        Err(error) => error,
    }
}

/// What `fromYaml` reads from `text`: a map of values (as JSON), or the map with the `Error`
/// Helm gives instead.
fn read_yaml_map(text: &str) -> Result<serde_json::Value, Value> {
    let empty = || serde_json::Value::Object(serde_json::Map::new());
    // `{}` is what `toYaml` of an empty map gives, and most of what charts hand back to
    // `fromYaml` (common's merge helpers, on every include): 48 of the 80 calls in a render of
    // redis, each a YAML parser set up for two bytes.
    let trimmed = text.trim();
    if trimmed.is_empty() || trimmed == "{}" {
        return Ok(empty());
    }
    match first_document(text) {
        Ok(serde_json::Value::Object(map)) => {
            Ok(values::as_go_values(serde_json::Value::Object(map)))
        }
        Ok(serde_json::Value::Null) => Ok(empty()),
        Ok(other) => Err(error_map(&format!(
            "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal {} into Go value of type map[string]interface {{}}",
            json_kind(&other)
        ))),
        Err(e) => Err(error_map(&e.to_string())),
    }
}

fn from_yaml_array(text: &str) -> Value {
    if text.trim().is_empty() {
        return Value::list(Vec::new());
    }
    match first_document(text) {
        Ok(serde_json::Value::Array(items)) => {
            to_engine(&values::as_go_values(serde_json::Value::Array(items)))
        }
        Ok(serde_json::Value::Null) => Value::list(Vec::new()),
        Ok(other) => Value::list(vec![Value::String(format!(
            "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal {} into Go value of type []interface {{}}",
            json_kind(&other)
        ))]),
        Err(e) => Value::list(vec![Value::String(e.to_string())]),
    }
}

/// The first YAML document of `text`: Helm's YAML reader decodes only that one, so an
/// `include` of a template whose output has a `---` and more after it still reads (the shared
/// redis chart checksums its scripts ConfigMap this way).
fn first_document(text: &str) -> Result<serde_json::Value, serde_saphyr::Error> {
    match crate::yaml::from_str_yaml11::<serde_json::Value>(text) {
        Err(e) if e.to_string().contains("multiple YAML documents") => {
            crate::yaml::from_str_multi_yaml11::<serde_json::Value>(text)
                .map(|docs| docs.into_iter().next().unwrap_or(serde_json::Value::Null))
        }
        other => other,
    }
}

fn json_kind(value: &serde_json::Value) -> &'static str {
    match value {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "bool",
        serde_json::Value::Number(_) => "number",
        serde_json::Value::String(_) => "string",
        serde_json::Value::Array(_) => "array",
        serde_json::Value::Object(_) => "object",
    }
}

fn include(ctx: &mut Context<'_, '_>, args: &[Value]) -> Result<Value, Error> {
    let name = args[0].as_str().unwrap_or_default().to_string();
    let count = {
        let host = ctx.host::<Host>();
        match host {
            Some(host) => {
                let n = host.included.entry(name.clone()).or_insert(0);
                if *n > MAX_INCLUDE_DEPTH {
                    return Err(Error::func(format!(
                        "rendering template has a nested reference name: {name}: unable to execute template"
                    )));
                }
                *n += 1;
                true
            }
            None => false,
        }
    };
    let result = ctx.execute_template(&name, &args[1]);
    if count
        && let Some(host) = ctx.host::<Host>()
        && let Some(n) = host.included.get_mut(&name)
    {
        *n = n.saturating_sub(1);
    }
    result.map(Value::String)
}

fn tpl(ctx: &mut Context<'_, '_>, args: &[Value]) -> Result<Value, Error> {
    let text = args[0].as_str().unwrap_or_default().to_string();
    match ctx.execute_text(TPL_NAME, &text, &args[1]) {
        Ok(out) => Ok(Value::String(out.replace("<no value>", ""))),
        Err(e) if e.kind == gotemplate::ErrorKind::Parse => Err(Error::func(format!(
            "cannot parse template {}: {}",
            quote(&text),
            e.message
        ))),
        Err(e) if e.kind == gotemplate::ErrorKind::Limit => Err(e),
        Err(e) => Err(Error::func(format!(
            "error during tpl function execution for {}: {}",
            quote(&text),
            e.message
        ))),
    }
}

fn quote(s: &str) -> String {
    gotemplate::gofmt::quote(s)
}

/// A values tree back from the engine (for callers that read what a template changed).
pub fn values_of(value: &Value) -> serde_json::Value {
    from_engine(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_yaml_reads_the_first_document_only() {
        let v = from_yaml("data:\n  a: 1\n---\nother: 2\n");
        let m = v.as_map().unwrap();
        assert!(m.contains_key("data") && !m.contains_key("other"));
        let l = from_yaml_array("- 1\n---\n- 2\n");
        assert_eq!(l.as_list().map(<[Value]>::len), Some(1));
    }

    #[test]
    fn an_empty_map_read_without_the_parser_is_what_the_parser_reads() {
        // `{ }` is not the text the shortcut knows, so the YAML parser reads it.
        let parsed = from_yaml("{ }");
        for text in ["{}", "{}\n", "  {}  "] {
            let short = from_yaml(text);
            assert_eq!(short.as_map().map(Map::len), Some(0), "{text:?}");
            assert_eq!(format!("{short:?}"), format!("{parsed:?}"), "{text:?}");
        }
    }
}
