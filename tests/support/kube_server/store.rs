//! The server's state: objects with resource versions and history, the semantics of every
//! verb, and the two controllers a deploy waits for (CRD establishment, Deployment rollout),
//! driven by scripts the tests set.

use std::collections::{BTreeMap, HashMap};

use serde_json::{Value, json};
use tokio::sync::broadcast;

use super::events;
use super::faults::LeasePartition;
use super::fields;
use super::json_patch;
use super::lifecycle;
use super::resources::{self, ResourceType};
use super::rollout;
use super::selectors::Selector;
use super::webhook_config;

/// Where an object lives: the version is not part of it, as in etcd.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Key {
    pub group: String,
    pub plural: String,
    /// Empty for cluster-scoped objects.
    pub namespace: String,
    pub name: String,
}

impl Key {
    pub fn new(t: &ResourceType, namespace: Option<&str>, name: &str) -> Key {
        Key {
            group: events::storage_group(t).to_string(),
            plural: t.plural.clone(),
            namespace: namespace.unwrap_or_default().to_string(),
            name: name.to_string(),
        }
    }
}

/// One write, as a watch reports it.
#[derive(Debug, Clone)]
pub struct Change {
    pub resource_version: u64,
    pub kind: &'static str,
    pub key: Key,
    pub object: Value,
}

pub use super::rollout::Rollout;

/// How CRDs progress once created.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Establish {
    /// Established after this many reads of the CRD; its kinds are served from then on.
    AfterReads(u32),
    /// Never Established.
    Never,
}

/// A verb refused to simulate missing RBAC permissions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub verb: String,
    /// The plural, for example `roles`.
    pub resource: String,
    /// Refused only in this namespace, or everywhere.
    pub namespace: Option<String>,
}

/// One request the server answered, for counting and assertions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestRecord {
    pub method: String,
    pub path: String,
    pub query: String,
    pub user_agent: String,
    /// When it arrived: tests measure the wait between a refused request and its retry.
    pub at: std::time::Instant,
}

#[derive(Debug, Clone)]
pub struct Scripts {
    pub rollout: Rollout,
    /// Per Deployment, by (namespace, name): wins over `rollout`.
    pub rollout_for: HashMap<(String, String), Rollout>,
    /// Writes to Leases that fail or hang, to partition a leader.
    pub lease_faults: Vec<LeasePartition>,
    pub establish: Establish,
    pub refusals: Vec<Refusal>,
    pub token: String,
    pub user: String,
    /// Tokens besides `token`, for TokenReviews ([`super::reviews`]).
    pub tokens: super::reviews::Tokens,
    /// Answer discovery as servers before 1.26 do: legacy documents whatever `Accept` asks.
    pub legacy_discovery: bool,
    /// Names of Jobs that fail instead of completing.
    pub failing_jobs: Vec<String>,
    /// Error answers to chosen requests.
    pub request_faults: Vec<super::faults::RequestFault>,
    /// The reason of every 404 answer, instead of `NotFound` (some servers and proxies
    /// answer "Object Not Found").
    pub not_found_reason: Option<String>,
}

impl Default for Scripts {
    fn default() -> Self {
        Scripts {
            rollout: Rollout::AfterPolls(1),
            rollout_for: HashMap::new(),
            lease_faults: Vec::new(),
            establish: Establish::AfterReads(0),
            refusals: Vec::new(),
            token: "test-token".into(),
            user: "test-user".into(),
            tokens: HashMap::new(),
            legacy_discovery: false,
            failing_jobs: Vec::new(),
            request_faults: Vec::new(),
            not_found_reason: None,
        }
    }
}

/// An error answer, rendered as a `Status` object.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiError {
    pub code: u16,
    /// Empty for errors without a reason (`StatusReasonUnknown`), which the Status leaves out.
    pub reason: &'static str,
    pub message: String,
    pub details: Value,
}

impl ApiError {
    pub fn new(code: u16, reason: &'static str, message: impl Into<String>) -> Self {
        ApiError {
            code,
            reason,
            message: message.into(),
            details: Value::Null,
        }
    }

    fn about(mut self, t: &ResourceType, name: &str) -> Self {
        self.details = json!({"name": name, "group": t.group, "kind": t.plural});
        self
    }

    pub fn not_found(t: &ResourceType, name: &str) -> Self {
        ApiError::new(
            404,
            "NotFound",
            format!("{} \"{name}\" not found", t.qualified()),
        )
        .about(t, name)
    }

    pub fn status(&self) -> Value {
        let mut status = json!({
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": self.message,
            "reason": self.reason,
            "code": self.code,
        });
        if self.reason.is_empty()
            && let Some(map) = status.as_object_mut()
        {
            map.remove("reason");
        }
        if !self.details.is_null() {
            status["details"] = self.details.clone();
        }
        status
    }
}

pub type Reply = Result<(u16, Value), ApiError>;

/// Who writes, and whether for real (`dryRun=All` is not).
#[derive(Debug, Clone, Copy)]
pub struct Writer<'a> {
    pub manager: &'a str,
    pub dry_run: bool,
    /// `Some("status")` for writes through the status subresource.
    pub subresource: Option<&'a str>,
}

impl<'a> Writer<'a> {
    pub fn new(manager: &'a str) -> Self {
        Writer {
            manager,
            dry_run: false,
            subresource: None,
        }
    }

    /// What of `candidate` this write may change: through `/status` only the status, through
    /// the main resource everything but a status subresource's status.
    fn part(&self, t: &ResourceType, old: &Value, candidate: Value) -> Result<Value, ApiError> {
        let status = |from: &Value, mut into: Value| {
            match from.get("status") {
                Some(status) => into["status"] = status.clone(),
                None => {
                    if let Some(map) = into.as_object_mut() {
                        map.remove("status");
                    }
                }
            }
            into
        };
        match self.subresource {
            None if t.status_subresource => Ok(status(old, candidate)),
            None => Ok(candidate),
            Some("status") if t.status_subresource => {
                let mut object = status(&candidate, old.clone());
                // The managed fields travel with the write; the caller records them.
                if let Some(fields) = candidate.pointer("/metadata/managedFields") {
                    object["metadata"]["managedFields"] = fields.clone();
                }
                Ok(object)
            }
            Some(other) => Err(ApiError::new(
                404,
                "NotFound",
                format!(
                    "the server could not find the requested resource ({other} of {})",
                    t.qualified()
                ),
            )),
        }
    }
}

/// How a PATCH body is to be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PatchKind {
    Apply {
        force: bool,
    },
    Merge,
    /// RFC 6902, `application/json-patch+json`.
    Json,
}

/// How many changes watches can resume from, like the API server's watch cache.
const HISTORY: usize = 10_000;
/// How many changes a watch may lag behind before it is expired.
const CHANGE_FEED: usize = 16_384;

pub struct State {
    pub address: String,
    pub scripts: Scripts,
    pub requests: Vec<RequestRecord>,
    /// Every webhook call that got an answer: its path and how long it took, from the start of
    /// the connection to the answer read (the server's side of an admission or conversion).
    pub webhook_calls: Vec<(String, std::time::Duration)>,
    /// Requests a fault holds without an answer right now.
    pub held: usize,
    pub changes: broadcast::Sender<Change>,
    pub(super) resource_version: u64,
    pub(super) uids: u64,
    pub(super) objects: BTreeMap<Key, Value>,
    /// The recent changes watches resume from; older ones are compacted away.
    pub(super) history: Vec<Change>,
    /// The newest resourceVersion compacted away: a watch from before it gets 410.
    compacted: u64,
    /// Bumped to ask every open watch that allows bookmarks for one now.
    pub bookmark_requests: tokio::sync::watch::Sender<u64>,
    /// Bumped to end every open watch with a 410 Expired ERROR event.
    pub expiries: tokio::sync::watch::Sender<u64>,
    /// Set to close the port and drop every connection until that moment.
    pub cuts: tokio::sync::watch::Sender<Option<std::time::Instant>>,
    /// Reads since the last spec change: (generation, reads) for Deployments, reads for CRDs.
    pub(super) reads: HashMap<Key, (i64, u32)>,
    /// Deployments: the generation being rolled out, since when, and whether a test completed
    /// it (`Rollout::Manual`).
    pub(super) rollouts: HashMap<Key, rollout::Progress>,
}

impl State {
    pub fn new(address: String) -> State {
        let (changes, _) = broadcast::channel(CHANGE_FEED);
        let mut state = State {
            address,
            scripts: Scripts::default(),
            requests: Vec::new(),
            webhook_calls: Vec::new(),
            held: 0,
            changes,
            resource_version: 100,
            uids: 0,
            objects: BTreeMap::new(),
            history: Vec::new(),
            compacted: 0,
            bookmark_requests: tokio::sync::watch::Sender::new(0),
            expiries: tokio::sync::watch::Sender::new(0),
            cuts: tokio::sync::watch::Sender::new(None),
            reads: HashMap::new(),
            rollouts: HashMap::new(),
        };
        for namespace in ["default", "kube-system"] {
            let t = state.builtin("", "namespaces");
            let body =
                json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}});
            // Seeding cannot fail: the namespaces are new and valid.
            let _ = state.create(&t, None, body, Writer::new("kube-apiserver"));
        }
        state
    }

    pub fn builtin(&self, group: &str, plural: &str) -> ResourceType {
        resources::builtins()
            .into_iter()
            .find(|t| t.is(group, plural))
            .unwrap_or_else(|| panic!("{plural}.{group} is a built-in of the test server"))
    }

    /// Every served kind: the built-ins and the kinds of Established CRDs.
    pub fn types(&self) -> Vec<ResourceType> {
        let mut types = resources::builtins();
        for (key, crd) in &self.objects {
            if key.plural == "customresourcedefinitions" && is_established(crd) {
                types.extend(ResourceType::from_crd(crd));
            }
        }
        types
    }

    pub fn find_type(&self, group: &str, version: &str, plural: &str) -> Option<ResourceType> {
        self.types()
            .into_iter()
            .find(|t| t.group == group && t.version == version && t.plural == plural)
    }

    pub fn resource_version(&self) -> u64 {
        self.resource_version
    }

    pub fn object(&self, key: &Key) -> Option<&Value> {
        self.objects.get(key)
    }

    pub fn objects(&self) -> impl Iterator<Item = (&Key, &Value)> {
        self.objects.iter()
    }

    pub fn compacted(&self) -> u64 {
        self.compacted
    }

    /// Forgets every change up to now, as etcd's compaction does.
    pub fn compact(&mut self) {
        self.compacted = self.resource_version;
        self.history.clear();
    }

    pub fn history_after(&self, resource_version: u64) -> Vec<Change> {
        self.history
            .iter()
            .filter(|c| c.resource_version > resource_version)
            .cloned()
            .collect()
    }

    pub(super) fn commit(&mut self, key: Key, object: Option<Value>, kind: &'static str) {
        let recorded = match object {
            Some(object) => {
                self.objects.insert(key.clone(), object.clone());
                object
            }
            None => self.objects.remove(&key).unwrap_or(Value::Null),
        };
        let change = Change {
            resource_version: self.resource_version,
            kind,
            key,
            object: recorded,
        };
        self.record(change);
    }

    pub(super) fn record(&mut self, change: Change) {
        if self.history.len() >= HISTORY {
            let dropped: Vec<Change> = self.history.drain(..HISTORY / 2).collect();
            if let Some(last) = dropped.last() {
                self.compacted = last.resource_version;
            }
        }
        self.history.push(change.clone());
        // Nobody watching is fine.
        let _ = self.changes.send(change);
    }

    pub(super) fn next_version(&mut self) -> u64 {
        self.resource_version += 1;
        self.resource_version
    }

    fn namespace_exists(&self, namespace: &str) -> bool {
        self.objects.contains_key(&Key {
            group: String::new(),
            plural: "namespaces".into(),
            namespace: String::new(),
            name: namespace.into(),
        })
    }

    /// GET of one object; a read is also what moves the scripted controllers on.
    pub fn get(&mut self, t: &ResourceType, namespace: Option<&str>, name: &str) -> Reply {
        let key = Key::new(t, namespace, name);
        if !self.objects.contains_key(&key) {
            return Err(ApiError::not_found(t, name));
        }
        self.observe(&key);
        let object = self.objects.get(&key).cloned().unwrap_or(Value::Null);
        Ok((200, present(t, object)))
    }

    pub fn list(
        &mut self,
        t: &ResourceType,
        namespace: Option<&str>,
        labels: Option<&str>,
        fields: Option<&str>,
    ) -> Reply {
        let items = self.matching(t, namespace, labels, fields)?;
        Ok((200, self.list_of(t, items)))
    }

    /// A list answer of stored objects, at the store's current resourceVersion.
    pub fn list_of(&self, t: &ResourceType, items: Vec<Value>) -> Value {
        let items: Vec<Value> = items.into_iter().map(|o| present(t, o)).collect();
        json!({
            "kind": format!("{}List", t.kind),
            "apiVersion": t.api_version(),
            "metadata": {"resourceVersion": self.resource_version.to_string()},
            "items": items,
        })
    }

    /// The objects of a type a list or watch selects; a malformed selector is a 400.
    pub fn matching(
        &self,
        t: &ResourceType,
        namespace: Option<&str>,
        labels: Option<&str>,
        fields: Option<&str>,
    ) -> Result<Vec<Value>, ApiError> {
        let selector = Selector::parse(labels, fields, t.custom)
            .map_err(|e| ApiError::new(400, "BadRequest", e))?;
        Ok(self.selected(t, namespace, &selector))
    }

    pub fn selected(
        &self,
        t: &ResourceType,
        namespace: Option<&str>,
        selector: &Selector,
    ) -> Vec<Value> {
        self.objects
            .iter()
            .filter(|(key, _)| key.group == events::storage_group(t) && key.plural == t.plural)
            .filter(|(key, _)| namespace.is_none_or(|ns| key.namespace == ns))
            .filter(|(_, object)| selector.matches(&events::viewed(t, (*object).clone())))
            .map(|(_, object)| object.clone())
            .collect()
    }

    pub fn create(
        &mut self,
        t: &ResourceType,
        namespace: Option<&str>,
        body: Value,
        writer: Writer<'_>,
    ) -> Reply {
        check_type(t, &body)?;
        let mut body = events::stored(t, body);
        let name = match body.pointer("/metadata/name").and_then(Value::as_str) {
            Some(name) if !name.is_empty() => name.to_string(),
            _ => match body
                .pointer("/metadata/generateName")
                .and_then(Value::as_str)
            {
                Some(prefix) => {
                    let name = format!("{prefix}{:05x}", self.uids + 1);
                    body["metadata"]["name"] = Value::String(name.clone());
                    name
                }
                None => {
                    return Err(ApiError::new(
                        422,
                        "Invalid",
                        format!("{} is invalid: metadata.name: Required value", t.kind),
                    ));
                }
            },
        };
        let key = Key::new(t, namespace, &name);
        if self.objects.contains_key(&key) {
            return Err(already_exists(t, &name));
        }
        let mut object = body;
        fields::record_update(None, &mut object, writer.manager, &now());
        self.write(t, key, None, object, writer.dry_run)
            .map(|o| (201, o))
    }

    pub fn update(
        &mut self,
        t: &ResourceType,
        namespace: Option<&str>,
        name: &str,
        body: Value,
        writer: Writer<'_>,
    ) -> Reply {
        check_type(t, &body)?;
        check_name(&body, name)?;
        let key = Key::new(t, namespace, name);
        let Some(old) = self.objects.get(&key).cloned() else {
            return Err(ApiError::not_found(t, name));
        };
        let wanted = body
            .pointer("/metadata/resourceVersion")
            .and_then(Value::as_str);
        if wanted.is_none() && t.custom {
            // Custom resources do not allow unconditional updates.
            return Err(ApiError::new(
                422,
                "Invalid",
                format!(
                    "{} \"{name}\" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update",
                    t.kind
                ),
            ));
        }
        check_version(t, name, &old, &body)?;
        let mut object = writer.part(t, &old, events::stored(t, body))?;
        fields::record_update_of(
            Some(&old),
            &mut object,
            writer.manager,
            writer.subresource,
            &now(),
        );
        self.write(t, key, Some(old), object, writer.dry_run)
            .map(|o| (200, o))
    }

    pub fn patch(
        &mut self,
        t: &ResourceType,
        namespace: Option<&str>,
        name: &str,
        patch: Value,
        kind: PatchKind,
        writer: Writer<'_>,
    ) -> Reply {
        let (manager, dry_run) = (writer.manager, writer.dry_run);
        let key = Key::new(t, namespace, name);
        let old = self.objects.get(&key).cloned();
        let candidate = match (kind, &old) {
            (PatchKind::Apply { .. }, _) => None,
            (_, None) => return Err(ApiError::not_found(t, name)),
            (PatchKind::Merge, Some(old)) => Some(events::stored(
                t,
                fields::merge_patch(&events::viewed(t, old.clone()), &patch),
            )),
            (PatchKind::Json, Some(old)) => Some(events::stored(
                t,
                json_patch::apply(&events::viewed(t, old.clone()), &patch).map_err(|e| {
                    ApiError::new(422, "Invalid", format!("the JSON patch failed: {e}"))
                })?,
            )),
        };
        if let (Some(candidate), Some(old)) = (candidate, &old) {
            check_version(t, name, old, &candidate)?;
            let mut object = writer.part(t, old, candidate)?;
            fields::record_update_of(Some(old), &mut object, manager, writer.subresource, &now());
            return self
                .write(t, key, Some(old.clone()), object, dry_run)
                .map(|o| (200, o));
        }
        let PatchKind::Apply { force } = kind else {
            unreachable!("only apply patches are left")
        };
        check_type(t, &patch)?;
        check_name(&patch, name)?;
        if let Some(ns) = namespace {
            let body_ns = patch.pointer("/metadata/namespace").and_then(Value::as_str);
            if body_ns.is_some_and(|b| b != ns) {
                return Err(ApiError::new(
                    400,
                    "BadRequest",
                    "the namespace of the provided object does not match the namespace sent on the request",
                ));
            }
        }
        if let Some(old) = &old {
            check_version(t, name, old, &patch)?;
        }
        let status_part = writer.subresource == Some("status");
        let config = match patch.as_object() {
            // A status apply owns nothing but status; a main apply nothing of it.
            Some(map) if status_part => map
                .iter()
                .filter(|(k, _)| ["apiVersion", "kind", "status"].contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
            Some(map) => {
                let mut map = map.clone();
                if t.status_subresource {
                    map.remove("status");
                }
                map
            }
            None => serde_json::Map::new(),
        };
        let config = events::stored(t, Value::Object(config));
        if status_part && old.is_none() {
            return Err(ApiError::not_found(t, name));
        }
        let applied = fields::apply_to(
            old.as_ref(),
            &config,
            manager,
            writer.subresource,
            force,
            &now(),
        )
        .map_err(|conflicts| conflict_error(t, name, &conflicts))?;
        let applied = match &old {
            Some(old) if status_part => writer.part(t, old, applied)?,
            _ => applied,
        };
        let code = if old.is_some() { 200 } else { 201 };
        self.write(t, key, old, applied, dry_run).map(|o| (code, o))
    }

    /// The common end of every write: server-owned fields, status kept away from the main
    /// resource, generation, and no new resourceVersion when nothing changed.
    fn write(
        &mut self,
        t: &ResourceType,
        key: Key,
        old: Option<Value>,
        mut object: Value,
        dry_run: bool,
    ) -> Result<Value, ApiError> {
        if !object.is_object() {
            return Err(ApiError::new(
                400,
                "BadRequest",
                "the body must be an object",
            ));
        }
        object["apiVersion"] = Value::String(t.api_version());
        object["kind"] = Value::String(t.kind.clone());
        if !object.get("metadata").is_some_and(Value::is_object) {
            object["metadata"] = json!({});
        }
        object["metadata"]["name"] = Value::String(key.name.clone());
        if t.namespaced {
            if !self.namespace_exists(&key.namespace) {
                return Err(ApiError::new(
                    404,
                    "NotFound",
                    format!("namespaces \"{}\" not found", key.namespace),
                )
                .about(&self.builtin("", "namespaces"), &key.namespace));
            }
            object["metadata"]["namespace"] = Value::String(key.namespace.clone());
        } else if let Some(metadata) = object["metadata"].as_object_mut() {
            metadata.remove("namespace");
        }
        if t.is("apiextensions.k8s.io", "customresourcedefinitions") {
            validate_crd(&object)?;
        }
        lifecycle::check_one_controller(t, &key.name, &object)?;
        if t.group == webhook_config::GROUP {
            webhook_config::validate(t, &object)?;
        }
        let carried = [
            "uid",
            "creationTimestamp",
            "generation",
            "deletionTimestamp",
            "deletionGracePeriodSeconds",
        ];
        match &old {
            Some(old) => {
                lifecycle::check_finalizers(old, &object, t)?;
                for field in carried {
                    match old["metadata"].get(field) {
                        Some(v) => object["metadata"][field] = v.clone(),
                        None => {
                            if let Some(m) = object["metadata"].as_object_mut() {
                                m.remove(field);
                            }
                        }
                    }
                }
                if generation_basis(t, &object) != generation_basis(t, old) {
                    let generation = old["metadata"]["generation"].as_i64().unwrap_or(0);
                    object["metadata"]["generation"] = json!(generation + 1);
                }
            }
            None => {
                lifecycle::refuse_creation(self, t, &key)?;
                self.uids += 1;
                object["metadata"]["uid"] =
                    Value::String(format!("00000000-0000-4000-8000-{:012x}", self.uids));
                object["metadata"]["creationTimestamp"] = Value::String(now());
                if object.get("spec").is_some() || t.custom {
                    object["metadata"]["generation"] = json!(1);
                }
                if t.status_subresource
                    && let Some(m) = object.as_object_mut()
                {
                    m.remove("status");
                }
                initial_status(t, &mut object);
            }
        }
        if let Some(m) = object["metadata"].as_object_mut() {
            m.remove("resourceVersion");
        }
        let finalized = self.is_finalized(&key, &object);
        if let Some(old) = &old {
            let mut previous = old.clone();
            if let Some(m) = previous["metadata"].as_object_mut() {
                m.remove("resourceVersion");
            }
            if previous == object {
                return Ok(present(t, old.clone()));
            }
        }
        if dry_run {
            if let Some(version) = old
                .as_ref()
                .and_then(|o| o.pointer("/metadata/resourceVersion"))
            {
                object["metadata"]["resourceVersion"] = version.clone();
            }
            return Ok(present(t, object));
        }
        if finalized {
            self.remove(&key, object.clone());
            self.collect_garbage();
            return Ok(present(t, object));
        }
        let version = self.next_version();
        object["metadata"]["resourceVersion"] = Value::String(version.to_string());
        let kind = if old.is_some() { "MODIFIED" } else { "ADDED" };
        self.commit(key, Some(object.clone()), kind);
        self.collect_garbage();
        Ok(present(t, object))
    }

    /// The end of a write that admission has seen ([`super::intercept`]): `object`, what the
    /// request's dry run made and the webhooks left, goes over `old`, the object stored when
    /// the dry run ran (the caller checked that it still is). What a write may change is
    /// taken again, since a webhook may have touched more.
    pub fn commit_admitted(
        &mut self,
        t: &ResourceType,
        namespace: Option<&str>,
        old: Option<Value>,
        object: Value,
        writer: Writer<'_>,
    ) -> Result<Value, ApiError> {
        let name = object
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let key = Key::new(t, namespace, &name);
        let object = events::stored(t, object);
        let object = match &old {
            Some(old) => writer.part(t, old, object)?,
            None if self.objects.contains_key(&key) => return Err(already_exists(t, &name)),
            None => object,
        };
        self.write(t, key, old, object, writer.dry_run)
    }

    /// Runs `f` with `view` in place of the object stored at `key`, and puts the stored one
    /// back: a request through another version of a custom resource runs on the object as
    /// that version shows it.
    pub fn with_view<R>(
        &mut self,
        key: &Key,
        view: Option<Value>,
        f: impl FnOnce(&mut State) -> R,
    ) -> R {
        let stored = match view {
            Some(view) => self.objects.insert(key.clone(), view),
            None => self.objects.remove(key),
        };
        let result = f(self);
        match stored {
            Some(stored) => self.objects.insert(key.clone(), stored),
            None => self.objects.remove(key),
        };
        result
    }

    /// Stores `object` as it is, without the checks of a write: for objects the API no
    /// longer accepts but a cluster may still hold (a webhook with `sideEffects: Unknown`,
    /// written through `v1beta1` before Kubernetes 1.22).
    pub fn put_unchecked(&mut self, key: Key, mut object: Value) {
        let version = self.next_version();
        object["metadata"]["resourceVersion"] = Value::String(version.to_string());
        let kind = if self.objects.contains_key(&key) {
            "MODIFIED"
        } else {
            "ADDED"
        };
        self.commit(key, Some(object), kind);
    }

    /// Deletes the object at `key` at once (no finalizers, no garbage collection), as a
    /// change watches see; false when there was none.
    pub fn remove_unchecked(&mut self, key: Key) -> bool {
        if !self.objects.contains_key(&key) {
            return false;
        }
        self.next_version();
        self.commit(key, None, "DELETED");
        true
    }
}

fn already_exists(t: &ResourceType, name: &str) -> ApiError {
    ApiError::new(
        409,
        "AlreadyExists",
        format!("{} \"{name}\" already exists", t.qualified()),
    )
    .about(t, name)
}

/// The object as a client receives it: type information always set.
pub fn present(t: &ResourceType, object: Value) -> Value {
    let mut object = events::viewed(t, object);
    if object.is_object() {
        object["apiVersion"] = Value::String(t.api_version());
        object["kind"] = Value::String(t.kind.clone());
    }
    object
}

fn check_type(t: &ResourceType, body: &Value) -> Result<(), ApiError> {
    let api_version = body.get("apiVersion").and_then(Value::as_str);
    let kind = body.get("kind").and_then(Value::as_str);
    if api_version.is_some_and(|v| v != t.api_version()) || kind.is_some_and(|k| k != t.kind) {
        return Err(ApiError::new(
            400,
            "BadRequest",
            format!(
                "the API version in the data ({}) and kind ({}) do not match the request ({}, {})",
                api_version.unwrap_or_default(),
                kind.unwrap_or_default(),
                t.api_version(),
                t.kind
            ),
        ));
    }
    Ok(())
}

/// What `metadata.generation` counts changes of: the spec of built-in kinds; everything but
/// metadata (and status, with a status subresource) of custom resources.
fn generation_basis(t: &ResourceType, object: &Value) -> Value {
    if !t.custom {
        return object.get("spec").cloned().unwrap_or(Value::Null);
    }
    let mut basis = object.clone();
    if let Some(map) = basis.as_object_mut() {
        for field in ["apiVersion", "kind", "metadata"] {
            map.remove(field);
        }
        if t.status_subresource {
            map.remove("status");
        }
    }
    basis
}

/// Optimistic concurrency: a write that names a resourceVersion must name the current one.
fn check_version(t: &ResourceType, name: &str, old: &Value, new: &Value) -> Result<(), ApiError> {
    let wanted = new
        .pointer("/metadata/resourceVersion")
        .and_then(Value::as_str);
    let current = old
        .pointer("/metadata/resourceVersion")
        .and_then(Value::as_str);
    if wanted.is_some_and(|w| !w.is_empty() && Some(w) != current) {
        return Err(ApiError::new(
            409,
            "Conflict",
            format!(
                "Operation cannot be fulfilled on {} \"{name}\": the object has been modified; please apply your changes to the latest version and try again",
                t.qualified()
            ),
        )
        .about(t, name));
    }
    Ok(())
}

fn check_name(body: &Value, name: &str) -> Result<(), ApiError> {
    match body.pointer("/metadata/name").and_then(Value::as_str) {
        Some(n) if n != name => Err(ApiError::new(
            400,
            "BadRequest",
            format!("the name of the object ({n}) does not match the name on the URL ({name})"),
        )),
        _ => Ok(()),
    }
}

fn conflict_error(t: &ResourceType, name: &str, conflicts: &[fields::Conflict]) -> ApiError {
    let lines: Vec<String> = conflicts
        .iter()
        .map(|c| format!("conflict with \"{}\": {}", c.manager, c.field))
        .collect();
    let causes: Vec<Value> = conflicts
        .iter()
        .map(|c| json!({"reason": "FieldManagerConflict", "message": format!("conflict with \"{}\"", c.manager), "field": c.field}))
        .collect();
    let mut error = ApiError::new(
        409,
        "Conflict",
        format!(
            "Apply failed with {} conflict(s): {}",
            conflicts.len(),
            lines.join(", ")
        ),
    )
    .about(t, name);
    error.details["causes"] = Value::Array(causes);
    error
}

/// What the API server checks of a CRD that a generated one could get wrong.
fn validate_crd(crd: &Value) -> Result<(), ApiError> {
    let spec = &crd["spec"];
    let group = spec["group"].as_str().unwrap_or_default();
    let plural = spec["names"]["plural"].as_str().unwrap_or_default();
    let name = crd["metadata"]["name"].as_str().unwrap_or_default();
    let mut problems = Vec::new();
    if group.is_empty() {
        problems.push("spec.group: Required value".to_string());
    }
    if plural.is_empty()
        || spec["names"]["kind"]
            .as_str()
            .unwrap_or_default()
            .is_empty()
    {
        problems.push("spec.names: plural and kind are required".to_string());
    }
    if name != format!("{plural}.{group}") {
        problems.push(format!(
            "metadata.name: Invalid value: \"{name}\": must be spec.names.plural+\".\"+spec.group"
        ));
    }
    let versions = spec["versions"].as_array().cloned().unwrap_or_default();
    if versions.iter().filter(|v| v["storage"] == true).count() != 1 {
        problems.push(
            "spec.versions: Invalid value: must have exactly one version marked as storage version"
                .into(),
        );
    }
    let conversion = &spec["conversion"];
    match conversion["strategy"].as_str() {
        None | Some("None") => {
            if !conversion["webhook"].is_null() {
                problems.push(
                    "spec.conversion.webhook: Forbidden: should not be set when strategy is not set to Webhook"
                        .into(),
                );
            }
        }
        Some("Webhook") => {
            let webhook = &conversion["webhook"];
            if webhook.is_null() {
                problems.push(
                    "spec.conversion.webhook: Required value: must be set when strategy is set to Webhook"
                        .into(),
                );
            } else {
                let reviews = webhook["conversionReviewVersions"].as_array();
                if reviews.is_none_or(|r| {
                    !r.iter().any(|v| v == "v1" || v == "v1beta1")
                }) {
                    problems.push(
                        "spec.conversion.webhook.conversionReviewVersions: Invalid value: must include at least one of v1, v1beta1"
                            .into(),
                    );
                }
                problems.extend(webhook_config::client_config_problems(
                    &webhook["clientConfig"],
                    "spec.conversion.webhook.clientConfig",
                ));
            }
        }
        Some(other) => problems.push(format!(
            "spec.conversion.strategy: Unsupported value: \"{other}\": supported values: \"None\", \"Webhook\""
        )),
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(ApiError::new(
            422,
            "Invalid",
            format!(
                "CustomResourceDefinition.apiextensions.k8s.io \"{name}\" is invalid: {}",
                problems.join(", ")
            ),
        ))
    }
}

fn initial_status(t: &ResourceType, object: &mut Value) {
    if t.is("", "namespaces") {
        object["status"] = json!({"phase": "Active"});
    }
    if t.is("apiextensions.k8s.io", "customresourcedefinitions") {
        let storage: Vec<Value> = object["spec"]["versions"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|v| v["storage"] == true)
            .map(|v| v["name"].clone())
            .collect();
        object["status"] = json!({
            "conditions": [{"type": "NamesAccepted", "status": "True", "reason": "NoConflicts",
                            "message": "no conflicts found", "lastTransitionTime": now()}],
            "acceptedNames": object["spec"]["names"].clone(),
            "storedVersions": storage,
        });
    }
}

pub fn is_established(crd: &Value) -> bool {
    crd.pointer("/status/conditions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .any(|c| c["type"] == "Established" && c["status"] == "True")
}

pub(super) fn crd_status(crd: &Value, script: Establish, reads: u32) -> Value {
    let mut status = crd.get("status").cloned().unwrap_or(json!({}));
    let established = match script {
        Establish::AfterReads(n) => reads > n,
        Establish::Never => false,
    };
    let condition = if established {
        json!({"type": "Established", "status": "True", "reason": "InitialNamesAccepted",
               "message": "the initial names have been accepted", "lastTransitionTime": now()})
    } else {
        json!({"type": "Established", "status": "False", "reason": "Installing",
               "message": "the initial names have not been accepted yet", "lastTransitionTime": now()})
    };
    let mut conditions: Vec<Value> = status["conditions"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .filter(|c| c["type"] != "Established")
        .collect();
    // An Established CRD stays so: only the time of the first transition counts.
    if let Some(previous) = crd
        .pointer("/status/conditions")
        .and_then(Value::as_array)
        .and_then(|cs| cs.iter().find(|c| c["type"] == "Established"))
        && previous["status"] == condition["status"]
    {
        conditions.push(previous.clone());
    } else {
        conditions.push(condition);
    }
    status["conditions"] = Value::Array(conditions);
    status
}

/// Whether a selector pair selects `object`, read as for a built-in kind; a malformed
/// selector selects nothing.
pub fn selects(object: &Value, labels: Option<&str>, fields: Option<&str>) -> bool {
    Selector::parse(labels, fields, false).is_ok_and(|s| s.matches(object))
}

/// The current time in RFC 3339, as the API server writes timestamps.
pub fn now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}
