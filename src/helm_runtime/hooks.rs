//! Running a release's hooks for one event (`pre-install`, `post-upgrade`, ...) the way Helm's
//! action package does: by weight, then name; each one created (never applied), then waited
//! for when it runs to completion (a Job until `Complete`, a Pod until `Succeeded`); its delete
//! policies honoured (`before-hook-creation` when it names none, `hook-succeeded` once every
//! hook of the event succeeded, `hook-failed` when it failed); its last run recorded in the
//! release. CustomResourceDefinition hooks are never deleted: that would take every custom
//! resource of the kind with them.

use std::collections::BTreeMap;
use std::time::Duration;

use k8s_openapi::jiff::Timestamp;
use thiserror::Error;
use tokio::time::Instant;

use super::release_objects::{self, ObjectError, Owner, Unserved};
use super::release_store::ReleaseStore;
use super::stored_release::{Hook, HookExecution, Release};
use crate::duration::display;
use crate::kube::{Cluster, Completion, KubeError};
use crate::manifests::Manifest;

pub const BEFORE_HOOK_CREATION: &str = "before-hook-creation";
pub const HOOK_SUCCEEDED: &str = "hook-succeeded";
pub const HOOK_FAILED: &str = "hook-failed";

/// Helm's phases of a hook's last run.
const PHASE_RUNNING: &str = "Running";
const PHASE_UNKNOWN: &str = "Unknown";
const PHASE_SUCCEEDED: &str = "Succeeded";
const PHASE_FAILED: &str = "Failed";

#[derive(Debug, Error)]
pub enum HookError {
    #[error("{event} hook {path}: {source}")]
    Object {
        event: String,
        path: String,
        #[source]
        source: ObjectError,
    },
    #[error("{event} hook {path}: {source}")]
    Api {
        event: String,
        path: String,
        // Boxed: kube's errors are large.
        #[source]
        source: Box<KubeError>,
    },
    /// The hook ran and failed; `message` is Helm's (`job NAME failed: REASON`).
    #[error("{event} hook {path} failed: {message}")]
    Failed {
        event: String,
        path: String,
        message: String,
    },
}

/// What every hook of a release shares.
pub struct HookContext<'a> {
    pub store: &'a ReleaseStore,
    pub namespace: &'a str,
    /// Labels put on every hook object (the helm-operator's chart label).
    pub labels: &'a BTreeMap<String, String>,
    /// What the hook objects belong to, as the release's other objects.
    pub owner: Option<&'a Owner>,
    /// How long one hook may take to be deleted, or to run to completion.
    pub timeout: Duration,
}

/// Runs the hooks of `event`; `release.hooks` gets their last runs (and the default delete
/// policy, as Helm writes it into the release).
pub async fn run(
    cluster: &mut Cluster,
    context: &HookContext<'_>,
    release: &mut Release,
    event: &str,
) -> Result<(), HookError> {
    let mut executing: Vec<usize> = (0..release.hooks.len())
        .filter(|i| release.hooks[*i].events.iter().any(|e| e == event))
        .collect();
    // Hooks come in kind order; a stable sort keeps it among equal weights and names.
    executing.sort_by(|a, b| {
        let (a, b) = (&release.hooks[*a], &release.hooks[*b]);
        a.weight.cmp(&b.weight).then_with(|| a.name.cmp(&b.name))
    });

    for &index in &executing {
        let hook = &mut release.hooks[index];
        if hook.delete_policies.is_empty() {
            hook.delete_policies = vec![BEFORE_HOOK_CREATION.to_string()];
        }
        let hook = hook.clone();
        delete_by_policy(cluster, context, &hook, event, BEFORE_HOOK_CREATION).await?;
        let objects = objects_of(cluster, context, &hook, event, Unserved::Refuse).await?;

        release.hooks[index].last_run = HookExecution {
            started_at: Some(Timestamp::now()),
            phase: PHASE_RUNNING.to_string(),
            ..HookExecution::default()
        };
        // Helm records the running hook and carries on when that fails: the record is for
        // people reading the release, and the hook itself matters more.
        let _ = context.store.update(release).await;
        release.hooks[index].last_run.phase = PHASE_UNKNOWN.to_string();

        let outcome = create_and_wait(cluster, context, &objects).await;
        let last_run = &mut release.hooks[index].last_run;
        last_run.completed_at = Some(Timestamp::now());
        match outcome {
            Ok(()) => last_run.phase = PHASE_SUCCEEDED.to_string(),
            Err(failure) => {
                last_run.phase = PHASE_FAILED.to_string();
                // As in Helm, a failure to clean up does not hide the failure itself.
                let _ = delete_by_policy(cluster, context, &hook, event, HOOK_FAILED).await;
                return Err(failure.into_error(event, &hook.path));
            }
        }
    }

    for &index in executing.iter().rev() {
        let hook = release.hooks[index].clone();
        delete_by_policy(cluster, context, &hook, event, HOOK_SUCCEEDED).await?;
    }
    Ok(())
}

/// Why creating or waiting for a hook's objects failed.
enum Failure {
    Api(KubeError),
    Failed(String),
}

impl Failure {
    fn into_error(self, event: &str, path: &str) -> HookError {
        match self {
            Failure::Api(source) => HookError::Api {
                event: event.to_string(),
                path: path.to_string(),
                source: Box::new(source),
            },
            Failure::Failed(message) => HookError::Failed {
                event: event.to_string(),
                path: path.to_string(),
                message,
            },
        }
    }
}

async fn create_and_wait(
    cluster: &Cluster,
    context: &HookContext<'_>,
    objects: &[Manifest],
) -> Result<(), Failure> {
    for object in objects {
        cluster.create(object).await.map_err(Failure::Api)?;
    }
    let waited = crate::duration::display(context.timeout);
    for object in objects {
        let deadline = Instant::now() + context.timeout;
        match cluster
            .wait_completion(object, deadline, &waited)
            .await
            .map_err(Failure::Api)?
        {
            Completion::Failed(message) => return Err(Failure::Failed(message)),
            Completion::Succeeded | Completion::Running => {}
        }
    }
    Ok(())
}

/// The hook's objects, placed in the release namespace and labelled.
async fn objects_of(
    cluster: &mut Cluster,
    context: &HookContext<'_>,
    hook: &Hook,
    event: &str,
    unserved: Unserved,
) -> Result<Vec<Manifest>, HookError> {
    let mut objects =
        release_objects::parse(&hook.path, &hook.manifest).map_err(|source| HookError::Object {
            event: event.to_string(),
            path: hook.path.clone(),
            source,
        })?;
    release_objects::place(cluster, &mut objects, context.namespace, unserved)
        .await
        .map_err(|source| HookError::Api {
            event: event.to_string(),
            path: hook.path.clone(),
            source: Box::new(source),
        })?;
    for object in &mut objects {
        release_objects::add_labels(object, context.labels);
        if let Some(owner) = context.owner {
            release_objects::set_owner(object, owner);
        }
    }
    Ok(objects)
}

/// Deletes the hook's objects when it has `policy`, and waits until they are gone so that
/// the next creation does not collide with them.
async fn delete_by_policy(
    cluster: &mut Cluster,
    context: &HookContext<'_>,
    hook: &Hook,
    event: &str,
    policy: &str,
) -> Result<(), HookError> {
    if hook.kind == "CustomResourceDefinition" || !hook.delete_policies.iter().any(|p| p == policy)
    {
        return Ok(());
    }
    let objects = objects_of(cluster, context, hook, event, Unserved::Skip).await?;
    let api_error = |source: KubeError| HookError::Api {
        event: event.to_string(),
        path: hook.path.clone(),
        source: Box::new(source),
    };
    for object in &objects {
        cluster.delete(object).await.map_err(api_error)?;
    }
    let deadline = Instant::now() + context.timeout;
    let waited = display(context.timeout);
    for object in &objects {
        cluster
            .wait_gone(object, deadline, &waited)
            .await
            .map_err(api_error)?;
    }
    Ok(())
}
