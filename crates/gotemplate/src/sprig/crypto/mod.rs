//! Sprig's random values and cryptography: keys and certificates, password hashes and
//! derivation, AES. Each scheme lives in its own module; this one registers the functions
//! with Sprig's signatures.

mod aes;
mod certs;
mod der;
mod keys;
mod password;
mod pem;

use super::fixed;
use crate::error::Error;
use crate::funcs::{Functions, Type};
use crate::value::Value;

use Type::{Int, List, String as Str};

/// A random 64-bit number from the operating system.
pub(crate) fn random_u64() -> u64 {
    let mut b = [0u8; 8];
    if getrandom::getrandom(&mut b).is_err() {
        // No OS randomness: fall back on the hasher's per-process random keys.
        use std::hash::{BuildHasher, Hasher};
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u64(
            std::time::SystemTime::now()
                .elapsed()
                .map(|d| d.as_nanos() as u64)
                .unwrap_or(0),
        );
        return h.finish();
    }
    u64::from_le_bytes(b)
}

pub(crate) fn random_bytes(n: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(n + 8);
    while out.len() < n {
        out.extend_from_slice(&random_u64().to_le_bytes());
    }
    out.truncate(n);
    out
}

/// A random (version 4) UUID in its canonical text form.
pub(crate) fn uuid_v4() -> String {
    let mut b = random_bytes(16);
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let h: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &h[0..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..32]
    )
}

pub(super) fn register(f: &mut Functions) {
    let certificate = Type::Named(certs::TYPE_NAME);
    fixed(f, "genPrivateKey", &[Str], |_, a| {
        let text = keys::generate(s(&a[0])).and_then(|k| k.to_pem());
        Ok(text.unwrap_or_else(|message| message).into())
    });
    fixed(f, "genCA", &[Str, Int], |_, a| certs::gen_ca(a));
    fixed(f, "genCAWithKey", &[Str, Int, Str], |_, a| {
        certs::gen_ca_with_key(a)
    });
    fixed(f, "genSelfSignedCert", &[Str, List, List, Int], |_, a| {
        certs::gen_self_signed(a)
    });
    fixed(
        f,
        "genSelfSignedCertWithKey",
        &[Str, List, List, Int, Str],
        |_, a| certs::gen_self_signed_with_key(a),
    );
    fixed(
        f,
        "genSignedCert",
        &[Str, List, List, Int, certificate],
        |_, a| certs::gen_signed(a),
    );
    fixed(
        f,
        "genSignedCertWithKey",
        &[Str, List, List, Int, certificate, Str],
        |_, a| certs::gen_signed_with_key(a),
    );
    fixed(f, "buildCustomCert", &[Str, Str], |_, a| {
        certs::build_custom(a)
    });
    fixed(f, "derivePassword", &[Int, Str, Str, Str, Str], |_, a| {
        // Go's parameter is a uint32: a literal out of its range does not convert.
        let counter = match &a[0] {
            Value::Int(i) => u32::try_from(*i)
                .map_err(|_| Error::func(format!("expected unsigned integer; found {i}")))?,
            _ => 0,
        };
        Ok(password::derive_password(counter, s(&a[1]), s(&a[2]), s(&a[3]), s(&a[4])).into())
    });
    fixed(f, "bcrypt", &[Str], |_, a| {
        Ok(password::bcrypt(s(&a[0])).into())
    });
    fixed(f, "htpasswd", &[Str, Str], |_, a| {
        Ok(password::htpasswd(s(&a[0]), s(&a[1])).into())
    });
    fixed(f, "encryptAES", &[Str, Str], |_, a| {
        Ok(aes::encrypt(s(&a[0]), s(&a[1])).into())
    });
    fixed(f, "decryptAES", &[Str, Str], |_, a| {
        aes::decrypt(s(&a[0]), s(&a[1]))
            .map(Value::from)
            .map_err(Error::func)
    });
    fixed(f, "randBytes", &[Type::Int], |_, a| {
        use base64::Engine as _;
        let n = match &a[0] {
            Value::Int(i) if *i >= 0 => *i as usize,
            _ => 0,
        };
        if n > (16 << 20) {
            return Err(crate::Error::limit(format!(
                "randBytes {n}: over the output limit"
            )));
        }
        Ok(base64::engine::general_purpose::STANDARD
            .encode(random_bytes(n))
            .into())
    });
}

fn s(v: &Value) -> &str {
    v.as_str().unwrap_or_default()
}
