//! A throw-away certificate authority for TLS tests, made with the `openssl` command: a CA, a
//! server certificate for 127.0.0.1 and a client certificate, all in a temporary directory.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};

pub struct TestCa {
    dir: tempfile::TempDir,
}

impl TestCa {
    pub fn new() -> TestCa {
        if super::registry::which("openssl").is_none() {
            panic!(
                "openssl is not installed: `apt-get install openssl` (scripts/test.sh does this)"
            );
        }
        let dir = tempfile::tempdir().expect("temporary directory for certificates");
        let d = dir.path();
        openssl(
            d,
            &[
                "req",
                "-x509",
                "-newkey",
                "ec",
                "-pkeyopt",
                "ec_paramgen_curve:prime256v1",
                "-nodes",
                "-keyout",
                "ca.key",
                "-out",
                "ca.pem",
                "-days",
                "3650",
                "-subj",
                "/CN=operator-rs test CA",
                "-addext",
                "basicConstraints=critical,CA:TRUE",
                "-addext",
                "keyUsage=critical,keyCertSign,cRLSign",
            ],
        );
        for (name, usage, san) in [
            ("server", "serverAuth", "subjectAltName=IP:127.0.0.1"),
            ("client", "clientAuth", "subjectAltName=DNS:client.test"),
        ] {
            std::fs::write(
                d.join(format!("{name}.ext")),
                format!(
                    "{san}\nbasicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage={usage}\n"
                ),
            )
            .unwrap();
            openssl(
                d,
                &[
                    "req",
                    "-newkey",
                    "ec",
                    "-pkeyopt",
                    "ec_paramgen_curve:prime256v1",
                    "-nodes",
                    "-keyout",
                    &format!("{name}.key"),
                    "-out",
                    &format!("{name}.csr"),
                    "-subj",
                    &format!("/CN={name}"),
                ],
            );
            openssl(
                d,
                &[
                    "x509",
                    "-req",
                    "-in",
                    &format!("{name}.csr"),
                    "-CA",
                    "ca.pem",
                    "-CAkey",
                    "ca.key",
                    "-CAcreateserial",
                    "-out",
                    &format!("{name}.pem"),
                    "-days",
                    "3650",
                    "-extfile",
                    &format!("{name}.ext"),
                ],
            );
        }
        TestCa { dir }
    }

    pub fn path(&self, file: &str) -> PathBuf {
        self.dir.path().join(file)
    }

    /// A server config for 127.0.0.1, requiring a client certificate from this CA when asked.
    pub fn server_config(&self, require_client_cert: bool) -> Arc<rustls::ServerConfig> {
        let certs: Vec<CertificateDer<'static>> =
            CertificateDer::pem_file_iter(self.path("server.pem"))
                .unwrap()
                .map(|c| c.unwrap())
                .collect();
        let key = PrivateKeyDer::from_pem_file(self.path("server.key")).unwrap();
        let builder = rustls::ServerConfig::builder();
        let config = if require_client_cert {
            let mut roots = rustls::RootCertStore::empty();
            for ca in CertificateDer::pem_file_iter(self.path("ca.pem")).unwrap() {
                roots.add(ca.unwrap()).unwrap();
            }
            let verifier = rustls::server::WebPkiClientVerifier::builder(Arc::new(roots))
                .build()
                .unwrap();
            builder
                .with_client_cert_verifier(verifier)
                .with_single_cert(certs, key)
                .unwrap()
        } else {
            builder
                .with_no_client_auth()
                .with_single_cert(certs, key)
                .unwrap()
        };
        Arc::new(config)
    }
}

fn openssl(dir: &Path, args: &[&str]) {
    let output = Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run openssl");
    assert!(
        output.status.success(),
        "openssl {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&output.stderr)
    );
}
