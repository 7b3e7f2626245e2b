//! Errors with Go's texts: Helm shows them verbatim, so they are compared with Go's.

use std::fmt;

/// What went wrong; the message is always the whole text Go would print.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// `template: NAME:LINE: ...` from the parser.
    Parse,
    /// `template: NAME:LINE:COL: executing "NAME" at <...>: ...` from the executor.
    Exec,
    /// An error returned by a function or method; the executor reports it as
    /// `error calling NAME: MESSAGE` at the command.
    Func,
    /// A limit of [`crate::Limits`] was reached; passed through functions unchanged.
    Limit,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    pub kind: ErrorKind,
    pub message: String,
}

impl Error {
    /// An error for a function to return; the executor adds Go's `error calling NAME:` prefix.
    pub fn func(message: impl Into<String>) -> Error {
        Error {
            kind: ErrorKind::Func,
            message: message.into(),
        }
    }

    pub(crate) fn parse(message: String) -> Error {
        Error {
            kind: ErrorKind::Parse,
            message,
        }
    }

    pub(crate) fn exec(message: String) -> Error {
        Error {
            kind: ErrorKind::Exec,
            message,
        }
    }

    pub(crate) fn limit(message: String) -> Error {
        Error {
            kind: ErrorKind::Limit,
            message,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}
