//! Per-object exponential backoff for failed reconciliations: 5s, 10s, 20s... up to 5 minutes,
//! reset by the next success, as controller-runtime's work queue does. A broken object then
//! costs little, and a fixed one recovers fast.

use std::collections::{HashMap, HashSet};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

const BASE: Duration = Duration::from_secs(5);
const MAX: Duration = Duration::from_secs(300);

/// Failures in a row, keyed by controller and UID: kinds never share a count, and an object
/// deleted and created again under its name starts afresh.
#[derive(Default)]
pub struct ErrorBackoff(Mutex<HashMap<(&'static str, String), u32>>);

impl ErrorBackoff {
    /// Records a failure of the object `uid` of `controller`; returns how long to wait.
    pub fn next_delay(&self, controller: &'static str, uid: &str) -> Duration {
        // A panic while holding the lock leaves counts that are still valid numbers.
        let mut failures = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let count = failures.entry((controller, uid.to_string())).or_insert(0);
        let delay = BASE.saturating_mul(2u32.saturating_pow(*count));
        *count = count.saturating_add(1);
        delay.min(MAX)
    }

    pub fn reset(&self, controller: &'static str, uid: &str) {
        let mut failures = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        failures.remove(&(controller, uid.to_string()));
    }

    /// Forgets the objects of `controller` that are not in `live` (the UIDs its cache holds).
    pub fn retain_live(&self, controller: &'static str, live: &HashSet<String>) {
        let mut failures = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        failures.retain(|(c, uid), _| *c != controller || live.contains(uid));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_up_to_a_cap_and_resets() {
        let backoff = ErrorBackoff::default();
        let delays: Vec<u64> = (0..9)
            .map(|_| backoff.next_delay("a", "uid-1").as_secs())
            .collect();
        assert_eq!(delays, [5, 10, 20, 40, 80, 160, 300, 300, 300]);
        assert_eq!(backoff.next_delay("a", "uid-2").as_secs(), 5);
        backoff.reset("a", "uid-1");
        assert_eq!(backoff.next_delay("a", "uid-1").as_secs(), 5);
    }

    #[test]
    fn backoff_is_per_controller_and_forgets_deleted_objects() {
        let backoff = ErrorBackoff::default();
        backoff.next_delay("a", "uid-1");
        // The same UID under another controller: a count of its own.
        assert_eq!(backoff.next_delay("b", "uid-1").as_secs(), 5);
        backoff.next_delay("a", "uid-2");
        backoff.retain_live("a", &HashSet::from(["uid-2".to_string()]));
        assert_eq!(backoff.next_delay("a", "uid-1").as_secs(), 5);
        assert_eq!(backoff.next_delay("a", "uid-2").as_secs(), 10);
        assert_eq!(backoff.next_delay("b", "uid-1").as_secs(), 10);
    }
}
