//! The set of files a command is about to write, built fully in memory before anything touches
//! the disk.

use std::collections::BTreeMap;

/// One file to write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedFile {
    pub bytes: Vec<u8>,
    pub executable: bool,
}

/// Relative path (with `/` separators) -> file.
#[derive(Debug, Clone, Default)]
pub struct FilePlan {
    files: BTreeMap<String, PlannedFile>,
}

impl FilePlan {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn add(&mut self, path: impl Into<String>, bytes: impl Into<Vec<u8>>) {
        self.files.insert(
            path.into(),
            PlannedFile {
                bytes: bytes.into(),
                executable: false,
            },
        );
    }

    pub fn add_executable(&mut self, path: impl Into<String>, bytes: impl Into<Vec<u8>>) {
        self.files.insert(
            path.into(),
            PlannedFile {
                bytes: bytes.into(),
                executable: true,
            },
        );
    }

    /// Adds every file of `other`, which wins where both have a path.
    pub fn extend(&mut self, other: FilePlan) {
        self.files.extend(other.files);
    }

    /// Adds every file under `prefix/`.
    pub fn add_tree(&mut self, prefix: &str, files: &BTreeMap<String, Vec<u8>>) {
        for (path, bytes) in files {
            self.add(format!("{prefix}/{path}"), bytes.clone());
        }
    }

    pub fn get(&self, path: &str) -> Option<&PlannedFile> {
        self.files.get(path)
    }

    pub fn contains(&self, path: &str) -> bool {
        self.files.contains_key(path)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&String, &PlannedFile)> {
        self.files.iter()
    }

    pub fn paths(&self) -> impl Iterator<Item = &String> {
        self.files.keys()
    }

    pub fn len(&self) -> usize {
        self.files.len()
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
}
