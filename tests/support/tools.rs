//! The independent judges of generated manifests: `kubernetes-validate` and `checkov`, from
//! the virtual environment that `scripts/test.sh` creates, and the real `kubectl`.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository's virtual environment (or `OPERATOR_RS_TEST_VENV`).
pub fn venv() -> PathBuf {
    std::env::var_os("OPERATOR_RS_TEST_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join(".venv"))
}

/// A tool from the virtual environment. Missing tools fail the test under CI and are
/// reported (and the check skipped) on a developer machine that has not run scripts/test.sh.
pub fn venv_tool(name: &str) -> Option<PathBuf> {
    let path = venv().join("bin").join(name);
    if path.is_file() {
        return Some(path);
    }
    if std::env::var_os("CI").is_some() {
        panic!("{} is missing: scripts/test.sh installs it", path.display());
    }
    eprintln!(
        "skipping {name} checks: {} is missing (run scripts/test.sh)",
        path.display()
    );
    None
}

/// The Kubernetes versions whose schemas generated manifests must pass: the oldest and the
/// newest we support.
pub const KUBERNETES_VERSIONS: [&str; 2] = ["1.33.0", "1.37.0"];

/// Runs `kubernetes-validate --strict` on `files` for every supported version.
pub fn kubernetes_validate(files: &[PathBuf]) {
    let Some(tool) = venv_tool("kubernetes-validate") else {
        return;
    };
    for version in KUBERNETES_VERSIONS {
        let output = Command::new(&tool)
            .arg("--strict")
            .arg("--kubernetes-version")
            .arg(version)
            .args(files)
            .output()
            .expect("run kubernetes-validate");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(
            output.status.success() && !text.contains("ERROR"),
            "kubernetes-validate --strict -k {version} failed:\n{text}"
        );
    }
}

/// Runs `checkov --framework kubernetes` on a directory; no check may fail.
pub fn checkov(dir: &Path) {
    let Some(tool) = venv_tool("checkov") else {
        return;
    };
    let output = Command::new(&tool)
        .args([
            "--framework",
            "kubernetes",
            "--quiet",
            "--compact",
            "--skip-download",
            "-d",
        ])
        .arg(dir)
        .output()
        .expect("run checkov");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        output.status.success() && !text.contains("FAILED"),
        "checkov found failed checks in {}:\n{text}",
        dir.display()
    );
}
