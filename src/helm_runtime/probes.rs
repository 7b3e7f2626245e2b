//! `/healthz` and `/readyz`, the endpoints the Deployment's liveness and readiness probes ask
//! (the helm-operator's `--health-probe-bind-address`, `:8081` by default). Both answer `ok`
//! while the runtime runs: kubelet only needs the status code, so a few lines of HTTP/1.1
//! do instead of a web framework.

use std::net::SocketAddr;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// Go's `host:port` with an empty host meaning every interface (`:8081`), or `0` to disable
/// the endpoint, as controller-runtime reads it.
pub fn parse_address(text: &str) -> Result<Option<SocketAddr>, String> {
    if text == "0" {
        return Ok(None);
    }
    let full = match text.strip_prefix(':') {
        Some(port) => format!("0.0.0.0:{port}"),
        None => text.to_string(),
    };
    full.parse().map(Some).map_err(|_| {
        format!("\"{text}\" is not an address to listen on: write HOST:PORT or :PORT (for example :8081 or 127.0.0.1:8081), or 0 to disable it")
    })
}

/// Binds the endpoint; serving starts with [`serve`].
pub async fn bind(address: SocketAddr) -> std::io::Result<TcpListener> {
    TcpListener::bind(address).await
}

/// Answers probes until the task is dropped.
pub async fn serve(listener: TcpListener) {
    while let Ok((stream, _)) = listener.accept().await {
        tokio::spawn(answer(stream));
    }
}

async fn answer(mut stream: TcpStream) {
    let mut request = [0u8; 1024];
    let Ok(read) = stream.read(&mut request).await else {
        return;
    };
    let line = String::from_utf8_lossy(&request[..read]);
    let path = line.split_whitespace().nth(1).unwrap_or("");
    let (status, body) = match path.split('?').next() {
        Some("/healthz" | "/readyz") => ("200 OK", "ok"),
        _ => ("404 Not Found", "404 page not found\n"),
    };
    let response = format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = stream.write_all(response.as_bytes()).await;
    let _ = stream.shutdown().await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_as_controller_runtime_reads_them() {
        assert_eq!(
            parse_address(":8081").unwrap(),
            Some("0.0.0.0:8081".parse().unwrap())
        );
        assert_eq!(
            parse_address("127.0.0.1:9").unwrap(),
            Some("127.0.0.1:9".parse().unwrap())
        );
        assert_eq!(parse_address("0").unwrap(), None);
        assert!(
            parse_address("localhost")
                .unwrap_err()
                .contains("HOST:PORT")
        );
    }

    #[tokio::test]
    async fn answers_ok_on_both_paths() {
        let listener = bind("127.0.0.1:0".parse().unwrap()).await.unwrap();
        let address = listener.local_addr().unwrap();
        let server = tokio::spawn(serve(listener));
        for (path, expected) in [("/healthz", "200 OK"), ("/readyz", "200 OK"), ("/x", "404")] {
            let mut stream = TcpStream::connect(address).await.unwrap();
            stream
                .write_all(format!("GET {path} HTTP/1.1\r\nHost: x\r\n\r\n").as_bytes())
                .await
                .unwrap();
            let mut response = String::new();
            stream.read_to_string(&mut response).await.unwrap();
            assert!(
                response.starts_with(&format!("HTTP/1.1 {expected}")),
                "{response}"
            );
        }
        server.abort();
    }
}
