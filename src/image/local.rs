//! `build --local` for Rust projects: cargo builds the release binaries on this machine, and the
//! image is packaged by a runtime-only Dockerfile derived from the project's own one. The derived
//! file keeps the global `ARG`s and the last stage exactly as written, and turns each
//! `COPY --from=<earlier stage> .../<binary> <dest>` into `COPY <binary> <dest>` from a small
//! temporary context holding the host-built binaries. So `--local` and a full build produce the
//! same runtime layout, and there is one Dockerfile to maintain.

use std::path::{Path, PathBuf};

use thiserror::Error;

use super::process::Stream;
use crate::cargo::{self, CargoError};

#[derive(Debug, Error)]
pub enum LocalError {
    #[error(
        "cargo is not installed or not on PATH: --local builds the operator binary on this machine with cargo (install Rust from your distribution or rustup), or run without --local to build inside the image"
    )]
    CargoMissing,
    #[error("cannot run cargo: {0}")]
    CargoSpawn(std::io::Error),
    #[error("`cargo build --release` failed ({status}); its last lines of output:\n{tail}")]
    CargoFailed {
        status: std::process::ExitStatus,
        tail: String,
    },
    #[error(
        "`cargo build --release` built no binary in {0}: is this the project's Cargo workspace?"
    )]
    NoBinaries(PathBuf),
    #[error(
        "{file}: {problem}; --local needs a multi-stage Dockerfile whose last stage copies the binaries from the build stage"
    )]
    Dockerfile { file: PathBuf, problem: String },
    #[error("cannot prepare the --local build context in {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Runs `cargo build --release` in `root` and returns the binaries it built.
pub fn cargo_build(
    root: &Path,
    on_line: &mut dyn FnMut(Stream, &str),
) -> Result<Vec<PathBuf>, LocalError> {
    let request = cargo::Build {
        root,
        release: true,
        bin: None,
    };
    cargo::build(&request, on_line).map_err(|e| match e {
        CargoError::Missing => LocalError::CargoMissing,
        CargoError::Spawn(e) => LocalError::CargoSpawn(e),
        CargoError::Failed { status, tail, .. } => LocalError::CargoFailed {
            status,
            tail: tail
                .iter()
                .map(|l| format!("    | {l}"))
                .collect::<Vec<_>>()
                .join("\n"),
        },
        CargoError::NoBinaries { root, .. } => LocalError::NoBinaries(root),
    })
}

/// A build context for the runtime-only image.
#[derive(Debug)]
pub struct LocalContext {
    dir: tempfile::TempDir,
}

impl LocalContext {
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn dockerfile(&self) -> PathBuf {
        self.dir.path().join("Dockerfile")
    }
}

/// Writes the runtime-only Dockerfile and the binaries it copies into a temporary directory.
pub fn prepare(dockerfile: &Path, binaries: &[PathBuf]) -> Result<LocalContext, LocalError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| LocalError::Io { path, source }
    };
    let text = std::fs::read_to_string(dockerfile).map_err(io(dockerfile))?;
    let names: Vec<String> = binaries
        .iter()
        .filter_map(|b| b.file_name().map(|n| n.to_string_lossy().into_owned()))
        .collect();
    let derived = runtime_dockerfile(&text, &names).map_err(|problem| LocalError::Dockerfile {
        file: dockerfile.to_path_buf(),
        problem,
    })?;
    let dir = tempfile::Builder::new()
        .prefix("operator-rs-local-")
        .tempdir()
        .map_err(io(&std::env::temp_dir()))?;
    for binary in binaries {
        let Some(name) = binary.file_name() else {
            continue;
        };
        if derived.copied.iter().any(|c| c.as_str() == name) {
            let target = dir.path().join(name);
            std::fs::copy(binary, &target).map_err(io(&target))?;
        }
    }
    let target = dir.path().join("Dockerfile");
    std::fs::write(&target, derived.text).map_err(io(&target))?;
    Ok(LocalContext { dir })
}

#[derive(Debug, PartialEq, Eq)]
pub struct RuntimeDockerfile {
    pub text: String,
    /// The binary names the derived file copies from the context.
    pub copied: Vec<String>,
}

/// The runtime-only Dockerfile for `binaries` (file names), or what stands in the way.
pub fn runtime_dockerfile(text: &str, binaries: &[String]) -> Result<RuntimeDockerfile, String> {
    let instructions = logical_lines(text);
    let froms: Vec<usize> = instructions
        .iter()
        .enumerate()
        .filter(|(_, line)| keyword(line) == "FROM")
        .map(|(i, _)| i)
        .collect();
    let (Some(&first), Some(&last)) = (froms.first(), froms.last()) else {
        return Err("it has no FROM line".to_string());
    };
    if froms.len() < 2 {
        return Err("it has a single stage".to_string());
    }
    // Earlier stages are known by name (`AS builder`) and by index (`--from=0`).
    let mut stages = Vec::new();
    for (index, &at) in froms[..froms.len() - 1].iter().enumerate() {
        stages.push(index.to_string());
        let words: Vec<&str> = instructions[at].split_whitespace().collect();
        if let [.., as_word, name] = words.as_slice()
            && as_word.eq_ignore_ascii_case("as")
        {
            stages.push(name.to_ascii_lowercase());
        }
    }
    let last_from: Vec<&str> = instructions[last]
        .split_whitespace()
        .filter(|w| !w.starts_with("--"))
        .collect();
    if let Some(base) = last_from.get(1)
        && stages.contains(&base.to_ascii_lowercase())
    {
        return Err(format!(
            "its last stage starts FROM the earlier stage \"{base}\" rather than a runtime image"
        ));
    }

    let mut out = vec![
        "# Generated by `operator-rs build --local` from the project's Dockerfile: its global".to_string(),
        "# ARGs and last stage, with the binaries copied from this context instead of a build stage.".to_string(),
    ];
    out.extend(
        instructions[..first]
            .iter()
            .filter(|line| keyword(line) == "ARG")
            .cloned(),
    );
    let mut copied = Vec::new();
    for line in &instructions[last..] {
        if keyword(line) == "COPY" {
            out.push(rewrite_copy(line, &stages, binaries, &mut copied)?);
        } else {
            out.push(line.clone());
        }
    }
    if copied.is_empty() {
        return Err(format!(
            "its last stage copies none of the binaries cargo built ({})",
            binaries.join(", ")
        ));
    }
    let mut text = out.join("\n");
    text.push('\n');
    Ok(RuntimeDockerfile { text, copied })
}

/// `COPY --from=<stage> [--chown=..] SRC... DEST` -> `COPY [--chown=..] NAME... DEST`; other
/// COPY lines (from the context or from an external image) stay as they are.
fn rewrite_copy(
    line: &str,
    stages: &[String],
    binaries: &[String],
    copied: &mut Vec<String>,
) -> Result<String, String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let mut flags = Vec::new();
    let mut from_stage = false;
    let mut rest_at = 1;
    for word in &words[1..] {
        let Some(flag) = word.strip_prefix("--") else {
            break;
        };
        rest_at += 1;
        match flag.split_once('=') {
            Some(("from", value)) if stages.contains(&value.to_ascii_lowercase()) => {
                from_stage = true;
            }
            _ => flags.push(*word),
        }
    }
    if !from_stage {
        return Ok(line.to_string());
    }
    let rest = words[rest_at..].join(" ");
    let mut paths: Vec<String> = if rest.starts_with('[') {
        serde_json::from_str(&rest).map_err(|_| format!("cannot read the JSON list in `{line}`"))?
    } else {
        words[rest_at..].iter().map(|w| w.to_string()).collect()
    };
    let Some(dest) = paths.pop() else {
        return Err(format!("`{line}` has no destination"));
    };
    if paths.is_empty() {
        return Err(format!("`{line}` has no source"));
    }
    let mut sources = Vec::new();
    for source in paths {
        let name = source.rsplit('/').next().unwrap_or(&source).to_string();
        if !binaries.contains(&name) {
            return Err(format!(
                "`{line}` copies \"{source}\" from a build stage, and it is not one of the binaries cargo built ({})",
                binaries.join(", ")
            ));
        }
        if !copied.contains(&name) {
            copied.push(name.clone());
        }
        sources.push(name);
    }
    let mut out = vec!["COPY".to_string()];
    out.extend(flags.iter().map(|f| f.to_string()));
    out.extend(sources);
    out.push(dest);
    Ok(out.join(" "))
}

fn keyword(line: &str) -> String {
    line.split_whitespace()
        .next()
        .unwrap_or_default()
        .to_ascii_uppercase()
}

/// Instructions with backslash continuations joined and comments and blank lines dropped.
fn logical_lines(text: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut current = String::new();
    for raw in text.lines() {
        let trimmed = raw.trim();
        if trimmed.starts_with('#') || (trimmed.is_empty() && current.is_empty()) {
            continue;
        }
        match trimmed.strip_suffix('\\') {
            Some(part) => {
                current.push_str(part.trim_end());
                current.push(' ');
            }
            None => {
                current.push_str(trimmed);
                let line = current.trim().to_string();
                if !line.is_empty() {
                    lines.push(line);
                }
                current.clear();
            }
        }
    }
    let line = current.trim().to_string();
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    const MULTI_STAGE: &str = r#"# The operator image.
ARG BUILDER_IMAGE=rust:1-bookworm
ARG RUNTIME_IMAGE=debian:bookworm-slim

FROM ${BUILDER_IMAGE} AS builder
WORKDIR /app
COPY . .
RUN cargo build --release \
    --locked

FROM ${RUNTIME_IMAGE}
COPY --from=builder --chown=65532:65532 /app/target/release/memcached-operator /usr/local/bin/memcached-operator
COPY LICENSE /licenses/LICENSE
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/memcached-operator"]
"#;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn keeps_the_runtime_stage_and_copies_from_the_context() {
        let derived =
            runtime_dockerfile(MULTI_STAGE, &names(&["crdgen", "memcached-operator"])).unwrap();
        assert_eq!(derived.copied, ["memcached-operator"]);
        let expected_tail = "ARG BUILDER_IMAGE=rust:1-bookworm
ARG RUNTIME_IMAGE=debian:bookworm-slim
FROM ${RUNTIME_IMAGE}
COPY --chown=65532:65532 memcached-operator /usr/local/bin/memcached-operator
COPY LICENSE /licenses/LICENSE
USER 65532:65532
ENTRYPOINT [\"/usr/local/bin/memcached-operator\"]
";
        assert!(derived.text.ends_with(expected_tail), "{}", derived.text);
        assert!(!derived.text.contains("cargo build"));
    }

    #[test]
    fn understands_stage_indexes_and_json_form() {
        let text = "FROM a\nRUN x\nFROM b\nCOPY --from=0 [\"/t/op\", \"/op\"]\n";
        let derived = runtime_dockerfile(text, &names(&["op"])).unwrap();
        assert!(derived.text.contains("COPY op /op\n"), "{}", derived.text);
    }

    #[test]
    fn says_what_stands_in_the_way() {
        let err = runtime_dockerfile("FROM a\nCOPY . .\n", &names(&["op"])).unwrap_err();
        assert!(err.contains("single stage"), "{err}");
        let err = runtime_dockerfile("", &names(&["op"])).unwrap_err();
        assert!(err.contains("no FROM"), "{err}");
        let err = runtime_dockerfile(
            "FROM a AS builder\nFROM b\nCOPY --from=builder /etc/ssl/certs /etc/ssl/certs\n",
            &names(&["op"]),
        )
        .unwrap_err();
        assert!(err.contains("\"/etc/ssl/certs\""), "{err}");
        let err = runtime_dockerfile(
            "FROM a AS builder\nFROM builder\nCOPY --from=builder /op /op\n",
            &names(&["op"]),
        )
        .unwrap_err();
        assert!(err.contains("earlier stage \"builder\""), "{err}");
        let err = runtime_dockerfile("FROM a AS builder\nFROM b\nCOPY x /x\n", &names(&["op"]))
            .unwrap_err();
        assert!(err.contains("none of the binaries"), "{err}");
    }

    #[test]
    fn external_image_copies_stay() {
        let text = "FROM a AS builder\nFROM b\nCOPY --from=busybox:1 /bin/busybox /bin/\nCOPY --from=builder /x/op /op\n";
        let derived = runtime_dockerfile(text, &names(&["op"])).unwrap();
        assert!(
            derived
                .text
                .contains("COPY --from=busybox:1 /bin/busybox /bin/\n")
        );
    }
}
