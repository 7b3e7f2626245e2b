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

    /// Starts the registry on a port that was free a moment ago. Another test can take that
    /// port before the registry binds it; the registry then exits, and it is started again on
    /// another port.
    pub fn start_with(options: RegistryOptions) -> Registry {
        let binary = which("docker-registry").unwrap_or_else(|| {
            panic!("docker-registry is not installed: `apt-get install docker-registry` (scripts/test.sh does this)")
        });
        let mut last_log = String::new();
        for _attempt in 0..5 {
            let mut registry = Registry::spawn(&binary, &options);
            if registry.wait_ready() {
                return registry;
            }
            last_log = registry.log();
        }
        panic!("docker-registry did not start listening on 127.0.0.1 in five tries:\n{last_log}");
    }

    fn spawn(binary: &Path, options: &RegistryOptions) -> Registry {
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
        Registry { child, port, dir }
    }

    /// True once the registry answers on its port; false when it exited first (its port was
    /// taken) or did not answer within 20 s. A connection alone is not proof: the process that
    /// took the port would accept it too, so the answer must carry the registry's API header.
    fn wait_ready(&mut self) -> bool {
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            if self.child.try_wait().ok().flatten().is_some() {
                return false;
            }
            if self.answers() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        false
    }

    /// True when `GET /v2/` on the port gets an answer from a registry.
    fn answers(&self) -> bool {
        use std::io::{Read, Write};
        let Ok(mut stream) = std::net::TcpStream::connect(("127.0.0.1", self.port)) else {
            return false;
        };
        let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
        let request = format!("GET /v2/ HTTP/1.0\r\nHost: 127.0.0.1:{}\r\n\r\n", self.port);
        if stream.write_all(request.as_bytes()).is_err() {
            return false;
        }
        let mut answer = String::new();
        let _ = stream.read_to_string(&mut answer);
        answer
            .to_ascii_lowercase()
            .contains("docker-distribution-api-version")
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
fn free_port() -> u16 {
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
