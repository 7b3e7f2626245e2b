//! Sprig's certificates: `genCA`, `genSelfSignedCert`, `genSignedCert` (and their `WithKey`
//! forms) and `buildCustomCert`. The X.509 is written the way Go's `x509.CreateCertificate`
//! writes Sprig's template, so that tools reading Helm's output see the same thing: version 3,
//! a random 128-bit serial, subject CN only, validity from now for the days asked,
//! extensions in Go's order (key usage, extended key usage, basic constraints, subject key id
//! for CAs, authority key id, alternative names) with Go's criticality.

use std::sync::Arc;

use super::der;
use super::keys::{self, PrivateKey};
use super::pem;
use crate::error::Error;
use crate::value::{Object, Value};

/// Sprig's `certificate` struct: PEM text of the certificate and of its key.
pub(crate) struct Certificate {
    pub cert: String,
    pub key: String,
}

pub(crate) const TYPE_NAME: &str = "sprig.certificate";

impl Object for Certificate {
    fn type_name(&self) -> String {
        TYPE_NAME.into()
    }

    fn field(&self, name: &str) -> Option<Value> {
        match name {
            "Cert" => Some(Value::str(&self.cert)),
            "Key" => Some(Value::str(&self.key)),
            _ => None,
        }
    }

    fn format(&self) -> String {
        format!("{{{} {}}}", self.cert, self.key)
    }

    fn to_value(&self) -> Option<Value> {
        let map = crate::value::Map::new();
        map.insert("Cert", Value::str(&self.cert));
        map.insert("Key", Value::str(&self.key));
        Some(Value::Map(map))
    }
}

fn value(cert: String, key: String) -> Value {
    Value::Object(Arc::new(Certificate { cert, key }))
}

/// The certificate fields of a `sprig.certificate` argument.
fn fields(v: &Value) -> (String, String) {
    let text = |name| match v {
        Value::Object(o) => o
            .field(name)
            .and_then(|f| f.as_str().map(str::to_string))
            .unwrap_or_default(),
        _ => String::new(),
    };
    (text("Cert"), text("Key"))
}

/// What Sprig's `getBaseCertTemplate` sets, and the CA overrides.
struct Template {
    common_name: String,
    ips: Vec<Vec<u8>>,
    dns_names: Vec<String>,
    days: i64,
    is_ca: bool,
}

impl Template {
    fn new(cn: &Value, ips: &Value, dns: &Value, days: &Value) -> Result<Template, String> {
        Ok(Template {
            common_name: cn.as_str().unwrap_or_default().to_string(),
            ips: net_ips(ips)?,
            dns_names: dns_names(dns)?,
            days: match days {
                Value::Int(d) => *d,
                _ => 0,
            },
            is_ca: false,
        })
    }
}

/// Sprig's `getNetIPs`: each must be a string Go's `net.ParseIP` reads.
fn net_ips(ips: &Value) -> Result<Vec<Vec<u8>>, String> {
    let Some(list) = ips.as_list() else {
        return Ok(Vec::new());
    };
    list.iter()
        .map(|ip| {
            let Value::String(text) = ip else {
                return Err(format!("error parsing ip: {ip} is not a string"));
            };
            match text.parse::<std::net::IpAddr>() {
                Ok(std::net::IpAddr::V4(v4)) => Ok(v4.octets().to_vec()),
                // Go writes an IPv4-mapped address as its four bytes (`To4`).
                Ok(std::net::IpAddr::V6(v6)) => Ok(match v6.to_ipv4_mapped() {
                    Some(v4) => v4.octets().to_vec(),
                    None => v6.octets().to_vec(),
                }),
                Err(_) => Err(format!("error parsing ip: {text}")),
            }
        })
        .collect()
}

/// Sprig's `getAlternateDNSStrs`.
fn dns_names(dns: &Value) -> Result<Vec<String>, String> {
    let Some(list) = dns.as_list() else {
        return Ok(Vec::new());
    };
    list.iter()
        .map(|name| match name {
            Value::String(s) => Ok(s.clone()),
            other => Err(format!(
                "error processing alternate dns name: {other} is not a string"
            )),
        })
        .collect()
}

/// What a certificate's signer contributes: its subject as the issuer, its subject key id as
/// the authority key id, its public key (which must be the signing key's) and its key.
struct Signer<'a> {
    subject: Vec<u8>,
    key_id: Option<Vec<u8>>,
    public_key_info: Option<Vec<u8>>,
    key: &'a PrivateKey,
}

/// The parts of a parsed certificate that signing with it needs.
pub(crate) struct Parsed {
    subject: Vec<u8>,
    public_key_info: Vec<u8>,
    key_id: Option<Vec<u8>>,
}

const MALFORMED: &str = "x509: malformed certificate";

/// Reads a DER certificate far enough to sign with it, refusing what Go's
/// `x509.ParseCertificate` refuses for its structure.
pub(crate) fn parse_certificate(bytes: &[u8]) -> Result<Parsed, String> {
    let bad = |_| MALFORMED.to_string();
    let cert = der::parse_one(bytes).map_err(bad)?;
    if cert.tag != der::SEQUENCE {
        return Err(MALFORMED.into());
    }
    let mut c = cert.reader();
    let tbs = c.expect(der::SEQUENCE).map_err(bad)?;
    c.expect(der::SEQUENCE).map_err(bad)?;
    c.expect(der::BIT_STRING).map_err(bad)?;
    if !c.is_empty() {
        return Err(MALFORMED.into());
    }
    let mut t = tbs.reader();
    t.optional(0xa0).map_err(bad)?;
    t.expect(der::INTEGER).map_err(bad)?;
    t.expect(der::SEQUENCE).map_err(bad)?;
    t.expect(der::SEQUENCE).map_err(bad)?;
    t.expect(der::SEQUENCE).map_err(bad)?;
    let subject = t.expect(der::SEQUENCE).map_err(bad)?.raw.to_vec();
    let public_key_info = t.expect(der::SEQUENCE).map_err(bad)?.raw.to_vec();
    t.optional(0x81).map_err(bad)?;
    t.optional(0x82).map_err(bad)?;
    let mut key_id = None;
    if let Some(exts) = t.optional(0xa3).map_err(bad)? {
        let list = der::parse_one(exts.content).map_err(bad)?;
        let mut l = list.reader();
        let ski = der::oid(SUBJECT_KEY_ID);
        while !l.is_empty() {
            let ext = l.expect(der::SEQUENCE).map_err(bad)?;
            let mut e = ext.reader();
            let id = e.expect(der::OID).map_err(bad)?;
            e.optional(der::BOOLEAN).map_err(bad)?;
            let value = e.expect(der::OCTET_STRING).map_err(bad)?;
            if id.raw == ski.as_slice() {
                let inner = der::parse_one(value.content).map_err(bad)?;
                key_id = Some(inner.content.to_vec());
            }
        }
    }
    Ok(Parsed {
        subject,
        public_key_info,
        key_id,
    })
}

const KEY_USAGE: &[u64] = &[2, 5, 29, 15];
const EXT_KEY_USAGE: &[u64] = &[2, 5, 29, 37];
const BASIC_CONSTRAINTS: &[u64] = &[2, 5, 29, 19];
const SUBJECT_KEY_ID: &[u64] = &[2, 5, 29, 14];
const AUTHORITY_KEY_ID: &[u64] = &[2, 5, 29, 35];
const SUBJECT_ALT_NAME: &[u64] = &[2, 5, 29, 17];
const COMMON_NAME: &[u64] = &[2, 5, 4, 3];
const SERVER_AUTH: &[u64] = &[1, 3, 6, 1, 5, 5, 7, 3, 1];
const CLIENT_AUTH: &[u64] = &[1, 3, 6, 1, 5, 5, 7, 3, 2];

fn extension(id: &[u64], critical: bool, value: &[u8]) -> Vec<u8> {
    let flag = if critical {
        der::tlv(der::BOOLEAN, &[0xff])
    } else {
        Vec::new()
    };
    der::seq(&[&der::oid(id), &flag, &der::tlv(der::OCTET_STRING, value)])
}

/// A subject with only a common name; none at all when it is empty, as Go's `pkix.Name`.
fn subject_name(cn: &str) -> Vec<u8> {
    if cn.is_empty() {
        return der::seq(&[]);
    }
    // encoding/asn1 writes a PrintableString when every byte allows it, else UTF8String.
    let printable = cn
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b" '()+,-./:=?".contains(&b));
    let tag = if printable {
        der::PRINTABLE_STRING
    } else {
        der::UTF8_STRING
    };
    let atv = der::seq(&[&der::oid(COMMON_NAME), &der::tlv(tag, cn.as_bytes())]);
    der::seq(&[&der::tlv(der::SET, &atv)])
}

/// UTCTime for 1950-2049, GeneralizedTime otherwise, as Go encodes a validity time.
fn time(unix: i64) -> Vec<u8> {
    let days = unix.div_euclid(86_400);
    let secs = unix.rem_euclid(86_400);
    let (y, m, d) = crate::sprig::dates::civil(days);
    let hms = format!("{:02}{:02}{:02}", secs / 3600, secs / 60 % 60, secs % 60);
    if (1950..2050).contains(&y) {
        der::tlv(
            der::UTC_TIME,
            format!("{:02}{m:02}{d:02}{hms}Z", y % 100).as_bytes(),
        )
    } else {
        der::tlv(
            der::GENERALIZED_TIME,
            format!("{y:04}{m:02}{d:02}{hms}Z").as_bytes(),
        )
    }
}

/// Go's `reverseBitsInAByte` key usage bits in a minimal BIT STRING.
fn key_usage(is_ca: bool) -> Vec<u8> {
    // digitalSignature (bit 0) and keyEncipherment (bit 2); keyCertSign (bit 5) for a CA.
    let (byte, unused) = if is_ca { (0xa4, 2) } else { (0xa0, 5) };
    der::tlv(der::BIT_STRING, &[unused, byte])
}

/// Go 1.25's subject key id: the first 160 bits of SHA-256 of the public key bits.
fn key_id(public_key_info: &[u8]) -> Vec<u8> {
    let bits = der::parse_one(public_key_info)
        .ok()
        .and_then(|spki| {
            let mut r = spki.reader();
            r.next().ok()?;
            let b = r.expect(der::BIT_STRING).ok()?;
            b.content.get(1..).map(<[u8]>::to_vec)
        })
        .unwrap_or_default();
    ring::digest::digest(&ring::digest::SHA256, &bits).as_ref()[..20].to_vec()
}

fn alt_names(t: &Template) -> Result<Vec<u8>, String> {
    let mut names = Vec::new();
    for name in &t.dns_names {
        if !name.is_ascii() {
            return Err(format!(
                "x509: {} cannot be encoded as an IA5String",
                crate::gofmt::quote(name)
            ));
        }
        names.extend(der::tlv(0x82, name.as_bytes()));
    }
    for ip in &t.ips {
        names.extend(der::tlv(0x87, ip));
    }
    Ok(der::tlv(der::SEQUENCE, &names))
}

/// Go's `x509.CreateCertificate` for Sprig's template: the PEM certificate.
fn create(t: &Template, subject_key: &PrivateKey, signer: &Signer<'_>) -> Result<String, String> {
    let signature_algorithm = signer.key.signature_algorithm()?;
    let signer_public = signer.key.public_key_info()?;
    if let Some(parent) = &signer.public_key_info
        && *parent != signer_public
    {
        return Err("x509: provided PrivateKey doesn't match parent's PublicKey".into());
    }
    let public_key_info = subject_key.public_key_info()?;
    let subject = subject_name(&t.common_name);

    let mut serial = super::random_bytes(16);
    serial[0] &= 0x7f; // below 2^128, as rand.Int(2^128); DER keeps it positive anyway
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    let not_after = now.saturating_add(t.days.saturating_mul(86_400));

    let mut extensions = vec![
        extension(KEY_USAGE, true, &key_usage(t.is_ca)),
        extension(
            EXT_KEY_USAGE,
            false,
            &der::seq(&[&der::oid(SERVER_AUTH), &der::oid(CLIENT_AUTH)]),
        ),
        extension(
            BASIC_CONSTRAINTS,
            true,
            &if t.is_ca {
                der::seq(&[&der::tlv(der::BOOLEAN, &[0xff])])
            } else {
                der::seq(&[])
            },
        ),
    ];
    if t.is_ca {
        extensions.push(extension(
            SUBJECT_KEY_ID,
            false,
            &der::tlv(der::OCTET_STRING, &key_id(&public_key_info)),
        ));
    }
    // Go names the signer's key only when the issuer is another name than the subject.
    if signer.subject != subject
        && let Some(id) = signer.key_id.as_ref().filter(|id| !id.is_empty())
    {
        extensions.push(extension(
            AUTHORITY_KEY_ID,
            false,
            &der::seq(&[&der::tlv(0x80, id)]),
        ));
    }
    if !t.dns_names.is_empty() || !t.ips.is_empty() {
        // Go marks the names critical when they are all the subject there is.
        let critical = t.common_name.is_empty();
        extensions.push(extension(SUBJECT_ALT_NAME, critical, &alt_names(t)?));
    }
    let extensions: Vec<&[u8]> = extensions.iter().map(Vec::as_slice).collect();

    let tbs = der::seq(&[
        &der::tlv(0xa0, &der::small_int(2)),
        &der::uint(&serial),
        &signature_algorithm,
        &signer.subject,
        &der::seq(&[&time(now), &time(not_after)]),
        &subject,
        &public_key_info,
        &der::tlv(0xa3, &der::seq(&extensions)),
    ]);
    let signature = signer.key.sign(&tbs)?;
    let cert = der::seq(&[&tbs, &signature_algorithm, &der::bit_string(&signature)]);
    Ok(pem::encode("CERTIFICATE", &cert))
}

/// Sprig's `getCertAndKey`: the certificate and the subject key's PEM, with Sprig's prefixes.
fn cert_and_key(
    t: &Template,
    subject_key: &PrivateKey,
    signer: &Signer<'_>,
) -> Result<Value, String> {
    let cert =
        create(t, subject_key, signer).map_err(|e| format!("error creating certificate: {e}"))?;
    let key = subject_key
        .to_pem()
        .map_err(|e| format!("error pem-encoding key: {e}"))?;
    Ok(value(cert, key))
}

fn self_signed(t: &Template, key: &PrivateKey) -> Result<Value, String> {
    let signer = Signer {
        subject: subject_name(&t.common_name),
        key_id: None,
        public_key_info: None,
        key,
    };
    cert_and_key(t, key, &signer)
}

fn with_key(text: &Value) -> Result<PrivateKey, String> {
    keys::parse_pem(text.as_str().unwrap_or_default())
        .map_err(|e| format!("parsing private key: {e}"))
}

fn ca_template(cn: &Value, days: &Value) -> Result<Template, String> {
    let mut t = Template::new(cn, &Value::Nil, &Value::Nil, days)?;
    t.is_ca = true;
    Ok(t)
}

pub(crate) fn gen_ca(args: &[Value]) -> Result<Value, Error> {
    let key = keys::rsa_key(2048).map_err(Error::func)?;
    let t = ca_template(&args[0], &args[1]).map_err(Error::func)?;
    self_signed(&t, &key).map_err(Error::func)
}

pub(crate) fn gen_ca_with_key(args: &[Value]) -> Result<Value, Error> {
    let key = with_key(&args[2]).map_err(Error::func)?;
    let t = ca_template(&args[0], &args[1]).map_err(Error::func)?;
    self_signed(&t, &key).map_err(Error::func)
}

pub(crate) fn gen_self_signed(args: &[Value]) -> Result<Value, Error> {
    let key = keys::rsa_key(2048).map_err(Error::func)?;
    let t = Template::new(&args[0], &args[1], &args[2], &args[3]).map_err(Error::func)?;
    self_signed(&t, &key).map_err(Error::func)
}

pub(crate) fn gen_self_signed_with_key(args: &[Value]) -> Result<Value, Error> {
    let key = with_key(&args[4]).map_err(Error::func)?;
    let t = Template::new(&args[0], &args[1], &args[2], &args[3]).map_err(Error::func)?;
    self_signed(&t, &key).map_err(Error::func)
}

fn signed(args: &[Value], key: &PrivateKey) -> Result<Value, String> {
    let (ca_cert, ca_key) = fields(&args[4]);
    let (_, der) = pem::decode(&ca_cert).ok_or("unable to decode certificate")?;
    let parent = parse_certificate(&der)
        .map_err(|e| format!("error parsing certificate: decodedSignerCert.Bytes: {e}"))?;
    let signer_key =
        keys::parse_pem(&ca_key).map_err(|e| format!("error parsing private key: {e}"))?;
    let t = Template::new(&args[0], &args[1], &args[2], &args[3])?;
    let signer = Signer {
        subject: parent.subject,
        key_id: parent.key_id,
        public_key_info: Some(parent.public_key_info),
        key: &signer_key,
    };
    cert_and_key(&t, key, &signer)
}

pub(crate) fn gen_signed(args: &[Value]) -> Result<Value, Error> {
    let key = keys::rsa_key(2048).map_err(Error::func)?;
    signed(args, &key).map_err(Error::func)
}

pub(crate) fn gen_signed_with_key(args: &[Value]) -> Result<Value, Error> {
    let key = with_key(&args[5]).map_err(Error::func)?;
    signed(args, &key).map_err(Error::func)
}

/// Sprig's `buildCustomCert`: base64 PEM certificate and key, checked and kept as given.
pub(crate) fn build_custom(args: &[Value]) -> Result<Value, Error> {
    use base64::Engine as _;
    let decode = |v: &Value| {
        base64::engine::general_purpose::STANDARD.decode(v.as_str().unwrap_or_default())
    };
    let cert = decode(&args[0]).map_err(|_| Error::func("unable to decode base64 certificate"))?;
    let key = decode(&args[1]).map_err(|_| Error::func("unable to decode base64 private key"))?;
    let cert = String::from_utf8_lossy(&cert).into_owned();
    let key = String::from_utf8_lossy(&key).into_owned();
    let (_, der) = pem::decode(&cert).ok_or_else(|| Error::func("unable to decode certificate"))?;
    parse_certificate(&der)
        .map_err(|e| Error::func(format!("error parsing certificate: decodedCert.Bytes: {e}")))?;
    keys::parse_pem(&key).map_err(|e| Error::func(format!("error parsing private key: {e}")))?;
    Ok(value(cert, key))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(items: &[&str]) -> Value {
        Value::list(items.iter().map(|s| Value::str(*s)).collect())
    }

    #[test]
    fn names_times_and_key_usage_are_encoded_as_go_does() {
        assert_eq!(subject_name(""), [0x30, 0]);
        assert_eq!(subject_name("a")[11], der::PRINTABLE_STRING);
        assert_eq!(subject_name("*.a")[11], der::UTF8_STRING);
        assert_eq!(time(0), der::tlv(der::UTC_TIME, b"700101000000Z"));
        // 2050-01-01 is past UTCTime's range.
        assert_eq!(
            time(2_524_608_000),
            der::tlv(der::GENERALIZED_TIME, b"20500101000000Z")
        );
        assert_eq!(key_usage(false), [3, 2, 5, 0xa0]);
        assert_eq!(key_usage(true), [3, 2, 2, 0xa4]);
    }

    #[test]
    fn sprigs_argument_errors() {
        let ips = Value::list(vec![Value::Int(1)]);
        assert_eq!(
            Template::new(&Value::str("a"), &ips, &Value::Nil, &Value::Int(1)).err(),
            Some("error parsing ip: 1 is not a string".into())
        );
        assert_eq!(
            net_ips(&list(&["300.1.1.1"])).err(),
            Some("error parsing ip: 300.1.1.1".into())
        );
        assert_eq!(
            net_ips(&list(&["::ffff:1.2.3.4"])).unwrap(),
            [vec![1, 2, 3, 4]]
        );
        assert_eq!(
            dns_names(&Value::list(vec![Value::Bool(true)])).err(),
            Some("error processing alternate dns name: true is not a string".into())
        );
        assert_eq!(
            parse_certificate(&[0x30, 0]).err(),
            Some(MALFORMED.to_string())
        );
    }

    #[test]
    fn a_signed_certificate_names_its_ca() {
        let key = keys::generate("ecdsa").unwrap();
        let ca = self_signed(
            &ca_template(&Value::str("ca"), &Value::Int(3)).unwrap(),
            &key,
        )
        .unwrap();
        let (ca_cert, _) = fields(&ca);
        let (_, der) = pem::decode(&ca_cert).unwrap();
        let parsed = parse_certificate(&der).unwrap();
        assert_eq!(parsed.subject, subject_name("ca"));
        assert_eq!(parsed.key_id.as_deref().map(<[u8]>::len), Some(20));
        assert_eq!(parsed.public_key_info, key.public_key_info().unwrap());
    }
}
