//! `operator-rs completion SHELL`: the shell completion script, printed from the same clap
//! definitions that parse the command line.

use clap::CommandFactory;

use crate::cli::{Cli, CompletionArgs};

pub fn run(args: CompletionArgs) -> anyhow::Result<()> {
    let mut command = without_hidden_subcommands(Cli::command());
    clap_complete::generate(
        args.shell,
        &mut command,
        "operator-rs",
        &mut std::io::stdout(),
    );
    Ok(())
}

/// The command line as users see it: clap_complete lists hidden subcommands too (such as the
/// image entrypoint `helm-operator-runtime`), and clap cannot remove a subcommand, so the
/// top level is rebuilt from the same parts without them. Global flags propagate when the
/// generator builds it, as for the original.
fn without_hidden_subcommands(full: clap::Command) -> clap::Command {
    // Both are static in Cli's definition; clap hands them back borrowed.
    let mut visible = clap::Command::new("operator-rs")
        .version(env!("CARGO_PKG_VERSION"))
        .args(full.get_arguments().cloned())
        .subcommands(full.get_subcommands().filter(|c| !c.is_hide_set()).cloned())
        .propagate_version(full.is_propagate_version_set())
        .arg_required_else_help(full.is_arg_required_else_help_set());
    if let Some(about) = full.get_about() {
        visible = visible.about(about.clone());
    }
    visible
}
