//! `operator-rs create api`: add a Kind to an existing project. Every change is planned in
//! memory and applied all together, so a failure leaves the project exactly as it was. The
//! project is found here; each type's own steps are in `create_api_helm` and
//! `create_api_rust`, which never call back here.

use super::{create_api_helm, create_api_rust};
use crate::cli::CreateApiArgs;
use crate::error::usage;
use crate::project::{self, ProjectError, ProjectType};
use crate::ui::Ui;

pub fn run(ui: &Ui, args: CreateApiArgs) -> anyhow::Result<()> {
    let (root, project) = project::load_current().map_err(|e| match e {
        ProjectError::NotFound(_) => usage(e),
        other => anyhow::Error::new(other),
    })?;
    match project.project_type {
        ProjectType::Helm => create_api_helm::run(ui, &args, &root, project),
        ProjectType::Rust => create_api_rust::run(ui, &args, &root, project),
    }
}
