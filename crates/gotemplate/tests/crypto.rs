//! Sprig's key and certificate functions, checked by an X.509 implementation that is not ours:
//! the `openssl` command, which the tests need (scripts/setup-test-tools.sh installs it): a
//! missing judge fails them rather than letting them pass unchecked.

use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

use gotemplate::{Value, render};

fn run(template: &str) -> String {
    render("t", template, &Value::Nil).unwrap_or_else(|e| panic!("{template}: {e}"))
}

fn require_openssl() {
    let found = Command::new("openssl")
        .arg("version")
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        found,
        "the openssl command is required on PATH: it judges the generated certificates"
    );
}

/// `openssl ARGS` with `input` on stdin; its stdout, or a panic with its stderr.
fn openssl_with(args: &[&str], input: &str) -> String {
    let mut child = Command::new("openssl")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "openssl {args:?}: {}\n{input}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn text_of(cert: &str) -> String {
    openssl_with(&["x509", "-noout", "-text"], cert)
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

/// `.Cert` and `.Key` of a certificate made by `expr`, separated for splitting.
fn cert_and_key(setup: &str, expr: &str) -> (String, String) {
    let out = run(&format!(
        "{setup}{{{{ $c := {expr} }}}}{{{{ $c.Cert }}}}@@{{{{ $c.Key }}}}"
    ));
    let (cert, key) = out.split_once("@@").unwrap();
    (cert.to_string(), key.to_string())
}

#[test]
fn a_ca_and_a_certificate_it_signs_verify() {
    require_openssl();
    let dir = tempdir();
    let out = run(concat!(
        r#"{{ $ca := genCA "my-ca" 365 }}"#,
        r#"{{ $c := genSignedCert "srv" (list "10.0.0.1" "::1") (list "a.example" "b.example") 30 $ca }}"#,
        r#"{{ $ca.Cert }}@@{{ $ca.Key }}@@{{ $c.Cert }}@@{{ $c.Key }}"#
    ));
    let parts: Vec<&str> = out.split("@@").collect();
    let [ca, ca_key, cert, key] = parts[..] else {
        panic!("{out}")
    };
    assert!(ca_key.starts_with("-----BEGIN RSA PRIVATE KEY-----\n"));
    assert!(key.starts_with("-----BEGIN RSA PRIVATE KEY-----\n"));

    let ca_text = text_of(ca);
    for want in [
        "Version: 3 (0x2)",
        "Signature Algorithm: sha256WithRSAEncryption",
        "Issuer: CN = my-ca",
        "Subject: CN = my-ca",
        "Public-Key: (2048 bit)",
        "Exponent: 65537 (0x10001)",
        "X509v3 Key Usage: critical",
        "Digital Signature, Key Encipherment, Certificate Sign",
        "TLS Web Server Authentication, TLS Web Client Authentication",
        "X509v3 Basic Constraints: critical",
        "CA:TRUE",
        "X509v3 Subject Key Identifier",
    ] {
        assert!(ca_text.contains(want), "{want} not in\n{ca_text}");
    }
    let cert_text = text_of(cert);
    for want in [
        "Issuer: CN = my-ca",
        "Subject: CN = srv",
        "CA:FALSE",
        "X509v3 Authority Key Identifier",
        "DNS:a.example, DNS:b.example, IP Address:10.0.0.1, IP Address:0:0:0:0:0:0:0:1",
    ] {
        assert!(cert_text.contains(want), "{want} not in\n{cert_text}");
    }
    assert!(!cert_text.contains("Certificate Sign"));

    // The validity is the days asked for, from now.
    let dates = openssl_with(&["x509", "-noout", "-startdate", "-enddate"], cert);
    let year = |line: &str| -> i64 {
        let l = dates.lines().find(|l| l.starts_with(line)).unwrap();
        l.split_whitespace().nth(3).unwrap().parse().unwrap()
    };
    assert!(year("notAfter") - year("notBefore") <= 1);

    let ca_path = write(dir.path(), "ca.pem", ca);
    let cert_path = write(dir.path(), "cert.pem", cert);
    let verified = openssl_with(&["verify", "-CAfile", &ca_path, &cert_path], "");
    assert!(verified.contains(": OK"), "{verified}");

    // The key is the certificate's.
    let from_cert = openssl_with(&["x509", "-noout", "-pubkey"], cert);
    let from_key = openssl_with(&["pkey", "-pubout"], key);
    assert_eq!(from_cert, from_key);
}

#[test]
fn self_signed_certificates_and_keys_of_every_kind() {
    require_openssl();
    let dir = tempdir();
    for (kind, block, algorithm) in [
        ("ecdsa", "EC PRIVATE KEY", "ecdsa-with-SHA256"),
        ("ed25519", "PRIVATE KEY", "ED25519"),
    ] {
        let setup = format!(r#"{{{{ $k := genPrivateKey "{kind}" }}}}"#);
        let (cert, key) = cert_and_key(
            &setup,
            r#"genSelfSignedCertWithKey "self" nil (list "*.x") 10 $k"#,
        );
        assert!(
            key.starts_with(&format!("-----BEGIN {block}-----\n")),
            "{key}"
        );
        let text = text_of(&cert);
        assert!(
            text.contains(&format!("Signature Algorithm: {algorithm}")),
            "{text}"
        );
        assert!(
            text.contains("DNS:*.x") && text.contains("CA:FALSE"),
            "{text}"
        );
        assert!(!text.contains("Subject Key Identifier"), "{text}");
        let path = write(dir.path(), "self.pem", &cert);
        let verified = openssl_with(&["verify", "-CAfile", &path, &path], "");
        assert!(verified.contains(": OK"), "{verified}");
        openssl_with(&["pkey", "-check", "-noout"], &key);

        // A CA of that kind signs an RSA certificate; a CA made again from the same key and
        // name (same subject, same key id) verifies it. One render: each makes a new key.
        let out = run(&format!(
            r#"{setup}{{{{ $ca := genCAWithKey "kind-ca" 5 $k }}}}{{{{ (genSignedCert "leaf" nil nil 5 $ca).Cert }}}}@@{{{{ (genCAWithKey "kind-ca" 5 $k).Cert }}}}"#
        ));
        let (leaf, ca) = out.split_once("@@").unwrap();
        let ca_path = write(dir.path(), "kind-ca.pem", ca);
        let leaf_path = write(dir.path(), "leaf.pem", leaf);
        let verified = openssl_with(&["verify", "-CAfile", &ca_path, &leaf_path], "");
        assert!(verified.contains(": OK"), "{verified}");
    }

    let rsa = run(r#"{{ genPrivateKey "rsa" }}"#);
    assert!(rsa.starts_with("-----BEGIN RSA PRIVATE KEY-----\n"));
    let text = openssl_with(&["pkey", "-noout", "-text"], &rsa);
    assert!(text.contains("4096 bit"), "{text}");
}

#[test]
fn build_custom_cert_keeps_what_it_is_given() {
    let out = run(concat!(
        r#"{{ $ca := genCA "x" 1 }}"#,
        r#"{{ $c := buildCustomCert ($ca.Cert | b64enc) ($ca.Key | b64enc) }}"#,
        r#"{{ eq $c.Cert $ca.Cert }} {{ eq $c.Key $ca.Key }} {{ printf "%T" $c }}"#
    ));
    assert_eq!(out, "true true sprig.certificate");
    let err = render("t", r#"{{ buildCustomCert "!" "" }}"#, &Value::Nil).unwrap_err();
    assert!(
        err.to_string()
            .ends_with("error calling buildCustomCert: unable to decode base64 certificate"),
        "{err}"
    );
    let err = render(
        "t",
        r#"{{ genSignedCert "a" nil nil 1 "ca" }}"#,
        &Value::Nil,
    )
    .unwrap_err();
    assert!(
        err.to_string()
            .contains("for arg of type sprig.certificate"),
        "{err}"
    );
    let err = render("t", r#"{{ genCAWithKey "a" 1 "nope" }}"#, &Value::Nil).unwrap_err();
    assert!(
        err.to_string()
            .ends_with("error calling genCAWithKey: parsing private key: no PEM data in input"),
        "{err}"
    );
}

#[test]
fn passwords_and_aes() {
    assert_eq!(
        run(r#"{{ derivePassword 1 "long" "password" "user" "example.com" }}"#),
        "ZedaFaxcZaso9*"
    );
    assert_eq!(
        run(r#"{{ "hello" | encryptAES "secret" | decryptAES "secret" }}"#),
        "hello"
    );
    let line = run(r#"{{ htpasswd "user" "pw" }}"#);
    assert!(
        line.starts_with("user:$2a$10$") && line.len() == 65,
        "{line}"
    );
    assert_eq!(run(r#"{{ genPrivateKey "nope" }}"#), "Unknown type nope");
}

struct TempDir(std::path::PathBuf);

impl TempDir {
    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn tempdir() -> TempDir {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "gotemplate-crypto-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    TempDir(dir)
}

#[test]
fn dsa_keys_are_made_but_certify_nothing_as_in_go() {
    // Sprig's own block: version 0, P, Q, G, Y, X (2048-bit P, 256-bit Q).
    let key = run(r#"{{ genPrivateKey "dsa" }}"#);
    assert!(
        key.starts_with("-----BEGIN DSA PRIVATE KEY-----\n"),
        "{key}"
    );
    require_openssl();
    let fields = openssl_with(&["asn1parse"], &key);
    assert_eq!(fields.matches("prim: INTEGER").count(), 6, "{fields}");
    let data: gotemplate::Map = [("k".to_string(), Value::str(key))].into_iter().collect();
    let err = render("t", r#"{{ genCAWithKey "a" 1 .k }}"#, &Value::Map(data)).unwrap_err();
    assert!(
        err.to_string().ends_with(
            "error calling genCAWithKey: error creating certificate: x509: certificate private key does not implement crypto.Signer"
        ),
        "{err}"
    );
}
