//! CRD schemas from a chart's values. (Placeholder until the converter lands.)

pub struct SpecSchema {
    pub schema: serde_json::Value,
    pub relaxed: Vec<String>,
}

pub fn from_values_schema(_values_schema: &serde_json::Value) -> SpecSchema {
    infer_from_values(&serde_json::Value::Null)
}

pub fn infer_from_values(_values: &serde_json::Value) -> SpecSchema {
    SpecSchema {
        schema: serde_json::json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true}),
        relaxed: vec![],
    }
}
