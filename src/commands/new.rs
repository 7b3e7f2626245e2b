//! `operator-rs new`: a new operator project in a new directory. What every project type goes
//! through is here (the domain, flags that belong to one type only); each type's own steps are
//! in `new_helm` and `new_rust`, which never call back here.

use super::{new_helm, new_rust};
use crate::cli::NewArgs;
use crate::error::usage;
use crate::names;
use crate::project::ProjectType;
use crate::ui::Ui;

pub fn run(ui: &Ui, args: NewArgs) -> anyhow::Result<()> {
    let domain = names::parse_domain(&args.domain).map_err(usage)?;
    if let (ProjectType::Rust, Some(runtime)) = (args.project_type, args.runtime) {
        return Err(usage(format!(
            "--runtime={} chooses what runs a Helm project's operator, but this is a Rust project, whose operator is its own binary: drop --runtime, or pass --type=helm",
            runtime.as_str()
        )));
    }
    match args.project_type {
        ProjectType::Helm => new_helm::run(ui, &args, &domain),
        ProjectType::Rust => new_rust::run(ui, &args, &domain),
    }
}
