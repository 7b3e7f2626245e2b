//! The runtime's own HTTP endpoints (health probes, metrics): a few GET paths answered with
//! plain text over HTTP/1.1, one request per connection. Kubelet and Prometheus need no more,
//! so a few lines over tokio's TCP do instead of a web framework.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// A request's head is a request line and a few headers; anything longer is not for us.
const MAX_HEAD: usize = 8 * 1024;
/// A client that sends no complete request head in this time loses its connection, so idle
/// connections cannot pile up.
const READ_TIMEOUT: Duration = Duration::from_secs(10);

/// What one path answers.
#[derive(Debug, Clone, PartialEq)]
pub struct Response {
    pub status: &'static str,
    pub content_type: &'static str,
    pub body: String,
}

impl Response {
    pub fn ok(content_type: &'static str, body: String) -> Response {
        Response {
            status: "200 OK",
            content_type,
            body,
        }
    }

    fn text(status: &'static str, body: &str) -> Response {
        Response {
            status,
            content_type: "text/plain; charset=utf-8",
            body: body.to_string(),
        }
    }
}

/// Answers a request's path (without its query), or `None` for a path it does not serve.
pub type Routes = Arc<dyn Fn(&str) -> Option<Response> + Send + Sync>;

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

/// Binds an endpoint; serving starts with [`serve`].
pub async fn bind(address: SocketAddr) -> std::io::Result<TcpListener> {
    TcpListener::bind(address).await
}

/// Answers requests with `routes` until the task is dropped.
pub async fn serve(listener: TcpListener, routes: Routes) {
    loop {
        match listener.accept().await {
            Ok((stream, _)) => {
                tokio::spawn(answer(stream, routes.clone()));
            }
            // Out of file descriptors, or a connection reset before it was accepted: the
            // listener itself still works, so wait a moment instead of spinning or stopping.
            Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
        }
    }
}

async fn answer(mut stream: TcpStream, routes: Routes) {
    let Ok(Some(head)) = tokio::time::timeout(READ_TIMEOUT, read_head(&mut stream)).await else {
        return;
    };
    let mut words = head.split_whitespace();
    let method = words.next().unwrap_or("");
    let target = words.next().unwrap_or("");
    let path = target.split('?').next().unwrap_or("");
    let response = match method {
        "GET" | "HEAD" => {
            routes(path).unwrap_or_else(|| Response::text("404 Not Found", "404 page not found\n"))
        }
        _ => Response::text("405 Method Not Allowed", "only GET and HEAD are served\n"),
    };
    let mut bytes = format!(
        "HTTP/1.1 {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        response.status,
        response.content_type,
        response.body.len()
    )
    .into_bytes();
    if method != "HEAD" {
        bytes.extend_from_slice(response.body.as_bytes());
    }
    let _ = stream.write_all(&bytes).await;
    let _ = stream.shutdown().await;
}

/// Reads up to the end of the request's head; `None` if the client stopped first or sent
/// more than [`MAX_HEAD`] without ending it.
async fn read_head(stream: &mut TcpStream) -> Option<String> {
    let mut head = Vec::with_capacity(512);
    let mut chunk = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        let read = stream.read(&mut chunk).await.ok()?;
        if read == 0 || head.len() + read > MAX_HEAD {
            return None;
        }
        head.extend_from_slice(&chunk[..read]);
    }
    Some(String::from_utf8_lossy(&head).into_owned())
}

#[cfg(test)]
pub(crate) mod tests {
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

    /// Sends `request` to `address` and returns the whole response.
    pub(crate) async fn exchange(address: SocketAddr, request: &str) -> String {
        let mut stream = TcpStream::connect(address).await.unwrap();
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).await.unwrap();
        response
    }

    #[tokio::test]
    async fn routes_answer_their_paths_and_nothing_else() {
        let listener = bind("127.0.0.1:0".parse().unwrap()).await.unwrap();
        let address = listener.local_addr().unwrap();
        let routes: Routes =
            Arc::new(|path| (path == "/here").then(|| Response::ok("text/plain", "hello".into())));
        let server = tokio::spawn(serve(listener, routes));
        let get = exchange(address, "GET /here?x=1 HTTP/1.1\r\nHost: x\r\n\r\n").await;
        assert!(get.starts_with("HTTP/1.1 200 OK\r\n"), "{get}");
        assert!(get.ends_with("\r\n\r\nhello"), "{get}");
        assert!(get.contains("Content-Length: 5\r\n"), "{get}");
        let head = exchange(address, "HEAD /here HTTP/1.1\r\n\r\n").await;
        assert!(
            head.ends_with("Content-Length: 5\r\nConnection: close\r\n\r\n"),
            "{head}"
        );
        let missing = exchange(address, "GET /there HTTP/1.1\r\n\r\n").await;
        assert!(missing.starts_with("HTTP/1.1 404"), "{missing}");
        let post = exchange(address, "POST /here HTTP/1.1\r\n\r\n").await;
        assert!(post.starts_with("HTTP/1.1 405"), "{post}");
        // A head split across writes is read whole.
        let mut stream = TcpStream::connect(address).await.unwrap();
        stream.write_all(b"GET /here HTTP/1.1\r\n").await.unwrap();
        stream.flush().await.unwrap();
        tokio::time::sleep(Duration::from_millis(20)).await;
        stream.write_all(b"Host: x\r\n\r\n").await.unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).await.unwrap();
        assert!(response.starts_with("HTTP/1.1 200"), "{response}");
        server.abort();
    }
}
