//! Building a Rust project's binaries with cargo on this machine: `build --local` packages
//! them into an image, `run` starts the operator from them. Cargo's JSON messages name each
//! executable, so no guess about the target directory (`CARGO_TARGET_DIR`, workspaces) is made.

use std::path::{Path, PathBuf};
use std::process::Command;

use thiserror::Error;

use crate::image::Stream;
use crate::image::process;

/// What to build.
#[derive(Debug, Clone, Copy)]
pub struct Build<'a> {
    /// The directory of the project's Cargo.toml.
    pub root: &'a Path,
    /// `--release` instead of the dev profile.
    pub release: bool,
    /// Only this binary (`--bin`), else every binary of the package.
    pub bin: Option<&'a str>,
}

impl Build<'_> {
    /// The cargo command line, for messages: `cargo build --release --bin demo`.
    pub fn describe(&self) -> String {
        let mut text = String::from("cargo build");
        if self.release {
            text.push_str(" --release");
        }
        if let Some(bin) = self.bin {
            text.push_str(&format!(" --bin {bin}"));
        }
        text
    }
}

#[derive(Debug, Error)]
pub enum CargoError {
    #[error("cargo is not installed or not on PATH")]
    Missing,
    #[error("cannot run cargo: {0}")]
    Spawn(std::io::Error),
    #[error("`{command}` failed ({status})")]
    Failed {
        command: String,
        status: std::process::ExitStatus,
        /// The last lines cargo printed on stderr, oldest first.
        tail: Vec<String>,
    },
    #[error("`{command}` built no binary in {root}: is this the project's Cargo workspace?")]
    NoBinaries { command: String, root: PathBuf },
}

/// Runs the build, handing cargo's human-readable output (stderr) to `on_line`, and returns
/// the executables it built, sorted.
pub fn build(
    request: &Build<'_>,
    on_line: &mut dyn FnMut(Stream, &str),
) -> Result<Vec<PathBuf>, CargoError> {
    // Inside `cargo run`/`cargo test` CARGO names the cargo that is running; use the same one.
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command
        .args(["build", "--message-format=json-render-diagnostics"])
        .current_dir(request.root);
    if request.release {
        command.arg("--release");
    }
    if let Some(bin) = request.bin {
        command.args(["--bin", bin]);
    }
    let mut binaries = Vec::new();
    let finished = process::run_streaming(&mut command, &mut |stream, line| match stream {
        // stdout carries one JSON message per line; people read stderr.
        Stream::Stdout => {
            if let Some(path) = executable_of(line) {
                binaries.push(path);
            }
            false
        }
        Stream::Stderr => {
            on_line(stream, line);
            true
        }
    })
    .map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => CargoError::Missing,
        _ => CargoError::Spawn(e),
    })?;
    if !finished.status.success() {
        return Err(CargoError::Failed {
            command: request.describe(),
            status: finished.status,
            tail: finished.tail,
        });
    }
    binaries.sort();
    binaries.dedup();
    if binaries.is_empty() {
        return Err(CargoError::NoBinaries {
            command: request.describe(),
            root: request.root.to_path_buf(),
        });
    }
    Ok(binaries)
}

/// The executable of a cargo `compiler-artifact` message.
fn executable_of(line: &str) -> Option<PathBuf> {
    let message: serde_json::Value = serde_json::from_str(line).ok()?;
    if message.get("reason")?.as_str()? != "compiler-artifact" {
        return None;
    }
    Some(PathBuf::from(message.get("executable")?.as_str()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_executables_from_artifact_messages() {
        let bin = r#"{"reason":"compiler-artifact","target":{"kind":["bin"]},"executable":"/t/debug/demo"}"#;
        let lib = r#"{"reason":"compiler-artifact","target":{"kind":["lib"]},"executable":null}"#;
        assert_eq!(executable_of(bin), Some(PathBuf::from("/t/debug/demo")));
        assert_eq!(executable_of(lib), None);
        assert_eq!(executable_of(r#"{"reason":"build-finished"}"#), None);
        assert_eq!(executable_of("not json"), None);
    }

    #[test]
    fn describes_the_command() {
        let root = Path::new(".");
        let dev = Build {
            root,
            release: false,
            bin: None,
        };
        assert_eq!(dev.describe(), "cargo build");
        let release = Build {
            root,
            release: true,
            bin: Some("demo"),
        };
        assert_eq!(release.describe(), "cargo build --release --bin demo");
    }
}
