//! Everything that talks to a Kubernetes API server: connecting like kubectl, discovery,
//! server-side apply, waiting for CRDs and rollouts, and deleting. Errors name the server,
//! the context and the refused request; nothing here prints.

mod applied;
mod apply;
mod backoff;
mod capabilities;
mod cluster;
mod connect;
mod delete;
mod discovery;
mod error;
mod lookup;
mod objects;
mod raw;
mod wait;
mod webhooks;

pub use apply::{Applied, Outcome, Ownership, WriteMode};
pub use backoff::{Backoff, jittered};
pub use cluster::{Cluster, FIELD_MANAGER, Served};
pub use connect::{ConnectOptions, context_namespace, kubeconfig_for_child};
pub use delete::{CustomResource, Deleted};
pub use error::{Action, Endpoint, KubeError, Reason, get_optional, is_not_found};
pub use lookup::ClusterLookup;
pub use wait::{
    Completion, Rollout, RolloutReport, RolloutState, completion_of, is_established, rollout_of,
};
pub use webhooks::Probe;
