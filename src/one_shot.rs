//! Commands that exit as soon as their work is done (`new`, `create api`) need not free what
//! they built: the exit returns it all at once.

use std::sync::atomic::{AtomicBool, Ordering};

static EXITS_WHEN_DONE: AtomicBool = AtomicBool::new(false);

/// Declares that this process ends when the command's work is done, so that [`discard`] may
/// leave memory to the exit rather than free it.
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
