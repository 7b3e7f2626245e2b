//! Reading an image back from a registry over the distribution HTTP API (plain HTTP/1.0 on
//! 127.0.0.1, so no client library is involved): manifest, then config blob, then labels.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::TcpStream;

/// An HTTP response: status code and body.
pub struct Response {
    pub status: u16,
    pub body: Vec<u8>,
}

/// `GET path` on `host` (`127.0.0.1:PORT`) with an optional Accept header.
pub fn get(host: &str, path: &str, accept: &str) -> Response {
    let mut stream = TcpStream::connect(host).unwrap_or_else(|e| panic!("connect {host}: {e}"));
    write!(
        stream,
        "GET {path} HTTP/1.0\r\nHost: {host}\r\nAccept: {accept}\r\n\r\n"
    )
    .unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).unwrap();
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("an HTTP header");
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status in {head}"));
    Response {
        status,
        body: raw[split + 4..].to_vec(),
    }
}

/// The manifest JSON of `repository:tag`, in whichever of the two formats the registry holds.
pub fn manifest(host: &str, repository: &str, tag: &str) -> serde_json::Value {
    let response = get(
        host,
        &format!("/v2/{repository}/manifests/{tag}"),
        "application/vnd.oci.image.manifest.v1+json, application/vnd.docker.distribution.manifest.v2+json",
    );
    assert_eq!(
        response.status,
        200,
        "manifest of {repository}:{tag}: {}",
        String::from_utf8_lossy(&response.body)
    );
    serde_json::from_slice(&response.body).unwrap()
}

/// The image configuration blob of `repository:tag`.
pub fn config(host: &str, repository: &str, tag: &str) -> serde_json::Value {
    let manifest = manifest(host, repository, tag);
    let digest = manifest["config"]["digest"]
        .as_str()
        .unwrap_or_else(|| panic!("no config digest in {manifest}"));
    let response = get(host, &format!("/v2/{repository}/blobs/{digest}"), "*/*");
    assert_eq!(response.status, 200, "config blob {digest}");
    serde_json::from_slice(&response.body).unwrap()
}

/// The labels of `repository:tag` as the registry stores them.
pub fn labels(host: &str, repository: &str, tag: &str) -> BTreeMap<String, String> {
    let config = config(host, repository, tag);
    config["config"]["Labels"]
        .as_object()
        .map(|labels| {
            labels
                .iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                .collect()
        })
        .unwrap_or_default()
}
