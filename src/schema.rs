//! CRD schemas from a chart's values: the structural `openAPIV3Schema` of a custom resource's
//! `spec`, which the helm-operator hands to Helm as the release's values.
//!
//! The API server only accepts *structural* schemas (every node typed, no `$ref`, no type arrays,
//! `oneOf`/`anyOf`/`allOf`/`not` only as extra checks on an already typed skeleton), so a chart's
//! `values.schema.json` is translated rather than copied ([`from_values_schema`]); a chart
//! without one gets a schema inferred from its `values.yaml` ([`infer_from_values`]).
//!
//! Both follow what Helm does with a custom resource's `spec`: it is merged over the chart's
//! `values.yaml` and only the merged result is checked against `values.schema.json`. Hence:
//! - keys the defaults do not show are kept (`x-kubernetes-preserve-unknown-fields`) unless the
//!   chart's schema forbids them with `additionalProperties: false`;
//! - any key merged over the defaults may be `null` (Helm then drops the default), so those
//!   keys are `nullable`;
//! - `required` is kept only inside list items: a list replaces the default wholesale, while a
//!   map key missing from the custom resource is filled in from `values.yaml`;
//! - `default`s are left out: Helm never applies a schema default, the API server would, and a
//!   schema default that differs from `values.yaml` would silently change the release. (The
//!   CRD template gives `spec` itself `default: {}`, so that a custom resource without `spec`
//!   gets exactly the chart's `values.yaml`.)

mod convert;
mod infer;
mod node;

/// The schema of a custom resource's `spec`.
#[derive(Debug, Clone, PartialEq)]
pub struct SpecSchema {
    /// The openAPIV3Schema of `.spec` (type: object at the root), as JSON.
    pub schema: serde_json::Value,
    /// Places that had to be relaxed, e.g. "spec.ingress.tls: oneOf cannot be expressed in a
    /// structural schema; kept as x-kubernetes-preserve-unknown-fields", for warnings and a
    /// comment in the CRD.
    pub relaxed: Vec<String>,
}

/// Translates a chart's `values.schema.json` (draft-04 to 2020-12) into a structural schema.
/// Whatever cannot be expressed is relaxed at the place it occurs and listed in
/// [`SpecSchema::relaxed`]; nothing is dropped silently except annotations (`$comment`,
/// `examples`, ...) and `default`s (see the module documentation).
pub fn from_values_schema(values_schema: &serde_json::Value) -> SpecSchema {
    convert::convert(values_schema)
}

/// Infers a structural schema from a chart's parsed `values.yaml`: scalars get their type,
/// lists the type their items share, and every object stays open to keys the defaults do not
/// show.
pub fn infer_from_values(values: &serde_json::Value) -> SpecSchema {
    infer::infer(values)
}

/// The place of a node, as users write it: `spec.ingress.hosts[*].host`, `spec.labels.*`.
fn child_path(parent: &str, key: &str) -> String {
    let plain = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if plain {
        format!("{parent}.{key}")
    } else {
        format!("{parent}[{}]", serde_json::Value::from(key))
    }
}
