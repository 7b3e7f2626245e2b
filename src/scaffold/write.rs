//! Writing a plan to disk atomically: everything goes into a staging directory beside the
//! target and is renamed into place only when every file was written.
//!
//! Nothing is synced to disk: the guarantee is that the target never holds a partial project
//! (the rename is atomic), not durability across a power cut, which `cp` does not give either.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use thiserror::Error;

use super::FilePlan;

#[derive(Debug, Error)]
pub enum WriteError {
    #[error("{0} already exists and is not an empty directory: choose another name or remove it")]
    TargetExists(PathBuf),
    #[error("cannot write the project into {0}: {1}")]
    Io(PathBuf, std::io::Error),
    #[error("planned file path \"{0}\" is not a plain relative path (a bug in operator-rs)")]
    BadPath(String),
}

/// Whether `target` can receive a new project: `Ok(false)` when it does not exist, `Ok(true)`
/// when it is an empty directory, `TargetExists` otherwise. Commands call it early, before any
/// slow work; [`Staging`] calls it again when it starts and just before the rename.
pub fn check_target(target: &Path) -> Result<bool, WriteError> {
    match std::fs::read_dir(target) {
        Ok(mut entries) => match entries.next() {
            Some(_) => Err(WriteError::TargetExists(target.to_path_buf())),
            None => Ok(true),
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(_) if target.exists() => Err(WriteError::TargetExists(target.to_path_buf())),
        Err(e) => Err(WriteError::Io(target.to_path_buf(), e)),
    }
}

/// Creates `target` holding exactly the files of `plan`. `target` must not exist or be an empty
/// directory. On any error nothing is left behind.
pub fn create_project(target: &Path, plan: &FilePlan) -> Result<(), WriteError> {
    let staging = Staging::new(target)?;
    staging.write_plan(plan)?;
    staging.finish()
}

/// A new project being written: a hidden staging directory beside the target, renamed to the
/// target by [`Staging::finish`] once every file is written, and removed when the staging is
/// dropped unfinished (on any error). Writing takes `&self`, so several threads can write
/// disjoint parts of the project at once, for example a chart's files while the rest of the
/// project is still being derived.
pub struct Staging {
    dir: tempfile::TempDir,
    target: PathBuf,
}

impl Staging {
    /// Starts a project at `target`, which must not exist or be an empty directory.
    pub fn new(target: &Path) -> Result<Staging, WriteError> {
        check_target(target)?;
        let parent = match target.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        std::fs::create_dir_all(&parent).map_err(|e| WriteError::Io(parent.clone(), e))?;
        let file_name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "project".to_string());
        let dir = tempfile::Builder::new()
            .prefix(&format!(".{file_name}.staging-"))
            .tempdir_in(&parent)
            .map_err(|e| WriteError::Io(parent.clone(), e))?;
        Ok(Staging {
            dir,
            target: target.to_path_buf(),
        })
    }

    /// Writes every file of `plan`.
    pub fn write_plan(&self, plan: &FilePlan) -> Result<(), WriteError> {
        write_plan(self.dir.path(), plan)
    }

    /// Writes `files` (relative path -> bytes) under `prefix/`, as they are: the files of a
    /// chart, without copying them into a plan first.
    pub fn write_tree(
        &self,
        prefix: &str,
        files: &BTreeMap<String, Vec<u8>>,
    ) -> Result<(), WriteError> {
        let mut writer = TreeWriter::new(self.dir.path());
        for (path, bytes) in files {
            writer.write(&format!("{prefix}/{path}"), bytes, false)?;
        }
        Ok(())
    }

    /// Moves the project into place. The target is checked once more: it may have been
    /// created while the project was being written.
    pub fn finish(self) -> Result<(), WriteError> {
        let target = &self.target;
        if check_target(target)? {
            std::fs::remove_dir(target).map_err(|e| WriteError::Io(target.clone(), e))?;
        }
        let staged = self.dir.keep();
        std::fs::rename(&staged, target).map_err(|e| {
            let _ = std::fs::remove_dir_all(&staged);
            WriteError::Io(target.clone(), e)
        })?;
        Ok(())
    }
}

/// Writes every file of `plan` under `root`, creating directories as needed.
pub fn write_plan(root: &Path, plan: &FilePlan) -> Result<(), WriteError> {
    let mut writer = TreeWriter::new(root);
    for (path, file) in plan.iter() {
        writer.write(path, &file.bytes, file.executable)?;
    }
    Ok(())
}

/// Writes files under one root, making each directory once: asking the file system again
/// for every file was a failed mkdir and a stat per file.
struct TreeWriter<'r> {
    root: &'r Path,
    made: HashSet<PathBuf>,
}

impl<'r> TreeWriter<'r> {
    fn new(root: &'r Path) -> Self {
        TreeWriter {
            root,
            made: HashSet::new(),
        }
    }

    fn write(&mut self, path: &str, bytes: &[u8], executable: bool) -> Result<(), WriteError> {
        let relative = Path::new(path);
        let plain = relative
            .components()
            .all(|c| matches!(c, std::path::Component::Normal(_)));
        if !plain {
            return Err(WriteError::BadPath(path.to_string()));
        }
        let full = self.root.join(relative);
        if let Some(dir) = full.parent()
            && !self.made.contains(dir)
        {
            std::fs::create_dir_all(dir).map_err(|e| WriteError::Io(dir.to_path_buf(), e))?;
            self.made.insert(dir.to_path_buf());
        }
        std::fs::write(&full, bytes).map_err(|e| WriteError::Io(full.clone(), e))?;
        #[cfg(unix)]
        if executable {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&full, std::fs::Permissions::from_mode(0o755))
                .map_err(|e| WriteError::Io(full.clone(), e))?;
        }
        Ok(())
    }
}

/// What [`apply_changes`] did, for the report.
#[derive(Debug, Default)]
pub struct Applied {
    pub created: Vec<String>,
    pub changed: Vec<String>,
}

/// Writes `plan` into the existing directory `root`, all or nothing: every file is first
/// written to a staging directory inside `root`, then moved into place; if any move fails,
/// the files moved so far are put back as they were.
pub fn apply_changes(root: &Path, plan: &FilePlan) -> Result<Applied, WriteError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |e| WriteError::Io(path, e)
    };
    let staging = tempfile::Builder::new()
        .prefix(".operator-rs-staging-")
        .tempdir_in(root)
        .map_err(io(root))?;
    let staged = staging.path().join("new");
    let backups = staging.path().join("old");
    // Files whose bytes are already on disk are neither rewritten nor reported as changed.
    let mut pending = FilePlan::new();
    for (path, file) in plan.iter() {
        if std::fs::read(root.join(path)).ok().as_deref() != Some(file.bytes.as_slice()) {
            pending.add(path.clone(), file.bytes.clone());
        }
    }
    let plan = &pending;
    write_plan(&staged, plan)?;

    let mut applied = Applied::default();
    // (target, backup if it replaced a file) in the order they were moved, for rollback.
    let mut moved: Vec<(PathBuf, Option<PathBuf>)> = Vec::new();
    let mut created_dirs: Vec<PathBuf> = Vec::new();
    let mut result = Ok(());
    for (path, _) in plan.iter() {
        let target = root.join(path);
        let source = staged.join(path);
        let step = (|| -> Result<Option<PathBuf>, WriteError> {
            let mut backup = None;
            if target.exists() {
                let saved = backups.join(path);
                if let Some(dir) = saved.parent() {
                    std::fs::create_dir_all(dir).map_err(io(dir))?;
                }
                std::fs::rename(&target, &saved).map_err(io(&target))?;
                backup = Some(saved);
            } else if let Some(dir) = target.parent() {
                let mut missing = Vec::new();
                let mut cursor = dir.to_path_buf();
                while !cursor.exists() {
                    missing.push(cursor.clone());
                    if !cursor.pop() {
                        break;
                    }
                }
                std::fs::create_dir_all(dir).map_err(io(dir))?;
                created_dirs.extend(missing.into_iter().rev());
            }
            if let Err(e) = std::fs::rename(&source, &target) {
                if let Some(saved) = &backup {
                    let _ = std::fs::rename(saved, &target);
                }
                return Err(WriteError::Io(target.clone(), e));
            }
            Ok(backup)
        })();
        match step {
            Ok(backup) => {
                if backup.is_some() {
                    applied.changed.push(path.clone());
                } else {
                    applied.created.push(path.clone());
                }
                moved.push((target, backup));
            }
            Err(e) => {
                result = Err(e);
                break;
            }
        }
    }
    if let Err(e) = result {
        for (target, backup) in moved.into_iter().rev() {
            let _ = std::fs::remove_file(&target);
            if let Some(saved) = backup {
                let _ = std::fs::rename(saved, &target);
            }
        }
        for dir in created_dirs.into_iter().rev() {
            let _ = std::fs::remove_dir(dir);
        }
        return Err(e);
    }
    Ok(applied)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn apply_changes_creates_and_replaces() {
        let root = tempfile::tempdir().unwrap();
        std::fs::write(root.path().join("a.txt"), "old").unwrap();
        let mut plan = FilePlan::new();
        plan.add("a.txt", "new");
        plan.add("dir/b.txt", "b");
        let applied = apply_changes(root.path(), &plan).unwrap();
        assert_eq!(applied.changed, ["a.txt"]);
        assert_eq!(applied.created, ["dir/b.txt"]);
        assert_eq!(
            std::fs::read_to_string(root.path().join("a.txt")).unwrap(),
            "new"
        );
        // No staging directory is left.
        let names: Vec<_> = std::fs::read_dir(root.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 2, "{names:?}");
    }

    #[test]
    fn apply_changes_rolls_back_on_failure() {
        let root = tempfile::tempdir().unwrap();
        std::fs::write(root.path().join("a.txt"), "old").unwrap();
        // "zblocker" is a file, so "zblocker/c.txt" cannot be created: the move fails midway.
        std::fs::write(root.path().join("zblocker"), "x").unwrap();
        let mut plan = FilePlan::new();
        plan.add("a.txt", "new");
        plan.add("new-dir/b.txt", "b");
        plan.add("zblocker/c.txt", "c");
        assert!(apply_changes(root.path(), &plan).is_err());
        assert_eq!(
            std::fs::read_to_string(root.path().join("a.txt")).unwrap(),
            "old"
        );
        assert!(!root.path().join("new-dir").exists());
        let mut names: Vec<_> = std::fs::read_dir(root.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(names, ["a.txt", "zblocker"]);
    }
}
