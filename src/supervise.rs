//! A long-running child process that stops when operator-rs is told to stop: `operator-rs run`
//! keeps the operator in the foreground this way. SIGINT, SIGTERM and SIGHUP are forwarded to
//! it, and the caller gets its exit status once it has exited, so nothing is left running.
//!
//! The child gets a process group of its own: a Ctrl-C in the terminal then reaches it once,
//! through us, instead of twice (once from the terminal and once forwarded). A second Ctrl-C
//! kills it, for an operator that hangs while shutting down.

use std::io;
use std::process::{ExitStatus, Stdio};

use tokio::process::Command;

/// What happened to a signal that reached operator-rs while the child ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// Passed on to the child, named as in `kill -l` (`SIGTERM`).
    Forwarded(&'static str),
    /// The second Ctrl-C: the child was sent SIGKILL.
    Killed,
}

/// Spawns `command` (stdin closed, stdout and stderr shared with us) and waits for it to exit,
/// forwarding stop signals; `on_stop` hears about each one. The child is killed if this future
/// is dropped before it exits.
pub async fn run(command: Command, on_stop: &mut dyn FnMut(Stop)) -> io::Result<ExitStatus> {
    run_until(command, on_stop, std::future::pending()).await
}

/// As [`run`]; when `stop` completes first, the child is sent SIGTERM as if we had been
/// (`run` stops an operator whose webhooks cannot be registered this way).
pub async fn run_until(
    mut command: Command,
    on_stop: &mut dyn FnMut(Stop),
    stop: impl std::future::Future<Output = ()>,
) -> io::Result<ExitStatus> {
    command.stdin(Stdio::null()).kill_on_drop(true);
    unix::run(command, on_stop, stop).await
}

/// The exit code a shell would report for `status`: the code, or 128 + the signal's number.
pub fn shell_code(status: ExitStatus) -> i32 {
    use std::os::unix::process::ExitStatusExt;
    status
        .code()
        .or_else(|| status.signal().map(|signal| 128 + signal))
        .unwrap_or(1)
}

mod unix {
    use super::*;
    use rustix::process::{Pid, Signal, kill_process_group};
    use tokio::signal::unix::{SignalKind, signal};

    pub async fn run(
        mut command: Command,
        on_stop: &mut dyn FnMut(Stop),
        stop: impl std::future::Future<Output = ()>,
    ) -> io::Result<ExitStatus> {
        // Handlers are installed before the child exists, so no signal between its start and
        // the loop below can end operator-rs and orphan it.
        let mut interrupt = signal(SignalKind::interrupt())?;
        let mut terminate = signal(SignalKind::terminate())?;
        let mut hangup = signal(SignalKind::hangup())?;
        command.process_group(0);
        let mut child = command.spawn()?;
        let mut interrupts = 0;
        let stop = std::pin::pin!(stop);
        let mut stop = futures::FutureExt::fuse(stop);
        loop {
            let (signal, name) = tokio::select! {
                biased;
                status = child.wait() => return status,
                () = &mut stop => (Signal::TERM, "SIGTERM"),
                _ = interrupt.recv() => {
                    interrupts += 1;
                    if interrupts > 1 {
                        child.start_kill()?;
                        on_stop(Stop::Killed);
                        continue;
                    }
                    (Signal::INT, "SIGINT")
                }
                _ = terminate.recv() => (Signal::TERM, "SIGTERM"),
                _ = hangup.recv() => (Signal::HUP, "SIGHUP"),
            };
            // `id` is None once the child has been reaped: then there is nobody to tell, and
            // the next turn of the loop returns its status.
            let group = child
                .id()
                .and_then(|id| i32::try_from(id).ok())
                .and_then(Pid::from_raw);
            if let Some(group) = group {
                match kill_process_group(group, signal) {
                    Ok(()) => on_stop(Stop::Forwarded(name)),
                    // ESRCH: it exited in between; its status comes next.
                    Err(e) if e == rustix::io::Errno::SRCH => {}
                    Err(e) => return Err(e.into()),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn returns_the_exit_status() {
        let mut command = Command::new("sh");
        command.args(["-c", "exit 3"]);
        let status = run(command, &mut |_| {}).await.unwrap();
        assert_eq!(shell_code(status), 3);
    }

    #[tokio::test]
    async fn a_missing_program_is_not_found() {
        let command = Command::new("/nonexistent/operator-rs-test-program");
        let err = run(command, &mut |_| {}).await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
    }
}
