//! Stopping on SIGTERM or Ctrl-C as kube's `shutdown_on_signal` does: the first signal cancels
//! a token (stop watching, finish the reconciliations in flight, give the Lease up), a second
//! one exits at once.

use tokio_util::sync::CancellationToken;
use tracing::{error, info};

pub fn on_signal() -> std::io::Result<CancellationToken> {
    let token = CancellationToken::new();
    let cancel = token.clone();
    // Registered before returning, so that a SIGTERM from then on is caught.
    #[cfg(unix)]
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    tokio::spawn(async move {
        for first in [true, false] {
            #[cfg(unix)]
            let terminated = term.recv();
            #[cfg(not(unix))]
            let terminated = std::future::pending::<Option<()>>();
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = terminated => {}
            }
            if first {
                info!("shutting down; a second signal exits at once");
                cancel.cancel();
            }
        }
        error!("second signal: exiting without finishing");
        std::process::exit(1);
    });
    Ok(token)
}
