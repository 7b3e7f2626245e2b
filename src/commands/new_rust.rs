//! `operator-rs new --type=rust`: a kube-rs operator project.

use std::path::PathBuf;

use super::inputs;
use super::scaffold_errors::{ensure_target_free, scaffold_error, write_error};
use crate::cli::NewArgs;
use crate::error::usage;
use crate::names::ProjectName;
use crate::project::{PROJECT_FILE, Project, ProjectType, Resource};
use crate::scaffold::rust::{self as rust_scaffold, RustProject};
use crate::scaffold::write;
use crate::ui::Ui;

pub fn run(ui: &Ui, args: &NewArgs, domain: &str) -> anyhow::Result<()> {
    let inputs::ApiNames {
        group,
        version,
        kind,
        plural,
    } = inputs::rust_api_names(ui, &args.api, domain)?;
    let name = inputs::project_name(ui, args.name.as_deref(), &kind)?;
    rust_scaffold::check_names(&name, &kind).map_err(usage)?;
    let target = PathBuf::from(name.as_str());
    ensure_target_free(&target)?;

    let project = RustProject {
        name: name.clone(),
        domain: domain.to_string(),
        group,
        version,
        kind,
        plural,
    };
    let mut plan = rust_scaffold::plan(&project).map_err(scaffold_error)?;
    let mut record = Project::new(ProjectType::Rust, name.as_str(), domain);
    record.resources.push(Resource {
        group: project.group.to_string(),
        version: project.version.to_string(),
        kind: project.kind.to_string(),
        plural: project.plural.clone(),
        chart: None,
    });
    plan.add(PROJECT_FILE, record.to_yaml());
    write::create_project(&target, &plan).map_err(write_error)?;
    report(ui, &name, &project, plan.len());
    Ok(())
}

fn report(ui: &Ui, name: &ProjectName, project: &RustProject, files: usize) {
    let snake = project.kind.snake();
    ui.headline(format!("Created Rust operator project {name} in ./{name}"));
    ui.info(format!(
        "  {} ({}/{}): types in src/api/{}/{snake}.rs, reconciler in src/controllers/{snake}.rs",
        project.kind, project.group, project.version, project.version
    ));
    ui.info(format!(
        "  {files} files; Cargo.lock pins the tested dependency versions"
    ));
    ui.info("");
    ui.info("Next:");
    ui.info(format!("  cd {name}"));
    ui.info("  cargo test                      # the reconciler against a mocked API server");
    ui.info("  operator-rs generate crds       # after changing the types in src/api/");
    ui.info(format!(
        "  operator-rs build registry.example.com/me/{name}:v0.1.0 --push"
    ));
    ui.info(format!(
        "  operator-rs deploy --namespace {name}-system --with-sample"
    ));
}
