//! Errors of talking to a cluster, each naming what a user needs to fix it: the server and
//! context, or the verb, resource and namespace that was refused and to whom.

use std::path::PathBuf;

use thiserror::Error;

/// Which cluster a command talked to, for messages: `https://10.0.0.1:6443 (context "kind-dev")`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    pub server: String,
    /// The kubeconfig context, `None` for the in-cluster configuration.
    pub context: Option<String>,
}

impl std::fmt::Display for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.context {
            Some(context) => write!(f, "{} (context \"{context}\")", self.server),
            None => write!(f, "{} (in-cluster configuration)", self.server),
        }
    }
}

/// One request, described the way RBAC sees it:
/// `patch roles.rbac.authorization.k8s.io "op" in namespace "demo"`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Action(String);

impl Action {
    /// `resource` is `plural.group`, or the plural alone for the core group.
    pub fn new(verb: &str, resource: &str, namespace: Option<&str>, name: Option<&str>) -> Action {
        let mut text = format!("{verb} {resource}");
        if let Some(name) = name {
            text.push_str(&format!(" \"{name}\""));
        }
        match namespace {
            Some(ns) => text.push_str(&format!(" in namespace \"{ns}\"")),
            None => text.push_str(" (cluster-wide)"),
        }
        Action(text)
    }

    /// A request that is not about one resource, such as discovery.
    pub fn other(text: impl Into<String>) -> Action {
        Action(text.into())
    }
}

impl std::fmt::Display for Action {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

#[derive(Debug, Error)]
pub enum KubeError {
    #[error(
        "no kubeconfig found (looked at $KUBECONFIG and ~/.kube/config) and not running inside a cluster: pass --kubeconfig FILE or set KUBECONFIG"
    )]
    NoConfig,
    #[error("cannot load the kubeconfig {path}: {message}")]
    Kubeconfig { path: String, message: String },
    #[error("the kubeconfig has no context \"{name}\": use one of {known} with --context")]
    UnknownContext { name: String, known: String },
    #[error(
        "the kubeconfig has no current context: pass --context NAME (one of {known}) or run `kubectl config use-context NAME`"
    )]
    NoContext { known: String },
    #[error("cannot use the cluster configuration of {endpoint}: {message}")]
    Config { endpoint: Endpoint, message: String },
    #[error(
        "cannot reach the Kubernetes API server at {endpoint}: {message}\n  check that the cluster is running and that --context or --kubeconfig point at it"
    )]
    Unreachable { endpoint: Endpoint, message: String },
    #[error(
        "the API server at {endpoint} did not accept the credentials of {identity} to {action}: {message}\n  log in again (the token may have expired) or pick another context with --context"
    )]
    Unauthorized {
        endpoint: Endpoint,
        action: Action,
        identity: String,
        message: String,
    },
    #[error(
        "{identity} is not allowed to {action} on {endpoint}: {message}\n  ask a cluster administrator for this permission, or deploy with a context that has it (--context)"
    )]
    Forbidden {
        endpoint: Endpoint,
        action: Action,
        identity: String,
        message: String,
    },
    #[error("the API server at {endpoint} refused to {action}: {message}{hint}")]
    Api {
        endpoint: Endpoint,
        action: Action,
        message: String,
        hint: String,
        /// What the answer means, for deciding whether to ask again.
        reason: Reason,
    },
    #[error(
        "{kind} ({api_version}) is not served by the API server at {endpoint}: install the CustomResourceDefinition that defines it, or check the apiVersion"
    )]
    NotServed {
        endpoint: Endpoint,
        api_version: String,
        kind: String,
    },
    #[error(
        "CustomResourceDefinition {name} did not become Established within {waited}; its conditions: {conditions}"
    )]
    CrdNotEstablished {
        name: String,
        waited: String,
        conditions: String,
    },
    #[error("{what} within {waited}")]
    Timeout { what: String, waited: String },
    #[error("unexpected answer from the API server at {endpoint} to {action}: {message}")]
    BadResponse {
        endpoint: Endpoint,
        action: Action,
        message: String,
    },
    #[error("cannot read {0}: {1}")]
    Io(PathBuf, std::io::Error),
}

impl KubeError {
    /// Whether the same request may succeed later without anyone changing anything (see
    /// [`Reason::is_transient`]); a refusal, a kind that is not served or a bad kubeconfig
    /// stays until someone acts.
    pub fn is_transient(&self) -> bool {
        match self {
            KubeError::Unreachable { .. }
            | KubeError::Timeout { .. }
            | KubeError::CrdNotEstablished { .. }
            | KubeError::BadResponse { .. } => true,
            KubeError::Api { reason, .. } => reason.is_transient(),
            _ => false,
        }
    }
}

/// What a failed request means, read as client-go's `apierrors` reads it: by the Status
/// `reason` first, and by the HTTP code only when the reason is not one Kubernetes defines.
/// Proxies, emulators and some API servers answer a missing object with 404 and a reason of
/// their own ("Object Not Found"); it is still NotFound. A request that got no answer at all
/// (connection refused, reset, timed out) is [`Reason::Unreachable`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason {
    Unauthorized,
    Forbidden,
    NotFound,
    AlreadyExists,
    Conflict,
    /// `Gone`, and `Expired` (a watch or list from a resourceVersion etcd compacted away).
    Gone,
    Invalid,
    ServerTimeout,
    Timeout,
    TooManyRequests,
    BadRequest,
    MethodNotAllowed,
    NotAcceptable,
    RequestEntityTooLarge,
    UnsupportedMediaType,
    InternalError,
    ServiceUnavailable,
    /// No answer: the server could not be reached or the connection broke.
    Unreachable,
    /// An answer that fits none of the above.
    Other,
}

/// The reasons Kubernetes defines (apimachinery's `knownReasons`); any other reason, the
/// empty one included, leaves the HTTP code to decide.
const KNOWN_REASONS: &[(&str, Reason)] = &[
    ("Unauthorized", Reason::Unauthorized),
    ("Forbidden", Reason::Forbidden),
    ("NotFound", Reason::NotFound),
    ("AlreadyExists", Reason::AlreadyExists),
    ("Conflict", Reason::Conflict),
    ("Gone", Reason::Gone),
    ("Expired", Reason::Gone),
    ("Invalid", Reason::Invalid),
    ("ServerTimeout", Reason::ServerTimeout),
    ("StorageReadError", Reason::InternalError),
    ("Timeout", Reason::Timeout),
    ("TooManyRequests", Reason::TooManyRequests),
    ("BadRequest", Reason::BadRequest),
    ("MethodNotAllowed", Reason::MethodNotAllowed),
    ("NotAcceptable", Reason::NotAcceptable),
    ("RequestEntityTooLarge", Reason::RequestEntityTooLarge),
    ("UnsupportedMediaType", Reason::UnsupportedMediaType),
    ("InternalError", Reason::InternalError),
    ("ServiceUnavailable", Reason::ServiceUnavailable),
];

impl Reason {
    /// The reason of an error answer (a `Status`).
    pub fn of_status(status: &kube::core::Status) -> Reason {
        if let Some((_, reason)) = KNOWN_REASONS.iter().find(|(r, _)| *r == status.reason) {
            return *reason;
        }
        match status.code {
            400 => Reason::BadRequest,
            401 => Reason::Unauthorized,
            403 => Reason::Forbidden,
            404 => Reason::NotFound,
            405 => Reason::MethodNotAllowed,
            406 => Reason::NotAcceptable,
            409 => Reason::Conflict,
            410 => Reason::Gone,
            413 => Reason::RequestEntityTooLarge,
            415 => Reason::UnsupportedMediaType,
            422 => Reason::Invalid,
            429 => Reason::TooManyRequests,
            500 => Reason::InternalError,
            503 => Reason::ServiceUnavailable,
            504 => Reason::Timeout,
            _ => Reason::Other,
        }
    }

    /// The reason of any error of kube's client.
    pub fn of(error: &kube::Error) -> Reason {
        match error {
            kube::Error::Api(status) => Reason::of_status(status),
            kube::Error::HyperError(_) | kube::Error::Service(_) | kube::Error::ReadEvents(_) => {
                Reason::Unreachable
            }
            _ => Reason::Other,
        }
    }

    /// Whether asking again later may succeed without anyone changing anything: the server
    /// was away, busy or slow, or the object moved under the request. Anything else (a
    /// refusal, an invalid object, a kind that is gone) stays as it is until someone acts.
    pub fn is_transient(self) -> bool {
        matches!(
            self,
            Reason::Unreachable
                | Reason::Conflict
                | Reason::Gone
                | Reason::ServerTimeout
                | Reason::Timeout
                | Reason::TooManyRequests
                | Reason::InternalError
                | Reason::ServiceUnavailable
        )
    }
}

/// True when the error says the object (or its kind) does not exist.
pub fn is_not_found(error: &kube::Error) -> bool {
    Reason::of(error) == Reason::NotFound
}

/// `Api::get`, with `None` for an object that is not there. kube's own `Api::get_opt` reads
/// a 404 whose reason is not `NotFound` as a failure; this reads it as client-go does.
pub async fn get_optional<K>(api: &kube::Api<K>, name: &str) -> Result<Option<K>, kube::Error>
where
    K: Clone + serde::de::DeserializeOwned + std::fmt::Debug,
{
    match api.get(name).await {
        Ok(object) => Ok(Some(object)),
        Err(e) if is_not_found(&e) => Ok(None),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(code: u16, reason: &str) -> kube::core::Status {
        let mut status = kube::core::Status::failure("message", reason);
        status.code = code;
        status
    }

    #[test]
    fn a_known_reason_decides_before_the_code() {
        assert_eq!(
            Reason::of_status(&status(404, "NotFound")),
            Reason::NotFound
        );
        // A known reason wins even when the code says otherwise.
        assert_eq!(
            Reason::of_status(&status(500, "NotFound")),
            Reason::NotFound
        );
        assert_eq!(
            Reason::of_status(&status(404, "Forbidden")),
            Reason::Forbidden
        );
        assert_eq!(Reason::of_status(&status(410, "Expired")), Reason::Gone);
    }

    #[test]
    fn an_unknown_reason_leaves_the_code_to_decide() {
        assert_eq!(
            Reason::of_status(&status(404, "Object Not Found")),
            Reason::NotFound
        );
        assert_eq!(Reason::of_status(&status(404, "")), Reason::NotFound);
        assert_eq!(
            Reason::of_status(&status(429, "Slow Down")),
            Reason::TooManyRequests
        );
        assert_eq!(
            Reason::of_status(&status(503, "")),
            Reason::ServiceUnavailable
        );
        assert_eq!(
            Reason::of_status(&status(422, "Unprocessable")),
            Reason::Invalid
        );
        assert_eq!(Reason::of_status(&status(418, "Teapot")), Reason::Other);
    }

    #[test]
    fn only_what_may_pass_by_itself_is_transient() {
        for reason in [
            Reason::Unreachable,
            Reason::TooManyRequests,
            Reason::InternalError,
            Reason::ServiceUnavailable,
            Reason::Gone,
        ] {
            assert!(reason.is_transient(), "{reason:?}");
        }
        for reason in [
            Reason::BadRequest,
            Reason::Forbidden,
            Reason::Invalid,
            Reason::NotFound,
            Reason::Unauthorized,
        ] {
            assert!(!reason.is_transient(), "{reason:?}");
        }
    }
}
