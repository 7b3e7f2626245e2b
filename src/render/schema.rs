//! `values.schema.json` checks, chart by chart down the tree, as Helm runs them before
//! rendering. Messages follow the validator Helm uses (`- at '/path': got string, want
//! integer`); the nesting of `allOf`/`properties` groups that validator prints is flattened.

use std::fmt;
use std::sync::{Arc, OnceLock};

use jsonschema::error::{TypeKind, ValidationErrorKind};
use serde_json::Value;

use super::tree::ChartNode;

/// Checks `values` (the coalesced values, a JSON object: a validator reads a JSON value, and
/// wrapping a copy of a large chart's values cost a deep clone per check) against the chart's
/// schema and each enabled subchart's against its own; the error lists every failing chart
/// with its messages.
pub fn validate(chart: &ChartNode, values: &Value) -> Result<(), String> {
    let mut report = String::new();
    collect(chart, values, &mut report);
    if report.is_empty() {
        Ok(())
    } else {
        Err(report)
    }
}

fn collect(chart: &ChartNode, values: &Value, report: &mut String) {
    if let Some(schema) = &chart.schema
        && let Err(message) = validate_one(schema, values)
    {
        report.push_str(&format!("{}:\n{message}", chart.name()));
    }
    for sub in &chart.dependencies {
        match values.get(sub.name()) {
            None | Some(Value::Null) => {}
            Some(sub_values @ Value::Object(_)) => collect(sub, sub_values, report),
            Some(other) => report.push_str(&format!(
                "{}:\ninvalid type for values: expected object (map), got {}\n",
                sub.name(),
                go_type(other)
            )),
        }
    }
}

fn go_type(value: &Value) -> &'static str {
    match value {
        Value::Bool(_) => "bool",
        Value::Number(_) => "float64",
        Value::String(_) => "string",
        Value::Array(_) => "[]interface {}",
        _ => "map[string]interface {}",
    }
}

/// A chart's `values.schema.json`: its bytes, and its validator once compiled. Compiling a
/// large schema costs more than checking values against it, and a loaded chart is rendered
/// many times (`new` renders it for several values files and Kubernetes versions, the
/// operator on every reconcile), so copies of the chart share one compilation.
#[derive(Clone)]
pub struct Schema {
    bytes: Arc<[u8]>,
    compiled: Arc<OnceLock<Result<jsonschema::Validator, String>>>,
}

impl Schema {
    /// The schema in `bytes`, shared with the chart's file rather than copied.
    pub fn new(bytes: Arc<[u8]>) -> Schema {
        Schema {
            bytes,
            compiled: Arc::default(),
        }
    }

    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    fn validator(&self) -> Result<&jsonschema::Validator, String> {
        self.compiled
            .get_or_init(|| compile(&self.bytes))
            .as_ref()
            .map_err(String::clone)
    }
}

fn compile(bytes: &[u8]) -> Result<jsonschema::Validator, String> {
    let schema: Value = serde_json::from_slice(bytes)
        .map_err(|e| format!("values.schema.json is not valid JSON: {e}\n"))?;
    jsonschema::validator_for(&schema)
        .map_err(|e| format!("values.schema.json is not a valid JSON Schema: {e}\n"))
}

impl fmt::Debug for Schema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Schema({} bytes)", self.bytes.len())
    }
}

fn validate_one(schema: &Schema, values: &Value) -> Result<(), String> {
    let validator = schema.validator()?;
    let lines: Vec<String> = validator
        .iter_errors(values)
        .map(|e| {
            let at = e.instance_path().to_string();
            format!(
                "- at '{at}': {}",
                message(e.kind(), e.instance(), &e.to_string())
            )
        })
        .collect();
    if lines.is_empty() {
        Ok(())
    } else {
        Err(format!("{}\n", lines.join("\n")))
    }
}

fn type_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn quoted(value: &Value) -> String {
    match value {
        Value::String(s) => format!("'{s}'"),
        other => other.to_string(),
    }
}

fn message(kind: &ValidationErrorKind, instance: &Value, fallback: &str) -> String {
    match kind {
        ValidationErrorKind::Type { kind } => {
            let want = match kind {
                TypeKind::Single(t) => t.as_str().to_string(),
                TypeKind::Multiple(set) => set
                    .iter()
                    .map(|t| t.as_str())
                    .collect::<Vec<_>>()
                    .join(" or "),
            };
            format!("got {}, want {want}", type_of(instance))
        }
        ValidationErrorKind::Required { property } => {
            format!("missing property {}", quoted(property))
        }
        ValidationErrorKind::Enum { options } => match options.as_ref() {
            Value::Array(items) => format!(
                "value must be one of {}",
                items.iter().map(quoted).collect::<Vec<_>>().join(", ")
            ),
            other => format!("value must be one of {}", quoted(other)),
        },
        ValidationErrorKind::Constant { expected_value } => {
            format!("value must be {}", quoted(expected_value))
        }
        ValidationErrorKind::Pattern { pattern } => {
            format!("{} does not match pattern '{pattern}'", quoted(instance))
        }
        ValidationErrorKind::AdditionalProperties { unexpected } => format!(
            "additional properties {} not allowed",
            unexpected
                .iter()
                .map(|p| format!("'{p}'"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        ValidationErrorKind::Minimum { limit } => {
            format!("minimum: got {}, want {limit}", number_text(instance))
        }
        ValidationErrorKind::Maximum { limit } => {
            format!("maximum: got {}, want {limit}", number_text(instance))
        }
        ValidationErrorKind::MinLength { limit } => format!(
            "minLength: got {}, want {limit}",
            instance.as_str().map(|s| s.chars().count()).unwrap_or(0)
        ),
        ValidationErrorKind::MaxLength { limit } => format!(
            "maxLength: got {}, want {limit}",
            instance.as_str().map(|s| s.chars().count()).unwrap_or(0)
        ),
        _ => fallback.to_string(),
    }
}

fn number_text(value: &Value) -> String {
    match value.as_f64() {
        Some(f) if f == f.trunc() && f.abs() < 1e15 => format!("{}", f as i64),
        Some(f) => format!("{f}"),
        None => value.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_follow_helms_validator() {
        let schema = br#"{"type":"object","required":["must"],"properties":{"n":{"type":"integer","minimum":3},"e":{"enum":["a","b"]}}}"#;
        let values = Value::Object(crate::render::values::from_yaml("n: x\ne: z\n").unwrap());
        let err = validate_one(&Schema::new(Arc::from(&schema[..])), &values).unwrap_err();
        assert!(err.contains("- at '': missing property 'must'"), "{err}");
        assert!(err.contains("- at '/n': got string, want integer"), "{err}");
        assert!(
            err.contains("- at '/e': value must be one of 'a', 'b'"),
            "{err}"
        );
        let values = Value::Object(crate::render::values::from_yaml("must: 1\nn: 2\n").unwrap());
        assert_eq!(
            validate_one(&Schema::new(Arc::from(&schema[..])), &values).unwrap_err(),
            "- at '/n': minimum: got 2, want 3\n"
        );
    }
}
