//! Leader election on a `coordination.k8s.io/v1` Lease, so that of several replicas exactly one
//! reconciles while the others wait to take over.

use kube::Client;
use kube_lease_manager::{LeaseManager, LeaseManagerBuilder, LeaseManagerError};
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// How long a leader holds the lease without renewing it before another replica may take it.
const LEASE_DURATION_SECONDS: u64 = 15;
/// How long before expiry the leader renews the lease.
const RENEW_GRACE_SECONDS: u64 = 5;

/// The lease, held and renewed in the background until [`Leadership::release`].
pub struct Leadership {
    state: watch::Receiver<bool>,
    manager: JoinHandle<Result<LeaseManager, LeaseManagerError>>,
}

impl Leadership {
    /// Waits until this replica is the leader.
    pub async fn acquire(
        client: Client,
        namespace: &str,
        lease_name: &str,
        identity: &str,
    ) -> Result<Self, LeaseManagerError> {
        let manager = LeaseManagerBuilder::new(client, lease_name)
            .with_namespace(namespace)
            .with_identity(identity)
            .with_duration(LEASE_DURATION_SECONDS)
            .with_grace(RENEW_GRACE_SECONDS)
            .build()
            .await?;
        // The manager renews the lease in a background task for as long as the channel is open.
        let (mut state, manager) = manager.watch().await;
        // An error means the manager stopped; `lost` then resolves at once.
        let _ = state.wait_for(|leader| *leader).await;
        Ok(Leadership { state, manager })
    }

    /// Resolves when the lease is lost: the API server was unreachable for longer than the
    /// lease lasts, or another replica took it over.
    pub async fn lost(&mut self) {
        let _ = self.state.wait_for(|leader| !*leader).await;
    }

    /// Gives the lease up, so that a standby replica takes over at once instead of waiting for
    /// it to expire.
    pub async fn release(self) {
        // Closing the channel makes the manager release the lease and stop.
        drop(self.state);
        if let Ok(Err(error)) = self.manager.await {
            tracing::warn!(%error, "cannot release the leader election lease");
        }
    }
}
