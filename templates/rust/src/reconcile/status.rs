//! The status every controller reports: `Ready`, `Progressing` and `Degraded` conditions,
//! applied as the operator's own (conditions other tools write stay theirs), and its events.

use std::fmt::Debug;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};
use k8s_openapi::jiff::Timestamp;
use kube::runtime::events::{Event, EventType};
use kube::{Resource, ResourceExt, api::Patch, api::PatchParams};
use serde::{Serialize, de::DeserializeOwned};
use tracing::{info, warn};

use super::Error;
use crate::context::{Context, MANAGER, Namespaced};

/// How an object is doing; the message says how much of it runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Health {
    Ready(String),
    RollingOut(String),
    /// It needs attention (its rollout is stuck, its reconciliation failed): a reason and why.
    Degraded(&'static str, String),
}

impl Health {
    pub fn failed(error: &Error) -> Health {
        Health::Degraded(error.reason(), error.to_string())
    }

    /// The three conditions at `generation`, keeping the `lastTransitionTime` of `previous`
    /// where the status did not change.
    pub fn conditions(&self, generation: Option<i64>, previous: &[Condition]) -> Vec<Condition> {
        let fine = (false, "Reconciled", "the object's children are applied");
        // (status, reason, message) of Ready, Progressing and Degraded.
        let states: [(bool, &str, &str); 3] = match self {
            Health::Ready(m) => [(true, "Available", m), (false, "RolloutComplete", m), fine],
            Health::RollingOut(m) => [(false, "RollingOut", m), (true, "RollingOut", m), fine],
            Health::Degraded(r, why) => [(false, r, why), (false, r, why), (true, r, why)],
        };
        let now = Time(Timestamp::now());
        let conditions = ["Ready", "Progressing", "Degraded"].into_iter().zip(states);
        conditions
            .map(|(type_, (status, reason, message))| {
                let status = if status { "True" } else { "False" }.to_string();
                let last_transition_time = match find(previous, type_) {
                    Some(before) if before.status == status => before.last_transition_time.clone(),
                    _ => now.clone(),
                };
                Condition {
                    type_: type_.to_string(),
                    status,
                    reason: reason.to_string(),
                    message: message.to_string(),
                    observed_generation: generation,
                    last_transition_time,
                }
            })
            .collect()
    }
}

pub fn find<'a>(conditions: &'a [Condition], type_: &str) -> Option<&'a Condition> {
    conditions.iter().find(|c| c.type_ == type_)
}

/// Applies `status` to `object`'s status subresource, forced: these fields are the operator's.
pub async fn apply_status<K>(object: &K, ctx: &Context, status: impl Serialize) -> Result<(), Error>
where
    K: Namespaced + Clone + DeserializeOwned + Debug,
{
    let patch = Patch::Apply(serde_json::json!({
        "apiVersion": K::api_version(&()),
        "kind": K::kind(&()),
        "status": status,
    }));
    let params = PatchParams::apply(MANAGER).force();
    let api = ctx.namespaced::<K>(object);
    let patched = api.patch_status(&object.name_any(), &params, &patch).await;
    patched.map(drop).map_err(|source| Error::Api {
        action: "update the status of",
        object: object.name_any(),
        source,
    })
}

/// One event, and one line at info, per change of `Ready` (its status or reason), never one per
/// reconciliation: a warning when the object is degraded.
pub async fn publish_transitions<K: Resource<DynamicType = ()>>(
    object: &K,
    ctx: &Context,
    previous: &[Condition],
    current: &[Condition],
) {
    let before = find(previous, "Ready").map(|c| (&c.status, &c.reason));
    let ready = find(current, "Ready").filter(|c| before != Some((&c.status, &c.reason)));
    let Some(ready) = ready else { return };
    let (status, reason, note) = (&ready.status, &ready.reason, &ready.message);
    info!(object = %object.name_any(), ready = %status, %reason, %note, "status changed");
    let severity = match find(current, "Degraded") {
        Some(degraded) if degraded.status == "True" => EventType::Warning,
        _ => EventType::Normal,
    };
    publish(object, ctx, severity, reason, note).await;
}

/// Publishes an event on `object`. Events are advisory: a failure is logged, never fatal.
pub async fn publish<K>(object: &K, ctx: &Context, type_: EventType, reason: &str, note: &str)
where
    K: Resource<DynamicType = ()>,
{
    let event = Event {
        type_,
        reason: reason.to_string(),
        // events.k8s.io refuses a note over 1 KiB, and the event would be lost.
        note: Some(note[..note.floor_char_boundary(1024)].to_string()),
        action: "Reconcile".to_string(),
        secondary: None,
    };
    if let Err(error) = ctx.recorder.publish(&event, &object.object_ref(&())).await {
        warn!(%error, "cannot publish event");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transition_times_change_only_with_the_status() {
        let epoch = Time(Timestamp::UNIX_EPOCH);
        let mut first = Health::Ready("1 of 1".into()).conditions(Some(1), &[]);
        first
            .iter_mut()
            .for_each(|c| c.last_transition_time = epoch.clone());
        let same = Health::Ready("2 of 2".into()).conditions(Some(2), &first);
        assert_eq!(find(&same, "Ready").unwrap().last_transition_time, epoch);
        let flipped = Health::RollingOut("1 of 2".into()).conditions(Some(3), &same);
        assert_ne!(find(&flipped, "Ready").unwrap().last_transition_time, epoch);
        assert_eq!(
            find(&flipped, "Degraded").unwrap().last_transition_time,
            epoch
        );
    }
}
