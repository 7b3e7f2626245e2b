//! Running the real binary in a temporary directory and reading what it wrote.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use assert_cmd::Command;

/// The operator-rs binary, with a clean environment for deterministic output.
pub fn operator_rs(cwd: &Path) -> Command {
    let mut command = Command::cargo_bin("operator-rs").expect("operator-rs binary");
    command
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .env_remove("OPERATOR_RS_BUILDER");
    command
}

/// `operator-rs new NAME` of a Rust project with the Memcached kind of
/// `cache.example.com/v1alpha1` in `parent`; returns the project directory.
pub fn new_memcached_operator(parent: &Path, name: &str) -> PathBuf {
    operator_rs(parent)
        .args([
            "new",
            name,
            "--api-version=cache.example.com/v1alpha1",
            "--kind=Memcached",
            "--yes",
            "--quiet",
        ])
        .assert()
        .success();
    parent.join(name)
}

/// The shared real-world charts, read-only.
pub fn shared_charts() -> PathBuf {
    let dir = std::env::var_os("OPERATOR_RS_SHARED_CHARTS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/charts"));
    assert!(dir.is_dir(), "shared charts not found at {}", dir.display());
    dir
}

pub fn shared_chart(name: &str) -> PathBuf {
    shared_charts().join(name)
}

/// The names of every shared chart.
pub fn shared_chart_names() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(shared_charts())
        .expect("list shared charts")
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("Chart.yaml").is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// A copy of the directory `from` (a shared chart, say, which tests must not change) at `to`.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Every file under `dir`: relative path -> bytes.
pub fn read_tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let relative = e
                .path()
                .strip_prefix(dir)
                .expect("inside dir")
                .to_string_lossy()
                .replace('\\', "/");
            (relative, std::fs::read(e.path()).expect("read file"))
        })
        .collect()
}

/// Every entry (files and directories) under `dir`, for "nothing was written" checks.
pub fn list_entries(dir: &Path) -> Vec<String> {
    walkdir::WalkDir::new(dir)
        .min_depth(1)
        .sort_by_file_name()
        .into_iter()
        .filter_map(|e| e.ok())
        .map(|e| {
            e.path()
                .strip_prefix(dir)
                .expect("inside")
                .to_string_lossy()
                .into_owned()
        })
        .collect()
}

/// The YAML files under `deploy/`, split into manifests and sample custom resources.
pub fn deploy_files(project: &Path) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let mut manifests = Vec::new();
    let mut samples = Vec::new();
    for (relative, _) in read_tree(&project.join("deploy")) {
        let path = project.join("deploy").join(&relative);
        if relative.ends_with("_cr.yaml") {
            samples.push(path);
        } else if relative.ends_with(".yaml") {
            manifests.push(path);
        }
    }
    (manifests, samples)
}
