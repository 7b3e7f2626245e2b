//! The runtime's Prometheus metrics on `/metrics`, under the names the helm-operator (operator-sdk
//! v1.42, controller-runtime v0.21) exposes, so its dashboards and alerts work unchanged:
//! per controller (`<kind lowercased>-controller`) the reconciles by result, their errors and
//! their duration in controller-runtime's buckets, the workers; the leader election gauge; the
//! build information; the process's CPU, memory and file descriptors.
//!
//! Left out because this runtime has nothing honest to put in them: `workqueue_*` (kube-runtime's
//! scheduler is not client-go's work queue: no depth, adds or retries to count the same way),
//! `rest_client_*` (client-go's HTTP client metrics) and `go_*` (the Go runtime's).

pub mod process;
pub mod text;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use process::Process;
use text::{Encoder, Histogram, Kind};

use super::http::{Response, Routes};

/// controller-runtime's buckets for `controller_runtime_reconcile_time_seconds`, in seconds.
pub const RECONCILE_TIME_BUCKETS: [f64; 40] = [
    0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9,
    1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 15.0, 20.0,
    25.0, 30.0, 40.0, 50.0, 60.0,
];

/// How a reconcile ended, as controller-runtime labels `controller_runtime_reconcile_total`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Done; nothing queued but a change.
    Success,
    /// Failed: retried with backoff.
    Error,
    /// Done, and queued again after a delay (the reconcile period).
    RequeueAfter,
}

/// controller-runtime's `result` label values, in its order; `requeue` (an immediate requeue
/// without error) is a result this runtime never produces, and is reported at zero as the
/// helm-operator reports it.
const RESULTS: [&str; 4] = ["error", "requeue_after", "requeue", "success"];

impl Outcome {
    fn index(self) -> usize {
        match self {
            Outcome::Error => 0,
            Outcome::RequeueAfter => 1,
            Outcome::Success => 3,
        }
    }
}

/// What one controller counts.
#[derive(Debug)]
struct Controller {
    results: [u64; RESULTS.len()],
    errors: u64,
    panics: u64,
    time: Histogram,
    max_workers: usize,
    active_workers: usize,
}

#[derive(Debug, Default)]
struct State {
    /// By controller name, so the text is in label order as the Go client writes it.
    controllers: BTreeMap<String, Controller>,
    /// By Lease name: whether this process holds it.
    leaders: BTreeMap<String, bool>,
}

/// The registry every part of the runtime reports to; [`Metrics::routes`] serves it.
#[derive(Debug, Default)]
pub struct Metrics {
    state: Mutex<State>,
}

impl Metrics {
    pub fn new() -> Arc<Metrics> {
        Arc::new(Metrics::default())
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // Counters stay usable after a panic elsewhere: each update is a single step.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A controller starts: its series appear at zero, as controller-runtime starts them.
    pub fn register_controller(&self, name: &str, max_workers: usize) {
        self.state()
            .controllers
            .entry(name.to_string())
            .or_insert_with(|| Controller {
                results: [0; RESULTS.len()],
                errors: 0,
                panics: 0,
                time: Histogram::new(&RECONCILE_TIME_BUCKETS),
                max_workers,
                active_workers: 0,
            });
    }

    /// A reconcile of controller `name` starts; [`Reconcile::finish`] records how it ended.
    pub fn reconcile_started(self: &Arc<Self>, name: &str) -> Reconcile {
        if let Some(controller) = self.state().controllers.get_mut(name) {
            controller.active_workers += 1;
        }
        Reconcile {
            metrics: self.clone(),
            controller: name.to_string(),
            started: Instant::now(),
        }
    }

    /// Whether this process holds the leader election Lease `name`.
    pub fn set_leader(&self, name: &str, leading: bool) {
        self.state().leaders.insert(name.to_string(), leading);
    }

    /// `/metrics`, for [`super::http::serve`].
    pub fn routes(self: &Arc<Self>) -> Routes {
        let metrics = self.clone();
        Arc::new(move |path| {
            (path == "/metrics").then(|| Response::ok(text::CONTENT_TYPE, metrics.render()))
        })
    }

    /// Every family in the text format, in name order as the Go client writes them.
    pub fn render(&self) -> String {
        let process = Process::read();
        let state = self.state();
        let mut out = Encoder::default();
        let controllers: Vec<(&str, &Controller)> = state
            .controllers
            .iter()
            .map(|(name, c)| (name.as_str(), c))
            .collect();
        let per_controller =
            |out: &mut Encoder, name, help, kind, value: fn(&Controller) -> f64| {
                out.family(name, help, kind);
                for (controller, c) in &controllers {
                    out.sample(name, &[("controller", controller)], value(c));
                }
            };
        if !controllers.is_empty() {
            per_controller(
                &mut out,
                "controller_runtime_active_workers",
                "Workers of the controller reconciling right now",
                Kind::Gauge,
                |c| c.active_workers as f64,
            );
            per_controller(
                &mut out,
                "controller_runtime_max_concurrent_reconciles",
                "The most reconciles the controller runs at once",
                Kind::Gauge,
                |c| c.max_workers as f64,
            );
            per_controller(
                &mut out,
                "controller_runtime_reconcile_errors_total",
                "Reconciles of the controller that returned an error",
                Kind::Counter,
                |c| c.errors as f64,
            );
            per_controller(
                &mut out,
                "controller_runtime_reconcile_panics_total",
                "Reconciles of the controller that panicked (each is also counted as an error)",
                Kind::Counter,
                |c| c.panics as f64,
            );
            let name = "controller_runtime_reconcile_time_seconds";
            out.family(
                name,
                "How long the controller's reconciles took, in seconds",
                Kind::Histogram,
            );
            for (controller, c) in &controllers {
                out.histogram(name, &[("controller", controller)], &c.time);
            }
            let name = "controller_runtime_reconcile_total";
            out.family(
                name,
                "Reconciles of the controller, by result",
                Kind::Counter,
            );
            for (controller, c) in &controllers {
                for (result, count) in RESULTS.iter().zip(c.results) {
                    out.sample(
                        name,
                        &[("controller", controller), ("result", result)],
                        count as f64,
                    );
                }
            }
            // This runtime never marks an error terminal (nor does the helm-operator's
            // reconciler): every failed reconcile is retried.
            per_controller(
                &mut out,
                "controller_runtime_terminal_reconcile_errors_total",
                "Reconciles of the controller that failed for good, without a retry",
                Kind::Counter,
                |_| 0.0,
            );
        }
        let name = "helm_operator_build_info";
        out.family(name, "The version of the running operator-rs", Kind::Gauge);
        out.sample(
            name,
            &[
                // Set OPERATOR_RS_GIT_COMMIT when building to fill it in; the Go
                // helm-operator says "unknown" too when its build did not set one.
                (
                    "commit",
                    option_env!("OPERATOR_RS_GIT_COMMIT").unwrap_or("unknown"),
                ),
                ("version", env!("CARGO_PKG_VERSION")),
            ],
            1.0,
        );
        if !state.leaders.is_empty() {
            let name = "leader_election_master_status";
            out.family(
                name,
                "1 while this process holds the leader election Lease `name`, else 0",
                Kind::Gauge,
            );
            for (lease, leading) in &state.leaders {
                out.sample(name, &[("name", lease)], f64::from(u8::from(*leading)));
            }
        }
        drop(state);
        process.encode(&mut out);
        out.finish()
    }
}

/// A reconcile in progress: it holds one of its controller's active workers until dropped.
#[must_use = "a reconcile is recorded by finish"]
pub struct Reconcile {
    metrics: Arc<Metrics>,
    controller: String,
    started: Instant,
}

impl Reconcile {
    /// Records the reconcile's result and duration (a panic is also an error, as
    /// controller-runtime counts a recovered one).
    pub fn finish(self, outcome: Outcome, panicked: bool) {
        let seconds = self.started.elapsed().as_secs_f64();
        let mut state = self.metrics.state();
        if let Some(controller) = state.controllers.get_mut(&self.controller) {
            controller.time.observe(seconds);
            controller.results[outcome.index()] += 1;
            if outcome == Outcome::Error {
                controller.errors += 1;
            }
            if panicked {
                controller.panics += 1;
            }
        }
    }
}

impl Drop for Reconcile {
    fn drop(&mut self) {
        if let Some(controller) = self.metrics.state().controllers.get_mut(&self.controller) {
            controller.active_workers = controller.active_workers.saturating_sub(1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample<'a>(text: &'a str, series: &str) -> Option<&'a str> {
        text.lines()
            .find_map(|line| line.strip_prefix(series)?.strip_prefix(' '))
    }

    #[test]
    fn a_controller_starts_at_zero_with_every_result() {
        let metrics = Metrics::new();
        metrics.register_controller("helloworld-controller", 4);
        let text = metrics.render();
        for result in ["error", "requeue_after", "requeue", "success"] {
            let series = format!(
                "controller_runtime_reconcile_total{{controller=\"helloworld-controller\",result=\"{result}\"}}"
            );
            assert_eq!(sample(&text, &series), Some("0"), "{text}");
        }
        let c = "{controller=\"helloworld-controller\"}";
        for (family, value) in [
            ("controller_runtime_max_concurrent_reconciles", "4"),
            ("controller_runtime_active_workers", "0"),
            ("controller_runtime_reconcile_errors_total", "0"),
            ("controller_runtime_terminal_reconcile_errors_total", "0"),
            ("controller_runtime_reconcile_panics_total", "0"),
            ("controller_runtime_reconcile_time_seconds_count", "0"),
        ] {
            assert_eq!(
                sample(&text, &format!("{family}{c}")),
                Some(value),
                "{text}"
            );
        }
        assert!(text.contains("# TYPE controller_runtime_reconcile_time_seconds histogram\n"));
        assert!(text.contains(
            "controller_runtime_reconcile_time_seconds_bucket{controller=\"helloworld-controller\",le=\"0.005\"} 0\n"
        ));
        assert!(text.contains(
            "controller_runtime_reconcile_time_seconds_bucket{controller=\"helloworld-controller\",le=\"60\"} 0\n"
        ));
        assert!(text.contains(&format!(
            "helm_operator_build_info{{commit=\"unknown\",version=\"{}\"}} 1\n",
            env!("CARGO_PKG_VERSION")
        )));
        // No election, no election gauge (as controller-runtime without --leader-elect).
        assert!(!text.contains("leader_election_master_status"), "{text}");
    }

    #[test]
    fn reconciles_are_counted_by_result_and_timed() {
        let metrics = Metrics::new();
        metrics.register_controller("a-controller", 1);
        let running = metrics.reconcile_started("a-controller");
        let text = metrics.render();
        assert_eq!(
            sample(
                &text,
                "controller_runtime_active_workers{controller=\"a-controller\"}"
            ),
            Some("1")
        );
        running.finish(Outcome::Success, false);
        metrics
            .reconcile_started("a-controller")
            .finish(Outcome::RequeueAfter, false);
        metrics
            .reconcile_started("a-controller")
            .finish(Outcome::Error, true);
        // Dropped without a result (its future was cancelled): only the worker is freed.
        drop(metrics.reconcile_started("a-controller"));
        let text = metrics.render();
        let c = "controller=\"a-controller\"";
        for (series, value) in [
            (
                format!("controller_runtime_reconcile_total{{{c},result=\"success\"}}"),
                "1",
            ),
            (
                format!("controller_runtime_reconcile_total{{{c},result=\"requeue_after\"}}"),
                "1",
            ),
            (
                format!("controller_runtime_reconcile_total{{{c},result=\"error\"}}"),
                "1",
            ),
            (
                format!("controller_runtime_reconcile_errors_total{{{c}}}"),
                "1",
            ),
            (
                format!("controller_runtime_reconcile_panics_total{{{c}}}"),
                "1",
            ),
            (
                format!("controller_runtime_reconcile_time_seconds_count{{{c}}}"),
                "3",
            ),
            (
                format!("controller_runtime_reconcile_time_seconds_bucket{{{c},le=\"+Inf\"}}"),
                "3",
            ),
            (format!("controller_runtime_active_workers{{{c}}}"), "0"),
        ] {
            assert_eq!(sample(&text, &series), Some(value), "{series}\n{text}");
        }
    }

    #[test]
    fn the_leader_gauge_follows_the_lease() {
        let metrics = Metrics::new();
        metrics.set_leader("my-operator", false);
        assert!(
            metrics
                .render()
                .contains("leader_election_master_status{name=\"my-operator\"} 0\n")
        );
        metrics.set_leader("my-operator", true);
        assert!(
            metrics
                .render()
                .contains("leader_election_master_status{name=\"my-operator\"} 1\n")
        );
    }

    #[test]
    fn families_come_in_name_order_each_once() {
        let metrics = Metrics::new();
        metrics.register_controller("b-controller", 1);
        metrics.register_controller("a-controller", 1);
        metrics.set_leader("l", true);
        let text = metrics.render();
        let families: Vec<&str> = text
            .lines()
            .filter_map(|l| l.strip_prefix("# TYPE "))
            .map(|l| l.split(' ').next().unwrap())
            .collect();
        let mut sorted = families.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(families, sorted);
        // Series of one family in label order.
        let a = text.find("controller_runtime_active_workers{controller=\"a-controller\"}");
        let b = text.find("controller_runtime_active_workers{controller=\"b-controller\"}");
        assert!(a < b, "{text}");
    }
}
