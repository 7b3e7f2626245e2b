//! Loads an untrusted chart archive (`.tgz`): nothing may panic, no entry may land outside the
//! chart, and the per-file and per-chart size limits hold.
//!
//! The first byte picks the input: 0 the bytes as a `.tgz`, 1 the bytes as a tar that the
//! target gzips (so the fuzzer reaches the tar reader without forging gzip checksums).
#![no_main]

use std::io::Write;

use libfuzzer_sys::fuzz_target;
use operator_rs::chart::{MAX_FILE_BYTES, archive};

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let tgz = if mode % 2 == 0 {
        rest.to_vec()
    } else {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(rest).unwrap();
        gz.finish().unwrap()
    };
    if let Ok(files) = archive::read_entries("fuzz.tgz", &tgz) {
        for (path, bytes) in &files {
            assert!(
                !path.is_empty()
                    && !path.starts_with('/')
                    && path
                        .split('/')
                        .all(|part| !part.is_empty() && part != ".." && part != "."),
                "unsafe path kept: {path:?}"
            );
            assert!(
                bytes.len() as u64 <= MAX_FILE_BYTES,
                "{path} is over the file limit"
            );
        }
    }
    if let Ok(chart) = archive::read_tgz("fuzz.tgz", &tgz) {
        assert!(!chart.name().trim().is_empty());
        let _ = chart.values_text();
        let _ = chart.values_schema();
    }
});
