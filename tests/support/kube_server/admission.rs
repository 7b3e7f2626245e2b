//! Admission webhooks, as the API server calls them on a write: the mutating webhooks first,
//! one after the other in the order of [`super::webhook_config::hooks`], each seeing the
//! object as the one before left it, then the validating webhooks, all at once.
//!
//! Each call is an AdmissionReview v1 (`uid`, `kind`, `resource`, `subResource`,
//! `requestKind`, `requestResource`, `requestSubResource`, `name`, `namespace`, `operation`,
//! `userInfo`, `object`, `oldObject`, `dryRun`, `options`), in the version the rule matched
//! (another version of a custom resource through [`super::conversion`] with `matchPolicy:
//! Equivalent`). The answer must be an `admission.k8s.io/v1` AdmissionReview whose
//! `response.uid` is the request's; a mutating webhook's `patch` (base64 JSON Patch, with
//! `patchType: JSONPatch`) is applied, a validating webhook may not send one. `allowed: false`
//! fails the request with the webhook's `result` (code at least 400, 400 by default; message
//! `admission webhook "NAME" denied the request: MESSAGE`), as Kubernetes 1.33 does; the first
//! denial in order wins. `warnings` go back to the client as `Warning` headers, denied or not.
//! A call that fails (no endpoint, TLS, `timeoutSeconds`, a malformed answer) fails the request
//! with 500 `failed calling webhook "NAME": ...` under `failurePolicy: Fail` and is skipped
//! under `Ignore`. A dry run (`dryRun=All`) that matches a webhook whose `sideEffects` is not
//! `None` or `NoneOnDryRun` is refused with 400, the webhook not called.
//!
//! Approximated: no reinvocation (`reinvocationPolicy: IfNeeded`), `matchConditions` are not
//! evaluated, the user is always the test user in `system:authenticated`, and a mutated
//! object is not defaulted again.

use std::sync::atomic::{AtomicU64, Ordering};

use base64::Engine;
use futures::future::join_all;
use serde_json::{Value, json};

use super::conversion::{self, Crd};
use super::json_patch;
use super::resources::ResourceType;
use super::store::ApiError;
use super::webhook_client::{self, CallError, ClientConfig, Shared, lock};
use super::webhook_config::{self, Hook, MUTATING, Request, VALIDATING};

/// What is being admitted.
#[derive(Debug, Clone)]
pub struct Attributes<'a> {
    pub t: &'a ResourceType,
    pub subresource: Option<&'a str>,
    /// CREATE, UPDATE or DELETE.
    pub operation: &'static str,
    pub name: &'a str,
    pub namespace: Option<&'a str>,
    pub dry_run: bool,
    /// CreateOptions, UpdateOptions, PatchOptions or DeleteOptions.
    pub options: Value,
}

impl Attributes<'_> {
    fn request(&self) -> Request<'_> {
        Request {
            t: self.t,
            subresource: self.subresource,
            operation: self.operation,
        }
    }
}

/// A review uid, unique in this process.
pub fn new_uid() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    format!(
        "{nanos:08x}-0000-4000-8000-{:012x}",
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// Whether any webhook's rules could match a request of this type and operation, before the
/// object is known: requests that no webhook concerns take the quick path.
pub fn concerned(
    state: &super::store::State,
    t: &ResourceType,
    subresource: Option<&str>,
    operations: &[&str],
) -> bool {
    if webhook_config::exempt(t) {
        return false;
    }
    let versions = Crd::of(state, t)
        .map(|c| c.versions)
        .unwrap_or_else(|| vec![t.version.clone()]);
    [MUTATING, VALIDATING]
        .iter()
        .flat_map(|plural| webhook_config::hooks(state, plural))
        .any(|hook| {
            operations.iter().any(|operation| {
                let request = Request {
                    t,
                    subresource,
                    operation,
                };
                webhook_config::version_for(&hook, &request, &versions).is_some()
            })
        })
}

/// What the admission chain needs from the store, read at once.
struct Snapshot {
    mutating: Vec<Hook>,
    validating: Vec<Hook>,
    namespace_labels: Option<Value>,
    crd: Option<Crd>,
    user: Value,
}

/// Runs the chain; returns the object as the mutating webhooks left it (in the request's
/// version), or the first denial or failure. `warnings` gets every webhook's warnings.
pub async fn admit(
    state: &Shared,
    attributes: &Attributes<'_>,
    object: Option<Value>,
    old: Option<&Value>,
    warnings: &mut Vec<String>,
) -> Result<Option<Value>, ApiError> {
    if webhook_config::exempt(attributes.t) {
        return Ok(object);
    }
    let snapshot = {
        let s = lock(state);
        Snapshot {
            mutating: webhook_config::hooks(&s, MUTATING),
            validating: webhook_config::hooks(&s, VALIDATING),
            namespace_labels: attributes
                .namespace
                .map(|ns| webhook_config::namespace_labels(&s, ns)),
            crd: Crd::of(&s, attributes.t),
            user: json!({"username": s.scripts.user, "groups": ["system:authenticated"]}),
        }
    };
    let mut object = object;
    for hook in &snapshot.mutating {
        let Some(call) = prepare(state, &snapshot, hook, attributes, object.as_ref(), old).await?
        else {
            continue;
        };
        let version = call.version.clone();
        match call.run(state, &snapshot.user, attributes).await {
            Ok(answer) => {
                warnings.extend(answer.warnings.iter().cloned());
                if !answer.allowed {
                    return Err(denied(&hook.name, &answer.result));
                }
                if let Some(patch) = answer.patch {
                    object = Some(
                        patched(
                            state,
                            &snapshot,
                            hook,
                            attributes,
                            call.object,
                            &patch,
                            &version,
                        )
                        .await?,
                    );
                }
            }
            Err(Failure::Calling(reason)) if hook.ignores_failures() => {
                // Failing open, as the API server does with failurePolicy: Ignore.
                let _ = reason;
            }
            Err(Failure::Calling(reason)) => return Err(calling_failed(&hook.name, &reason)),
            Err(Failure::Fatal(error)) => return Err(error),
        }
    }

    let mut calls = Vec::new();
    for hook in &snapshot.validating {
        if let Some(call) =
            prepare(state, &snapshot, hook, attributes, object.as_ref(), old).await?
        {
            calls.push((hook, call));
        }
    }
    let answers = join_all(
        calls
            .iter()
            .map(|(_, call)| call.run(state, &snapshot.user, attributes)),
    )
    .await;
    let mut verdict = Ok(());
    for ((hook, _), answer) in calls.iter().zip(answers) {
        let outcome = match answer {
            Ok(answer) => {
                warnings.extend(answer.warnings.iter().cloned());
                if answer.allowed {
                    Ok(())
                } else {
                    Err(denied(&hook.name, &answer.result))
                }
            }
            Err(Failure::Calling(_)) if hook.ignores_failures() => Ok(()),
            Err(Failure::Calling(reason)) => Err(calling_failed(&hook.name, &reason)),
            Err(Failure::Fatal(error)) => Err(error),
        };
        if verdict.is_ok() {
            verdict = outcome;
        }
    }
    verdict.map(|()| object)
}

/// One call to make: the webhook, and the objects in the version it is called with.
struct Call<'a> {
    hook: &'a Hook,
    version: String,
    object: Option<Value>,
    old: Option<Value>,
}

/// The call of `hook` for this request, or `None` when its rules or selectors do not match.
async fn prepare<'a>(
    state: &Shared,
    snapshot: &Snapshot,
    hook: &'a Hook,
    attributes: &Attributes<'_>,
    object: Option<&Value>,
    old: Option<&Value>,
) -> Result<Option<Call<'a>>, ApiError> {
    let request = attributes.request();
    let versions = snapshot
        .crd
        .as_ref()
        .map(|c| c.versions.clone())
        .unwrap_or_else(|| vec![attributes.t.version.clone()]);
    let Some(version) = webhook_config::version_for(hook, &request, &versions) else {
        return Ok(None);
    };
    if !webhook_config::selects(
        hook,
        &request,
        snapshot.namespace_labels.as_ref(),
        object,
        old,
    ) {
        return Ok(None);
    }
    if attributes.dry_run && !hook.allows_dry_run() {
        return Err(ApiError::new(
            400,
            "BadRequest",
            format!(
                "admission webhook \"{}\" does not support dry run",
                hook.name
            ),
        ));
    }
    let in_version = |value: Option<&Value>| {
        let value = value.cloned();
        let version = version.clone();
        async move {
            match (value, &snapshot.crd) {
                (Some(v), Some(crd)) if version != attributes.t.version => {
                    conversion::convert(state, crd, v, &version).await.map(Some)
                }
                (value, _) => Ok(value),
            }
        }
    };
    let internal = |e: ApiError| internal_error(e.message);
    Ok(Some(Call {
        hook,
        object: in_version(object).await.map_err(internal)?,
        old: in_version(old).await.map_err(internal)?,
        version,
    }))
}

/// A webhook's answer, checked.
struct Answer {
    allowed: bool,
    result: Value,
    /// The JSON Patch operations of a mutating webhook.
    patch: Option<Value>,
    warnings: Vec<String>,
}

enum Failure {
    /// Subject to `failurePolicy`: the reason after `failed calling webhook "NAME": `.
    Calling(String),
    /// Fails the request whatever the policy.
    Fatal(ApiError),
}

impl Call<'_> {
    async fn run(
        &self,
        state: &Shared,
        user: &Value,
        attributes: &Attributes<'_>,
    ) -> Result<Answer, Failure> {
        let hook = self.hook;
        let config = ClientConfig::parse(&hook.spec["clientConfig"])
            .map_err(|e| Failure::Calling(format!("could not get REST client: {e}")))?;
        let uid = new_uid();
        let t = attributes.t;
        let kind = |version: &str| json!({"group": t.group, "version": version, "kind": t.kind});
        let resource =
            |version: &str| json!({"group": t.group, "version": version, "resource": t.plural});
        let mut request = json!({
            "uid": uid,
            "kind": kind(&self.version),
            "resource": resource(&self.version),
            "requestKind": kind(&t.version),
            "requestResource": resource(&t.version),
            "operation": attributes.operation,
            "userInfo": user,
            "object": self.object.clone().unwrap_or(Value::Null),
            "oldObject": self.old.clone().unwrap_or(Value::Null),
            "dryRun": attributes.dry_run,
            "options": attributes.options,
        });
        if let Some(sub) = attributes.subresource {
            request["subResource"] = json!(sub);
            request["requestSubResource"] = json!(sub);
        }
        if !attributes.name.is_empty() {
            request["name"] = json!(attributes.name);
        }
        if let Some(ns) = attributes.namespace {
            request["namespace"] = json!(ns);
        }
        let review = json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                            "request": request});
        let answer = webhook_client::call(state, &config, &review, hook.timeout())
            .await
            .map_err(|e| {
                Failure::Calling(match e {
                    CallError::Client(_) => e.to_string(),
                    CallError::Call(_) => format!("failed to call webhook: {e}"),
                })
            })?;
        read_answer(&answer, &uid, hook.mutating)
    }
}

/// Checks an AdmissionReview answer as the API server does.
fn read_answer(answer: &Value, uid: &str, mutating: bool) -> Result<Answer, Failure> {
    let invalid = |e: String| Failure::Calling(format!("received invalid webhook response: {e}"));
    let api_version = answer["apiVersion"].as_str().unwrap_or_default();
    let kind = answer["kind"].as_str().unwrap_or_default();
    let response = answer
        .get("response")
        .filter(|r| r.is_object())
        .ok_or_else(|| invalid("webhook response was absent".into()))?;
    let got = response["uid"].as_str().unwrap_or_default();
    if got != uid {
        return Err(invalid(format!(
            "expected response.uid=\"{uid}\", got \"{got}\""
        )));
    }
    if api_version != "admission.k8s.io/v1" || kind != "AdmissionReview" {
        return Err(invalid(format!(
            "expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got {api_version}, Kind={kind}"
        )));
    }
    let patch_text = response["patch"].as_str().filter(|p| !p.is_empty());
    let patch_type = response.get("patchType").and_then(Value::as_str);
    if !mutating {
        if patch_text.is_some() {
            return Err(invalid(
                "validating webhooks may not return response.patch".into(),
            ));
        }
        if patch_type.is_some() {
            return Err(invalid(
                "validating webhooks may not return response.patchType".into(),
            ));
        }
    }
    match (patch_text, patch_type) {
        (Some(_), None) => {
            return Err(invalid(
                "webhook returned response.patch but not response.patchType".into(),
            ));
        }
        (None, Some(_)) => {
            return Err(invalid(
                "webhook returned response.patchType but not response.patch".into(),
            ));
        }
        _ => {}
    }
    let allowed = response["allowed"] == true;
    let patch = match (patch_text, allowed) {
        (Some(text), true) => {
            if patch_type != Some("JSONPatch") {
                return Err(Failure::Calling(format!(
                    "unsupported patch type \"{}\"",
                    patch_type.unwrap_or_default()
                )));
            }
            let undecodable = |e: String| {
                Failure::Calling(format!(
                    "received undecodable patch in webhook response: {e}"
                ))
            };
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(text)
                .map_err(|e| undecodable(e.to_string()))?;
            let operations: Value =
                serde_json::from_slice(&bytes).map_err(|e| undecodable(e.to_string()))?;
            if !operations.is_array() {
                return Err(undecodable(
                    "a JSON patch must be a list of operations".into(),
                ));
            }
            Some(operations).filter(|p| p.as_array().is_some_and(|a| !a.is_empty()))
        }
        _ => None,
    };
    Ok(Answer {
        allowed,
        result: response.get("status").cloned().unwrap_or(Value::Null),
        patch,
        warnings: response["warnings"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(String::from)
            .collect(),
    })
}

/// The object after a mutating webhook's patch, back in the request's version.
async fn patched(
    state: &Shared,
    snapshot: &Snapshot,
    hook: &Hook,
    attributes: &Attributes<'_>,
    object: Option<Value>,
    patch: &Value,
    version: &str,
) -> Result<Value, ApiError> {
    let Some(object) = object else {
        return Err(internal_error(format!(
            "admission webhook \"{}\" attempted to modify the object, which is not supported for this operation",
            hook.name
        )));
    };
    let mutated = json_patch::apply(&object, patch).map_err(internal_error)?;
    match &snapshot.crd {
        Some(crd) if version != attributes.t.version => {
            conversion::convert(state, crd, mutated, &attributes.t.version)
                .await
                .map_err(|e| internal_error(e.message))
        }
        _ => Ok(mutated),
    }
}

/// `apierrors.NewInternalError`: 500, reason InternalError, the message as its cause.
fn internal_error(message: String) -> ApiError {
    let mut error = ApiError::new(
        500,
        "InternalError",
        format!("Internal error occurred: {message}"),
    );
    error.details = json!({"causes": [{"message": message}]});
    error
}

fn calling_failed(name: &str, reason: &str) -> ApiError {
    internal_error(format!("failed calling webhook \"{name}\": {reason}"))
}

/// A webhook's `reason` as a `StatusReason` of Kubernetes; another text is kept too (leaked:
/// a test server answers few denials).
fn status_reason(reason: &str) -> &'static str {
    const KNOWN: &[&str] = &[
        "Unauthorized",
        "Forbidden",
        "NotFound",
        "AlreadyExists",
        "Conflict",
        "Gone",
        "Invalid",
        "ServerTimeout",
        "Timeout",
        "TooManyRequests",
        "BadRequest",
        "MethodNotAllowed",
        "NotAcceptable",
        "RequestEntityTooLarge",
        "UnsupportedMediaType",
        "InternalError",
        "Expired",
        "ServiceUnavailable",
    ];
    match KNOWN.iter().find(|k| **k == reason) {
        Some(known) => known,
        None if reason.is_empty() => "",
        None => Box::leak(reason.to_string().into_boxed_str()),
    }
}

/// A denial, as Kubernetes 1.33 turns a webhook's `status` into the client's error.
fn denied(name: &str, result: &Value) -> ApiError {
    let code = result["code"]
        .as_u64()
        .and_then(|c| u16::try_from(c).ok())
        .filter(|c| *c >= 400)
        .unwrap_or(400);
    let message = result["message"].as_str().unwrap_or_default();
    let reason = result["reason"].as_str().unwrap_or_default();
    let by = format!("admission webhook \"{name}\" denied the request");
    let text = if !message.is_empty() {
        format!("{by}: {message}")
    } else if !reason.is_empty() {
        format!("{by}: {reason}")
    } else {
        format!("{by} without explanation")
    };
    let mut error = ApiError::new(code, status_reason(reason), text);
    if let Some(details) = result.get("details").filter(|d| d.is_object()) {
        error.details = details.clone();
    }
    error
}
