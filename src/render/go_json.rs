//! Conversions between the values this crate holds (JSON-like trees) and the template
//! engine's Go values, and Go's `encoding/json` text, which Helm's `toJson` writes and
//! `toYaml` goes through.

use gotemplate::{Map, Value};

use super::go_yaml::Node;

/// A values tree as the engine's value. Integers stay Go ints (`--set` makes them); numbers
/// read from YAML or JSON are already floats.
pub fn to_engine(value: &serde_json::Value) -> Value {
    match value {
        serde_json::Value::Null => Value::Nil,
        serde_json::Value::Bool(b) => Value::Bool(*b),
        serde_json::Value::Number(n) => match (n.is_f64(), n.as_i64()) {
            (false, Some(i)) => Value::Int(i),
            _ => Value::Float(n.as_f64().unwrap_or(0.0)),
        },
        serde_json::Value::String(s) => Value::String(s.clone()),
        serde_json::Value::Array(items) => Value::list(items.iter().map(to_engine).collect()),
        serde_json::Value::Object(map) => map_to_engine(map),
    }
}

/// A values map as the engine's map value: [`to_engine`] of the map, without first wrapping a
/// copy of it in a JSON value.
pub fn map_to_engine(map: &serde_json::Map<String, serde_json::Value>) -> Value {
    Value::Map(
        map.iter()
            .map(|(k, v)| (k.clone(), to_engine(v)))
            .collect::<Map>(),
    )
}

/// An engine value as a values tree (host objects by their value, else null).
pub fn from_engine(value: &Value) -> serde_json::Value {
    match value {
        Value::Nil => serde_json::Value::Null,
        Value::Bool(b) => serde_json::Value::Bool(*b),
        Value::Int(i) => serde_json::Value::from(*i),
        Value::Float(f) => serde_json::Number::from_f64(*f)
            .map(serde_json::Value::Number)
            .unwrap_or(serde_json::Value::Null),
        Value::String(s) => serde_json::Value::String(s.clone()),
        Value::Bytes(b) => serde_json::Value::String(base64_text(b)),
        Value::List(items) => serde_json::Value::Array(items.iter().map(from_engine).collect()),
        Value::Map(map) => serde_json::Value::Object(
            map.entries()
                .iter()
                .map(|(k, v)| (k.clone(), from_engine(v)))
                .collect(),
        ),
        Value::Object(o) => o
            .to_value()
            .map(|v| from_engine(&v))
            .unwrap_or(serde_json::Value::Null),
    }
}

/// encoding/json's text of a `[]byte`: standard base64 with padding.
fn base64_text(b: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(b)
}

/// How deep lists and maps may nest in a value that `toJson`, `toYaml` and `toToml` encode.
/// Go's encoders recurse on a stack that grows to a gigabyte; these recurse on the thread's,
/// so a value nested deeper (a template can wrap a list in itself 100000 times) is refused
/// with [`too_deep`] rather than overflow it.
pub const MAX_DEPTH: usize = 1000;

/// The error for a value nested deeper than [`MAX_DEPTH`].
pub fn too_deep() -> String {
    format!("value nested more than {MAX_DEPTH} levels deep")
}

/// Go's JSON text of a value (`json.Marshal`), or the error where Go fails (NaN, infinities)
/// or the value is nested too deep.
pub fn marshal(value: &Value) -> Result<String, String> {
    if value.nested_deeper_than(MAX_DEPTH) {
        return Err(too_deep());
    }
    gotemplate::sprig::to_json(value, true, None)
}

/// A value as `toYaml` sees it after Helm's JSON round trip, or the JSON error.
pub fn yaml_node(value: &Value) -> Result<Node, String> {
    if value.nested_deeper_than(MAX_DEPTH) {
        return Err(too_deep());
    }
    json_node(value).ok_or_else(|| "json: unsupported value: NaN".to_string())
}

fn json_node(value: &Value) -> Option<Node> {
    Some(match value {
        Value::Nil => Node::Null,
        Value::Bool(b) => Node::Bool(*b),
        Value::Int(i) => Node::Int(i.to_string()),
        Value::Float(f) => {
            if !f.is_finite() {
                return None;
            }
            Node::from_float(*f)
        }
        Value::String(s) => Node::Str(s.clone()),
        Value::Bytes(b) => Node::Str(base64_text(b)),
        Value::List(items) => Node::Seq(items.iter().map(json_node).collect::<Option<_>>()?),
        Value::Map(map) => Node::Map(
            map.entries()
                .iter()
                .map(|(k, v)| Some((k.clone(), json_node(v)?)))
                .collect::<Option<_>>()?,
        ),
        Value::Object(o) => match o.to_value() {
            Some(v) => json_node(&v)?,
            None => Node::Map(Vec::new()),
        },
    })
}

/// A value as go-yaml v3 sees it without a JSON round trip (`toYamlPretty`), or the error
/// for a value nested too deep.
pub fn yaml_node_direct(value: &Value) -> Result<Node, String> {
    if value.nested_deeper_than(MAX_DEPTH) {
        return Err(too_deep());
    }
    Ok(direct_node(value))
}

fn direct_node(value: &Value) -> Node {
    match value {
        Value::Float(f) => Node::Float(*f),
        Value::List(items) => Node::Seq(items.iter().map(direct_node).collect()),
        // go-yaml v3 writes a []byte as the sequence of its numbers.
        Value::Bytes(b) => Node::Seq(b.iter().map(|x| Node::Int(x.to_string())).collect()),
        Value::Map(map) => Node::Map(
            map.entries()
                .iter()
                .map(|(k, v)| (k.clone(), direct_node(v)))
                .collect(),
        ),
        Value::Object(o) => match o.to_value() {
            Some(v) => direct_node(&v),
            None => Node::Map(Vec::new()),
        },
        other => json_node(other).unwrap_or(Node::Null),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_json_numbers_and_escapes() {
        let json = |v: Value| marshal(&v).unwrap();
        assert_eq!(json(Value::Float(1e6)), "1000000");
        assert_eq!(json(Value::Float(1.5)), "1.5");
        assert_eq!(json(Value::Float(1e21)), "1e+21");
        assert_eq!(json(Value::Float(1e-7)), "1e-7");
        assert_eq!(
            json(Value::str("<a & \"b\">\n")),
            r#""\u003ca \u0026 \"b\"\u003e\n""#
        );
        assert_eq!(
            marshal(&Value::Float(f64::INFINITY)).unwrap_err(),
            "json: unsupported value: +Inf"
        );
    }
}
