//! How objects go away: DELETE with finalizers and `deletionTimestamp`, the propagation
//! policies, and the garbage collector (owner references, a terminating namespace's content,
//! a deleted CRD's custom resources).
//!
//! As in Kubernetes: an object with finalizers is only marked (`deletionTimestamp`,
//! `deletionGracePeriodSeconds: 0`, a MODIFIED event) and goes once its last finalizer is
//! removed (a DELETED event carrying its last state); no finalizer can be added to an object
//! being deleted. A dependent goes when every owner named by uid in its `ownerReferences` is
//! gone (owners in another namespace count as gone), and references to gone owners are dropped
//! while another owner lives. `Foreground` marks the owner with the `foregroundDeletion`
//! finalizer, deletes its dependents and removes the owner once no dependent whose reference
//! has `blockOwnerDeletion: true` remains; `Orphan` removes the owner's references from its
//! dependents first. A deleted namespace is `Terminating` until everything in it is gone, and
//! refuses new objects meanwhile; a deleted CRD keeps the
//! `customresourcecleanup.apiextensions.k8s.io` finalizer until its custom resources are gone.
//!
//! Approximated: the collector runs synchronously at the end of every write instead of
//! moments later in kube-controller-manager, so a client never sees an orphaned dependent;
//! grace periods are not simulated (pods go at once, like `--grace-period=0`); dependents
//! removed by the collector are deleted in the background, or in the foreground when their
//! owner was.

use std::collections::HashMap;

use serde_json::{Value, json};

use super::resources::ResourceType;
use super::store::{ApiError, Change, Key, Reply, State, now, present};

const FOREGROUND: &str = "foregroundDeletion";
const ORPHAN: &str = "orphan";
const CRD_CLEANUP: &str = "customresourcecleanup.apiextensions.k8s.io";

/// `propagationPolicy`: what happens to an object's dependents.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Propagation {
    #[default]
    Background,
    Foreground,
    Orphan,
}

/// A DELETE's `DeleteOptions`, from its body or its query.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DeleteOptions {
    pub dry_run: bool,
    pub propagation: Propagation,
    /// Preconditions: the delete fails with 409 unless the object still has these.
    pub uid: Option<String>,
    pub resource_version: Option<String>,
}

impl DeleteOptions {
    /// Reads the options kube-rs sends in the body and kubectl in body or query.
    pub fn parse(body: &[u8], param: impl Fn(&str) -> Option<String>) -> Result<Self, ApiError> {
        let body: Value = if body.iter().all(u8::is_ascii_whitespace) {
            json!({})
        } else if super::protobuf::is_protobuf(body) {
            super::protobuf::to_json(body)
                .map_err(|e| ApiError::new(415, "UnsupportedMediaType", e))?
        } else {
            serde_json::from_slice(body).map_err(|e| {
                ApiError::new(
                    400,
                    "BadRequest",
                    format!("the DeleteOptions body is not JSON: {e}"),
                )
            })?
        };
        let policy = param("propagationPolicy").or_else(|| {
            body["propagationPolicy"]
                .as_str()
                .map(String::from)
                .or_else(|| {
                    // The deprecated boolean of old clients.
                    body["orphanDependents"]
                        .as_bool()
                        .map(|orphan| if orphan { "Orphan" } else { "Background" }.into())
                })
        });
        let propagation = match policy.as_deref() {
            None | Some("Background") => Propagation::Background,
            Some("Foreground") => Propagation::Foreground,
            Some("Orphan") => Propagation::Orphan,
            Some(other) => {
                return Err(ApiError::new(
                    422,
                    "Invalid",
                    format!(
                        "propagationPolicy: Unsupported value: \"{other}\": supported values: \"Foreground\", \"Background\", \"Orphan\""
                    ),
                ));
            }
        };
        let dry_run = param("dryRun").is_some_and(|v| v == "All")
            || body["dryRun"]
                .as_array()
                .is_some_and(|d| d.iter().any(|v| v == "All"));
        let text = |v: &Value| v.as_str().map(String::from);
        Ok(DeleteOptions {
            dry_run,
            propagation,
            uid: text(&body["preconditions"]["uid"]),
            resource_version: text(&body["preconditions"]["resourceVersion"]),
        })
    }
}

pub fn is_deleting(object: &Value) -> bool {
    object.pointer("/metadata/deletionTimestamp").is_some()
}

pub fn finalizers_of(object: &Value) -> Vec<String> {
    object
        .pointer("/metadata/finalizers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|f| f.as_str().map(String::from))
        .collect()
}

fn set_finalizers(object: &mut Value, finalizers: &[String]) {
    if let Some(metadata) = object["metadata"].as_object_mut() {
        if finalizers.is_empty() {
            metadata.remove("finalizers");
        } else {
            metadata.insert("finalizers".into(), json!(finalizers));
        }
    }
}

fn uid_of(object: &Value) -> &str {
    object
        .pointer("/metadata/uid")
        .and_then(Value::as_str)
        .unwrap_or_default()
}

fn owner_references(object: &Value) -> Vec<Value> {
    object
        .pointer("/metadata/ownerReferences")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}

fn is_namespace(key: &Key) -> bool {
    key.group.is_empty() && key.plural == "namespaces"
}

fn is_crd(key: &Key) -> bool {
    key.group == "apiextensions.k8s.io" && key.plural == "customresourcedefinitions"
}

/// Why a new object may not be written: its namespace or its CRD is being deleted.
pub fn refuse_creation(state: &State, t: &ResourceType, key: &Key) -> Result<(), ApiError> {
    if t.namespaced {
        let namespace = Key {
            group: String::new(),
            plural: "namespaces".into(),
            namespace: String::new(),
            name: key.namespace.clone(),
        };
        if state.objects.get(&namespace).is_some_and(is_deleting) {
            let mut error = ApiError::new(
                403,
                "Forbidden",
                format!(
                    "{} \"{}\" is forbidden: unable to create new content in namespace {} because it is being terminated",
                    t.qualified(),
                    key.name,
                    key.namespace
                ),
            );
            error.details = json!({"name": key.name, "group": t.group, "kind": t.plural,
                "causes": [{"reason": "NamespaceTerminating", "field": "metadata.namespace",
                            "message": format!("namespace {} is being terminated", key.namespace)}]});
            return Err(error);
        }
    }
    let crd = Key {
        group: "apiextensions.k8s.io".into(),
        plural: "customresourcedefinitions".into(),
        namespace: String::new(),
        name: format!("{}.{}", t.plural, t.group),
    };
    if state.objects.get(&crd).is_some_and(is_deleting) {
        return Err(ApiError::new(
            405,
            "MethodNotAllowed",
            "create not allowed while custom resource definition is terminating",
        ));
    }
    Ok(())
}

/// An object has at most one controller among its owners, as the API server's metadata
/// validation says: a second one is refused, whoever sent it.
pub fn check_one_controller(t: &ResourceType, name: &str, object: &Value) -> Result<(), ApiError> {
    let controllers: Vec<String> = owner_references(object)
        .iter()
        .filter(|r| r["controller"] == true)
        .map(|r| {
            format!(
                "{}/{}",
                r["kind"].as_str().unwrap_or(""),
                r["name"].as_str().unwrap_or("")
            )
        })
        .collect();
    let [first, second, ..] = controllers.as_slice() else {
        return Ok(());
    };
    Err(ApiError::new(
        422,
        "Invalid",
        format!(
            "{} \"{name}\" is invalid: metadata.ownerReferences: Invalid value: []v1.OwnerReference{{...}}: Only one reference can have Controller set to true. Found \"true\" in references for {first} and {second}",
            t.kind
        ),
    ))
}

/// An update of an object being deleted may only remove finalizers.
pub fn check_finalizers(old: &Value, new: &Value, t: &ResourceType) -> Result<(), ApiError> {
    if !is_deleting(old) {
        return Ok(());
    }
    let before = finalizers_of(old);
    let added: Vec<String> = finalizers_of(new)
        .into_iter()
        .filter(|f| !before.contains(f))
        .collect();
    if added.is_empty() {
        return Ok(());
    }
    let name = old["metadata"]["name"].as_str().unwrap_or_default();
    Err(ApiError::new(
        422,
        "Invalid",
        format!(
            "{} \"{name}\" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers {added:?}",
            t.kind
        ),
    ))
}

impl State {
    pub fn delete(
        &mut self,
        t: &ResourceType,
        namespace: Option<&str>,
        name: &str,
        options: &DeleteOptions,
    ) -> Reply {
        let key = Key::new(t, namespace, name);
        let Some(old) = self.objects.get(&key).cloned() else {
            return Err(ApiError::not_found(t, name));
        };
        let precondition = |what: &str, wanted: &Option<String>, actual: &str| match wanted {
            Some(wanted) if wanted != actual => Err(ApiError::new(
                409,
                "Conflict",
                format!(
                    "Operation cannot be fulfilled on {} \"{name}\": Precondition failed: {what} in precondition: {wanted}, {what} in object meta: {actual}",
                    t.qualified()
                ),
            )),
            _ => Ok(()),
        };
        precondition("UID", &options.uid, uid_of(&old))?;
        let version = old["metadata"]["resourceVersion"]
            .as_str()
            .unwrap_or_default();
        precondition("ResourceVersion", &options.resource_version, version)?;
        if options.dry_run {
            return Ok((200, present(t, old)));
        }
        if is_deleting(&old) {
            return Ok((202, present(t, old)));
        }
        self.start_deletion(&key, options.propagation);
        self.collect_garbage();
        match self.objects.get(&key) {
            Some(pending) => Ok((202, present(t, pending.clone()))),
            None => Ok((200, present(t, old))),
        }
    }

    /// `DELETE` on a collection: every selected object, as one DELETE each would.
    pub fn delete_collection(
        &mut self,
        t: &ResourceType,
        namespace: Option<&str>,
        labels: Option<&str>,
        fields: Option<&str>,
        options: &DeleteOptions,
    ) -> Reply {
        let selected = self.matching(t, namespace, labels, fields)?;
        let mut items = Vec::new();
        for object in selected {
            let name = object["metadata"]["name"].as_str().unwrap_or_default();
            let ns = object["metadata"]["namespace"].as_str();
            let (_, item) = self.delete(t, ns, name, options)?;
            items.push(item);
        }
        Ok((
            200,
            json!({"kind": format!("{}List", t.kind), "apiVersion": t.api_version(),
                   "metadata": {"resourceVersion": self.resource_version.to_string()},
                   "items": items}),
        ))
    }

    /// Marks an object deleted, or removes it at once when nothing holds it back.
    fn start_deletion(&mut self, key: &Key, propagation: Propagation) {
        let Some(mut object) = self.objects.get(key).cloned() else {
            return;
        };
        let mut finalizers = finalizers_of(&object);
        let uid = uid_of(&object).to_string();
        let has_dependents = !self.dependents(&uid).is_empty();
        let ours = match propagation {
            Propagation::Foreground if has_dependents => Some(FOREGROUND),
            Propagation::Orphan if has_dependents => Some(ORPHAN),
            _ => None,
        };
        let custom_resources = is_crd(key) && !self.custom_resources(&object).is_empty();
        for finalizer in ours
            .into_iter()
            .chain(custom_resources.then_some(CRD_CLEANUP))
        {
            if !finalizers.iter().any(|f| f == finalizer) {
                finalizers.push(finalizer.to_string());
            }
        }
        // A namespace always terminates first: its content goes before it does.
        if finalizers.is_empty() && !is_namespace(key) {
            self.remove(key, object);
            return;
        }
        object["metadata"]["deletionTimestamp"] = Value::String(now());
        object["metadata"]["deletionGracePeriodSeconds"] = json!(0);
        set_finalizers(&mut object, &finalizers);
        if is_namespace(key) {
            object["status"]["phase"] = json!("Terminating");
        }
        self.rewrite(key, object);
    }

    /// Writes a change the control plane made; an object being deleted whose last finalizer
    /// went is removed instead.
    fn rewrite(&mut self, key: &Key, mut object: Value) {
        if self.is_finalized(key, &object) {
            self.remove(key, object);
            return;
        }
        let version = self.next_version();
        object["metadata"]["resourceVersion"] = Value::String(version.to_string());
        self.commit(key.clone(), Some(object), "MODIFIED");
    }

    /// True when `object`, being deleted, has nothing left to hold it back.
    pub(super) fn is_finalized(&self, key: &Key, object: &Value) -> bool {
        let held = !finalizers_of(object).is_empty()
            || (is_namespace(key) && self.objects.keys().any(|k| k.namespace == key.name));
        is_deleting(object) && !held
    }

    /// Removes an object for good: the DELETED event carries its last state.
    pub(super) fn remove(&mut self, key: &Key, mut last: Value) {
        let version = self.next_version();
        last["metadata"]["resourceVersion"] = Value::String(version.to_string());
        self.objects.remove(key);
        self.reads.remove(key);
        self.rollouts.remove(key);
        let change = Change {
            resource_version: version,
            kind: "DELETED",
            key: key.clone(),
            object: last,
        };
        self.record(change);
    }

    /// Objects with an owner reference to `uid`.
    fn dependents(&self, uid: &str) -> Vec<Key> {
        if uid.is_empty() {
            return Vec::new();
        }
        self.objects
            .iter()
            .filter(|(_, o)| owner_references(o).iter().any(|r| r["uid"] == uid))
            .map(|(k, _)| k.clone())
            .collect()
    }

    fn custom_resources(&self, crd: &Value) -> Vec<Key> {
        let group = crd["spec"]["group"].as_str().unwrap_or_default();
        let plural = crd["spec"]["names"]["plural"].as_str().unwrap_or_default();
        self.objects
            .keys()
            .filter(|k| k.group == group && k.plural == plural)
            .cloned()
            .collect()
    }

    /// Runs the garbage collector and the namespace and CRD finalizers until nothing is left
    /// for them to do.
    pub(super) fn collect_garbage(&mut self) {
        // Every step removes an object, a finalizer or a reference, so this ends; the bound is
        // a guard against a bug turning into a hang.
        for _ in 0..100_000 {
            if !self.collect_once() {
                return;
            }
        }
    }

    /// One step of the collector: true when it changed something.
    fn collect_once(&mut self) -> bool {
        let deleting: Vec<(Key, Value)> = self
            .objects
            .iter()
            .filter(|(_, o)| is_deleting(o))
            .map(|(k, o)| (k.clone(), o.clone()))
            .collect();
        for (key, object) in deleting {
            if self.finalize_step(&key, object) {
                return true;
            }
        }
        let owners: HashMap<String, Key> = self
            .objects
            .iter()
            .map(|(k, o)| (uid_of(o).to_string(), k.clone()))
            .collect();
        let owned: Vec<(Key, Value)> = self
            .objects
            .iter()
            .filter(|(_, o)| !owner_references(o).is_empty())
            .map(|(k, o)| (k.clone(), o.clone()))
            .collect();
        for (key, mut object) in owned {
            let references = owner_references(&object);
            let (alive, gone): (Vec<Value>, Vec<Value>) = references.into_iter().partition(|r| {
                r["uid"]
                    .as_str()
                    .and_then(|uid| owners.get(uid))
                    .is_some_and(|owner| {
                        owner.namespace.is_empty() || owner.namespace == key.namespace
                    })
            });
            if gone.is_empty() {
                continue;
            }
            if alive.is_empty() {
                if !is_deleting(&object) {
                    self.start_deletion(&key, Propagation::Background);
                    return true;
                }
                continue;
            }
            object["metadata"]["ownerReferences"] = Value::Array(alive);
            self.rewrite(&key, object);
            return true;
        }
        false
    }

    /// Does the next piece of work of the control plane's finalizers on an object being
    /// deleted; true when it changed something.
    fn finalize_step(&mut self, key: &Key, mut object: Value) -> bool {
        let uid = uid_of(&object).to_string();
        let mut finalizers = finalizers_of(&object);
        let has = |finalizers: &[String], name: &str| finalizers.iter().any(|f| f == name);
        if has(&finalizers, ORPHAN) {
            for dependent in self.dependents(&uid) {
                if let Some(mut d) = self.objects.get(&dependent).cloned() {
                    let kept: Vec<Value> = owner_references(&d)
                        .into_iter()
                        .filter(|r| r["uid"] != uid.as_str())
                        .collect();
                    match d["metadata"].as_object_mut() {
                        Some(m) if kept.is_empty() => {
                            m.remove("ownerReferences");
                        }
                        Some(m) => {
                            m.insert("ownerReferences".into(), Value::Array(kept));
                        }
                        None => {}
                    }
                    self.rewrite(&dependent, d);
                }
            }
            finalizers.retain(|f| f != ORPHAN);
            set_finalizers(&mut object, &finalizers);
            self.rewrite(key, object);
            return true;
        }
        if has(&finalizers, FOREGROUND) {
            let dependents = self.dependents(&uid);
            for dependent in &dependents {
                if self.objects.get(dependent).is_some_and(|d| !is_deleting(d)) {
                    self.start_deletion(dependent, Propagation::Foreground);
                    return true;
                }
            }
            let blocking = dependents.iter().any(|d| {
                self.objects.get(d).is_some_and(|d| {
                    owner_references(d)
                        .iter()
                        .any(|r| r["uid"] == uid.as_str() && r["blockOwnerDeletion"] == true)
                })
            });
            if !blocking {
                finalizers.retain(|f| f != FOREGROUND);
                set_finalizers(&mut object, &finalizers);
                self.rewrite(key, object);
                return true;
            }
        }
        if is_namespace(key) {
            let content: Vec<Key> = self
                .objects
                .keys()
                .filter(|k| k.namespace == key.name)
                .cloned()
                .collect();
            for item in &content {
                if self.objects.get(item).is_some_and(|o| !is_deleting(o)) {
                    self.start_deletion(item, Propagation::Background);
                    return true;
                }
            }
            if content.is_empty() && finalizers.is_empty() {
                self.remove(key, object);
                return true;
            }
        }
        if is_crd(key) && has(&finalizers, CRD_CLEANUP) {
            let resources = self.custom_resources(&object);
            for item in &resources {
                if self.objects.get(item).is_some_and(|o| !is_deleting(o)) {
                    self.start_deletion(item, Propagation::Background);
                    return true;
                }
            }
            if resources.is_empty() {
                finalizers.retain(|f| f != CRD_CLEANUP);
                set_finalizers(&mut object, &finalizers);
                self.rewrite(key, object);
                return true;
            }
        }
        false
    }
}
