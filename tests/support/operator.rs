//! Running operators as real processes in tests: the shared target directory generated projects
//! build in, a guard that stops a process (and the processes it started) by PID on every exit
//! path, panics included, and polling with a deadline.

use std::cell::{Cell, RefCell};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// The target directory shared by every generated project of the test run, so the
/// dependencies of generated projects (kube, axum, tokio...) are compiled once.
pub fn generated_target_dir() -> PathBuf {
    std::env::var_os("OPERATOR_RS_TEST_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target/generated-projects"))
}

/// The environment of every cargo run on a generated project: the shared target directory, and
/// builds that keep that directory small. A test run links a dozen binaries of the kube, axum
/// and tokio tree; with full debug information and incremental caches they took the disk of a
/// CI machine. Line tables keep file and line in a backtrace.
pub fn generated_build_env() -> [(&'static str, std::ffi::OsString); 3] {
    [
        ("CARGO_TARGET_DIR", generated_target_dir().into_os_string()),
        ("CARGO_INCREMENTAL", "0".into()),
        ("CARGO_PROFILE_DEV_DEBUG", "line-tables-only".into()),
    ]
}

/// A process started by a test, its output in files read on failure. Dropping it kills it and
/// its children by PID (SIGKILL), so no test leaves an operator behind.
pub struct Running {
    pub name: String,
    child: RefCell<Child>,
    pid: u32,
    log_dir: tempfile::TempDir,
    status: Cell<Option<ExitStatus>>,
}

impl Running {
    /// Spawns `command` with stdin closed and stdout/stderr captured.
    pub fn spawn(name: &str, command: &mut Command) -> Running {
        let log_dir = tempfile::tempdir().expect("a directory for the logs");
        let stdout = std::fs::File::create(log_dir.path().join("stdout")).expect("stdout file");
        let stderr = std::fs::File::create(log_dir.path().join("stderr")).expect("stderr file");
        let child = command
            .stdin(Stdio::null())
            .stdout(stdout)
            .stderr(stderr)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {name}: {e}"));
        Running {
            name: name.to_string(),
            pid: child.id(),
            child: RefCell::new(child),
            log_dir,
            status: Cell::new(None),
        }
    }

    pub fn pid(&self) -> u32 {
        self.pid
    }

    pub fn stdout(&self) -> String {
        std::fs::read_to_string(self.log_dir.path().join("stdout")).unwrap_or_default()
    }

    /// The `host:port` of the first `http://` address printed on stdout for `path`
    /// (`/healthz`, `/metrics`): where a server bound to port 0 really listens.
    pub fn printed_address(&self, path: &str) -> Option<String> {
        let stdout = self.stdout();
        let line = stdout.lines().find(|l| l.contains(path))?;
        Some(line.split("http://").nth(1)?.split('/').next()?.to_string())
    }

    pub fn stderr(&self) -> String {
        std::fs::read_to_string(self.log_dir.path().join("stderr")).unwrap_or_default()
    }

    /// Both outputs, for assertion messages.
    pub fn logs(&self) -> String {
        format!(
            "--- {} stdout\n{}\n--- {} stderr\n{}",
            self.name,
            self.stdout(),
            self.name,
            self.stderr()
        )
    }

    /// The exit status if it has exited (reaping it).
    pub fn exited(&self) -> Option<ExitStatus> {
        if self.status.get().is_none() {
            self.status
                .set(self.child.borrow_mut().try_wait().expect("try_wait"));
        }
        self.status.get()
    }

    /// Panics with the logs if the process has exited.
    pub fn assert_running(&self) {
        if let Some(status) = self.exited() {
            panic!("{} exited with {status}\n{}", self.name, self.logs());
        }
    }

    /// Sends `signal` (for example "TERM") with the real `kill`.
    pub fn signal(&self, signal: &str) {
        send_signal(self.pid(), signal);
    }

    /// Waits until it exits; panics with the logs when `deadline` passes first.
    pub fn wait_exit(&self, deadline: Duration) -> ExitStatus {
        let until = Instant::now() + deadline;
        loop {
            if let Some(status) = self.exited() {
                return status;
            }
            assert!(
                Instant::now() < until,
                "{} did not exit within {deadline:?}\n{}",
                self.name,
                self.logs()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The PIDs of its direct children (Linux /proc), for example the operator `run` started.
    pub fn children(&self) -> Vec<u32> {
        children_of(self.pid())
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if self.exited().is_some() {
            return;
        }
        // Children first: `operator-rs run` puts the operator in a process group of its own,
        // so killing `run` alone would leave the operator running.
        for child in children_of(self.pid()) {
            send_signal(child, "KILL");
        }
        let mut child = self.child.borrow_mut();
        let _ = child.kill();
        let _ = child.wait();
    }
}

/// The direct children of `pid`, from /proc.
pub fn children_of(pid: u32) -> Vec<u32> {
    let path = format!("/proc/{pid}/task/{pid}/children");
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .split_whitespace()
        .filter_map(|p| p.parse().ok())
        .collect()
}

/// True while `pid` exists and is not a zombie.
pub fn is_alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // The state follows the command name in parentheses: "123 (name) S ...".
        Ok(stat) => stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .is_some_and(|state| state != "Z" && state != "X"),
        Err(_) => false,
    }
}

fn send_signal(pid: u32, signal: &str) {
    let _ = Command::new("kill")
        .arg(format!("-{signal}"))
        .arg(pid.to_string())
        .status();
}

/// Polls `probe` every 100 ms until it returns `Some`, or panics with `what` and the result of
/// `context` once `deadline` has passed. Deadlines are generous: they only bound a failure.
pub fn wait_for<T>(
    what: &str,
    deadline: Duration,
    mut probe: impl FnMut() -> Option<T>,
    context: impl Fn() -> String,
) -> T {
    let until = Instant::now() + deadline;
    loop {
        if let Some(value) = probe() {
            return value;
        }
        assert!(
            Instant::now() < until,
            "timed out after {deadline:?} waiting for {what}\n{}",
            context()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The CPU time (user and system) `pid` has used so far, from /proc/PID/stat, in clock ticks
/// of `getconf CLK_TCK` turned into a duration.
pub fn cpu_time(pid: u32) -> Duration {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // Fields after the command name: state is field 3, utime 14 and stime 15 (1-based).
    let fields: Vec<u64> = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest)
        .unwrap_or_default()
        .split_whitespace()
        .map(|f| f.parse().unwrap_or(0))
        .collect();
    let ticks = fields.get(11).copied().unwrap_or(0) + fields.get(12).copied().unwrap_or(0);
    Duration::from_secs_f64(ticks as f64 / clock_ticks_per_second() as f64)
}

/// The resident set size of `pid` right now, from /proc/PID/status (`VmRSS`), in KiB.
pub fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

fn clock_ticks_per_second() -> u64 {
    Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(100)
}
