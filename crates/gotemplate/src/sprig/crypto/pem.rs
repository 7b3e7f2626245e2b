//! PEM as Go's `encoding/pem` writes it (64-column base64 lines) and, leniently, reads it.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;

/// Go's `pem.EncodeToMemory` of a block without headers.
pub(crate) fn encode(kind: &str, der: &[u8]) -> String {
    let body = STANDARD.encode(der);
    let mut out = format!("-----BEGIN {kind}-----\n");
    for line in body.as_bytes().chunks(64) {
        // Base64 output is ASCII, so every chunk is a valid string.
        out.push_str(std::str::from_utf8(line).unwrap_or_default());
        out.push('\n');
    }
    out.push_str(&format!("-----END {kind}-----\n"));
    out
}

/// The first well-formed PEM block of `text`: its type and bytes, as Go's `pem.Decode` finds
/// it (text before the block is skipped; a block that does not decode is passed over).
pub(crate) fn decode(text: &str) -> Option<(String, Vec<u8>)> {
    let mut rest = text;
    while let Some(start) = rest.find("-----BEGIN ") {
        let after = &rest[start + "-----BEGIN ".len()..];
        rest = after;
        let end_of_type = after.find("-----")?;
        let kind = &after[..end_of_type];
        if kind.contains('\n') {
            continue;
        }
        let body_start = &after[end_of_type + 5..];
        let end_marker = format!("-----END {kind}-----");
        let Some(body_end) = body_start.find(&end_marker) else {
            continue;
        };
        let body = &body_start[..body_end];
        // Go allows "Key: value" headers before a blank line; Sprig's inputs have none, and a
        // block with headers is still found by skipping them.
        let body = match body.find("\n\n") {
            Some(i) if body[..i].contains(':') => &body[i + 2..],
            _ => body,
        };
        let compact: String = body.chars().filter(|c| !c.is_ascii_whitespace()).collect();
        if let Ok(bytes) = STANDARD.decode(compact.as_bytes()) {
            return Some((kind.to_string(), bytes));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_round_trip_with_64_column_lines() {
        let der: Vec<u8> = (0..100u8).collect();
        let text = encode("CERTIFICATE", &der);
        assert!(text.starts_with("-----BEGIN CERTIFICATE-----\n"));
        assert_eq!(text.lines().nth(1).map(str::len), Some(64));
        assert_eq!(
            decode(&format!("junk\n{text}")),
            Some(("CERTIFICATE".into(), der))
        );
        assert_eq!(decode("-----BEGIN X-----\n!!\n-----END X-----\n"), None);
        assert_eq!(decode("-----BEGIN X-----"), None);
        assert_eq!(decode(""), None);
    }
}
