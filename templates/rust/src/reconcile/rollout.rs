//! How a Deployment's rollout is doing, read from its status the way `kubectl rollout status`
//! reads it, for controllers whose children are Deployments.

use k8s_openapi::api::apps::v1::Deployment;

use super::conditions::Health;

/// The health of `deployment` asked to run `wanted` pods, and how many of its pods are ready.
pub fn health(deployment: &Deployment, wanted: i32) -> (Health, i32) {
    let observed = deployment.status.clone().unwrap_or_default();
    let ready = observed.ready_replicas.unwrap_or(0);
    let message = format!("{ready} of {wanted} pods ready");
    // Its status describes its current spec only once its controller has seen that spec.
    let settled = deployment.metadata.generation.is_some()
        && observed.observed_generation >= deployment.metadata.generation;
    let counts = [
        ready,
        observed.updated_replicas.unwrap_or(0),
        observed.replicas.unwrap_or(0),
    ];
    let health = if settled && counts.iter().all(|n| *n == wanted) {
        Health::Ready(message)
    } else if let Some((reason, why)) = settled.then(|| stuck(deployment)).flatten() {
        Health::Stuck {
            reason,
            why,
            message,
        }
    } else {
        Health::RollingOut(message)
    };
    (health, ready)
}

/// Why a rollout cannot finish, from the Deployment's own conditions: the deployment controller
/// gave up waiting (`ProgressDeadlineExceeded`), or cannot create pods (`ReplicaFailure`, for
/// example refused by a quota or an admission policy).
fn stuck(deployment: &Deployment) -> Option<(&'static str, String)> {
    let conditions = deployment
        .status
        .as_ref()
        .and_then(|s| s.conditions.as_deref())
        .unwrap_or_default();
    let is = |type_: &str, status: &str| {
        conditions
            .iter()
            .find(|c| c.type_ == type_ && c.status == status)
    };
    if let Some(failure) = is("ReplicaFailure", "True") {
        let cause = failure.reason.as_deref().unwrap_or("unknown");
        let why = format!("the Deployment cannot create pods ({cause})");
        return Some(("ReplicaFailure", why));
    }
    is("Progressing", "False")
        .filter(|c| c.reason.as_deref() == Some("ProgressDeadlineExceeded"))?;
    Some((
        "ProgressDeadlineExceeded",
        "the rollout made no progress within the Deployment's progress deadline".to_string(),
    ))
}
