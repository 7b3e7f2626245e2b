//! Every command-line flag of operator-rs. This is the single source for parsing, `--help`,
//! shell completions and the README's command reference.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};
use clap_complete::Shell;

use crate::image::BuilderKind;
use crate::project::ProjectType;

#[derive(Debug, Parser)]
#[command(
    name = "operator-rs",
    version,
    about = "Scaffold, build and deploy Kubernetes operators: Helm-chart operators or kube-rs operators in Rust",
    propagate_version = true,
    arg_required_else_help = true
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Args)]
pub struct GlobalArgs {
    /// Print nothing but errors
    #[arg(long, short, global = true)]
    pub quiet: bool,

    /// Never ask; use defaults for values not given (implied without a terminal)
    #[arg(long, short = 'y', global = true)]
    pub yes: bool,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Create a new operator project
    New(NewArgs),

    /// Add to an existing project
    #[command(subcommand)]
    Create(CreateCommand),

    /// Print a shell completion script
    Completion(CompletionArgs),

    /// Build the operator image with docker, podman or buildah (and push it with --push)
    Build(BuildArgs),

    /// Regenerate files of a project from its code
    #[command(subcommand)]
    Generate(GenerateCommand),
}

#[derive(Debug, Subcommand)]
pub enum GenerateCommand {
    /// Rewrite deploy/crds/*_crd.yaml of a Rust project from its types (runs `cargo run --bin crdgen`); samples are never touched
    Crds(GenerateCrdsArgs),
}

#[derive(Debug, Args)]
pub struct GenerateCrdsArgs {
    /// Change nothing; exit with code 1 when a CRD file is out of date (for CI)
    #[arg(long)]
    pub check: bool,
}

#[derive(Debug, Subcommand)]
pub enum CreateCommand {
    /// Add a Kind (with its chart or controller) to the project in this directory or above
    Api(CreateApiArgs),
}

#[derive(Debug, Args)]
pub struct CreateApiArgs {
    /// API group and version of the Kind, GROUP/VERSION [default: charts.<domain>/v1alpha1 for Helm]
    #[arg(long, value_name = "GROUP/VERSION")]
    pub api_version: Option<String>,

    /// The Kind, in CamelCase [default for Helm: the chart name in CamelCase]
    #[arg(long)]
    pub kind: Option<String>,

    /// Resource plural of the Kind [default: the English plural of the Kind, lower-case]
    #[arg(long)]
    pub plural: Option<String>,

    /// Helm projects: the chart for the Kind: a directory, .tgz, repo/name, URL or oci:// reference [default: a starter chart]
    #[arg(long, value_name = "CHART")]
    pub helm_chart: Option<String>,

    #[command(flatten)]
    pub chart_source: ChartSourceArgs,
}

#[derive(Debug, Args)]
pub struct NewArgs {
    /// Project name and directory, a DNS-1123 label [default: <kind in kebab-case>-operator]
    pub name: Option<String>,

    /// Kind of project to create
    #[arg(long = "type", value_enum, default_value_t = ProjectType::Rust)]
    pub project_type: ProjectType,

    /// API group and version of the first Kind, GROUP/VERSION [default: charts.<domain>/v1alpha1 for Helm]
    #[arg(long, value_name = "GROUP/VERSION")]
    pub api_version: Option<String>,

    /// The first Kind, in CamelCase [default for Helm: the chart name in CamelCase]
    #[arg(long)]
    pub kind: Option<String>,

    /// Resource plural of the Kind [default: the English plural of the Kind, lower-case]
    #[arg(long)]
    pub plural: Option<String>,

    /// Domain for default API groups
    #[arg(long, default_value = "example.com")]
    pub domain: String,

    /// Helm chart to build the operator from: a directory, .tgz, repo/name (after `helm repo add`), URL of a .tgz, or oci:// reference [default: a starter chart like `helm create`]
    #[arg(long, value_name = "CHART")]
    pub helm_chart: Option<String>,

    #[command(flatten)]
    pub chart_source: ChartSourceArgs,
}

/// How a remote `--helm-chart` is found; the same for `new` and `create api`.
#[derive(Debug, Clone, Default, Args)]
pub struct ChartSourceArgs {
    /// Version of a remote --helm-chart: exact (2.9.1) or a constraint (~2.9, ">=2.8 <3") [default: the newest release]
    #[arg(long, value_name = "VERSION", requires = "helm_chart")]
    pub helm_chart_version: Option<String>,

    /// Chart repository URL to find --helm-chart in, like `helm install --repo`
    #[arg(long, value_name = "URL", requires = "helm_chart")]
    pub helm_chart_repo: Option<String>,

    /// Use plain HTTP, not HTTPS, for an oci:// --helm-chart (a registry without TLS)
    #[arg(long)]
    pub plain_http: bool,
}

#[derive(Debug, Args)]
pub struct CompletionArgs {
    /// The shell to complete for
    #[arg(value_enum)]
    pub shell: Shell,
}

#[derive(Debug, Args)]
pub struct BuildArgs {
    /// The image to build, [REGISTRY[:PORT]/]REPOSITORY[:TAG]; the tag defaults to latest
    pub image: String,

    /// The program that builds and pushes the image
    #[arg(long, value_enum, env = "OPERATOR_RS_BUILDER", default_value_t = BuilderKind::Docker)]
    pub builder: BuilderKind,

    /// Push the image to its registry after building it
    #[arg(long)]
    pub push: bool,

    /// A build argument for the Dockerfile, for example BASE_IMAGE=localhost/helm-operator:dev (repeatable)
    #[arg(long = "build-arg", value_name = "KEY=VALUE", value_parser = crate::image::parse_key_value)]
    pub build_args: Vec<(String, String)>,

    /// Target platform of the image, for example linux/arm64
    #[arg(long)]
    pub platform: Option<String>,

    /// Build every step again instead of reusing cached layers
    #[arg(long)]
    pub no_cache: bool,

    /// The Dockerfile, relative to the current directory [default: build/Dockerfile in the project root]
    #[arg(long, value_name = "PATH")]
    pub file: Option<PathBuf>,

    /// An extra image label; wins over the OCI labels operator-rs adds (repeatable)
    #[arg(long = "label", value_name = "KEY=VALUE", value_parser = crate::image::parse_key_value)]
    pub labels: Vec<(String, String)>,

    /// Rust projects: build the binary with cargo on this machine, then package it with the runtime stage of the Dockerfile only
    #[arg(long)]
    pub local: bool,
}
