//! The CRD `spec` schema of every shared chart: structural, satisfied by the chart's own
//! values.yaml (which becomes the sample custom resource), and strict enough to reject a value
//! of the wrong type. Checked with an independent JSON Schema validator (tests/support/openapi.rs).

mod support;

use std::fs;
use std::path::{Path, PathBuf};

use operator_rs::schema::{self, SpecSchema};
use serde_json::{Value, json};
use support::openapi;

fn charts_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/charts")
}

struct Chart {
    name: String,
    values: Value,
    has_values_schema: bool,
    spec: SpecSchema,
}

/// Every shared chart, read-only, with the schema `new` would build for it.
fn charts() -> Vec<Chart> {
    let mut dirs: Vec<PathBuf> = fs::read_dir(charts_dir())
        .expect("the shared charts directory exists")
        .map(|entry| entry.expect("readable entry").path())
        .filter(|path| path.join("Chart.yaml").is_file())
        .collect();
    dirs.sort();
    assert!(
        dirs.len() >= 5,
        "expected the shared charts, found {dirs:?}"
    );
    dirs.iter().map(|dir| load(dir)).collect()
}

fn load(dir: &Path) -> Chart {
    let name = dir.file_name().unwrap().to_string_lossy().into_owned();
    let text = fs::read_to_string(dir.join("values.yaml")).unwrap();
    let values: Value = operator_rs::yaml::from_str(&text)
        .unwrap_or_else(|e| panic!("values.yaml of {name} does not parse: {e}"));
    let (has_values_schema, spec) = match fs::read_to_string(dir.join("values.schema.json")) {
        Ok(text) => {
            let document: Value = serde_json::from_str(&text).unwrap();
            (true, schema::from_values_schema(&document))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            (false, schema::infer_from_values(&values))
        }
        Err(e) => panic!("cannot read values.schema.json of {name}: {e}"),
    };
    Chart {
        name,
        values,
        has_values_schema,
        spec,
    }
}

fn assert_structural(name: &str, schema: &Value) {
    let problems = openapi::structural_problems(schema);
    assert!(
        problems.is_empty(),
        "the schema of {name} is not structural:\n{}",
        problems.join("\n")
    );
    assert_eq!(schema["type"], "object", "spec of {name} must be an object");
}

fn assert_valid(name: &str, schema: &Value, instance: &Value) {
    if let Err(errors) = openapi::validate(schema, instance) {
        panic!(
            "{name}: the instance does not validate:\n{}",
            errors.join("\n")
        );
    }
}

#[test]
fn every_shared_chart_gets_a_structural_schema_its_own_values_satisfy() {
    for chart in charts() {
        assert_structural(&chart.name, &chart.spec.schema);
        assert_valid(&chart.name, &chart.spec.schema, &chart.values);
        for place in &chart.spec.relaxed {
            eprintln!("{}: relaxed {place}", chart.name);
        }
    }
}

#[test]
fn charts_with_a_values_schema_use_it() {
    let with_schema: Vec<String> = charts()
        .into_iter()
        .filter(|chart| chart.has_values_schema)
        .map(|chart| chart.name)
        .collect();
    assert_eq!(with_schema, ["alertmanager", "rancher", "redis"]);
}

/// A path (through `properties` only) to an integer or boolean in the schema that the
/// chart's values also have.
fn typed_scalar_path(schema: &Value, values: &Value) -> Option<Vec<String>> {
    let properties = schema.get("properties")?.as_object()?;
    for (key, child) in properties {
        let Some(value) = values.get(key) else {
            continue;
        };
        if matches!(child["type"].as_str(), Some("integer" | "boolean")) {
            return Some(vec![key.clone()]);
        }
        if let Some(mut rest) = typed_scalar_path(child, value) {
            rest.insert(0, key.clone());
            return Some(rest);
        }
    }
    None
}

#[test]
fn a_value_of_the_wrong_type_is_rejected_in_every_chart() {
    for chart in charts() {
        let path = typed_scalar_path(&chart.spec.schema, &chart.values)
            .unwrap_or_else(|| panic!("{} has no typed integer or boolean", chart.name));
        let mut wrong = chart.values.clone();
        let mut target = &mut wrong;
        for key in &path {
            target = &mut target[key.as_str()];
        }
        *target = json!("three");
        let errors = openapi::validate(&chart.spec.schema, &wrong).expect_err(&format!(
            "{}: \"three\" at {} was accepted",
            chart.name,
            path.join(".")
        ));
        let pointer = format!("/{}", path.join("/"));
        assert!(
            errors.iter().any(|e| e.starts_with(&pointer)),
            "{}: expected an error at {pointer}, got {errors:?}",
            chart.name
        );
    }
}

fn chart(name: &str) -> Chart {
    load(&charts_dir().join(name))
}

#[test]
fn hello_world_rejects_a_replica_count_in_words() {
    let chart = chart("hello-world");
    let mut values = chart.values.clone();
    values["replicaCount"] = json!("three");
    let errors = openapi::validate(&chart.spec.schema, &values).unwrap_err();
    assert!(
        errors[0].starts_with("/replicaCount: ") && errors[0].contains("three"),
        "{errors:?}"
    );
}

#[test]
fn keys_the_defaults_do_not_show_are_accepted_unless_the_chart_forbids_them() {
    let hello = chart("hello-world");
    let mut values = hello.values.clone();
    values["podAnnotations"] = json!({"team": "a"});
    values["image"]["digest"] = json!("sha256:0");
    assert_valid("hello-world", &hello.spec.schema, &values);

    let alertmanager = chart("alertmanager");
    let mut values = alertmanager.values.clone();
    values["notInTheSchema"] = json!({"a": 1});
    assert_valid("alertmanager", &alertmanager.spec.schema, &values);
    // Its schema closes `image` with additionalProperties: false.
    values["image"]["bogus"] = json!(1);
    let errors = openapi::validate(&alertmanager.spec.schema, &values).unwrap_err();
    assert!(errors.iter().any(|e| e.starts_with("/image")), "{errors:?}");
}

#[test]
fn any_key_may_be_set_to_null_to_drop_its_default() {
    for chart in charts() {
        let Value::Object(values) = &chart.values else {
            panic!("{}: values.yaml is not a map", chart.name);
        };
        for key in values.keys() {
            // The API server's enum check never matches null (see support/openapi.rs).
            if chart.spec.schema["properties"][key].get("enum").is_some() {
                continue;
            }
            let mut nulled = chart.values.clone();
            nulled[key.as_str()] = Value::Null;
            assert_valid(
                &format!("{} with {key}: null", chart.name),
                &chart.spec.schema,
                &nulled,
            );
        }
    }
}

#[test]
fn list_items_keep_the_required_keys_of_the_chart() {
    let alertmanager = chart("alertmanager");
    let mut values = alertmanager.values.clone();
    values["extraSecretMounts"] = json!([{"name": "a", "mountPath": "/a"}]);
    let errors = openapi::validate(&alertmanager.spec.schema, &values).unwrap_err();
    assert!(
        errors.iter().any(|e| e.contains("secretName")),
        "{errors:?}"
    );
    // Maps are merged over values.yaml by Helm, so a custom resource may leave keys out.
    assert_valid(
        "alertmanager",
        &alertmanager.spec.schema,
        &json!({"replicaCount": 2}),
    );
}

#[test]
fn what_could_not_be_expressed_is_reported() {
    let alertmanager = chart("alertmanager");
    assert!(
        alertmanager.spec.relaxed.iter().any(|r| r.starts_with(
            "spec.config.route.routes[*]: $ref #/definitions/config/route is recursive"
        )),
        "{:#?}",
        alertmanager.spec.relaxed
    );
    let rancher = chart("rancher");
    assert!(
        rancher
            .spec
            .relaxed
            .iter()
            .any(|r| r.starts_with("spec: if/then/else")),
        "{:#?}",
        rancher.spec.relaxed
    );
    for chart in charts().into_iter().filter(|c| !c.has_values_schema) {
        assert_eq!(chart.spec.relaxed, Vec::<String>::new(), "{}", chart.name);
    }
}

#[test]
fn schemas_are_the_same_on_every_run() {
    for (first, second) in charts().into_iter().zip(charts()) {
        assert_eq!(
            serde_json::to_string(&first.spec.schema).unwrap(),
            serde_json::to_string(&second.spec.schema).unwrap()
        );
        assert_eq!(first.spec.relaxed, second.spec.relaxed);
    }
}

#[test]
fn the_checker_and_validator_catch_what_they_should() {
    // The structural checker itself must not be a rubber stamp.
    let problems = openapi::structural_problems(&json!({
        "type": "object",
        "properties": {
            "a": {"$ref": "#/definitions/x"},
            "b": {"type": ["string", "null"]},
            "c": {"type": "array"},
            "d": {"type": "object", "properties": {}, "additionalProperties": {"type": "string"}},
        },
    }));
    assert_eq!(problems.len(), 5, "{problems:#?}");
    // Closed objects reject unknown keys; nullable admits null; enums never match null.
    let schema = json!({
        "type": "object",
        "properties": {
            "n": {"type": "integer", "nullable": true},
            "e": {"type": "string", "nullable": true, "enum": ["a", null]},
        },
    });
    assert!(openapi::validate(&schema, &json!({"n": null})).is_ok());
    assert!(openapi::validate(&schema, &json!({"x": 1})).is_err());
    assert!(openapi::validate(&schema, &json!({"e": null})).is_err());
}

#[test]
fn values_yaml_quirks_parse_as_helm_reads_them() {
    let values: Value = operator_rs::yaml::from_str(
        "empty:\ntilde: ~\nversion: 1.16\nquoted: \"1.16\"\nbig: 9223372036854775807\n",
    )
    .unwrap();
    assert_eq!(values["empty"], Value::Null);
    assert_eq!(values["tilde"], Value::Null);
    assert_eq!(values["version"], json!(1.16));
    assert_eq!(values["quoted"], json!("1.16"));
    assert_eq!(values["big"], json!(i64::MAX));
    let spec = schema::infer_from_values(&values);
    assert_valid("quirks", &spec.schema, &values);
}
