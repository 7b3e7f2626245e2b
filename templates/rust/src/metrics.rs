//! The operator's Prometheus metrics on `/metrics`, named after it (`METRICS_PREFIX`) and
//! labelled by `controller`, so that one dashboard covers all its kinds.

use std::time::Duration;

use prometheus_client::metrics::{
    counter::Counter, family::Family, gauge::Gauge, histogram::Histogram, info::Info,
};
use prometheus_client::registry::Registry;

/// Reconcile seconds: most reconciles are a few API calls, slow ones wait on a throttled API.
const DURATION_BUCKETS: [f64; 9] = [0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0, 15.0, 60.0];

pub struct Metrics {
    /// Where other parts of the operator (its webhooks) register their metrics, before it serves.
    pub registry: Registry,
    /// By controller and error: a short, bounded name (a message would explode cardinality).
    failures: Family<[(&'static str, String); 2], Counter>,
    duration: Family<[(&'static str, String); 1], Histogram>,
    leader: Gauge,
}

impl Metrics {
    pub fn new(prefix: &str) -> Self {
        let mut m = Metrics {
            registry: Registry::with_prefix(prefix),
            failures: Family::default(),
            duration: Family::new_with_constructor(|| Histogram::new(DURATION_BUCKETS)),
            leader: Gauge::default(),
        };
        let r = &mut m.registry;
        let failures = "Failed reconciliations, by error";
        r.register("reconciliation_errors", failures, m.failures.clone());
        let duration = "Time a reconciliation took (its _count counts them)";
        r.register("reconcile_duration_seconds", duration, m.duration.clone());
        let leader = "1 while this replica runs the controllers (leading, or without election)";
        r.register("leader", leader, m.leader.clone());
        let version = Info::new(vec![("version", env!("CARGO_PKG_VERSION"))]);
        r.register("build", "The operator's version", version);
        m
    }

    /// Records that a reconciliation by `controller` took `took`.
    pub fn reconciled(&self, controller: &str, took: Duration) {
        let (labels, seconds) = ([("controller", controller.to_string())], took.as_secs_f64());
        self.duration.get_or_create(&labels).observe(seconds);
    }

    /// Whether this replica runs the controllers now.
    pub fn set_leader(&self, leader: bool) {
        self.leader.set(i64::from(leader));
    }

    pub fn reconcile_failure(&self, controller: &str, error: &str) {
        let labels = [("controller", controller.into()), ("error", error.into())];
        self.failures.get_or_create(&labels).inc();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_reconciles_and_errors_per_controller() {
        let metrics = Metrics::new("my_operator");
        metrics.reconciled("example", Duration::ZERO);
        metrics.reconcile_failure("example", "kube");
        metrics.set_leader(true);
        let mut text = String::new();
        prometheus_client::encoding::text::encode(&mut text, &metrics.registry).unwrap();
        assert!(
            text.contains(
                "my_operator_reconciliation_errors_total{controller=\"example\",error=\"kube\"} 1"
            ),
            "{text}"
        );
        assert!(
            text.contains("my_operator_reconcile_duration_seconds_count{controller=\"example\"} 1"),
            "{text}"
        );
        assert!(text.contains("my_operator_leader 1"), "{text}");
        let build_info = format!(
            "my_operator_build_info{{version=\"{}\"}} 1",
            env!("CARGO_PKG_VERSION")
        );
        assert!(text.contains(&build_info), "{text}");
    }
}
