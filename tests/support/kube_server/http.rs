//! The HTTP face of the test server: routing Kubernetes API paths, authentication, refusals,
//! content negotiation for discovery, and watch streams.

use std::convert::Infallible;
use std::sync::{Arc, Mutex};

use http_body_util::{BodyExt, Full, StreamBody, combinators::BoxBody};
use hyper::body::{Bytes, Frame, Incoming};
use hyper::{Request, Response};
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio::sync::{broadcast, mpsc, oneshot};

use super::resources::{self, ResourceType};
use super::store::{ApiError, PatchKind, RequestRecord, State, Writer};

pub type Shared = Arc<Mutex<State>>;
type Body = BoxBody<Bytes, Infallible>;

/// Accepts connections until `shutdown` fires.
pub async fn serve(listener: TcpListener, state: Shared, mut shutdown: oneshot::Receiver<()>) {
    loop {
        tokio::select! {
            _ = &mut shutdown => return,
            accepted = listener.accept() => {
                let Ok((stream, _)) = accepted else { continue };
                let state = state.clone();
                tokio::spawn(async move {
                    let service = hyper::service::service_fn(move |request| {
                        let state = state.clone();
                        async move { Ok::<_, Infallible>(handle(request, state).await) }
                    });
                    let io = hyper_util::rt::TokioIo::new(stream);
                    // A client hanging up mid-request is its business.
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(io, service)
                        .await;
                });
            }
        }
    }
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

async fn handle(request: Request<Incoming>, state: Shared) -> Response<Body> {
    let (parts, body) = request.into_parts();
    let body = match body.collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(_) => Bytes::new(),
    };
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
        return control_reply(control, &state);
    }
    let mut s = lock(&state);
    s.requests.push(RequestRecord {
        method: parts.method.to_string(),
        path: path.clone(),
        query: query_text.clone(),
        user_agent: header("user-agent"),
    });
    // kubectl never sends a bearer token over plain HTTP, so a request without credentials is
    // let in; a wrong token is refused, as an expired one would be.
    let authorization = header("authorization");
    if !authorization.is_empty() && authorization != format!("Bearer {}", s.scripts.token) {
        return error_reply(&ApiError::new(401, "Unauthorized", "Unauthorized"));
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
            );
        }
        ["api"] if aggregated => return discovery(resources::aggregated(&types, true)),
        ["api"] => return discovery(resources::legacy_core(&s.address)),
        ["apis"] if aggregated => return discovery(resources::aggregated(&types, false)),
        ["apis"] => return discovery(resources::legacy_groups(&types)),
        ["apis", group] if types.iter().any(|t| t.group == *group) => {
            return json_reply(200, &resources::legacy_group(&types, group));
        }
        ["api", version] => {
            if let Some(list) = resources::resource_list(&types, "", version) {
                return json_reply(200, &list);
            }
        }
        ["apis", group, version] => {
            if let Some(list) = resources::resource_list(&types, group, version) {
                return json_reply(200, &list);
            }
        }
        ["openapi", "v3"] => return json_reply(200, &resources::openapi_index(&types)),
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
                return response;
            }
        }
        _ => {}
    }

    let Some(target) = route(&s, &segments) else {
        return error_reply(&ApiError::new(
            404,
            "NotFound",
            "the server could not find the requested resource",
        ));
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
        _ => {
            return error_reply(&ApiError::new(
                405,
                "MethodNotAllowed",
                format!("{method} is not supported on this path by the test server"),
            ));
        }
    };
    if let Some(refused) = refusal(&s, verb, &target) {
        return error_reply(&refused);
    }
    if target.t.is("authentication.k8s.io", "selfsubjectreviews") {
        let user = s.scripts.user.clone();
        return json_reply(
            201,
            &json!({"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview",
                    "metadata": {"creationTimestamp": null},
                    "status": {"userInfo": {"username": user, "groups": ["system:authenticated"]}}}),
        );
    }
    if target.subresource.is_some() {
        return error_reply(&ApiError::new(
            404,
            "NotFound",
            "subresources are not served by the test server",
        ));
    }

    let dry_run = param("dryRun").is_some_and(|v| v == "All");
    let manager = param("fieldManager").unwrap_or_else(|| {
        // Without fieldManager the server names the manager after the client's binary.
        header("user-agent")
            .split('/')
            .next()
            .unwrap_or("unknown")
            .to_string()
    });
    let writer = Writer {
        manager: &manager,
        dry_run,
    };
    let ns = target.namespace.as_deref();
    let name = target.name.clone().unwrap_or_default();
    let t = &target.t;
    let result = match verb {
        "get" => s.get(t, ns, &name),
        "list" => s.list(
            t,
            ns,
            param("labelSelector").as_deref(),
            param("fieldSelector").as_deref(),
        ),
        "watch" => {
            let stream = start_watch(
                &mut s,
                t,
                ns,
                param("labelSelector"),
                param("fieldSelector"),
                param("resourceVersion"),
            );
            return stream;
        }
        "create" => match parse_body(&body) {
            Ok(value) => s.create(t, ns, value, writer),
            Err(e) => Err(e),
        },
        "update" => match parse_body(&body) {
            Ok(value) => s.update(t, ns, &name, value, writer),
            Err(e) => Err(e),
        },
        "patch" => {
            let content_type = header("content-type");
            let kind = if content_type.starts_with("application/apply-patch") {
                if param("fieldManager").is_none() {
                    return error_reply(&ApiError::new(
                        400,
                        "BadRequest",
                        "PATCH, application/apply-patch+yaml requests must include fieldManager",
                    ));
                }
                Some(PatchKind::Apply {
                    force: param("force").is_some_and(|v| v == "true"),
                })
            } else if content_type.starts_with("application/merge-patch+json")
                // Strategic merge patches are read as merge patches: close enough for the
                // kubectl commands tests use (annotate, label, edit of scalars).
                || content_type.starts_with("application/strategic-merge-patch+json")
            {
                Some(PatchKind::Merge)
            } else {
                None
            };
            match (kind, parse_body(&body)) {
                (Some(kind), Ok(value)) => s.patch(t, ns, &name, value, kind, writer),
                (None, _) => Err(ApiError::new(
                    415,
                    "UnsupportedMediaType",
                    format!("the test server does not accept patches of type {content_type}"),
                )),
                (_, Err(e)) => Err(e),
            }
        }
        "delete" => s.delete(t, ns, &name, dry_run),
        _ => unreachable!("every verb above is handled"),
    };
    match result {
        Ok((code, value)) => json_reply(code, &value),
        Err(error) => error_reply(&error),
    }
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

/// JSON, or YAML (apply bodies may be either).
fn parse_body(body: &[u8]) -> Result<Value, ApiError> {
    if let Ok(value) = serde_json::from_slice(body) {
        return Ok(value);
    }
    let text = std::str::from_utf8(body)
        .map_err(|_| ApiError::new(400, "BadRequest", "the body is not UTF-8"))?;
    serde_saphyr::from_str(text).map_err(|e| {
        ApiError::new(
            400,
            "BadRequest",
            format!("the body is neither JSON nor YAML: {e}"),
        )
    })
}

/// A watch: the current objects (or the changes after `resourceVersion`), then every change
/// as it happens, one JSON event per line.
fn start_watch(
    state: &mut State,
    t: &ResourceType,
    namespace: Option<&str>,
    labels: Option<String>,
    fields: Option<String>,
    since: Option<String>,
) -> Response<Body> {
    let event = |kind: &str, object: &Value| {
        let mut line = json!({"type": kind, "object": object}).to_string();
        line.push('\n');
        Bytes::from(line)
    };
    let since: u64 = since.as_deref().and_then(|v| v.parse().ok()).unwrap_or(0);
    let selected = |key_ns: &str, group: &str, plural: &str, object: &Value| {
        group == t.group
            && plural == t.plural
            && namespace.is_none_or(|ns| ns == key_ns)
            && super::store::selects(object, labels.as_deref(), fields.as_deref())
    };
    let mut initial = Vec::new();
    if since == 0 {
        for object in state.matching(t, namespace, labels.as_deref(), fields.as_deref()) {
            initial.push(event("ADDED", &object));
        }
    } else {
        for change in state.history_after(since) {
            if selected(
                &change.key.namespace,
                &change.key.group,
                &change.key.plural,
                &change.object,
            ) {
                initial.push(event(change.kind, &change.object));
            }
        }
    }
    let mut changes = state.changes.subscribe();
    let (sender, receiver) = mpsc::channel::<Bytes>(64);
    let (group, plural, ns) = (
        t.group.clone(),
        t.plural.clone(),
        namespace.map(String::from),
    );
    tokio::spawn(async move {
        for line in initial {
            if sender.send(line).await.is_err() {
                return;
            }
        }
        loop {
            match changes.recv().await {
                Ok(change) => {
                    let wanted = change.key.group == group
                        && change.key.plural == plural
                        && ns.as_deref().is_none_or(|n| n == change.key.namespace)
                        && super::store::selects(
                            &change.object,
                            labels.as_deref(),
                            fields.as_deref(),
                        );
                    if wanted
                        && sender
                            .send(event(change.kind, &change.object))
                            .await
                            .is_err()
                    {
                        return;
                    }
                }
                Err(broadcast::error::RecvError::Lagged(_)) => continue,
                Err(broadcast::error::RecvError::Closed) => return,
            }
        }
    });
    let stream = futures::stream::unfold(receiver, |mut receiver| async move {
        receiver
            .recv()
            .await
            .map(|line| (Ok::<_, Infallible>(Frame::data(line)), receiver))
    });
    Response::builder()
        .status(200)
        .header("Content-Type", "application/json")
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
