//! One node of a structural schema, built field by field so that the JSON it turns into always
//! has the same keys in the same order, whatever order the source had.

use serde_json::{Map, Value};

/// The types a structural schema may name. `null` is not one of them: nullability is a flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Type {
    Object,
    Array,
    String,
    Integer,
    Number,
    Boolean,
}

impl Type {
    pub(crate) fn parse(name: &str) -> Option<Type> {
        Some(match name {
            "object" => Type::Object,
            "array" => Type::Array,
            "string" => Type::String,
            "integer" => Type::Integer,
            "number" => Type::Number,
            "boolean" => Type::Boolean,
            _ => return None,
        })
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            Type::Object => "object",
            Type::Array => "array",
            Type::String => "string",
            Type::Integer => "integer",
            Type::Number => "number",
            Type::Boolean => "boolean",
        }
    }

    pub(crate) fn is_scalar(self) -> bool {
        !matches!(self, Type::Object | Type::Array)
    }

    /// The type of a JSON value (`None` for null). Integers past `i64` are numbers: the API
    /// server's integers are 64-bit signed.
    pub(crate) fn of(value: &Value) -> Option<Type> {
        Some(match value {
            Value::Null => return None,
            Value::Bool(_) => Type::Boolean,
            Value::Number(n) if n.is_i64() => Type::Integer,
            Value::Number(_) => Type::Number,
            Value::String(_) => Type::String,
            Value::Array(_) => Type::Array,
            Value::Object(_) => Type::Object,
        })
    }
}

/// Value validations a structural schema keeps, each with the type it applies to, in the order
/// they are written out.
pub(crate) const VALUE_CHECKS: &[(&str, CheckKind)] = &[
    ("minimum", CheckKind::Number),
    ("exclusiveMinimum", CheckKind::Number),
    ("maximum", CheckKind::Number),
    ("exclusiveMaximum", CheckKind::Number),
    ("multipleOf", CheckKind::Number),
    ("minLength", CheckKind::String),
    ("maxLength", CheckKind::String),
    ("pattern", CheckKind::String),
    ("minItems", CheckKind::Array),
    ("maxItems", CheckKind::Array),
    ("minProperties", CheckKind::Object),
    ("maxProperties", CheckKind::Object),
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CheckKind {
    Number,
    String,
    Array,
    Object,
}

impl CheckKind {
    /// Whether a check of this kind means something on a node of this shape.
    pub(crate) fn applies_to(self, ty: Option<Type>, int_or_string: bool) -> bool {
        match (self, ty) {
            (CheckKind::Number, Some(Type::Integer | Type::Number)) => true,
            (CheckKind::String, Some(Type::String)) => true,
            (CheckKind::Number | CheckKind::String, None) => int_or_string,
            (CheckKind::Array, Some(Type::Array)) => true,
            (CheckKind::Object, Some(Type::Object)) => true,
            _ => false,
        }
    }
}

/// Formats the API server knows, per type. JSON Schema's `duration` (ISO 8601) is deliberately
/// absent: the API server reads `duration` as a Go duration ("1h30m"), so keeping it would reject
/// values the chart accepts.
pub(crate) fn known_format(ty: Option<Type>, format: &str) -> bool {
    match ty {
        Some(Type::String) => matches!(
            format,
            "date"
                | "date-time"
                | "email"
                | "hostname"
                | "ipv4"
                | "ipv6"
                | "cidr"
                | "mac"
                | "uri"
                | "uuid"
                | "uuid3"
                | "uuid4"
                | "uuid5"
                | "byte"
                | "password"
        ),
        Some(Type::Integer) => matches!(format, "int32" | "int64"),
        Some(Type::Number) => matches!(format, "float" | "double" | "int32" | "int64"),
        _ => false,
    }
}

#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Node {
    pub description: Option<String>,
    pub title: Option<String>,
    pub ty: Option<Type>,
    pub format: Option<String>,
    pub nullable: bool,
    pub enumeration: Option<Vec<Value>>,
    /// Keys from [`VALUE_CHECKS`] only.
    pub checks: Map<String, Value>,
    pub properties: Vec<(String, Node)>,
    pub additional_properties: Option<Box<Node>>,
    pub items: Option<Box<Node>>,
    pub required: Vec<String>,
    /// `x-kubernetes-list-type: set`, the API server's way to say "unique items".
    pub list_set: bool,
    pub int_or_string: bool,
    pub preserve_unknown_fields: bool,
}

impl Node {
    /// A node that accepts any value and keeps it as it is.
    pub(crate) fn any() -> Node {
        Node {
            preserve_unknown_fields: true,
            ..Node::default()
        }
    }

    pub(crate) fn of_type(ty: Type) -> Node {
        Node {
            ty: Some(ty),
            ..Node::default()
        }
    }

    /// An object that keeps keys its schema does not list.
    pub(crate) fn open_object() -> Node {
        Node {
            ty: Some(Type::Object),
            preserve_unknown_fields: true,
            ..Node::default()
        }
    }

    pub(crate) fn to_json(&self) -> Value {
        let mut out = Map::new();
        if let Some(description) = &self.description {
            out.insert("description".into(), description.clone().into());
        }
        if let Some(title) = &self.title {
            out.insert("title".into(), title.clone().into());
        }
        if let Some(ty) = self.ty {
            out.insert("type".into(), ty.name().into());
        }
        if let Some(format) = &self.format {
            out.insert("format".into(), format.clone().into());
        }
        if self.nullable {
            out.insert("nullable".into(), true.into());
        }
        if let Some(values) = &self.enumeration {
            out.insert("enum".into(), Value::Array(values.clone()));
        }
        for (key, _) in VALUE_CHECKS {
            if let Some(value) = self.checks.get(*key) {
                out.insert((*key).into(), value.clone());
            }
        }
        if !self.properties.is_empty() {
            let properties = self
                .properties
                .iter()
                .map(|(name, node)| (name.clone(), node.to_json()))
                .collect();
            out.insert("properties".into(), Value::Object(properties));
        }
        if let Some(node) = &self.additional_properties {
            out.insert("additionalProperties".into(), node.to_json());
        }
        if let Some(node) = &self.items {
            out.insert("items".into(), node.to_json());
        }
        if !self.required.is_empty() {
            out.insert("required".into(), self.required.clone().into());
        }
        if self.list_set {
            out.insert("x-kubernetes-list-type".into(), "set".into());
        }
        if self.int_or_string {
            out.insert("x-kubernetes-int-or-string".into(), true.into());
        }
        if self.preserve_unknown_fields {
            out.insert("x-kubernetes-preserve-unknown-fields".into(), true.into());
        }
        Value::Object(out)
    }
}
