//! The one YAML crate of the project (serde-saphyr), behind these functions so that every module
//! reads and writes YAML the same way.

use serde::Serialize;
use serde::de::DeserializeOwned;

/// The options every read starts from. Nothing here reads YAML comments, so the parser only
/// checks them instead of handing each one on as an event: charts comment their values.yaml
/// heavily (`## @param` on every key), and those events were a fifth of a values parse.
fn options() -> serde_saphyr::Options {
    serde_saphyr::options! { emit_comments: false }
}

/// Parses one YAML document.
pub fn from_str<T: DeserializeOwned>(text: &str) -> Result<T, serde_saphyr::Error> {
    serde_saphyr::from_str_with_options(text, options())
}

/// Parses every document of a multi-document YAML stream.
pub fn from_str_multi<T: DeserializeOwned>(text: &str) -> Result<Vec<T>, serde_saphyr::Error> {
    serde_saphyr::from_multiple_with_options(text, options())
}

/// Serialises a value as block-style YAML.
pub fn to_string<T: Serialize>(value: &T) -> String {
    // Serialising plain data (structs, maps with string keys, serde_json values) cannot fail;
    // an error here means a type with a non-serialisable field was added, a programming error.
    serde_saphyr::to_string(value).expect("plain data always serialises to YAML")
}

/// Parses one large, machine-written document (a chart repository's `index.yaml` runs to tens of
/// MiB): the default budget, sized for hand-written files, would refuse it. Anchor and alias
/// limits stay at their defaults, so an alias bomb is still refused.
pub fn from_str_large<T: DeserializeOwned>(text: &str) -> Result<T, serde_saphyr::Error> {
    let mut budget = serde_saphyr::Budget::default();
    budget.max_reader_input_bytes = Some(512 * 1024 * 1024);
    budget.max_events = 100_000_000;
    budget.max_nodes = 50_000_000;
    budget.max_total_scalar_bytes = 512 * 1024 * 1024;
    let mut options = options();
    options.budget = Some(budget);
    serde_saphyr::from_str_with_options(text, options)
}

/// Parses values as Helm's YAML library (YAML 1.1) reads them: `yes`/`no`/`on`/`off` are
/// booleans and `0644` is an octal number.
pub fn from_str_yaml11<T: DeserializeOwned>(text: &str) -> Result<T, serde_saphyr::Error> {
    serde_saphyr::from_str_with_options(text, yaml11())
}

fn yaml11() -> serde_saphyr::Options {
    let mut options = options();
    options.legacy_octal_numbers = true;
    options
}

/// Every document of a stream, read as [`from_str_yaml11`] reads one.
pub fn from_str_multi_yaml11<T: DeserializeOwned>(
    text: &str,
) -> Result<Vec<T>, serde_saphyr::Error> {
    serde_saphyr::from_multiple_with_options(text, yaml11())
}

/// Parses one document as Go programs built on sigs.k8s.io/yaml (go-yaml v2) read their
/// configuration, the helm-operator's watches.yaml for one: YAML 1.1 scalars and the last of
/// repeated keys wins.
pub fn from_str_go<T: DeserializeOwned>(text: &str) -> Result<T, serde_saphyr::Error> {
    let mut options = yaml11();
    options.duplicate_keys = serde_saphyr::DuplicateKeyPolicy::LastWins;
    serde_saphyr::from_str_with_options(text, options)
}

/// Parses one document as Helm's YAML reader (go-yaml v2 through sigs.k8s.io/yaml) does with
/// repeated keys: the last one wins. The strict default would refuse charts Helm loads.
pub fn from_str_last_key_wins<T: DeserializeOwned>(text: &str) -> Result<T, serde_saphyr::Error> {
    let mut options = options();
    options.duplicate_keys = serde_saphyr::DuplicateKeyPolicy::LastWins;
    serde_saphyr::from_str_with_options(text, options)
}
