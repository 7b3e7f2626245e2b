//! `operator-rs build` end to end with real builders: docker (the machine's Docker Engine),
//! podman and buildah (private storage per test), a real registry on 127.0.0.1, and base images
//! made locally from busybox because nothing can be pulled.

mod support;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command as StdCommand;

use support::build_projects::{
    generated_helm_project, generated_helm_project_with, helm_project, rust_project, write,
};
use support::certs::TestCa;
use support::images::{ContainersStore, DockerImages, Rootfs, require, run_ok, unique};
use support::kube_server::KubeServer;
use support::oci;
use support::operator::wait_for;
use support::project::read_tree;
use support::registry::{Registry, RegistryOptions};
use support::tls_proxy::TlsProxy;

use support::project::operator_rs;

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn project_file(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("PROJECT")).unwrap()
}

/// Where the registry stores a pushed repository; the API reader below is the real check.
fn repository_of(image: &str, registry: &Registry) -> String {
    image
        .strip_prefix(&format!("{}/", registry.host()))
        .unwrap()
        .split(':')
        .next()
        .unwrap()
        .to_string()
}

#[test]
fn docker_builds_pushes_labels_and_records_the_image() {
    if !(require("docker") && require("docker-registry") && require("busybox")) {
        return;
    }
    let registry = Registry::start();
    let mut images = DockerImages::new();
    let parent = tempfile::tempdir().unwrap();
    let dir = generated_helm_project(parent.path());
    run_ok(
        StdCommand::new("git")
            .args(["init", "-q"])
            .current_dir(&dir),
    );
    run_ok(
        StdCommand::new("git")
            .args([
                "remote",
                "add",
                "origin",
                "https://user:secret@git.example.com/team/hello-world-operator.git",
            ])
            .current_dir(&dir),
    );
    let deploy_before = read_tree(&dir.join("deploy"));
    let image = format!("{}/team/{}:v0.1.0", registry.host(), unique("hello"));
    images.track(&image);

    // From a subdirectory: the project root is found upwards.
    let output = operator_rs(&dir.join("helm-charts"))
        .args(["build", &image, "--push", "--label", "team=platform"])
        .arg("--build-arg")
        .arg(format!("BASE_IMAGE={}", images.base()))
        .env("DOCKER_CONFIG", images.config_dir())
        .env("SOURCE_DATE_EPOCH", "1700000000")
        .output()
        .unwrap();
    let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
    assert!(
        output.status.success(),
        "{stdout}\n{stderr}\n{}",
        registry.log()
    );
    // Off a terminal the builder's own output streams through, to stderr.
    assert!(stderr.contains("Step 1/"), "{stderr}");
    assert!(stdout.contains(&format!("Pushed {image}")), "{stdout}");
    assert!(
        stdout.contains("`operator-rs deploy` will use it"),
        "{stdout}"
    );
    assert!(project_file(&dir).contains(&format!("image: {image}")));
    assert!(
        read_tree(&dir.join("deploy")) == deploy_before,
        "build must not rewrite deploy/"
    );

    let labels = oci::labels(
        &registry.host(),
        &repository_of(&image, &registry),
        "v0.1.0",
    );
    assert_eq!(
        labels
            .get("org.opencontainers.image.source")
            .map(String::as_str),
        Some("https://git.example.com/team/hello-world-operator.git"),
        "{labels:?}"
    );
    assert_eq!(labels["org.opencontainers.image.version"], "v0.1.0");
    assert_eq!(
        labels["org.opencontainers.image.created"],
        "2023-11-14T22:13:20Z"
    );
    assert_eq!(
        labels["org.opencontainers.image.title"],
        "hello-world-operator"
    );
    assert_eq!(labels["team"], "platform");
    let config = oci::config(
        &registry.host(),
        &repository_of(&image, &registry),
        "v0.1.0",
    );
    assert_eq!(config["config"]["WorkingDir"], "/opt/helm", "{config}");

    // The image holds the chart where the helm-operator looks for it.
    let chart = "/opt/helm/helm-charts/hello-world/Chart.yaml";
    let inside = file_in_image(&images, &image, chart);
    assert!(inside == std::fs::read(dir.join("helm-charts/hello-world/Chart.yaml")).unwrap());
}

/// The bytes of `path` inside a docker image, read through a container that never starts.
fn file_in_image(images: &DockerImages, image: &str, path: &str) -> Vec<u8> {
    let container = unique("operator-rs-test-read");
    // A command, because an image without CMD cannot make a container; it never runs.
    run_ok(
        images
            .docker()
            .args(["create", "--name", &container, image, "/bin/sh"]),
    );
    let copied = images
        .docker()
        .args(["cp", &format!("{container}:{path}"), "-"])
        .output()
        .unwrap();
    run_ok(images.docker().args(["rm", &container]));
    assert!(copied.status.success(), "{}", text(&copied.stderr));
    let mut archive = tar::Archive::new(copied.stdout.as_slice());
    let mut entry = archive.entries().unwrap().next().unwrap().unwrap();
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut entry, &mut bytes).unwrap();
    bytes
}

#[test]
fn a_missing_tag_is_latest_and_the_created_label_is_now() {
    if !(require("docker") && require("busybox")) {
        return;
    }
    let mut images = DockerImages::new();
    let dir = tempfile::tempdir().unwrap();
    helm_project(dir.path(), "demo-operator");
    let name = format!("operator-rs-test/{}", unique("untagged"));
    images.track(&format!("{name}:latest"));
    let output = operator_rs(dir.path())
        .args(["build", &name, "--no-cache"])
        .arg("--build-arg")
        .arg(format!("BASE_IMAGE={}", images.base()))
        .env("DOCKER_CONFIG", images.config_dir())
        .env_remove("SOURCE_DATE_EPOCH")
        .output()
        .unwrap();
    let stdout = text(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        text(&output.stderr)
    );
    assert!(
        stdout.contains(&format!("no tag given, building {name}:latest")),
        "{stdout}"
    );
    assert!(stdout.contains("--push"), "a hint to push: {stdout}");
    assert!(project_file(dir.path()).contains(&format!("image: {name}:latest")));

    let inspect = run_ok(images.docker().args([
        "image",
        "inspect",
        "--format",
        "{{json .Config.Labels}}",
        &format!("{name}:latest"),
    ]));
    let labels: serde_json::Value = serde_json::from_str(&inspect).unwrap();
    assert_eq!(labels["org.opencontainers.image.version"], "latest");
    // Not in git: no source label rather than a path that means nothing elsewhere.
    assert!(
        labels.get("org.opencontainers.image.source").is_none(),
        "{labels}"
    );
    let created = labels["org.opencontainers.image.created"].as_str().unwrap();
    let shape = created.len() == 20
        && created.as_bytes()[4] == b'-'
        && created.as_bytes()[10] == b'T'
        && created.ends_with('Z');
    assert!(shape, "{created}");
    assert!(created > "2025-01-01T00:00:00Z", "{created}");
}

#[test]
fn a_builder_that_is_not_installed_is_named_with_how_to_pick_another() {
    let empty = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    helm_project(dir.path(), "demo-operator");
    for (flag, env, program) in [
        (Some("podman"), None, "podman"),
        (None, Some("buildah"), "buildah"),
        (None, None, "docker"),
    ] {
        let mut command = operator_rs(dir.path());
        command.args(["build", "demo:v1"]).env("PATH", empty.path());
        if let Some(flag) = flag {
            command.args(["--builder", flag]);
        }
        if let Some(env) = env {
            command.env("OPERATOR_RS_BUILDER", env);
        }
        let output = command.output().unwrap();
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{stderr}");
        assert!(
            stderr.contains(&format!("`{program}` is not installed")),
            "{stderr}"
        );
        assert!(
            stderr.contains("--builder docker|podman|buildah"),
            "{stderr}"
        );
        assert!(stderr.contains("OPERATOR_RS_BUILDER"), "{stderr}");
    }
    assert!(!project_file(dir.path()).contains("image:"));
}

#[test]
fn an_unreachable_docker_daemon_is_named() {
    if !require("docker") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    helm_project(dir.path(), "demo-operator");
    let output = operator_rs(dir.path())
        .args(["build", "demo:v1"])
        .env("DOCKER_HOST", "unix:///nonexistent.sock")
        .output()
        .unwrap();
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(
            "cannot reach the Docker daemon at unix:///nonexistent.sock (set by DOCKER_HOST)"
        ),
        "{stderr}"
    );
    assert!(stderr.contains("--builder podman"), "{stderr}");
}

#[test]
fn a_failing_dockerfile_fails_with_its_status_and_last_lines() {
    if !(require("docker") && require("busybox")) {
        return;
    }
    let images = DockerImages::new();
    let dir = tempfile::tempdir().unwrap();
    helm_project(dir.path(), "demo-operator");
    write(
        dir.path(),
        "build/Broken.Dockerfile",
        "ARG BASE_IMAGE\nFROM ${BASE_IMAGE}\nRUN echo the-chart-is-missing >&2; exit 7\n",
    );
    let output = operator_rs(&dir.path().join("helm-charts"))
        .args([
            "build",
            "operator-rs-test/never-built:v1",
            "--file",
            "../build/Broken.Dockerfile",
        ])
        .arg("--build-arg")
        .arg(format!("BASE_IMAGE={}", images.base()))
        .env("DOCKER_CONFIG", images.config_dir())
        .output()
        .unwrap();
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    let error = &stderr[stderr.find("error:").expect("an error")..];
    assert!(
        error.contains("docker build failed (exit status: 7)"),
        "{error}"
    );
    assert!(error.contains("| the-chart-is-missing"), "{error}");
    assert!(error.contains("returned a non-zero code: 7"), "{error}");
    assert!(!project_file(dir.path()).contains("image:"));
}

/// A fake `docker` that records being run: proves that nothing runs for bad input.
fn recording_docker(bin: &Path, marker: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let script = bin.join("docker");
    std::fs::write(
        &script,
        format!("#!/bin/sh\necho \"$@\" >> {}\n", marker.display()),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn bad_input_is_a_usage_error_and_runs_nothing() {
    let bin = tempfile::tempdir().unwrap();
    let marker = bin.path().join("docker-was-run");
    recording_docker(bin.path(), &marker);
    let dir = tempfile::tempdir().unwrap();
    helm_project(dir.path(), "demo-operator");
    let digest = format!("sha256:{}", "a".repeat(64));
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec!["Team/Demo:v1".into()],
            "repository \"Demo\" must be lower-case",
        ),
        (
            vec!["registry.example.com/team/demo:-v1".into()],
            "tag \"-v1\"",
        ),
        (
            vec!["registry.example.com:99999/demo".into()],
            "port \"99999\"",
        ),
        (vec!["demo@sha256:abc".into()], "64"),
        (vec![format!("demo@{digest}")], "names a digest"),
        (
            vec!["demo:v1".into(), "--local".into()],
            "--local builds a Rust operator",
        ),
        (
            vec!["demo:v1".into(), "--file".into(), "nope/Dockerfile".into()],
            "nope/Dockerfile does not exist",
        ),
        (
            vec!["demo:v1".into(), "--build-arg".into(), "NOVALUE".into()],
            "KEY=VALUE",
        ),
        (
            vec!["demo:v1".into(), "--builder".into(), "kaniko".into()],
            "kaniko",
        ),
        (
            vec!["demo:v1".into(), "--platform".into(), "arm64".into()],
            "\"arm64\" must be one platform, OS/ARCH[/VARIANT]",
        ),
        (
            vec![
                "demo:v1".into(),
                "--platform".into(),
                "linux/amd64,linux/arm64".into(),
            ],
            "must be one platform",
        ),
    ];
    for (args, expected) in cases {
        let output = operator_rs(dir.path())
            .arg("build")
            .args(&args)
            .env("PATH", bin.path())
            .output()
            .unwrap();
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
        assert!(!marker.exists(), "{args:?} ran docker");
    }
    // Outside a project, too.
    let elsewhere = tempfile::tempdir().unwrap();
    let output = operator_rs(elsewhere.path())
        .args(["build", "demo:v1"])
        .env("PATH", bin.path())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stderr).contains("operator-rs new"));
    assert!(!marker.exists());
    // The fake works: a valid reference does reach it.
    operator_rs(dir.path())
        .args(["build", "demo:v1"])
        .env("PATH", bin.path())
        .assert()
        .success();
    assert!(
        std::fs::read_to_string(&marker)
            .unwrap()
            .contains("--tag demo:v1")
    );
}

/// A stand-in builder named `tool` that records its arguments, and `DOCKER_BUILDKIT` when set,
/// one run a line, and succeeds.
fn recording_builder(bin: &Path, tool: &str, marker: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let script = bin.join(tool);
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\necho \"${{DOCKER_BUILDKIT:+DOCKER_BUILDKIT=$DOCKER_BUILDKIT }}$*\" >> {}\n",
            marker.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// `build --platform linux/arm64` of a generated Rust project reaches each builder as its
/// `--platform` (docker with BuildKit, which the Dockerfile's cache mounts and platform
/// arguments need); a platform the Dockerfile does not cross-compile for is refused first.
/// Real cross builds cannot run here (see
/// `the_rust_dockerfile_cross_compiles_from_the_build_platform`), so the builders are
/// stand-ins that record how they were called.
#[test]
fn build_for_another_platform_reaches_each_builder() {
    let parent = tempfile::tempdir().unwrap();
    let project = support::project::new_memcached_operator(parent.path(), "demo-operator");
    for tool in ["docker", "podman", "buildah"] {
        let bin = tempfile::tempdir().unwrap();
        let marker = bin.path().join("calls");
        recording_builder(bin.path(), tool, &marker);
        operator_rs(&project)
            .args([
                "build",
                "demo:v1",
                "--platform",
                "linux/arm64",
                "--builder",
                tool,
            ])
            .env("PATH", bin.path())
            .env_remove("DOCKER_BUILDKIT")
            .assert()
            .success();
        let calls = std::fs::read_to_string(&marker).unwrap();
        let build = calls
            .lines()
            .find(|l| l.contains(" build ") || l.starts_with("build "))
            .unwrap_or_else(|| panic!("{tool} was not asked to build: {calls}"));
        assert!(build.contains("--platform linux/arm64"), "{tool}: {build}");
        assert_eq!(
            build.starts_with("DOCKER_BUILDKIT=1 "),
            tool == "docker",
            "{tool}: {build}"
        );

        let before = read_tree(&project);
        let output = operator_rs(&project)
            .args([
                "build",
                "demo:v1",
                "--platform",
                "linux/riscv64",
                "--builder",
                tool,
            ])
            .env("PATH", bin.path())
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2));
        let stderr = text(&output.stderr);
        assert!(
            stderr.contains("--platform linux/riscv64: the Rust operator's build/Dockerfile cross-compiles for linux/amd64 and linux/arm64"),
            "{stderr}"
        );
        assert_eq!(read_tree(&project), before);
    }
}

/// The generated Rust Dockerfile's cross build, as far as it can run here: its builder stage
/// runs on the build platform and its first step, run for real by the shell the builder
/// image has (dash) with stand-ins for dpkg, apt-get and rustup, picks the Rust target of
/// TARGETARCH and installs a cross toolchain only for another architecture; cargo's registry
/// and target/ are cache mounts, one target/ per architecture; the runtime stage runs nothing,
/// so no emulator is needed. Not run here: a real cross build (this machine's Docker 20.10 has
/// no BuildKit, and its buildah 1.28 and podman 4.3 neither expand BUILDPLATFORM in FROM nor
/// take a local arm64 base image for --platform), nor pulling the Rust and distroless images.
#[test]
fn the_rust_dockerfile_cross_compiles_from_the_build_platform() {
    use std::os::unix::fs::PermissionsExt;
    let parent = tempfile::tempdir().unwrap();
    let project = support::project::new_memcached_operator(parent.path(), "demo-operator");
    let dockerfile = std::fs::read_to_string(project.join("build/Dockerfile")).unwrap();
    // Logical lines, as the builders join continued ones.
    let lines: Vec<String> = dockerfile
        .replace("\\\n", " ")
        .lines()
        .filter(|l| !l.trim_start().starts_with('#') && !l.trim().is_empty())
        .map(String::from)
        .collect();
    let froms: Vec<&String> = lines.iter().filter(|l| l.starts_with("FROM ")).collect();
    assert_eq!(froms.len(), 2, "{froms:?}");
    assert!(
        froms[0].starts_with("FROM --platform=$BUILDPLATFORM ${BUILDER_IMAGE} AS builder"),
        "{}",
        froms[0]
    );
    assert_eq!(froms[1], "FROM ${BASE_IMAGE}");
    let runtime_stage = lines
        .iter()
        .skip_while(|l| !l.starts_with("FROM ${BASE_IMAGE}"));
    assert!(
        runtime_stage.clone().all(|l| !l.starts_with("RUN ")),
        "the runtime stage runs nothing, so it needs no emulator"
    );
    assert!(
        runtime_stage
            .clone()
            .any(|l| l == "COPY --from=builder /demo-operator /usr/local/bin/demo-operator")
    );
    assert!(lines.iter().any(|l| l == "ARG TARGETARCH"));
    let runs: Vec<&String> = lines.iter().filter(|l| l.starts_with("RUN ")).collect();
    assert_eq!(runs.len(), 2, "{runs:?}");
    let build = runs[1];
    for fragment in [
        "--mount=type=cache,target=/usr/local/cargo/registry",
        "--mount=type=cache,target=/build/target,id=demo-operator-target-${TARGETARCH}",
        "cargo build --release --locked --target \"${RUST_TARGET}\" --bin demo-operator",
    ] {
        assert!(build.contains(fragment), "{fragment} not in {build}");
    }

    // The first step, for each architecture, on an amd64 machine.
    let bin = tempfile::tempdir().unwrap();
    let log = bin.path().join("log");
    for (tool, script) in [
        ("dpkg", "#!/bin/sh\necho amd64\n".to_string()),
        (
            "apt-get",
            format!("#!/bin/sh\necho \"apt-get $*\" >> {}\n", log.display()),
        ),
        (
            "rustup",
            format!("#!/bin/sh\necho \"rustup $*\" >> {}\n", log.display()),
        ),
        // The step cleans apt's lists: not this machine's.
        (
            "rm",
            format!("#!/bin/sh\necho \"rm $*\" >> {}\n", log.display()),
        ),
    ] {
        let path = bin.path().join(tool);
        std::fs::write(&path, script).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let env_file = bin.path().join("rust-env");
    let setup = runs[0]
        .strip_prefix("RUN ")
        .unwrap()
        .replace("/rust-env", &env_file.to_string_lossy());
    let step = |arch: &str| {
        let _ = std::fs::remove_file(&log);
        let output = StdCommand::new("sh")
            .args(["-c", &format!("{setup} && . {} && env", env_file.display())])
            .env("TARGETARCH", arch)
            .env("PATH", format!("{}:/usr/bin:/bin", bin.path().display()))
            .output()
            .unwrap();
        let installed = std::fs::read_to_string(&log).unwrap_or_default();
        (output, installed)
    };
    let (native, installed) = step("amd64");
    assert!(native.status.success(), "{}", text(&native.stderr));
    assert!(text(&native.stdout).contains("RUST_TARGET=x86_64-unknown-linux-gnu"));
    assert_eq!(
        installed, "",
        "nothing to install for the machine's own architecture"
    );
    let (cross, installed) = step("arm64");
    assert!(cross.status.success(), "{}", text(&cross.stderr));
    let env = text(&cross.stdout);
    for variable in [
        "RUST_TARGET=aarch64-unknown-linux-gnu",
        "CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc",
        "CC_aarch64_unknown_linux_gnu=aarch64-linux-gnu-gcc",
    ] {
        assert!(
            env.lines().any(|l| l == variable),
            "{variable} not in:\n{env}"
        );
    }
    assert!(
        installed.contains("gcc-aarch64-linux-gnu libc6-dev-arm64-cross"),
        "{installed}"
    );
    assert!(
        installed.contains("rustup target add aarch64-unknown-linux-gnu"),
        "{installed}"
    );
    let (other, _) = step("riscv64");
    assert!(!other.status.success());
    assert!(
        text(&other.stderr)
            .contains("TARGETARCH=riscv64: this Dockerfile builds linux/amd64 and linux/arm64")
    );
}

/// A registry that requires a login as `tester` / `secret`. The bcrypt entry is made with perl's
/// crypt(), which uses libxcrypt (Debian's perl-base and libcrypt1, present on every Debian).
fn htpasswd(dir: &Path) -> PathBuf {
    let hash = run_ok(StdCommand::new("perl").args([
        "-e",
        "print crypt('secret', '$2b$05$' . 'abcdefghijklmnopqrstuu')",
    ]));
    assert!(
        hash.starts_with("$2b$05$"),
        "libcrypt has no bcrypt: {hash}"
    );
    let path = dir.join("htpasswd");
    std::fs::write(&path, format!("tester:{hash}\n")).unwrap();
    path
}

#[test]
fn a_push_refused_for_authentication_says_to_log_in() {
    if !(require("docker") && require("docker-registry") && require("busybox") && require("perl")) {
        return;
    }
    let auth = tempfile::tempdir().unwrap();
    let registry = Registry::start_with(RegistryOptions {
        htpasswd: Some(htpasswd(auth.path())),
    });
    let mut images = DockerImages::new();
    let dir = tempfile::tempdir().unwrap();
    helm_project(dir.path(), "demo-operator");
    let image = format!("{}/team/{}:v1", registry.host(), unique("private"));
    images.track(&image);
    let build = |images: &DockerImages| {
        operator_rs(dir.path())
            .args(["build", &image, "--push"])
            .arg("--build-arg")
            .arg(format!("BASE_IMAGE={}", images.base()))
            .env("DOCKER_CONFIG", images.config_dir())
            // The same labels both times, so the second build reuses the first image instead
            // of leaving it behind untagged.
            .env("SOURCE_DATE_EPOCH", "1700000000")
            .output()
            .unwrap()
    };
    let output = build(&images);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!("{} refused to take {image}", registry.host())),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("Run `docker login {}`", registry.host())),
        "{stderr}"
    );
    assert!(
        !project_file(dir.path()).contains("image:"),
        "a failed push records nothing"
    );

    // After the login the message asks for, the same command works.
    let mut login = images.docker();
    login
        .args([
            "login",
            "--username",
            "tester",
            "--password-stdin",
            &registry.host(),
        ])
        .stdin(std::process::Stdio::piped());
    let mut child = login
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(b"secret").unwrap();
    assert!(child.wait().unwrap().success(), "docker login");
    let output = build(&images);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(project_file(dir.path()).contains(&format!("image: {image}")));
}

/// podman and buildah: build into private storage, push to the registry on 127.0.0.1 (plain
/// HTTP, which the tool allows for loopback registries only), read the labels back.
fn daemonless_build_and_push(tool: &str) {
    if !(require(tool) && require("docker-registry") && require("busybox")) {
        return;
    }
    let registry = Registry::start();
    let store = ContainersStore::new(tool);
    let parent = tempfile::tempdir().unwrap();
    let dir = generated_helm_project(parent.path());
    let repository = format!("team/{}", unique(tool));
    let image = format!("{}/{repository}:v2", registry.host());
    let env: Vec<(&str, OsString)> = store.env();
    let output = operator_rs(&dir)
        .args(["build", &image, "--push", "--builder", tool])
        .arg("--build-arg")
        .arg(format!("BASE_IMAGE={}", store.base()))
        .envs(env)
        .env("SOURCE_DATE_EPOCH", "0")
        .output()
        .unwrap();
    let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
    assert!(
        output.status.success(),
        "{stdout}\n{stderr}\n{}",
        registry.log()
    );
    assert!(stderr.contains("STEP 1/"), "{stderr}");
    assert!(
        stdout.contains(&format!("Built {image} with {tool}")),
        "{stdout}"
    );
    assert!(project_file(&dir).contains(&format!("image: {image}")));
    let labels = oci::labels(&registry.host(), &repository, "v2");
    assert_eq!(
        labels["org.opencontainers.image.version"], "v2",
        "{labels:?}"
    );
    assert_eq!(
        labels["org.opencontainers.image.created"],
        "1970-01-01T00:00:00Z"
    );
    // The image is in the builder's own storage too, under the name the user gave.
    run_ok(
        store
            .command(tool)
            .args(["inspect", "--type", "image", &image]),
    );
}

#[test]
fn podman_builds_and_pushes() {
    daemonless_build_and_push("podman");
}

#[test]
fn buildah_builds_and_pushes() {
    daemonless_build_and_push("buildah");
}

#[test]
fn local_builds_a_rust_binary_on_the_host_and_packages_it() {
    if !(require("docker") && require("busybox") && require("cargo")) {
        return;
    }
    let mut images = DockerImages::new();
    let dir = tempfile::tempdir().unwrap();
    rust_project(dir.path(), "hello-operator");
    let image = format!("operator-rs-test/{}:dev", unique("local"));
    images.track(&image);
    let output = operator_rs(dir.path())
        .args(["build", &image, "--local"])
        .arg("--build-arg")
        .arg(format!("BASE_IMAGE={}", images.base()))
        .env("DOCKER_CONFIG", images.config_dir())
        .env("CARGO_TARGET_DIR", dir.path().join("target"))
        .output()
        .unwrap();
    let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("Finished"),
        "cargo's output streams through: {stderr}"
    );
    assert!(project_file(dir.path()).contains(&format!("image: {image}")));

    let config = run_ok(images.docker().args([
        "image",
        "inspect",
        "--format",
        "{{json .Config.Entrypoint}} {{.Config.User}}",
        &image,
    ]));
    assert_eq!(
        config.trim(),
        "[\"/usr/local/bin/hello-operator\"] 65532:65532"
    );
    // The binary in the image is the one cargo built here.
    let built = std::fs::read(dir.path().join("target/release/hello-operator")).unwrap();
    let inside = file_in_image(&images, &image, "/usr/local/bin/hello-operator");
    assert!(
        inside == built,
        "the image's binary differs from target/release/hello-operator"
    );
}

#[test]
fn on_a_terminal_a_spinner_shows_the_step_and_a_failure_keeps_the_full_log() {
    if !(require("docker") && require("busybox") && require("script")) {
        return;
    }
    let images = DockerImages::new();
    let dir = tempfile::tempdir().unwrap();
    helm_project(dir.path(), "demo-operator");
    // The sleep only keeps the step on screen long enough for the spinner to draw it.
    write(
        dir.path(),
        "build/Slow.Dockerfile",
        "ARG BASE_IMAGE\nFROM ${BASE_IMAGE}\nRUN echo first-line-of-the-log; sleep 3; exit 5\n",
    );
    let command = format!(
        "{} build operator-rs-test/never-built:v1 --file build/Slow.Dockerfile --build-arg BASE_IMAGE={}",
        env!("CARGO_BIN_EXE_operator-rs"),
        images.base()
    );
    // util-linux `script` runs the command on a pseudo-terminal and copies what it shows.
    let output = StdCommand::new("script")
        .args(["-qec", &command, "/dev/null"])
        .current_dir(dir.path())
        .env("DOCKER_CONFIG", images.config_dir())
        .env("NO_COLOR", "1")
        .env_remove("OPERATOR_RS_BUILDER")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let screen = text(&output.stdout);
    assert!(!output.status.success(), "{screen}");
    assert!(
        screen.contains(
            "docker build operator-rs-test/never-built:v1: step 3/6: RUN echo first-line-of-the-log"
        ),
        "{screen}"
    );
    // The builder's lines are not streamed: the only copy on screen is the error's tail.
    assert_eq!(
        screen.matches("first-line-of-the-log\r").count(),
        1,
        "{screen}"
    );
    let marker = "the full log is in ";
    let at = screen.find(marker).unwrap_or_else(|| panic!("{screen}")) + marker.len();
    let path: String = screen[at..]
        .chars()
        .take_while(|c| !c.is_whitespace())
        .collect();
    let log = std::fs::read_to_string(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert!(
        log.contains("$ docker build operator-rs-test/never-built:v1"),
        "{log}"
    );
    assert!(log.contains("Step 1/6 : ARG BASE_IMAGE"), "{log}");
    assert!(log.contains("returned a non-zero code: 5"), "{log}");
}

#[test]
fn a_podman_push_refused_for_authentication_says_podman_login() {
    if !(require("podman") && require("docker-registry") && require("busybox") && require("perl")) {
        return;
    }
    let auth = tempfile::tempdir().unwrap();
    let registry = Registry::start_with(RegistryOptions {
        htpasswd: Some(htpasswd(auth.path())),
    });
    let store = ContainersStore::new("podman");
    let dir = tempfile::tempdir().unwrap();
    helm_project(dir.path(), "demo-operator");
    let image = format!("{}/team/private:v1", registry.host());
    let output = operator_rs(dir.path())
        .args(["build", &image, "--push", "--builder", "podman"])
        .arg("--build-arg")
        .arg(format!("BASE_IMAGE={}", store.base()))
        .envs(store.env())
        .output()
        .unwrap();
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!("Run `podman login {}`", registry.host())),
        "{stderr}"
    );
    assert!(!project_file(dir.path()).contains("image:"));
}

/// The output of a `build` that must have succeeded, as (stdout, stderr); the registry's
/// log is shown when it did not.
fn succeeded(output: std::process::Output, registry: &Registry) -> (String, String) {
    let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
    assert!(
        output.status.success(),
        "{stdout}\n{stderr}\n{}",
        registry.log()
    );
    (stdout, stderr)
}

/// `build IMAGE --push` in `dir`, with the build argument `base_arg` (`BASE_IMAGE` or
/// `RUNTIME_BASE_IMAGE`) naming the stand-in base made here; its stdout, once it succeeded.
fn push_on_local_base(
    dir: &Path,
    image: &str,
    base_arg: &str,
    images: &DockerImages,
    registry: &Registry,
) -> String {
    let output = operator_rs(dir)
        .args(["build", image, "--push"])
        .arg("--build-arg")
        .arg(format!("{base_arg}={}", images.base()))
        .env("DOCKER_CONFIG", images.config_dir())
        .output()
        .unwrap();
    succeeded(output, registry).0
}

/// The operator-rs base that a build's `stdout` says it made here, tracked for removal.
fn made_base(stdout: &str, images: &mut DockerImages) -> String {
    let base = stdout
        .lines()
        .find_map(|l| l.strip_prefix("Base image: "))
        .and_then(|l| l.split(',').next())
        .unwrap_or_default()
        .to_string();
    images.track(&base);
    assert!(base.starts_with("localhost/operator-rs-base:"), "{stdout}");
    base
}

/// The operator-rs binary under test: what `build` packages by default.
fn operator_rs_binary() -> PathBuf {
    assert_cmd::cargo::cargo_bin("operator-rs")
}

#[test]
fn the_operator_rs_runtime_image_runs_the_runtime() {
    if !(require("docker") && require("docker-registry") && require("busybox")) {
        return;
    }
    let registry = Registry::start();
    // The base holds what distroless's cc image holds for us: the binary's C libraries.
    let mut images =
        DockerImages::with_rootfs(Rootfs::busybox_with_libraries_of(&operator_rs_binary()));
    let parent = tempfile::tempdir().unwrap();
    let dir = generated_helm_project_with(parent.path(), &["--runtime=operator-rs"]);
    let before = read_tree(&dir);
    let image = format!("{}/team/{}:v0.2.0", registry.host(), unique("runtime"));
    images.track(&image);
    // What the base made from this operator-rs builds on: distroless's cc, here made locally.
    let stdout = push_on_local_base(&dir, &image, "RUNTIME_BASE_IMAGE", &images, &registry);
    assert!(stdout.contains(&format!("Pushed {image}")), "{stdout}");
    let base = made_base(&stdout, &mut images);
    assert!(
        stdout.contains(&format!(
            "made here from this operator-rs ({})",
            operator_rs_binary().display()
        )),
        "{stdout}"
    );
    // The copy of the binary in the build context is gone; only PROJECT changed.
    let mut after = read_tree(&dir);
    assert!(!after.contains_key("build/operator-rs"), "left behind");
    after.remove("PROJECT");
    let mut expected = before.clone();
    expected.remove("PROJECT");
    assert!(after == expected, "build changed the project");

    let config = oci::config(
        &registry.host(),
        &repository_of(&image, &registry),
        "v0.2.0",
    );
    assert_eq!(config["config"]["User"], "65532:65532", "{config}");
    assert_eq!(config["config"]["WorkingDir"], "/opt/helm", "{config}");
    assert_eq!(
        config["config"]["Entrypoint"],
        serde_json::json!(["/usr/local/bin/operator-rs", "helm-operator-runtime"]),
        "{config}"
    );
    // The binary inside is the one that ran `build`, byte for byte.
    let inside = file_in_image(&images, &image, "/usr/local/bin/operator-rs");
    assert!(inside == std::fs::read(operator_rs_binary()).unwrap());

    // The pushed image, pulled back from the registry, runs the runtime's entrypoint.
    run_ok(images.docker().args(["rmi", &image]));
    let help = run_ok(images.docker().args(["run", "--rm", &image, "--help"]));
    assert!(
        help.contains("Usage: operator-rs helm-operator-runtime"),
        "{help}"
    );
    for flag in [
        "--watches-file",
        "--leader-election-id",
        "--metrics-bind-address",
    ] {
        assert!(help.contains(flag), "{flag}: {help}");
    }
    // Without a cluster it says so and stops, as a non-root user reading watches.yaml from
    // its working directory.
    let output = images
        .docker()
        .args(["run", "--rm", &image, "--health-probe-bind-address=0"])
        .output()
        .unwrap();
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("not running inside a cluster"), "{stderr}");

    reconciles_in_a_pods_place(&images, &image, &dir);

    // Where no base is made here (macOS, another architecture: see
    // where_this_operator_rs_cannot_run_in_the_image_the_published_base_is_used), and by hand,
    // the Dockerfile builds on the published base of the same version, its default. Nothing
    // can be pulled here, so the base just made stands in for it under its name.
    let published = format!(
        "ghcr.io/operator-rs/operator-rs:{}",
        env!("CARGO_PKG_VERSION")
    );
    run_ok(images.docker().args(["tag", &base, &published]));
    images.track(&published);
    let by_hand = format!("operator-rs-test/{}:v0.2.0", unique("by-hand"));
    images.track(&by_hand);
    run_ok(
        images
            .docker()
            .args(["build", "-f", "build/Dockerfile", "-t", &by_hand, "."])
            .current_dir(&dir),
    );
    let inside = file_in_image(&images, &by_hand, "/usr/local/bin/operator-rs");
    assert!(inside == std::fs::read(operator_rs_binary()).unwrap());
}

/// The first steps of README's "Switching runtimes" (PROJECT and build/Dockerfile), as written
/// there for the move to operator-rs, or with the two names swapped for the move back.
fn readme_switch_steps(to: &str) -> String {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let section = readme
        .split_once("#### Switching runtimes")
        .expect("README has a \"Switching runtimes\" section")
        .1;
    let block = section
        .split_once("```sh\n")
        .and_then(|(_, rest)| rest.split_once("```"))
        .expect("the section has a sh block")
        .0;
    let steps = block
        .split_once("# 3.")
        .expect("step 3 follows the files' steps")
        .0;
    match to {
        "operator-rs" => steps.to_string(),
        _ => steps
            .replace("operator-rs", "\u{0}")
            .replace("helm-operator", "operator-rs")
            .replace('\u{0}', "helm-operator")
            // The tool keeps its name.
            .replace("helm-operator new", "operator-rs new"),
    }
}

/// Runs README's switching steps towards `to` in the project `dir`, with this operator-rs first
/// on PATH.
fn switch_runtime(dir: &Path, to: &str) {
    let bin = operator_rs_binary().parent().unwrap().to_path_buf();
    let path = std::env::join_paths(
        std::iter::once(bin).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())),
    )
    .unwrap();
    let script = readme_switch_steps(to);
    let output = StdCommand::new("bash")
        .args(["-euo", "pipefail", "-c", &script])
        .current_dir(dir)
        .env("PATH", path)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{script}\n{}{}",
        text(&output.stdout),
        text(&output.stderr)
    );
    assert!(
        project_file(dir).contains(&format!("\nruntime: {to}\n")),
        "{}",
        project_file(dir)
    );
}

/// `build` in `dir` exits 2 with every fragment in its message, before any builder runs.
fn refused_before_building(
    dir: &Path,
    images: &DockerImages,
    registry: &Registry,
    fragments: &[&str],
) {
    let image = format!("{}/team/{}:v0", registry.host(), unique("refused"));
    let output = operator_rs(dir)
        .args(["build", &image])
        .env("DOCKER_CONFIG", images.config_dir())
        .output()
        .unwrap();
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    for fragment in fragments {
        assert!(stderr.contains(fragment), "{fragment:?} not in: {stderr}");
    }
    // Nothing ran: no builder output, and no image.
    assert!(!stderr.contains("Step 1/"), "{stderr}");
    let listed = run_ok(images.docker().args(["images", "-q", &image]));
    assert!(listed.trim().is_empty(), "{image} was built");
}

/// README's "Switching runtimes" holds: a helm-operator project moved to operator-rs by its
/// steps builds an image that runs the runtime and reconciles as a pod, and moved back builds
/// on the helm-operator image again. PROJECT changed without the Dockerfile is refused
/// before any builder runs, either way.
#[test]
fn a_project_switches_runtimes_as_the_readme_says() {
    if !(require("docker") && require("docker-registry") && require("busybox")) {
        return;
    }
    let registry = Registry::start();
    let mut images =
        DockerImages::with_rootfs(Rootfs::busybox_with_libraries_of(&operator_rs_binary()));
    let parent = tempfile::tempdir().unwrap();
    let dir = generated_helm_project(parent.path());
    let helm_operator_dockerfile = std::fs::read(dir.join("build/Dockerfile")).unwrap();

    // PROJECT alone, the Dockerfile left on the helm-operator image: refused.
    let project = project_file(&dir);
    std::fs::write(
        dir.join("PROJECT"),
        project.replace("\nruntime: helm-operator\n", "\nruntime: operator-rs\n"),
    )
    .unwrap();
    refused_before_building(
        &dir,
        &images,
        &registry,
        &[
            "build/Dockerfile builds on quay.io/operator-framework/helm-operator:v1.42.3",
            "PROJECT says `runtime: operator-rs`",
            "--runtime=operator-rs",
            "Switching runtimes",
        ],
    );
    std::fs::write(dir.join("PROJECT"), &project).unwrap();

    // To operator-rs by the README's steps: the image runs the runtime and reconciles.
    switch_runtime(&dir, "operator-rs");
    let image = format!("{}/team/{}:v0.2.0", registry.host(), unique("switched"));
    images.track(&image);
    let stdout = push_on_local_base(&dir, &image, "RUNTIME_BASE_IMAGE", &images, &registry);
    made_base(&stdout, &mut images);
    let config = oci::config(
        &registry.host(),
        &repository_of(&image, &registry),
        "v0.2.0",
    );
    assert_eq!(
        config["config"]["Entrypoint"],
        serde_json::json!(["/usr/local/bin/operator-rs", "helm-operator-runtime"]),
        "{config}"
    );
    reconciles_in_a_pods_place(&images, &image, &dir);

    // And back: PROJECT alone is refused again, then the steps with the names swapped bring
    // back the helm-operator's Dockerfile, byte for byte, and its build.
    let project = project_file(&dir);
    std::fs::write(
        dir.join("PROJECT"),
        project.replace("\nruntime: operator-rs\n", "\nruntime: helm-operator\n"),
    )
    .unwrap();
    refused_before_building(
        &dir,
        &images,
        &registry,
        &[
            "build/Dockerfile builds on ghcr.io/operator-rs/operator-rs:",
            "PROJECT says `runtime: helm-operator`",
            "--runtime=helm-operator",
        ],
    );
    std::fs::write(dir.join("PROJECT"), &project).unwrap();
    switch_runtime(&dir, "helm-operator");
    assert!(std::fs::read(dir.join("build/Dockerfile")).unwrap() == helm_operator_dockerfile);
    let back = format!("{}/team/{}:v0.3.0", registry.host(), unique("back"));
    images.track(&back);
    // The helm-operator image cannot be pulled here: busybox stands in for it.
    let stdout = push_on_local_base(&dir, &back, "BASE_IMAGE", &images, &registry);
    assert!(!stdout.contains("Base image:"), "{stdout}");
    let config = oci::config(&registry.host(), &repository_of(&back, &registry), "v0.3.0");
    assert_ne!(
        config["config"]["Entrypoint"],
        serde_json::json!(["/usr/local/bin/operator-rs", "helm-operator-runtime"]),
        "{config}"
    );
    // A PROJECT of old, without `runtime:`, is a helm-operator project: it builds as is.
    let project = project_file(&dir);
    std::fs::write(
        dir.join("PROJECT"),
        project.replace("runtime: helm-operator\n", ""),
    )
    .unwrap();
    let output = operator_rs(&dir)
        .args(["build", &back])
        .arg("--build-arg")
        .arg(format!("BASE_IMAGE={}", images.base()))
        .env("DOCKER_CONFIG", images.config_dir())
        .output()
        .unwrap();
    succeeded(output, &registry);
}

/// The image run as a pod runs it: no kubeconfig, only the in-cluster configuration, that is
/// `KUBERNETES_SERVICE_HOST`/`_PORT` and the service account's token, `ca.crt` and
/// `namespace` mounted where the kubelet mounts them; `watches.yaml` and the chart from the
/// image's working directory; `deploy/operator.yaml`'s arguments. The Kubernetes API test
/// server sits behind a TLS front, since in-cluster clients speak only https. The container
/// shares the host's network so that 127.0.0.1 is the server's address inside it too.
fn reconciles_in_a_pods_place(images: &DockerImages, image: &str, project: &Path) {
    const NAMESPACE: &str = "demo";
    let server = KubeServer::start();
    let ca = TestCa::new();
    let front = TlsProxy::start(
        server.url().trim_start_matches("http://"),
        ca.server_config(false),
    );
    let home = tempfile::tempdir().unwrap();
    let kubectl = |args: &[&str]| {
        let output = server
            .kubectl(&home.path().join("kubectl-cache"))
            .args(args)
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "kubectl {args:?}: {}",
            text(&output.stderr)
        );
    };
    // kubectl create sends a protobuf Namespace, which the test server does not decode.
    let namespace = home.path().join("namespace.json");
    std::fs::write(
        &namespace,
        format!(r#"{{"apiVersion":"v1","kind":"Namespace","metadata":{{"name":"{NAMESPACE}"}}}}"#),
    )
    .unwrap();
    let crd = project.join("deploy/crds/charts.example.com_helloworlds_crd.yaml");
    for file in [&namespace, &crd] {
        kubectl(&["apply", "--server-side", "-f", file.to_str().unwrap()]);
    }
    kubectl(&[
        "wait",
        "--for=condition=Established",
        "--timeout=60s",
        "crd/helloworlds.charts.example.com",
    ]);

    // The kubelet's projected service account volume, readable by the image's user.
    let account = tempfile::tempdir().unwrap();
    write(account.path(), "token", &server.token());
    write(account.path(), "namespace", NAMESPACE);
    std::fs::copy(ca.path("ca.pem"), account.path().join("ca.crt")).unwrap();
    readable_by_all(account.path());

    let operator_yaml = std::fs::read_to_string(project.join("deploy/operator.yaml")).unwrap();
    let arguments = [
        "--leader-elect",
        "--leader-election-id=hello-world-operator",
    ];
    for argument in arguments {
        assert!(operator_yaml.contains(argument), "{operator_yaml}");
    }
    let name = unique("operator-pod");
    run_ok(
        images
            .docker()
            .args(["run", "--detach", "--name", &name, "--network=host"])
            .arg("--volume")
            .arg(format!(
                "{}:/var/run/secrets/kubernetes.io/serviceaccount:ro",
                account.path().display()
            ))
            .args(["--env", "KUBERNETES_SERVICE_HOST=127.0.0.1"])
            .arg("--env")
            .arg(format!("KUBERNETES_SERVICE_PORT={}", front.port()))
            .arg("--env")
            .arg(format!("WATCH_NAMESPACE={NAMESPACE}"))
            .arg(image)
            .args(arguments)
            // On the host's network a fixed port could clash with other tests.
            .args([
                "--health-probe-bind-address=127.0.0.1:0",
                "--metrics-bind-address=0",
            ]),
    );
    let logs = || {
        let output = images.docker().args(["logs", &name]).output().unwrap();
        format!("{}{}", text(&output.stdout), text(&output.stderr))
    };

    let cr = project.join("deploy/crds/charts.example.com_v1alpha1_helloworld_cr.yaml");
    kubectl(&["apply", "-n", NAMESPACE, "-f", cr.to_str().unwrap()]);
    let deadline = std::time::Duration::from_secs(90);
    wait_for(
        "the custom resource to be Deployed by the containerised runtime",
        deadline,
        || {
            let running =
                run_ok(
                    images
                        .docker()
                        .args(["inspect", "--format", "{{.State.Running}}", &name]),
                );
            assert_eq!(running.trim(), "true", "the container stopped:\n{}", logs());
            let cr = server.object(
                "charts.example.com",
                "helloworlds",
                Some(NAMESPACE),
                "hello-world-sample",
            )?;
            let deployed = cr["status"]["conditions"]
                .as_array()?
                .iter()
                .any(|c| c["type"] == "Deployed" && c["status"] == "True");
            deployed.then_some(())
        },
        logs,
    );
    // Its Lease is in the namespace of its service account, and the release is Helm's.
    let lease = server
        .object(
            "coordination.k8s.io",
            "leases",
            Some(NAMESPACE),
            "hello-world-operator",
        )
        .unwrap_or_else(|| panic!("no Lease in {NAMESPACE}\n{}", logs()));
    assert!(lease["spec"]["holderIdentity"].is_string(), "{lease:#}");
    let secret = server
        .object(
            "",
            "secrets",
            Some(NAMESPACE),
            "sh.helm.release.v1.hello-world-sample.v1",
        )
        .unwrap_or_else(|| panic!("no release Secret\n{}", logs()));
    assert_eq!(secret["type"], "helm.sh/release.v1");
    assert!(
        server
            .object("apps", "deployments", Some(NAMESPACE), "hello-world-sample")
            .is_some(),
        "{}",
        logs()
    );

    // `docker stop` is the kubelet's SIGTERM: a clean exit.
    run_ok(images.docker().args(["stop", "--time", "30", &name]));
    let exit = run_ok(
        images
            .docker()
            .args(["inspect", "--format", "{{.State.ExitCode}}", &name]),
    );
    assert_eq!(exit.trim(), "0", "{}", logs());
    run_ok(images.docker().args(["rm", &name]));
}

/// Mode 0755 on `dir` and 0644 on its files: the image's user is not the one who wrote them.
fn readable_by_all(dir: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
    }
}

#[test]
fn a_runtime_binary_that_cannot_run_in_the_image_is_refused_before_anything_runs() {
    let bin = tempfile::tempdir().unwrap();
    let marker = bin.path().join("docker-was-run");
    recording_docker(bin.path(), &marker);
    let parent = tempfile::tempdir().unwrap();
    let dir = generated_helm_project_with(parent.path(), &["--runtime=operator-rs"]);
    let before = read_tree(&dir);
    let script = bin.path().join("operator-rs.sh");
    std::fs::write(&script, "#!/bin/sh\necho hi\n").unwrap();
    // The header of a 64-bit arm64 Linux executable, and nothing else.
    let mut arm = vec![0u8; 64];
    arm[..8].copy_from_slice(b"\x7fELF\x02\x01\x01\x00");
    arm[16..20].copy_from_slice(&[3, 0, 183, 0]);
    let arm_path = bin.path().join("operator-rs-arm64");
    std::fs::write(&arm_path, &arm).unwrap();
    let exe = operator_rs_binary();
    let cases: Vec<(Vec<String>, Vec<String>)> = vec![
        (
            vec!["--runtime-binary".into(), script.display().to_string()],
            vec![
                script.display().to_string(),
                "it is a script".into(),
                "needs a Linux ELF executable".into(),
            ],
        ),
        (
            vec!["--runtime-binary".into(), arm_path.display().to_string()],
            vec![
                arm_path.display().to_string(),
                "aarch64 (arm64)".into(),
                "linux/amd64".into(),
                "--platform linux/arm64".into(),
            ],
        ),
        (
            vec!["--platform".into(), "windows/amd64".into()],
            vec!["runs Linux".into()],
        ),
        (
            vec!["--runtime-binary".into(), "/no/such/operator-rs".into()],
            vec!["cannot read --runtime-binary /no/such/operator-rs".into()],
        ),
    ];
    // Only where this is the machine these tests are written for.
    let cases = if cfg!(target_arch = "x86_64") {
        cases
    } else {
        cases.into_iter().skip(2).collect()
    };
    for (args, fragments) in cases {
        let output = operator_rs(&dir)
            .args(["build", "demo:v1"])
            .args(&args)
            .env("PATH", bin.path())
            .output()
            .unwrap();
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        for fragment in fragments {
            assert!(
                stderr.contains(&fragment),
                "{args:?}: {fragment:?} not in {stderr}"
            );
        }
        assert!(!marker.exists(), "{args:?} ran docker");
        assert!(read_tree(&dir) == before, "{args:?} changed the project");
    }

    // A helm-operator project packages no operator-rs: --runtime-binary is refused too.
    let other = tempfile::tempdir().unwrap();
    let helm_operator = generated_helm_project(other.path());
    let output = operator_rs(&helm_operator)
        .args(["build", "demo:v1", "--runtime-binary"])
        .arg(&exe)
        .env("PATH", bin.path())
        .output()
        .unwrap();
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("runtime: operator-rs"), "{stderr}");
    assert!(!marker.exists());

    // The fake works: a binary that can run reaches it, a base image is made from it first.
    operator_rs(&dir)
        .args(["build", "demo:v1", "--runtime-binary"])
        .arg(&exe)
        .env("PATH", bin.path())
        .assert()
        .success();
    let calls = std::fs::read_to_string(&marker).unwrap();
    let builds: Vec<&str> = calls.lines().filter(|l| l.starts_with("build")).collect();
    assert_eq!(builds.len(), 2, "{calls}");
    assert!(builds[0].contains("localhost/operator-rs-base:"), "{calls}");
    assert!(
        builds[1].contains("BASE_IMAGE=localhost/operator-rs-base:"),
        "{calls}"
    );
}

#[test]
fn where_this_operator_rs_cannot_run_in_the_image_the_published_base_is_used() {
    if !cfg!(target_arch = "x86_64") {
        return;
    }
    let bin = tempfile::tempdir().unwrap();
    let marker = bin.path().join("docker-was-run");
    recording_docker(bin.path(), &marker);
    let parent = tempfile::tempdir().unwrap();
    let dir = generated_helm_project_with(parent.path(), &["--runtime=operator-rs"]);
    // This operator-rs is an amd64 binary: it cannot run in a linux/arm64 image.
    let output = operator_rs(&dir)
        .args(["build", "demo:v1", "--platform", "linux/arm64"])
        .env("PATH", bin.path())
        .output()
        .unwrap();
    let stdout = text(&output.stdout);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let published = format!(
        "ghcr.io/operator-rs/operator-rs:{}",
        env!("CARGO_PKG_VERSION")
    );
    assert!(
        stdout.contains(&format!("Base image: the published {published}")),
        "{stdout}"
    );
    assert!(stdout.contains("linux/arm64"), "{stdout}");
    let calls = std::fs::read_to_string(&marker).unwrap();
    let builds: Vec<&str> = calls.lines().filter(|l| l.starts_with("build")).collect();
    assert_eq!(builds.len(), 1, "{calls}");
    assert!(
        builds[0].contains(&format!("BASE_IMAGE={published}")),
        "{calls}"
    );
}

/// podman and buildah package the operator-rs runtime too; the image they push runs in the
/// Docker Engine, pulled from the registry.
fn daemonless_runtime_image(tool: &str) {
    if !(require(tool) && require("docker") && require("docker-registry") && require("busybox")) {
        return;
    }
    let registry = Registry::start();
    let rootfs = || Rootfs::busybox_with_libraries_of(&operator_rs_binary());
    let store = ContainersStore::with_rootfs(tool, rootfs());
    let mut images = DockerImages::with_rootfs(rootfs());
    let parent = tempfile::tempdir().unwrap();
    let dir = generated_helm_project_with(parent.path(), &["--runtime=operator-rs"]);
    let image = format!("{}/team/{}:v3", registry.host(), unique(tool));
    images.track(&image);
    let output = operator_rs(&dir)
        .args(["build", &image, "--push", "--builder", tool])
        .arg("--build-arg")
        .arg(format!("RUNTIME_BASE_IMAGE={}", store.base()))
        .envs(store.env())
        .output()
        .unwrap();
    let (stdout, _) = succeeded(output, &registry);
    assert!(
        stdout.contains("Base image: localhost/operator-rs-base:"),
        "{stdout}"
    );
    let help = run_ok(images.docker().args(["run", "--rm", &image, "--help"]));
    assert!(
        help.contains("Usage: operator-rs helm-operator-runtime"),
        "{help}"
    );
}

#[test]
fn podman_builds_the_operator_rs_runtime_image() {
    daemonless_runtime_image("podman");
}

#[test]
fn buildah_builds_the_operator_rs_runtime_image() {
    daemonless_runtime_image("buildah");
}
