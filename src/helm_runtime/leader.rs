//! Leader election of the Helm operator runtime (`--leader-elect`) on a
//! `coordination.k8s.io/v1` Lease, so that of several replicas exactly one reconciles while the
//! others stand by to take over. It is the generated Rust operator's election: the file
//! `templates/rust/src/leader.rs` that `new --type=rust` copies into a project is compiled here
//! as it is, so the code users get is the code this runtime runs, and its tests (in that file,
//! against a mocked API server) run with ours.
//!
//! The boundary between the two: the election itself (the Lease, its timing, renewals, the
//! release on shutdown) is the template file's, and it must compile both in a generated project
//! and here, with what both depend on (anyhow, futures, kube, k8s-openapi, tokio, thiserror,
//! tracing). What is the runtime's own stays in this file: the election writes its lines with
//! `tracing`, as a generated project logs, and [`log_election_to`] passes them on to the
//! runtime's [`Log`].
//! Whoever shrinks or rewrites the generated file changes this runtime's election with it: keep
//! what `commands::run_helm` uses (`Candidate::new`, `acquire`, `lost` and `release`), or
//! change both together.

#[path = "../../templates/rust/src/leader.rs"]
mod election;

use std::fmt::Write as _;

use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::subscriber::Interest;
use tracing::{Event, Level, Metadata};

pub use election::Candidate;

use super::log::Log;

/// The `tracing` target of the election's lines: its module path.
const ELECTION_TARGET: &str = concat!(module_path!(), "::election");

/// Passes the election's log lines on to `log`: its warnings as errors (the runtime logs at
/// info and error only) and the rest as info. It becomes the process's `tracing` subscriber, as
/// a program installs one at start-up, since the election renews its Lease on a task of its own,
/// which no narrower subscriber would follow. Everything else written with `tracing` (kube's
/// own lines) is left out, as it was without a subscriber. A process that installed one before
/// keeps it.
pub fn log_election_to(log: Log) {
    let _ = tracing::subscriber::set_global_default(ElectionLog { log });
}

struct ElectionLog {
    log: Log,
}

impl tracing::Subscriber for ElectionLog {
    fn register_callsite(&self, metadata: &'static Metadata<'static>) -> Interest {
        if self.enabled(metadata) {
            Interest::always()
        } else {
            Interest::never()
        }
    }

    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        metadata.is_event() && metadata.target().starts_with(ELECTION_TARGET)
    }

    fn new_span(&self, _: &Attributes<'_>) -> Id {
        // No span is enabled, so none is ever created; an id is still the trait's answer.
        Id::from_u64(1)
    }

    fn record(&self, _: &Id, _: &Record<'_>) {}

    fn record_follows_from(&self, _: &Id, _: &Id) {}

    fn event(&self, event: &Event<'_>) {
        let mut line = Line::default();
        event.record(&mut line);
        let text = line.text();
        match *event.metadata().level() {
            Level::ERROR | Level::WARN => self.log.error(&text),
            _ => self.log.info(&text),
        }
    }

    fn enter(&self, _: &Id) {}

    fn exit(&self, _: &Id) {}
}

/// One event's message and fields, as the runtime's line: `message (field: value, ...)`.
#[derive(Default)]
struct Line {
    message: String,
    fields: Vec<String>,
}

impl Line {
    fn text(&self) -> String {
        if self.fields.is_empty() {
            return self.message.clone();
        }
        format!("{} ({})", self.message, self.fields.join(", "))
    }
}

impl Visit for Line {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            let _ = write!(self.message, "{value:?}");
        } else {
            self.fields.push(format!("{}: {value:?}", field.name()));
        }
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.message.push_str(value);
        } else {
            self.fields.push(format!("{}: {value}", field.name()));
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use super::*;
    use crate::helm_runtime::log::Level as LogLevel;

    /// The election's own lines reach the runtime's log with their fields and the runtime's
    /// levels; lines of other code do not.
    #[test]
    fn the_elections_lines_reach_the_runtimes_log() {
        let lines: Arc<Mutex<Vec<(LogLevel, String)>>> = Arc::default();
        let seen = lines.clone();
        let log = Log::new(move |level, text| seen.lock().unwrap().push((level, text.to_string())));
        let subscriber = ElectionLog { log };
        tracing::subscriber::with_default(subscriber, || {
            let error = "cannot read the Lease ops/op-leader: timed out";
            tracing::warn!(target: ELECTION_TARGET, %error, "leader election: will retry");
            tracing::info!(target: ELECTION_TARGET, "released the leader election Lease");
            tracing::warn!(target: "kube_runtime::watcher", "not the election's");
        });
        assert_eq!(
            *lines.lock().unwrap(),
            [
                (
                    LogLevel::Error,
                    "leader election: will retry (error: cannot read the Lease ops/op-leader: timed out)"
                        .to_string()
                ),
                (
                    LogLevel::Info,
                    "released the leader election Lease".to_string()
                ),
            ]
        );
    }
}
