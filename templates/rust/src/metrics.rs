//! Prometheus metrics of the operator, served on `/metrics`.
//!
//! Every controller reports under its own `controller` label, so one dashboard covers all of
//! the operator's kinds. Every name starts with the operator's prefix
//! ([`crate::context::METRICS_PREFIX`]): `<prefix>_reconciliations_total`,
//! `<prefix>_reconciliation_errors_total`, `<prefix>_reconcile_duration_seconds`,
//! `<prefix>_leader` (1 while this replica runs the controllers) and `<prefix>_build_info`
//! (the version, always 1).

use std::time::Instant;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::metrics::info::Info;
use prometheus_client::registry::Registry;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ControllerLabels {
    pub controller: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ErrorLabels {
    pub controller: String,
    /// A short, bounded name of the error (never its message, which would explode cardinality).
    pub error: String,
}

/// Reconcile seconds: most reconciles are a few API calls, slow ones wait on a throttled API.
const DURATION_BUCKETS: [f64; 9] = [0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0, 15.0, 60.0];

pub struct Metrics {
    registry: Registry,
    reconciles: Family<ControllerLabels, Counter>,
    failures: Family<ErrorLabels, Counter>,
    duration: Family<ControllerLabels, Histogram>,
    leader: Gauge,
}

impl Metrics {
    /// The metrics of an operator whose metric names start with `prefix`.
    pub fn new(prefix: &str) -> Self {
        let mut registry = Registry::with_prefix(prefix);
        let reconciles = Family::<ControllerLabels, Counter>::default();
        let failures = Family::<ErrorLabels, Counter>::default();
        let duration = Family::<ControllerLabels, Histogram>::new_with_constructor(|| {
            Histogram::new(DURATION_BUCKETS)
        });
        registry.register(
            "reconciliations",
            "Reconciliations started",
            reconciles.clone(),
        );
        registry.register(
            "reconciliation_errors",
            "Reconciliations that failed",
            failures.clone(),
        );
        registry.register(
            "reconcile_duration_seconds",
            "Time a reconciliation took",
            duration.clone(),
        );
        let leader = Gauge::default();
        registry.register(
            "leader",
            "1 while this replica runs the controllers: it holds the leader election Lease, or runs without leader election",
            leader.clone(),
        );
        registry.register(
            "build",
            "The operator's version",
            Info::new(vec![("version", env!("CARGO_PKG_VERSION"))]),
        );
        Metrics {
            registry,
            reconciles,
            failures,
            duration,
            leader,
        }
    }

    /// Counts a reconciliation and times it until the returned guard is dropped.
    pub fn reconcile(&self, controller: &str) -> ReconcileTimer {
        let labels = ControllerLabels {
            controller: controller.to_string(),
        };
        self.reconciles.get_or_create(&labels).inc();
        ReconcileTimer {
            histogram: self.duration.get_or_create(&labels).clone(),
            start: Instant::now(),
        }
    }

    /// Whether this replica runs the controllers now.
    pub fn set_leader(&self, leader: bool) {
        self.leader.set(i64::from(leader));
    }

    pub fn reconcile_failure(&self, controller: &str, error: &str) {
        self.failures
            .get_or_create(&ErrorLabels {
                controller: controller.to_string(),
                error: error.to_string(),
            })
            .inc();
    }

    /// Where other parts of the operator (its webhooks) register their metrics, before it serves.
    pub fn registry(&mut self) -> &mut Registry {
        &mut self.registry
    }

    /// The metrics in the Prometheus text format.
    pub fn encode(&self) -> Result<String, std::fmt::Error> {
        let mut text = String::new();
        prometheus_client::encoding::text::encode(&mut text, &self.registry)?;
        Ok(text)
    }
}

/// Observes the time since its creation when dropped, so every return path is measured.
pub struct ReconcileTimer {
    histogram: Histogram,
    start: Instant,
}

impl Drop for ReconcileTimer {
    fn drop(&mut self) {
        self.histogram.observe(self.start.elapsed().as_secs_f64());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_reconciles_and_errors_per_controller() {
        let metrics = Metrics::new("my_operator");
        drop(metrics.reconcile("example"));
        metrics.reconcile_failure("example", "kube");
        metrics.set_leader(true);
        let text = metrics.encode().unwrap();
        assert!(
            text.contains("my_operator_reconciliations_total{controller=\"example\"} 1"),
            "{text}"
        );
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
