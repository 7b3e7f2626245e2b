//! One module per subcommand. Each reads its inputs, calls the domain modules and reports.

mod build;
mod cluster;
mod completion;
mod create_api;
mod create_api_helm;
mod create_api_rust;
mod create_webhook;
mod deploy;
mod generate;
mod generate_bundle;
mod generate_chart;
mod helm_operator_runtime;
mod helm_project;
mod inputs;
mod new;
mod new_helm;
mod new_rust;
mod project_changes;
mod run;
mod run_cluster;
mod run_helm;
mod run_rust;
mod run_webhooks;
mod rust_apis;
mod scaffold_errors;
mod template;
mod undeploy;

use crate::cli::{Cli, Command, CreateCommand};
use crate::ui::Ui;

pub fn run(cli: Cli) -> anyhow::Result<()> {
    let ui = Ui::new(cli.global.quiet, cli.global.yes);
    match cli.command {
        Command::New(args) => new::run(&ui, args),
        Command::Create(CreateCommand::Api(args)) => create_api::run(&ui, args),
        Command::Create(CreateCommand::Webhook(args)) => create_webhook::run(&ui, args),
        Command::Completion(args) => completion::run(args),
        Command::Build(args) => build::run(&ui, args),
        Command::Deploy(args) => deploy::run(&ui, args),
        Command::Undeploy(args) => undeploy::run(&ui, args),
        Command::Generate(command) => generate::run(&ui, command),
        Command::Template(args) => template::run(&ui, args),
        Command::Run(args) => run::run(&ui, args),
        Command::HelmOperatorRuntime(args) => helm_operator_runtime::run(&ui, args),
    }
}
