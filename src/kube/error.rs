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
