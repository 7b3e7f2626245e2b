//! CRD schemas (OpenAPI v3, as the API server reads them) checked by independent means: the
//! structural rules the API server enforces, and validation of an instance by the `jsonschema`
//! crate after translating the Kubernetes-only keywords into JSON Schema.

use serde_json::{Map, Value};

/// Validates `instance` (a custom resource's `spec`, say) against an `openAPIV3Schema` (or a
/// node of one) the way the API server does under strict field validation (kubectl's default):
/// - `nullable: true` admits `null`; a typed node without it does not (the API server would
///   drop such a `null`, which changes what Helm receives, so a test should see it);
/// - an enum never matches `null`, even when it lists it: the API server compares enum
///   values by Go type, and `null` has none;
/// - an object without `x-kubernetes-preserve-unknown-fields` rejects keys its schema does not
///   list (the API server prunes them, and strict field validation reports them);
/// - `x-kubernetes-int-or-string` admits an integer or a string; `x-kubernetes-list-type: set`
///   rejects duplicates.
///
/// Returns every error as "<JSON pointer of the value>: <message>".
pub fn validate(openapi_schema: &Value, instance: &Value) -> Result<(), Vec<String>> {
    let schema = to_json_schema(openapi_schema);
    let validator = jsonschema::draft4::new(&schema).map_err(|error| {
        vec![format!(
            "the translated schema is not valid JSON Schema: {error}"
        )]
    })?;
    let errors: Vec<String> = validator
        .iter_errors(instance)
        .map(|error| {
            let at = error.instance_path().to_string();
            format!("{}: {error}", if at.is_empty() { "/" } else { &at })
        })
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// The same schema in JSON Schema (draft-04, whose boolean `exclusiveMinimum` OpenAPI v3.0
/// shares), with the Kubernetes semantics spelled out as [`validate`] describes.
pub fn to_json_schema(node: &Value) -> Value {
    let Value::Object(map) = node else {
        return node.clone();
    };
    let flag = |key: &str| map.get(key) == Some(&Value::Bool(true));
    let nullable = flag("nullable");
    let preserve = flag("x-kubernetes-preserve-unknown-fields");
    let int_or_string = flag("x-kubernetes-int-or-string");

    let mut out = Map::new();
    for (key, value) in map {
        let translated = match key.as_str() {
            "nullable" | "example" | "externalDocs" | "type" => continue,
            k if k.starts_with("x-kubernetes-") => continue,
            "properties" => Value::Object(
                value
                    .as_object()
                    .into_iter()
                    .flatten()
                    .map(|(name, schema)| (name.clone(), to_json_schema(schema)))
                    .collect(),
            ),
            "items" | "additionalProperties" | "not" => to_json_schema(value),
            "allOf" | "anyOf" | "oneOf" => Value::Array(
                value
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(to_json_schema)
                    .collect(),
            ),
            "enum" => {
                let values: Vec<Value> = value
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter(|v| !v.is_null())
                    .cloned()
                    .collect();
                if values.is_empty() {
                    value.clone()
                } else {
                    Value::Array(values)
                }
            }
            _ => value.clone(),
        };
        out.insert(key.clone(), translated);
    }

    let mut types: Vec<Value> = if int_or_string {
        vec!["integer".into(), "string".into()]
    } else {
        map.get("type").cloned().into_iter().collect()
    };
    if !types.is_empty() {
        if nullable {
            types.push("null".into());
        }
        out.insert("type".into(), Value::Array(types));
    }
    let object = map.get("type").and_then(Value::as_str) == Some("object");
    if object && !preserve && !map.contains_key("additionalProperties") {
        out.insert("additionalProperties".into(), false.into());
    }
    if map.get("x-kubernetes-list-type").and_then(Value::as_str) == Some("set") {
        out.insert("uniqueItems".into(), true.into());
    }
    Value::Object(out)
}

/// Why the API server would refuse `schema` as a structural `openAPIV3Schema` (or as a node of
/// one, checked as if it were the root): empty when it accepts it.
pub fn structural_problems(schema: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    check_node(schema, "", Level::Root, &mut problems);
    problems
}

#[derive(Clone, Copy, PartialEq)]
enum Level {
    Root,
    Field,
    Item,
    /// Inside allOf/anyOf/oneOf/not: checks only, no skeleton.
    Junction,
}

const TYPES: &[&str] = &["object", "array", "string", "integer", "number", "boolean"];
const FORMATS: &[&str] = &[
    "bsonobjectid",
    "uri",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "cidr",
    "mac",
    "uuid",
    "uuid3",
    "uuid4",
    "uuid5",
    "isbn",
    "isbn10",
    "isbn13",
    "creditcard",
    "ssn",
    "hexcolor",
    "rgbcolor",
    "byte",
    "password",
    "date",
    "duration",
    "datetime",
    "date-time",
    "int32",
    "int64",
    "float",
    "double",
];
/// The fields of apiextensions.k8s.io/v1 JSONSchemaProps a structural schema may use.
const KEYWORDS: &[&str] = &[
    "description",
    "title",
    "type",
    "format",
    "nullable",
    "enum",
    "default",
    "example",
    "externalDocs",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "minItems",
    "maxItems",
    "minProperties",
    "maxProperties",
    "required",
    "items",
    "properties",
    "additionalProperties",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "x-kubernetes-preserve-unknown-fields",
    "x-kubernetes-int-or-string",
    "x-kubernetes-embedded-resource",
    "x-kubernetes-list-type",
    "x-kubernetes-list-map-keys",
    "x-kubernetes-map-type",
    "x-kubernetes-validations",
];
/// What a check inside a logical junction must not say: it would change the skeleton.
const SKELETON_ONLY: &[&str] = &[
    "description",
    "type",
    "default",
    "additionalProperties",
    "nullable",
    "x-kubernetes-preserve-unknown-fields",
    "x-kubernetes-int-or-string",
    "x-kubernetes-embedded-resource",
];

fn join(path: &str, child: &str) -> String {
    if path.is_empty() {
        child.to_owned()
    } else {
        format!("{path}.{child}")
    }
}

fn check_node(node: &Value, path: &str, level: Level, problems: &mut Vec<String>) {
    let here = if path.is_empty() { "<root>" } else { path };
    let Value::Object(map) = node else {
        problems.push(format!("{here}: a schema must be a map, not {node}"));
        return;
    };
    let mut problem = |text: String| problems.push(format!("{here}: {text}"));
    for key in map.keys() {
        if !KEYWORDS.contains(&key.as_str()) {
            problem(format!("{key} is not allowed in a CRD schema"));
        }
        if level == Level::Junction && SKELETON_ONLY.contains(&key.as_str()) {
            problem(format!("{key} is not allowed inside allOf/anyOf/oneOf/not"));
        }
    }
    let flag = |key: &str| match map.get(key) {
        None => Ok(false),
        Some(Value::Bool(value)) => Ok(*value),
        Some(other) => Err(format!("{key} must be true or false, not {other}")),
    };
    let preserve = flag("x-kubernetes-preserve-unknown-fields").unwrap_or_else(|e| {
        problem(e);
        false
    });
    if map.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(false)) {
        problem("x-kubernetes-preserve-unknown-fields must be true or left out".into());
    }
    let int_or_string = flag("x-kubernetes-int-or-string").unwrap_or_else(|e| {
        problem(e);
        false
    });
    match flag("nullable") {
        Ok(true) if level == Level::Root => problem("nullable cannot be true at the root".into()),
        Ok(_) => {}
        Err(e) => problem(e),
    }
    let declared = map.contains_key("type");
    let ty = match map.get("type") {
        None => None,
        Some(Value::String(name)) if TYPES.contains(&name.as_str()) => Some(name.as_str()),
        Some(other) => {
            problem(format!("type must be one of {TYPES:?}, not {other}"));
            None
        }
    };
    if int_or_string && ty.is_some() {
        problem("type must be left out when x-kubernetes-int-or-string is true".into());
    }
    if !declared && !int_or_string {
        match level {
            Level::Root => problem("type must be set at the root".into()),
            Level::Field | Level::Item if !preserve => problem(
                "type must be set unless x-kubernetes-preserve-unknown-fields or x-kubernetes-int-or-string is true".into(),
            ),
            _ => {}
        }
    }
    if let Some(format) = map.get("format")
        && !format.as_str().is_some_and(|f| FORMATS.contains(&f))
    {
        problem(format!("format {format} is not one the API server knows"));
    }
    for key in ["exclusiveMinimum", "exclusiveMaximum"] {
        if map.get(key).is_some_and(|v| !v.is_boolean()) {
            problem(format!("{key} must be true or false in OpenAPI v3.0"));
        }
    }
    if map.get("uniqueItems") == Some(&Value::Bool(true)) {
        problem("uniqueItems cannot be true".into());
    }
    if let Some(values) = map.get("enum")
        && values.as_array().is_none_or(Vec::is_empty)
    {
        problem(format!("enum must be a non-empty list, not {values}"));
    }
    if let Some(required) = map.get("required")
        && !required
            .as_array()
            .is_some_and(|names| names.iter().all(Value::is_string))
    {
        problem(format!("required must be a list of names, not {required}"));
    }
    let child_level = |level: Level, normal: Level| {
        if level == Level::Junction {
            Level::Junction
        } else {
            normal
        }
    };
    if let Some(properties) = map.get("properties") {
        match properties {
            Value::Object(properties) => {
                if map.contains_key("additionalProperties") {
                    problem("properties and additionalProperties cannot both be set".into());
                }
                for (name, schema) in properties {
                    check_node(
                        schema,
                        &join(path, &format!("properties.{name}")),
                        child_level(level, Level::Field),
                        problems,
                    );
                }
            }
            other => problem(format!("properties must be a map, not {other}")),
        }
    }
    if let Some(additional) = map.get("additionalProperties") {
        match additional {
            Value::Object(_) => check_node(
                additional,
                &join(path, "additionalProperties"),
                child_level(level, Level::Field),
                problems,
            ),
            other => problems.push(format!(
                "{here}: additionalProperties must be a schema, not {other}"
            )),
        }
    }
    match (ty, map.get("items")) {
        (_, Some(items @ Value::Object(_))) => check_node(
            items,
            &join(path, "items"),
            child_level(level, Level::Item),
            problems,
        ),
        (_, Some(other)) => problems.push(format!("{here}: items must be one schema, not {other}")),
        (Some("array"), None) if level != Level::Junction => {
            problems.push(format!("{here}: items must be set for type array"))
        }
        _ => {}
    }
    for junction in ["allOf", "anyOf", "oneOf"] {
        if let Some(branches) = map.get(junction) {
            for (i, branch) in branches.as_array().into_iter().flatten().enumerate() {
                check_node(
                    branch,
                    &join(path, &format!("{junction}[{i}]")),
                    Level::Junction,
                    problems,
                );
            }
        }
    }
    if let Some(not) = map.get("not") {
        check_node(not, &join(path, "not"), Level::Junction, problems);
    }
}
