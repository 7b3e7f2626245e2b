//! What `generate chart` wrote last: the SHA-256 of each file, in a small file inside the
//! chart (left out of packages by `.helmignore`). A file whose bytes still hash to the record
//! is the tool's and may be replaced; any other was edited by the user.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::USER_FILES;
use crate::scaffold::FilePlan;
use crate::scaffold::write::{self, Applied};
use crate::ship::ShipError;

pub const STATE_FILE: &str = ".operator-rs-chart.json";

#[derive(Debug, Default, Serialize, Deserialize)]
struct State {
    /// Relative path -> SHA-256 (hex) of the bytes the tool wrote.
    files: BTreeMap<String, String>,
}

/// What a generation will do to the chart directory.
#[derive(Debug, Default)]
pub struct Plan {
    /// The directory does not exist yet (or is empty): it is made whole.
    pub fresh: bool,
    /// Files to write, the record included.
    pub write: FilePlan,
    /// User files that were edited and are kept as they are.
    pub kept: Vec<String>,
    /// Files the tool wrote before and generates no more, unchanged since: removed.
    pub remove: Vec<String>,
    /// Files the tool wrote before and generates no more, but edited since: left in place.
    pub left: Vec<String>,
}

fn hash(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Decides, for every generated file, whether to write or keep it. Edits to the tool's own
/// files are refused without `force`, before anything is written.
pub fn plan(
    dir: &Path,
    generated: &BTreeMap<String, Vec<u8>>,
    force: bool,
) -> Result<Plan, ShipError> {
    let fresh = std::fs::read_dir(dir).map_or(true, |mut entries| entries.next().is_none());
    let mut plan = Plan {
        fresh,
        ..Plan::default()
    };
    let state_path = dir.join(STATE_FILE);
    let old = if fresh {
        State::default()
    } else {
        match std::fs::read_to_string(&state_path) {
            Ok(text) => serde_json::from_str(&text)
                .map_err(|e| ShipError::State(state_path.clone(), e.to_string()))?,
            Err(_) if force => State::default(),
            Err(_) => return Err(ShipError::ForeignChart(dir.to_path_buf())),
        }
    };

    let mut new = State::default();
    let mut edited = Vec::new();
    for (path, bytes) in generated {
        let on_disk = if fresh {
            None
        } else {
            std::fs::read(dir.join(path)).ok()
        };
        let recorded = old.files.get(path);
        let wanted = hash(bytes);
        match on_disk {
            Some(disk) if disk == *bytes => {}
            Some(disk) if !force && recorded != Some(&hash(&disk)) => {
                if USER_FILES.contains(&path.as_str()) {
                    plan.kept.push(path.clone());
                    // Still the user's edit next time: the record keeps what the tool wrote.
                    new.files
                        .insert(path.clone(), recorded.cloned().unwrap_or(wanted));
                    continue;
                }
                edited.push(path.clone());
                continue;
            }
            _ => plan.write.add(path.clone(), bytes.clone()),
        }
        new.files.insert(path.clone(), wanted);
    }
    if !edited.is_empty() {
        return Err(ShipError::EditedOwnedFiles {
            dir: dir.to_path_buf(),
            files: edited,
        });
    }
    for (path, recorded) in &old.files {
        if generated.contains_key(path) {
            continue;
        }
        match std::fs::read(dir.join(path)) {
            Ok(disk) if hash(&disk) == *recorded => plan.remove.push(path.clone()),
            Ok(_) => plan.left.push(path.clone()),
            Err(_) => {}
        }
    }
    let mut record = serde_json::to_string_pretty(&new).unwrap_or_default();
    record.push('\n');
    plan.write.add(STATE_FILE, record.into_bytes());
    Ok(plan)
}

/// Carries the plan out: a new directory is made whole from a staging directory; an existing
/// one gets its changed files all together (put back as they were if one fails).
pub fn apply(dir: &Path, plan: &Plan) -> Result<Applied, ShipError> {
    let io = |e: write::WriteError| {
        ShipError::Write(dir.to_path_buf(), std::io::Error::other(e.to_string()))
    };
    let applied = if plan.fresh {
        write::create_project(dir, &plan.write).map_err(io)?;
        Applied {
            created: plan.write.iter().map(|(p, _)| p.clone()).collect(),
            changed: Vec::new(),
        }
    } else {
        write::apply_changes(dir, &plan.write).map_err(io)?
    };
    for path in &plan.remove {
        std::fs::remove_file(dir.join(path)).map_err(|e| ShipError::Write(dir.join(path), e))?;
    }
    Ok(applied)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn generated(values: &str) -> BTreeMap<String, Vec<u8>> {
        BTreeMap::from([
            ("values.yaml".to_string(), values.as_bytes().to_vec()),
            ("templates/a.yaml".to_string(), b"a: 1\n".to_vec()),
        ])
    }

    #[test]
    fn edits_to_user_files_are_kept_and_to_owned_files_refused() {
        let dir = tempfile::tempdir().unwrap();
        let chart = dir.path().join("chart");
        let first = plan(&chart, &generated("x: 1\n"), false).unwrap();
        assert!(first.fresh);
        apply(&chart, &first).unwrap();

        // Untouched: the new values.yaml replaces the old one.
        let second = plan(&chart, &generated("x: 2\n"), false).unwrap();
        assert!(second.kept.is_empty());
        apply(&chart, &second).unwrap();
        assert_eq!(
            std::fs::read_to_string(chart.join("values.yaml")).unwrap(),
            "x: 2\n"
        );

        // Edited: kept, and still kept the time after.
        std::fs::write(chart.join("values.yaml"), "x: mine\n").unwrap();
        for _ in 0..2 {
            let third = plan(&chart, &generated("x: 3\n"), false).unwrap();
            assert_eq!(third.kept, ["values.yaml"]);
            apply(&chart, &third).unwrap();
            assert_eq!(
                std::fs::read_to_string(chart.join("values.yaml")).unwrap(),
                "x: mine\n"
            );
        }
        let forced = plan(&chart, &generated("x: 3\n"), true).unwrap();
        apply(&chart, &forced).unwrap();
        assert_eq!(
            std::fs::read_to_string(chart.join("values.yaml")).unwrap(),
            "x: 3\n"
        );

        std::fs::write(chart.join("templates/a.yaml"), "a: 2\n").unwrap();
        let err = plan(&chart, &generated("x: 3\n"), false).unwrap_err();
        assert!(err.to_string().contains("templates/a.yaml"), "{err}");
    }

    #[test]
    fn a_directory_not_written_by_the_tool_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("Chart.yaml"), "name: other\n").unwrap();
        let err = plan(dir.path(), &generated("x: 1\n"), false).unwrap_err();
        assert!(matches!(err, ShipError::ForeignChart(_)), "{err}");
    }

    #[test]
    fn files_generated_no_more_are_removed_unless_edited() {
        let dir = tempfile::tempdir().unwrap();
        let chart = dir.path().join("chart");
        let mut files = generated("x: 1\n");
        files.insert("templates/b.yaml".into(), b"b: 1\n".to_vec());
        files.insert("templates/c.yaml".into(), b"c: 1\n".to_vec());
        apply(&chart, &plan(&chart, &files, false).unwrap()).unwrap();
        std::fs::write(chart.join("templates/c.yaml"), "c: mine\n").unwrap();
        let next = plan(&chart, &generated("x: 1\n"), false).unwrap();
        assert_eq!(next.remove, ["templates/b.yaml"]);
        assert_eq!(next.left, ["templates/c.yaml"]);
        apply(&chart, &next).unwrap();
        assert!(!chart.join("templates/b.yaml").exists());
        assert!(chart.join("templates/c.yaml").exists());
    }
}
