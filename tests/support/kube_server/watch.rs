//! Watches, as kube-runtime's watcher and kubectl use them: one JSON event per line, from a
//! resourceVersion or from the current state, with bookmarks, streaming lists and expiry.
//!
//! - `resourceVersion` unset or `0`: ADDED events for the current objects first, then changes;
//!   `N`: the changes after N, or one ERROR event with a 410 `Expired` Status when N is older
//!   than the bounded history (see [`super::KubeServer::compact`]).
//! - `sendInitialEvents=true` (which needs `resourceVersionMatch=NotOlderThan` and
//!   `allowWatchBookmarks=true`, or the watch is refused with 422 as by the API server): the
//!   current objects as ADDED, then a BOOKMARK annotated `k8s.io/initial-events-end: "true"`.
//! - `allowWatchBookmarks=true`: BOOKMARK events every 30 seconds, on
//!   [`super::KubeServer::send_bookmarks`], and when the watch times out; their
//!   resourceVersion is the last one this watch has seen, so a client resuming from it misses
//!   nothing.
//! - `timeoutSeconds`: the stream ends after that long, exactly (the API server stretches
//!   its own default, never one the client asked for).
//! - A watcher too slow to keep up with the change feed gets a 410 ERROR event and the end of
//!   its stream, so it lists again, as the API server's watch cache does with slow clients.
//! - Metadata-only watches (`Accept: ...;as=PartialObjectMetadata;g=meta.k8s.io;v=v1`) carry
//!   `PartialObjectMetadata` objects.
//! - A custom resource whose CRD converts by webhook is converted event by event into the
//!   watch's version ([`super::conversion`]); a conversion that fails sends an ERROR event
//!   with its Status and ends the stream.

use std::time::Duration;

use hyper::body::Bytes;
use serde_json::{Value, json};
use tokio::sync::{broadcast, mpsc};

use super::conversion::{self, Crd};
use super::events;
use super::metadata;
use super::resources::ResourceType;
use super::selectors::Selector;
use super::store::{ApiError, Change, State, present};
use super::webhook_client::Shared;

const BOOKMARK_INTERVAL: Duration = Duration::from_secs(30);

/// What a `?watch=true` request asks for.
pub struct WatchRequest {
    pub t: ResourceType,
    pub namespace: Option<String>,
    pub selector: Selector,
    pub resource_version: Option<String>,
    pub version_match: Option<String>,
    pub bookmarks: bool,
    pub send_initial_events: bool,
    pub timeout: Option<Duration>,
    pub metadata_only: bool,
    /// For a custom resource whose CRD converts by webhook: the CRD, and the server whose
    /// Services the webhook is found through.
    pub conversion: Option<(Crd, Shared)>,
}

impl WatchRequest {
    fn wants(&self, change: &Change) -> bool {
        let (group, plural) = (&change.key.group, &change.key.plural);
        group == events::storage_group(&self.t)
            && *plural == self.t.plural
            && self
                .namespace
                .as_deref()
                .is_none_or(|ns| ns == change.key.namespace)
            && self
                .selector
                .matches(&events::viewed(&self.t, change.object.clone()))
    }

    fn line(&self, kind: &str, object: &Value) -> Bytes {
        let object = present(&self.t, object.clone());
        let object = if self.metadata_only {
            metadata::partial(&object)
        } else {
            object
        };
        let mut line = json!({"type": kind, "object": object}).to_string();
        line.push('\n');
        Bytes::from(line)
    }

    fn bookmark(&self, resource_version: u64, initial_end: bool) -> Bytes {
        let (api_version, kind) = if self.metadata_only {
            (
                metadata::API_VERSION.to_string(),
                metadata::KIND.to_string(),
            )
        } else {
            (self.t.api_version(), self.t.kind.clone())
        };
        let mut meta =
            json!({"resourceVersion": resource_version.to_string(), "creationTimestamp": null});
        if initial_end {
            meta["annotations"] = json!({"k8s.io/initial-events-end": "true"});
        }
        let mut line = json!({"type": "BOOKMARK",
                              "object": {"apiVersion": api_version, "kind": kind, "metadata": meta}})
        .to_string();
        line.push('\n');
        Bytes::from(line)
    }
}

fn expired(message: String) -> Bytes {
    error_line(&ApiError::new(410, "Expired", message))
}

fn error_line(error: &ApiError) -> Bytes {
    let mut line = json!({"type": "ERROR", "object": error.status()}).to_string();
    line.push('\n');
    Bytes::from(line)
}

/// What a watch sends first: events of objects, which may need converting, or ready lines.
enum Initial {
    Event(&'static str, Value),
    Line(Bytes),
}

impl WatchRequest {
    /// The event's line, with the object converted into the watch's version first when the
    /// CRD converts by webhook.
    async fn converted_line(&self, kind: &str, object: &Value) -> Result<Bytes, Bytes> {
        let Some((crd, state)) = &self.conversion else {
            return Ok(self.line(kind, object));
        };
        match conversion::convert(state, crd, object.clone(), &self.t.version).await {
            Ok(converted) => Ok(self.line(kind, &converted)),
            Err(error) => Err(error_line(&error)),
        }
    }
}

/// Checks the request, takes the initial events and subscribes to changes, all under the
/// state's lock so that nothing falls between them, and streams from a task of its own.
pub fn start(state: &mut State, request: WatchRequest) -> Result<mpsc::Receiver<Bytes>, ApiError> {
    let invalid = |message: &str| ApiError::new(422, "Invalid", message.to_string());
    if request.send_initial_events {
        if request.version_match.as_deref() != Some("NotOlderThan") {
            return Err(invalid(
                "sendInitialEvents: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan",
            ));
        }
        if !request.bookmarks {
            return Err(invalid(
                "allowWatchBookmarks: Forbidden: sendInitialEvents requires setting allowWatchBookmarks to true",
            ));
        }
    } else if request.version_match.is_some() {
        return Err(invalid(
            "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided",
        ));
    }
    let since = match request.resource_version.as_deref() {
        None | Some("") | Some("0") => None,
        Some(text) => Some(text.parse::<u64>().map_err(|_| {
            ApiError::new(
                400,
                "BadRequest",
                format!("resourceVersion: Invalid value: \"{text}\": must be a number"),
            )
        })?),
    };
    let current = state.resource_version();
    let mut initial = Vec::new();
    let mut ended = false;
    match since {
        Some(since) if !request.send_initial_events => {
            if since < state.compacted() {
                ended = true;
                initial.push(Initial::Line(expired(format!(
                    "too old resource version: {since} ({})",
                    state.compacted()
                ))));
            } else {
                for change in state.history_after(since) {
                    if request.wants(&change) {
                        initial.push(Initial::Event(change.kind, change.object));
                    }
                }
            }
        }
        _ => {
            let namespace = request.namespace.as_deref();
            for object in state.selected(&request.t, namespace, &request.selector) {
                initial.push(Initial::Event("ADDED", object));
            }
            if request.send_initial_events {
                initial.push(Initial::Line(request.bookmark(current, true)));
            }
        }
    }
    let mut changes = state.changes.subscribe();
    let mut bookmark_requests = state.bookmark_requests.subscribe();
    let mut expiries = state.expiries.subscribe();
    let (sender, receiver) = mpsc::channel::<Bytes>(256);
    tokio::spawn(async move {
        for item in initial {
            let (line, last) = match item {
                Initial::Line(line) => (line, false),
                Initial::Event(kind, object) => match request.converted_line(kind, &object).await {
                    Ok(line) => (line, false),
                    Err(error) => (error, true),
                },
            };
            if sender.send(line).await.is_err() || last {
                return;
            }
        }
        if ended {
            return;
        }
        let mut last_seen = current;
        let deadline = request.timeout.map(|t| tokio::time::Instant::now() + t);
        let mut ticks = tokio::time::interval_at(
            tokio::time::Instant::now() + BOOKMARK_INTERVAL,
            BOOKMARK_INTERVAL,
        );
        loop {
            let line = tokio::select! {
                change = changes.recv() => match change {
                    Ok(change) => {
                        last_seen = change.resource_version;
                        if !request.wants(&change) {
                            continue;
                        }
                        match request.converted_line(change.kind, &change.object).await {
                            Ok(line) => line,
                            Err(error) => {
                                let _ = sender.send(error).await;
                                return;
                            }
                        }
                    }
                    Err(broadcast::error::RecvError::Lagged(_)) => {
                        let _ = sender
                            .send(expired("the watch fell behind the changes; list again".into()))
                            .await;
                        return;
                    }
                    Err(broadcast::error::RecvError::Closed) => return,
                },
                _ = ticks.tick(), if request.bookmarks => request.bookmark(last_seen, false),
                asked = bookmark_requests.changed(), if request.bookmarks => {
                    if asked.is_err() {
                        return;
                    }
                    request.bookmark(last_seen, false)
                }
                _ = sleep_until(deadline) => {
                    if request.bookmarks {
                        let _ = sender.send(request.bookmark(last_seen, false)).await;
                    }
                    return;
                }
                _ = sender.closed() => return,
                _ = expiries.changed() => {
                    let _ = sender
                        .send(expired(format!("too old resource version: {last_seen}")))
                        .await;
                    return;
                }
            };
            if sender.send(line).await.is_err() {
                return;
            }
        }
    });
    Ok(receiver)
}

async fn sleep_until(deadline: Option<tokio::time::Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}
