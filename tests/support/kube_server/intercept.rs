//! The path of a request that something outside the store must see: admission webhooks
//! ([`super::admission`]) on a write they concern, and CRD conversion ([`super::conversion`])
//! for a custom resource whose CRD converts by webhook. Requests that need neither are run at
//! once under the store's lock by [`super::http`]; these wait for webhooks, so the lock is let
//! go while one is called.
//!
//! A write runs as the API server runs it: the object stored now is read (and converted into
//! the request's version); the request is run on it as a dry run, which gives the object the
//! write would store; the mutating webhooks change it and the validating webhooks judge it;
//! it is converted into the storage version and written over the object read at first. If
//! another write came in between, all of it is done again, as the API server retries an
//! update; the answer is the stored object in the request's version. A DELETE is admitted
//! with the object as `oldObject` before it is deleted.
//!
//! Approximated: a CREATE of a name that exists fails before the webhooks are called (the API
//! server calls them first); a deletecollection is admitted object by object before any is
//! deleted, where the API server admits and deletes each in turn.

use serde_json::{Value, json};

use super::admission::{self, Attributes};
use super::conversion::{self, Crd};
use super::operation::Operation;
use super::resources::ResourceType;
use super::store::{ApiError, Key, PatchKind, Reply, State, Writer, present};
use super::webhook_client::{Shared, lock};

/// How often a write is tried again when another one came in between.
const ATTEMPTS: usize = 8;

/// A request for the slow path.
#[derive(Debug, Clone)]
pub struct Job {
    pub t: ResourceType,
    pub namespace: Option<String>,
    pub name: String,
    pub operation: Operation,
    pub manager: String,
    pub dry_run: bool,
    pub subresource: Option<String>,
}

/// The result, and the webhooks' warnings for the `Warning` headers.
pub struct Answer {
    pub result: Reply,
    pub warnings: Vec<String>,
}

/// Whether the request needs this path.
pub fn needed(
    state: &State,
    t: &ResourceType,
    operation: &Operation,
    subresource: Option<&str>,
) -> bool {
    if converting(state, t).is_some() {
        return true;
    }
    let operations: &[&str] = match operation {
        Operation::Create(_) => &["CREATE"],
        Operation::Update(_) => &["UPDATE"],
        // An apply or a patch of a missing object creates it.
        Operation::Patch(..) => &["UPDATE", "CREATE"],
        Operation::Delete(_) | Operation::DeleteCollection { .. } => &["DELETE"],
        Operation::Get | Operation::List { .. } => return false,
    };
    admission::concerned(state, t, subresource, operations)
}

/// The CRD of `t` when it converts by webhook.
pub fn converting(state: &State, t: &ResourceType) -> Option<Crd> {
    Crd::of(state, t).filter(Crd::by_webhook)
}

pub async fn run(job: Job, state: Shared) -> Answer {
    let mut warnings = Vec::new();
    let result = match &job.operation {
        Operation::Get | Operation::List { .. } => read(&job, &state).await,
        Operation::Delete(_) => delete(&job, &state, &mut warnings).await,
        Operation::DeleteCollection { .. } => delete_collection(&job, &state, &mut warnings).await,
        Operation::Create(_) | Operation::Update(_) | Operation::Patch(..) => {
            write(&job, &state, &mut warnings).await
        }
    };
    Answer { result, warnings }
}

/// `object` in `version`, when `crd` converts; as it is otherwise.
async fn in_version(
    state: &Shared,
    crd: Option<&Crd>,
    object: Value,
    version: &str,
) -> Result<Value, ApiError> {
    match crd {
        Some(crd) => conversion::convert(state, crd, object, version).await,
        None => Ok(object),
    }
}

async fn read(job: &Job, state: &Shared) -> Reply {
    let t = &job.t;
    let ns = job.namespace.as_deref();
    match &job.operation {
        Operation::List { labels, fields } => {
            let (crd, items, mut list) = {
                let s = lock(state);
                let items = s.matching(t, ns, labels.as_deref(), fields.as_deref())?;
                (converting(&s, t), items, s.list_of(t, Vec::new()))
            };
            let items = match &crd {
                Some(crd) => conversion::convert_all(state, crd, items, &t.version).await?,
                None => items,
            };
            list["items"] = Value::Array(items.into_iter().map(|o| present(t, o)).collect());
            Ok((200, list))
        }
        _ => {
            let (crd, stored) = {
                let mut s = lock(state);
                s.get(t, ns, &job.name)?;
                let stored = s.object(&Key::new(t, ns, &job.name)).cloned();
                (converting(&s, t), stored.unwrap_or(Value::Null))
            };
            let object = in_version(state, crd.as_ref(), stored, &t.version).await?;
            Ok((200, present(t, object)))
        }
    }
}

/// The resourceVersion of what is stored at `key` (`None` when nothing is).
fn stored_version(state: &State, key: &Key) -> Option<Value> {
    state
        .object(key)
        .map(|o| o["metadata"]["resourceVersion"].clone())
}

fn name_of(object: &Value) -> String {
    object
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

async fn write(job: &Job, state: &Shared, warnings: &mut Vec<String>) -> Reply {
    let t = &job.t;
    let ns = job.namespace.as_deref();
    let writer = |dry_run| Writer {
        manager: &job.manager,
        dry_run,
        subresource: job.subresource.as_deref(),
    };
    let name = match &job.operation {
        Operation::Create(body) => name_of(body),
        _ => job.name.clone(),
    };
    // A create by generateName has no key until its dry run names it.
    let key = (!name.is_empty()).then(|| Key::new(t, ns, &name));
    for _ in 0..ATTEMPTS {
        let (crd, storage_type, old) = {
            let s = lock(state);
            let crd = converting(&s, t);
            let storage_type = crd
                .as_ref()
                .and_then(|c| s.find_type(&t.group, &c.storage_version, &t.plural))
                .unwrap_or_else(|| t.clone());
            let old = key.as_ref().and_then(|k| s.object(k).cloned());
            (crd, storage_type, old)
        };
        let old_version = old
            .as_ref()
            .map(|o| o["metadata"]["resourceVersion"].clone());
        let old_view = match &old {
            Some(o) => Some(in_version(state, crd.as_ref(), o.clone(), &t.version).await?),
            None => None,
        };

        let prepared = {
            let mut s = lock(state);
            if key
                .as_ref()
                .map(|k| stored_version(&s, k))
                .unwrap_or_default()
                != old_version
            {
                continue;
            }
            let run = |s: &mut State| job.operation.execute(s, t, ns, &name, writer(true));
            match &key {
                Some(key) => s.with_view(key, old_view.clone(), run),
                None => run(&mut s),
            }
        };
        let (code, candidate) = prepared?;
        let operation = if old.is_some() { "UPDATE" } else { "CREATE" };
        let object_name = name_of(&candidate);
        let attributes = Attributes {
            t,
            subresource: job.subresource.as_deref(),
            operation,
            name: &object_name,
            namespace: ns,
            dry_run: job.dry_run,
            options: options(job, operation),
        };
        let candidate = if operation == "CREATE" {
            // Mutating webhooks see a new object before the API server fills these in.
            without_server_fields(candidate)
        } else {
            candidate
        };
        let admitted = admission::admit(
            state,
            &attributes,
            Some(candidate),
            old_view.as_ref(),
            warnings,
        )
        .await?
        .unwrap_or(Value::Null);
        let to_store = in_version(state, crd.as_ref(), admitted, &storage_type.version).await?;

        let committed = {
            let mut s = lock(state);
            let commit_key = Key::new(t, ns, &object_name);
            if stored_version(&s, &commit_key) != old_version {
                continue;
            }
            s.commit_admitted(
                &storage_type,
                ns,
                old.clone(),
                to_store,
                writer(job.dry_run),
            )?
        };
        let answer = in_version(state, crd.as_ref(), committed, &t.version).await?;
        return Ok((code, present(t, answer)));
    }
    Err(ApiError::new(
        409,
        "Conflict",
        format!(
            "Operation cannot be fulfilled on {} \"{name}\": the object has been modified; please apply your changes to the latest version and try again",
            t.qualified()
        ),
    ))
}

fn without_server_fields(mut object: Value) -> Value {
    if let Some(metadata) = object["metadata"].as_object_mut() {
        for field in ["uid", "creationTimestamp", "generation", "resourceVersion"] {
            metadata.remove(field);
        }
    }
    object
}

/// The `options` of the review: what the request's options would be in Go.
fn options(job: &Job, operation: &str) -> Value {
    let mut options = match (&job.operation, operation) {
        (Operation::Delete(o) | Operation::DeleteCollection { options: o, .. }, _) => {
            json!({"kind": "DeleteOptions", "propagationPolicy": format!("{:?}", o.propagation)})
        }
        (_, "CREATE") => json!({"kind": "CreateOptions"}),
        (Operation::Update(_), _) => json!({"kind": "UpdateOptions"}),
        (Operation::Patch(_, PatchKind::Apply { force }), _) => {
            json!({"kind": "PatchOptions", "force": force})
        }
        _ => json!({"kind": "PatchOptions"}),
    };
    options["apiVersion"] = json!("meta.k8s.io/v1");
    if options["kind"] != "DeleteOptions" {
        options["fieldManager"] = json!(job.manager);
    }
    if job.dry_run {
        options["dryRun"] = json!(["All"]);
    }
    options
}

async fn delete(job: &Job, state: &Shared, warnings: &mut Vec<String>) -> Reply {
    let Operation::Delete(delete_options) = &job.operation else {
        unreachable!("delete runs DELETE requests only")
    };
    let t = &job.t;
    let ns = job.namespace.as_deref();
    let (crd, old) = {
        let mut s = lock(state);
        let old = s.object(&Key::new(t, ns, &job.name)).cloned();
        let Some(old) = old else {
            // Not found, as the store says it.
            return s.delete(t, ns, &job.name, delete_options);
        };
        (converting(&s, t), old)
    };
    let old_view = in_version(state, crd.as_ref(), old.clone(), &t.version).await?;
    let attributes = Attributes {
        t,
        subresource: None,
        operation: "DELETE",
        name: &job.name,
        namespace: ns,
        dry_run: job.dry_run,
        options: options(job, "DELETE"),
    };
    admission::admit(state, &attributes, None, Some(&old_view), warnings).await?;
    let (code, result) = lock(state).delete(t, ns, &job.name, delete_options)?;
    Ok((
        code,
        answer_in_version(state, crd.as_ref(), t, result, &old).await?,
    ))
}

/// A deleted object as the store presented it, in the request's version: the store wrote
/// the request's apiVersion over the stored one, which the conversion starts from.
async fn answer_in_version(
    state: &Shared,
    crd: Option<&Crd>,
    t: &ResourceType,
    mut result: Value,
    stored: &Value,
) -> Result<Value, ApiError> {
    if crd.is_none() || result["kind"] != t.kind.as_str() {
        return Ok(result);
    }
    result["apiVersion"] = stored["apiVersion"].clone();
    Ok(present(
        t,
        in_version(state, crd, result, &t.version).await?,
    ))
}

async fn delete_collection(job: &Job, state: &Shared, warnings: &mut Vec<String>) -> Reply {
    let Operation::DeleteCollection {
        options: delete_options,
        labels,
        fields,
    } = &job.operation
    else {
        unreachable!("delete_collection runs deletecollection requests only")
    };
    let t = &job.t;
    let ns = job.namespace.as_deref();
    let (crd, items) = {
        let s = lock(state);
        let items = s.matching(t, ns, labels.as_deref(), fields.as_deref())?;
        (converting(&s, t), items)
    };
    for item in &items {
        let view = in_version(state, crd.as_ref(), item.clone(), &t.version).await?;
        let name = name_of(item);
        let attributes = Attributes {
            t,
            subresource: None,
            operation: "DELETE",
            name: &name,
            namespace: item["metadata"]["namespace"].as_str(),
            dry_run: job.dry_run,
            options: options(job, "DELETE"),
        };
        admission::admit(state, &attributes, None, Some(&view), warnings).await?;
    }
    let (code, mut list) = lock(state).delete_collection(
        t,
        ns,
        labels.as_deref(),
        fields.as_deref(),
        delete_options,
    )?;
    if let Some(results) = list["items"].as_array_mut() {
        for result in results.iter_mut() {
            let stored = items
                .iter()
                .find(|i| {
                    name_of(i) == name_of(result)
                        && i["metadata"]["namespace"] == result["metadata"]["namespace"]
                })
                .cloned()
                .unwrap_or(Value::Null);
            *result = answer_in_version(state, crd.as_ref(), t, result.take(), &stored).await?;
        }
    }
    Ok((code, list))
}
