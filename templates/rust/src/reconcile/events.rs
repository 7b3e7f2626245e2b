//! Events on the custom resources (`kubectl describe`, `kubectl events`): one per change of a
//! condition that matters, never one per reconciliation, and logged at info as the change it is.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use kube::runtime::events::{Event, EventType};
use kube::{Resource, ResourceExt};
use tracing::{info, warn};

use super::conditions::find;
use crate::context::Context;

/// The limit of `events.k8s.io` on an event's note.
const NOTE_MAX_BYTES: usize = 1024;

/// One event per change of `Ready` or `Degraded` from `previous` to `current`. A first
/// `Degraded=False` is no news and publishes nothing.
pub async fn publish_transitions<K>(
    object: &K,
    ctx: &Context,
    previous: &[Condition],
    current: &[Condition],
) where
    K: Resource<DynamicType = ()>,
{
    for (type_, healthy) in [("Ready", "True"), ("Degraded", "False")] {
        let Some(condition) = find(current, type_) else {
            continue;
        };
        let before = find(previous, type_).map(|c| c.status.as_str());
        let changed = before != Some(condition.status.as_str());
        let news = before.is_some() || type_ == "Ready" || condition.status != healthy;
        if changed && news {
            // Not being ready yet is normal while pods start; being degraded is not.
            let severity = if type_ == "Degraded" && condition.status != healthy {
                EventType::Warning
            } else {
                EventType::Normal
            };
            let (reason, note) = (&condition.reason, &condition.message);
            info!(object = %object.name_any(), condition = type_, status = %condition.status, %reason, %note, "status changed");
            publish(object, ctx, severity, reason, note).await;
        }
    }
}

/// Publishes an event on `object`; a failure is logged, never fatal, since events are advisory
/// and the reconciliation itself went through.
pub async fn publish<K>(object: &K, ctx: &Context, type_: EventType, reason: &str, note: &str)
where
    K: Resource<DynamicType = ()>,
{
    let event = Event {
        type_,
        reason: reason.to_string(),
        note: Some(truncate_note(note)),
        action: "Reconcile".to_string(),
        secondary: None,
    };
    if let Err(error) = ctx.recorder.publish(&event, &object.object_ref(&())).await {
        warn!(%error, "cannot publish event");
    }
}

/// `note` cut to what `events.k8s.io` accepts, at a character boundary, marked with an ellipsis:
/// the API server rejects a longer note, and the event would be lost.
fn truncate_note(note: &str) -> String {
    if note.len() <= NOTE_MAX_BYTES {
        return note.to_string();
    }
    const ELLIPSIS: &str = "…";
    let mut end = NOTE_MAX_BYTES - ELLIPSIS.len();
    while !note.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}{ELLIPSIS}", &note[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_notes_are_truncated_at_a_character_boundary() {
        assert_eq!(truncate_note("fine"), "fine");
        let cut = truncate_note(&"é".repeat(NOTE_MAX_BYTES));
        assert!(cut.len() <= NOTE_MAX_BYTES, "{}", cut.len());
        assert!(cut.ends_with('…'));
    }
}
