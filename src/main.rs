//! The `operator-rs` binary: parse the arguments, run one command, and turn its error into a
//! message and an exit code.

use std::process::ExitCode;

use clap::Parser;

use operator_rs::{cli::Cli, commands, error, ui};

// Rendering a chart allocates many small values (template nodes, YAML and JSON trees): mimalloc
// serves them in a fraction of the instructions glibc's allocator takes.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    // reqwest (charts) and kube share rustls; exactly one crypto provider may be active, or
    // the clients panic when they first build a TLS config.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let cli = Cli::parse();
    match commands::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("{}", ui::render_error(&err));
            // Usage errors exit 2, like clap's own; `run` passes on the operator's status;
            // every other failure exits 1.
            ExitCode::from(error::exit_code(&err))
        }
    }
}
