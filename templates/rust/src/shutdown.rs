//! Stopping on SIGTERM (what Kubernetes sends) or Ctrl-C, as kube's `shutdown_on_signal` does:
//! the first signal cancels a token, so that the operator stops watching, lets the
//! reconciliations in flight finish and gives its Lease up; a second one exits at once.

use tokio_util::sync::CancellationToken;
use tracing::{error, info};

/// A token that the first signal cancels; the second exits the process with 1.
pub fn on_signal() -> CancellationToken {
    let token = CancellationToken::new();
    let cancel = token.clone();
    // Registered before returning, so that a SIGTERM from then on is caught; one stream for
    // both signals, so that none is missed between the two waits.
    #[cfg(unix)]
    let mut term = {
        use tokio::signal::unix::{SignalKind, signal};
        signal(SignalKind::terminate()).ok()
    };
    tokio::spawn(async move {
        for first in [true, false] {
            #[cfg(unix)]
            match term.as_mut() {
                Some(term) => tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                },
                None => drop(tokio::signal::ctrl_c().await),
            }
            #[cfg(not(unix))]
            drop(tokio::signal::ctrl_c().await);
            if first {
                info!("shutting down; a second signal exits at once");
                cancel.cancel();
            }
        }
        error!("second signal: exiting without finishing");
        std::process::exit(1);
    });
    token
}
