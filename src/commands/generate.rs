//! `operator-rs generate`: the CRD files of a Rust project from its types (`crds`), and the
//! ways to ship the operator (`bundle`, `chart`, in their own modules).

use crate::cli::{GenerateCommand, GenerateCrdsArgs};
use crate::crdgen::{self, Change};
use crate::error::{UsageError, usage};
use crate::project::{self, ProjectType};
use crate::ui::Ui;

pub fn run(ui: &Ui, command: GenerateCommand) -> anyhow::Result<()> {
    match command {
        GenerateCommand::Crds(args) => crds(ui, &args),
        GenerateCommand::Bundle(args) => super::generate_bundle::run(ui, &args),
        GenerateCommand::Chart(args) => super::generate_chart::run(ui, &args),
    }
}

fn crds(ui: &Ui, args: &GenerateCrdsArgs) -> anyhow::Result<()> {
    let (root, project) = project::load_current().map_err(usage)?;
    if project.project_type != ProjectType::Rust {
        return Err(UsageError::new(format!(
            "generate crds works on Rust projects, and {} is a {} project: its CRDs come from its charts and change with `operator-rs create api`",
            root.display(),
            project.project_type.as_str()
        ))
        .into());
    }
    let spinner = ui.spinner("Running cargo run --bin crdgen");
    let output = crdgen::run(&root);
    spinner.finish_and_clear();
    let documents = crdgen::split(&output?)?;
    let outcome = crdgen::write(&root, &documents, args.check)?;

    let changed: Vec<&str> = outcome
        .files
        .iter()
        .filter(|(_, change)| *change != Change::Unchanged)
        .map(|(file, _)| file.as_str())
        .collect();
    for (file, change) in &outcome.files {
        let what = match (change, args.check) {
            (Change::Created, false) => "created",
            (Change::Updated, false) => "updated",
            (Change::Created, true) => "missing",
            (Change::Updated, true) => "out of date",
            (Change::Unchanged, _) => "unchanged",
        };
        ui.info(format!("  {what:<11} deploy/crds/{file}"));
    }
    for file in &outcome.stale {
        ui.warn(format!(
            "deploy/crds/{file} is not printed by crdgen any more; it was left as it is (delete it if the kind is gone)"
        ));
    }
    if args.check && !changed.is_empty() {
        anyhow::bail!(
            "{} CRD file(s) differ from the types in src/api/: run `operator-rs generate crds`",
            changed.len()
        );
    }
    Ok(())
}
