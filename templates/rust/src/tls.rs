//! Serving over TLS: the certificate of a directory (`tls.crt` and `tls.key`, as a Secret made
//! by cert-manager is mounted), or, when none is given, a self-signed one made in memory at
//! start-up, as controller-runtime does for its metrics endpoint. The files are read once:
//! a renewed certificate is served after a restart.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls::ServerConfig;
use tokio_rustls::rustls::crypto::ring;
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::server::TlsStream;

/// A client gets this long to finish its handshake, so that a silent one cannot hold a task
/// (and a file descriptor) for good.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} holds no PEM {what}")]
    NoPem { path: PathBuf, what: &'static str },
    #[error("cannot make a self-signed certificate: {0}")]
    SelfSigned(#[from] rcgen::Error),
    #[error("the certificate and key cannot serve TLS: {0}")]
    Config(#[from] tokio_rustls::rustls::Error),
}

/// The TLS configuration of a server: `tls.crt` and `tls.key` of `cert_dir`, or a self-signed
/// certificate for `hosts` when there is no directory.
pub fn server_config(
    cert_dir: Option<&Path>,
    hosts: &[&str],
) -> Result<Arc<ServerConfig>, TlsError> {
    let (chain, key) = match cert_dir {
        Some(dir) => read_pair(dir)?,
        None => {
            let hosts: Vec<String> = hosts.iter().map(|h| h.to_string()).collect();
            let made = rcgen::generate_simple_self_signed(hosts)?;
            let key = PrivateKeyDer::Pkcs8(made.signing_key.serialize_der().into());
            (vec![made.cert.der().clone()], key)
        }
    };
    // One crypto provider, named here, rather than a process-wide default that another
    // dependency could set to a different one.
    let config = ServerConfig::builder_with_provider(Arc::new(ring::default_provider()))
        .with_safe_default_protocol_versions()?
        .with_no_client_auth()
        .with_single_cert(chain, key)?;
    Ok(Arc::new(config))
}

fn read_pair(
    dir: &Path,
) -> Result<(Vec<CertificateDer<'static>>, PrivateKeyDer<'static>), TlsError> {
    let read = |name: &str| {
        let path = dir.join(name);
        std::fs::read(&path)
            .map(|bytes| (path.clone(), bytes))
            .map_err(|source| TlsError::Read { path, source })
    };
    let (cert_path, cert) = read("tls.crt")?;
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(&cert)
        .filter_map(Result::ok)
        .collect();
    if chain.is_empty() {
        return Err(TlsError::NoPem {
            path: cert_path,
            what: "certificate",
        });
    }
    let (key_path, key) = read("tls.key")?;
    let key = PrivateKeyDer::from_pem_slice(&key).map_err(|_| TlsError::NoPem {
        path: key_path,
        what: "private key",
    })?;
    Ok((chain, key))
}

/// Connections of `listener` after their TLS handshake, for `axum::serve`. Handshakes run in
/// tasks of their own, so that a slow client does not hold up the others.
pub struct TlsListener {
    connections: mpsc::Receiver<(TlsStream<TcpStream>, std::net::SocketAddr)>,
    address: std::net::SocketAddr,
}

impl TlsListener {
    pub fn new(listener: TcpListener, config: Arc<ServerConfig>) -> std::io::Result<Self> {
        let address = listener.local_addr()?;
        let (sender, connections) = mpsc::channel(32);
        let acceptor = TlsAcceptor::from(config);
        tokio::spawn(async move {
            loop {
                let (stream, peer) = match listener.accept().await {
                    Ok(accepted) => accepted,
                    Err(error) => {
                        // Out of file descriptors, mostly: wait rather than spin.
                        tracing::warn!(%error, "cannot accept a connection");
                        tokio::time::sleep(Duration::from_secs(1)).await;
                        continue;
                    }
                };
                let acceptor = acceptor.clone();
                let handed_over = sender.clone();
                tokio::spawn(async move {
                    match tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(stream)).await {
                        Ok(Ok(tls)) => {
                            let _ = handed_over.send((tls, peer)).await;
                        }
                        Ok(Err(error)) => tracing::debug!(%peer, %error, "TLS handshake failed"),
                        Err(_) => tracing::debug!(%peer, "TLS handshake timed out"),
                    }
                });
                if sender.is_closed() {
                    return;
                }
            }
        });
        Ok(TlsListener {
            connections,
            address,
        })
    }
}

impl axum::serve::Listener for TlsListener {
    type Io = TlsStream<TcpStream>;
    type Addr = std::net::SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        match self.connections.recv().await {
            Some(connection) => connection,
            // The accepting task only ends once this listener is gone.
            None => std::future::pending().await,
        }
    }

    fn local_addr(&self) -> std::io::Result<Self::Addr> {
        Ok(self.address)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_without_a_key_is_refused_by_name() {
        let dir = std::env::temp_dir().join(format!("tls-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("tls.crt"), "not a certificate").unwrap();
        let error = server_config(Some(&dir), &[]).unwrap_err().to_string();
        assert!(
            error.contains("tls.crt holds no PEM certificate"),
            "{error}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn without_a_directory_a_self_signed_certificate_is_made() {
        assert!(server_config(None, &["localhost"]).is_ok());
    }
}
