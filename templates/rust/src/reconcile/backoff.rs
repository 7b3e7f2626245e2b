//! Per-object exponential backoff for failed reconciliations, as controller-runtime's work
//! queue does: 5s, 10s, 20s... up to 5 minutes, reset by the next success.

use std::{collections::HashMap, sync::Mutex, sync::PoisonError, time::Duration};

use kube::{api::DynamicObject, runtime::reflector::ObjectRef};

const BASE: Duration = Duration::from_secs(5);
const MAX: Duration = Duration::from_secs(300);

/// Failures in a row, per object (its kind, namespace and name).
#[derive(Default)]
pub struct ErrorBackoff(Mutex<HashMap<ObjectRef<DynamicObject>, u32>>);

impl ErrorBackoff {
    /// Records a failure of `object`; returns how long to wait.
    pub fn next_delay(&self, object: ObjectRef<DynamicObject>) -> Duration {
        // A panic while holding the lock leaves counts that are still valid numbers.
        let mut failures = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let count = failures.entry(object).or_insert(0);
        let delay = BASE.saturating_mul(2u32.saturating_pow(*count));
        *count = count.saturating_add(1);
        delay.min(MAX)
    }

    /// Forgets `object`: it reconciled, or it is gone (its scheduled retry found it gone).
    pub fn reset(&self, object: &ObjectRef<DynamicObject>) {
        let mut failures = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        failures.remove(object);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::{ConfigMap, Secret};

    fn object<K: kube::Resource<DynamicType = ()>>(name: &str) -> ObjectRef<DynamicObject> {
        ObjectRef::<K>::new(name).within("default").erase()
    }

    #[test]
    fn backoff_doubles_up_to_a_cap_and_resets() {
        let backoff = ErrorBackoff::default();
        let delays: Vec<u64> = (0..9)
            .map(|_| backoff.next_delay(object::<ConfigMap>("a")).as_secs())
            .collect();
        assert_eq!(delays, [5, 10, 20, 40, 80, 160, 300, 300, 300]);
        assert_eq!(backoff.next_delay(object::<ConfigMap>("b")).as_secs(), 5);
        backoff.reset(&object::<ConfigMap>("a"));
        assert_eq!(backoff.next_delay(object::<ConfigMap>("a")).as_secs(), 5);
    }

    #[test]
    fn objects_of_two_kinds_with_one_name_count_apart() {
        let backoff = ErrorBackoff::default();
        backoff.next_delay(object::<ConfigMap>("a"));
        assert_eq!(backoff.next_delay(object::<Secret>("a")).as_secs(), 5);
        assert_eq!(backoff.next_delay(object::<ConfigMap>("a")).as_secs(), 10);
    }
}
