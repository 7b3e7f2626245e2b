use clap::CommandFactory;

use crate::cli::{Cli, CompletionArgs};

pub fn run(args: CompletionArgs) -> anyhow::Result<()> {
    let mut command = Cli::command();
    clap_complete::generate(
        args.shell,
        &mut command,
        "operator-rs",
        &mut std::io::stdout(),
    );
    Ok(())
}
