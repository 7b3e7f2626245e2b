//! Leader election on a Lease, by client-go's rules. A candidate takes the Lease when it is
//! missing, has no holder, or has not changed for its duration on the candidate's own clock
//! (immune to skew); a write carries the `resourceVersion` read, so of two racing candidates one
//! loses. A renewal counts from its start: cut off, the leader stops before anyone takes over.

use std::{hash::BuildHasher, hash::RandomState, time::Duration};

use anyhow::Context as _;
use futures::FutureExt as _;
use k8s_openapi::api::coordination::v1::{Lease, LeaseSpec};
use k8s_openapi::{apimachinery::pkg::apis::meta::v1::MicroTime, jiff::Timestamp};
use kube::api::{Api, PostParams, entry::CommitError::Save};
use kube::{Client, runtime::watcher::DefaultBackoff};
use tokio::time::{Instant, sleep, timeout, timeout_at};
use tracing::{info, warn};

// client-go's defaults.
const LEASE_DURATION: Duration = Duration::from_secs(15);
const RENEW_DEADLINE: Duration = Duration::from_secs(10);
const RETRY_PERIOD: Duration = Duration::from_secs(2);

const RENEW_DEADLINE_PASSED: &str = "the Lease could not be renewed within the renew deadline";
const TAKEN_OVER: &str = "another replica holds the Lease";

/// One replica taking part in the election of one Lease.
pub struct Candidate {
    api: Api<Lease>,
    name: String,
    lease: String, // `namespace/name`, for messages
    identity: String,
    /// The Lease's spec as last read, and since when this replica has seen it unchanged.
    seen: (Option<LeaseSpec>, Instant),
    /// Holding the Lease, until when: each renewal moves it on.
    deadline: Instant,
}

impl Candidate {
    pub fn new(client: Client, ns: &str, name: &str, identity: &str) -> Self {
        Candidate {
            api: Api::namespaced(client, ns),
            name: name.to_string(),
            lease: format!("{ns}/{name}"),
            identity: identity.to_string(),
            seen: (None, Instant::now()),
            deadline: Instant::now(),
        }
    }

    /// Waits until this replica holds the Lease. Failures are retried with backoff, except those
    /// that waiting does not cure, which are returned.
    pub async fn acquire(mut self) -> anyhow::Result<Candidate> {
        let (mut backoff, mut failures) = (DefaultBackoff::default(), 0_u32);
        let started = loop {
            let wait = match self.try_hold().await {
                Ok(Some(started)) => break started,
                Ok(None) => {
                    (failures, backoff) = (0, DefaultBackoff::default());
                    // client-go's jitter (factor 1.2), from a randomly keyed hash.
                    let random = RandomState::new().hash_one(()) % 1024;
                    RETRY_PERIOD.mul_f64(1.0 + 1.2 * random as f64 / 1024.0)
                }
                Err(error) if is_permanent(&error) => return Err(error),
                Err(error) => {
                    failures += 1;
                    let wait = backoff.next().unwrap_or(RETRY_PERIOD);
                    warn!(error = format!("{error:#}"), failures, retry_in = ?wait, "leader election: will retry");
                    wait
                }
            };
            sleep(wait).await;
        };
        self.deadline = started + RENEW_DEADLINE;
        Ok(self)
    }

    /// Creates, takes or renews the Lease if this replica may. Holding it, returns when this
    /// attempt started: the leader's term counts from there.
    async fn try_hold(&mut self) -> anyhow::Result<Option<Instant>> {
        let started = Instant::now();
        let read = self.api.entry(&self.name).await;
        let read = read.with_context(|| format!("cannot read the Lease {}", self.lease))?;
        let mut entry = read.or_insert(Lease::default);
        let lease = entry.get_mut();
        if self.seen.0 != lease.spec {
            self.seen = (lease.spec.clone(), Instant::now());
        }
        let spec = lease.spec.get_or_insert_default();
        let lasts = Duration::from_secs(spec.lease_duration_seconds.unwrap_or(0).max(0) as u64);
        let expired = self.seen.1.elapsed() >= lasts;
        let now = MicroTime(Timestamp::now());
        match spec.holder_identity.as_deref().filter(|h| !h.is_empty()) {
            Some(holder) if holder == self.identity => {}
            Some(_) if !expired => return Ok(None),
            _ => {
                spec.holder_identity = Some(self.identity.clone());
                spec.acquire_time = Some(now.clone());
                spec.lease_transitions = Some(spec.lease_transitions.map_or(0, |n| n + 1));
            }
        }
        spec.renew_time = Some(now);
        spec.lease_duration_seconds = Some(LEASE_DURATION.as_secs() as i32);
        match entry.commit(&PostParams::default()).await {
            Ok(()) => Ok(Some(started)),
            // Another replica wrote the Lease since it was read.
            Err(Save(kube::Error::Api(s))) if s.is_conflict() || s.is_already_exists() => Ok(None),
            Err(e) => Err(e).with_context(|| format!("cannot write the Lease {}", self.lease)),
        }
    }

    /// Renews the Lease every retry period while polled (keep one call polled for as long as
    /// leading). Resolves, saying why, at the renew deadline, on its own timer even if a request
    /// hangs, or as soon as another replica holds the Lease.
    pub async fn lost(&mut self) -> &'static str {
        let mut failures = 0_u32;
        loop {
            let deadline = self.deadline;
            let renewal = sleep(RETRY_PERIOD).then(|()| self.try_hold());
            match timeout_at(deadline, renewal).await {
                Err(_) => return RENEW_DEADLINE_PASSED,
                Ok(Ok(None)) => return TAKEN_OVER,
                Ok(Ok(Some(started))) => (failures, self.deadline) = (0, started + RENEW_DEADLINE),
                Ok(Err(error)) => {
                    failures += 1;
                    warn!(
                        error = format!("{error:#}"),
                        failures,
                        "cannot renew the leader election Lease; retrying until the renew deadline"
                    );
                }
            }
        }
    }

    /// Gives the Lease up, if still held, so that a standby takes over at once. Tries once, for
    /// at most a retry period: an unreachable API server must not delay the exit.
    pub async fn release(self) {
        let (api, name) = (&self.api, &self.name);
        let release = async {
            let mut lease = api.get(name).await?;
            let spec = lease.spec.get_or_insert_default();
            if spec.holder_identity.as_ref() == Some(&self.identity) {
                spec.holder_identity = None;
                spec.lease_duration_seconds = Some(1);
                spec.renew_time = Some(MicroTime(Timestamp::now()));
                api.replace(name, &Default::default(), &lease).await?;
            }
            Ok::<_, kube::Error>(())
        };
        match timeout(RETRY_PERIOD, release).await {
            Ok(Ok(())) => info!("released the leader election Lease"),
            Ok(Err(error)) => warn!(%error, "cannot release the Lease; it expires by itself"),
            Err(_) => warn!("releasing the Lease timed out; it expires by itself"),
        }
    }
}

/// Errors that waiting does not cure: no permission, no namespace, a rejected object.
fn is_permanent(error: &anyhow::Error) -> bool {
    let api = error.chain().find_map(|e| e.downcast_ref::<kube::Error>());
    matches!(api, Some(kube::Error::Api(status)) if matches!(status.code, 400 | 401 | 403 | 404 | 422))
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
        let candidate = Candidate::new(client, "ops", "op-leader", identity);
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
        assert_eq!(leadership.lost().await, RENEW_DEADLINE_PASSED);
        // Exactly the renew deadline after the creation started, on the paused clock.
        assert_eq!(started.elapsed(), RENEW_DEADLINE);
        assert!(started.elapsed() < LEASE_DURATION);
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
        assert_eq!(leadership.lost().await, TAKEN_OVER);
        // Six renewals every two seconds kept it past the first renew deadline.
        assert!(started.elapsed() > RENEW_DEADLINE);
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
                    assert!(started.elapsed() >= LEASE_DURATION);
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
        candidate.acquire().await.unwrap();
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
        let text = format!("{error:#}");
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

    /// A write that loses a race (409) means another replica won: no error, no backoff, the
    /// candidate looks again a retry period later.
    #[tokio::test(start_paused = true)]
    async fn a_lost_race_leaves_a_candidate() {
        let (candidate, mut handle) = candidate("pod-b");
        let server = tokio::spawn(async move {
            answer(
                &mut handle,
                Method::GET,
                LEASE,
                StatusCode::OK,
                lease(None, "5"),
            )
            .await;
            let conflict = json!({"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "Conflict", "code": 409});
            answer(
                &mut handle,
                Method::PUT,
                LEASE,
                StatusCode::CONFLICT,
                conflict,
            )
            .await;
            let lost_at = Instant::now();
            answer(
                &mut handle,
                Method::GET,
                LEASE,
                StatusCode::OK,
                lease(None, "6"),
            )
            .await;
            assert!(lost_at.elapsed() >= RETRY_PERIOD, "{:?}", lost_at.elapsed());
            let taken = answer(
                &mut handle,
                Method::PUT,
                LEASE,
                StatusCode::OK,
                lease(Some("pod-b"), "7"),
            )
            .await;
            assert_eq!(taken["metadata"]["resourceVersion"], "6");
        });
        let acquiring = tokio::spawn(candidate.acquire());
        server.await.unwrap();
        acquiring.await.unwrap().unwrap();
    }
}
