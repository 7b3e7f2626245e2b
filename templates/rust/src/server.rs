//! The HTTP endpoints Kubernetes and Prometheus use: `/healthz` and `/readyz` on the health
//! probe address, `/metrics` on the metrics address (over TLS and for the callers the API
//! server allows, unless `--metrics-secure=false`).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use axum::Router;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use axum::routing::get;
use kube::Client;
use tokio_util::sync::CancellationToken;

use crate::delegated_auth;
use crate::metrics::Metrics;

/// Set once the operator can talk to the API server; `/readyz` fails until then.
#[derive(Clone, Default)]
pub struct Readiness(Arc<AtomicBool>);

impl Readiness {
    pub fn set_ready(&self) {
        self.0.store(true, Ordering::Release);
    }

    pub fn is_ready(&self) -> bool {
        self.0.load(Ordering::Acquire)
    }
}

pub fn health_router(readiness: Readiness) -> Router {
    Router::new()
        .route("/healthz", get(|| async { "ok" }))
        .route("/readyz", get(readyz))
        .with_state(readiness)
}

async fn readyz(State(readiness): State<Readiness>) -> impl IntoResponse {
    if readiness.is_ready() {
        (StatusCode::OK, "ok")
    } else {
        (StatusCode::SERVICE_UNAVAILABLE, "not ready")
    }
}

/// `/metrics` for the callers the API server allows when given its `client`
/// ([`delegated_auth`]), or for anyone (`None`: local runs).
pub fn metrics_router(metrics: Arc<Metrics>, reviewer: Option<Client>) -> Router {
    let router = Router::new()
        .route("/metrics", get(serve_metrics))
        .with_state(metrics);
    match reviewer {
        Some(client) => router.layer(axum::middleware::from_fn_with_state(
            client,
            delegated_auth::require,
        )),
        None => router,
    }
}

async fn serve_metrics(State(metrics): State<Arc<Metrics>>) -> impl IntoResponse {
    match metrics.encode() {
        Ok(text) => (
            StatusCode::OK,
            [(
                header::CONTENT_TYPE,
                "application/openmetrics-text; version=1.0.0; charset=utf-8",
            )],
            text,
        )
            .into_response(),
        Err(_) => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    }
}

/// Serves `router` on `listener` (plain TCP, or [`crate::tls::TlsListener`]) until `shutdown`
/// is cancelled.
pub async fn serve<L>(listener: L, router: Router, shutdown: CancellationToken)
where
    L: axum::serve::Listener<Addr = std::net::SocketAddr>,
{
    let address = listener.local_addr().ok();
    if let Err(error) = axum::serve(listener, router)
        .with_graceful_shutdown(shutdown.cancelled_owned())
        .await
    {
        tracing::error!(?address, %error, "HTTP server failed");
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
        let readiness = Readiness::default();
        let router = health_router(readiness.clone());
        assert_eq!(get_status(router.clone(), "/healthz").await, StatusCode::OK);
        assert_eq!(
            get_status(router.clone(), "/readyz").await,
            StatusCode::SERVICE_UNAVAILABLE
        );
        readiness.set_ready();
        assert_eq!(get_status(router, "/readyz").await, StatusCode::OK);
    }

    #[tokio::test]
    async fn metrics_are_served() {
        let router = metrics_router(Arc::new(Metrics::new("test")), None);
        assert_eq!(get_status(router, "/metrics").await, StatusCode::OK);
    }
}
