//! docker, podman and buildah behind one interface: which arguments each takes, running it, and
//! turning its failures into errors that say what to do.

use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus};

use thiserror::Error;

use super::process::{self, Finished, Stream};
use super::reference::ImageRef;

/// The socket Docker clients use when neither `DOCKER_HOST` nor a context says otherwise.
pub const DEFAULT_DOCKER_SOCKET: &str = "unix:///var/run/docker.sock";

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum BuilderKind {
    /// The Docker Engine (needs a running daemon)
    Docker,
    /// podman (daemonless)
    Podman,
    /// buildah (daemonless)
    Buildah,
}

impl BuilderKind {
    pub fn program(self) -> &'static str {
        match self {
            BuilderKind::Docker => "docker",
            BuilderKind::Podman => "podman",
            BuilderKind::Buildah => "buildah",
        }
    }

    /// The command that stores credentials for `registry` where this builder reads them.
    pub fn login_command(self, registry: Option<&str>) -> String {
        match registry {
            Some(registry) => format!("{} login {registry}", self.program()),
            None => format!("{} login", self.program()),
        }
    }
}

impl fmt::Display for BuilderKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.program())
    }
}

/// Everything one image build needs.
#[derive(Debug, Clone)]
pub struct BuildRequest<'a> {
    /// The build context (the project root, or a temporary directory for `--local`).
    pub context: &'a Path,
    pub dockerfile: &'a Path,
    pub image: &'a ImageRef,
    pub build_args: &'a [(String, String)],
    pub labels: &'a [(String, String)],
    pub platform: Option<&'a str>,
    pub no_cache: bool,
    /// The Dockerfile uses what only BuildKit builds ([`needs_buildkit`]).
    pub buildkit: bool,
}

/// Whether a Dockerfile needs BuildKit rather than docker's classic builder: cache or secret
/// mounts, or the platform arguments of cross builds (`BUILDPLATFORM`, `TARGETARCH`...), which
/// the classic builder leaves empty. podman and buildah understand them all.
pub fn needs_buildkit(dockerfile: &str) -> bool {
    dockerfile.lines().any(|line| {
        let line = line.trim_start();
        !line.starts_with('#')
            && (line.contains("--mount=")
                || ["BUILDPLATFORM", "TARGETPLATFORM", "TARGETARCH", "TARGETOS"]
                    .iter()
                    .any(|name| line.contains(name)))
    })
}

/// The builder's output lines go to this callback while it runs.
pub type OnLine<'a> = &'a mut dyn FnMut(Stream, &str);

#[derive(Debug, Error)]
pub enum ImageError {
    #[error(
        "the image builder `{program}` is not installed or not on PATH: install it, or pick another builder with --builder docker|podman|buildah or the OPERATOR_RS_BUILDER environment variable"
    )]
    BuilderMissing { program: &'static str },

    #[error(
        "cannot reach the Docker daemon at {address} ({origin}): {detail}\nStart the daemon, point DOCKER_HOST at a running one, or build without a daemon: --builder podman or --builder buildah"
    )]
    DaemonUnreachable {
        address: String,
        origin: &'static str,
        detail: String,
    },

    #[error("cannot run {program}: {source}")]
    Spawn {
        program: String,
        source: std::io::Error,
    },

    #[error(
        "`{command}` failed ({status}); its last lines of output:\n{}",
        indent(tail)
    )]
    CommandFailed {
        command: String,
        status: ExitStatus,
        tail: Vec<String>,
    },

    #[error(
        "{builder} build failed ({status}); its last lines of output:\n{}",
        indent(tail)
    )]
    BuildFailed {
        builder: BuilderKind,
        status: ExitStatus,
        tail: Vec<String>,
    },

    #[error(
        "{registry} refused to take {image}: it requires you to log in (or your account may not push there). Run `{login}` and build again; the last lines of {builder} push:\n{}",
        indent(tail)
    )]
    PushUnauthorized {
        builder: BuilderKind,
        registry: String,
        image: String,
        login: String,
        tail: Vec<String>,
    },

    #[error(
        "{builder} push of {image} failed ({status}); its last lines of output:\n{}",
        indent(tail)
    )]
    PushFailed {
        builder: BuilderKind,
        image: String,
        status: ExitStatus,
        tail: Vec<String>,
    },
}

fn indent(lines: &[String]) -> String {
    if lines.is_empty() {
        return "    | (no output)".to_string();
    }
    lines
        .iter()
        .map(|l| format!("    | {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The arguments after the program name for a build.
pub fn build_arguments(kind: BuilderKind, request: &BuildRequest<'_>) -> Vec<OsString> {
    let mut args: Vec<OsString> = vec!["build".into()];
    args.push("--file".into());
    args.push(request.dockerfile.into());
    args.push("--tag".into());
    args.push(request.image.to_string().into());
    for (key, value) in request.build_args {
        args.push("--build-arg".into());
        args.push(format!("{key}={value}").into());
    }
    for (key, value) in request.labels {
        args.push("--label".into());
        args.push(format!("{key}={value}").into());
    }
    if let Some(platform) = request.platform {
        args.push("--platform".into());
        args.push(platform.into());
    }
    if request.no_cache {
        args.push("--no-cache".into());
    }
    if kind != BuilderKind::Docker {
        // docker and podman reuse the layers of unchanged steps; buildah only with --layers.
        // Asking both daemonless builders keeps a rebuild after a small edit equally fast.
        args.push("--layers".into());
    }
    args.push(request.context.into());
    args
}

/// The arguments after the program name for a push.
pub fn push_arguments(kind: BuilderKind, image: &ImageRef) -> Vec<OsString> {
    let mut args: Vec<OsString> = vec!["push".into()];
    if kind != BuilderKind::Docker && image.is_loopback_registry() {
        // Docker talks plain HTTP to registries on 127.0.0.0/8 unless configured otherwise;
        // podman and buildah insist on TLS everywhere. A registry on this machine is the usual
        // development setup (`docker run registry`, kind's local registry), so treat it the way
        // Docker does. Remote registries keep full TLS verification.
        args.push("--tls-verify=false".into());
    }
    args.push(image.to_string().into());
    args
}

/// A builder found on PATH.
#[derive(Debug, Clone)]
pub struct Builder {
    kind: BuilderKind,
    program: PathBuf,
}

impl Builder {
    /// Finds the builder's program on PATH.
    pub fn locate(kind: BuilderKind) -> Result<Builder, ImageError> {
        let program = find_on_path(kind.program()).ok_or(ImageError::BuilderMissing {
            program: kind.program(),
        })?;
        Ok(Builder { kind, program })
    }

    pub fn kind(&self) -> BuilderKind {
        self.kind
    }

    /// For docker, asks the daemon for its version, so an unreachable daemon is reported as such
    /// before a build starts. podman and buildah have no daemon.
    pub fn check_ready(&self) -> Result<(), ImageError> {
        if self.kind != BuilderKind::Docker {
            return Ok(());
        }
        let args = ["version", "--format", "{{.Server.Version}}"].map(OsString::from);
        match self.run(&args, &mut |_, _| {})? {
            None => Ok(()),
            Some(finished) => Err(ImageError::CommandFailed {
                command: "docker version".to_string(),
                status: finished.status,
                tail: finished.tail,
            }),
        }
    }

    pub fn build(&self, request: &BuildRequest<'_>, on_line: OnLine<'_>) -> Result<(), ImageError> {
        // Docker before 23 builds with the classic builder unless asked; a choice the user
        // made in the environment stands.
        let buildkit = self.kind == BuilderKind::Docker
            && request.buildkit
            && std::env::var_os("DOCKER_BUILDKIT").is_none();
        let env: &[(&str, &str)] = if buildkit {
            &[("DOCKER_BUILDKIT", "1")]
        } else {
            &[]
        };
        let Some(finished) = self.run_with(&build_arguments(self.kind, request), env, on_line)?
        else {
            return Ok(());
        };
        Err(ImageError::BuildFailed {
            builder: self.kind,
            status: finished.status,
            tail: finished.tail,
        })
    }

    pub fn push(&self, image: &ImageRef, on_line: OnLine<'_>) -> Result<(), ImageError> {
        let Some(finished) = self.run(&push_arguments(self.kind, image), on_line)? else {
            return Ok(());
        };
        if finished.tail.iter().any(|line| is_auth_refusal(line)) {
            return Err(ImageError::PushUnauthorized {
                builder: self.kind,
                registry: image
                    .registry()
                    .map_or_else(|| "Docker Hub".to_string(), str::to_string),
                image: image.to_string(),
                login: self.kind.login_command(image.registry()),
                tail: finished.tail,
            });
        }
        Err(ImageError::PushFailed {
            builder: self.kind,
            image: image.to_string(),
            status: finished.status,
            tail: finished.tail,
        })
    }

    /// Runs the builder with `args`, handing each output line to `on_line`: `None` when it
    /// succeeded, else how it ended, for the caller to name the failure. An unreachable docker
    /// daemon is an error of its own whatever the command was.
    fn run(&self, args: &[OsString], on_line: OnLine<'_>) -> Result<Option<Finished>, ImageError> {
        self.run_with(args, &[], on_line)
    }

    /// [`Builder::run`] with more environment variables.
    fn run_with(
        &self,
        args: &[OsString],
        env: &[(&str, &str)],
        on_line: OnLine<'_>,
    ) -> Result<Option<Finished>, ImageError> {
        let mut command = Command::new(&self.program);
        command.args(args).envs(env.iter().copied());
        let finished = process::run_streaming(&mut command, &mut |stream, line| {
            on_line(stream, line);
            true
        })
        .map_err(|e| self.spawn_error(e))?;
        if finished.status.success() {
            return Ok(None);
        }
        match daemon_unreachable(&finished.tail) {
            Some(error) => Err(error),
            None => Ok(Some(finished)),
        }
    }

    fn spawn_error(&self, source: std::io::Error) -> ImageError {
        if source.kind() == std::io::ErrorKind::NotFound {
            ImageError::BuilderMissing {
                program: self.kind.program(),
            }
        } else {
            ImageError::Spawn {
                program: self.program.display().to_string(),
                source,
            }
        }
    }
}

/// What registries answer when a push lacks credentials or rights, across registry
/// implementations and client versions.
fn is_auth_refusal(line: &str) -> bool {
    let line = line.to_ascii_lowercase();
    [
        "no basic auth credentials",
        "unauthorized",
        "authentication required",
        "requested access to the resource is denied",
        "insufficient_scope",
        "denied: access forbidden",
    ]
    .iter()
    .any(|needle| line.contains(needle))
}

/// Recognises the Docker client's "cannot connect" messages and names the address it tried.
fn daemon_unreachable(lines: &[String]) -> Option<ImageError> {
    let line = lines.iter().find(|l| {
        l.contains("Cannot connect to the Docker daemon")
            || l.contains("while trying to connect to the Docker daemon socket")
            || l.starts_with("error during connect")
    })?;
    let from_message = line
        .split_once(" at ")
        .map(|(_, rest)| {
            // "... at unix:///x.sock. Is the docker daemon running?" or "... at ADDR: Get ..."
            let end = rest
                .find(". Is ")
                .or_else(|| rest.find(": "))
                .unwrap_or(rest.len());
            rest[..end].trim_end_matches('.').to_string()
        })
        .filter(|a| !a.is_empty());
    let env = std::env::var("DOCKER_HOST").ok().filter(|v| !v.is_empty());
    let (address, origin) = match (from_message, env) {
        (Some(address), Some(env)) if address == env => (address, "set by DOCKER_HOST"),
        (Some(address), None) if address == DEFAULT_DOCKER_SOCKET => {
            (address, "the default socket; DOCKER_HOST is not set")
        }
        (Some(address), _) => (address, "from the current docker context"),
        (None, Some(env)) => (env, "set by DOCKER_HOST"),
        (None, None) => (
            DEFAULT_DOCKER_SOCKET.to_string(),
            "the default socket; DOCKER_HOST is not set",
        ),
    };
    Some(ImageError::DaemonUnreachable {
        address,
        origin,
        detail: line.clone(),
    })
}

/// The full path of `program` on PATH, if it is there and executable.
pub fn find_on_path(program: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .filter(|dir| !dir.as_os_str().is_empty())
        .map(|dir| dir.join(program))
        .find(|candidate| {
            candidate
                .metadata()
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(args: Vec<OsString>) -> Vec<String> {
        args.into_iter().map(|a| a.into_string().unwrap()).collect()
    }

    fn request<'a>(image: &'a ImageRef, args: &'a [(String, String)]) -> BuildRequest<'a> {
        BuildRequest {
            context: Path::new("/p"),
            dockerfile: Path::new("/p/build/Dockerfile"),
            image,
            build_args: args,
            labels: args,
            platform: Some("linux/arm64"),
            no_cache: true,
            buildkit: false,
        }
    }

    #[test]
    fn cache_mounts_and_platform_arguments_need_buildkit() {
        assert!(needs_buildkit(
            "FROM --platform=$BUILDPLATFORM rust AS b\nRUN x"
        ));
        assert!(needs_buildkit(
            "FROM a\nRUN --mount=type=cache,target=/c make"
        ));
        assert!(needs_buildkit("FROM a\nARG TARGETARCH\n"));
        assert!(!needs_buildkit(
            "# runs on every builder; TARGETARCH is only mentioned\nFROM a\nRUN make\n"
        ));
    }

    #[test]
    fn builds_the_same_way_with_each_builder() {
        let image = ImageRef::parse("127.0.0.1:5000/op:v1").unwrap();
        let kv = [("A".to_string(), "b=c".to_string())];
        let docker = strings(build_arguments(BuilderKind::Docker, &request(&image, &kv)));
        assert_eq!(
            docker,
            [
                "build",
                "--file",
                "/p/build/Dockerfile",
                "--tag",
                "127.0.0.1:5000/op:v1",
                "--build-arg",
                "A=b=c",
                "--label",
                "A=b=c",
                "--platform",
                "linux/arm64",
                "--no-cache",
                "/p"
            ]
        );
        let podman = strings(build_arguments(BuilderKind::Podman, &request(&image, &kv)));
        assert_eq!(podman.last().map(String::as_str), Some("/p"));
        assert!(podman.contains(&"--layers".to_string()));
    }

    #[test]
    fn skips_tls_only_for_loopback_registries_on_podman_and_buildah() {
        let local = ImageRef::parse("localhost:5000/op:v1").unwrap();
        let remote = ImageRef::parse("registry.example.com/op:v1").unwrap();
        assert_eq!(
            strings(push_arguments(BuilderKind::Docker, &local)),
            ["push", "localhost:5000/op:v1"]
        );
        for kind in [BuilderKind::Podman, BuilderKind::Buildah] {
            assert_eq!(
                strings(push_arguments(kind, &local)),
                ["push", "--tls-verify=false", "localhost:5000/op:v1"]
            );
            assert_eq!(
                strings(push_arguments(kind, &remote)),
                ["push", "registry.example.com/op:v1"]
            );
        }
    }

    #[test]
    fn recognises_refused_pushes() {
        for line in [
            "no basic auth credentials",
            "Error: ... exists in 127.0.0.1:5/x: unauthorized: authentication required",
            "denied: requested access to the resource is denied",
        ] {
            assert!(is_auth_refusal(line), "{line}");
        }
        assert!(!is_auth_refusal(
            "Get \"https://x/v2/\": connection refused"
        ));
    }

    #[test]
    fn names_the_daemon_address() {
        let lines =
            ["Cannot connect to the Docker daemon at unix:///nonexistent.sock. Is the docker daemon running?".to_string()];
        let err = daemon_unreachable(&lines).unwrap().to_string();
        assert!(err.contains("at unix:///nonexistent.sock ("), "{err}");
        assert!(err.contains("DOCKER_HOST"), "{err}");
        let lines = ["permission denied while trying to connect to the Docker daemon socket at unix:///var/run/docker.sock: Get \"http://%2Fvar%2Frun%2Fdocker.sock/v1.24/version\": dial unix /var/run/docker.sock: connect: permission denied".to_string()];
        let err = daemon_unreachable(&lines).unwrap().to_string();
        assert!(err.contains("at unix:///var/run/docker.sock ("), "{err}");
        assert!(daemon_unreachable(&["Step 1/2 : FROM x".to_string()]).is_none());
    }

    #[test]
    fn logins_name_the_registry() {
        assert_eq!(
            BuilderKind::Docker.login_command(Some("127.0.0.1:5000")),
            "docker login 127.0.0.1:5000"
        );
        assert_eq!(BuilderKind::Podman.login_command(None), "podman login");
    }
}
