//! The one distinction `main` needs from every error: was it the user's input (exit 2) or a
//! failure while doing the work (exit 1)?

use std::fmt;

/// An error caused by what the user typed: a bad name, a missing flag, a target that exists.
/// `main` walks the error chain for this type and exits with code 2 when it finds it.
#[derive(Debug)]
pub struct UsageError(pub String);

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

impl UsageError {
    pub fn new(message: impl Into<String>) -> Self {
        UsageError(message.into())
    }
}

/// Turns any displayable error into a usage error, keeping its message.
pub fn usage<E: fmt::Display>(error: E) -> anyhow::Error {
    anyhow::Error::new(UsageError(error.to_string()))
}

/// True when the error (or anything it wraps) is a usage error.
pub fn is_usage(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| cause.is::<UsageError>())
}

/// A failure whose exit code is given, not 1: `run` exits with the operator's own status.
#[derive(Debug)]
pub struct ExitWith {
    pub code: u8,
    pub message: String,
}

impl fmt::Display for ExitWith {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ExitWith {}

/// The process exit code for an error: its [`ExitWith`] code, 2 for usage errors, else 1.
pub fn exit_code(error: &anyhow::Error) -> u8 {
    if let Some(exit) = error.chain().find_map(|c| c.downcast_ref::<ExitWith>()) {
        return exit.code;
    }
    if is_usage(error) { 2 } else { 1 }
}
