//! `/healthz` and `/readyz`, the endpoints the Deployment's liveness and readiness probes ask
//! (the helm-operator's `--health-probe-bind-address`, `:8081` by default). Both answer `ok`
//! while the runtime runs: kubelet only needs the status code.

use std::sync::Arc;

use super::http::{Response, Routes};

/// The probe paths, for [`super::http::serve`].
pub fn routes() -> Routes {
    Arc::new(|path| {
        matches!(path, "/healthz" | "/readyz")
            .then(|| Response::ok("text/plain; charset=utf-8", "ok".to_string()))
    })
}

#[cfg(test)]
mod tests {
    use super::super::http::{bind, serve, tests::exchange};
    use super::*;

    #[tokio::test]
    async fn answers_ok_on_both_paths() {
        let listener = bind("127.0.0.1:0".parse().unwrap()).await.unwrap();
        let address = listener.local_addr().unwrap();
        let server = tokio::spawn(serve(listener, routes()));
        for (path, expected) in [("/healthz", "200 OK"), ("/readyz", "200 OK"), ("/x", "404")] {
            let response =
                exchange(address, &format!("GET {path} HTTP/1.1\r\nHost: x\r\n\r\n")).await;
            assert!(
                response.starts_with(&format!("HTTP/1.1 {expected}")),
                "{response}"
            );
        }
        server.abort();
    }
}
