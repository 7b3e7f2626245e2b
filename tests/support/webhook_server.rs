//! An HTTPS webhook server for tests, on a free port of 127.0.0.1: it answers the reviews the
//! Kubernetes API test server (or a real one) sends with what a test's handler says, and keeps
//! every review it got. Its certificate comes from a CA made for it (operator-rs's own
//! [`operator_rs::certs`]), for the names the test gives, so the caller's TLS checks are real.

use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine;
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use serde_json::{Value, json};

pub use operator_rs::certs::ServingCertificate;

/// What the server answers to one review.
pub enum Answer {
    /// 200 with this JSON.
    Json(Value),
    /// This status with this text body.
    Http(u16, String),
    /// The answer, after a pause (for timeouts).
    After(Duration, Box<Answer>),
}

type Handler = dyn Fn(&str, &Value) -> Answer + Send + Sync;

pub struct WebhookServer {
    port: u16,
    certificate: ServingCertificate,
    reviews: Arc<Mutex<Vec<(String, Value)>>>,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// A certificate for `names` from a new CA.
pub fn certificate(names: &[&str]) -> ServingCertificate {
    let names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
    operator_rs::certs::issue(&names, Duration::from_secs(24 * 3600)).expect("a test certificate")
}

impl WebhookServer {
    /// Serves with a certificate for 127.0.0.1 and `names`; `handler` gets the request's path
    /// and the review.
    pub fn start(
        names: &[&str],
        handler: impl Fn(&str, &Value) -> Answer + Send + Sync + 'static,
    ) -> WebhookServer {
        let mut all = vec!["127.0.0.1"];
        all.extend_from_slice(names);
        WebhookServer::with_certificate(certificate(&all), handler)
    }

    pub fn with_certificate(
        certificate: ServingCertificate,
        handler: impl Fn(&str, &Value) -> Answer + Send + Sync + 'static,
    ) -> WebhookServer {
        let certs: Vec<CertificateDer<'static>> =
            CertificateDer::pem_slice_iter(certificate.cert_pem.as_bytes())
                .map(|c| c.expect("a PEM certificate"))
                .collect();
        let key = PrivateKeyDer::from_pem_slice(certificate.key_pem.as_bytes()).expect("a key");
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .expect("TLS versions")
            .with_no_client_auth()
            .with_single_cert(certs, key)
            .expect("a server certificate");
        let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
        let listener =
            std::net::TcpListener::bind("127.0.0.1:0").expect("a free port on 127.0.0.1");
        listener.set_nonblocking(true).expect("non-blocking");
        let port = listener.local_addr().expect("an address").port();
        let reviews = Arc::new(Mutex::new(Vec::new()));
        let handler: Arc<Handler> = Arc::new(handler);
        let (shutdown, mut stop) = tokio::sync::oneshot::channel::<()>();
        let kept = reviews.clone();
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("a runtime for the webhook server");
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener).expect("listener");
                loop {
                    tokio::select! {
                        _ = &mut stop => break,
                        accepted = listener.accept() => {
                            let Ok((stream, _)) = accepted else { continue };
                            let acceptor = acceptor.clone();
                            let handler = handler.clone();
                            let reviews = kept.clone();
                            tokio::spawn(async move {
                                let Ok(tls) = acceptor.accept(stream).await else { return };
                                let service = hyper::service::service_fn(move |request| {
                                    serve(request, handler.clone(), reviews.clone())
                                });
                                let _ = hyper::server::conn::http1::Builder::new()
                                    .serve_connection(hyper_util::rt::TokioIo::new(tls), service)
                                    .await;
                            });
                        }
                    }
                }
            });
            runtime.shutdown_timeout(Duration::from_millis(100));
        });
        WebhookServer {
            port,
            certificate,
            reviews,
            shutdown: Some(shutdown),
            thread: Some(thread),
        }
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// `https://127.0.0.1:PORT/PATH`.
    pub fn url(&self, path: &str) -> String {
        format!("https://127.0.0.1:{}{path}", self.port)
    }

    /// The CA as `caBundle` holds it.
    pub fn ca_bundle(&self) -> String {
        self.certificate.ca_bundle()
    }

    /// Every review so far: the path it came to, and the review.
    pub fn reviews(&self) -> Vec<(String, Value)> {
        self.reviews.lock().unwrap().clone()
    }
}

impl Drop for WebhookServer {
    fn drop(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

async fn serve(
    request: hyper::Request<hyper::body::Incoming>,
    handler: Arc<Handler>,
    reviews: Arc<Mutex<Vec<(String, Value)>>>,
) -> Result<hyper::Response<Full<Bytes>>, Infallible> {
    let path = request.uri().path().to_string();
    let body = request
        .into_body()
        .collect()
        .await
        .map(|b| b.to_bytes())
        .unwrap_or_default();
    let review: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    reviews.lock().unwrap().push((path.clone(), review.clone()));
    let mut answer = handler(&path, &review);
    loop {
        match answer {
            Answer::After(pause, next) => {
                tokio::time::sleep(pause).await;
                answer = *next;
            }
            Answer::Json(value) => {
                return Ok(hyper::Response::builder()
                    .header("Content-Type", "application/json")
                    .body(Full::new(Bytes::from(value.to_string())))
                    .unwrap());
            }
            Answer::Http(code, text) => {
                return Ok(hyper::Response::builder()
                    .status(code)
                    .body(Full::new(Bytes::from(text)))
                    .unwrap());
            }
        }
    }
}

/// The `request.uid` of a review.
pub fn uid(review: &Value) -> String {
    review["request"]["uid"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// An AdmissionReview answer with this `response` (the uid is added).
pub fn admission(review: &Value, mut response: Value) -> Answer {
    response["uid"] = json!(uid(review));
    Answer::Json(
        json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                        "response": response}),
    )
}

pub fn allow(review: &Value) -> Answer {
    admission(review, json!({"allowed": true}))
}

pub fn deny(review: &Value, code: u16, message: &str) -> Answer {
    admission(
        review,
        json!({"allowed": false, "status": {"code": code, "message": message}}),
    )
}

/// Allowed, with these JSON Patch operations.
pub fn patch(review: &Value, operations: Value) -> Answer {
    let encoded = base64::engine::general_purpose::STANDARD.encode(operations.to_string());
    admission(
        review,
        json!({"allowed": true, "patchType": "JSONPatch", "patch": encoded}),
    )
}

/// A ConversionReview answer: every object through `convert`, into the desired version.
pub fn conversion(review: &Value, convert: impl Fn(Value, &str) -> Value) -> Answer {
    let desired = review["request"]["desiredAPIVersion"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let objects: Vec<Value> = review["request"]["objects"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .map(|o| {
            let mut converted = convert(o, &desired);
            converted["apiVersion"] = json!(desired);
            converted
        })
        .collect();
    Answer::Json(json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "ConversionReview",
        "response": {"uid": uid(review), "result": {"status": "Success"},
                     "convertedObjects": objects},
    }))
}
