//! `operator-rs generate crds`: running a Rust project's `crdgen`, splitting what it prints
//! into one file per CRD, and rewriting only the CRD files whose text changed.

use std::path::{Path, PathBuf};
use std::process::Command;

use thiserror::Error;

use crate::names::{Group, parse_plural};

#[derive(Debug, Error)]
pub enum CrdgenError {
    #[error("cannot run cargo ({0}): install Rust (rustup) or put cargo on PATH")]
    Spawn(std::io::Error),
    #[error("`cargo run --bin crdgen` failed ({status}); fix the errors it printed:\n{stderr}")]
    Failed { status: String, stderr: String },
    #[error("document {index} that crdgen printed is not valid YAML: {message}")]
    Yaml { index: usize, message: String },
    #[error(
        "document {index} that crdgen printed is not a CustomResourceDefinition with spec.group and spec.names.plural"
    )]
    NotACrd { index: usize },
    #[error("document {index} that crdgen printed has an unusable name: {message}")]
    BadName { index: usize, message: String },
    #[error("crdgen printed no CustomResourceDefinition: check src/api/mod.rs")]
    Empty,
    #[error("cannot write {0}: {1}")]
    Write(PathBuf, std::io::Error),
    #[error("cannot read {0}: {1}")]
    Read(PathBuf, std::io::Error),
}

/// Runs `cargo run --bin crdgen` in `root` and returns what it printed.
pub fn run(root: &Path) -> Result<String, CrdgenError> {
    // Inside `cargo run`/`cargo test` CARGO names the cargo that is running; use the same one.
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .args(["run", "--quiet", "--bin", "crdgen"])
        .current_dir(root)
        .output()
        .map_err(CrdgenError::Spawn)?;
    if !output.status.success() {
        return Err(CrdgenError::Failed {
            status: output.status.to_string(),
            stderr: String::from_utf8_lossy(&output.stderr)
                .trim_end()
                .to_string(),
        });
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// One CRD: its file name under `deploy/crds/` and its text, starting with `---`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CrdDocument {
    pub file_name: String,
    pub text: String,
}

/// Splits crdgen's output at `---` lines into documents named `<group>_<plural>_crd.yaml`.
pub fn split(output: &str) -> Result<Vec<CrdDocument>, CrdgenError> {
    let mut texts: Vec<String> = Vec::new();
    for line in output.split_inclusive('\n') {
        if line.trim_end() == "---" || texts.is_empty() {
            texts.push(String::new());
        }
        if let Some(current) = texts.last_mut() {
            current.push_str(line);
        }
    }
    let mut documents = Vec::new();
    for (index, text) in texts.into_iter().enumerate() {
        let index = index + 1;
        let value: serde_json::Value =
            crate::yaml::from_str(&text).map_err(|e| CrdgenError::Yaml {
                index,
                message: e.to_string(),
            })?;
        if value.is_null() {
            continue;
        }
        let kind = value.get("kind").and_then(|k| k.as_str());
        let spec = value.get("spec");
        let group = spec.and_then(|s| s.get("group")).and_then(|g| g.as_str());
        let plural = spec
            .and_then(|s| s.get("names"))
            .and_then(|n| n.get("plural"))
            .and_then(|p| p.as_str());
        let (Some("CustomResourceDefinition"), Some(group), Some(plural)) = (kind, group, plural)
        else {
            return Err(CrdgenError::NotACrd { index });
        };
        // Both become a file name: only names the API server accepts, so never a path.
        let bad_name = |e: crate::names::NameError| CrdgenError::BadName {
            index,
            message: e.to_string(),
        };
        let group = Group::parse(group).map_err(bad_name)?;
        let plural = parse_plural(plural).map_err(bad_name)?;
        let text = if text.starts_with("---") {
            text
        } else {
            format!("---\n{text}")
        };
        documents.push(CrdDocument {
            file_name: format!("{group}_{plural}_crd.yaml"),
            text,
        });
    }
    if documents.is_empty() {
        return Err(CrdgenError::Empty);
    }
    Ok(documents)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    Created,
    Updated,
    Unchanged,
}

/// What happened to each CRD file, and the CRD files in `deploy/crds/` that crdgen no longer
/// prints (left in place: deleting a CRD deletes every object of it, a decision for a person).
#[derive(Debug, Default)]
pub struct Outcome {
    pub files: Vec<(String, Change)>,
    pub stale: Vec<String>,
}

/// Writes each document to `<root>/deploy/crds/<file>` when its text differs; with `dry_run`
/// only reports what would change. Sample files (`*_cr.yaml`) are never touched.
pub fn write(
    root: &Path,
    documents: &[CrdDocument],
    dry_run: bool,
) -> Result<Outcome, CrdgenError> {
    let dir = root.join("deploy").join("crds");
    let mut outcome = Outcome::default();
    for document in documents {
        let path = dir.join(&document.file_name);
        let change = match std::fs::read(&path) {
            Ok(existing) if existing == document.text.as_bytes() => Change::Unchanged,
            Ok(_) => Change::Updated,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Change::Created,
            Err(e) => return Err(CrdgenError::Read(path, e)),
        };
        if change != Change::Unchanged && !dry_run {
            std::fs::create_dir_all(&dir).map_err(|e| CrdgenError::Write(dir.clone(), e))?;
            crate::fsutil::write_atomic(&path, document.text.as_bytes())
                .map_err(|e| CrdgenError::Write(path.clone(), e))?;
        }
        outcome.files.push((document.file_name.clone(), change));
    }
    if let Ok(entries) = std::fs::read_dir(&dir) {
        let mut stale: Vec<String> = entries
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|name| name.ends_with("_crd.yaml"))
            .filter(|name| !documents.iter().any(|d| &d.file_name == name))
            .collect();
        stale.sort();
        outcome.stale = stale;
    }
    Ok(outcome)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO: &str = "---\n# header\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: as.a.example.com\nspec:\n  group: a.example.com\n  names:\n    plural: as\n---\n# header\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: bs.b.example.com\nspec:\n  group: b.example.com\n  names:\n    plural: bs\n";

    #[test]
    fn splits_documents_and_names_files() {
        let docs = split(TWO).unwrap();
        assert_eq!(docs.len(), 2);
        assert_eq!(docs[0].file_name, "a.example.com_as_crd.yaml");
        assert_eq!(docs[1].file_name, "b.example.com_bs_crd.yaml");
        assert!(docs[1].text.starts_with("---\n# header\n"));
        assert_eq!(format!("{}{}", docs[0].text, docs[1].text), TWO);
    }

    #[test]
    fn refuses_names_that_would_escape_the_directory() {
        let evil = TWO.replacen("group: a.example.com", "group: ../../etc", 1);
        assert!(matches!(
            split(&evil),
            Err(CrdgenError::BadName { index: 1, .. })
        ));
        let not_crd = "---\nkind: ConfigMap\n";
        assert!(matches!(
            split(not_crd),
            Err(CrdgenError::NotACrd { index: 1 })
        ));
        assert!(matches!(split(""), Err(CrdgenError::Empty)));
    }

    #[test]
    fn writes_only_changed_files_and_reports_stale_ones() {
        let root = tempfile::tempdir().unwrap();
        let crds = root.path().join("deploy/crds");
        std::fs::create_dir_all(&crds).unwrap();
        let docs = split(TWO).unwrap();
        std::fs::write(crds.join(&docs[0].file_name), &docs[0].text).unwrap();
        std::fs::write(crds.join("old.example.com_olds_crd.yaml"), "old").unwrap();
        std::fs::write(crds.join("a.example.com_v1_a_cr.yaml"), "sample").unwrap();

        let dry = write(root.path(), &docs, true).unwrap();
        assert_eq!(dry.files[1].1, Change::Created);
        assert!(!crds.join(&docs[1].file_name).exists());

        let outcome = write(root.path(), &docs, false).unwrap();
        assert_eq!(outcome.files[0].1, Change::Unchanged);
        assert_eq!(outcome.files[1].1, Change::Created);
        assert_eq!(outcome.stale, ["old.example.com_olds_crd.yaml"]);
        assert_eq!(
            std::fs::read_to_string(crds.join("a.example.com_v1_a_cr.yaml")).unwrap(),
            "sample"
        );
        let again = write(root.path(), &docs, false).unwrap();
        assert!(again.files.iter().all(|(_, c)| *c == Change::Unchanged));
    }
}
