//! A chart's `values.yaml` read once for its two readers in a run: the check that the
//! helm-operator can load the chart (on a thread of its own while the chart's files are read)
//! and the render. Each parsed redis's 100 KB of values, ~1.4 ms apiece.
//!
//! The check keeps what it read with the text it read it from, and the render takes it when it
//! reads the same text; any other text is read as before.

use serde_json::Value;

use crate::handover::Handover;

/// The documents of the last values read ahead, with their text. One is enough: a run checks
/// one chart's `values.yaml` ahead, and the render reads it once.
static KEPT: Handover<Vec<Value>> = Handover::new();

/// The documents of a values file, read as the render reads it (Helm's YAML 1.1, every
/// document of the stream).
pub fn read(text: &str) -> Result<Vec<Value>, serde_saphyr::Error> {
    KEPT.take(text.as_bytes())
        .map_or_else(|| crate::yaml::from_str_multi_yaml11(text), Ok)
}

/// Reads `text` as [`read`] does and keeps the documents for the [`read`] of the same text;
/// whether they are at most one mapping (or nothing), the shape of values that load. `None`
/// when the text does not read.
pub fn read_ahead(text: &str) -> Option<bool> {
    let documents: Vec<Value> = crate::yaml::from_str_multi_yaml11(text).ok()?;
    let one_mapping = matches!(documents.as_slice(), [] | [Value::Object(_) | Value::Null]);
    KEPT.keep(text.as_bytes().to_vec(), documents);
    Some(one_mapping)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_ahead_says_whether_the_values_are_one_mapping() {
        for (text, one_mapping) in [
            ("a: 1\n", Some(true)),
            ("", Some(true)),
            ("# only a comment\n", Some(true)),
            ("~\n", Some(true)),
            ("a: 1\n---\nb: 2\n", Some(false)),
            ("- a\n", Some(false)),
            ("just text\n", Some(false)),
            ("a: [1\n", None),
        ] {
            assert_eq!(read_ahead(text), one_mapping, "{text:?}");
        }
        // What was read ahead is what a read of the same text gives.
        let text = "image:\n  tag: 0644\n  pull: yes\n";
        read_ahead(text);
        assert_eq!(
            read(text).unwrap(),
            crate::yaml::from_str_multi_yaml11::<Value>(text).unwrap()
        );
    }
}
