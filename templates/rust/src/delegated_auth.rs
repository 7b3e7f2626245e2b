//! Who may read an endpoint, decided by the API server, as controller-runtime's
//! `WithAuthenticationAndAuthorization` filter does for `/metrics`: the caller's bearer token is
//! checked with a TokenReview (401 when it is missing or unknown), then the user it names
//! with a SubjectAccessReview of the request's path and verb, a non-resource URL (403 unless
//! some role grants it: deploy/metrics_reader_role.yaml does for `get` on `/metrics`).
//!
//! Every request costs two reviews: Prometheus scrapes once in tens of seconds, and an
//! answer is never kept, so a revoked token or role stops the next scrape.

use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use k8s_openapi::api::authentication::v1::{TokenReview, TokenReviewSpec};
use k8s_openapi::api::authorization::v1::{
    NonResourceAttributes, SubjectAccessReview, SubjectAccessReviewSpec,
};
use kube::api::PostParams;
use kube::{Api, Client};

/// What the API server said about a request.
#[derive(Debug, PartialEq)]
pub enum Decision {
    Allowed,
    /// No token, or one the API server does not know (401).
    Unauthenticated,
    /// A known user without the permission (403), with the API server's reason.
    Denied(String),
}

/// Asks the API server about `token` reading `path` with `verb` (`get` for a GET).
pub async fn decide(
    client: &Client,
    token: Option<&str>,
    path: &str,
    verb: &str,
) -> kube::Result<Decision> {
    let Some(token) = token.filter(|t| !t.is_empty()) else {
        return Ok(Decision::Unauthenticated);
    };
    let review = TokenReview {
        spec: TokenReviewSpec {
            token: Some(token.to_string()),
            ..TokenReviewSpec::default()
        },
        ..TokenReview::default()
    };
    let reviewed = Api::<TokenReview>::all(client.clone())
        .create(&PostParams::default(), &review)
        .await?;
    let status = reviewed.status.unwrap_or_default();
    let (true, Some(user)) = (status.authenticated == Some(true), status.user) else {
        return Ok(Decision::Unauthenticated);
    };
    let access = SubjectAccessReview {
        spec: SubjectAccessReviewSpec {
            user: user.username,
            uid: user.uid,
            groups: user.groups,
            extra: user.extra,
            non_resource_attributes: Some(NonResourceAttributes {
                path: Some(path.to_string()),
                verb: Some(verb.to_string()),
            }),
            ..SubjectAccessReviewSpec::default()
        },
        ..SubjectAccessReview::default()
    };
    let answered = Api::<SubjectAccessReview>::all(client.clone())
        .create(&PostParams::default(), &access)
        .await?;
    let status = answered.status.unwrap_or_default();
    Ok(if status.allowed {
        Decision::Allowed
    } else {
        Decision::Denied(status.reason.unwrap_or_default())
    })
}

/// An axum middleware that lets a request through only when [`decide`] allows it.
pub async fn require(State(client): State<Client>, request: Request, next: Next) -> Response {
    let token = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "))
        .map(str::trim);
    let verb = request.method().as_str().to_ascii_lowercase();
    match decide(&client, token, request.uri().path(), &verb).await {
        Ok(Decision::Allowed) => next.run(request).await,
        Ok(Decision::Unauthenticated) => (StatusCode::UNAUTHORIZED, "Unauthorized").into_response(),
        Ok(Decision::Denied(reason)) => {
            tracing::debug!(path = %request.uri().path(), %reason, "access denied");
            (StatusCode::FORBIDDEN, "Forbidden").into_response()
        }
        Err(error) => {
            // Not the caller's fault: the API server could not be asked.
            tracing::warn!(%error, "cannot review a request with the API server");
            (
                StatusCode::INTERNAL_SERVER_ERROR,
                "cannot review the request",
            )
                .into_response()
        }
    }
}
