//! Every command-line flag of operator-rs. This is the single source for parsing, `--help`,
//! shell completions and the README's command reference.

use std::path::PathBuf;
use std::time::Duration;

use clap::builder::TypedValueParser;
use clap::{ArgAction, Args, Parser, Subcommand, ValueEnum};
use clap_complete::Shell;

use crate::image::BuilderKind;
use crate::project::{HelmRuntime, ProjectType};

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

    /// Render a chart locally as `helm template` does (in a Helm project: what the operator will install for each kind's sample)
    Template(TemplateArgs),

    /// The Helm operator runtime as an image's entrypoint: the helm-operator's flags, WATCH_NAMESPACE, the pod's service account (or a kubeconfig); no project needed
    // Hidden: users run `operator-rs run`; this is what build/Dockerfile of a Helm project with
    // `--runtime=operator-rs` starts, so it stays out of --help and the completions.
    #[command(name = "helm-operator-runtime", hide = true)]
    HelmOperatorRuntime(HelmRuntimeCommandArgs),
}

#[derive(Debug, Args)]
pub struct TemplateArgs {
    /// A chart directory or .tgz, repo/name, the URL of a .tgz, or oci://HOST/PATH/NAME [default: in a Helm project, each kind's chart]
    pub chart: Option<String>,

    /// A values file (YAML); several are merged in order, later ones win
    #[arg(long = "values", short = 'f', value_name = "FILE")]
    pub values: Vec<PathBuf>,

    /// A value on the command line, in Helm's syntax (a.b=c, list[0]=x, l={a,b}, commas between pairs); after -f
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,

    /// The release name [default: release-name, or in a Helm project the custom resource's name]
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,

    /// The release namespace [default: default, or in a Helm project the custom resource's]
    #[arg(long, short = 'n', value_name = "NAMESPACE")]
    pub namespace: Option<String>,

    /// The Kubernetes version for .Capabilities.KubeVersion (for example 1.33 or v1.33.4)
    #[arg(long, value_name = "VERSION")]
    pub kube_version: Option<String>,

    /// An API version for .Capabilities.APIVersions, as group/version or group/version/Kind (repeatable)
    #[arg(long = "api-versions", short = 'a', value_name = "GROUP/VERSION")]
    pub api_versions: Vec<String>,

    /// Print only the manifests of these templates (paths inside the chart, globs allowed, for example templates/deployment.yaml)
    #[arg(long = "show-only", short = 's', value_name = "PATH")]
    pub show_only: Vec<String>,

    /// Print the chart's crds/ too
    #[arg(long)]
    pub include_crds: bool,

    /// In a Helm project: render with this custom resource (YAML) instead of each kind's sample
    #[arg(long, value_name = "FILE", conflicts_with = "chart")]
    pub cr: Option<PathBuf>,

    /// Version of a remote CHART: exact (2.9.1) or a constraint (~2.9) [default: the newest release]
    #[arg(long, value_name = "VERSION", requires = "chart")]
    pub chart_version: Option<String>,

    /// Chart repository URL to find CHART in, like `helm template --repo`
    #[arg(long, value_name = "URL", requires = "chart")]
    pub repo: Option<String>,

    /// Use plain HTTP, not HTTPS, for an oci:// CHART (a registry without TLS)
    #[arg(long)]
    pub plain_http: bool,
}

#[derive(Debug, Subcommand)]
pub enum GenerateCommand {
    /// Rewrite deploy/crds/*_crd.yaml of a Rust project from its types (runs `cargo run --bin crdgen`); samples are never touched
    Crds(GenerateCrdsArgs),

    /// Write dist/install.yaml: the operator with its CRDs and RBAC, image and namespace filled in, for `kubectl apply --server-side -f`
    Bundle(GenerateBundleArgs),

    /// Write dist/chart/: a Helm chart of the operator; regenerating keeps your edits to values.yaml, Chart.yaml, NOTES.txt and README.md
    Chart(GenerateChartArgs),
}

#[derive(Debug, Args)]
pub struct GenerateBundleArgs {
    /// Operator image [default: the image of the last `operator-rs build`]
    #[arg(long, value_name = "IMAGE")]
    pub image: Option<String>,

    /// Namespace to install into [default: the last one deployed to (PROJECT), else the kubeconfig context's, else "default"]
    #[arg(long, short, value_name = "NAMESPACE")]
    pub namespace: Option<String>,

    /// Directory to write install.yaml (and crds.yaml) into, created if missing [default: dist in the project root]
    #[arg(long, short, value_name = "DIR")]
    pub output: Option<PathBuf>,

    /// Put the CustomResourceDefinitions in crds.yaml, apart from install.yaml
    #[arg(long)]
    pub crds_separately: bool,
}

#[derive(Debug, Args)]
pub struct GenerateChartArgs {
    /// Operator image: its repository and tag become image.repository and the chart's appVersion [default: the image of the last `operator-rs build`]
    #[arg(long, value_name = "IMAGE")]
    pub image: Option<String>,

    /// The chart's version, a semantic version [default: the project's (Cargo.toml of a Rust project, else the image tag when it is one), else 0.1.0]
    #[arg(long = "chart-version", value_name = "VERSION", value_parser = parse_chart_version)]
    pub chart_version: Option<String>,

    /// Directory of the chart [default: dist/chart in the project root]
    #[arg(long, short, value_name = "DIR")]
    pub output: Option<PathBuf>,

    /// Overwrite files you edited (values.yaml, Chart.yaml, NOTES.txt, README.md and the templates) with what the project gives now
    #[arg(long)]
    pub force: bool,
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
    /// Add a defaulting, validation or conversion webhook for a Kind of the Rust project in this directory or above
    // --version is the kind's API version here, not operator-rs's.
    #[command(disable_version_flag = true)]
    Webhook(CreateWebhookArgs),
}

/// `create webhook`: at least one of the three webhooks.
#[derive(Debug, Args)]
#[command(group(
    clap::ArgGroup::new("webhooks")
        .required(true)
        .multiple(true)
        .args(["defaulting", "validation", "conversion"])
))]
pub struct CreateWebhookArgs {
    /// The Kind, as the project has it
    #[arg(long)]
    pub kind: String,

    /// API version of the types the admission webhooks see, and the hub of conversion [default: the version the kind is stored in]
    #[arg(long)]
    pub version: Option<String>,

    /// A defaulting (mutating) webhook: src/webhooks/<kind>.rs fills in what an object left out
    #[arg(long)]
    pub defaulting: bool,

    /// A validation webhook for create, update and delete (kubebuilder's --programmatic-validation is accepted)
    #[arg(long, alias = "programmatic-validation")]
    pub validation: bool,

    /// A conversion webhook between the kind's versions, through the storage version
    #[arg(long)]
    pub conversion: bool,
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

    /// Helm projects: write this semver version (and, if that is not valid either, appVersion) into the copied Chart.yaml of an unreleased --helm-chart whose version Helm cannot load, such as rancher's %VERSION%
    #[arg(long, value_name = "VERSION", requires = "helm_chart", value_parser = parse_chart_version)]
    pub set_chart_version: Option<String>,

    /// Helm projects: write the sample custom resource from the chart's default values merged with this ci/*.yaml file of the --helm-chart (for a chart whose defaults do not render, such as one with a required value)
    #[arg(long, value_name = "CI_FILE", requires = "helm_chart")]
    pub sample_values: Option<String>,

    #[command(flatten)]
    pub chart_source: ChartSourceArgs,
}

/// `--set-chart-version` is written into Chart.yaml as it is, so it must be a plain semver.
fn parse_chart_version(text: &str) -> Result<String, String> {
    semver::Version::parse(text)
        .map(|_| text.to_string())
        .map_err(|e| {
            format!(
                "\"{text}\" is not a semantic version MAJOR.MINOR.PATCH (for example 2.13.0): {e}"
            )
        })
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

    /// Helm projects: what runs the operator, operator-rs's own Rust runtime or the operator-framework helm-operator image [default: operator-rs]
    #[arg(long, value_enum, value_name = "RUNTIME")]
    pub runtime: Option<HelmRuntime>,
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

    /// Target platform of the image, for example linux/arm64 (Rust projects: linux/amd64 or linux/arm64, cross-compiled on this machine's platform)
    #[arg(long, value_name = "OS/ARCH", value_parser = crate::image::parse_platform)]
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

    /// Helm projects with the operator-rs runtime: the operator-rs binary to package, a Linux executable for --platform [default: this operator-rs]
    #[arg(long, value_name = "PATH")]
    pub runtime_binary: Option<PathBuf>,
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

    /// Cache directory, as kubectl's: API discovery is kept in DIR/discovery/ for six hours [default: $KUBECACHEDIR, else ~/.kube/cache]
    #[arg(long, value_name = "DIR", value_parser = clap::builder::NonEmptyStringValueParser::new().map(PathBuf::from))]
    pub cache_dir: Option<PathBuf>,
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

    /// Delete the custom resources the operator watches first, wait until the operator has finished them (a Helm operator uninstalls their releases), then remove the operator
    #[arg(long)]
    pub delete_custom_resources: bool,

    /// Remove the operator even though custom resources with its finalizer exist; they stay, undeletable until an operator runs again
    #[arg(long, conflicts_with_all = ["delete_custom_resources", "include_crds"])]
    pub keep_custom_resources: bool,

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

    /// How long to wait for the CRDs to be Established (and the operator's webhooks to answer), for example 90s, 5m or 1h
    #[arg(long, value_name = "DURATION", default_value = "5m", value_parser = crate::duration::parse)]
    pub timeout: Duration,

    /// With webhooks in deploy/: the address of this machine the API server calls them at [default: 127.0.0.1 when the API server is on this machine's loopback]; for kind or k3d, the Docker network's gateway
    #[arg(long, value_name = "ADDRESS")]
    pub webhook_host: Option<String>,

    /// With webhooks in deploy/: the port the operator serves them on; 0 picks a free one
    #[arg(long, value_name = "PORT", default_value_t = 9443)]
    pub webhook_port: u16,

    #[command(flatten)]
    pub cluster: ClusterArgs,

    /// Arguments for the operator itself, after `--` (for example `-- --leader-elect`)
    #[arg(last = true, value_name = "OPERATOR_ARGS")]
    pub operator_args: Vec<String>,
}

/// The flags of the Helm operator runtime, as the helm-operator (operator-sdk v1.42) takes
/// them, so `deploy/operator.yaml` keeps its arguments whichever runtime the image has. In a
/// Helm project they follow `--` (`operator-rs run -- --reconcile-period=30s`); in an image
/// they are the arguments of `operator-rs helm-operator-runtime`.
#[derive(Debug, Args)]
pub struct HelmRuntimeArgs {
    /// Path to the watches file to use
    #[arg(long, value_name = "FILE", default_value = "./watches.yaml")]
    pub watches_file: PathBuf,

    /// Default reconcile period for controllers (a Go duration; 0 turns it off)
    #[arg(long, value_name = "DURATION", default_value = "1m", value_parser = parse_go_duration)]
    pub reconcile_period: Duration,

    /// Maximum number of concurrent reconciles for controllers [default: the number of CPUs]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub max_concurrent_reconciles: Option<u16>,

    /// The address the probe endpoint (/healthz, /readyz) binds to; 0 disables it
    #[arg(long, value_name = "ADDRESS", default_value = ":8081")]
    pub health_probe_bind_address: String,

    /// The address the metrics endpoint (/metrics) binds to; 0 disables it [the helm-operator's default: :8080]
    #[arg(
        long,
        value_name = "ADDRESS",
        default_value = "0",
        alias = "metrics-addr"
    )]
    pub metrics_bind_address: String,

    /// Serve metrics over HTTPS: not supported by this runtime (plain HTTP only), so only false is accepted
    #[arg(long, value_name = "BOOL", action = ArgAction::Set, num_args = 0..=1, require_equals = true, default_value = "false", default_missing_value = "true", value_parser = parse_go_bool)]
    pub metrics_secure: bool,

    /// Authenticate and authorize metrics requests with RBAC: not supported by this runtime, so only false is accepted
    #[arg(long, value_name = "BOOL", action = ArgAction::Set, num_args = 0..=1, require_equals = true, default_value = "false", default_missing_value = "true", value_parser = parse_go_bool)]
    pub metrics_require_rbac: bool,

    /// Enable leader election: of several replicas only the holder of the Lease reconciles
    #[arg(long, alias = "enable-leader-election")]
    pub leader_elect: bool,

    /// Name of the Lease used for leader election [default: in a project, the project's name]
    #[arg(long, value_name = "NAME")]
    pub leader_election_id: Option<String>,

    /// Namespace of the leader election Lease [default: the operator's namespace (`-n`, or the pod's)]
    #[arg(long, value_name = "NAMESPACE")]
    pub leader_election_namespace: Option<String>,

    /// Record no OverrideValuesInUse events for watches.yaml's overrideValues
    #[arg(long, value_name = "BOOL", action = ArgAction::Set, num_args = 0..=1, require_equals = true, default_value = "false", default_missing_value = "true", value_parser = parse_go_bool)]
    pub suppress_override_values: bool,

    /// Serve HTTP/2 on the metrics endpoint: not supported by this runtime (HTTP/1.1 only), so only false is accepted
    #[arg(long, value_name = "BOOL", action = ArgAction::Set, num_args = 0..=1, require_equals = true, default_value = "false", default_missing_value = "true", value_parser = parse_go_bool)]
    pub enable_http2: bool,

    /// Development mode defaults: console lines and debug level (zap's flag)
    #[arg(long, value_name = "BOOL", action = ArgAction::Set, num_args = 0..=1, require_equals = true, default_value = "false", default_missing_value = "true", value_parser = parse_go_bool)]
    pub zap_devel: bool,

    /// Log line encoding, as zap writes it [default: plain `TIME message` lines; console with --zap-devel]
    #[arg(long, value_name = "ENCODER", value_enum)]
    pub zap_encoder: Option<crate::helm_runtime::log::Encoder>,

    /// Minimum level logged: debug, info, error, panic, or an integer above 0 (debug) [default: info; debug with --zap-devel]
    #[arg(long, value_name = "LEVEL", value_parser = |text: &str| crate::helm_runtime::log::Level::parse(text, true))]
    pub zap_log_level: Option<crate::helm_runtime::log::Level>,

    /// Level from which stack traces are recorded (info, error or panic): accepted for the helm-operator's sake; this runtime logs no stack traces
    #[arg(long, value_name = "LEVEL", value_parser = |text: &str| crate::helm_runtime::log::Level::parse(text, false))]
    pub zap_stacktrace_level: Option<crate::helm_runtime::log::Level>,

    /// How log times are written (with --zap-encoder or --zap-devel) [default: rfc3339]
    #[arg(long, value_name = "ENCODING", value_enum)]
    pub zap_time_encoding: Option<crate::helm_runtime::log::TimeEncoding>,
}

/// [`HelmRuntimeArgs`] on their own, as `operator-rs run` reads them after `--`.
#[derive(Debug, Parser)]
#[command(name = "helm-operator-runtime", no_binary_name = true)]
pub struct HelmRuntimeFlags {
    #[command(flatten)]
    pub flags: HelmRuntimeArgs,
}

/// `operator-rs helm-operator-runtime`: the runtime's flags and, instead of a project, where
/// the cluster is.
#[derive(Debug, Args)]
pub struct HelmRuntimeCommandArgs {
    #[command(flatten)]
    pub flags: HelmRuntimeArgs,

    /// Kubeconfig file [default: the files in $KUBECONFIG, else ~/.kube/config, else the pod's service account]
    #[arg(long, value_name = "FILE")]
    pub kubeconfig: Option<PathBuf>,
}

/// A boolean flag's value as Go's `strconv.ParseBool` reads it (`--metrics-secure=false`).
fn parse_go_bool(text: &str) -> Result<bool, String> {
    match text {
        "1" | "t" | "T" | "TRUE" | "true" | "True" => Ok(true),
        "0" | "f" | "F" | "FALSE" | "false" | "False" => Ok(false),
        _ => Err(format!("\"{text}\" is not a boolean: write true or false")),
    }
}

/// A Go duration as `time.ParseDuration` reads it; negative ones are zero (no period).
fn parse_go_duration(text: &str) -> Result<Duration, String> {
    let nanos = crate::duration::parse_go(text)?;
    Ok(Duration::from_nanos(u64::try_from(nanos).unwrap_or(0)))
}
