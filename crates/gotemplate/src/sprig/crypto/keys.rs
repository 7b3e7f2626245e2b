//! Private keys as Sprig makes and reads them: generation (`genPrivateKey`), the PEM block
//! types Sprig writes (PKCS#1 "RSA PRIVATE KEY", SEC1 "EC PRIVATE KEY", PKCS#8 "PRIVATE KEY" for
//! Ed25519, Sprig's own "DSA PRIVATE KEY"), reading them back as Sprig's `parsePrivateKeyPEM`
//! does, and what a certificate needs of a key: its public key info and its signature.

use rsa::pkcs1::{DecodeRsaPrivateKey, EncodeRsaPrivateKey, EncodeRsaPublicKey};
use rsa::rand_core::OsRng;

use super::der::{self, Reader};
use super::pem;

const RSA_ENCRYPTION: &[u64] = &[1, 2, 840, 113549, 1, 1, 1];
const SHA256_WITH_RSA: &[u64] = &[1, 2, 840, 113549, 1, 1, 11];
const EC_PUBLIC_KEY: &[u64] = &[1, 2, 840, 10045, 2, 1];
const P256: &[u64] = &[1, 2, 840, 10045, 3, 1, 7];
const P384: &[u64] = &[1, 3, 132, 0, 34];
const ECDSA_SHA256: &[u64] = &[1, 2, 840, 10045, 4, 3, 2];
const ECDSA_SHA384: &[u64] = &[1, 2, 840, 10045, 4, 3, 3];
const ED25519: &[u64] = &[1, 3, 101, 112];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Curve {
    P256,
    P384,
}

impl Curve {
    fn oid(self) -> Vec<u8> {
        der::oid(match self {
            Curve::P256 => P256,
            Curve::P384 => P384,
        })
    }

    fn scalar_len(self) -> usize {
        match self {
            Curve::P256 => 32,
            Curve::P384 => 48,
        }
    }

    fn signing(self) -> &'static ring::signature::EcdsaSigningAlgorithm {
        match self {
            Curve::P256 => &ring::signature::ECDSA_P256_SHA256_ASN1_SIGNING,
            Curve::P384 => &ring::signature::ECDSA_P384_SHA384_ASN1_SIGNING,
        }
    }

    fn from_oid(oid: &[u8]) -> Result<Curve, String> {
        if oid == der::oid(P256).as_slice() {
            Ok(Curve::P256)
        } else if oid == der::oid(P384).as_slice() {
            Ok(Curve::P384)
        } else {
            // Go also reads P-224 and P-521 keys; ring signs with neither.
            Err("x509: unknown elliptic curve".into())
        }
    }
}

pub(crate) enum PrivateKey {
    Rsa(Box<rsa::RsaPrivateKey>),
    /// The private scalar and the uncompressed public point.
    Ecdsa {
        curve: Curve,
        private: Vec<u8>,
        public: Vec<u8>,
    },
    Ed25519 {
        seed: [u8; 32],
    },
    /// Sprig's DSA encoding, kept as read: Go's x509 neither signs with DSA nor certifies a DSA
    /// public key, so the certificate functions refuse it with Go's messages.
    Dsa(Vec<u8>),
}

/// Sprig's `genPrivateKey`: the key, or Sprig's message (which the template prints).
pub(crate) fn generate(kind: &str) -> Result<PrivateKey, String> {
    match kind {
        "" | "rsa" => rsa_key(4096),
        "dsa" => dsa_key(),
        "ecdsa" => {
            let rng = ring::rand::SystemRandom::new();
            let doc = ring::signature::EcdsaKeyPair::generate_pkcs8(Curve::P256.signing(), &rng)
                .map_err(|_| "failed to generate private key: entropy source failed".to_string())?;
            parse_pkcs8(doc.as_ref()).map_err(|e| format!("failed to generate private key: {e}"))
        }
        "ed25519" => {
            let mut seed = [0u8; 32];
            seed.copy_from_slice(&super::random_bytes(32));
            Ok(PrivateKey::Ed25519 { seed })
        }
        other => Err(format!("Unknown type {other}")),
    }
}

/// A new RSA key of `bits`, as Go's `rsa.GenerateKey` (public exponent 65537).
pub(crate) fn rsa_key(bits: usize) -> Result<PrivateKey, String> {
    rsa::RsaPrivateKey::new(&mut OsRng, bits)
        .map(|k| PrivateKey::Rsa(Box::new(k)))
        .map_err(|e| format!("error generating rsa key: {e}"))
}

/// Go's `dsa.GenerateParameters(L2048N256)` and `dsa.GenerateKey`.
fn dsa_key() -> Result<PrivateKey, String> {
    let components = dsa::Components::generate(&mut OsRng, dsa::KeySize::DSA_2048_256);
    let key = dsa::SigningKey::generate(&mut OsRng, components);
    let public = key.verifying_key();
    let c = public.components();
    let ints: Vec<Vec<u8>> = [c.p(), c.q(), c.g(), public.y(), key.x()]
        .iter()
        .map(|n| der::uint(&n.to_bytes_be()))
        .collect();
    let mut parts: Vec<&[u8]> = Vec::with_capacity(6);
    let version = der::small_int(0);
    parts.push(&version);
    parts.extend(ints.iter().map(Vec::as_slice));
    Ok(PrivateKey::Dsa(der::seq(&parts)))
}

fn ed25519_pair(seed: &[u8; 32]) -> Result<ring::signature::Ed25519KeyPair, String> {
    ring::signature::Ed25519KeyPair::from_seed_unchecked(seed)
        .map_err(|e| format!("ed25519: bad private key: {e}"))
}

impl PrivateKey {
    /// Sprig's `pemBlockForKey`: the block type and DER Sprig writes for this kind of key.
    pub(crate) fn to_pem(&self) -> Result<String, String> {
        Ok(match self {
            PrivateKey::Rsa(k) => {
                let der = k.to_pkcs1_der().map_err(|e| e.to_string())?;
                pem::encode("RSA PRIVATE KEY", der.as_bytes())
            }
            PrivateKey::Ecdsa {
                curve,
                private,
                public,
            } => {
                // Go's MarshalECPrivateKey: version 1, the scalar padded to the curve's size,
                // the curve and the public point.
                let mut scalar = vec![0u8; curve.scalar_len().saturating_sub(private.len())];
                scalar.extend_from_slice(private);
                let der = der::seq(&[
                    &der::small_int(1),
                    &der::tlv(der::OCTET_STRING, &scalar),
                    &der::tlv(0xa0, &curve.oid()),
                    &der::tlv(0xa1, &der::bit_string(public)),
                ]);
                pem::encode("EC PRIVATE KEY", &der)
            }
            PrivateKey::Ed25519 { seed } => {
                // Go's MarshalPKCS8PrivateKey: version 0, no public key.
                let der = der::seq(&[
                    &der::small_int(0),
                    &der::seq(&[&der::oid(ED25519)]),
                    &der::tlv(der::OCTET_STRING, &der::tlv(der::OCTET_STRING, seed)),
                ]);
                pem::encode("PRIVATE KEY", &der)
            }
            PrivateKey::Dsa(der) => pem::encode("DSA PRIVATE KEY", der),
        })
    }

    /// The SubjectPublicKeyInfo of the key, as Go's `x509.MarshalPKIXPublicKey` writes it.
    pub(crate) fn public_key_info(&self) -> Result<Vec<u8>, String> {
        Ok(match self {
            PrivateKey::Rsa(k) => {
                let public = k
                    .to_public_key()
                    .to_pkcs1_der()
                    .map_err(|e| e.to_string())?;
                der::seq(&[
                    &der::seq(&[&der::oid(RSA_ENCRYPTION), &der::tlv(der::NULL, &[])]),
                    &der::bit_string(public.as_bytes()),
                ])
            }
            PrivateKey::Ecdsa { curve, public, .. } => der::seq(&[
                &der::seq(&[&der::oid(EC_PUBLIC_KEY), &curve.oid()]),
                &der::bit_string(public),
            ]),
            PrivateKey::Ed25519 { seed } => {
                use ring::signature::KeyPair as _;
                let pair = ed25519_pair(seed)?;
                der::seq(&[
                    &der::seq(&[&der::oid(ED25519)]),
                    &der::bit_string(pair.public_key().as_ref()),
                ])
            }
            PrivateKey::Dsa(_) => {
                return Err("x509: unsupported public key type: *dsa.PublicKey".into());
            }
        })
    }

    /// The AlgorithmIdentifier of the signatures this key makes, as Go picks it.
    pub(crate) fn signature_algorithm(&self) -> Result<Vec<u8>, String> {
        Ok(match self {
            PrivateKey::Rsa(_) => {
                der::seq(&[&der::oid(SHA256_WITH_RSA), &der::tlv(der::NULL, &[])])
            }
            PrivateKey::Ecdsa { curve, .. } => der::seq(&[&der::oid(match curve {
                Curve::P256 => ECDSA_SHA256,
                Curve::P384 => ECDSA_SHA384,
            })]),
            PrivateKey::Ed25519 { .. } => der::seq(&[&der::oid(ED25519)]),
            PrivateKey::Dsa(_) => return Err(NOT_A_SIGNER.into()),
        })
    }

    /// Signs `message` with the algorithm of [`PrivateKey::signature_algorithm`].
    pub(crate) fn sign(&self, message: &[u8]) -> Result<Vec<u8>, String> {
        match self {
            PrivateKey::Rsa(k) => {
                use sha2::Digest as _;
                let digest = sha2::Sha256::digest(message);
                k.sign(rsa::Pkcs1v15Sign::new::<sha2::Sha256>(), &digest)
                    .map_err(|e| e.to_string())
            }
            PrivateKey::Ecdsa {
                curve,
                private,
                public,
            } => {
                let rng = ring::rand::SystemRandom::new();
                let pair = ring::signature::EcdsaKeyPair::from_private_key_and_public_key(
                    curve.signing(),
                    private,
                    public,
                    &rng,
                )
                .map_err(|e| format!("x509: invalid elliptic curve private key: {e}"))?;
                pair.sign(&rng, message)
                    .map(|s| s.as_ref().to_vec())
                    .map_err(|_| "ecdsa: signing failed".to_string())
            }
            PrivateKey::Ed25519 { seed } => Ok(ed25519_pair(seed)?.sign(message).as_ref().to_vec()),
            PrivateKey::Dsa(_) => Err(NOT_A_SIGNER.into()),
        }
    }
}

const NOT_A_SIGNER: &str = "x509: certificate private key does not implement crypto.Signer";

/// Sprig's `parsePrivateKeyPEM`, with its messages.
pub(crate) fn parse_pem(text: &str) -> Result<PrivateKey, String> {
    let (kind, bytes) = pem::decode(text).ok_or("no PEM data in input")?;
    if kind == "PRIVATE KEY" {
        return parse_pkcs8(&bytes).map_err(|e| format!("decoding PEM as PKCS#8: {e}"));
    }
    let Some(prefix) = kind.strip_suffix(" PRIVATE KEY") else {
        return Err(format!("no private key data in PEM block of type {kind}"));
    };
    match prefix {
        "RSA" => parse_pkcs1(&bytes).map_err(|e| format!("parsing RSA private key from PEM: {e}")),
        "EC" => {
            parse_sec1(&bytes, None).map_err(|e| format!("parsing EC private key from PEM: {e}"))
        }
        "DSA" => parse_dsa(&bytes).map_err(|e| format!("parsing DSA private key from PEM: {e}")),
        _ => Err(format!("invalid private key type {kind}")),
    }
}

fn parse_pkcs1(bytes: &[u8]) -> Result<PrivateKey, String> {
    rsa::RsaPrivateKey::from_pkcs1_der(bytes)
        .map(|k| PrivateKey::Rsa(Box::new(k)))
        .map_err(|_| "x509: failed to parse private key".to_string())
}

/// SEC1 ECPrivateKey; the curve comes from the key or, inside PKCS#8, from the wrapper.
fn parse_sec1(bytes: &[u8], wrapper_curve: Option<Curve>) -> Result<PrivateKey, String> {
    let malformed = |_| "x509: failed to parse EC private key".to_string();
    let key = der::parse_one(bytes).map_err(malformed)?;
    let mut r = key.reader();
    let version =
        der::uint_bytes(&r.expect(der::INTEGER).map_err(malformed)?).map_err(malformed)?;
    if version != [1] {
        return Err("x509: unknown EC private key version".into());
    }
    let private = r
        .expect(der::OCTET_STRING)
        .map_err(malformed)?
        .content
        .to_vec();
    let curve = match r.optional(0xa0).map_err(malformed)? {
        Some(params) => Curve::from_oid(params.content)?,
        None => wrapper_curve.ok_or("x509: unknown elliptic curve")?,
    };
    let public = match r.optional(0xa1).map_err(malformed)? {
        Some(p) => {
            let bits = der::parse_one(p.content).map_err(malformed)?;
            match bits.content.split_first() {
                Some((0, point)) if bits.tag == der::BIT_STRING => point.to_vec(),
                _ => return Err("x509: failed to parse EC private key".into()),
            }
        }
        // Go derives the point from the scalar; ring needs it given, so such keys are refused.
        None => return Err("x509: EC private key without its public key is not supported".into()),
    };
    if private.len() > curve.scalar_len() {
        return Err("x509: invalid private key length".into());
    }
    Ok(PrivateKey::Ecdsa {
        curve,
        private,
        public,
    })
}

fn parse_pkcs8(bytes: &[u8]) -> Result<PrivateKey, String> {
    let malformed = |_| "x509: failed to parse private key".to_string();
    let top = der::parse_one(bytes).map_err(malformed)?;
    let mut r = top.reader();
    r.expect(der::INTEGER).map_err(malformed)?;
    let alg = r.expect(der::SEQUENCE).map_err(malformed)?;
    let key = r.expect(der::OCTET_STRING).map_err(malformed)?;
    let mut a = alg.reader();
    let oid = a.expect(der::OID).map_err(malformed)?;
    if oid.raw == der::oid(RSA_ENCRYPTION).as_slice() {
        parse_pkcs1(key.content)
            .map_err(|e| format!("x509: failed to parse RSA private key embedded in PKCS#8: {e}"))
    } else if oid.raw == der::oid(EC_PUBLIC_KEY).as_slice() {
        let curve = match a.optional(der::OID).map_err(malformed)? {
            Some(c) => Some(Curve::from_oid(c.raw)?),
            None => None,
        };
        parse_sec1(key.content, curve)
            .map_err(|e| format!("x509: failed to parse EC private key embedded in PKCS#8: {e}"))
    } else if oid.raw == der::oid(ED25519).as_slice() {
        let inner = der::parse_one(key.content)
            .ok()
            .filter(|t| t.tag == der::OCTET_STRING && t.content.len() == 32)
            .ok_or("x509: invalid Ed25519 private key")?;
        let mut seed = [0u8; 32];
        seed.copy_from_slice(inner.content);
        Ok(PrivateKey::Ed25519 { seed })
    } else {
        Err(format!(
            "x509: PKCS#8 wrapping contained private key with unknown algorithm: {}",
            oid_text(oid.content)
        ))
    }
}

/// Sprig's DSAKeyFormat: version, P, Q, G, Y, X.
fn parse_dsa(bytes: &[u8]) -> Result<PrivateKey, String> {
    let malformed = |e: der::DerError| format!("asn1: structure error: {e}");
    let top = der::parse_one(bytes).map_err(malformed)?;
    let mut r: Reader<'_> = top.reader();
    for _ in 0..6 {
        r.expect(der::INTEGER).map_err(malformed)?;
    }
    Ok(PrivateKey::Dsa(bytes.to_vec()))
}

/// Dotted text of an OID's content bytes, as Go prints an `asn1.ObjectIdentifier`.
fn oid_text(content: &[u8]) -> String {
    let mut arcs = Vec::new();
    let mut value: u64 = 0;
    for b in content {
        value = (value << 7) | u64::from(b & 0x7f);
        if b & 0x80 == 0 {
            if arcs.is_empty() {
                let first = (value / 40).min(2);
                arcs.push(first);
                arcs.push(value - first * 40);
            } else {
                arcs.push(value);
            }
            value = 0;
        }
    }
    arcs.iter()
        .map(u64::to_string)
        .collect::<Vec<_>>()
        .join(".")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_keys_use_sprigs_block_types_and_read_back() {
        for (kind, block) in [("ecdsa", "EC PRIVATE KEY"), ("ed25519", "PRIVATE KEY")] {
            let pem = generate(kind).unwrap().to_pem().unwrap();
            assert!(
                pem.starts_with(&format!("-----BEGIN {block}-----\n")),
                "{pem}"
            );
            let again = parse_pem(&pem).unwrap().to_pem().unwrap();
            assert_eq!(pem, again);
            let key = parse_pem(&pem).unwrap();
            let signature = key.sign(b"message").unwrap();
            assert!(!signature.is_empty());
        }
        assert_eq!(generate("rsa3").err().unwrap(), "Unknown type rsa3");
    }

    #[test]
    fn rsa_keys_are_pkcs1_and_sign() {
        let key = rsa_key(2048).unwrap();
        let pem = key.to_pem().unwrap();
        assert!(pem.starts_with("-----BEGIN RSA PRIVATE KEY-----\n"));
        let again = parse_pem(&pem).unwrap();
        assert_eq!(again.to_pem().unwrap(), pem);
        assert_eq!(again.sign(b"m").unwrap().len(), 256);
    }

    #[test]
    fn parse_errors_are_sprigs() {
        assert_eq!(parse_pem("nothing").err().unwrap(), "no PEM data in input");
        let cert = pem::encode("CERTIFICATE", &[1, 2]);
        assert_eq!(
            parse_pem(&cert).err().unwrap(),
            "no private key data in PEM block of type CERTIFICATE"
        );
        let other = pem::encode("FOO PRIVATE KEY", &[1, 2]);
        assert_eq!(
            parse_pem(&other).err().unwrap(),
            "invalid private key type FOO PRIVATE KEY"
        );
        let bad = pem::encode("RSA PRIVATE KEY", &[0x30, 0x03, 1, 2]);
        assert!(
            parse_pem(&bad)
                .err()
                .unwrap()
                .starts_with("parsing RSA private key from PEM: ")
        );
        assert_eq!(
            oid_text(&der::oid(&[1, 2, 840, 10040, 4, 1])[2..]),
            "1.2.840.10040.4.1"
        );
    }
}
