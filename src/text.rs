//! Text from bytes read off disk or out of archives.

use std::borrow::Cow;

/// The bytes as UTF-8 text, with any invalid sequence replaced as
/// [`String::from_utf8_lossy`] replaces it. Files are almost always valid UTF-8, and the strict
/// check runs about ten times faster than the lossy one on valid text (75 vs 7 us for redis's
/// 224 KB README), which counts when every file of a chart is read as text several times.
pub fn lossy(bytes: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn valid_text_is_borrowed_and_invalid_bytes_are_replaced() {
        assert!(matches!(
            super::lossy(b"a: 1"),
            std::borrow::Cow::Borrowed("a: 1")
        ));
        assert_eq!(super::lossy(b"a\xffb"), String::from_utf8_lossy(b"a\xffb"));
    }
}
