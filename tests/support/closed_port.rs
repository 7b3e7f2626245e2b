//! A port on 127.0.0.1 that refuses connections for as long as the test holds it.
//!
//! A port found free and let go can be bound by a parallel test (or a server it starts) before
//! the test connects to it: the test then meets that server instead of a refusal. A socket bound
//! without listening keeps the port to itself, and the kernel refuses every connection to it.

use socket2::{Domain, Socket, Type};

pub struct ClosedPort {
    _socket: Socket,
    port: u16,
}

impl ClosedPort {
    pub fn new() -> ClosedPort {
        let socket = Socket::new(Domain::IPV4, Type::STREAM, None).expect("a TCP socket");
        let any_port = std::net::SocketAddr::from(([127, 0, 0, 1], 0));
        socket.bind(&any_port.into()).expect("bind 127.0.0.1:0");
        let port = socket
            .local_addr()
            .ok()
            .and_then(|a| a.as_socket())
            .expect("the bound address")
            .port();
        ClosedPort {
            _socket: socket,
            port,
        }
    }

    pub fn port(&self) -> u16 {
        self.port
    }
}
