//! A mocked API server for the controllers' tests (the tower-test pattern of kube-rs): a test
//! scripts the requests it expects, answers them, and checks what the reconciler sent.

use std::{sync::Arc, time::Duration};

use http::{Method, Request, Response, StatusCode};
use kube::runtime::events::{Recorder, Reporter};
use kube::{Client, client::Body};
use serde_json::{Value, json};

use crate::{context::Context, metrics::Metrics, reconcile::backoff::ErrorBackoff};

pub type Handle = tower_test::mock::Handle<Request<Body>, Response<Body>>;

/// A context whose requests go to the returned handle.
pub fn context() -> (Arc<Context>, Handle) {
    let (service, handle) = tower_test::mock::pair::<Request<Body>, Response<Body>>();
    let client = Client::new(service, "default");
    let ctx = Context {
        client: client.clone(),
        watch_client: client.clone(),
        watch_namespace: None,
        concurrency: 1,
        recorder: Recorder::new(client, Reporter::from("test")),
        metrics: Arc::new(Metrics::new("test")),
        backoff: ErrorBackoff::default(),
    };
    (Arc::new(ctx), handle)
}

/// A `Status` answer of the API server.
pub fn api_error(code: u16, reason: &str, message: &str) -> Value {
    json!({
        "kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": reason,
        "message": message, "code": code
    })
}

/// Answers the next request after checking its method and path; returns its JSON body.
pub async fn expect(
    handle: &mut Handle,
    method: Method,
    path: &str,
    status: StatusCode,
    reply: Value,
) -> Value {
    let (request, send) = handle
        .next_request()
        .await
        .expect("the reconciler sent no request");
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

/// Guards against a hang when the reconciler sends fewer requests than scripted.
pub async fn run_with_timeout<T>(task: impl Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(10), task)
        .await
        .expect("timed out")
}
