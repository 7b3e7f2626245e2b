//! A real OCI registry for tests: Debian's `docker-registry`, started on a free 127.0.0.1 port
//! with its own config and storage in a temporary directory, and stopped by its PID on drop.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct Registry {
    child: Child,
    port: u16,
    dir: tempfile::TempDir,
}

/// Options for [`Registry::start_with`].
#[derive(Default)]
pub struct RegistryOptions {
    /// An htpasswd file (bcrypt entries) to require basic auth with.
    pub htpasswd: Option<PathBuf>,
}

impl Registry {
    pub fn start() -> Registry {
        Registry::start_with(RegistryOptions::default())
    }

    pub fn start_with(options: RegistryOptions) -> Registry {
        let binary = which("docker-registry").unwrap_or_else(|| {
            panic!("docker-registry is not installed: `apt-get install docker-registry` (scripts/test.sh does this)")
        });
        let dir = tempfile::tempdir().expect("temporary directory for the registry");
        let port = free_port();
        let auth = match &options.htpasswd {
            Some(path) => format!(
                "auth:\n  htpasswd:\n    realm: test-registry\n    path: {}\n",
                path.display()
            ),
            None => String::new(),
        };
        let config = format!(
            "version: 0.1\nlog:\n  level: warn\nstorage:\n  filesystem:\n    rootdirectory: {root}\n  delete:\n    enabled: true\nhttp:\n  addr: 127.0.0.1:{port}\n{auth}",
            root = dir.path().join("storage").display(),
        );
        let config_path = dir.path().join("config.yml");
        std::fs::write(&config_path, config).expect("write registry config");
        let log = std::fs::File::create(dir.path().join("registry.log")).expect("registry log");
        let child = Command::new(binary)
            .arg("serve")
            .arg(&config_path)
            .stdin(Stdio::null())
            .stdout(log.try_clone().expect("log handle"))
            .stderr(log)
            .spawn()
            .expect("start docker-registry");
        let registry = Registry { child, port, dir };
        registry.wait_ready();
        registry
    }

    fn wait_ready(&self) {
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            if std::net::TcpStream::connect(("127.0.0.1", self.port)).is_ok() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let log = std::fs::read_to_string(self.dir.path().join("registry.log")).unwrap_or_default();
        panic!(
            "docker-registry did not start listening on 127.0.0.1:{}:\n{log}",
            self.port
        );
    }

    /// `127.0.0.1:PORT`, the host part of image references.
    pub fn host(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.host())
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("registry.log")).unwrap_or_default()
    }

    pub fn storage(&self) -> PathBuf {
        self.dir.path().join("storage")
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for Registry {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A port that was free a moment ago on 127.0.0.1.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port on 127.0.0.1")
}

/// The full path of a program on PATH.
pub fn which(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}
