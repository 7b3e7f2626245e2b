//! How a command spends a machine's few cores: work whose result is not awaited soon runs at a
//! lower priority, so the chain of steps the command waits on gets the cores first; and a
//! command that exits once its work is done does not spend time freeing what it built.

use std::sync::atomic::{AtomicBool, Ordering};

static EXITS_WHEN_DONE: AtomicBool = AtomicBool::new(false);

/// Lowers the calling thread's priority (nice +10). Best effort: where the system refuses,
/// the thread runs as it was.
pub fn lower_priority() {
    #[cfg(target_os = "linux")]
    {
        // On Linux a thread id names that thread alone for setpriority(2).
        let _ = rustix::process::setpriority_process(Some(rustix::thread::gettid()), 10);
    }
}

/// Declares that this process ends when the command's work is done (`new`, `create api`),
/// so that [`discard`] may leave memory to the exit rather than free it.
pub fn exits_when_done() {
    EXITS_WHEN_DONE.store(true, Ordering::Relaxed);
}

/// Drops `value`; in a process that [`exits_when_done`], leaves it to the exit instead: a
/// loaded chart is hundreds of thousands of small allocations, and freeing them one by one
/// sat on the critical path of `new` for milliseconds just before the process exited.
pub fn discard<T>(value: T) {
    if EXITS_WHEN_DONE.load(Ordering::Relaxed) {
        std::mem::forget(value);
    } else {
        drop(value);
    }
}
