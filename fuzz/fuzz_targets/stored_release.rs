//! Decodes an untrusted Helm release body (a Secret's `release` value) with a size limit:
//! nothing may panic, the decompressed size stays under the limit, and whatever decodes must
//! encode and decode again to the same release (we write back what we read).
//!
//! The first byte picks how the rest reaches the decoder, so that the fuzzer need not forge
//! base64 or gzip checksums to reach the JSON: 0 the bytes as they are, 1 base64 of them
//! (a gzip stream or JSON written by the fuzzer), 2 base64 of them gzipped (JSON).
#![no_main]

use std::io::Write;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use libfuzzer_sys::fuzz_target;
use operator_rs::helm_runtime::stored_release::{DecodeError, decode_with_limit, encode};

/// Small enough to be reached by a fuzzed gzip bomb, large enough for real releases' shapes.
const LIMIT: u64 = 1 << 20;

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let body = match mode % 3 {
        0 => rest.to_vec(),
        1 => STANDARD.encode(rest).into_bytes(),
        _ => {
            let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            gz.write_all(rest).unwrap();
            STANDARD.encode(gz.finish().unwrap()).into_bytes()
        }
    };
    match decode_with_limit(&body, LIMIT) {
        Ok(release) => {
            let again = decode_with_limit(encode(&release).as_bytes(), u64::MAX)
                .expect("a release we decoded must decode again once encoded");
            assert_eq!(
                again, release,
                "encoding and decoding again changed the release"
            );
        }
        Err(DecodeError::TooLarge { limit }) => assert_eq!(limit, LIMIT),
        Err(_) => {}
    }
});
