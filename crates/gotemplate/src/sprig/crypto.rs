//! Sprig's random values and cryptography.

use super::fixed;
use crate::funcs::{Functions, Type};
use crate::value::Value;

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
