//! Work done ahead, on another thread, for a later reader of the same input: the result is kept
//! with the exact bytes it was made from and handed over once to the first reader who brings
//! the same bytes. A reader with other bytes does the work itself, so a result made from the
//! wrong input is never used.

use std::sync::{Mutex, PoisonError};

/// One result made ahead, with its input. One is enough: a command does each such piece of
/// work ahead for its one chart.
pub struct Handover<T>(Mutex<Option<(Vec<u8>, T)>>);

impl<T> Handover<T> {
    pub const fn new() -> Handover<T> {
        Handover(Mutex::new(None))
    }

    /// Makes the result of `input` and keeps it, replacing any kept before. The lock is held
    /// while `make` runs, so a reader asking meanwhile waits for this result rather than
    /// doing the work a second time.
    pub fn make(&self, input: Vec<u8>, make: impl FnOnce(&[u8]) -> T) {
        let mut kept = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let made = make(&input);
        *kept = Some((input, made));
    }

    /// Keeps `made`, the result of `input`, replacing any kept before.
    pub fn keep(&self, input: Vec<u8>, made: T) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = Some((input, made));
    }

    /// The kept result when it was made from `input`, compared byte for byte; handed over,
    /// not copied, so a second reader of the same input does the work itself.
    pub fn take(&self, input: &[u8]) -> Option<T> {
        let mut kept = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if kept
            .as_ref()
            .is_some_and(|(kept_input, _)| kept_input == input)
        {
            return kept.take().map(|(_, made)| made);
        }
        None
    }
}

impl<T> Default for Handover<T> {
    fn default() -> Self {
        Handover::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_input_is_handed_over_once_and_other_input_gets_nothing() {
        let ahead = Handover::new();
        ahead.make(b"a: 1\n".to_vec(), |input| input.len());
        assert_eq!(ahead.take(b"a: 2\n"), None);
        assert_eq!(ahead.take(b"a: 1\n"), Some(5));
        assert_eq!(ahead.take(b"a: 1\n"), None);
        // A later result replaces the one before.
        ahead.make(b"x".to_vec(), |_| 1);
        ahead.keep(b"y".to_vec(), 2);
        assert_eq!(ahead.take(b"x"), None);
        assert_eq!(ahead.take(b"y"), Some(2));
    }
}
