//! Requests whose answer matters beyond its body: the media type of discovery answers, the
//! `201 Created` of an apply. Error answers become [`kube::Error::Api`], as kube's own
//! requests report them.

use http::{HeaderMap, StatusCode};
use kube::Client;
use kube::client::Body;

/// A successful answer: its status, headers and body.
pub struct Answer {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Vec<u8>,
}

pub async fn send(client: &Client, request: http::Request<Vec<u8>>) -> Result<Answer, kube::Error> {
    let response = client.send(request.map(Body::from)).await?;
    let status = response.status();
    let headers = response.headers().clone();
    let body = response.into_body().collect_bytes().await?.to_vec();
    if status.is_client_error() || status.is_server_error() {
        // Proxies answer errors in plain text or HTML; keep their words.
        let mut failure =
            serde_json::from_slice::<kube::core::Status>(&body).unwrap_or_else(|_| {
                kube::core::Status::failure(String::from_utf8_lossy(&body).trim(), "")
            });
        failure.code = status.as_u16();
        return Err(kube::Error::Api(Box::new(failure)));
    }
    Ok(Answer {
        status,
        headers,
        body,
    })
}
