//! Chart repositories for tests: the shared charts packaged as `.tgz` at chosen versions, and an
//! `index.yaml` with their real sha256 digests, laid out in a directory a test server serves.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use operator_rs::chart::archive::write_tgz;
use operator_rs::chart::download::sha256_hex;

pub use super::project::shared_chart;

/// The files of a shared chart.
pub fn chart_files(name: &str) -> BTreeMap<String, Vec<u8>> {
    operator_rs::chart::load_local(&shared_chart(name))
        .unwrap_or_else(|e| panic!("shared chart {name}: {e}"))
        .files
}

/// The files with `version:` in Chart.yaml replaced.
pub fn with_version(files: &BTreeMap<String, Vec<u8>>, version: &str) -> BTreeMap<String, Vec<u8>> {
    let mut files = files.clone();
    let chart_yaml = String::from_utf8(files["Chart.yaml"].clone()).unwrap();
    let replaced: Vec<String> = chart_yaml
        .lines()
        .map(|line| {
            if line.starts_with("version:") {
                format!("version: {version}")
            } else {
                line.to_string()
            }
        })
        .collect();
    files.insert(
        "Chart.yaml".into(),
        (replaced.join("\n") + "\n").into_bytes(),
    );
    files
}

/// The files with extra text appended to Chart.yaml.
pub fn with_chart_yaml_tail(
    files: &BTreeMap<String, Vec<u8>>,
    tail: &str,
) -> BTreeMap<String, Vec<u8>> {
    let mut files = files.clone();
    let mut chart_yaml = files["Chart.yaml"].clone();
    chart_yaml.extend_from_slice(tail.as_bytes());
    files.insert("Chart.yaml".into(), chart_yaml);
    files
}

/// One version in an index.
pub struct IndexEntry {
    pub name: String,
    pub version: String,
    pub url: String,
    pub digest: Option<String>,
}

/// A repository being laid out in `root` (served as the repository URL).
pub struct RepoDir {
    pub root: PathBuf,
    entries: Vec<IndexEntry>,
}

impl RepoDir {
    pub fn new(root: &Path) -> RepoDir {
        std::fs::create_dir_all(root).unwrap();
        RepoDir {
            root: root.to_path_buf(),
            entries: Vec::new(),
        }
    }

    /// Writes `bytes` at `root/<file>` and lists it in the index under `url` (relative or
    /// absolute) with the digest of `digest_of` (normally the same bytes).
    pub fn add_raw(
        &mut self,
        name: &str,
        version: &str,
        file: &str,
        url: &str,
        bytes: &[u8],
        digest_of: Option<&[u8]>,
    ) {
        let path = self.root.join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, bytes).unwrap();
        self.entries.push(IndexEntry {
            name: name.to_string(),
            version: version.to_string(),
            url: url.to_string(),
            digest: digest_of.map(sha256_hex),
        });
    }

    /// Packages `files` as `<name>-<version>.tgz` under `dir` (relative to root) and lists it
    /// with a relative URL. Returns the archive.
    pub fn add(
        &mut self,
        name: &str,
        version: &str,
        dir: &str,
        files: &BTreeMap<String, Vec<u8>>,
    ) -> Vec<u8> {
        let bytes = write_tgz(name, &with_version(files, version)).unwrap();
        let file = if dir.is_empty() {
            format!("{name}-{version}.tgz")
        } else {
            format!("{dir}/{name}-{version}.tgz")
        };
        self.add_raw(name, version, &file, &file, &bytes, Some(&bytes));
        bytes
    }

    /// Writes `index.yaml`.
    pub fn write_index(&self) {
        let mut by_name: BTreeMap<&str, Vec<&IndexEntry>> = BTreeMap::new();
        for entry in &self.entries {
            by_name.entry(&entry.name).or_default().push(entry);
        }
        let mut text = String::from("apiVersion: v1\nentries:\n");
        for (name, entries) in by_name {
            text.push_str(&format!("  {name}:\n"));
            for e in entries {
                text.push_str(&format!(
                    "  - apiVersion: v2\n    name: {}\n    version: {}\n    created: \"2026-01-01T00:00:00Z\"\n    urls:\n    - {}\n",
                    e.name, e.version, e.url
                ));
                if let Some(digest) = &e.digest {
                    text.push_str(&format!("    digest: {digest}\n"));
                }
            }
        }
        text.push_str("generated: \"2026-01-01T00:00:00Z\"\n");
        std::fs::write(self.root.join("index.yaml"), text).unwrap();
    }
}

/// Writes a `repositories.yaml` as `helm repo add` would, from (name, url, extra YAML lines).
pub fn write_repositories(path: &Path, entries: &[(&str, &str, &str)]) {
    let mut text =
        String::from("apiVersion: \"\"\ngenerated: \"0001-01-01T00:00:00Z\"\nrepositories:\n");
    for (name, url, extra) in entries {
        text.push_str(&format!("- name: {name}\n  url: {url}\n"));
        for line in extra.lines() {
            text.push_str(&format!("  {line}\n"));
        }
        // The empty defaults `helm repo add` writes for flags not given.
        for (key, default) in [
            ("caFile", "\"\""),
            ("certFile", "\"\""),
            ("keyFile", "\"\""),
            ("insecure_skip_tls_verify", "false"),
            ("pass_credentials_all", "false"),
            ("username", "\"\""),
            ("password", "\"\""),
        ] {
            if !extra.lines().any(|l| l.starts_with(&format!("{key}:"))) {
                text.push_str(&format!("  {key}: {default}\n"));
            }
        }
    }
    std::fs::write(path, text).unwrap();
}
