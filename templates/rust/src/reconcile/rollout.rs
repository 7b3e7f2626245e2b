//! How a Deployment's rollout is doing, read from its status as `kubectl rollout status` does.

use k8s_openapi::api::apps::v1::Deployment;

use super::status::Health;

/// The health of `deployment` asked to run `wanted` pods, and how many of its pods are ready.
pub fn health(deployment: &Deployment, wanted: i32) -> (Health, i32) {
    let observed = deployment.status.clone().unwrap_or_default();
    let ready = observed.ready_replicas.unwrap_or(0);
    let message = format!("{ready} of {wanted} pods ready");
    // Its status describes its current spec only once its controller has seen that spec.
    let settled = deployment.metadata.generation.is_some()
        && observed.observed_generation >= deployment.metadata.generation;
    let counts = [Some(ready), observed.updated_replicas, observed.replicas];
    // The deployment controller gave up waiting, or cannot create pods (a quota, a policy).
    let conditions = observed.conditions.unwrap_or_default();
    let condition = |t: &str, s: &str| conditions.iter().find(|c| c.type_ == t && c.status == s);
    let failure = condition("ReplicaFailure", "True");
    let deadline = condition("Progressing", "False")
        .filter(|c| c.reason.as_deref() == Some("ProgressDeadlineExceeded"));
    let health = if settled && counts.iter().all(|n| n.unwrap_or(0) == wanted) {
        Health::Ready(message)
    } else if let (true, Some(failure)) = (settled, failure) {
        let cause = failure.reason.as_deref().unwrap_or("unknown");
        let why = format!("the Deployment cannot create pods ({cause})");
        Health::Degraded("ReplicaFailure", why)
    } else if let (true, Some(_)) = (settled, deadline) {
        let why = "the rollout made no progress within the Deployment's progress deadline".into();
        Health::Degraded("ProgressDeadlineExceeded", why)
    } else {
        Health::RollingOut(message)
    };
    (health, ready)
}
