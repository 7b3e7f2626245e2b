//! `operator-rs run`: the local loop of `make run` in operator-sdk projects. The project's CRDs
//! are applied to the cluster (server-side apply, then a wait until Established), and the
//! operator runs on this machine against that cluster, in the foreground, until Ctrl-C or
//! SIGTERM. A Rust project's operator is built and run as a child (`run_rust`); a Helm
//! project's is operator-rs's own runtime, in this process (`run_helm`). What both do before
//! the operator starts is in `run_cluster`.

use super::cluster::check_namespace;
use super::{run_helm, run_rust};
use crate::cli::RunArgs;
use crate::error::usage;
use crate::project::{self, ProjectType};
use crate::ui::Ui;

pub fn run(ui: &Ui, args: RunArgs) -> anyhow::Result<()> {
    if let Some(namespace) = &args.namespace {
        check_namespace(namespace)?;
    }
    let (root, project) = project::load_current().map_err(usage)?;
    match project.project_type {
        ProjectType::Rust => run_rust::run(ui, &args, &root, &project),
        ProjectType::Helm => run_helm::run(ui, &args, &root, &project),
    }
}

#[cfg(test)]
mod tests {
    use super::super::run_cluster::watch_namespace;
    use super::*;
    use clap::Parser;

    fn run_args(extra: &[&str]) -> RunArgs {
        let cli = crate::cli::Cli::parse_from([&["operator-rs", "run"], extra].concat());
        match cli.command {
            crate::cli::Command::Run(args) => args,
            other => panic!("not run: {other:?}"),
        }
    }

    #[test]
    fn watches_the_namespace_or_everything() {
        assert_eq!(watch_namespace(&run_args(&["-n", "team"]), "team"), "team");
        assert_eq!(watch_namespace(&run_args(&["-A"]), "default"), "");
    }

    #[test]
    fn operator_arguments_follow_the_double_dash() {
        let args = run_args(&["--release", "--", "--leader-elect", "-n", "x"]);
        assert!(args.release);
        assert_eq!(args.namespace, None);
        assert_eq!(args.operator_args, ["--leader-elect", "-n", "x"]);
    }
}
