//! Files every project type shares: ignore files and the service account, binding and
//! kustomization under `deploy/`.

use super::FilePlan;
use super::templates::{self, TemplateError};

/// Adds the shared files. The context must hold `project_name`, `cluster_scoped` and
/// `crd_files` (file names under `deploy/crds/`).
pub fn add_shared_files(
    plan: &mut FilePlan,
    context: &templates::Context,
) -> Result<(), TemplateError> {
    plan.add(
        ".gitignore",
        templates::render("common/gitignore.tera", context)?,
    );
    plan.add(
        ".dockerignore",
        templates::render("common/dockerignore.tera", context)?,
    );
    plan.add(
        "deploy/service_account.yaml",
        templates::render("common/deploy/service_account.yaml.tera", context)?,
    );
    plan.add(
        "deploy/role_binding.yaml",
        templates::render("common/deploy/role_binding.yaml.tera", context)?,
    );
    plan.add(
        "deploy/kustomization.yaml",
        templates::render("common/deploy/kustomization.yaml.tera", context)?,
    );
    Ok(())
}
