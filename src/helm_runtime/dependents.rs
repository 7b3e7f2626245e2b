//! Drift watches: every kind a release renders is watched (metadata only, narrowed by the
//! chart label every object carries), and a change to or deletion of one of its objects
//! triggers a reconcile of the custom resource it belongs to, found by its controller owner
//! reference or, for objects that cannot have one, by the helm-operator's primary-resource
//! annotations. As the helm-operator's dependent watches, a watch per kind starts with the
//! first release that renders the kind and lasts as long as the runtime.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use futures::StreamExt;
use kube::api::{Api, DynamicObject, PartialObjectMeta};
use kube::discovery::ApiResource;
use kube::runtime::WatchStreamExt;
use kube::runtime::watcher::{self, Event};
use kube::{Client, ResourceExt};
use tokio::sync::mpsc::UnboundedSender;

use super::release_objects::{PRIMARY_RESOURCE_ANNOTATION, PRIMARY_RESOURCE_TYPE_ANNOTATION};
use crate::kube::Served;
use crate::manifests::Scope;

/// The custom resource kind whose objects are watched, and where its reconciles are queued
/// (each owner as a bare object: its name and namespace).
pub struct Dependents {
    client: Client,
    owner: ApiResource,
    /// `key=value` every object of this kind's releases carries.
    label: String,
    /// The namespaces watched; empty: all.
    namespaces: Vec<String>,
    triggers: Vec<UnboundedSender<DynamicObject>>,
    watched: Mutex<HashSet<(String, String)>>,
    log: super::log::Log,
}

impl Dependents {
    pub fn new(
        client: Client,
        owner: ApiResource,
        label: String,
        namespaces: Vec<String>,
        triggers: Vec<UnboundedSender<DynamicObject>>,
        log: super::log::Log,
    ) -> Dependents {
        Dependents {
            client,
            owner,
            label,
            namespaces,
            triggers,
            watched: Mutex::new(HashSet::new()),
            log,
        }
    }

    /// Starts a watch of each kind of `kinds` not watched yet. The watches stop when the
    /// controllers are all gone.
    pub fn watch(self: &Arc<Self>, kinds: &[Served]) {
        for served in kinds {
            let key = (
                served.resource.api_version.clone(),
                served.resource.kind.clone(),
            );
            {
                // A poisoned lock only means another watch start panicked; the set is intact.
                let mut watched = self.watched.lock().unwrap_or_else(|e| e.into_inner());
                if !watched.insert(key) {
                    continue;
                }
            }
            self.log.info(&format!(
                "Watching dependent resource {} {} of {}",
                served.resource.api_version, served.resource.kind, self.owner.kind
            ));
            let apis: Vec<Api<PartialObjectMeta<DynamicObject>>> =
                if served.scope == Scope::Cluster || self.namespaces.is_empty() {
                    vec![Api::all_with(self.client.clone(), &served.resource)]
                } else {
                    self.namespaces
                        .iter()
                        .map(|ns| Api::namespaced_with(self.client.clone(), ns, &served.resource))
                        .collect()
                };
            for api in apis {
                let this = self.clone();
                let kind = format!("{} {}", served.resource.api_version, served.resource.kind);
                tokio::spawn(async move { this.follow(api, kind).await });
            }
        }
    }

    /// Follows one watch for good. A failed watch (the API server away, the resourceVersion
    /// expired) is started again after client-go's reflector backoff (800 ms doubling to
    /// 30 s, jittered), relisting when it must; each failure is one line with how many came
    /// in a row, and the recovery one more. An object that went while the watch was down
    /// is missing from the relist, and its owner is reconciled then, as an informer's
    /// relist reports the deletions it missed.
    async fn follow(&self, api: Api<PartialObjectMeta<DynamicObject>>, kind: String) {
        let config = watcher::Config::default().labels(&self.label);
        let mut events = std::pin::pin!(watcher::watcher(api, config).default_backoff());
        let mut failures = 0u32;
        // The owners of the objects seen, by the objects' namespace and name; and, while a
        // relist is under way, the same for the objects it lists.
        let mut known: HashMap<(Option<String>, String), DynamicObject> = HashMap::new();
        let mut relisted: Option<HashMap<(Option<String>, String), DynamicObject>> = None;
        while let Some(event) = events.next().await {
            if event.is_ok() && failures > 0 {
                self.log.info(&format!(
                    "dependent watch of {} ({kind}) works again after {failures} failed attempts",
                    self.owner.kind
                ));
                failures = 0;
            }
            let key =
                |object: &PartialObjectMeta<DynamicObject>| (object.namespace(), object.name_any());
            let owners: Vec<DynamicObject> = match event {
                // Every watch event is a change somebody made (a no-op apply writes nothing);
                // the objects listed when the watch (re)starts are not.
                Ok(Event::Apply(object)) => {
                    let owner = self.owner_of(&object);
                    if let Some(owner) = &owner {
                        known.insert(key(&object), owner.clone());
                    }
                    owner.into_iter().collect()
                }
                Ok(Event::Delete(object)) => {
                    known.remove(&key(&object));
                    self.owner_of(&object).into_iter().collect()
                }
                Ok(Event::Init) => {
                    relisted = Some(HashMap::new());
                    continue;
                }
                Ok(Event::InitApply(object)) => {
                    if let (Some(listed), Some(owner)) = (&mut relisted, self.owner_of(&object)) {
                        listed.insert(key(&object), owner);
                    }
                    continue;
                }
                Ok(Event::InitDone) => {
                    let listed = relisted.take().unwrap_or_default();
                    let gone: Vec<DynamicObject> = known
                        .iter()
                        .filter(|(object, _)| !listed.contains_key(*object))
                        .map(|(_, owner)| owner.clone())
                        .collect();
                    known = listed;
                    gone
                }
                Err(e) => {
                    failures = failures.saturating_add(1);
                    self.log.error(&format!(
                        "dependent watch of {} ({kind}): {e} (failed {failures} times in a row; retrying with backoff)",
                        self.owner.kind
                    ));
                    continue;
                }
            };
            for owner in owners {
                let sent = self
                    .triggers
                    .iter()
                    .filter(|t| t.send(owner.clone()).is_ok())
                    .count();
                if sent == 0 {
                    return;
                }
            }
        }
    }

    /// The custom resource `object` belongs to, if one of this kind.
    fn owner_of(&self, object: &PartialObjectMeta<DynamicObject>) -> Option<DynamicObject> {
        let group = |api_version: &str| {
            crate::manifests::split_api_version(api_version)
                .0
                .to_string()
        };
        for reference in object.owner_references() {
            if reference.controller == Some(true)
                && reference.kind == self.owner.kind
                && group(&reference.api_version) == self.owner.group
            {
                let owner = DynamicObject::new(&reference.name, &self.owner);
                return Some(match object.namespace() {
                    Some(namespace) => owner.within(&namespace),
                    None => owner,
                });
            }
        }
        let annotations = object.annotations();
        let kind = annotations.get(PRIMARY_RESOURCE_TYPE_ANNOTATION)?;
        if *kind != format!("{}.{}", self.owner.kind, self.owner.group) {
            return None;
        }
        let (namespace, name) = annotations
            .get(PRIMARY_RESOURCE_ANNOTATION)?
            .split_once('/')?;
        let owner = DynamicObject::new(name, &self.owner);
        Some(if namespace.is_empty() {
            owner
        } else {
            owner.within(namespace)
        })
    }
}
