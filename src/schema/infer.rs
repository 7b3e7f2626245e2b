//! A schema inferred from `values.yaml`, for charts without `values.schema.json`.
//!
//! The defaults show the shape users are expected to follow, not all they may write: every
//! object stays open to further keys, every key may be `null` (Helm's way to drop a default),
//! and a key whose default is `null` or whose list mixes kinds accepts anything.

use serde_json::{Map, Value};

use super::SpecSchema;
use super::node::{Node, Type};

/// What the values seen at one place have in common.
#[derive(Debug, Clone, PartialEq)]
enum Shape {
    /// Nothing but `null`, or an empty list's items: no type is known.
    Unknown,
    /// Values of different kinds.
    Mixed,
    Scalar(Type),
    List(Box<Seen>),
    Map(Vec<(String, Seen)>),
}

#[derive(Debug, Clone, PartialEq)]
struct Seen {
    shape: Shape,
    null_seen: bool,
}

pub(super) fn infer(values: &Value) -> SpecSchema {
    let mut relaxed = Vec::new();
    let root = match values {
        Value::Object(map) => to_node(&seen_map(map), false),
        // An empty values.yaml parses to null: nothing is known, anything may be added.
        Value::Null => Node::open_object(),
        other => {
            relaxed.push(format!(
                "spec: values.yaml holds {} instead of a map of values; spec accepts any keys",
                kind_name(other)
            ));
            Node::open_object()
        }
    };
    SpecSchema {
        schema: root.to_json(),
        relaxed,
    }
}

fn kind_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a map",
    }
}

fn seen(value: &Value) -> Seen {
    let shape = match value {
        Value::Null => {
            return Seen {
                shape: Shape::Unknown,
                null_seen: true,
            };
        }
        Value::Array(items) => {
            let items = items.iter().map(seen).reduce(unify).unwrap_or(Seen {
                shape: Shape::Unknown,
                null_seen: false,
            });
            Shape::List(Box::new(items))
        }
        Value::Object(map) => return seen_map(map),
        // Every other value has a type.
        scalar => Type::of(scalar).map_or(Shape::Mixed, Shape::Scalar),
    };
    Seen {
        shape,
        null_seen: false,
    }
}

fn seen_map(map: &Map<String, Value>) -> Seen {
    Seen {
        shape: Shape::Map(map.iter().map(|(k, v)| (k.clone(), seen(v))).collect()),
        null_seen: false,
    }
}

fn unify(a: Seen, b: Seen) -> Seen {
    let shape = match (a.shape, b.shape) {
        (Shape::Unknown, other) | (other, Shape::Unknown) => other,
        (Shape::Scalar(x), Shape::Scalar(y)) if x == y => Shape::Scalar(x),
        (
            Shape::Scalar(Type::Integer | Type::Number),
            Shape::Scalar(Type::Integer | Type::Number),
        ) => Shape::Scalar(Type::Number),
        (Shape::List(x), Shape::List(y)) => Shape::List(Box::new(unify(*x, *y))),
        (Shape::Map(mut x), Shape::Map(y)) => {
            for (key, value) in y {
                match x.iter_mut().find(|(k, _)| *k == key) {
                    Some((_, existing)) => {
                        let previous = std::mem::replace(
                            existing,
                            Seen {
                                shape: Shape::Unknown,
                                null_seen: false,
                            },
                        );
                        *existing = unify(previous, value);
                    }
                    None => x.push((key, value)),
                }
            }
            Shape::Map(x)
        }
        _ => Shape::Mixed,
    };
    Seen {
        shape,
        null_seen: a.null_seen || b.null_seen,
    }
}

fn to_node(seen: &Seen, nullable: bool) -> Node {
    let mut node = match &seen.shape {
        Shape::Unknown | Shape::Mixed => Node::any(),
        Shape::Scalar(ty) => Node::of_type(*ty),
        Shape::List(items) => Node {
            items: Some(Box::new(to_node(items, items.null_seen))),
            ..Node::of_type(Type::Array)
        },
        Shape::Map(properties) => Node {
            properties: properties
                .iter()
                .map(|(key, value)| (key.clone(), to_node(value, true)))
                .collect(),
            ..Node::open_object()
        },
    };
    node.nullable = nullable;
    node
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn scalars_get_their_type_and_may_be_null() {
        let schema = infer(&json!({"s": "x", "i": 3, "f": 1.5, "b": true, "n": null})).schema;
        assert_eq!(
            schema,
            json!({
                "type": "object",
                "properties": {
                    "s": {"type": "string", "nullable": true},
                    "i": {"type": "integer", "nullable": true},
                    "f": {"type": "number", "nullable": true},
                    "b": {"type": "boolean", "nullable": true},
                    "n": {"nullable": true, "x-kubernetes-preserve-unknown-fields": true},
                },
                "x-kubernetes-preserve-unknown-fields": true,
            })
        );
    }

    #[test]
    fn objects_stay_open_and_lists_type_their_items() {
        let schema = infer(&json!({
            "empty": {},
            "none": [],
            "ports": [80, 443],
            "mixed": [1, "a"],
            "numbers": [1, 2.5],
            "hosts": [{"host": "a", "paths": ["/"]}, {"host": "b", "tls": true}],
            "holes": ["a", null],
        }))
        .schema;
        let properties = &schema["properties"];
        assert_eq!(
            properties["empty"],
            json!({"type": "object", "nullable": true, "x-kubernetes-preserve-unknown-fields": true})
        );
        assert_eq!(
            properties["none"],
            json!({"type": "array", "nullable": true, "items": {"x-kubernetes-preserve-unknown-fields": true}})
        );
        assert_eq!(properties["ports"]["items"], json!({"type": "integer"}));
        assert_eq!(
            properties["mixed"]["items"],
            json!({"x-kubernetes-preserve-unknown-fields": true})
        );
        assert_eq!(properties["numbers"]["items"], json!({"type": "number"}));
        assert_eq!(
            properties["holes"]["items"],
            json!({"type": "string", "nullable": true})
        );
        let host = &properties["hosts"]["items"];
        assert_eq!(host["type"], "object");
        assert_eq!(host["x-kubernetes-preserve-unknown-fields"], true);
        let keys: Vec<_> = host["properties"].as_object().unwrap().keys().collect();
        assert_eq!(keys, ["host", "paths", "tls"]);
        assert_eq!(
            host["properties"]["paths"]["items"],
            json!({"type": "string"})
        );
    }

    #[test]
    fn a_null_default_yields_to_a_typed_one_in_a_list() {
        let schema = infer(&json!({"list": [{"a": null}, {"a": "x"}]})).schema;
        assert_eq!(
            schema["properties"]["list"]["items"]["properties"]["a"],
            json!({"type": "string", "nullable": true})
        );
    }

    #[test]
    fn integers_past_int64_are_numbers() {
        let schema = infer(&json!({"big": u64::MAX})).schema;
        assert_eq!(schema["properties"]["big"]["type"], "number");
    }

    #[test]
    fn empty_values_give_an_open_spec() {
        let spec = infer(&Value::Null);
        assert_eq!(
            spec.schema,
            json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true})
        );
        assert!(spec.relaxed.is_empty());
        assert_eq!(infer(&json!(["a"])).relaxed.len(), 1);
    }
}
