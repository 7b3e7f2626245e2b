//! The HTTP endpoints Kubernetes and Prometheus use: `/healthz`, `/readyz` and `/metrics`.

use std::sync::{Arc, atomic::AtomicBool, atomic::Ordering};

use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::{Next, from_fn_with_state};
use axum::response::{IntoResponse, Response};
use axum::{Router, routing::get};
use k8s_openapi::api::authentication::v1::TokenReview;
use k8s_openapi::api::authorization::v1::{NonResourceAttributes, SubjectAccessReview};
use kube::{Api, Client, api::PostParams};
use tokio_util::sync::CancellationToken;
use tracing::{debug, warn};

use crate::metrics::Metrics;

/// `/healthz`, and `/readyz`, which fails until `ready` is set (once the API server answered).
pub fn health_router(ready: Arc<AtomicBool>) -> Router {
    let readyz = move || async move {
        match ready.load(Ordering::Acquire) {
            true => (StatusCode::OK, "ok"),
            false => (StatusCode::SERVICE_UNAVAILABLE, "not ready"),
        }
    };
    Router::new()
        .route("/healthz", get(|| async { "ok" }))
        .route("/readyz", get(readyz))
}

/// `/metrics`, for the callers the API server allows when given its `client` ([`authorize`]),
/// or for anyone (`None`: local runs).
pub fn metrics_router(metrics: Arc<Metrics>, client: Option<Client>) -> Router {
    let serve = move || async move {
        let mut text = String::new();
        let encoded = prometheus_client::encoding::text::encode(&mut text, &metrics.registry);
        encoded.map_err(|_| StatusCode::INTERNAL_SERVER_ERROR)?;
        let openmetrics = "application/openmetrics-text; version=1.0.0; charset=utf-8";
        Ok::<_, StatusCode>(([(header::CONTENT_TYPE, openmetrics)], text))
    };
    let router = Router::new().route("/metrics", get(serve));
    let Some(client) = client else { return router };
    router.layer(from_fn_with_state(client, authorize))
}

/// Lets a request through as controller-runtime's `WithAuthenticationAndAuthorization` does:
/// the API server must know its bearer token (a TokenReview, else 401) and let that user have
/// the request's verb on its path (a SubjectAccessReview, else 403: the metrics-reader role
/// grants `get` on `/metrics`). Never cached, so a revoked token or role stops the next scrape.
async fn authorize(State(client): State<Client>, request: Request, next: Next) -> Response {
    let token = request.headers().get(header::AUTHORIZATION);
    let token = token.and_then(|v| v.to_str().ok()?.strip_prefix("Bearer "));
    let (path, verb) = (request.uri().path(), request.method().as_str());
    let review = async {
        let Some(token) = token.map(str::trim).filter(|t| !t.is_empty()) else {
            return Ok(StatusCode::UNAUTHORIZED);
        };
        let mut review = TokenReview::default();
        review.spec.token = Some(token.to_string());
        let post = PostParams::default();
        let reviewed = Api::all(client.clone()).create(&post, &review).await?;
        let status = reviewed.status.unwrap_or_default();
        let (Some(true), Some(user)) = (status.authenticated, status.user) else {
            return Ok(StatusCode::UNAUTHORIZED);
        };
        let mut access = SubjectAccessReview::default();
        let spec = &mut access.spec;
        (spec.user, spec.uid, spec.groups) = (user.username, user.uid, user.groups);
        spec.extra = user.extra;
        spec.non_resource_attributes = Some(NonResourceAttributes {
            path: Some(path.to_string()),
            verb: Some(verb.to_ascii_lowercase()),
        });
        let answered = Api::all(client).create(&post, &access).await?;
        let status = answered.status.unwrap_or_default();
        if !status.allowed {
            debug!(path, reason = ?status.reason, "access denied");
            return Ok(StatusCode::FORBIDDEN);
        }
        Ok::<_, kube::Error>(StatusCode::OK)
    };
    match review.await {
        Ok(StatusCode::OK) => next.run(request).await,
        Ok(status) => (status, status.canonical_reason().unwrap_or_default()).into_response(),
        Err(error) => {
            // Not the caller's fault: the API server could not be asked.
            warn!(%error, "cannot review a request with the API server");
            StatusCode::INTERNAL_SERVER_ERROR.into_response()
        }
    }
}

/// Serves `router` over plain HTTP on `listener` until `shutdown` is cancelled.
pub async fn serve(listener: tokio::net::TcpListener, router: Router, shutdown: CancellationToken) {
    let serving = axum::serve(listener, router).with_graceful_shutdown(shutdown.cancelled_owned());
    if let Err(error) = serving.await {
        tracing::error!(%error, "HTTP server failed");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn get_status(router: Router, path: &str) -> StatusCode {
        use tower::ServiceExt;
        let request = axum::http::Request::get(path)
            .body(axum::body::Body::empty())
            .unwrap();
        router.oneshot(request).await.unwrap().status()
    }

    #[tokio::test]
    async fn readyz_follows_readiness_and_healthz_is_always_ok() {
        let ready = Arc::new(AtomicBool::new(false));
        let router = health_router(ready.clone());
        assert_eq!(get_status(router.clone(), "/healthz").await, StatusCode::OK);
        assert_eq!(
            get_status(router.clone(), "/readyz").await,
            StatusCode::SERVICE_UNAVAILABLE
        );
        ready.store(true, Ordering::Release);
        assert_eq!(get_status(router, "/readyz").await, StatusCode::OK);
    }

    #[tokio::test]
    async fn metrics_are_served() {
        let router = metrics_router(Arc::new(Metrics::new("test")), None);
        assert_eq!(get_status(router, "/metrics").await, StatusCode::OK);
    }
}
