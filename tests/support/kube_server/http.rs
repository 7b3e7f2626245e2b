//! The HTTP face of the test server: routing Kubernetes API paths, authentication, refusals,
//! content negotiation for discovery, and watch streams.

use std::convert::Infallible;
use std::sync::{Arc, Mutex};

use http_body_util::{BodyExt, Full, StreamBody, combinators::BoxBody};
use hyper::body::{Bytes, Frame, Incoming};
use hyper::{Request, Response};
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio::sync::{mpsc, oneshot};

use super::faults::{self, LeaseFault, LeasePartition};
use super::intercept;
use super::metadata;
use super::operation::Operation;
use super::resources::{self, ResourceType};
use super::reviews;
use super::selectors::Selector;
use super::store::{ApiError, Reply, RequestRecord, State, Writer};
use super::watch::{self, WatchRequest};

pub type Shared = Arc<Mutex<State>>;
type Body = BoxBody<Bytes, Infallible>;

/// Accepts connections until `shutdown` fires. A cut ([`super::KubeServer::cut_connections`])
/// closes the port and drops every open connection, watches included, then listens again on
/// the same port when it ends: clients see their connections refused, as during an API server
/// restart.
pub async fn serve(listener: TcpListener, state: Shared, mut shutdown: oneshot::Receiver<()>) {
    let mut listener = listener;
    let mut cuts = lock(&state).cuts.subscribe();
    // The server's clock: controllers that move on time rather than on reads.
    let clock = state.clone();
    tokio::spawn(async move {
        let mut ticks = tokio::time::interval(std::time::Duration::from_millis(50));
        loop {
            ticks.tick().await;
            lock(&clock).tick();
        }
    });
    loop {
        tokio::select! {
            _ = &mut shutdown => return,
            changed = cuts.changed() => {
                let until = *cuts.borrow_and_update();
                let (Ok(()), Some(until)) = (changed, until) else { continue };
                let Ok(address) = listener.local_addr() else { continue };
                drop(listener);
                tokio::select! {
                    _ = &mut shutdown => return,
                    _ = tokio::time::sleep_until(until.into()) => {}
                }
                listener = match rebind(address).await {
                    Some(listener) => listener,
                    None => return,
                };
                // Connections from now on are not cut.
                lock(&state).cuts.send_replace(None);
                cuts.borrow_and_update();
            }
            accepted = listener.accept() => {
                let Ok((stream, _)) = accepted else { continue };
                let state = state.clone();
                let mut cut = lock(&state).cuts.subscribe();
                tokio::spawn(async move {
                    let service = hyper::service::service_fn(move |request| {
                        let state = state.clone();
                        async move { Ok::<_, Infallible>(handle(request, state).await) }
                    });
                    let io = hyper_util::rt::TokioIo::new(stream);
                    let connection = hyper::server::conn::http1::Builder::new()
                        .serve_connection(io, service);
                    // A client hanging up mid-request is its business; a cut drops the
                    // connection, whatever it is doing.
                    tokio::select! {
                        _ = connection => {}
                        _ = cut.wait_for(Option::is_some) => {}
                    }
                });
            }
        }
    }
}

/// The port again after a cut; `None` when it was taken meanwhile (the test then fails on
/// refused connections, which says what happened).
async fn rebind(address: std::net::SocketAddr) -> Option<TcpListener> {
    for _ in 0..100 {
        // The standard library sets SO_REUSEADDR, so connections of before the cut in
        // TIME_WAIT do not hold the port.
        if let Ok(listener) = std::net::TcpListener::bind(address)
            && listener.set_nonblocking(true).is_ok()
            && let Ok(listener) = TcpListener::from_std(listener)
        {
            return Some(listener);
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    None
}

fn lock(state: &Shared) -> std::sync::MutexGuard<'_, State> {
    // A panic in one handler must not take the other tests' requests down with it.
    state
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn reply(code: u16, content_type: &str, body: Vec<u8>) -> Response<Body> {
    Response::builder()
        .status(code)
        .header("Content-Type", content_type)
        .body(Full::new(Bytes::from(body)).boxed())
        .unwrap_or_else(|_| Response::new(Full::new(Bytes::new()).boxed()))
}

fn json_reply(code: u16, value: &Value) -> Response<Body> {
    reply(code, "application/json", value.to_string().into_bytes())
}

fn error_reply(error: &ApiError) -> Response<Body> {
    json_reply(error.code, &error.status())
}

/// What a request asks for, once its path is understood.
struct Target {
    t: ResourceType,
    namespace: Option<String>,
    name: Option<String>,
    subresource: Option<String>,
}

/// What a request gets: an answer now, or one held back by a fault.
enum Outcome {
    Reply(Response<Body>),
    Hang(LeasePartition),
    /// A request a [`faults::RequestFault`] holds until it is lifted.
    Held(faults::RequestFault),
    /// A request that webhooks must see ([`intercept`]), and whether a metadata-only view
    /// of its answer was asked for.
    Intercept(Box<intercept::Job>, bool),
}

impl From<Response<Body>> for Outcome {
    fn from(response: Response<Body>) -> Self {
        Outcome::Reply(response)
    }
}

async fn handle(request: Request<Incoming>, state: Shared) -> Response<Body> {
    let (parts, body) = request.into_parts();
    let body = match body.collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(_) => Bytes::new(),
    };
    let response = match respond(&parts, &body, &state) {
        Outcome::Reply(response) => response,
        Outcome::Hang(partition) => hang(partition, &state).await,
        Outcome::Held(fault) => held(fault, &state).await,
        Outcome::Intercept(job, metadata_only) => {
            let verb = job.operation.verb();
            let answer = intercept::run(*job, state.clone()).await;
            answer_reply(verb, metadata_only, answer.result, &answer.warnings)
        }
    };
    let not_found_reason = lock(&state).scripts.not_found_reason.clone();
    match not_found_reason {
        Some(reason) if response.status() == 404 => with_reason(response, &reason).await,
        _ => response,
    }
}

/// A 404 answer with another Status reason, as servers that are not Kubernetes' own write it.
async fn with_reason(response: Response<Body>, reason: &str) -> Response<Body> {
    let body = match response.into_body().collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(_) => Bytes::new(),
    };
    let mut status: Value = serde_json::from_slice(&body).unwrap_or_else(|_| json!({}));
    status["reason"] = Value::String(reason.to_string());
    json_reply(404, &status)
}

/// Holds a request until its fault is lifted, then answers with its error.
async fn held(fault: faults::RequestFault, state: &Shared) -> Response<Body> {
    loop {
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        let mut s = lock(state);
        if !s.scripts.request_faults.iter().any(|f| f.same_as(&fault)) {
            s.held -= 1;
            return json_reply(fault.code, &fault.status());
        }
    }
}

/// Holds a request until its fault is lifted.
async fn hang(partition: LeasePartition, state: &Shared) -> Response<Body> {
    loop {
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        let mut s = lock(state);
        if !s.scripts.lease_faults.contains(&partition) {
            s.held -= 1;
            // Not 504: kube's client retries that, and the write would go through late.
            return error_reply(&ApiError::new(
                500,
                "Timeout",
                "the request timed out while the lease was partitioned",
            ));
        }
    }
}

fn respond(parts: &hyper::http::request::Parts, body: &Bytes, state: &Shared) -> Outcome {
    let path = parts.uri.path().to_string();
    let query_text = parts.uri.query().unwrap_or_default().to_string();
    let query: Vec<(String, String)> = form_urlencoded::parse(query_text.as_bytes())
        .into_owned()
        .collect();
    let param = |name: &str| {
        query
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    };
    let header = |name: &str| {
        parts
            .headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_string()
    };

    if let Some(control) = path.strip_prefix("/_test/") {
        return control_reply(control, state).into();
    }
    let mut s = lock(state);
    s.requests.push(RequestRecord {
        method: parts.method.to_string(),
        path: path.clone(),
        query: query_text.clone(),
        user_agent: header("user-agent"),
        at: std::time::Instant::now(),
    });
    // kubectl never sends a bearer token over plain HTTP, so a request without credentials is
    // let in; a wrong token is refused, as an expired one would be.
    let authorization = header("authorization");
    if !authorization.is_empty() && authorization != format!("Bearer {}", s.scripts.token) {
        return error_reply(&ApiError::new(401, "Unauthorized", "Unauthorized")).into();
    }

    let segments: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
    let aggregated =
        !s.scripts.legacy_discovery && header("accept").contains("g=apidiscovery.k8s.io;v=v2");
    let discovery = |value: Value| {
        if aggregated {
            reply(
                200,
                resources::AGGREGATED_CONTENT_TYPE,
                value.to_string().into_bytes(),
            )
        } else {
            json_reply(200, &value)
        }
    };
    let types = s.types();
    match segments.as_slice() {
        ["version"] => {
            return json_reply(
                200,
                &json!({"major": "1", "minor": "33", "gitVersion": "v1.33.0-operator-rs-test",
                        "platform": "linux/amd64"}),
            )
            .into();
        }
        ["api"] if aggregated => return discovery(resources::aggregated(&types, true)).into(),
        ["api"] => return discovery(resources::legacy_core(&s.address)).into(),
        ["apis"] if aggregated => return discovery(resources::aggregated(&types, false)).into(),
        ["apis"] => return discovery(resources::legacy_groups(&types)).into(),
        ["apis", group] if types.iter().any(|t| t.group == *group) => {
            return json_reply(200, &resources::legacy_group(&types, group)).into();
        }
        ["api", version] => {
            if let Some(list) = resources::resource_list(&types, "", version) {
                return json_reply(200, &list).into();
            }
        }
        ["apis", group, version] => {
            if let Some(list) = resources::resource_list(&types, group, version) {
                return json_reply(200, &list).into();
            }
        }
        ["openapi", "v3"] => return json_reply(200, &resources::openapi_index(&types)).into(),
        ["openapi", "v3", rest @ ..] => {
            if let Some(document) = resources::openapi_document(&types, &rest.join("/")) {
                // Documents are addressed by hash, so clients may keep them for good, as
                // they do with a real API server's.
                let mut response = json_reply(200, &document);
                response.headers_mut().insert(
                    "Cache-Control",
                    hyper::header::HeaderValue::from_static("public, immutable"),
                );
                response.headers_mut().insert(
                    "Expires",
                    hyper::header::HeaderValue::from_static("Fri, 01 Jan 2100 00:00:00 GMT"),
                );
                return response.into();
            }
        }
        _ => {}
    }

    let Some(target) = route(&s, &segments) else {
        return error_reply(&ApiError::new(
            404,
            "NotFound",
            "the server could not find the requested resource",
        ))
        .into();
    };
    let method = parts.method.as_str();
    let watch = matches!(param("watch").as_deref(), Some("true" | "1"));
    let verb = match (method, &target.name) {
        ("GET", Some(_)) => "get",
        ("GET", None) if watch => "watch",
        ("GET", None) => "list",
        ("POST", None) => "create",
        ("PUT", Some(_)) => "update",
        ("PATCH", Some(_)) => "patch",
        ("DELETE", Some(_)) => "delete",
        ("DELETE", None) => "deletecollection",
        _ => {
            return error_reply(&ApiError::new(
                405,
                "MethodNotAllowed",
                format!("{method} is not supported on this path by the test server"),
            ))
            .into();
        }
    };
    if let Some(refused) = refusal(&s, verb, &target) {
        return error_reply(&refused).into();
    }
    if let Some(fault) = faults::request_fault(
        &mut s.scripts.request_faults,
        verb,
        &target.t,
        target.name.as_deref(),
    ) {
        if fault.hang {
            s.held += 1;
            return Outcome::Held(fault);
        }
        let mut response = json_reply(fault.code, &fault.status());
        if let Some(seconds) = fault.retry_after
            && let Ok(value) = hyper::header::HeaderValue::from_str(&seconds.to_string())
        {
            response.headers_mut().insert("Retry-After", value);
        }
        return response.into();
    }
    if let Some(partition) = faults::lease_fault(
        &s.scripts.lease_faults,
        &target.t,
        target.namespace.as_deref(),
        target.name.as_deref(),
        verb,
        param("fieldManager").as_deref(),
        body,
    ) {
        return match partition.fault {
            LeaseFault::Fail => error_reply(&ApiError::new(
                500,
                "InternalError",
                format!(
                    "Internal error occurred: the test server refuses writes of lease \"{}\" by \"{}\"",
                    partition.lease, partition.holder
                ),
            ))
            .into(),
            LeaseFault::Hang => {
                s.held += 1;
                Outcome::Hang(partition)
            }
        };
    }
    if target.t.is("authentication.k8s.io", "tokenreviews") {
        return answer_reply(verb, false, reviews::token_review(&s, body), &[]).into();
    }
    if target.t.is("authorization.k8s.io", "subjectaccessreviews") {
        return answer_reply(verb, false, reviews::subject_access_review(&s, body), &[]).into();
    }
    if target.t.is("authentication.k8s.io", "selfsubjectreviews") {
        let user = s.scripts.user.clone();
        return json_reply(
            201,
            &json!({"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview",
                    "metadata": {"creationTimestamp": null},
                    "status": {"userInfo": {"username": user, "groups": ["system:authenticated"]}}}),
        ).into();
    }
    let subresource = target.subresource.as_deref();
    let status_verb = matches!(verb, "get" | "update" | "patch");
    if subresource
        .is_some_and(|sub| sub != "status" || !target.t.status_subresource || !status_verb)
    {
        return error_reply(&ApiError::new(
            404,
            "NotFound",
            "the server could not find the requested resource",
        ))
        .into();
    }

    let dry_run = param("dryRun").is_some_and(|v| v == "All");
    let metadata_only = metadata::requested(&header("accept"));
    let manager = param("fieldManager").unwrap_or_else(|| {
        // Without fieldManager the server names the manager after the client's binary.
        header("user-agent")
            .split('/')
            .next()
            .unwrap_or("unknown")
            .to_string()
    });
    let ns = target.namespace.as_deref();
    let name = target.name.clone().unwrap_or_default();
    let t = &target.t;
    if verb == "watch" {
        let selector = match Selector::parse(
            param("labelSelector").as_deref(),
            param("fieldSelector").as_deref(),
            t.custom,
        ) {
            Ok(selector) => selector,
            Err(e) => return error_reply(&ApiError::new(400, "BadRequest", e)).into(),
        };
        let request = WatchRequest {
            t: t.clone(),
            namespace: ns.map(String::from),
            selector,
            resource_version: param("resourceVersion"),
            version_match: param("resourceVersionMatch"),
            bookmarks: param("allowWatchBookmarks").is_some_and(|v| v == "true"),
            send_initial_events: param("sendInitialEvents").is_some_and(|v| v == "true"),
            timeout: param("timeoutSeconds")
                .and_then(|v| v.parse().ok())
                .map(std::time::Duration::from_secs),
            metadata_only,
            conversion: intercept::converting(&s, t).map(|crd| (crd, state.clone())),
        };
        let content_type = if metadata_only {
            metadata::content_type(false)
        } else {
            "application/json".to_string()
        };
        return match watch::start(&mut s, request) {
            Ok(receiver) => watch_reply(receiver, &content_type),
            Err(error) => error_reply(&error),
        }
        .into();
    }
    let operation = match Operation::parse(verb, body, &param, &header("content-type")) {
        Ok(operation) => operation,
        Err(error) => return error_reply(&error).into(),
    };
    if intercept::needed(&s, t, &operation, subresource) {
        let job = intercept::Job {
            t: t.clone(),
            namespace: target.namespace.clone(),
            name,
            operation,
            manager,
            dry_run,
            subresource: target.subresource.clone(),
        };
        return Outcome::Intercept(Box::new(job), metadata_only);
    }
    let writer = Writer {
        manager: &manager,
        dry_run,
        subresource,
    };
    let result = operation.execute(&mut s, t, ns, &name, writer);
    answer_reply(verb, metadata_only, result, &[]).into()
}

/// The answer of a get, list or write: JSON, a metadata-only view when asked, and the
/// admission webhooks' warnings as `Warning` headers.
fn answer_reply(
    verb: &str,
    metadata_only: bool,
    result: Reply,
    warnings: &[String],
) -> Response<Body> {
    let mut response = match result {
        Ok((code, value)) if metadata_only && matches!(verb, "get" | "list") => {
            let list = verb == "list";
            let view = if list {
                metadata::partial_list(&value)
            } else {
                metadata::partial(&value)
            };
            reply(
                code,
                &metadata::content_type(list),
                view.to_string().into_bytes(),
            )
        }
        Ok((code, value)) => json_reply(code, &value),
        Err(error) => error_reply(&error),
    };
    for warning in warnings {
        if let Ok(value) = hyper::header::HeaderValue::from_str(&warning_header(warning)) {
            response.headers_mut().append("Warning", value);
        }
    }
    response
}

/// `299 - "text"`, as the API server writes a warning: quotes and backslashes escaped,
/// control characters dropped.
fn warning_header(text: &str) -> String {
    let mut quoted = String::with_capacity(text.len() + 2);
    for c in text.chars().filter(|c| !c.is_control()) {
        if c == '"' || c == '\\' {
            quoted.push('\\');
        }
        quoted.push(c);
    }
    format!("299 - \"{quoted}\"")
}

/// `/api/v1/...` and `/apis/<group>/<version>/...` to a served type, namespace and name.
fn route(state: &State, segments: &[&str]) -> Option<Target> {
    let (group, version, rest) = match segments {
        ["api", version, rest @ ..] => ("", *version, rest),
        ["apis", group, version, rest @ ..] => (*group, *version, rest),
        _ => return None,
    };
    let find = |plural: &str| state.find_type(group, version, plural);
    let namespaced = match rest {
        ["namespaces", ns, plural, tail @ ..] if tail.len() <= 2 => {
            find(plural).filter(|t| t.namespaced).map(|t| Target {
                t,
                namespace: Some(ns.to_string()),
                name: tail.first().map(|s| s.to_string()),
                subresource: tail.get(1).map(|s| s.to_string()),
            })
        }
        _ => None,
    };
    namespaced.or_else(|| match rest {
        [plural, tail @ ..] if tail.len() <= 2 => find(plural)
            // A namespaced kind without a namespace is a list or watch across namespaces.
            .filter(|t| !t.namespaced || tail.is_empty())
            .map(|t| Target {
                t,
                namespace: None,
                name: tail.first().map(|s| s.to_string()),
                subresource: tail.get(1).map(|s| s.to_string()),
            }),
        _ => None,
    })
}

/// A 403 like the API server's when the tests refused this verb on this resource.
fn refusal(state: &State, verb: &str, target: &Target) -> Option<ApiError> {
    let t = &target.t;
    let hit = state.scripts.refusals.iter().any(|r| {
        r.verb == verb
            && r.resource == t.plural
            && (r.namespace.is_none() || r.namespace == target.namespace)
    });
    if !hit {
        return None;
    }
    let subject = match &target.name {
        Some(name) => format!("{} \"{name}\"", t.qualified()),
        None => t.qualified(),
    };
    let scope = match &target.namespace {
        Some(ns) => format!(" in the namespace \"{ns}\""),
        None => " at the cluster scope".to_string(),
    };
    let mut error = ApiError::new(
        403,
        "Forbidden",
        format!(
            "{subject} is forbidden: User \"{}\" cannot {verb} resource \"{}\" in API group \"{}\"{scope}",
            state.scripts.user, t.plural, t.group
        ),
    );
    error.details = json!({"name": target.name.clone().unwrap_or_default(), "group": t.group, "kind": t.plural});
    Some(error)
}

/// A watch's events as a chunked response, one JSON event per line.
fn watch_reply(receiver: mpsc::Receiver<Bytes>, content_type: &str) -> Response<Body> {
    let stream = futures::stream::unfold(receiver, |mut receiver| async move {
        receiver
            .recv()
            .await
            .map(|line| (Ok::<_, Infallible>(Frame::data(line)), receiver))
    });
    Response::builder()
        .status(200)
        .header("Content-Type", content_type)
        .header("Transfer-Encoding", "chunked")
        .body(BodyExt::boxed(StreamBody::new(stream)))
        .unwrap_or_else(|_| Response::new(Full::new(Bytes::new()).boxed()))
}

/// `/_test/stats` and `/_test/reset`: request counts for scripts (the benchmark).
fn control_reply(path: &str, state: &Shared) -> Response<Body> {
    let mut s = lock(state);
    match path {
        "stats" => {
            let requests: Vec<Value> = s
                .requests
                .iter()
                .map(|r| json!({"method": r.method, "path": r.path, "query": r.query}))
                .collect();
            json_reply(
                200,
                &json!({"count": s.requests.len(), "requests": requests}),
            )
        }
        "reset" => {
            s.requests.clear();
            json_reply(200, &json!({"count": 0}))
        }
        _ => error_reply(&ApiError::new(404, "NotFound", "unknown test control path")),
    }
}
