//! Server-side apply with field manager `operator-rs`, reporting for each object whether the
//! apply created, changed or left it alone.

use kube::api::{DynamicObject, Patch, PatchParams, PostParams};
use serde_json::Value;

use super::applied::{Record, our_apply_time, resource_version};
use super::cluster::{Cluster, FIELD_MANAGER, Served};
use super::error::{KubeError, Reason, get_optional};
use crate::manifests::Manifest;
use crate::manifests::Scope;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Created,
    Configured,
    Unchanged,
    /// Someone changed fields of it in the cluster and ownership said not to overwrite them.
    Kept,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Created => "created",
            Outcome::Configured => "configured",
            Outcome::Unchanged => "unchanged",
            Outcome::Kept => "kept (changed in the cluster since; not overwritten)",
        }
    }
}

/// How the server should treat a write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteMode {
    Persist,
    /// `dryRun=All`: the server validates and answers as if it wrote, but does not.
    ServerDryRun,
}

/// The result of applying one object.
#[derive(Debug, Clone)]
pub struct Applied {
    pub outcome: Outcome,
    /// The object as the server returned it.
    pub object: Value,
}

/// Whether fields other managers own may be taken over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ownership {
    /// The deploy files are the truth for what they set: conflicts are overridden, as
    /// `kubectl apply --server-side --force-conflicts` does.
    Force,
    /// A conflict leaves the object as it is ([`Outcome::Kept`]): for sample custom
    /// resources, which users edit in the cluster.
    Respect,
}

impl Cluster {
    /// Creates the namespace unless it exists. One request in the usual cases.
    pub async fn ensure_namespace(
        &self,
        name: &str,
        mode: WriteMode,
    ) -> Result<Outcome, KubeError> {
        let manifest = Manifest::namespace_object(name);
        let served = self.served(&manifest)?;
        let api = self.api_for(served, None);
        let object: DynamicObject =
            serde_json::from_value(manifest.object.clone()).map_err(|e| {
                KubeError::BadResponse {
                    endpoint: self.endpoint.clone(),
                    action: Cluster::action("create", served, None, Some(name)),
                    message: e.to_string(),
                }
            })?;
        let params = PostParams {
            dry_run: mode == WriteMode::ServerDryRun,
            field_manager: Some(FIELD_MANAGER.to_string()),
        };
        match api.create(&params, &object).await {
            Ok(_) => Ok(Outcome::Created),
            Err(e)
                if Reason::of(&e) == Reason::Conflict
                    || Reason::of(&e) == Reason::AlreadyExists =>
            {
                Ok(Outcome::Unchanged)
            }
            // Users with rights inside the namespace only cannot create namespaces; that is
            // fine when it exists already.
            Err(kube::Error::Api(status)) if Reason::of_status(&status) == Reason::Forbidden => {
                match get_optional(&api, name).await {
                    Ok(Some(_)) => Ok(Outcome::Unchanged),
                    _ => {
                        let action = Cluster::action("create", served, None, Some(name));
                        Err(self.fail(kube::Error::Api(status), action).await)
                    }
                }
            }
            Err(e) => {
                let action = Cluster::action("create", served, None, Some(name));
                Err(self.fail(e, action).await)
            }
        }
    }

    /// Applies one object. A file applied last time exactly as it is now goes in one
    /// request, its outcome told by the answer (see [`super::applied`]); otherwise the object
    /// is read first so that the outcome can be told apart (a no-op apply leaves the
    /// resourceVersion as it was).
    pub async fn apply(
        &self,
        manifest: &Manifest,
        mode: WriteMode,
        ownership: Ownership,
    ) -> Result<Applied, KubeError> {
        let served = self.served(manifest)?;
        let (namespace, name) = (manifest.namespace(), manifest.name());
        let api = self.api_for(served, namespace);
        let mut params = PatchParams::apply(FIELD_MANAGER);
        params.force = ownership == Ownership::Force;
        params.dry_run = mode == WriteMode::ServerDryRun;

        if mode == WriteMode::Persist
            && ownership == Ownership::Force
            && let Some(record) = self.applied.unchanged_since(manifest)
        {
            let (created, after) = match self.apply_raw(served, manifest, &params).await {
                Ok(answer) => answer,
                Err(e) => {
                    let action = Cluster::action("patch", served, namespace, Some(name));
                    return Err(self.fail(e, action).await);
                }
            };
            let outcome = if created {
                Outcome::Created
            } else if resource_version(&after).as_deref() == Some(record.resource_version.as_str())
            {
                Outcome::Unchanged
            } else if our_apply_time(&after) != record.applied_at {
                // The server moved our entry's time: this apply changed the object back.
                Outcome::Configured
            } else {
                // Someone else wrote since (a controller's status); this apply did not.
                Outcome::Unchanged
            };
            self.applied.set(manifest, Record::of(manifest, &after));
            return Ok(Applied {
                outcome,
                object: after,
            });
        }

        let before = match get_optional(&api, name).await {
            Ok(before) => before,
            Err(e) => {
                let action = Cluster::action("get", served, namespace, Some(name));
                return Err(self.fail(e, action).await);
            }
        };

        let after = match api
            .patch(name, &params, &Patch::Apply(&manifest.object))
            .await
        {
            Ok(after) => after,
            Err(e) if Reason::of(&e) == Reason::Conflict && ownership == Ownership::Respect => {
                let object = serde_json::to_value(&before).unwrap_or(Value::Null);
                return Ok(Applied {
                    outcome: Outcome::Kept,
                    object,
                });
            }
            Err(e) => {
                let action = Cluster::action("patch", served, namespace, Some(name));
                return Err(self.fail(e, action).await);
            }
        };
        let after = serde_json::to_value(&after).map_err(|e| KubeError::BadResponse {
            endpoint: self.endpoint.clone(),
            action: Cluster::action("patch", served, namespace, Some(name)),
            message: e.to_string(),
        })?;
        if mode == WriteMode::Persist {
            self.applied.set(manifest, Record::of(manifest, &after));
        }
        let outcome = match before {
            None => Outcome::Created,
            Some(before) => {
                let before = serde_json::to_value(&before).unwrap_or(Value::Null);
                if same_object(&before, &after, mode) {
                    Outcome::Unchanged
                } else {
                    Outcome::Configured
                }
            }
        };
        Ok(Applied {
            outcome,
            object: after,
        })
    }

    /// Server-side apply sent by hand, for what kube's API hides: whether the answer was
    /// `201 Created`.
    async fn apply_raw(
        &self,
        served: &Served,
        manifest: &Manifest,
        params: &PatchParams,
    ) -> Result<(bool, Value), kube::Error> {
        let namespace = match served.scope {
            Scope::Namespaced => manifest.namespace(),
            Scope::Cluster => None,
        };
        let url = <DynamicObject as kube::Resource>::url_path(&served.resource, namespace);
        let request = kube::core::Request::new(url)
            .patch(manifest.name(), params, &Patch::Apply(&manifest.object))
            .map_err(kube::Error::BuildRequest)?;
        let answer = super::raw::send(&self.client, request).await?;
        let object = serde_json::from_slice(&answer.body).map_err(kube::Error::SerdeError)?;
        Ok((answer.status == http::StatusCode::CREATED, object))
    }

    /// Keeps what this run applied for the next one; failing to only costs reads then.
    pub fn save_applied(&self) {
        let _ = self.applied.save();
    }
}

/// A persisted write that changes nothing keeps the resourceVersion. A dry run never moves
/// it, so there the content is compared, minus what the server stamps on every write.
fn same_object(before: &Value, after: &Value, mode: WriteMode) -> bool {
    let version = |v: &Value| v.pointer("/metadata/resourceVersion").cloned();
    match mode {
        WriteMode::Persist => version(before) == version(after),
        WriteMode::ServerDryRun => strip_server_stamps(before) == strip_server_stamps(after),
    }
}

fn strip_server_stamps(object: &Value) -> Value {
    let mut object = object.clone();
    if let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        for field in ["resourceVersion", "managedFields", "generation"] {
            metadata.remove(field);
        }
    }
    object
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn outcome_follows_the_resource_version() {
        let before = json!({"metadata": {"resourceVersion": "5"}, "spec": {"a": 1}});
        let same = json!({"metadata": {"resourceVersion": "5"}, "spec": {"a": 1}});
        let moved = json!({"metadata": {"resourceVersion": "6"}, "spec": {"a": 2}});
        assert!(same_object(&before, &same, WriteMode::Persist));
        assert!(!same_object(&before, &moved, WriteMode::Persist));
    }

    #[test]
    fn dry_runs_compare_content() {
        let before =
            json!({"metadata": {"resourceVersion": "5", "managedFields": [1]}, "spec": {"a": 1}});
        let same =
            json!({"metadata": {"resourceVersion": "5", "managedFields": [2]}, "spec": {"a": 1}});
        let changed = json!({"metadata": {"resourceVersion": "5"}, "spec": {"a": 2}});
        assert!(same_object(&before, &same, WriteMode::ServerDryRun));
        assert!(!same_object(&before, &changed, WriteMode::ServerDryRun));
    }
}
