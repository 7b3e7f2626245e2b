//! Stopping on SIGTERM (what Kubernetes sends) or Ctrl-C, as kube's `shutdown_on_signal` does:
//! the first signal cancels a token, so that the operator stops watching, lets the
//! reconciliations in flight finish and gives its Lease up; a second one exits at once.

use tokio_util::sync::CancellationToken;
use tracing::{error, info};

pub fn on_signal() -> CancellationToken {
    let token = CancellationToken::new();
    let cancel = token.clone();
    // Registered before returning, so that a SIGTERM from then on is caught.
    #[cfg(unix)]
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
    tokio::spawn(async move {
        for first in [true, false] {
            #[cfg(unix)]
            let terminated = async {
                match term.as_mut() {
                    Some(term) => drop(term.recv().await),
                    None => std::future::pending().await,
                }
            };
            #[cfg(not(unix))]
            let terminated = std::future::pending::<()>();
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                () = terminated => {}
            }
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
