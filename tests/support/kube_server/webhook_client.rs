//! Calling a webhook as the API server does, for admission ([`super::admission`]) and for CRD
//! conversion ([`super::conversion`]): where its `clientConfig` points, TLS checked against its
//! `caBundle`, one POST of a JSON review with a deadline.
//!
//! - `url`: `https://HOST[:PORT]/PATH`, HOST an address or a name this machine resolves; the
//!   certificate must be valid for HOST.
//! - `service` (`namespace`, `name`, `port` default 443, `path`): resolved through the store as
//!   the API server does with endpoint routing: the Service must exist and have the port, and
//!   an EndpointSlice labelled `kubernetes.io/service-name: NAME` (else the Endpoints object of
//!   the same name) must hold a ready address with the port of the same name (a test points
//!   one at 127.0.0.1:PORT). The certificate must be valid for `NAME.NAMESPACE.svc`.
//! - TLS is verified against the `caBundle` (PEM), or the system's roots without one, with
//!   rustls; HTTP/1.1 only.
//!
//! Failures read as the API server's do (Go's `Post "URL": ...`, with the URL the API server
//! would name: `https://NAME.NAMESPACE.svc:PORT/PATH?timeout=10s`); the wording of TLS and
//! connection errors after that prefix is Go's where it is known, rustls's otherwise. Of
//! several ready addresses the first is taken, where the API server picks one at random.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Bytes;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use serde_json::Value;

use super::store::{Key, State};

pub type Shared = Arc<Mutex<State>>;

/// How large an answer may be: the API server caps webhook responses too.
const ANSWER_LIMIT: usize = 16 * 1024 * 1024;

pub fn lock(state: &Shared) -> std::sync::MutexGuard<'_, State> {
    state
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Where a webhook is, as its `clientConfig` says.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Target {
    Url(String),
    Service {
        namespace: String,
        name: String,
        port: u16,
        path: String,
    },
}

/// A webhook's `clientConfig`, read.
#[derive(Debug, Clone)]
pub struct ClientConfig {
    target: Target,
    ca_bundle: Option<Vec<u8>>,
}

impl ClientConfig {
    /// Reads `clientConfig` (of a webhook, or of a CRD's `spec.conversion.webhook`).
    pub fn parse(value: &Value) -> Result<ClientConfig, String> {
        let ca_bundle = match value.get("caBundle").and_then(Value::as_str) {
            Some(text) if !text.is_empty() => Some(
                base64::engine::general_purpose::STANDARD
                    .decode(text)
                    .map_err(|e| format!("caBundle is not base64: {e}"))?,
            ),
            _ => None,
        };
        let target = match (value.get("url"), value.get("service")) {
            (Some(Value::String(url)), None) => Target::Url(url.clone()),
            (None, Some(service)) => {
                let text = |field: &str| service[field].as_str().unwrap_or_default().to_string();
                let port = match &service["port"] {
                    Value::Null => 443,
                    other => other
                        .as_u64()
                        .and_then(|p| u16::try_from(p).ok())
                        .ok_or_else(|| format!("service.port {other} is not a port"))?,
                };
                Target::Service {
                    namespace: text("namespace"),
                    name: text("name"),
                    port,
                    path: service["path"].as_str().unwrap_or("/").to_string(),
                }
            }
            _ => return Err("exactly one of url or service is required".into()),
        };
        Ok(ClientConfig { target, ca_bundle })
    }

    /// The URL the API server names in messages, with the `timeout` it adds.
    pub fn display_url(&self, timeout: Duration) -> String {
        let base = match &self.target {
            Target::Url(url) => url.clone(),
            Target::Service {
                namespace,
                name,
                port,
                path,
            } => format!("https://{name}.{namespace}.svc:{port}{path}"),
        };
        format!("{base}?timeout={}s", timeout.as_secs().max(1))
    }
}

/// Where one call connects, and what the certificate must name.
struct Route {
    address: SocketAddr,
    server_name: String,
    host_header: String,
    path: String,
}

/// Why a call failed, in the API server's words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallError {
    /// No client could be made (a caBundle that is not PEM).
    Client(String),
    /// The call itself: the connection, TLS, the deadline, or an answer that is no review.
    Call(String),
}

impl std::fmt::Display for CallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CallError::Client(e) => write!(f, "could not get REST client: {e}"),
            CallError::Call(e) => f.write_str(e),
        }
    }
}

/// POSTs `review` to the webhook and returns its JSON answer.
pub async fn call(
    state: &Shared,
    config: &ClientConfig,
    review: &Value,
    timeout: Duration,
) -> Result<Value, CallError> {
    let url = config.display_url(timeout);
    let post = |reason: String| CallError::Call(format!("Post \"{url}\": {reason}"));
    let tls = tls_config(config.ca_bundle.as_deref()).map_err(CallError::Client)?;
    let route = route(state, config).await.map_err(post)?;
    let path = route.path.clone();
    let body = review.to_string();
    let started = std::time::Instant::now();
    let exchange = exchange(route, tls, body, timeout);
    match tokio::time::timeout(timeout, exchange).await {
        Ok(Ok(answer)) => {
            let took = started.elapsed();
            lock(state).webhook_calls.push((path, took));
            Ok(answer)
        }
        Ok(Err(Failure::Transport(reason))) => Err(post(reason)),
        Ok(Err(Failure::Answer(reason))) => Err(CallError::Call(reason)),
        Err(_) => Err(post("context deadline exceeded".into())),
    }
}

enum Failure {
    /// Before an answer: Go wraps these in `Post "URL": ...`.
    Transport(String),
    /// An answer that is not a review.
    Answer(String),
}

async fn exchange(
    route: Route,
    tls: Arc<rustls::ClientConfig>,
    body: String,
    timeout: Duration,
) -> Result<Value, Failure> {
    let transport = Failure::Transport;
    let tcp = tokio::net::TcpStream::connect(route.address)
        .await
        .map_err(|e| transport(format!("dial tcp {}: {}", route.address, connect_error(&e))))?;
    let name = ServerName::try_from(route.server_name.clone())
        .map_err(|e| transport(format!("invalid server name {}: {e}", route.server_name)))?;
    let stream = tokio_rustls::TlsConnector::from(tls)
        .connect(name, tcp)
        .await
        .map_err(|e| transport(tls_error(&e, &route.server_name)))?;
    let (mut sender, connection) =
        hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream))
            .await
            .map_err(|e| transport(e.to_string()))?;
    tokio::spawn(async move {
        // The connection ends with the sender; a webhook that hangs up is reported below.
        let _ = connection.await;
    });
    let path = format!("{}?timeout={}s", route.path, timeout.as_secs().max(1));
    let request = hyper::Request::post(path)
        .header(hyper::header::HOST, &route.host_header)
        .header(hyper::header::CONTENT_TYPE, "application/json")
        .header(hyper::header::ACCEPT, "application/json, */*")
        .body(Full::new(Bytes::from(body)))
        .map_err(|e| transport(e.to_string()))?;
    let response = sender
        .send_request(request)
        .await
        .map_err(|e| transport(e.to_string()))?;
    let status = response.status();
    let bytes = Limited::new(response.into_body(), ANSWER_LIMIT)
        .collect()
        .await
        .map_err(|e| transport(format!("reading the answer: {e}")))?
        .to_bytes();
    if !status.is_success() {
        // client-go's words for an error answer that is not a Status.
        let text = String::from_utf8_lossy(&bytes).trim().to_string();
        return Err(Failure::Answer(if text.is_empty() {
            format!(
                "the server responded with the status code {} but did not return more information",
                status.as_u16()
            )
        } else {
            format!("an error on the server (\"{text}\") has prevented the request from succeeding")
        }));
    }
    serde_json::from_slice(&bytes)
        .map_err(|e| Failure::Answer(format!("the answer is not JSON: {e}")))
}

/// The address and names of one call: a URL as it is, a Service through its endpoints.
async fn route(state: &Shared, config: &ClientConfig) -> Result<Route, String> {
    match &config.target {
        Target::Url(text) => {
            let url = reqwest::Url::parse(text).map_err(|e| format!("parse \"{text}\": {e}"))?;
            let host = url
                .host_str()
                .ok_or_else(|| format!("no host in \"{text}\""))?
                .trim_start_matches('[')
                .trim_end_matches(']')
                .to_string();
            let port = url.port().unwrap_or(443);
            let address = tokio::net::lookup_host((host.as_str(), port))
                .await
                .map_err(|e| format!("dial tcp: lookup {host}: {e}"))?
                .next()
                .ok_or_else(|| format!("dial tcp: lookup {host}: no such host"))?;
            let host_header = match url.port() {
                Some(port) => format!("{}:{port}", url.host_str().unwrap_or_default()),
                None => url.host_str().unwrap_or_default().to_string(),
            };
            Ok(Route {
                address,
                server_name: host,
                host_header,
                path: url.path().to_string(),
            })
        }
        Target::Service {
            namespace,
            name,
            port,
            path,
        } => {
            let address = resolve_service(&lock(state), namespace, name, *port)?;
            let server_name = format!("{name}.{namespace}.svc");
            Ok(Route {
                address,
                host_header: format!("{server_name}:{port}"),
                server_name,
                path: path.clone(),
            })
        }
    }
}

/// A Service's port to a ready endpoint address, as the API server's endpoint routing does.
fn resolve_service(
    state: &State,
    namespace: &str,
    name: &str,
    port: u16,
) -> Result<SocketAddr, String> {
    let key = |group: &str, plural: &str, object: &str| Key {
        group: group.into(),
        plural: plural.into(),
        namespace: namespace.into(),
        name: object.into(),
    };
    let service = state
        .object(&key("", "services", name))
        .ok_or_else(|| format!("service \"{name}\" not found"))?;
    if service["spec"]["type"] == "ExternalName" {
        return Err("unsupported service type \"ExternalName\"".into());
    }
    let service_port = service["spec"]["ports"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|p| p["port"].as_u64() == Some(u64::from(port)))
        .ok_or_else(|| format!("no service port {port} found for service \"{name}\""))?;
    let port_name = service_port["name"].as_str().unwrap_or_default();
    let no_endpoints = || format!("no endpoints available for service \"{name}\"");

    let slices = state.objects().filter(|(k, slice)| {
        k.group == "discovery.k8s.io"
            && k.plural == "endpointslices"
            && k.namespace == namespace
            && slice["metadata"]["labels"]["kubernetes.io/service-name"] == name
    });
    let mut found_slice = false;
    for (_, slice) in slices {
        found_slice = true;
        let target_port = slice["ports"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|p| p["name"].as_str().unwrap_or_default() == port_name)
            .and_then(|p| p["port"].as_u64());
        let Some(target_port) = target_port.and_then(|p| u16::try_from(p).ok()) else {
            continue;
        };
        let ready = slice["endpoints"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|e| e["conditions"]["ready"] != false)
            .flat_map(|e| e["addresses"].as_array().cloned().unwrap_or_default());
        for address in ready {
            if let Some(ip) = address.as_str().and_then(|a| a.parse().ok()) {
                return Ok(SocketAddr::new(ip, target_port));
            }
        }
    }
    if found_slice {
        return Err(no_endpoints());
    }
    let endpoints = state
        .object(&key("", "endpoints", name))
        .ok_or_else(no_endpoints)?;
    for subset in endpoints["subsets"].as_array().into_iter().flatten() {
        let target_port = subset["ports"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|p| p["name"].as_str().unwrap_or_default() == port_name)
            .and_then(|p| p["port"].as_u64())
            .and_then(|p| u16::try_from(p).ok());
        let address = subset["addresses"]
            .as_array()
            .into_iter()
            .flatten()
            .find_map(|a| a["ip"].as_str().and_then(|ip| ip.parse().ok()));
        if let (Some(port), Some(ip)) = (target_port, address) {
            return Ok(SocketAddr::new(ip, port));
        }
    }
    Err(no_endpoints())
}

/// Roots from the caBundle, else the system's.
fn tls_config(ca_bundle: Option<&[u8]>) -> Result<Arc<rustls::ClientConfig>, String> {
    let mut roots = rustls::RootCertStore::empty();
    match ca_bundle {
        Some(pem) => {
            let certificates: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(pem)
                .collect::<Result<_, _>>()
                .map_err(|_| {
                    "unable to load root certificates: unable to parse bytes as PEM block"
                        .to_string()
                })?;
            if certificates.is_empty() {
                return Err(
                    "unable to load root certificates: unable to parse bytes as PEM block".into(),
                );
            }
            for certificate in certificates {
                roots
                    .add(certificate)
                    .map_err(|e| format!("unable to load root certificates: {e}"))?;
            }
        }
        None => {
            for certificate in rustls_native_certs::load_native_certs().certs {
                // A system root rustls cannot read is one the call cannot use either.
                let _ = roots.add(certificate);
            }
        }
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(Arc::new(config))
}

/// Go's words for a refused or failed connection.
fn connect_error(error: &std::io::Error) -> String {
    match error.kind() {
        std::io::ErrorKind::ConnectionRefused => "connect: connection refused".into(),
        _ => format!("connect: {error}"),
    }
}

/// Go's words for the certificate errors people search for, rustls's for the rest.
fn tls_error(error: &std::io::Error, server_name: &str) -> String {
    use rustls::CertificateError as C;
    let inner = error
        .get_ref()
        .and_then(|e| e.downcast_ref::<rustls::Error>());
    let verify = |what: String| format!("tls: failed to verify certificate: x509: {what}");
    match inner {
        Some(rustls::Error::InvalidCertificate(C::UnknownIssuer)) => {
            verify("certificate signed by unknown authority".into())
        }
        Some(rustls::Error::InvalidCertificate(
            C::NotValidForName | C::NotValidForNameContext { .. },
        )) => verify(format!("certificate is not valid for {server_name}")),
        Some(rustls::Error::InvalidCertificate(
            C::Expired | C::ExpiredContext { .. } | C::NotValidYet | C::NotValidYetContext { .. },
        )) => verify("certificate has expired or is not yet valid".into()),
        Some(other) => format!("tls: {other}"),
        None => format!("tls: {error}"),
    }
}
