//! Where `generate bundle` and `generate chart` write: a directory that may not exist yet,
//! never a file, and files replaced all together or not at all.

use std::io::Write;
use std::path::Path;

use super::ShipError;

/// Fails when `dir` exists and is not a directory; checked before any work is written.
pub fn check_dir(dir: &Path) -> Result<(), ShipError> {
    if dir.exists() && !dir.is_dir() {
        return Err(ShipError::OutputIsAFile(dir.to_path_buf()));
    }
    // A parent that is a file would fail the first write; say so before anything is made.
    if let Some(file) = dir.ancestors().skip(1).find(|a| a.is_file()) {
        return Err(ShipError::OutputIsAFile(file.to_path_buf()));
    }
    Ok(())
}

/// Writes every `(name, text)` into `dir`: each file goes to a temporary file first, and they
/// are renamed into place only once all were written.
pub fn write_files(dir: &Path, files: &[(&str, &str)]) -> Result<(), ShipError> {
    check_dir(dir)?;
    std::fs::create_dir_all(dir).map_err(|e| ShipError::Write(dir.to_path_buf(), e))?;
    let mut staged = Vec::new();
    for (name, text) in files {
        let path = dir.join(name);
        let io = |e| ShipError::Write(path.clone(), e);
        let mut file = tempfile::NamedTempFile::new_in(dir).map_err(io)?;
        file.write_all(text.as_bytes()).map_err(io)?;
        staged.push((file, path));
    }
    for (file, path) in staged {
        file.persist(&path)
            .map_err(|e| ShipError::Write(path.clone(), e.error))?;
    }
    Ok(())
}
