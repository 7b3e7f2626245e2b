//! Shipping an operator to people who never run operator-rs: one `install.yaml` for `kubectl
//! apply` ([`bundle`]) and a Helm chart of the operator ([`chart`]). Both start from the
//! project's `deploy/` as [`crate::manifests`] reads it, so an object added to `deploy/` (a
//! metrics Service, webhook configurations) reaches both outputs.

pub mod bundle;
pub mod chart;
pub mod output;

use thiserror::Error;

use crate::image::{ImageRef, ReferenceError};
use crate::manifests::ManifestError;

#[derive(Debug, Error)]
pub enum ShipError {
    #[error(
        "no image is known for the operator: run `operator-rs build IMAGE` first (it records the image in PROJECT) or pass --image IMAGE"
    )]
    NoImage,
    #[error(transparent)]
    Image(#[from] ReferenceError),
    #[error(transparent)]
    Manifests(#[from] ManifestError),
    #[error(
        "{0} still holds the placeholder {1}: replace it in deploy/ (only the image and namespace are filled in)"
    )]
    PlaceholderLeft(String, String),
    #[error("--output {0} is a file, not a directory: name a directory (it is created if missing)")]
    OutputIsAFile(std::path::PathBuf),
    #[error("cannot write {0}: {1}")]
    Write(std::path::PathBuf, std::io::Error),
    #[error(
        "deploy/ has no Deployment whose container image is {placeholder}: the chart needs to know which container is the operator's to give it image.repository and image.tag",
        placeholder = crate::manifests::IMAGE_PLACEHOLDER
    )]
    NoOperatorDeployment,
    #[error(
        "{dir} exists but was not written by `operator-rs generate chart` (it has no {state}): move it away, choose another --output, or pass --force to write the chart over it",
        dir = .0.display(),
        state = chart::STATE_FILE
    )]
    ForeignChart(std::path::PathBuf),
    #[error(
        "{} in {} changed since `operator-rs generate chart` wrote it, and these files belong to the tool: move your change into values.yaml (or deploy/), or pass --force to overwrite it",
        .files.join(", "),
        .dir.display()
    )]
    EditedOwnedFiles {
        dir: std::path::PathBuf,
        files: Vec<String>,
    },
    #[error("{0} is not valid: {1}")]
    State(std::path::PathBuf, String),
}

impl ShipError {
    /// True for what the user can fix in the command line or the project (exit code 2).
    pub fn is_usage(&self) -> bool {
        !matches!(self, ShipError::Write(..) | ShipError::Manifests(_))
    }
}

/// The image given, else the one `build` recorded; checked against the reference grammar.
pub fn choose_image(flag: Option<&str>, recorded: Option<&str>) -> Result<ImageRef, ShipError> {
    let text = flag.or(recorded).ok_or(ShipError::NoImage)?;
    Ok(ImageRef::parse(text)?)
}
