//! Helm charts: loading one from where it lives, and reading what is in it.
//!
//! A chart is held in memory as its files (relative path -> bytes). That keeps extraction
//! checks in one place, lets every reader (values, schema, kinds) work the same way whatever the
//! chart's origin, and lets `scaffold` copy the files byte for byte.

pub mod archive;
pub mod dependencies;
pub mod download;
pub mod helm_paths;
pub mod kinds;
pub mod loadable;
pub mod local;
pub mod oci;
pub mod repo;
pub mod resolve;
pub mod source;
pub mod stamp;
pub mod version;

pub use loadable::Refusal;
pub use resolve::{ResolveError, ResolveOptions, Resolved, resolve, resolve_with};
pub use source::ChartSource;

use std::collections::BTreeMap;

use serde::Deserialize;
use thiserror::Error;

/// The largest chart we accept, expanded: Helm's own limit for a decompressed chart.
pub const MAX_CHART_BYTES: u64 = 100 * 1024 * 1024;
/// The largest single file we accept in a chart: Helm's own limit.
pub const MAX_FILE_BYTES: u64 = 5 * 1024 * 1024;

#[derive(Debug, Error)]
pub enum ChartError {
    #[error("chart {0} does not exist")]
    Missing(String),
    #[error("cannot read chart {0}: {1}")]
    Unreadable(String, String),
    #[error(
        "chart {0} has no Chart.yaml at its top level: a Helm chart is a directory (or .tgz) with Chart.yaml, values.yaml and templates/"
    )]
    NoChartYaml(String),
    #[error("Chart.yaml of chart {0} is invalid: {1}")]
    BadChartYaml(String, String),
    /// Helm would refuse to load the chart; `commands` turns this into the full explanation.
    #[error("Helm cannot load chart {origin}: {file}, {refusal}", file = refusal.file)]
    Unloadable {
        origin: String,
        refusal: Box<Refusal>,
    },
    #[error("chart archive {0} is not a valid gzip-compressed tar file: {1}")]
    CorruptArchive(String, String),
    #[error("chart archive {0} has an unsafe entry \"{1}\": {2}; refusing to extract it")]
    UnsafeEntry(String, String, String),
    #[error("chart {0} is larger than {limit} MiB expanded (\"{1}\" passed the limit); refusing to load it", limit = MAX_CHART_BYTES / 1024 / 1024)]
    TooLarge(String, String),
    #[error("file \"{1}\" of chart {0} is larger than {limit} MiB; refusing to load it", limit = MAX_FILE_BYTES / 1024 / 1024)]
    FileTooLarge(String, String),
}

/// The fields of `Chart.yaml` this tool reads.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChartMetadata {
    pub name: String,
    /// Kept as text: unreleased charts carry placeholders such as rancher's `%VERSION%`.
    #[serde(default, deserialize_with = "string_or_number")]
    pub version: Option<String>,
    #[serde(default, deserialize_with = "string_or_number")]
    pub app_version: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
}

fn string_or_number<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    let value = Option::<serde_json::Value>::deserialize(d)?;
    Ok(value.map(|v| match v {
        serde_json::Value::String(s) => s,
        other => other.to_string(),
    }))
}

/// Quotes top-level plain values that start with a character YAML reserves (`%`, `@`, `` ` ``),
/// so that the name of an unreleased chart (rancher's `version: %VERSION%`) can be read for
/// messages and for `--set-chart-version`; [`loadable::check`] still refuses such a chart.
fn quote_placeholders(text: &str) -> String {
    text.lines()
        .map(|line| match line.split_once(": ") {
            Some((key, value))
                if !key.starts_with([' ', '#'])
                    && value.trim_start().starts_with(['%', '@', '`']) =>
            {
                let value = value.trim();
                format!("{key}: '{}'", value.replace('\'', "''"))
            }
            _ => line.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A chart held in memory.
#[derive(Debug, Clone)]
pub struct Chart {
    /// Where it came from, for messages (a path or a URL).
    pub origin: String,
    pub metadata: ChartMetadata,
    /// Relative path (with `/` separators) -> exact bytes.
    pub files: BTreeMap<String, Vec<u8>>,
}

impl Chart {
    /// Builds a chart from its files, reading `Chart.yaml`.
    pub fn from_files(origin: &str, files: BTreeMap<String, Vec<u8>>) -> Result<Self, ChartError> {
        let chart_yaml = files
            .get("Chart.yaml")
            .ok_or_else(|| ChartError::NoChartYaml(origin.to_string()))?;
        let text = crate::text::lossy(chart_yaml);
        let metadata: ChartMetadata = crate::yaml::from_str_last_key_wins(&text)
            .or_else(|first_error| {
                // Unreleased charts carry build placeholders such as `version: %VERSION%`, which
                // strict YAML rejects (`%` starts a directive). Quote such values and retry.
                crate::yaml::from_str_last_key_wins(&quote_placeholders(&text))
                    .map_err(|_| first_error)
            })
            .map_err(|e| {
                unloadable(origin, &files)
                    .unwrap_or_else(|| ChartError::BadChartYaml(origin.to_string(), e.to_string()))
            })?;
        if metadata.name.trim().is_empty() {
            return Err(unloadable(origin, &files).unwrap_or_else(|| {
                ChartError::BadChartYaml(origin.to_string(), "`name` is empty".to_string())
            }));
        }
        Ok(Chart {
            origin: origin.to_string(),
            metadata,
            files,
        })
    }

    pub fn name(&self) -> &str {
        &self.metadata.name
    }

    /// `values.yaml` as text (empty when the chart has none).
    pub fn values_text(&self) -> String {
        self.files
            .get("values.yaml")
            .map(|b| crate::text::lossy(b).into_owned())
            .unwrap_or_default()
    }

    /// `values.schema.json`, parsed, when the chart has one.
    pub fn values_schema(&self) -> Result<Option<serde_json::Value>, ChartError> {
        match self.files.get("values.schema.json") {
            None => Ok(None),
            Some(bytes) => serde_json::from_slice(bytes).map(Some).map_err(|e| {
                ChartError::BadChartYaml(
                    self.origin.clone(),
                    format!("values.schema.json is not valid JSON: {e}"),
                )
            }),
        }
    }
}

/// The real charts the unit tests read (`../shared/charts` beside the checkout, or where
/// `OPERATOR_RS_SHARED_CHARTS` says, as for the integration tests).
#[cfg(test)]
pub(crate) fn shared_charts_dir() -> std::path::PathBuf {
    std::env::var_os("OPERATOR_RS_SHARED_CHARTS")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/charts")
        })
}

/// The paths under [`shared_charts_dir`] that `keep` picks, directories included: the real
/// texts unit tests hold a reader to.
#[cfg(test)]
pub(crate) fn shared_chart_paths(
    keep: impl Fn(&std::path::Path) -> bool,
) -> Vec<std::path::PathBuf> {
    walkdir::WalkDir::new(shared_charts_dir())
        .into_iter()
        .flatten()
        .filter(|entry| keep(entry.path()))
        .map(walkdir::DirEntry::into_path)
        .collect()
}

/// The refusal Helm's rules give `files`, if any, as an error.
fn unloadable(origin: &str, files: &BTreeMap<String, Vec<u8>>) -> Option<ChartError> {
    unloadable_judged(origin, files, None)
}

/// [`unloadable`], with the top `values.yaml` judged ahead (see [`loadable::JudgedValues`]).
fn unloadable_judged(
    origin: &str,
    files: &BTreeMap<String, Vec<u8>>,
    judged: Option<&loadable::JudgedValues>,
) -> Option<ChartError> {
    loadable::check_judged(files, judged)
        .err()
        .map(|refusal| ChartError::Unloadable {
            origin: origin.to_string(),
            refusal: Box::new(refusal),
        })
}

/// Writes `set_version` (already checked to be semver) into the chart's `Chart.yaml` when
/// given, then checks that Helm would load the chart, its `values.yaml` as `judged` found it
/// if that judged the same bytes. Returns the chart and the keys written.
pub fn make_loadable(
    chart: Chart,
    set_version: Option<&str>,
    judged: Option<&loadable::JudgedValues>,
) -> Result<(Chart, Vec<&'static str>), ChartError> {
    let (chart, keys) = match set_version {
        None => (chart, Vec::new()),
        Some(version) => {
            let text = chart
                .files
                .get("Chart.yaml")
                .map(|b| crate::text::lossy(b).into_owned())
                .unwrap_or_default();
            let stamped = stamp::set_version(&text, version);
            let mut files = chart.files;
            files.insert("Chart.yaml".to_string(), stamped.text.into_bytes());
            (Chart::from_files(&chart.origin, files)?, stamped.keys)
        }
    };
    match unloadable_judged(&chart.origin, &chart.files, judged) {
        Some(error) => Err(error),
        None => Ok((chart, keys)),
    }
}

/// Loads a chart from a local directory or `.tgz` file.
pub fn load_local(path: &std::path::Path) -> Result<Chart, ChartError> {
    local::load(path)
}
