//! Helm's semantics on top of the Go template engine: a chart's tree of subcharts, values
//! coalesced as Helm does, the objects templates see (`.Release`, `.Chart`, `.Files`,
//! `.Capabilities`, ...), Helm's own template functions, and what becomes of the rendered text
//! (hooks apart, kinds in install order, NOTES).

pub mod capabilities;
pub mod dependencies;
pub mod engine;
pub mod funcs;
pub mod glob;
pub mod go_json;
pub mod go_toml;
pub mod go_yaml;
pub mod manifest_head;
pub mod manifests;
pub mod objects;
pub mod probe;
pub mod release;
pub mod schema;
pub mod strvals;
pub mod tree;
pub mod values;
pub mod version_watch;
