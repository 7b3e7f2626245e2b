//! Writing a plan to disk atomically: everything goes into a staging directory beside the
//! target and is renamed into place only when every file was written.

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

/// Creates `target` holding exactly the files of `plan`. `target` must not exist or be an empty
/// directory. On any error nothing is left behind.
pub fn create_project(target: &Path, plan: &FilePlan) -> Result<(), WriteError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |e| WriteError::Io(path, e)
    };
    let target_was_empty_dir = match std::fs::read_dir(target) {
        Ok(mut entries) => {
            if entries.next().is_some() {
                return Err(WriteError::TargetExists(target.to_path_buf()));
            }
            true
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => false,
        Err(_) if target.exists() => return Err(WriteError::TargetExists(target.to_path_buf())),
        Err(e) => return Err(WriteError::Io(target.to_path_buf(), e)),
    };
    let parent = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent).map_err(io(&parent))?;
    let file_name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "project".to_string());
    // Dropping the TempDir on any early return removes the staging directory.
    let staging = tempfile::Builder::new()
        .prefix(&format!(".{file_name}.staging-"))
        .tempdir_in(&parent)
        .map_err(io(&parent))?;
    write_plan(staging.path(), plan)?;
    if target_was_empty_dir {
        std::fs::remove_dir(target).map_err(io(target))?;
    }
    let staged = staging.keep();
    std::fs::rename(&staged, target).map_err(|e| {
        let _ = std::fs::remove_dir_all(&staged);
        WriteError::Io(target.to_path_buf(), e)
    })?;
    Ok(())
}

/// Writes every file of `plan` under `root`, creating directories as needed.
pub fn write_plan(root: &Path, plan: &FilePlan) -> Result<(), WriteError> {
    for (path, file) in plan.iter() {
        let relative = Path::new(path);
        let plain = relative
            .components()
            .all(|c| matches!(c, std::path::Component::Normal(_)));
        if !plain {
            return Err(WriteError::BadPath(path.clone()));
        }
        let full = root.join(relative);
        if let Some(dir) = full.parent() {
            std::fs::create_dir_all(dir).map_err(|e| WriteError::Io(dir.to_path_buf(), e))?;
        }
        std::fs::write(&full, &file.bytes).map_err(|e| WriteError::Io(full.clone(), e))?;
        #[cfg(unix)]
        if file.executable {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&full, std::fs::Permissions::from_mode(0o755))
                .map_err(|e| WriteError::Io(full.clone(), e))?;
        }
    }
    Ok(())
}
