//! A TLS front for a plain-HTTP test server on 127.0.0.1. A pod's in-cluster configuration
//! always speaks https to `KUBERNETES_SERVICE_HOST` and trusts only the service account's
//! `ca.crt`; the Kubernetes API test server speaks plain HTTP. The proxy terminates TLS with a
//! certificate of [`super::certs::TestCa`] and passes every byte on both ways, so long-lived
//! watches work through it as they do against the server itself.

use std::sync::Arc;

use tokio::net::{TcpListener, TcpStream};

pub struct TlsProxy {
    port: u16,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl TlsProxy {
    /// Listens on a free port of 127.0.0.1 and forwards each connection to `upstream`
    /// (`host:port`).
    pub fn start(upstream: &str, config: Arc<rustls::ServerConfig>) -> TlsProxy {
        let listener =
            std::net::TcpListener::bind("127.0.0.1:0").expect("a free port on 127.0.0.1");
        listener
            .set_nonblocking(true)
            .expect("a non-blocking listener");
        let port = listener.local_addr().expect("a bound address").port();
        let upstream = upstream.to_string();
        let (shutdown, mut stop) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("a tokio runtime for the TLS proxy");
            runtime.block_on(async move {
                let listener =
                    TcpListener::from_std(listener).expect("the listener on the runtime");
                let acceptor = tokio_rustls::TlsAcceptor::from(config);
                loop {
                    tokio::select! {
                        _ = &mut stop => break,
                        accepted = listener.accept() => {
                            let Ok((client, _)) = accepted else { continue };
                            tokio::spawn(forward(acceptor.clone(), client, upstream.clone()));
                        }
                    }
                }
            });
            // Open connections (watches) end with the runtime.
            runtime.shutdown_timeout(std::time::Duration::from_millis(100));
        });
        TlsProxy {
            port,
            shutdown: Some(shutdown),
            thread: Some(thread),
        }
    }

    pub fn port(&self) -> u16 {
        self.port
    }
}

/// One connection: a failed handshake or a closed side ends it, as a real front would.
async fn forward(acceptor: tokio_rustls::TlsAcceptor, client: TcpStream, upstream: String) {
    let Ok(mut tls) = acceptor.accept(client).await else {
        return;
    };
    let Ok(mut server) = TcpStream::connect(&upstream).await else {
        return;
    };
    let _ = tokio::io::copy_bidirectional(&mut tls, &mut server).await;
}

impl Drop for TlsProxy {
    fn drop(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
