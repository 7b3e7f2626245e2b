//! Every command-line flag of operator-rs. This is the single source for parsing, `--help`,
//! shell completions and the README's command reference.

use std::path::PathBuf;
use std::time::Duration;

use clap::{ArgAction, Args, Parser, Subcommand, ValueEnum};
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

    /// Apply deploy/ to a cluster and wait until the operator is running
    Deploy(DeployArgs),

    /// Delete what `deploy` applied (CRDs and custom resources only when asked)
    Undeploy(UndeployArgs),
    /// Build the operator image with docker, podman or buildah (and push it with --push)
    Build(BuildArgs),

    /// Apply the project's CRDs, then run its operator on this machine against the cluster until Ctrl-C
    Run(RunArgs),

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

/// The names of a Kind and, for Helm projects, its chart: the same flags for `new` and
/// `create api`.
#[derive(Debug, Args)]
pub struct ApiArgs {
    /// API group and version of the Kind, GROUP/VERSION [default: charts.<domain>/v1alpha1 for Helm, <kind>.<domain>/v1alpha1 for Rust]
    #[arg(long, value_name = "GROUP/VERSION")]
    pub api_version: Option<String>,

    /// The Kind, in CamelCase [default for Helm: the chart name in CamelCase]
    #[arg(long)]
    pub kind: Option<String>,

    /// Resource plural of the Kind [default: the English plural of the Kind, lower-case]
    #[arg(long)]
    pub plural: Option<String>,

    /// Helm projects: the chart for the Kind: a directory, .tgz, repo/name (after `helm repo add`), URL of a .tgz, or oci:// reference [default: a starter chart like `helm create`]
    #[arg(long, value_name = "CHART")]
    pub helm_chart: Option<String>,

    #[command(flatten)]
    pub chart_source: ChartSourceArgs,
}

#[derive(Debug, Args)]
pub struct CreateApiArgs {
    #[command(flatten)]
    pub api: ApiArgs,
}

#[derive(Debug, Args)]
pub struct NewArgs {
    /// Project name and directory, a DNS-1123 label [default: <kind in kebab-case>-operator]
    pub name: Option<String>,

    /// Kind of project to create
    #[arg(long = "type", value_enum, default_value_t = ProjectType::Rust)]
    pub project_type: ProjectType,

    #[command(flatten)]
    pub api: ApiArgs,

    /// Domain for default API groups
    #[arg(long, default_value = "example.com")]
    pub domain: String,
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

/// Which cluster to talk to; chosen the way kubectl chooses.
#[derive(Debug, Args)]
pub struct ClusterArgs {
    /// Kubeconfig file [default: the files in $KUBECONFIG, else ~/.kube/config, else in-cluster]
    #[arg(long, value_name = "FILE")]
    pub kubeconfig: Option<PathBuf>,

    /// Kubeconfig context to use [default: the current context]
    #[arg(long, value_name = "NAME")]
    pub context: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DryRun {
    /// Print the final manifests; never contact a cluster
    Client,
    /// Send every apply with dryRun=All: the server checks it and persists nothing
    Server,
}

#[derive(Debug, Args)]
pub struct DeployArgs {
    /// Namespace to deploy into [default: the last one deployed to (PROJECT), else the context's, else "default"]
    #[arg(long, short, value_name = "NAMESPACE")]
    pub namespace: Option<String>,

    /// Operator image [default: the image of the last `operator-rs build`]
    #[arg(long, value_name = "IMAGE")]
    pub image: Option<String>,

    /// Also apply the sample custom resource of every API (deploy/crds/*_cr.yaml)
    #[arg(long)]
    pub with_sample: bool,

    /// Print the manifests instead of applying them (`--dry-run` alone is client)
    #[arg(
        long,
        value_enum,
        value_name = "MODE",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "client"
    )]
    pub dry_run: Option<DryRun>,

    /// Return once applied, without waiting for the operator to be rolled out
    #[arg(long)]
    pub no_wait: bool,

    /// How long to wait for CRDs and the rollout, for example 90s, 5m or 1h
    #[arg(long, value_name = "DURATION", default_value = "5m", value_parser = crate::duration::parse)]
    pub timeout: Duration,

    /// Create the namespace if it is missing; --create-namespace=false fails instead
    #[arg(
        long,
        value_name = "BOOL",
        num_args = 0..=1,
        require_equals = true,
        default_value_t = true,
        default_missing_value = "true",
        action = ArgAction::Set
    )]
    pub create_namespace: bool,

    #[command(flatten)]
    pub cluster: ClusterArgs,
}

#[derive(Debug, Args)]
pub struct UndeployArgs {
    /// Namespace to delete from [default: the last one deployed to (PROJECT), else the context's, else "default"]
    #[arg(long, short, value_name = "NAMESPACE")]
    pub namespace: Option<String>,

    /// Also delete the CustomResourceDefinitions, and with them every custom resource of their kinds
    #[arg(long)]
    pub include_crds: bool,

    /// With --include-crds: delete even when custom resources exist, without asking
    #[arg(long, requires = "include_crds")]
    pub force: bool,

    /// Return once deletion is requested, without waiting for the objects to be gone
    #[arg(long)]
    pub no_wait: bool,

    /// How long to wait for the objects to be gone, for example 90s, 5m or 1h
    #[arg(long, value_name = "DURATION", default_value = "5m", value_parser = crate::duration::parse)]
    pub timeout: Duration,

    #[command(flatten)]
    pub cluster: ClusterArgs,
}

#[derive(Debug, Args)]
pub struct RunArgs {
    /// Namespace the operator watches (WATCH_NAMESPACE) [default: the last one deployed to (PROJECT), else the context's, else "default"]
    #[arg(
        long,
        short,
        value_name = "NAMESPACE",
        conflicts_with = "all_namespaces"
    )]
    pub namespace: Option<String>,

    /// Watch every namespace (WATCH_NAMESPACE="")
    #[arg(long, short = 'A')]
    pub all_namespaces: bool,

    /// Build and run the operator with cargo's release profile
    #[arg(long)]
    pub release: bool,

    /// How long to wait for the CRDs to be Established, for example 90s, 5m or 1h
    #[arg(long, value_name = "DURATION", default_value = "5m", value_parser = crate::duration::parse)]
    pub timeout: Duration,

    #[command(flatten)]
    pub cluster: ClusterArgs,

    /// Arguments for the operator itself, after `--` (for example `-- --leader-elect`)
    #[arg(last = true, value_name = "OPERATOR_ARGS")]
    pub operator_args: Vec<String>,
}
