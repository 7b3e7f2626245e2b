//! A certificate authority made on the spot and a serving certificate it signs: what
//! `operator-rs run` gives the operator's webhook server, so that the API server can call it
//! over verified TLS with nothing else installed. Keys are ECDSA P-256, made and signed by
//! rcgen with ring; rcgen installs no rustls crypto provider, so ring's stays the only one.

use std::path::Path;
use std::time::Duration;

use base64::Engine;
use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
    KeyUsagePurpose,
};
use thiserror::Error;

/// The file names of the contract with the operator: a Kubernetes TLS Secret's keys, and
/// cert-manager's name for the CA.
pub const CERT_FILE: &str = "tls.crt";
pub const KEY_FILE: &str = "tls.key";
pub const CA_FILE: &str = "ca.crt";

/// A CA and a certificate it signed, all PEM.
#[derive(Clone)]
pub struct ServingCertificate {
    pub ca_pem: String,
    pub cert_pem: String,
    pub key_pem: String,
}

impl std::fmt::Debug for ServingCertificate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The private key stays out of logs and panics.
        f.debug_struct("ServingCertificate")
            .field("ca_pem", &self.ca_pem)
            .field("cert_pem", &self.cert_pem)
            .finish_non_exhaustive()
    }
}

#[derive(Debug, Error)]
pub enum CertError {
    #[error("\"{0}\" is neither an IP address nor a DNS name a certificate can hold")]
    Name(String),
    #[error("cannot make the certificate: {0}")]
    Make(#[from] rcgen::Error),
    #[error("cannot write {0}: {1}")]
    Write(std::path::PathBuf, std::io::Error),
}

/// A new CA, and a serving certificate it signs for `names` (IP addresses or DNS names),
/// both valid from an hour ago (clocks differ) for `validity`.
pub fn issue(names: &[String], validity: Duration) -> Result<ServingCertificate, CertError> {
    let not_before = time::OffsetDateTime::now_utc() - time::Duration::hours(1);
    let not_after = not_before + time::Duration::hours(1) + validity;

    let mut ca_params = CertificateParams::new(Vec::<String>::new())?;
    ca_params
        .distinguished_name
        .push(DnType::CommonName, "operator-rs run local CA");
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
    ca_params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    ca_params.not_before = not_before;
    ca_params.not_after = not_after;
    let ca_key = KeyPair::generate()?;
    let ca = ca_params.self_signed(&ca_key)?;

    if let Some(bad) = names.iter().find(|n| !is_certificate_name(n)) {
        return Err(CertError::Name(bad.clone()));
    }
    let mut params = CertificateParams::new(names.to_vec())?;
    if let Some(first) = names.first() {
        params
            .distinguished_name
            .push(DnType::CommonName, first.clone());
    }
    params.key_usages = vec![KeyUsagePurpose::DigitalSignature];
    params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    params.not_before = not_before;
    params.not_after = not_after;
    let key = KeyPair::generate()?;
    let issuer = Issuer::new(ca_params, ca_key);
    let cert = params.signed_by(&key, &issuer)?;
    Ok(ServingCertificate {
        ca_pem: ca.pem(),
        cert_pem: cert.pem(),
        key_pem: key.serialize_pem(),
    })
}

/// An IP address, or a DNS name of letters, digits and inner hyphens between dots.
pub fn is_certificate_name(name: &str) -> bool {
    if name.parse::<std::net::IpAddr>().is_ok() {
        return true;
    }
    name.len() <= 253
        && name.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-')
        })
}

impl ServingCertificate {
    /// The CA as webhook configurations and CRDs hold it in `caBundle`: base64 of the PEM.
    pub fn ca_bundle(&self) -> String {
        base64::engine::general_purpose::STANDARD.encode(&self.ca_pem)
    }

    /// Writes `tls.crt`, `tls.key` and `ca.crt` into `dir`, each readable by its owner only
    /// (the way a temporary file is made).
    pub fn write_to(&self, dir: &Path) -> Result<(), CertError> {
        for (file, text) in [
            (CERT_FILE, &self.cert_pem),
            (KEY_FILE, &self.key_pem),
            (CA_FILE, &self.ca_pem),
        ] {
            let path = dir.join(file);
            crate::fsutil::write_atomic(&path, text.as_bytes())
                .map_err(|e| CertError::Write(path, e))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_certificate_names_what_it_was_asked_for_and_its_ca_signs_it() {
        let names = vec!["127.0.0.1".to_string(), "webhooks.example.test".to_string()];
        let issued = issue(&names, Duration::from_secs(3600)).unwrap();
        assert!(issued.ca_pem.starts_with("-----BEGIN CERTIFICATE-----"));
        assert!(issued.key_pem.contains("PRIVATE KEY"));
        assert!(!format!("{issued:?}").contains("PRIVATE KEY"));

        // rustls, which the API server's role is played by in tests, accepts the pair for
        // both names and refuses another.
        use rustls::client::danger::ServerCertVerifier;
        use rustls::pki_types::pem::PemObject;
        use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
        let mut roots = rustls::RootCertStore::empty();
        roots
            .add(CertificateDer::from_pem_slice(issued.ca_pem.as_bytes()).unwrap())
            .unwrap();
        let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
        let verifier =
            rustls::client::WebPkiServerVerifier::builder_with_provider(roots.into(), provider)
                .build()
                .unwrap();
        let leaf = CertificateDer::from_pem_slice(issued.cert_pem.as_bytes()).unwrap();
        let now = UnixTime::now();
        for name in &names {
            let server = ServerName::try_from(name.as_str()).unwrap();
            verifier
                .verify_server_cert(&leaf, &[], &server, &[], now)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
        }
        let other = ServerName::try_from("other.example.test").unwrap();
        assert!(
            verifier
                .verify_server_cert(&leaf, &[], &other, &[], now)
                .is_err()
        );
    }

    #[test]
    fn files_follow_the_tls_secret_names_and_the_key_is_private() {
        use std::os::unix::fs::PermissionsExt;
        let issued = issue(&["127.0.0.1".into()], Duration::from_secs(60)).unwrap();
        let dir = tempfile::tempdir().unwrap();
        issued.write_to(dir.path()).unwrap();
        for file in [CERT_FILE, KEY_FILE, CA_FILE] {
            assert!(dir.path().join(file).is_file(), "{file}");
        }
        let mode = std::fs::metadata(dir.path().join(KEY_FILE))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o077, 0, "{mode:o}");
    }

    #[test]
    fn a_name_no_certificate_can_hold_is_refused() {
        let err = issue(&["not a name".into()], Duration::from_secs(60)).unwrap_err();
        assert!(err.to_string().contains("not a name"), "{err}");
    }
}
