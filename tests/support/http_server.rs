//! A small HTTP/1.1 server on a free 127.0.0.1 port for tests: each test gives it a handler
//! (request -> response), optionally TLS through rustls. One thread per connection, every
//! response closes its connection. Stopped (and its threads told to finish) on drop.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

#[derive(Debug, Clone)]
pub struct Request {
    pub method: String,
    /// Path and query, as sent.
    pub path: String,
    /// Header names in lower case.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Request {
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The path without its query.
    pub fn route(&self) -> &str {
        self.path.split('?').next().unwrap_or(&self.path)
    }

    /// `(user, password)` from a basic `Authorization` header.
    pub fn basic_auth(&self) -> Option<(String, String)> {
        use base64::Engine as _;
        let value = self.header("authorization")?.strip_prefix("Basic ")?;
        let decoded = base64::engine::general_purpose::STANDARD
            .decode(value.trim())
            .ok()?;
        let text = String::from_utf8(decoded).ok()?;
        let (user, password) = text.split_once(':')?;
        Some((user.to_string(), password.to_string()))
    }
}

/// What the server does with a request.
#[derive(Debug, Clone)]
pub enum Mode {
    Normal,
    /// Read the request, then never answer (until the server stops).
    Hang,
    /// Announce the full length, send half the body, close.
    Truncate,
}

#[derive(Debug, Clone)]
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    pub mode: Mode,
}

impl Response {
    pub fn new(status: u16, body: impl Into<Vec<u8>>) -> Response {
        Response {
            status,
            headers: Vec::new(),
            body: body.into(),
            mode: Mode::Normal,
        }
    }

    pub fn ok(body: impl Into<Vec<u8>>) -> Response {
        Response::new(200, body)
    }

    pub fn not_found() -> Response {
        Response::new(404, "not found\n")
    }

    pub fn header(mut self, name: &str, value: &str) -> Response {
        self.headers.push((name.to_string(), value.to_string()));
        self
    }

    pub fn mode(mut self, mode: Mode) -> Response {
        self.mode = mode;
        self
    }
}

pub type Handler = Arc<dyn Fn(&Request) -> Response + Send + Sync>;

pub struct HttpServer {
    port: u16,
    stop: Arc<AtomicBool>,
    accept: Option<JoinHandle<()>>,
    log: Arc<Mutex<Vec<Request>>>,
    tls: bool,
}

impl HttpServer {
    pub fn start(handler: impl Fn(&Request) -> Response + Send + Sync + 'static) -> HttpServer {
        HttpServer::start_inner(Arc::new(handler), None)
    }

    pub fn start_tls(
        handler: impl Fn(&Request) -> Response + Send + Sync + 'static,
        config: Arc<rustls::ServerConfig>,
    ) -> HttpServer {
        HttpServer::start_inner(Arc::new(handler), Some(config))
    }

    fn start_inner(handler: Handler, tls: Option<Arc<rustls::ServerConfig>>) -> HttpServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let port = listener.local_addr().expect("local address").port();
        let stop = Arc::new(AtomicBool::new(false));
        let log = Arc::new(Mutex::new(Vec::new()));
        let is_tls = tls.is_some();
        let accept = {
            let stop = stop.clone();
            let log = log.clone();
            std::thread::spawn(move || {
                for stream in listener.incoming() {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(stream) = stream else { continue };
                    let handler = handler.clone();
                    let stop = stop.clone();
                    let log = log.clone();
                    let tls = tls.clone();
                    std::thread::spawn(move || {
                        let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
                        match tls {
                            None => serve(stream, &handler, &stop, &log),
                            Some(config) => {
                                let Ok(connection) = rustls::ServerConnection::new(config) else {
                                    return;
                                };
                                let stream = rustls::StreamOwned::new(connection, stream);
                                serve(stream, &handler, &stop, &log);
                            }
                        }
                    });
                }
            })
        };
        HttpServer {
            port,
            stop,
            accept: Some(accept),
            log,
            tls: is_tls,
        }
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// `http://127.0.0.1:PORT` (or https).
    pub fn url(&self) -> String {
        let scheme = if self.tls { "https" } else { "http" };
        format!("{scheme}://127.0.0.1:{}", self.port)
    }

    /// Every request received so far.
    pub fn requests(&self) -> Vec<Request> {
        self.log.lock().unwrap().clone()
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop so it sees the flag.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
        if let Some(accept) = self.accept.take() {
            let _ = accept.join();
        }
    }
}

fn serve<S: Read + Write>(
    stream: S,
    handler: &Handler,
    stop: &AtomicBool,
    log: &Mutex<Vec<Request>>,
) {
    let mut reader = BufReader::new(stream);
    let Some(request) = read_request(&mut reader) else {
        return;
    };
    log.lock().unwrap().push(request.clone());
    let response = handler(&request);
    let mut stream = reader.into_inner();
    match response.mode {
        Mode::Hang => {
            while !stop.load(Ordering::SeqCst) {
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        Mode::Normal | Mode::Truncate => {
            let mut head = format!(
                "HTTP/1.1 {} {}\r\nContent-Length: {}\r\nConnection: close\r\n",
                response.status,
                reason(response.status),
                response.body.len()
            );
            for (name, value) in &response.headers {
                head.push_str(&format!("{name}: {value}\r\n"));
            }
            head.push_str("\r\n");
            let body = match response.mode {
                Mode::Truncate => &response.body[..response.body.len() / 2],
                _ => &response.body[..],
            };
            let _ = stream.write_all(head.as_bytes());
            if request.method != "HEAD" {
                let _ = stream.write_all(body);
            }
            let _ = stream.flush();
        }
    }
}

fn read_request<R: BufRead>(reader: &mut R) -> Option<Request> {
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let mut parts = line.split_whitespace();
    let method = parts.next()?.to_string();
    let path = parts.next()?.to_string();
    let mut headers = Vec::new();
    loop {
        let mut header = String::new();
        reader.read_line(&mut header).ok()?;
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
        }
    }
    let length: usize = headers
        .iter()
        .find(|(k, _)| k == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some(Request {
        method,
        path,
        headers,
        body,
    })
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        201 => "Created",
        202 => "Accepted",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        _ => "Status",
    }
}

/// Serves the files under `root`, optionally only to a basic-auth user.
pub fn static_files(
    root: std::path::PathBuf,
    credentials: Option<(&str, &str)>,
) -> impl Fn(&Request) -> Response + Send + Sync + 'static {
    let credentials = credentials.map(|(u, p)| (u.to_string(), p.to_string()));
    move |request: &Request| {
        if let Some(wanted) = &credentials
            && request.basic_auth().as_ref() != Some(wanted)
        {
            return Response::new(401, "unauthorized\n")
                .header("WWW-Authenticate", "Basic realm=\"charts\"");
        }
        let relative = request.route().trim_start_matches('/');
        if relative.split('/').any(|part| part == "..") {
            return Response::not_found();
        }
        match std::fs::read(root.join(relative)) {
            Ok(bytes) => Response::ok(bytes),
            Err(_) => Response::not_found(),
        }
    }
}
