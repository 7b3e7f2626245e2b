//! Conversion between the versions of a custom resource, as the apiextensions API server does
//! it. With `spec.conversion.strategy: None` (the default) only `apiVersion` changes. With
//! `Webhook`, custom resources are stored in the CRD's storage version, and every object a
//! client reads or writes through another version goes through a ConversionReview v1 to the
//! CRD's `spec.conversion.webhook.clientConfig` (see [`super::webhook_client`]): the response's
//! `uid` must be the request's, `result.status` other than `Success` fails with its message,
//! the objects must come back as many, in the desired version, with the same kind, name,
//! namespace and uid; the rest of their metadata is put back from the original but for labels
//! and annotations, which a webhook may change. A failure is a 500 whose message is the API
//! server's (`conversion webhook for GROUP/VERSION, Kind=KIND failed: ...`).
//!
//! Approximated: only ConversionReview v1 is spoken (a CRD that lists only `v1beta1` in
//! `conversionReviewVersions` fails every conversion); a conversion call waits at most 30
//! seconds.

use std::time::Duration;

use serde_json::{Value, json};

use super::resources::ResourceType;
use super::store::{ApiError, Key, State};
use super::webhook_client::{self, ClientConfig, Shared};

const TIMEOUT: Duration = Duration::from_secs(30);

/// What a custom resource's CRD says about its versions.
#[derive(Debug, Clone)]
pub struct Crd {
    pub group: String,
    pub kind: String,
    pub plural: String,
    pub storage_version: String,
    /// Served versions, in the CRD's order.
    pub versions: Vec<String>,
    /// `spec.conversion.webhook`, with strategy `Webhook`.
    webhook: Option<Value>,
}

impl Crd {
    /// The CRD of a custom resource type.
    pub fn of(state: &State, t: &ResourceType) -> Option<Crd> {
        if !t.custom {
            return None;
        }
        let key = Key {
            group: "apiextensions.k8s.io".into(),
            plural: "customresourcedefinitions".into(),
            namespace: String::new(),
            name: format!("{}.{}", t.plural, t.group),
        };
        let spec = &state.object(&key)?["spec"];
        let versions = spec["versions"].as_array().cloned().unwrap_or_default();
        let name = |v: &Value| v["name"].as_str().unwrap_or_default().to_string();
        Some(Crd {
            group: t.group.clone(),
            kind: t.kind.clone(),
            plural: t.plural.clone(),
            storage_version: versions
                .iter()
                .find(|v| v["storage"] == true)
                .map(name)
                .unwrap_or_else(|| t.version.clone()),
            versions: versions
                .iter()
                .filter(|v| v["served"] != false)
                .map(name)
                .collect(),
            webhook: (spec["conversion"]["strategy"] == "Webhook")
                .then(|| spec["conversion"]["webhook"].clone()),
        })
    }

    /// Whether conversion calls a webhook.
    pub fn by_webhook(&self) -> bool {
        self.webhook.is_some()
    }

    pub fn api_version(&self, version: &str) -> String {
        format!("{}/{version}", self.group)
    }

    /// `group/version, Kind=Kind`, as Go prints a GroupVersionKind.
    fn gvk(&self, api_version: &str) -> String {
        format!("{api_version}, Kind={}", self.kind)
    }
}

fn failure(message: String) -> ApiError {
    // Conversion errors reach clients as plain errors: code 500, no reason.
    ApiError::new(500, "", message)
}

/// Converts `object` into `version`; see [`convert_all`].
pub async fn convert(
    state: &Shared,
    crd: &Crd,
    object: Value,
    version: &str,
) -> Result<Value, ApiError> {
    let mut converted = convert_all(state, crd, vec![object], version).await?;
    Ok(converted.pop().unwrap_or(Value::Null))
}

/// Converts every object not already in `version` into it, in one review; objects already
/// there are left alone.
pub async fn convert_all(
    state: &Shared,
    crd: &Crd,
    mut objects: Vec<Value>,
    version: &str,
) -> Result<Vec<Value>, ApiError> {
    let desired = crd.api_version(version);
    let pending: Vec<usize> = (0..objects.len())
        .filter(|i| objects[*i]["apiVersion"] != desired.as_str())
        .collect();
    if pending.is_empty() {
        return Ok(objects);
    }
    let Some(webhook) = &crd.webhook else {
        for i in pending {
            objects[i]["apiVersion"] = Value::String(desired.clone());
        }
        return Ok(objects);
    };
    let list = objects.len() > 1;
    let from = objects[pending[0]]["apiVersion"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let gvk = if list {
        format!("{from}, Kind={}List", crd.kind)
    } else {
        crd.gvk(&from)
    };
    let failed = |reason: String| failure(format!("conversion webhook for {gvk} failed: {reason}"));
    let reviews: Vec<&str> = webhook["conversionReviewVersions"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    if !reviews.contains(&"v1") {
        return Err(failed(
            "the test server speaks ConversionReview v1 only, and conversionReviewVersions does not list it"
                .into(),
        ));
    }
    let config = ClientConfig::parse(&webhook["clientConfig"]).map_err(failed)?;
    let uid = super::admission::new_uid();
    let originals: Vec<Value> = pending.iter().map(|i| objects[*i].clone()).collect();
    let review = json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "ConversionReview",
        "request": {"uid": uid, "desiredAPIVersion": desired, "objects": originals},
    });
    let answer = webhook_client::call(state, &config, &review, TIMEOUT)
        .await
        .map_err(|e| failed(e.to_string()))?;
    let converted = read_answer(&answer, &uid).map_err(failed)?;
    if converted.len() != originals.len() {
        return Err(failure(format!(
            "conversion webhook for {gvk} returned {} objects, expected {}",
            converted.len(),
            originals.len()
        )));
    }
    for (n, (i, mut object)) in pending.into_iter().zip(converted).enumerate() {
        let original = &objects[i];
        let invalid = |what: &str, e: String| {
            failure(if list {
                format!("conversion webhook for {gvk} returned invalid {what} at index {n}: {e}")
            } else {
                format!("conversion webhook for {gvk} returned invalid {what}: {e}")
            })
        };
        check_converted(original, &object, &desired).map_err(|e| invalid("converted object", e))?;
        restore_metadata(original, &mut object).map_err(|e| invalid("metadata", e))?;
        objects[i] = object;
    }
    Ok(objects)
}

/// The converted objects of a ConversionReview v1 answer.
fn read_answer(answer: &Value, uid: &str) -> Result<Vec<Value>, String> {
    let api_version = answer["apiVersion"].as_str().unwrap_or_default();
    let kind = answer["kind"].as_str().unwrap_or_default();
    if api_version != "apiextensions.k8s.io/v1" || kind != "ConversionReview" {
        return Err(format!(
            "expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got {api_version}, Kind={kind}"
        ));
    }
    let response = answer
        .get("response")
        .filter(|r| r.is_object())
        .ok_or("no response provided")?;
    let got = response["uid"].as_str().unwrap_or_default();
    if got != uid {
        return Err(format!("expected response.uid=\"{uid}\", got \"{got}\""));
    }
    let status = response["result"]["status"].as_str().unwrap_or_default();
    if status != "Success" {
        return Err(match response["result"]["message"].as_str() {
            Some(message) if !message.is_empty() => message.to_string(),
            _ => format!("response.result.status was '{status}', not 'Success'"),
        });
    }
    Ok(response["convertedObjects"]
        .as_array()
        .cloned()
        .unwrap_or_default())
}

fn check_converted(original: &Value, converted: &Value, desired: &str) -> Result<(), String> {
    let got = converted["apiVersion"].as_str().unwrap_or_default();
    if got != desired {
        return Err(format!(
            "invalid groupVersion (expected {desired}, received {got})"
        ));
    }
    let same = |pointer: &str, what: &str| {
        let a = original
            .pointer(pointer)
            .and_then(Value::as_str)
            .unwrap_or_default();
        let b = converted
            .pointer(pointer)
            .and_then(Value::as_str)
            .unwrap_or_default();
        if a == b {
            Ok(())
        } else {
            Err(format!("must have the same {what}: {a} != {b}"))
        }
    };
    same("/kind", "kind")?;
    same("/metadata/name", "name")?;
    same("/metadata/namespace", "namespace")?;
    same("/metadata/uid", "UID")
}

/// The original's metadata, with the converted object's labels and annotations.
fn restore_metadata(original: &Value, converted: &mut Value) -> Result<(), String> {
    let answered = converted
        .get("metadata")
        .cloned()
        .ok_or("missing metadata in converted object")?;
    let mut metadata = original.get("metadata").cloned().unwrap_or(json!({}));
    for field in ["labels", "annotations"] {
        match answered.get(field) {
            None | Some(Value::Null) => {
                if let Some(m) = metadata.as_object_mut() {
                    m.remove(field);
                }
            }
            Some(Value::Object(map)) => {
                if let Some((key, value)) = map.iter().find(|(_, v)| !v.is_string()) {
                    return Err(format!(
                        "metadata.{field}[{key}] must be a string, but is {value}"
                    ));
                }
                metadata[field] = Value::Object(map.clone());
            }
            Some(other) => {
                return Err(format!(
                    "invalid metadata.{field} type, expected map[string]string, got {other}"
                ));
            }
        }
    }
    converted["metadata"] = metadata;
    Ok(())
}
