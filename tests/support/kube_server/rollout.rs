//! The controllers a deploy and an operator wait for, scripted by the tests: CRDs that become
//! Established, Deployments whose status follows a rollout, and Jobs (Helm's hooks) that
//! finish.
//!
//! A Job completes when it is first read after its creation or at the next step of the
//! server's clock, whichever comes first, so that pollers and watchers (real Helm) both see it
//! finish (`Complete=True`, one pod succeeded); or it fails (`Failed=True`, reason `BackoffLimitExceeded`) when the test named it
//! with `KubeServer::fail_job`; its pods are not made.
//!
//! A Deployment's status is written by the server, as kube-controller-manager would, from
//! `spec.replicas` and `metadata.generation` (`observedGeneration`, `replicas`,
//! `updatedReplicas`, `readyReplicas`, `availableReplicas`, the `Available`, `Progressing` and
//! `ReplicaFailure` conditions). A new generation (a spec change, `spec.replicas` included)
//! starts a new rollout. Read-driven scripts (`AfterPolls`, `Never`) move on GETs of the
//! Deployment, as `deploy` polls it; the others also move on the server's own clock (a step
//! every 50 ms), so an operator that only watches sees its Deployment progress. No
//! ReplicaSets or Pods are made, except the failing Pod of `Never`.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::store::{Key, State, Writer, crd_status};

/// How Deployments progress once their spec changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rollout {
    /// Available after this many reads of the Deployment (each poll is a read).
    AfterPolls(u32),
    /// Never available: a pod that cannot pull its image, with events saying so.
    Never,
    /// Available once a generation has been rolling out this long.
    AfterDelay(Duration),
    /// Rolling out until the test calls `KubeServer::complete_rollout`, for each generation.
    Manual,
    /// Stuck: `Progressing=False` with reason `ProgressDeadlineExceeded`.
    DeadlineExceeded,
    /// Pods cannot be created: `ReplicaFailure=True` with reason `FailedCreate`.
    ReplicaFailure,
}

impl Rollout {
    fn read_driven(self) -> bool {
        matches!(self, Rollout::AfterPolls(_) | Rollout::Never)
    }
}

/// Where a Deployment's rollout of one generation stands.
#[derive(Debug, Clone, Copy)]
pub struct Progress {
    generation: i64,
    since: Instant,
    completed: bool,
}

impl State {
    fn script_for(&self, key: &Key) -> Rollout {
        self.scripts
            .rollout_for
            .get(&(key.namespace.clone(), key.name.clone()))
            .copied()
            .unwrap_or(self.scripts.rollout)
    }

    fn progress(&mut self, key: &Key, generation: i64) -> Progress {
        let entry = self.rollouts.entry(key.clone()).or_insert(Progress {
            generation,
            since: Instant::now(),
            completed: false,
        });
        if entry.generation != generation {
            *entry = Progress {
                generation,
                since: Instant::now(),
                completed: false,
            };
        }
        *entry
    }

    /// Moves the scripted controllers on one read.
    pub(super) fn observe(&mut self, key: &Key) {
        let Some(object) = self.objects.get(key).cloned() else {
            return;
        };
        let generation = object["metadata"]["generation"].as_i64().unwrap_or(0);
        let entry = self.reads.entry(key.clone()).or_insert((generation, 0));
        if entry.0 != generation {
            *entry = (generation, 0);
        }
        entry.1 += 1;
        let reads = entry.1;
        if key.group == "apps" && key.plural == "deployments" {
            let script = self.script_for(key);
            if script == Rollout::Never && reads == 1 {
                self.fail_pod(&object);
            }
            self.set_deployment_status(key, object, script, reads);
        } else if key.plural == "customresourcedefinitions" {
            let status = crd_status(&object, self.scripts.establish, reads);
            self.set_status(key, object, status);
        } else if key.group == "batch" && key.plural == "jobs" {
            self.finish_job(key, object);
        }
    }

    /// A Job that has not finished yet finishes.
    fn finish_job(&mut self, key: &Key, object: Value) {
        if !unfinished_job(&object) {
            return;
        }
        let fails = self.scripts.failing_jobs.contains(&key.name);
        self.set_status(key, object, job_status(fails));
    }

    /// One step of the server's clock: clock-driven rollouts move on.
    pub fn tick(&mut self) {
        let deployments: Vec<(Key, Value)> = self
            .objects
            .iter()
            .filter(|(k, _)| k.group == "apps" && k.plural == "deployments")
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        for (key, object) in deployments {
            let script = self.script_for(&key);
            if !script.read_driven() {
                let reads = self.reads.get(&key).map_or(0, |r| r.1);
                self.set_deployment_status(&key, object, script, reads);
            }
        }
        let jobs: Vec<(Key, Value)> = self
            .objects
            .iter()
            .filter(|(k, v)| k.group == "batch" && k.plural == "jobs" && unfinished_job(v))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        for (key, object) in jobs {
            self.finish_job(&key, object);
        }
    }

    /// Completes the rollout of a `Rollout::Manual` Deployment's current generation.
    pub fn complete_rollout(&mut self, namespace: &str, name: &str) {
        let key = Key {
            group: "apps".into(),
            plural: "deployments".into(),
            namespace: namespace.into(),
            name: name.into(),
        };
        let Some(object) = self.objects.get(&key).cloned() else {
            return;
        };
        let generation = object["metadata"]["generation"].as_i64().unwrap_or(0);
        self.progress(&key, generation);
        if let Some(progress) = self.rollouts.get_mut(&key) {
            progress.completed = true;
        }
        let script = self.script_for(&key);
        let reads = self.reads.get(&key).map_or(0, |r| r.1);
        self.set_deployment_status(&key, object, script, reads);
    }

    fn set_deployment_status(&mut self, key: &Key, object: Value, script: Rollout, reads: u32) {
        let generation = object["metadata"]["generation"].as_i64().unwrap_or(1);
        let progress = self.progress(key, generation);
        let state = match script {
            Rollout::AfterPolls(n) if reads > n => Phase::Available,
            Rollout::AfterDelay(d) if progress.since.elapsed() >= d => Phase::Available,
            Rollout::Manual if progress.completed => Phase::Available,
            Rollout::DeadlineExceeded => Phase::Stuck,
            Rollout::ReplicaFailure => Phase::Failing,
            _ => Phase::Progressing,
        };
        let status = deployment_status(&object, state);
        self.set_status(key, object, status);
    }

    fn set_status(&mut self, key: &Key, mut object: Value, status: Value) {
        if object.get("status") == Some(&status) {
            return;
        }
        object["status"] = status;
        let version = self.next_version();
        object["metadata"]["resourceVersion"] = Value::String(version.to_string());
        self.commit(key.clone(), Some(object), "MODIFIED");
    }

    /// A pod that cannot pull its image, and the kubelet's events about it.
    fn fail_pod(&mut self, deployment: &Value) {
        let namespace = deployment["metadata"]["namespace"]
            .as_str()
            .unwrap_or("default");
        let name = deployment["metadata"]["name"].as_str().unwrap_or_default();
        let image = deployment
            .pointer("/spec/template/spec/containers/0/image")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let labels = deployment
            .pointer("/spec/template/metadata/labels")
            .cloned()
            .unwrap_or(json!({}));
        let pod_name = format!("{name}-5d8f7c6b9-x7k2p");
        let pods = self.builtin("", "pods");
        let pod = json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": pod_name, "namespace": namespace, "labels": labels},
            "spec": deployment.pointer("/spec/template/spec").cloned().unwrap_or(json!({})),
        });
        let _ = self.create(
            &pods,
            Some(namespace),
            pod,
            Writer::new("kube-controller-manager"),
        );
        let events = self.builtin("", "events");
        for (i, (reason, message)) in [
            (
                "Failed",
                format!("Failed to pull image \"{image}\": not found"),
            ),
            ("BackOff", format!("Back-off pulling image \"{image}\"")),
        ]
        .into_iter()
        .enumerate()
        {
            let event = json!({
                "apiVersion": "v1", "kind": "Event",
                "metadata": {"name": format!("{pod_name}.{i}"), "namespace": namespace},
                "involvedObject": {"apiVersion": "v1", "kind": "Pod", "name": pod_name, "namespace": namespace},
                "reason": reason, "message": message, "type": "Warning", "count": 1,
                "lastTimestamp": format!("2025-01-01T00:00:0{i}Z"),
                "source": {"component": "kubelet"},
            });
            let _ = self.create(&events, Some(namespace), event, Writer::new("kubelet"));
        }
    }
}

/// A Job without conditions has not finished.
fn unfinished_job(job: &Value) -> bool {
    job.pointer("/status/conditions").is_none()
}

/// A finished Job's status, as the Job controller writes it.
fn job_status(failed: bool) -> Value {
    let time = "2025-01-01T00:00:00Z";
    if failed {
        return json!({
            "failed": 1, "startTime": time,
            "conditions": [{"type": "Failed", "status": "True", "reason": "BackoffLimitExceeded",
                            "message": "Job has reached the specified backoff limit",
                            "lastTransitionTime": time}],
        });
    }
    json!({
        "succeeded": 1, "startTime": time, "completionTime": time,
        "conditions": [{"type": "Complete", "status": "True", "lastTransitionTime": time}],
    })
}

/// Where a rollout stands, as its status shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Progressing,
    Available,
    Stuck,
    Failing,
}

fn deployment_status(deployment: &Value, state: Phase) -> Value {
    let generation = deployment["metadata"]["generation"].as_i64().unwrap_or(1);
    let replicas = deployment["spec"]["replicas"].as_i64().unwrap_or(1);
    let name = deployment["metadata"]["name"].as_str().unwrap_or_default();
    let replica_set = format!("{name}-5d8f7c6b9");
    let condition = |type_: &str, status: &str, reason: &str, message: String| json!({"type": type_, "status": status, "reason": reason, "message": message});
    let unavailable = condition(
        "Available",
        "False",
        "MinimumReplicasUnavailable",
        "Deployment does not have minimum availability.".into(),
    );
    let progressing = condition(
        "Progressing",
        "True",
        "ReplicaSetUpdated",
        format!("ReplicaSet \"{replica_set}\" is progressing."),
    );
    if state == Phase::Available {
        return json!({
            "observedGeneration": generation,
            "replicas": replicas, "updatedReplicas": replicas,
            "readyReplicas": replicas, "availableReplicas": replicas,
            "conditions": [
                condition("Available", "True", "MinimumReplicasAvailable",
                          "Deployment has minimum availability.".into()),
                condition("Progressing", "True", "NewReplicaSetAvailable",
                          format!("ReplicaSet \"{replica_set}\" has successfully progressed.")),
            ],
        });
    }
    let conditions = match state {
        Phase::Stuck => vec![
            unavailable,
            condition(
                "Progressing",
                "False",
                "ProgressDeadlineExceeded",
                format!("ReplicaSet \"{replica_set}\" has timed out progressing."),
            ),
        ],
        Phase::Failing => vec![
            unavailable,
            progressing,
            condition(
                "ReplicaFailure",
                "True",
                "FailedCreate",
                format!(
                    "pods \"{replica_set}-x7k2p\" is forbidden: exceeded quota: compute-resources"
                ),
            ),
        ],
        _ => vec![unavailable, progressing],
    };
    json!({
        "observedGeneration": generation,
        "replicas": replicas, "updatedReplicas": replicas, "unavailableReplicas": replicas,
        "conditions": conditions,
    })
}
