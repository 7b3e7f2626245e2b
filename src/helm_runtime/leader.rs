//! Leader election of the Helm operator runtime (`--leader-elect`) on a
//! `coordination.k8s.io/v1` Lease, so that of several replicas exactly one reconciles while the
//! others stand by to take over. The same election as the generated Rust operator's
//! (templates/rust/src/leader.rs, tested there against a mocked API server), logging through
//! the runtime's log instead of `tracing`.
//!
//! The rules are client-go's, the ones kube-controller-manager follows:
//! - A candidate takes the Lease when it does not exist, has no holder, or its holder has not
//!   renewed it for `leaseDurationSeconds`. That time is counted on the candidate's own clock
//!   from when it last saw the Lease change, so clocks that differ between nodes do not matter.
//! - Every write sends the `resourceVersion` it read: of two candidates writing at once, one gets
//!   a conflict and stays a candidate.
//! - The leader renews every [`Timing::retry_period`]. It counts itself the leader only until
//!   [`Timing::renew_deadline`] after the start of its last successful renewal. That is shorter
//!   than the lease duration, so when the API server stops answering the leader stops before
//!   another replica can take over, even if a request never returns.

use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::coordination::v1::{Lease, LeaseSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime;
use k8s_openapi::jiff::Timestamp;
use kube::api::{Api, ObjectMeta, PostParams};
use kube::{Client, ResourceExt};
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio::time::{Instant, sleep, sleep_until, timeout};

use super::controller::Log;

/// How long the Lease lasts without renewal, how long the leader trusts its last renewal, and
/// how often it renews (or a candidate retries): client-go's defaults.
#[derive(Clone, Copy, Debug)]
pub struct Timing {
    pub lease_duration: Duration,
    pub renew_deadline: Duration,
    pub retry_period: Duration,
}

impl Default for Timing {
    fn default() -> Self {
        Timing {
            lease_duration: Duration::from_secs(15),
            renew_deadline: Duration::from_secs(10),
            retry_period: Duration::from_secs(2),
        }
    }
}

/// A request about the Lease that failed.
#[derive(Debug, thiserror::Error)]
#[error("cannot {action} the Lease {namespace}/{name}: {source}")]
pub struct LeaseError {
    pub action: &'static str,
    pub namespace: String,
    pub name: String,
    #[source]
    pub source: kube::Error,
}

impl LeaseError {
    /// Errors that waiting does not cure (no permission, no such namespace, a rejected
    /// object): `acquire` returns them instead of retrying forever.
    fn is_permanent(&self) -> bool {
        matches!(&self.source, kube::Error::Api(status) if matches!(status.code, 400 | 401 | 403 | 404 | 422))
    }
}

/// Why a leader stopped being one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lost {
    /// No renewal succeeded within the renew deadline.
    RenewDeadline,
    /// Another replica holds the Lease.
    TakenOver,
}

impl std::fmt::Display for Lost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Lost::RenewDeadline => "the Lease could not be renewed within the renew deadline",
            Lost::TakenOver => "another replica holds the Lease",
        })
    }
}

/// The leader's view of its term: leading until an instant, or lost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Term {
    Until(Instant),
    Lost(Lost),
}

/// One replica taking part in the election of one Lease.
pub struct Candidate {
    log: Log,
    api: Api<Lease>,
    namespace: String,
    name: String,
    identity: String,
    timing: Timing,
}

/// The Lease as this candidate last saw it, and when, on its own clock.
struct Seen {
    record: Option<LeaseSpec>,
    at: Instant,
}

/// What the last look at the Lease led to.
enum Outcome {
    /// This candidate holds the Lease; the write that said so started at this instant.
    Holding(Instant),
    /// Another candidate holds the Lease, or won a race for it.
    Held,
}

impl Candidate {
    pub fn new(
        client: Client,
        namespace: &str,
        name: &str,
        identity: &str,
        timing: Timing,
        log: Log,
    ) -> Self {
        Candidate {
            log,
            api: Api::namespaced(client, namespace),
            namespace: namespace.to_string(),
            name: name.to_string(),
            identity: identity.to_string(),
            timing,
        }
    }

    /// Waits until this replica holds the Lease, then renews it in the background. Transient
    /// failures (the API server unreachable, conflicts, throttling) are logged and retried;
    /// one that waiting cannot cure, such as a missing permission, is returned.
    pub async fn acquire(self) -> Result<Leadership, LeaseError> {
        let mut seen = None;
        let started = loop {
            match self.attempt(&mut seen).await {
                Ok(Outcome::Holding(started)) => break started,
                Ok(Outcome::Held) => {}
                Err(error) if error.is_permanent() => return Err(error),
                Err(error) => self
                    .log
                    .error(&format!("leader election: {error}; will retry")),
            }
            sleep(self.timing.retry_period).await;
        };
        let (term, receiver) = watch::channel(Term::Until(started + self.timing.renew_deadline));
        let candidate = Arc::new(self);
        let renewer = tokio::spawn(candidate.clone().renew(seen, term));
        Ok(Leadership {
            term: receiver,
            renewer,
            candidate,
        })
    }

    /// Renews the Lease every retry period until the term is lost or nobody listens any more.
    async fn renew(self: Arc<Self>, mut seen: Option<Seen>, term: watch::Sender<Term>) {
        loop {
            sleep(self.timing.retry_period).await;
            let Term::Until(deadline) = *term.borrow() else {
                return;
            };
            // A request that hangs must not hold the leader past its deadline.
            let outcome = match timeout_at(deadline, self.attempt(&mut seen)).await {
                None => Term::Lost(Lost::RenewDeadline),
                Some(Ok(Outcome::Holding(started))) => {
                    Term::Until(started + self.timing.renew_deadline)
                }
                Some(Ok(Outcome::Held)) => Term::Lost(Lost::TakenOver),
                Some(Err(error)) => {
                    self.log.error(&format!(
                        "cannot renew the leader election Lease ({error}); retrying until the renew deadline"
                    ));
                    continue;
                }
            };
            if term.send(outcome).is_err() || matches!(outcome, Term::Lost(_)) {
                return;
            }
        }
    }

    /// Reads the Lease once and creates, takes or renews it if this candidate may.
    async fn attempt(&self, seen: &mut Option<Seen>) -> Result<Outcome, LeaseError> {
        let started = Instant::now();
        let lease = self
            .api
            .get_opt(&self.name)
            .await
            .map_err(|source| self.error("read", source))?;
        let Some(mut lease) = lease else {
            return self.create(started).await;
        };
        let record = lease.spec.clone();
        if seen.as_ref().is_none_or(|s| s.record != record) {
            *seen = Some(Seen {
                record,
                at: started,
            });
        }
        let spec = lease.spec.get_or_insert_with(LeaseSpec::default);
        let holder = spec.holder_identity.as_deref().filter(|h| !h.is_empty());
        let now = MicroTime(Timestamp::now());
        match holder {
            Some(holder) if holder == self.identity => {}
            Some(_) if !self.expired(spec, seen.as_ref(), started) => return Ok(Outcome::Held),
            _ => {
                spec.holder_identity = Some(self.identity.clone());
                spec.acquire_time = Some(now.clone());
                spec.lease_transitions = Some(spec.lease_transitions.unwrap_or(0) + 1);
            }
        }
        spec.renew_time = Some(now);
        spec.lease_duration_seconds = Some(seconds(self.timing.lease_duration));
        match self
            .api
            .replace(&self.name, &PostParams::default(), &lease)
            .await
        {
            Ok(_) => Ok(Outcome::Holding(started)),
            // Someone wrote the Lease since it was read: look again next time.
            Err(kube::Error::Api(status)) if status.is_conflict() => Ok(Outcome::Held),
            Err(source) => Err(self.error("update", source)),
        }
    }

    async fn create(&self, started: Instant) -> Result<Outcome, LeaseError> {
        let now = MicroTime(Timestamp::now());
        let lease = Lease {
            metadata: ObjectMeta {
                name: Some(self.name.clone()),
                namespace: Some(self.namespace.clone()),
                ..ObjectMeta::default()
            },
            spec: Some(LeaseSpec {
                holder_identity: Some(self.identity.clone()),
                acquire_time: Some(now.clone()),
                renew_time: Some(now),
                lease_duration_seconds: Some(seconds(self.timing.lease_duration)),
                lease_transitions: Some(0),
                ..LeaseSpec::default()
            }),
        };
        match self.api.create(&PostParams::default(), &lease).await {
            Ok(_) => Ok(Outcome::Holding(started)),
            Err(kube::Error::Api(status)) if status.is_already_exists() => Ok(Outcome::Held),
            Err(source) => Err(self.error("create", source)),
        }
    }

    /// True when the holder has not renewed for the Lease's duration, counted from when this
    /// candidate saw the record change.
    fn expired(&self, spec: &LeaseSpec, seen: Option<&Seen>, now: Instant) -> bool {
        let duration = spec
            .lease_duration_seconds
            .and_then(|s| u64::try_from(s).ok())
            .map_or(self.timing.lease_duration, Duration::from_secs);
        seen.is_some_and(|seen| now.duration_since(seen.at) >= duration)
    }

    /// Hands the Lease over: no holder, so that a standby replica takes it at its next try
    /// instead of waiting for the lease to expire. Only if this replica still holds it.
    async fn release(&self) -> Result<(), LeaseError> {
        let Some(mut lease) = self
            .api
            .get_opt(&self.name)
            .await
            .map_err(|source| self.error("read", source))?
        else {
            return Ok(());
        };
        let Some(spec) = lease.spec.as_mut() else {
            return Ok(());
        };
        if spec.holder_identity.as_deref() != Some(self.identity.as_str()) {
            return Ok(());
        }
        spec.holder_identity = None;
        spec.lease_duration_seconds = Some(1);
        spec.renew_time = Some(MicroTime(Timestamp::now()));
        self.api
            .replace(&lease.name_any(), &PostParams::default(), &lease)
            .await
            .map(drop)
            .map_err(|source| self.error("release", source))
    }

    fn error(&self, action: &'static str, source: kube::Error) -> LeaseError {
        LeaseError {
            action,
            namespace: self.namespace.clone(),
            name: self.name.clone(),
            source,
        }
    }
}

/// Holding the Lease: renewed in the background until [`Leadership::release`] or until it is
/// lost.
pub struct Leadership {
    term: watch::Receiver<Term>,
    renewer: JoinHandle<()>,
    candidate: Arc<Candidate>,
}

impl Leadership {
    /// Resolves as soon as this replica may no longer act as the leader: when the renew
    /// deadline passes without a successful renewal (checked here on its own timer, whatever
    /// the renewing task is doing) or when another replica holds the Lease.
    pub async fn lost(&mut self) -> Lost {
        loop {
            let term = *self.term.borrow_and_update();
            let deadline = match term {
                Term::Lost(lost) => return lost,
                Term::Until(deadline) => deadline,
            };
            let expired = tokio::select! {
                () = sleep_until(deadline) => true,
                changed = self.term.changed() => {
                    if changed.is_err() {
                        // The renewing task ended without a word: trust nothing.
                        return Lost::RenewDeadline;
                    }
                    false
                }
            };
            if expired && *self.term.borrow() == term {
                return Lost::RenewDeadline;
            }
        }
    }

    /// Stops renewing and gives the Lease up, for a graceful shutdown. Tries once, for at most
    /// a retry period: an unreachable API server must not delay the exit.
    pub async fn release(self) {
        self.renewer.abort();
        let retry_period = self.candidate.timing.retry_period;
        let log = &self.candidate.log;
        match timeout(retry_period, self.candidate.release()).await {
            Ok(Ok(())) => log.info("Released the leader election Lease"),
            Ok(Err(error)) => log.error(&format!("{error}; the Lease expires by itself instead")),
            Err(_) => log.error("releasing the Lease timed out; it expires by itself instead"),
        }
    }
}

impl Drop for Leadership {
    fn drop(&mut self) {
        self.renewer.abort();
    }
}

/// `timeout` until an instant: `None` when the instant passed first.
async fn timeout_at<T>(deadline: Instant, task: impl Future<Output = T>) -> Option<T> {
    tokio::time::timeout_at(deadline, task).await.ok()
}

fn seconds(duration: Duration) -> i32 {
    i32::try_from(duration.as_secs()).unwrap_or(i32::MAX)
}
