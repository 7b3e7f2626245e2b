//! A custom resource's values as the helm-operator (operator-sdk v1.42) builds them: its
//! `spec`, with watches.yaml's `overrideValues` read as `--set-string` pairs (every value a
//! string) merged over it, maps into maps and everything else replaced.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::render::strvals;
use crate::render::values::Values;

/// The values of `object` (a custom resource) with `overrides` (already expanded) on top.
pub fn for_resource(
    object: &Value,
    overrides: &BTreeMap<String, String>,
) -> Result<Values, String> {
    let spec = match object.get("spec") {
        Some(Value::Object(spec)) => spec.clone(),
        // The helm-operator refuses a missing spec too: its values must be a map.
        None | Some(Value::Null) => {
            return Err("it has no spec: the spec holds the chart's values and must be a map (write `spec: {}` for the chart's defaults)".to_string());
        }
        Some(other) => {
            return Err(format!(
                "its spec is {}, not a map: the spec holds the chart's values",
                crate::render::values::kind_of(other)
            ));
        }
    };
    let mut parsed = Values::new();
    for (key, value) in overrides {
        strvals::parse_into_strings(&format!("{key}={value}"), &mut parsed)
            .map_err(|e| format!("watches.yaml overrideValues.{key}: {e}"))?;
    }
    Ok(merge(spec, parsed))
}

fn merge(mut into: Values, from: Values) -> Values {
    for (key, value) in from {
        match (into.remove(&key), value) {
            (Some(Value::Object(old)), Value::Object(new)) => {
                into.insert(key, Value::Object(merge(old, new)));
            }
            (_, value) => {
                into.insert(key, value);
            }
        }
    }
    into
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn overrides(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn overrides_merge_into_the_spec_as_strings() {
        let cr = json!({"spec": {"image": {"repository": "nginx", "tag": "1"}, "replicaCount": 2}});
        let values = for_resource(
            &cr,
            &overrides(&[("image.tag", "2"), ("replicaCount", "3"), ("list[1]", "x")]),
        )
        .unwrap();
        assert_eq!(
            Value::Object(values),
            json!({
                "image": {"repository": "nginx", "tag": "2"},
                "replicaCount": "3",
                "list": [null, "x"],
            })
        );
    }

    #[test]
    fn a_spec_must_be_a_map() {
        let err = for_resource(&json!({"spec": [1]}), &BTreeMap::new()).unwrap_err();
        assert!(err.contains("not a map"), "{err}");
        let err = for_resource(&json!({}), &BTreeMap::new()).unwrap_err();
        assert!(err.contains("has no spec"), "{err}");
    }
}
