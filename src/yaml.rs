//! The one YAML crate of the project (serde-saphyr), behind two functions so that every module
//! reads and writes YAML the same way.

use serde::Serialize;
use serde::de::DeserializeOwned;

/// Parses one YAML document.
pub fn from_str<T: DeserializeOwned>(text: &str) -> Result<T, serde_saphyr::Error> {
    serde_saphyr::from_str(text)
}

/// Parses every document of a multi-document YAML stream.
pub fn from_str_multi<T: DeserializeOwned>(text: &str) -> Result<Vec<T>, serde_saphyr::Error> {
    serde_saphyr::from_multiple(text)
}

/// Serialises a value as block-style YAML.
pub fn to_string<T: Serialize>(value: &T) -> String {
    // Serialising plain data (structs, maps with string keys, serde_json values) cannot fail;
    // an error here means a type with a non-serialisable field was added, a programming error.
    serde_saphyr::to_string(value).expect("plain data always serialises to YAML")
}
