//! Base images for build tests, made here because nothing can be pulled: a root filesystem
//! holding Debian's static `/bin/busybox`, imported into the Docker Engine or into a private
//! podman/buildah storage in a temporary directory. Everything a test makes is removed on drop.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};

use super::registry::which;

/// True when `tool` is on PATH. A missing tool fails the test under `CI=true` (the test script
/// installs it) and skips it, loudly, elsewhere.
pub fn require(tool: &str) -> bool {
    if which(tool).is_some() {
        return true;
    }
    let package = match tool {
        "docker" => "docker.io",
        "busybox" => "busybox-static",
        other => other,
    };
    if std::env::var_os("CI").is_some() {
        panic!(
            "{tool} is not installed: `apt-get install -y {package}` (scripts/test.sh does this)"
        );
    }
    eprintln!(
        "SKIPPED: {tool} is not installed (`apt-get install -y {package}`); under CI=true this fails"
    );
    false
}

/// A name no other test (or test run) uses at the same time.
pub fn unique(prefix: &str) -> String {
    static COUNTER: AtomicU32 = AtomicU32::new(0);
    format!(
        "{prefix}-{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::SeqCst)
    )
}

/// Runs a command that must succeed and returns its stdout.
pub fn run_ok(command: &mut Command) -> String {
    let output = command
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {command:?}: {e}"));
    assert!(
        output.status.success(),
        "{command:?} failed ({}):\n{}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A tarball of a tiny root filesystem: `/bin/busybox` and a few applet links, `/tmp`.
pub struct Rootfs {
    _dir: tempfile::TempDir,
    pub tarball: PathBuf,
}

impl Rootfs {
    pub fn busybox() -> Rootfs {
        Rootfs::busybox_with(&[])
    }

    /// busybox plus the shared libraries `ldd` lists for `binary`, at the same paths: a base
    /// image like distroless's "cc" for a dynamically linked Rust binary, made from this
    /// machine's files since nothing can be pulled.
    pub fn busybox_with_libraries_of(binary: &Path) -> Rootfs {
        let listing = run_ok(Command::new("ldd").arg(binary));
        let libraries: Vec<PathBuf> = listing
            .split_whitespace()
            .filter(|word| word.starts_with('/'))
            .map(PathBuf::from)
            .collect();
        assert!(
            libraries
                .iter()
                .any(|l| l.to_string_lossy().contains("libc.so")),
            "ldd {}: {listing}",
            binary.display()
        );
        Rootfs::busybox_with(&libraries)
    }

    /// busybox and the files `extra` (absolute paths, symbolic links followed), each at its
    /// own path.
    fn busybox_with(extra: &[PathBuf]) -> Rootfs {
        let busybox = ["/bin/busybox", "/usr/bin/busybox"]
            .into_iter()
            .map(Path::new)
            .find(|p| p.is_file())
            .expect("busybox is not installed: `apt-get install -y busybox-static`");
        let dir = tempfile::tempdir().unwrap();
        let tarball = dir.path().join("rootfs.tar");
        let mut builder = tar::Builder::new(std::fs::File::create(&tarball).unwrap());
        let mut directories: std::collections::BTreeSet<String> =
            ["bin/".to_string(), "tmp/".to_string()].into();
        for file in extra {
            let relative = file.strip_prefix("/").unwrap();
            for parent in relative.ancestors().skip(1) {
                if !parent.as_os_str().is_empty() {
                    directories.insert(format!("{}/", parent.display()));
                }
            }
        }
        // Sorted, so every parent comes before its children.
        for directory in &directories {
            let mut header = tar::Header::new_gnu();
            header.set_entry_type(tar::EntryType::Directory);
            header.set_mode(if directory == "tmp/" { 0o1777 } else { 0o755 });
            header.set_size(0);
            builder
                .append_data(&mut header, directory, std::io::empty())
                .unwrap();
        }
        let mut files = vec![(PathBuf::from("bin/busybox"), busybox.to_path_buf())];
        files.extend(
            extra
                .iter()
                .map(|f| (f.strip_prefix("/").unwrap().to_path_buf(), f.clone())),
        );
        for (inside, source) in files {
            let bytes = std::fs::read(&source).unwrap();
            let mut header = tar::Header::new_gnu();
            header.set_mode(0o755);
            header.set_size(bytes.len() as u64);
            builder
                .append_data(&mut header, inside, bytes.as_slice())
                .unwrap();
        }
        for applet in ["sh", "ls", "cat", "echo", "false", "true"] {
            let mut header = tar::Header::new_gnu();
            header.set_entry_type(tar::EntryType::Symlink);
            header.set_mode(0o777);
            header.set_size(0);
            builder
                .append_link(&mut header, format!("bin/{applet}"), "busybox")
                .unwrap();
        }
        builder.into_inner().unwrap();
        Rootfs { _dir: dir, tarball }
    }
}

/// The Docker Engine side: a base image with a unique tag, a private `DOCKER_CONFIG` (so no
/// credentials of the machine are used or changed), and every image a test names removed at
/// the end together with containers left by failed builds.
pub struct DockerImages {
    config: tempfile::TempDir,
    base: String,
    tracked: Vec<String>,
}

impl DockerImages {
    pub fn new() -> DockerImages {
        DockerImages::with_rootfs(Rootfs::busybox())
    }

    /// With a base image made of `rootfs` (see [`Rootfs::busybox_with_libraries_of`]).
    pub fn with_rootfs(rootfs: Rootfs) -> DockerImages {
        let base = format!("operator-rs-test/{}:latest", unique("base"));
        run_ok(
            Command::new("docker")
                .arg("import")
                .arg(&rootfs.tarball)
                .arg(&base),
        );
        DockerImages {
            config: tempfile::tempdir().unwrap(),
            base,
            tracked: Vec::new(),
        }
    }

    /// The base image, for `--build-arg BASE_IMAGE=...`.
    pub fn base(&self) -> &str {
        &self.base
    }

    /// The `DOCKER_CONFIG` directory tests give to docker and to operator-rs.
    pub fn config_dir(&self) -> &Path {
        self.config.path()
    }

    /// Removes `image` at the end of the test.
    pub fn track(&mut self, image: &str) {
        self.tracked.push(image.to_string());
    }

    pub fn docker(&self) -> Command {
        let mut command = Command::new("docker");
        command.env("DOCKER_CONFIG", self.config.path());
        command
    }
}

impl Drop for DockerImages {
    fn drop(&mut self) {
        let quiet = |command: &mut Command| {
            let _ = command
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .output();
        };
        // Failed classic-builder steps leave their container behind; they all descend from
        // this test's base image, which no other test uses.
        if let Ok(output) = Command::new("docker")
            .args(["ps", "-aq", "--filter"])
            .arg(format!("ancestor={}", self.base))
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .output()
        {
            let ids = String::from_utf8_lossy(&output.stdout);
            for id in ids.split_whitespace() {
                quiet(Command::new("docker").args(["rm", "-f", id]));
            }
        }
        for image in self.tracked.iter().rev() {
            quiet(Command::new("docker").args(["rmi", "-f", image]));
        }
        quiet(Command::new("docker").args(["rmi", "-f", &self.base]));
    }
}

/// podman and buildah with their own storage (vfs, which works in any container), config,
/// run and auth files in a temporary directory: nothing touches the machine's image store,
/// and dropping it removes everything the test built.
pub struct ContainersStore {
    dir: tempfile::TempDir,
    base: String,
}

impl ContainersStore {
    /// Creates the store and imports the base image with `tool` ("podman" or "buildah").
    pub fn new(tool: &str) -> ContainersStore {
        ContainersStore::with_rootfs(tool, Rootfs::busybox())
    }

    /// With a base image made of `rootfs` (see [`Rootfs::busybox_with_libraries_of`]).
    pub fn with_rootfs(tool: &str, rootfs: Rootfs) -> ContainersStore {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(
            root.join("storage.conf"),
            format!(
                "[storage]\ndriver = \"vfs\"\ngraphroot = \"{}\"\nrunroot = \"{}\"\n",
                root.join("graph").display(),
                root.join("run").display()
            ),
        )
        .unwrap();
        // Without systemd: cgroupfs and a file for events; podman's own state stays here too.
        std::fs::write(
            root.join("containers.conf"),
            format!(
                "[engine]\ntmp_dir = \"{}\"\nevents_logger = \"file\"\ncgroup_manager = \"cgroupfs\"\n",
                root.join("tmp").display()
            ),
        )
        .unwrap();
        std::fs::write(root.join("auth.json"), "{}").unwrap();
        let store = ContainersStore {
            dir,
            base: "localhost/operator-rs-test/base:latest".to_string(),
        };
        match tool {
            "podman" => {
                run_ok(
                    store
                        .command("podman")
                        .arg("import")
                        .arg(&rootfs.tarball)
                        .arg(&store.base),
                );
            }
            "buildah" => {
                let container = run_ok(store.command("buildah").args(["from", "scratch"]));
                let container = container.trim();
                run_ok(
                    store
                        .command("buildah")
                        .args(["add", container])
                        .arg(&rootfs.tarball)
                        .arg("/"),
                );
                run_ok(store.command("buildah").args([
                    "commit",
                    "--quiet",
                    container,
                    &store.base,
                ]));
                run_ok(store.command("buildah").args(["rm", container]));
            }
            other => panic!("no such builder: {other}"),
        }
        store
    }

    pub fn base(&self) -> &str {
        &self.base
    }

    /// The environment that points podman and buildah (run directly or by operator-rs) here.
    pub fn env(&self) -> Vec<(&'static str, OsString)> {
        let root = self.dir.path();
        vec![
            ("CONTAINERS_STORAGE_CONF", root.join("storage.conf").into()),
            ("CONTAINERS_CONF", root.join("containers.conf").into()),
            ("REGISTRY_AUTH_FILE", root.join("auth.json").into()),
            // buildah runs RUN steps in a chroot: works inside unprivileged CI containers too.
            ("BUILDAH_ISOLATION", "chroot".into()),
            ("TMPDIR", root.into()),
        ]
    }

    pub fn command(&self, program: &str) -> Command {
        let mut command = Command::new(program);
        command.envs(self.env());
        command
    }
}
