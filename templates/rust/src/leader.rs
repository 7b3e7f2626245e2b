//! Leader election on a `coordination.k8s.io/v1` Lease, so that of several replicas exactly one
//! reconciles while the others stand by to take over.
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
//! - A candidate looks again every retry period with jitter (client-go's factor 1.2), so that
//!   replicas started together do not ask together; after a failed request it backs off
//!   exponentially with jitter (kube's watcher backoff: 0.8 s doubling up to 30 s). A failure
//!   that repeats is logged once per retry with its count.

use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::coordination::v1::{Lease, LeaseSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime;
use k8s_openapi::jiff::Timestamp;
use kube::api::{Api, ObjectMeta, PostParams};
use kube::runtime::watcher::DefaultBackoff;
use kube::{Client, ResourceExt};
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio::time::{Instant, sleep, sleep_until, timeout};
use tracing::{info, warn};

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
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Lost {
    #[error("the Lease could not be renewed within the renew deadline")]
    RenewDeadline,
    #[error("another replica holds the Lease")]
    TakenOver,
}

/// The leader's view of its term: leading until an instant, or lost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Term {
    Until(Instant),
    Lost(Lost),
}

/// One replica taking part in the election of one Lease.
pub struct Candidate {
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
    ) -> Self {
        Candidate {
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
        let mut backoff = DefaultBackoff::default();
        let mut failures = 0_u32;
        let started = loop {
            let wait = match self.attempt(&mut seen).await {
                Ok(Outcome::Holding(started)) => break started,
                Ok(Outcome::Held) => {
                    (failures, backoff) = (0, DefaultBackoff::default());
                    jittered(self.timing.retry_period)
                }
                Err(error) if error.is_permanent() => return Err(error),
                Err(error) => {
                    failures += 1;
                    let wait = backoff.next().unwrap_or(self.timing.retry_period);
                    warn!(%error, failures, retry_in = ?wait, "leader election: will retry");
                    wait
                }
            };
            sleep(wait).await;
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
        let mut failures = 0_u32;
        loop {
            sleep(self.timing.retry_period).await;
            let Term::Until(deadline) = *term.borrow() else {
                return;
            };
            // A request that hangs must not hold the leader past its deadline.
            let outcome = match tokio::time::timeout_at(deadline, self.attempt(&mut seen))
                .await
                .ok()
            {
                None => Term::Lost(Lost::RenewDeadline),
                Some(Ok(Outcome::Holding(started))) => {
                    failures = 0;
                    Term::Until(started + self.timing.renew_deadline)
                }
                Some(Ok(Outcome::Held)) => Term::Lost(Lost::TakenOver),
                Some(Err(error)) => {
                    failures += 1;
                    warn!(%error, failures, "cannot renew the leader election Lease; retrying until the renew deadline");
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
        match timeout(retry_period, self.candidate.release()).await {
            Ok(Ok(())) => info!("released the leader election Lease"),
            Ok(Err(error)) => warn!(%error, "the Lease expires by itself instead"),
            Err(_) => warn!("releasing the Lease timed out; it expires by itself instead"),
        }
    }
}

impl Drop for Leadership {
    fn drop(&mut self) {
        self.renewer.abort();
    }
}

/// `period` stretched by up to 1.2 times itself at random, as client-go's `wait.Jitter`.
fn jittered(period: Duration) -> Duration {
    use std::hash::{BuildHasher, Hasher};
    // Randomly keyed per call: random enough to spread replicas, with no dependency for it.
    let random = std::collections::hash_map::RandomState::new()
        .build_hasher()
        .finish();
    period.mul_f64(1.0 + 1.2 * (random % 1024) as f64 / 1024.0)
}

fn seconds(duration: Duration) -> i32 {
    i32::try_from(duration.as_secs()).unwrap_or(i32::MAX)
}

#[cfg(test)]
mod tests {
    //! The election against a mocked API server, on tokio's paused clock: time moves only
    //! when every task waits, so the deadlines are exact and no test sleeps.

    use super::*;
    use http::{Method, Request, Response, StatusCode};
    use kube::client::Body;
    use serde_json::{Value, json};

    type Handle = tower_test::mock::Handle<Request<Body>, Response<Body>>;

    const LEASE: &str = "/apis/coordination.k8s.io/v1/namespaces/ops/leases/op-leader";

    fn candidate(identity: &str) -> (Candidate, Handle) {
        let (service, handle) = tower_test::mock::pair::<Request<Body>, Response<Body>>();
        let client = Client::new(service, "default");
        let candidate = Candidate::new(client, "ops", "op-leader", identity, Timing::default());
        (candidate, handle)
    }

    fn lease(holder: Option<&str>, version: &str) -> Value {
        json!({
            "apiVersion": "coordination.k8s.io/v1",
            "kind": "Lease",
            "metadata": {"name": "op-leader", "namespace": "ops", "resourceVersion": version},
            "spec": {"holderIdentity": holder, "leaseDurationSeconds": 15, "leaseTransitions": 3},
        })
    }

    fn not_found() -> Value {
        json!({"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "NotFound", "code": 404})
    }

    /// Answers the next request after checking its method and path; returns its JSON body.
    async fn answer(
        handle: &mut Handle,
        method: Method,
        path: &str,
        status: StatusCode,
        reply: Value,
    ) -> Value {
        let (request, send) = handle.next_request().await.expect("no request");
        assert_eq!(request.method(), method, "{}", request.uri());
        assert_eq!(request.uri().path(), path);
        let bytes = request.into_body().collect_bytes().await.unwrap();
        let body = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        let reply = Response::builder()
            .status(status)
            .body(Body::from(serde_json::to_vec(&reply).unwrap()))
            .unwrap();
        send.send_response(reply);
        body
    }

    #[tokio::test(start_paused = true)]
    async fn creates_a_missing_lease_and_steps_down_when_renewals_hang() {
        let (candidate, mut handle) = candidate("pod-a");
        let server = tokio::spawn(async move {
            answer(
                &mut handle,
                Method::GET,
                LEASE,
                StatusCode::NOT_FOUND,
                not_found(),
            )
            .await;
            let created = answer(
                &mut handle,
                Method::POST,
                "/apis/coordination.k8s.io/v1/namespaces/ops/leases",
                StatusCode::CREATED,
                lease(Some("pod-a"), "1"),
            )
            .await;
            assert_eq!(created["spec"]["holderIdentity"], "pod-a");
            // Renewals get no answer at all, as behind a network partition.
            let mut pending = Vec::new();
            while let Some(request) = handle.next_request().await {
                pending.push(request);
            }
        });
        let started = Instant::now();
        let mut leadership = candidate.acquire().await.unwrap();
        assert_eq!(leadership.lost().await, Lost::RenewDeadline);
        // Exactly the renew deadline after the creation started, on the paused clock.
        assert_eq!(started.elapsed(), Timing::default().renew_deadline);
        assert!(started.elapsed() < Timing::default().lease_duration);
        drop(leadership);
        server.abort();
    }

    #[tokio::test(start_paused = true)]
    async fn a_renewed_lease_keeps_the_term_and_a_taken_one_ends_it() {
        let (candidate, mut handle) = candidate("pod-a");
        let server = tokio::spawn(async move {
            answer(
                &mut handle,
                Method::GET,
                LEASE,
                StatusCode::OK,
                lease(Some("pod-a"), "7"),
            )
            .await;
            let renewed = answer(
                &mut handle,
                Method::PUT,
                LEASE,
                StatusCode::OK,
                lease(Some("pod-a"), "8"),
            )
            .await;
            // Optimistic: the write carries the version it read.
            assert_eq!(renewed["metadata"]["resourceVersion"], "7");
            assert!(renewed["spec"]["renewTime"].is_string());
            for version in ["9", "10", "11", "12", "13", "14"] {
                answer(
                    &mut handle,
                    Method::GET,
                    LEASE,
                    StatusCode::OK,
                    lease(Some("pod-a"), version),
                )
                .await;
                answer(
                    &mut handle,
                    Method::PUT,
                    LEASE,
                    StatusCode::OK,
                    lease(Some("pod-a"), version),
                )
                .await;
            }
            // Another replica took over (an operator edited the Lease, say).
            answer(
                &mut handle,
                Method::GET,
                LEASE,
                StatusCode::OK,
                lease(Some("pod-b"), "20"),
            )
            .await;
        });
        let started = Instant::now();
        let mut leadership = candidate.acquire().await.unwrap();
        assert_eq!(leadership.lost().await, Lost::TakenOver);
        // Six renewals every two seconds kept it past the first renew deadline.
        assert!(started.elapsed() > Timing::default().renew_deadline);
        server.await.unwrap();
    }

    #[tokio::test(start_paused = true)]
    async fn a_held_lease_is_taken_only_after_it_expires() {
        let (candidate, mut handle) = candidate("pod-b");
        let started = Instant::now();
        let server = tokio::spawn(async move {
            // The holder stops renewing: the record stays the same until the candidate, looking
            // at jittered intervals, finds it expired and takes it.
            let mut reads = 0;
            loop {
                let (request, send) = handle.next_request().await.expect("a request");
                let method = request.method().clone();
                let bytes = request.into_body().collect_bytes().await.unwrap();
                let reply = if method == Method::GET {
                    reads += 1;
                    lease(Some("pod-a"), "5")
                } else {
                    assert_eq!(method, Method::PUT);
                    let taken: Value = serde_json::from_slice(&bytes).unwrap();
                    assert_eq!(taken["spec"]["holderIdentity"], "pod-b");
                    assert_eq!(taken["spec"]["leaseTransitions"], 4);
                    assert!(started.elapsed() >= Timing::default().lease_duration);
                    let reply = Response::builder()
                        .body(Body::from(
                            lease(Some("pod-b"), "6").to_string().into_bytes(),
                        ))
                        .unwrap();
                    send.send_response(reply);
                    return (handle, reads);
                };
                send.send_response(
                    Response::builder()
                        .body(Body::from(reply.to_string().into_bytes()))
                        .unwrap(),
                );
            }
        });
        let leadership = candidate.acquire().await.unwrap();
        leadership.renewer.abort();
        let (handle, reads) = server.await.unwrap();
        // Every 2 to 4.4 seconds over 15: between 4 and 9 looks.
        assert!((4..=9).contains(&reads), "{reads} reads");
        drop(handle);
    }

    /// While the API server is unreachable the candidate backs off: far fewer attempts than one
    /// per retry period, and each logged once.
    #[tokio::test(start_paused = true)]
    async fn failures_back_off_exponentially() {
        let (candidate, mut handle) = candidate("pod-a");
        let server = tokio::spawn(async move {
            let mut attempts = 0;
            let started = Instant::now();
            while started.elapsed() < Duration::from_secs(60) {
                let (_, send) = handle.next_request().await.expect("a request");
                attempts += 1;
                let unavailable = json!({"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "ServiceUnavailable", "code": 503});
                let reply = Response::builder()
                    .status(StatusCode::SERVICE_UNAVAILABLE)
                    .body(Body::from(unavailable.to_string().into_bytes()))
                    .unwrap();
                send.send_response(reply);
            }
            attempts
        });
        let acquiring = tokio::spawn(candidate.acquire());
        let attempts = server.await.unwrap();
        acquiring.abort();
        // A minute of retries every 2 s would be 30; 0.8 s doubling (with jitter) up to 30 s is
        // at most 8.
        assert!(attempts <= 8, "{attempts} attempts in a minute");
    }

    #[tokio::test(start_paused = true)]
    async fn acquire_returns_a_permanent_error() {
        let (candidate, mut handle) = candidate("pod-a");
        let server = tokio::spawn(async move {
            let forbidden = json!({
                "kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "Forbidden",
                "message": "leases.coordination.k8s.io \"op-leader\" is forbidden", "code": 403
            });
            answer(
                &mut handle,
                Method::GET,
                LEASE,
                StatusCode::FORBIDDEN,
                forbidden,
            )
            .await;
        });
        let error = candidate
            .acquire()
            .await
            .err()
            .expect("acquired without permission");
        let text = error.to_string();
        assert!(
            text.contains("cannot read the Lease ops/op-leader"),
            "{text}"
        );
        assert!(text.contains("forbidden"), "{text}");
        server.await.unwrap();
    }

    #[tokio::test(start_paused = true)]
    async fn release_hands_the_lease_over() {
        let (candidate, mut handle) = candidate("pod-a");
        let server = tokio::spawn(async move {
            answer(
                &mut handle,
                Method::GET,
                LEASE,
                StatusCode::OK,
                lease(Some("pod-a"), "7"),
            )
            .await;
            answer(
                &mut handle,
                Method::PUT,
                LEASE,
                StatusCode::OK,
                lease(Some("pod-a"), "8"),
            )
            .await;
            answer(
                &mut handle,
                Method::GET,
                LEASE,
                StatusCode::OK,
                lease(Some("pod-a"), "8"),
            )
            .await;
            let released = answer(
                &mut handle,
                Method::PUT,
                LEASE,
                StatusCode::OK,
                lease(None, "9"),
            )
            .await;
            assert_eq!(released["spec"]["holderIdentity"], Value::Null);
            assert_eq!(released["spec"]["leaseDurationSeconds"], 1);
        });
        let leadership = candidate.acquire().await.unwrap();
        leadership.release().await;
        server.await.unwrap();
    }
}
