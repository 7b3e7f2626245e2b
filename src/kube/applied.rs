//! What the last deploy applied to each object, kept beside kubectl's cache
//! (`<cache dir>/operator-rs/<host_port>/applied.json`), so that re-applying a file that did
//! not change needs no read first: one request per object, as `kubectl apply --server-side`.
//!
//! The record is a hint and never the truth about the cluster: the apply always happens, and
//! a missing, unreadable or foreign record only costs the read that tells the outcome apart.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::cluster::FIELD_MANAGER;
use crate::manifests::Manifest;

/// One object after our last apply of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Record {
    /// sha256 of the manifest as sent.
    pub manifest: String,
    pub resource_version: String,
    /// The `time` of our managedFields entry: the server moves it only when our apply
    /// changes the object.
    #[serde(default)]
    pub applied_at: Option<String>,
}

impl Record {
    /// The record of `manifest` applied with `object` as the answer.
    pub fn of(manifest: &Manifest, object: &Value) -> Record {
        Record {
            manifest: fingerprint(manifest),
            resource_version: resource_version(object).unwrap_or_default(),
            applied_at: our_apply_time(object),
        }
    }
}

#[derive(Debug, Default)]
pub struct Records {
    path: Option<PathBuf>,
    entries: Mutex<BTreeMap<String, Record>>,
}

impl Records {
    /// The records at `path`; none when it is missing or unreadable.
    pub fn load(path: Option<PathBuf>) -> Records {
        let entries = path
            .as_ref()
            .and_then(|p| std::fs::read(p).ok())
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_default();
        Records {
            path,
            entries: Mutex::new(entries),
        }
    }

    /// The record of `manifest`, if it was applied last time exactly as it is now.
    pub fn unchanged_since(&self, manifest: &Manifest) -> Option<Record> {
        let entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        entries
            .get(&key(manifest))
            .filter(|r| r.manifest == fingerprint(manifest))
            .cloned()
    }

    pub fn set(&self, manifest: &Manifest, record: Record) {
        let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        entries.insert(key(manifest), record);
    }

    /// Writes the records; a failure only costs reads next time, so it is the caller's to
    /// ignore.
    pub fn save(&self) -> std::io::Result<()> {
        let Some(path) = &self.path else {
            return Ok(());
        };
        let bytes = {
            let entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
            serde_json::to_vec(&*entries).map_err(std::io::Error::other)?
        };
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        crate::fsutil::write_atomic(path, &bytes)
    }
}

/// `apiVersion kind namespace/name`: one object on one server.
fn key(manifest: &Manifest) -> String {
    format!(
        "{} {} {}/{}",
        manifest.api_version(),
        manifest.kind(),
        manifest.namespace().unwrap_or_default(),
        manifest.name()
    )
}

fn fingerprint(manifest: &Manifest) -> String {
    let bytes = serde_json::to_vec(&manifest.object).unwrap_or_default();
    format!("{:x}", Sha256::digest(&bytes))
}

pub fn resource_version(object: &Value) -> Option<String> {
    object
        .pointer("/metadata/resourceVersion")
        .and_then(Value::as_str)
        .map(String::from)
}

/// The time of our `Apply` entry in `managedFields`.
pub fn our_apply_time(object: &Value) -> Option<String> {
    object
        .pointer("/metadata/managedFields")
        .and_then(Value::as_array)?
        .iter()
        .find(|e| e["manager"] == FIELD_MANAGER && e["operation"] == "Apply")
        .and_then(|e| e["time"].as_str())
        .map(String::from)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn manifest(image: &str) -> Manifest {
        Manifest {
            origin: crate::manifests::Origin::Cluster,
            object: json!({"apiVersion": "apps/v1", "kind": "Deployment",
                           "metadata": {"name": "op", "namespace": "demo"},
                           "spec": {"image": image}}),
        }
    }

    #[test]
    fn records_survive_a_save_and_match_only_the_same_manifest() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a/b/applied.json");
        let records = Records::load(Some(path.clone()));
        let answer = json!({"metadata": {"resourceVersion": "7", "managedFields": [
            {"manager": "kubectl", "operation": "Apply", "time": "2026-01-01T00:00:00Z"},
            {"manager": "operator-rs", "operation": "Apply", "time": "2026-01-02T00:00:00Z"}
        ]}});
        records.set(&manifest("a"), Record::of(&manifest("a"), &answer));
        records.save().unwrap();

        let again = Records::load(Some(path));
        let record = again.unchanged_since(&manifest("a")).unwrap();
        assert_eq!(record.resource_version, "7");
        assert_eq!(record.applied_at.as_deref(), Some("2026-01-02T00:00:00Z"));
        assert!(again.unchanged_since(&manifest("b")).is_none());
        assert!(
            Records::load(None)
                .unchanged_since(&manifest("a"))
                .is_none()
        );
    }
}
