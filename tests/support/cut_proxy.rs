//! A TCP proxy on 127.0.0.1 in front of a test server that a test can cut or hold. Cut, every
//! open connection is closed and every new one is closed as soon as it is accepted, as when the
//! API server restarts: clients see a watch end and requests fail to connect. Held, no byte
//! passes either way on any connection, old or new, as behind a network partition: requests
//! wait for their timeouts. Healed, it forwards new connections again.

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

const FORWARD: u8 = 0;
const CUT: u8 = 1;
const HOLD: u8 = 2;

pub struct CutProxy {
    port: u16,
    mode: Arc<AtomicU8>,
    cuts: watch::Sender<u64>,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl CutProxy {
    /// Listens on a free port of 127.0.0.1 and forwards each connection to `upstream`
    /// (`host:port`).
    pub fn start(upstream: &str) -> CutProxy {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
        listener
            .set_nonblocking(true)
            .expect("a non-blocking listener");
        let port = listener.local_addr().expect("a bound address").port();
        let upstream = upstream.to_string();
        let mode = Arc::new(AtomicU8::new(FORWARD));
        let (cuts, _) = watch::channel(0_u64);
        let (shutdown, mut stop) = tokio::sync::oneshot::channel::<()>();
        let (current, cut_signal) = (mode.clone(), cuts.clone());
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("a tokio runtime for the proxy");
            runtime.block_on(async move {
                let listener = TcpListener::from_std(listener).expect("the listener");
                loop {
                    let (client, _) = tokio::select! {
                        _ = &mut stop => break,
                        accepted = listener.accept() => match accepted {
                            Ok(accepted) => accepted,
                            Err(_) => continue,
                        },
                    };
                    let mut changed = cut_signal.subscribe();
                    match current.load(Ordering::SeqCst) {
                        CUT => {
                            drop(client);
                            continue;
                        }
                        HOLD => {
                            // Kept open, silent, until the mode changes.
                            tokio::spawn(async move {
                                let _ = changed.changed().await;
                                drop(client);
                            });
                            continue;
                        }
                        _ => {}
                    }
                    let upstream = upstream.clone();
                    let mode = current.clone();
                    tokio::spawn(async move {
                        let Ok(mut server) = TcpStream::connect(&upstream).await else {
                            return;
                        };
                        let mut client = client;
                        tokio::select! {
                            _ = tokio::io::copy_bidirectional(&mut client, &mut server) => {}
                            _ = changed.changed() => {
                                if mode.load(Ordering::SeqCst) == HOLD {
                                    // Silent until the next change; then closed.
                                    let _ = changed.changed().await;
                                }
                            }
                        }
                    });
                }
            });
            runtime.shutdown_timeout(std::time::Duration::from_millis(100));
        });
        CutProxy {
            port,
            mode,
            cuts,
            shutdown: Some(shutdown),
            thread: Some(thread),
        }
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Closes every open connection and refuses new ones until [`CutProxy::heal`].
    pub fn cut(&self) {
        self.set(CUT);
    }

    /// Passes no byte on any connection, open or new, until [`CutProxy::heal`].
    pub fn hold(&self) {
        self.set(HOLD);
    }

    /// Forwards new connections again (connections held or cut stay closed).
    pub fn heal(&self) {
        self.set(FORWARD);
    }

    fn set(&self, mode: u8) {
        self.mode.store(mode, Ordering::SeqCst);
        self.cuts.send_modify(|n| *n += 1);
    }
}

impl Drop for CutProxy {
    fn drop(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
