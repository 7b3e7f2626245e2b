//! A chart's `values.yaml` read once for its two readers in a run: the check that the
//! helm-operator can load the chart (on a thread of its own while the chart's files are read)
//! and the render. Each parsed redis's 100 KB of values, ~1.4 ms apiece.
//!
//! The check keeps what it read with the text it read it from, and the render takes it when it
//! reads the same text; any other text is read as before.

use std::sync::{Mutex, PoisonError};

use serde_json::Value;

/// The documents of the last values read ahead, with their text. One is enough: a run checks
/// one chart's `values.yaml` ahead, and the render reads it once.
static KEPT: Kept = Kept::new();

/// The documents of a values file, read as the render reads it (Helm's YAML 1.1, every
/// document of the stream).
pub fn read(text: &str) -> Result<Vec<Value>, serde_saphyr::Error> {
    KEPT.take(text)
        .map_or_else(|| crate::yaml::from_str_multi_yaml11(text), Ok)
}

/// Reads `text` as [`read`] does and keeps the documents for the [`read`] of the same text;
/// whether they are at most one mapping (or nothing), the shape of values that load. `None`
/// when the text does not read.
pub fn read_ahead(text: &str) -> Option<bool> {
    let documents: Vec<Value> = crate::yaml::from_str_multi_yaml11(text).ok()?;
    let one_mapping = matches!(documents.as_slice(), [] | [Value::Object(_) | Value::Null]);
    KEPT.keep(text, documents);
    Some(one_mapping)
}

struct Kept(Mutex<Option<(String, Vec<Value>)>>);

impl Kept {
    const fn new() -> Kept {
        Kept(Mutex::new(None))
    }

    fn keep(&self, text: &str, documents: Vec<Value>) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) =
            Some((text.to_string(), documents));
    }

    /// The kept documents when they were read from `text`, compared byte for byte; they are
    /// handed over, not copied, so a second read of the same text parses it again.
    fn take(&self, text: &str) -> Option<Vec<Value>> {
        let mut kept = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if kept
            .as_ref()
            .is_some_and(|(kept_text, _)| kept_text == text)
        {
            return kept.take().map(|(_, documents)| documents);
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_text_is_read_once_and_other_text_as_before() {
        let kept = Kept::new();
        kept.keep("a: 1\n", vec![serde_json::json!({"a": 1})]);
        assert_eq!(kept.take("a: 2\n"), None);
        assert_eq!(kept.take("a: 1\n"), Some(vec![serde_json::json!({"a": 1})]));
        // Handed over once: the next reader of the same text reads it itself.
        assert_eq!(kept.take("a: 1\n"), None);
    }

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
