//! Prometheus metrics of the operator, served on `/metrics`.
//!
//! Every controller reports under its own `controller` label, so one dashboard covers all of
//! the operator's kinds.

use std::time::Instant;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::Histogram;
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
}

impl Default for Metrics {
    fn default() -> Self {
        let mut registry = Registry::with_prefix("operator");
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
        Metrics {
            registry,
            reconciles,
            failures,
            duration,
        }
    }
}

impl Metrics {
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

    pub fn reconcile_failure(&self, controller: &str, error: &str) {
        self.failures
            .get_or_create(&ErrorLabels {
                controller: controller.to_string(),
                error: error.to_string(),
            })
            .inc();
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
        let metrics = Metrics::default();
        drop(metrics.reconcile("example"));
        metrics.reconcile_failure("example", "kube");
        let text = metrics.encode().unwrap();
        assert!(
            text.contains("operator_reconciliations_total{controller=\"example\"} 1"),
            "{text}"
        );
        assert!(
            text.contains(
                "operator_reconciliation_errors_total{controller=\"example\",error=\"kube\"} 1"
            ),
            "{text}"
        );
        assert!(
            text.contains("operator_reconcile_duration_seconds_count{controller=\"example\"} 1"),
            "{text}"
        );
    }
}
