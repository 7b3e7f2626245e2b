//! Errors of generating and writing a project's files as the user sees them: what the user can
//! fix (a target directory that is taken, a name the generated code cannot use) exits 2, any
//! other failure 1. Shared by `new` and `create api` of both project types.

use std::path::Path;

use crate::error::usage;
use crate::scaffold::rust::RustScaffoldError;
use crate::scaffold::write::{self, WriteError};

/// Refuses a target that exists and is not an empty directory, before any slow work.
pub(super) fn ensure_target_free(target: &Path) -> anyhow::Result<()> {
    write::check_target(target).map(|_| ()).map_err(write_error)
}

/// An existing target is the user's doing (exit 2); any other write error is a failure.
pub(super) fn write_error(error: WriteError) -> anyhow::Error {
    match error {
        WriteError::TargetExists(_) => usage(error),
        other => anyhow::Error::new(other),
    }
}

/// A name the generated Rust code cannot use is the user's doing (exit 2); anything else is a
/// bug.
pub(super) fn scaffold_error(error: RustScaffoldError) -> anyhow::Error {
    if error.is_usage() {
        usage(error)
    } else {
        anyhow::Error::new(error)
    }
}
