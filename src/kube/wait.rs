//! Waiting for the cluster: CRDs until Established, Deployments until rolled out (the rules of
//! `kubectl rollout status`), and what to show when a rollout does not finish.

use std::time::Duration;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{Event, Pod};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::Api;
use kube::api::ListParams;
use tokio::time::Instant;

use super::backoff::Backoff;
use super::cluster::Cluster;
use super::error::{Action, KubeError, Reason};

/// A wait outlasts a failure that may pass by itself (the API server restarting, busy or cut
/// off for a while): true after a pause, when it is worth asking again before `deadline`.
/// Its own backoff, apart from the poll's, so a long outage is asked about ever less often.
pub(super) async fn ride_out(failures: &mut Backoff, transient: bool, deadline: Instant) -> bool {
    transient && failures.sleep(deadline).await
}

/// The pauses after failed requests of a wait: client-go's 1 s doubling, capped at 30 s.
pub(super) fn failure_backoff() -> Backoff {
    Backoff::new(Duration::from_secs(1), Duration::from_secs(30))
}

/// True when a CRD object (as JSON) reports the condition Established=True.
pub fn is_established(crd: &serde_json::Value) -> bool {
    crd.pointer("/status/conditions")
        .and_then(serde_json::Value::as_array)
        .into_iter()
        .flatten()
        .any(|c| c["type"] == "Established" && c["status"] == "True")
}

/// How far a run-to-completion object (a Job, a bare Pod) got, read as Helm reads its hooks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Completion {
    Running,
    Succeeded,
    /// Helm's words for it: `job NAME failed: REASON`, `pod NAME failed`.
    Failed(String),
}

/// A Job is done at `Complete=True` and failed at `Failed=True`; a Pod by its phase. Any
/// other kind has nothing to finish, so it counts as done once it exists.
pub fn completion_of(kind: &str, object: &serde_json::Value) -> Completion {
    let name = object
        .pointer("/metadata/name")
        .and_then(serde_json::Value::as_str)
        .unwrap_or_default();
    match kind {
        "Job" => {
            let conditions = object
                .pointer("/status/conditions")
                .and_then(serde_json::Value::as_array)
                .cloned()
                .unwrap_or_default();
            for c in &conditions {
                if c["status"] != "True" {
                    continue;
                }
                if c["type"] == "Complete" {
                    return Completion::Succeeded;
                }
                if c["type"] == "Failed" {
                    let reason = c["reason"].as_str().unwrap_or_default();
                    return Completion::Failed(format!("job {name} failed: {reason}"));
                }
            }
            Completion::Running
        }
        "Pod" => match object
            .pointer("/status/phase")
            .and_then(serde_json::Value::as_str)
        {
            Some("Succeeded") => Completion::Succeeded,
            Some("Failed") => Completion::Failed(format!("pod {name} failed")),
            _ => Completion::Running,
        },
        _ => Completion::Succeeded,
    }
}

/// A Deployment's progress, as `kubectl rollout status` reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rollout {
    pub desired: i32,
    pub updated: i32,
    pub ready: i32,
    pub available: i32,
    pub state: RolloutState,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RolloutState {
    /// Still going; the text says what it waits for.
    Waiting(String),
    Done,
    /// The Deployment's progress deadline passed: waiting longer will not help.
    Failed(String),
}

/// Reads a Deployment's status with the rules of `kubectl rollout status`.
pub fn rollout_of(deployment: &Deployment) -> Rollout {
    let name = deployment.metadata.name.as_deref().unwrap_or_default();
    let desired = deployment
        .spec
        .as_ref()
        .and_then(|s| s.replicas)
        .unwrap_or(1);
    let status = deployment.status.clone().unwrap_or_default();
    let updated = status.updated_replicas.unwrap_or(0);
    let replicas = status.replicas.unwrap_or(0);
    let available = status.available_replicas.unwrap_or(0);
    let ready = status.ready_replicas.unwrap_or(0);
    let generation = deployment.metadata.generation.unwrap_or(0);
    let observed = status.observed_generation.unwrap_or(0);
    let deadline_exceeded = status.conditions.iter().flatten().find(|c| {
        c.type_ == "Progressing" && c.reason.as_deref() == Some("ProgressDeadlineExceeded")
    });
    let state = if generation > observed {
        RolloutState::Waiting("waiting for the deployment spec update to be observed".into())
    } else if let Some(condition) = deadline_exceeded {
        RolloutState::Failed(format!(
            "Deployment \"{name}\" exceeded its progress deadline: {}",
            condition.message.as_deref().unwrap_or("no message")
        ))
    } else if updated < desired {
        RolloutState::Waiting(format!(
            "{updated} of {desired} new replicas have been updated"
        ))
    } else if replicas > updated {
        RolloutState::Waiting(format!(
            "{} old replicas are pending termination",
            replicas - updated
        ))
    } else if available < updated {
        RolloutState::Waiting(format!(
            "{available} of {updated} updated replicas are available"
        ))
    } else {
        RolloutState::Done
    };
    Rollout {
        desired,
        updated,
        ready,
        available,
        state,
    }
}

/// What to show when a rollout does not finish: the Deployment's conditions and the latest
/// events of its pods, oldest first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RolloutReport {
    /// `type=status reason: message` for each condition.
    pub conditions: Vec<String>,
    /// `pod/name: Warning Reason: message` for the latest events.
    pub events: Vec<String>,
}

/// How many pod events a report shows: enough to see a crash loop, few enough to read.
const REPORT_EVENTS: usize = 10;

impl Cluster {
    fn action_on(
        verb: &'static str,
        resource: &str,
        ns: Option<&str>,
        name: Option<&str>,
    ) -> Action {
        Action::new(verb, resource, ns, name)
    }

    /// Waits until the CRD is Established; fails at once when its names were rejected.
    pub async fn wait_established(
        &self,
        name: &str,
        deadline: Instant,
        waited: &str,
    ) -> Result<(), KubeError> {
        let api: Api<CustomResourceDefinition> = Api::all(self.client.clone());
        let mut backoff = Backoff::new(Duration::from_millis(50), Duration::from_secs(1));
        let mut failures = failure_backoff();
        loop {
            let crd = match api.get(name).await {
                Ok(crd) => {
                    failures.reset();
                    crd
                }
                Err(e)
                    if ride_out(&mut failures, Reason::of(&e).is_transient(), deadline).await =>
                {
                    continue;
                }
                Err(e) => {
                    let action = Cluster::action_on(
                        "get",
                        "customresourcedefinitions.apiextensions.k8s.io",
                        None,
                        Some(name),
                    );
                    return Err(self.fail(e, action).await);
                }
            };
            let conditions = crd.status.and_then(|s| s.conditions).unwrap_or_default();
            let is = |type_: &str, status: &str| {
                conditions
                    .iter()
                    .any(|c| c.type_ == type_ && c.status == status)
            };
            if is("Established", "True") {
                return Ok(());
            }
            let describe = || {
                if conditions.is_empty() {
                    "none reported".to_string()
                } else {
                    conditions
                        .iter()
                        .map(|c| {
                            format!(
                                "{}={} {}: {}",
                                c.type_,
                                c.status,
                                c.reason.as_deref().unwrap_or(""),
                                c.message.as_deref().unwrap_or("")
                            )
                        })
                        .collect::<Vec<_>>()
                        .join("; ")
                }
            };
            if is("NamesAccepted", "False") || !backoff.sleep(deadline).await {
                return Err(KubeError::CrdNotEstablished {
                    name: name.to_string(),
                    waited: waited.to_string(),
                    conditions: describe(),
                });
            }
        }
    }

    /// Polls a Job or Pod until it succeeds or fails, or `deadline`; an object that went away
    /// meanwhile counts as finished, as Helm counts a deleted hook.
    pub async fn wait_completion(
        &self,
        manifest: &crate::manifests::Manifest,
        deadline: Instant,
        waited: &str,
    ) -> Result<Completion, KubeError> {
        let mut backoff = Backoff::new(Duration::from_millis(50), Duration::from_secs(2));
        let mut failures = failure_backoff();
        loop {
            let state = match self.get(manifest).await {
                Ok(None) => Completion::Succeeded,
                Ok(Some(object)) => completion_of(manifest.kind(), &object),
                Err(e) if ride_out(&mut failures, e.is_transient(), deadline).await => continue,
                Err(e) => return Err(e),
            };
            failures.reset();
            if state != Completion::Running {
                return Ok(state);
            }
            if !backoff.sleep(deadline).await {
                return Err(KubeError::Timeout {
                    what: format!("{} did not finish", manifest.display_name()),
                    waited: waited.to_string(),
                });
            }
        }
    }

    /// Reads a Deployment's rollout progress once.
    pub async fn rollout(&self, namespace: &str, name: &str) -> Result<Rollout, KubeError> {
        let api: Api<Deployment> = Api::namespaced(self.client.clone(), namespace);
        match api.get(name).await {
            Ok(deployment) => Ok(rollout_of(&deployment)),
            Err(e) => {
                let action =
                    Cluster::action_on("get", "deployments.apps", Some(namespace), Some(name));
                Err(self.fail(e, action).await)
            }
        }
    }

    /// Polls until the Deployment is rolled out, its progress deadline passes, or `deadline`.
    /// `progress` sees every reading, for a spinner.
    pub async fn wait_rollout(
        &self,
        namespace: &str,
        name: &str,
        deadline: Instant,
        mut progress: impl FnMut(&Rollout),
    ) -> Result<Rollout, KubeError> {
        let mut backoff = Backoff::new(Duration::from_millis(250), Duration::from_secs(2));
        let mut failures = failure_backoff();
        loop {
            let rollout = match self.rollout(namespace, name).await {
                Ok(rollout) => rollout,
                Err(e) if ride_out(&mut failures, e.is_transient(), deadline).await => continue,
                Err(e) => return Err(e),
            };
            failures.reset();
            progress(&rollout);
            if !matches!(rollout.state, RolloutState::Waiting(_)) || !backoff.sleep(deadline).await
            {
                return Ok(rollout);
            }
        }
    }

    /// The Deployment's conditions and the latest events of its pods.
    pub async fn rollout_report(
        &self,
        namespace: &str,
        name: &str,
    ) -> Result<RolloutReport, KubeError> {
        let deployments: Api<Deployment> = Api::namespaced(self.client.clone(), namespace);
        let deployment = match deployments.get(name).await {
            Ok(d) => d,
            Err(e) => {
                let action =
                    Cluster::action_on("get", "deployments.apps", Some(namespace), Some(name));
                return Err(self.fail(e, action).await);
            }
        };
        let conditions = deployment
            .status
            .as_ref()
            .and_then(|s| s.conditions.clone())
            .unwrap_or_default()
            .into_iter()
            .map(|c| {
                format!(
                    "{}={} {}: {}",
                    c.type_,
                    c.status,
                    c.reason.unwrap_or_default(),
                    c.message.unwrap_or_default()
                )
            })
            .collect();

        let selector = deployment
            .spec
            .as_ref()
            .and_then(|s| s.selector.match_labels.clone())
            .unwrap_or_default()
            .into_iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(",");
        let pods: Api<Pod> = Api::namespaced(self.client.clone(), namespace);
        let pod_names: Vec<String> = match pods.list(&ListParams::default().labels(&selector)).await
        {
            Ok(list) => list
                .items
                .into_iter()
                .filter_map(|p| p.metadata.name)
                .collect(),
            Err(e) => {
                let action = Cluster::action_on("list", "pods", Some(namespace), None);
                return Err(self.fail(e, action).await);
            }
        };

        let events: Api<Event> = Api::namespaced(self.client.clone(), namespace);
        let mut events: Vec<Event> = match events
            .list(&ListParams::default().fields("involvedObject.kind=Pod"))
            .await
        {
            Ok(list) => list
                .items
                .into_iter()
                .filter(|e| {
                    e.involved_object
                        .name
                        .as_ref()
                        .is_some_and(|n| pod_names.contains(n))
                })
                .collect(),
            Err(e) => {
                let action = Cluster::action_on("list", "events", Some(namespace), None);
                return Err(self.fail(e, action).await);
            }
        };
        events.sort_by_key(event_time);
        let skip = events.len().saturating_sub(REPORT_EVENTS);
        let events = events
            .into_iter()
            .skip(skip)
            .map(|e| {
                format!(
                    "pod/{}: {} {}: {}",
                    e.involved_object.name.unwrap_or_default(),
                    e.type_.unwrap_or_default(),
                    e.reason.unwrap_or_default(),
                    e.message.unwrap_or_default().trim()
                )
            })
            .collect();
        Ok(RolloutReport { conditions, events })
    }
}

/// Events carry their time in one of three fields depending on who wrote them.
fn event_time(event: &Event) -> String {
    event
        .last_timestamp
        .as_ref()
        .map(|t| t.0.to_string())
        .or_else(|| event.event_time.as_ref().map(|t| t.0.to_string()))
        .or_else(|| {
            event
                .metadata
                .creation_timestamp
                .as_ref()
                .map(|t| t.0.to_string())
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jobs_and_pods_finish_as_helm_reads_them() {
        let job = |conditions: serde_json::Value| serde_json::json!({"metadata": {"name": "j"}, "status": {"conditions": conditions}});
        assert_eq!(
            completion_of("Job", &job(serde_json::json!([]))),
            Completion::Running
        );
        assert_eq!(
            completion_of(
                "Job",
                &job(serde_json::json!([{"type": "Complete", "status": "True"}]))
            ),
            Completion::Succeeded
        );
        assert_eq!(
            completion_of(
                "Job",
                &job(
                    serde_json::json!([{"type": "Failed", "status": "True", "reason": "DeadlineExceeded"}])
                )
            ),
            Completion::Failed("job j failed: DeadlineExceeded".into())
        );
        let pod = |phase: &str| serde_json::json!({"metadata": {"name": "p"}, "status": {"phase": phase}});
        assert_eq!(completion_of("Pod", &pod("Running")), Completion::Running);
        assert_eq!(
            completion_of("Pod", &pod("Succeeded")),
            Completion::Succeeded
        );
        assert_eq!(
            completion_of("Pod", &pod("Failed")),
            Completion::Failed("pod p failed".into())
        );
        assert_eq!(completion_of("ConfigMap", &pod("")), Completion::Succeeded);
    }

    fn deployment(json: serde_json::Value) -> Deployment {
        serde_json::from_value(json).unwrap()
    }

    #[test]
    fn follows_kubectl_rollout_status() {
        let waiting = deployment(serde_json::json!({
            "metadata": {"name": "op", "generation": 2},
            "spec": {"replicas": 1, "selector": {}, "template": {}},
            "status": {"observedGeneration": 1}
        }));
        assert!(
            matches!(rollout_of(&waiting).state, RolloutState::Waiting(m) if m.contains("observed"))
        );

        let unavailable = deployment(serde_json::json!({
            "metadata": {"name": "op", "generation": 2},
            "spec": {"replicas": 1, "selector": {}, "template": {}},
            "status": {"observedGeneration": 2, "replicas": 1, "updatedReplicas": 1}
        }));
        assert_eq!(
            rollout_of(&unavailable).state,
            RolloutState::Waiting("0 of 1 updated replicas are available".into())
        );

        let done = deployment(serde_json::json!({
            "metadata": {"name": "op", "generation": 2},
            "spec": {"replicas": 1, "selector": {}, "template": {}},
            "status": {"observedGeneration": 2, "replicas": 1, "updatedReplicas": 1,
                       "readyReplicas": 1, "availableReplicas": 1}
        }));
        let rollout = rollout_of(&done);
        assert_eq!(rollout.state, RolloutState::Done);
        assert_eq!((rollout.ready, rollout.desired), (1, 1));

        let failed = deployment(serde_json::json!({
            "metadata": {"name": "op", "generation": 1},
            "spec": {"selector": {}, "template": {}},
            "status": {"observedGeneration": 1, "conditions": [{
                "type": "Progressing", "status": "False", "reason": "ProgressDeadlineExceeded",
                "message": "ReplicaSet \"op-1\" has timed out progressing."}]}
        }));
        assert!(
            matches!(rollout_of(&failed).state, RolloutState::Failed(m) if m.contains("timed out"))
        );
    }
}
