//! The registry harness itself works: it starts, answers the distribution API, and stops.

mod support;

#[test]
fn registry_starts_answers_and_stops() {
    let registry = support::registry::Registry::start();
    let pid = registry.pid();
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", registry.port())).unwrap();
    use std::io::{Read, Write};
    write!(
        stream,
        "GET /v2/ HTTP/1.0\r\nHost: {}\r\n\r\n",
        registry.host()
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    assert!(
        response.starts_with("HTTP/1.0 200") || response.starts_with("HTTP/1.1 200"),
        "{response}\n{}",
        registry.log()
    );
    drop(registry);
    assert!(
        !std::path::Path::new(&format!("/proc/{pid}")).exists()
            || std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .map(|s| s.contains(") Z "))
                .unwrap_or(true)
    );
}
