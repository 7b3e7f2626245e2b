//! Status conditions as the Kubernetes API conventions want them, and the status written by
//! server-side apply under the operator's own field manager: it owns only the fields it sends,
//! so conditions that other tools write on the same object stay theirs, and a condition type the
//! operator stops sending is removed by the API server.

use std::fmt::Debug;

use k8s_openapi::NamespaceResourceScope;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};
use k8s_openapi::jiff::Timestamp;
use kube::api::{Api, Patch, PatchParams};
use kube::{Resource, ResourceExt};
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::Error;
use crate::context::{Context, MANAGER};

/// How an object is doing, as the conditions every controller reports tell it: `Ready` (it
/// does its job), `Progressing` (a change is rolling out) and `Degraded` (it needs attention).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Health {
    /// Everything asked for runs; the message says how much.
    Ready(String),
    /// A change is rolling out.
    RollingOut(String),
    /// The rollout cannot finish: `reason`, why, and how much runs.
    Stuck {
        reason: &'static str,
        why: String,
        message: String,
    },
    /// The reconciliation failed (a refused request, an object owned elsewhere).
    Failed {
        reason: &'static str,
        message: String,
    },
}

impl Health {
    /// The failure of a reconciliation, with its stable summary.
    pub fn failed(error: &Error) -> Health {
        Health::Failed {
            reason: error.reason(),
            message: error.summary(),
        }
    }

    /// `Ready`, `Progressing` and `Degraded`, at `generation`.
    pub fn conditions(&self, generation: Option<i64>) -> Vec<Condition> {
        let applied = (false, "Reconciled", "the object's children are applied");
        let [ready, progressing, degraded] = match self {
            Health::Ready(message) => [
                (true, "Available", message.as_str()),
                (false, "RolloutComplete", message),
                applied,
            ],
            Health::RollingOut(message) => [
                (false, "RollingOut", message.as_str()),
                (true, "RollingOut", message),
                applied,
            ],
            Health::Stuck {
                reason,
                why,
                message,
            } => [
                (false, *reason, message.as_str()),
                (false, reason, why),
                (true, reason, why),
            ],
            Health::Failed { reason, message } => [
                (false, *reason, message.as_str()),
                (false, reason, message),
                (true, reason, message),
            ],
        };
        [
            ("Ready", ready),
            ("Progressing", progressing),
            ("Degraded", degraded),
        ]
        .into_iter()
        .map(|(type_, (status, reason, message))| {
            condition(type_, status, reason, message, generation)
        })
        .collect()
    }
}

/// A condition at `generation`; its transition time is set by [`with_transition_times`].
pub fn condition(
    type_: &str,
    status: bool,
    reason: &str,
    message: &str,
    generation: Option<i64>,
) -> Condition {
    Condition {
        type_: type_.to_string(),
        status: if status { "True" } else { "False" }.to_string(),
        reason: reason.to_string(),
        message: message.to_string(),
        observed_generation: generation,
        last_transition_time: Time(Timestamp::UNIX_EPOCH),
    }
}

/// `updates` with the `lastTransitionTime` of `previous` where their status did not change, and
/// `now` where it did (or the type is new).
pub fn with_transition_times(
    previous: &[Condition],
    mut updates: Vec<Condition>,
    now: Timestamp,
) -> Vec<Condition> {
    for update in &mut updates {
        update.last_transition_time = match find(previous, &update.type_) {
            Some(before) if before.status == update.status => before.last_transition_time.clone(),
            _ => Time(now),
        };
    }
    updates
}

pub fn find<'a>(conditions: &'a [Condition], type_: &str) -> Option<&'a Condition> {
    conditions.iter().find(|c| c.type_ == type_)
}

/// Applies `status` to `object`'s status subresource. Forced, since these fields are the
/// operator's; the conditions list is a map keyed by `type` in the CRD, so only the types sent
/// are taken.
pub async fn apply_status<K>(
    object: &K,
    ctx: &Context,
    status: &impl Serialize,
) -> Result<(), Error>
where
    K: Resource<Scope = NamespaceResourceScope, DynamicType = ()>,
    K: Clone + DeserializeOwned + Debug,
{
    let namespace = object.namespace().unwrap_or_default();
    let api: Api<K> = Api::namespaced(ctx.client.clone(), &namespace);
    let patch = serde_json::json!({
        "apiVersion": K::api_version(&()),
        "kind": K::kind(&()),
        "status": status,
    });
    let params = PatchParams::apply(MANAGER).force();
    api.patch_status(&object.name_any(), &params, &Patch::Apply(patch))
        .await
        .map(drop)
        .map_err(|source| Error::Api {
            action: "update the status of",
            object: object.name_any(),
            source,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transition_times_change_only_with_the_status() {
        let before = Timestamp::UNIX_EPOCH;
        let later = Timestamp::now();
        let first =
            with_transition_times(&[], vec![condition("Ready", true, "A", "", None)], before);
        let same =
            with_transition_times(&first, vec![condition("Ready", true, "B", "", None)], later);
        assert_eq!(same[0].last_transition_time, Time(before));
        let flipped =
            with_transition_times(&same, vec![condition("Ready", false, "C", "", None)], later);
        assert_eq!(flipped[0].last_transition_time, Time(later));
    }
}
