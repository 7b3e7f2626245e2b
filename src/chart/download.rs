//! HTTP for charts: one client per set of TLS settings, bodies read with a size limit and a
//! progress callback, sha256 verification, and errors that name the URL and what failed.
//!
//! The rustls crypto provider is installed once by `main` (and by tests that call in-process);
//! building a client without one panics inside reqwest.

use std::path::{Path, PathBuf};
use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderValue};
use reqwest::{StatusCode, Url};
use sha2::{Digest, Sha256};
use thiserror::Error;

/// Bytes seen so far and the total when the server said it.
pub type Progress<'a> = &'a dyn Fn(u64, Option<u64>);

/// The largest index.yaml we read: public repositories publish indexes of tens of MiB.
pub const MAX_INDEX_BYTES: u64 = 256 * 1024 * 1024;

#[derive(Debug, Error)]
pub enum DownloadError {
    #[error(
        "{url}: no answer within {secs}s while {during}; check the address, that the server is up, and the proxy variables (HTTPS_PROXY, NO_PROXY)"
    )]
    Timeout {
        url: String,
        secs: u64,
        during: &'static str,
    },
    #[error("{url}: cannot resolve the host name (DNS): {detail}; check the address")]
    Dns { url: String, detail: String },
    #[error(
        "{url}: TLS failed: {detail}; for a private CA set `caFile` in the repository entry (helm repo add --ca-file), or use http:// (--plain-http for oci://) if the server has no TLS"
    )]
    Tls { url: String, detail: String },
    #[error("{url}: cannot connect: {detail}")]
    Connect { url: String, detail: String },
    #[error("{url}: the server answered HTTP {status}{hint}")]
    Status {
        url: String,
        status: u16,
        /// The reason phrase and what to do, ready to print after the code.
        hint: &'static str,
    },
    #[error(
        "{url}: the download was cut off after {received} bytes{expected}: {detail}; try again",
        expected = expected.map(|e| format!(" of {e}")).unwrap_or_default()
    )]
    Truncated {
        url: String,
        received: u64,
        expected: Option<u64>,
        detail: String,
    },
    #[error("{url}: larger than {limit} MiB; refusing to download it", limit = limit / 1024 / 1024)]
    TooLarge { url: String, limit: u64 },
    #[error(
        "{url}: sha256 digest mismatch: expected {expected}, got {actual}; the file differs from the one the {source_of_truth} describes, so nothing was extracted"
    )]
    DigestMismatch {
        url: String,
        expected: String,
        actual: String,
        source_of_truth: &'static str,
    },
    #[error("cannot use {what} {path}: {detail}")]
    TlsConfig {
        what: &'static str,
        path: PathBuf,
        detail: String,
    },
    #[error("{url}: {detail}")]
    Other { url: String, detail: String },
}

impl DownloadError {
    /// True when the network, not the server, failed: the case where Helm's cache may stand in.
    pub fn is_network(&self) -> bool {
        matches!(
            self,
            DownloadError::Timeout { .. }
                | DownloadError::Dns { .. }
                | DownloadError::Connect { .. }
        )
    }
}

/// TLS settings of one repository entry.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct TlsSettings {
    pub ca_file: Option<PathBuf>,
    pub cert_file: Option<PathBuf>,
    pub key_file: Option<PathBuf>,
    pub insecure_skip_tls_verify: bool,
}

/// How a request proves who it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Auth {
    None,
    Basic { username: String, password: String },
    Bearer(String),
}

/// An HTTP client with one set of TLS settings.
#[derive(Debug, Clone)]
pub struct Http {
    client: reqwest::Client,
    timeout: Duration,
}

impl Http {
    /// `timeout` bounds connecting and each wait for data, not a whole download, so a large
    /// chart on a slow line still arrives.
    pub fn new(tls: &TlsSettings, timeout: Duration) -> Result<Http, DownloadError> {
        let mut builder = reqwest::Client::builder()
            .user_agent(concat!("operator-rs/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(timeout)
            .read_timeout(timeout);
        if let Some(ca_file) = &tls.ca_file {
            let pem = read_file("caFile", ca_file)?;
            let certs = reqwest::Certificate::from_pem_bundle(&pem).map_err(|e| {
                DownloadError::TlsConfig {
                    what: "caFile",
                    path: ca_file.clone(),
                    detail: format!("not a PEM certificate bundle: {e}"),
                }
            })?;
            builder = builder.tls_certs_merge(certs);
        }
        match (&tls.cert_file, &tls.key_file) {
            (Some(cert_file), Some(key_file)) => {
                let mut pem = read_file("certFile", cert_file)?;
                pem.push(b'\n');
                pem.extend(read_file("keyFile", key_file)?);
                let identity =
                    reqwest::Identity::from_pem(&pem).map_err(|e| DownloadError::TlsConfig {
                        what: "certFile/keyFile",
                        path: cert_file.clone(),
                        detail: format!("not a PEM certificate and private key: {e}"),
                    })?;
                builder = builder.identity(identity);
            }
            (Some(path), None) | (None, Some(path)) => {
                return Err(DownloadError::TlsConfig {
                    what: "certFile/keyFile",
                    path: path.clone(),
                    detail: "a client certificate needs both certFile and keyFile".to_string(),
                });
            }
            (None, None) => {}
        }
        if tls.insecure_skip_tls_verify {
            builder = builder.tls_danger_accept_invalid_certs(true);
        }
        let client = builder.build().map_err(|e| DownloadError::TlsConfig {
            what: "TLS settings",
            path: tls.ca_file.clone().unwrap_or_default(),
            detail: chain(&e),
        })?;
        Ok(Http { client, timeout })
    }

    /// Sends a GET and returns the response whatever its status.
    pub async fn send(
        &self,
        url: &Url,
        auth: &Auth,
        headers: HeaderMap,
    ) -> Result<reqwest::Response, DownloadError> {
        let mut request = self.client.get(url.clone()).headers(headers);
        request = match auth {
            Auth::None => request,
            Auth::Basic { username, password } => request.basic_auth(username, Some(password)),
            Auth::Bearer(token) => request.bearer_auth(token),
        };
        request
            .send()
            .await
            .map_err(|e| self.classify(url, &e, "waiting for the response"))
    }

    /// GETs `url` and returns its body; any status but success is an error.
    pub async fn get_bytes(
        &self,
        url: &Url,
        auth: &Auth,
        accept: Option<&str>,
        limit: u64,
        progress: Progress<'_>,
    ) -> Result<Vec<u8>, DownloadError> {
        let mut headers = HeaderMap::new();
        if let Some(accept) = accept.and_then(|a| HeaderValue::from_str(a).ok()) {
            headers.insert(reqwest::header::ACCEPT, accept);
        }
        let response = self.send(url, auth, headers).await?;
        let response = check_status(url, response)?;
        self.read_body(url, response, limit, progress).await
    }

    /// Reads a response body up to `limit` bytes, reporting progress.
    pub async fn read_body(
        &self,
        url: &Url,
        mut response: reqwest::Response,
        limit: u64,
        progress: Progress<'_>,
    ) -> Result<Vec<u8>, DownloadError> {
        let expected = response.content_length();
        let too_large = || DownloadError::TooLarge {
            url: url.to_string(),
            limit,
        };
        if expected.is_some_and(|len| len > limit) {
            return Err(too_large());
        }
        let mut body = Vec::with_capacity(expected.unwrap_or(0).min(limit) as usize);
        progress(0, expected);
        loop {
            match response.chunk().await {
                Ok(Some(chunk)) => {
                    if body.len() as u64 + chunk.len() as u64 > limit {
                        return Err(too_large());
                    }
                    body.extend_from_slice(&chunk);
                    progress(body.len() as u64, expected);
                }
                Ok(None) => break,
                Err(e) if e.is_timeout() => {
                    return Err(DownloadError::Timeout {
                        url: url.to_string(),
                        secs: self.timeout.as_secs(),
                        during: "receiving the body",
                    });
                }
                Err(e) => {
                    return Err(DownloadError::Truncated {
                        url: url.to_string(),
                        received: body.len() as u64,
                        expected,
                        detail: root_cause(&e),
                    });
                }
            }
        }
        if let Some(expected) = expected.filter(|&e| e != body.len() as u64) {
            return Err(DownloadError::Truncated {
                url: url.to_string(),
                received: body.len() as u64,
                expected: Some(expected),
                detail: "the connection closed early".to_string(),
            });
        }
        Ok(body)
    }

    fn classify(&self, url: &Url, error: &reqwest::Error, during: &'static str) -> DownloadError {
        let url = url.to_string();
        let detail = root_cause(error);
        if error.is_timeout() {
            DownloadError::Timeout {
                url,
                secs: self.timeout.as_secs(),
                during,
            }
        } else if error.is_dns() {
            DownloadError::Dns { url, detail }
        } else if is_tls(error) {
            DownloadError::Tls { url, detail }
        } else if error.is_connect() {
            DownloadError::Connect { url, detail }
        } else {
            DownloadError::Other { url, detail }
        }
    }
}

/// Turns a non-success status into an error with a hint for the usual causes.
pub fn check_status(
    url: &Url,
    response: reqwest::Response,
) -> Result<reqwest::Response, DownloadError> {
    let status = response.status();
    if status.is_success() {
        return Ok(response);
    }
    let hint = match status {
        StatusCode::UNAUTHORIZED => {
            " Unauthorized: it wants credentials; give them with `helm repo add --username --password` (for oci://, `helm registry login`)"
        }
        StatusCode::FORBIDDEN => " Forbidden: the credentials were refused or lack access",
        StatusCode::NOT_FOUND => " Not Found: check the name, the version and the URL",
        s if s.is_server_error() => " (a server error): try again later",
        _ => "",
    };
    Err(DownloadError::Status {
        url: url.to_string(),
        status: status.as_u16(),
        hint,
    })
}

/// The sha256 of `bytes` as lower-case hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Checks `bytes` against a digest written as `hex` or `sha256:hex`.
pub fn verify_sha256(
    url: &Url,
    bytes: &[u8],
    expected: &str,
    source_of_truth: &'static str,
) -> Result<(), DownloadError> {
    let wanted = expected
        .trim()
        .strip_prefix("sha256:")
        .unwrap_or(expected.trim())
        .to_ascii_lowercase();
    let actual = sha256_hex(bytes);
    if wanted == actual {
        Ok(())
    } else {
        Err(DownloadError::DigestMismatch {
            url: url.to_string(),
            expected: format!("sha256:{wanted}"),
            actual: format!("sha256:{actual}"),
            source_of_truth,
        })
    }
}

fn read_file(what: &'static str, path: &Path) -> Result<Vec<u8>, DownloadError> {
    std::fs::read(path).map_err(|e| DownloadError::TlsConfig {
        what,
        path: path.to_path_buf(),
        detail: e.to_string(),
    })
}

fn is_tls(error: &reqwest::Error) -> bool {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(err) = source {
        if err.is::<rustls::Error>() {
            return true;
        }
        // The connector nests io::Errors around the rustls error, and io::Error's `source`
        // skips the error it wraps: look inside each layer.
        let mut inner = err.downcast_ref::<std::io::Error>();
        while let Some(io) = inner {
            match io.get_ref() {
                Some(wrapped) if wrapped.is::<rustls::Error>() => return true,
                Some(wrapped) => inner = wrapped.downcast_ref::<std::io::Error>(),
                None => inner = None,
            }
        }
        source = err.source();
    }
    false
}

/// The innermost cause's message: reqwest's outer layers repeat the URL the error already names.
fn root_cause(error: &(dyn std::error::Error + 'static)) -> String {
    let mut deepest: &(dyn std::error::Error + 'static) = error;
    while let Some(next) = deepest.source() {
        deepest = next;
    }
    // io::Error hides what it wraps from `source`, but its message is the wrapped one's.
    deepest.to_string()
}

/// An error and its causes on one line, skipping repeats (reqwest nests the same text).
pub(crate) fn chain(error: &dyn std::error::Error) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut source: Option<&dyn std::error::Error> = Some(error);
    while let Some(err) = source {
        let text = err.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        source = err.source();
    }
    parts.join(": ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_compare_with_or_without_prefix() {
        let url = Url::parse("http://127.0.0.1/x.tgz").unwrap();
        let hex = sha256_hex(b"abc");
        assert_eq!(
            hex,
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        verify_sha256(&url, b"abc", &hex, "index").unwrap();
        verify_sha256(
            &url,
            b"abc",
            &format!("sha256:{}", hex.to_uppercase()),
            "index",
        )
        .unwrap();
        let err = verify_sha256(&url, b"abd", &hex, "repository index").unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains(&hex) && text.contains("expected sha256:"),
            "{text}"
        );
        assert!(text.contains(&sha256_hex(b"abd")), "{text}");
    }

    #[test]
    fn half_a_client_certificate_is_refused() {
        let tls = TlsSettings {
            cert_file: Some("/nonexistent/cert.pem".into()),
            ..TlsSettings::default()
        };
        let err = Http::new(&tls, Duration::from_secs(1)).unwrap_err();
        assert!(
            err.to_string().contains("both certFile and keyFile"),
            "{err}"
        );
    }
}
