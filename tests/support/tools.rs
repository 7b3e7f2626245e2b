//! The independent judges of generated files: `kubernetes-validate`, `checkov` and
//! `check-jsonschema`, from the virtual environment that `scripts/test.sh` creates, and the
//! real `kubectl`.

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

/// Runs `check-jsonschema` on `files` with one of the schemas it ships (offline), for example
/// `vendor.github-workflows` or `vendor.dependabot`.
pub fn check_jsonschema(builtin_schema: &str, files: &[PathBuf]) {
    let Some(tool) = venv_tool("check-jsonschema") else {
        return;
    };
    let output = Command::new(&tool)
        .args(["--builtin-schema", builtin_schema])
        .args(files)
        .output()
        .expect("run check-jsonschema");
    assert!(
        output.status.success(),
        "check-jsonschema --builtin-schema {builtin_schema} failed:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Runs `checkov --framework kubernetes` on a directory: no check may fail, and it must have
/// scanned something. checkov silently scans nothing under a path with a hidden directory in
/// it, such as tempfile's `/tmp/.tmpXXXX`, so it runs inside `dir` on `.`.
pub fn checkov(dir: &Path) {
    let Some(tool) = venv_tool("checkov") else {
        return;
    };
    let output = Command::new(&tool)
        .args([
            "--framework",
            "kubernetes",
            "--quiet",
            "--skip-download",
            "--output",
            "json",
            "-d",
            ".",
        ])
        .current_dir(dir)
        .output()
        .expect("run checkov");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "checkov gave no JSON report ({e}) for {}:\n{text}",
            dir.display()
        )
    });
    // A scan that found nothing to check is its summary alone.
    let summary = report.get("summary").unwrap_or(&report);
    assert!(
        summary["resource_count"].as_u64().unwrap_or(0) > 0,
        "checkov scanned no resource in {}:\n{text}",
        dir.display()
    );
    let failed: Vec<String> = report["results"]["failed_checks"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|check| {
            format!(
                "{} {} on {} in {}",
                check["check_id"], check["check_name"], check["resource"], check["file_path"]
            )
        })
        .collect();
    assert!(
        failed.is_empty(),
        "checkov failed checks in {}:\n{}\n{}",
        dir.display(),
        failed.join("\n"),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        output.status.success() && summary["parsing_errors"] == 0,
        "checkov failed on {}:\n{text}",
        dir.display()
    );
}
