//! The command line itself: version, help, and the checked-in shell completions.

mod support;

use support::project::operator_rs;

/// Shell -> the file under `completions/` that holds its script.
const COMPLETIONS: [(&str, &str); 5] = [
    ("bash", "operator-rs.bash"),
    ("zsh", "_operator-rs"),
    ("fish", "operator-rs.fish"),
    ("powershell", "_operator-rs.ps1"),
    ("elvish", "operator-rs.elv"),
];

#[test]
fn prints_its_version() {
    let dir = tempfile::tempdir().unwrap();
    operator_rs(dir.path())
        .arg("--version")
        .assert()
        .success()
        .stdout(format!("operator-rs {}\n", env!("CARGO_PKG_VERSION")));
}

#[test]
fn unknown_flags_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    operator_rs(dir.path())
        .args(["new", "--frobnicate"])
        .assert()
        .code(2);
}

/// The checked-in completion scripts match the CLI. Run with `UPDATE_COMPLETIONS=1` to
/// rewrite them after changing a flag.
#[test]
fn completions_are_current() {
    let dir = tempfile::tempdir().unwrap();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("completions");
    let update = std::env::var_os("UPDATE_COMPLETIONS").is_some();
    for (shell, file) in COMPLETIONS {
        let output = operator_rs(dir.path())
            .args(["completion", shell])
            .output()
            .unwrap();
        assert!(output.status.success(), "completion {shell} failed");
        let path = root.join(file);
        if update {
            std::fs::create_dir_all(&root).unwrap();
            std::fs::write(&path, &output.stdout).unwrap();
            continue;
        }
        let checked_in = std::fs::read(&path).unwrap_or_default();
        assert!(
            checked_in == output.stdout,
            "{} is stale: run `UPDATE_COMPLETIONS=1 cargo test --test cli` and commit the result",
            path.display()
        );
    }
}
