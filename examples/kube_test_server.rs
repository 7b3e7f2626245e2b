//! The Kubernetes API test server of `tests/support` as a process, for the benchmark script
//! and for poking at by hand: `kube_test_server KUBECONFIG_PATH` writes a kubeconfig for it
//! there, then serves until killed. `GET /_test/stats` and `POST /_test/reset` count requests.

#[path = "../tests/support/kube_server/mod.rs"]
#[allow(dead_code)]
mod kube_server;

fn main() {
    let Some(path) = std::env::args_os().nth(1) else {
        eprintln!("usage: kube_test_server KUBECONFIG_PATH");
        std::process::exit(2);
    };
    let server = kube_server::KubeServer::start();
    // Written under another name and renamed, so a script waiting for the file never reads
    // half of it.
    let path = std::path::PathBuf::from(path);
    let partial = path.with_extension("partial");
    std::fs::copy(server.kubeconfig(), &partial).expect("the kubeconfig can be written");
    std::fs::rename(&partial, &path).expect("the kubeconfig can be moved into place");
    println!("serving {} (kubeconfig {})", server.url(), path.display());
    loop {
        std::thread::park();
    }
}
