//! `operator-rs run`: the local loop of `make run` in operator-sdk projects. The project's CRDs
//! are applied to the cluster (server-side apply, then a wait until Established), and the
//! operator runs on this machine against that cluster, in the foreground, until Ctrl-C or
//! SIGTERM. A Rust project's operator is built and run as a child, the signal passed on to
//! it and its exit status ours; a Helm project's is operator-rs's own runtime, in this
//! process (`run_helm`).

use std::path::{Path, PathBuf};

use tokio::time::Instant;

use super::cluster::{
    apply_stage, check_namespace, choose_namespace, connect_options, runtime, scope_of,
};
use super::run_webhooks::{self, LocalWebhooks, Registered};
use crate::cargo;
use crate::cli::RunArgs;
use crate::duration;
use crate::error::{ExitWith, usage};
use crate::kube::{Cluster, Ownership, WriteMode};
use crate::manifests::{self, Manifest, Settings};
use crate::project::{self, Project, ProjectType};
use crate::supervise::{self, Stop};
use crate::ui::Ui;

pub fn run(ui: &Ui, args: RunArgs) -> anyhow::Result<()> {
    if let Some(namespace) = &args.namespace {
        check_namespace(namespace)?;
    }
    let (root, project) = project::load_current().map_err(usage)?;
    match project.project_type {
        ProjectType::Rust => runtime()?.block_on(run_rust(ui, &args, &root, &project)),
        ProjectType::Helm => super::run_helm::run(ui, &args, &root, &project),
    }
}

/// Which namespaces the operator watches, as `WATCH_NAMESPACE` says it.
pub(super) fn watch_namespace(args: &RunArgs, namespace: &str) -> String {
    if args.all_namespaces {
        String::new()
    } else {
        namespace.to_string()
    }
}

/// The cluster an operator runs against, the namespace it runs in and the namespaces it
/// watches (`WATCH_NAMESPACE`), announced as "Running {what} on this machine against ...".
pub(super) struct Target {
    pub cluster: Cluster,
    pub namespace: String,
    pub watched: String,
}

pub(super) async fn connect(
    ui: &Ui,
    args: &RunArgs,
    project: &Project,
    what: &str,
) -> anyhow::Result<Target> {
    let cluster = Cluster::connect(&connect_options(&args.cluster)).await?;
    let namespace = choose_namespace(
        args.namespace.as_deref(),
        project,
        cluster.context_namespace.as_deref(),
    );
    check_namespace(&namespace)?;
    let watched = watch_namespace(args, &namespace);
    ui.headline(format!(
        "Running {what} on this machine against {}, watching {}",
        cluster.endpoint,
        if watched.is_empty() {
            "every namespace".to_string()
        } else {
            format!("namespace \"{watched}\"")
        }
    ));
    Ok(Target {
        cluster,
        namespace,
        watched,
    })
}

async fn run_rust(ui: &Ui, args: &RunArgs, root: &Path, project: &Project) -> anyhow::Result<()> {
    let bundle = manifests::load(root, project, false)?;
    if crate::webhooks::any(&bundle.manifests) {
        run_webhooks::check(args)?;
    }
    let Target {
        cluster,
        namespace,
        watched,
    } = connect(ui, args, project, &project.project_name).await?;

    // Webhook configurations and conversions name the operator's Service in its namespace.
    let settings = Settings {
        image: None,
        namespace: &namespace,
    };
    let filled = bundle.filled(&settings, &scope_of(&cluster, &bundle));
    let webhook_manifests = run_webhooks::webhook_manifests(&filled.manifests);
    let host = if webhook_manifests.is_empty() {
        None
    } else {
        Some(run_webhooks::choose_host(
            args.webhook_host.as_deref(),
            &cluster.endpoint.server,
            cluster.endpoint.context.as_deref(),
        )?)
    };
    let crds: Vec<&Manifest> = filled.all().filter(|m| m.is_crd()).collect();
    let waited = duration::display(args.timeout);
    let deadline = Instant::now() + args.timeout;
    apply_stage(
        ui,
        &cluster,
        &crds,
        WriteMode::Persist,
        Ownership::Force,
        deadline,
        &waited,
    )
    .await?;

    let binary = build_operator(ui, root, project, args.release)?;
    let local = match host {
        Some(host) => Some(LocalWebhooks::prepare(host, args.webhook_port)?),
        None => None,
    };
    let kubeconfig = ChildKubeconfig::write(&args.cluster)?;
    let mut command = tokio::process::Command::new(&binary);
    if let Some(local) = &local {
        command.args(local.operator_args());
    }
    command
        .args(&args.operator_args)
        .current_dir(root)
        .env("WATCH_NAMESPACE", &watched)
        // The Lease of `-- --leader-elect` goes where the deployed operator keeps it.
        .env("POD_NAMESPACE", &namespace);
    if let Some(path) = kubeconfig.path() {
        command.env("KUBECONFIG", path);
    }
    ui.info(format!(
        "Starting {} (Ctrl-C stops it)",
        relative_to(&binary, root).display()
    ));
    let mut registered = Registered::default();
    let mut registration_failed = None;
    // Once the operator serves its webhooks they are registered; if that fails, the
    // operator is stopped, since the cluster would refuse what the webhooks concern.
    let registration = async {
        let Some(local) = &local else {
            return std::future::pending().await;
        };
        let result = async {
            local.wait_serving(Instant::now() + args.timeout).await?;
            run_webhooks::register(ui, &cluster, &webhook_manifests, local, &mut registered).await
        }
        .await;
        match result {
            Ok(()) => std::future::pending().await,
            Err(e) => registration_failed = Some(e),
        }
    };
    let status = supervise::run_until(
        command,
        &mut |stop| match stop {
            Stop::Forwarded(signal) => ui.info(format!(
                "{signal}: stopping the operator (Ctrl-C again kills it)"
            )),
            Stop::Killed => ui.warn("killed the operator (SIGKILL)"),
        },
        registration,
    )
    .await
    .map_err(|e| anyhow::anyhow!("cannot run the operator {}: {e}", binary.display()));
    drop(kubeconfig);
    let restored = if registered.is_empty() {
        Ok(())
    } else {
        run_webhooks::restore(ui, &cluster, registered).await
    };
    drop(local);
    let status = status?;
    if let Some(error) = registration_failed {
        restored?;
        return Err(error.context("the operator was stopped: its webhooks could not be registered"));
    }
    restored?;
    let code = supervise::shell_code(status);
    if code == 0 {
        ui.info("The operator stopped.");
        return Ok(());
    }
    Err(ExitWith {
        code: u8::try_from(code).unwrap_or(1),
        message: format!("the operator exited with {status}"),
    }
    .into())
}

/// Builds the project's operator binary, cargo's output streaming to stderr, and returns it.
fn build_operator(
    ui: &Ui,
    root: &Path,
    project: &Project,
    release: bool,
) -> anyhow::Result<PathBuf> {
    // The package and its operator binary are named after the project; `crdgen` is the other.
    let request = cargo::Build {
        root,
        release,
        bin: Some(&project.project_name),
    };
    ui.info(format!("Building the operator: {}", request.describe()));
    let binaries = cargo::build(&request, &mut |_, line| ui.passthrough(line))?;
    let wanted = std::ffi::OsStr::new(&project.project_name);
    binaries
        .iter()
        .find(|b| b.file_stem() == Some(wanted))
        .cloned()
        .ok_or_else(|| {
            anyhow::anyhow!(
                "`{}` built no binary named {}: the operator's binary must be named after the project ([[bin]] or the package name in Cargo.toml)",
                request.describe(),
                project.project_name
            )
        })
}

fn relative_to<'a>(path: &'a Path, root: &Path) -> &'a Path {
    path.strip_prefix(root).unwrap_or(path)
}

/// The kubeconfig the operator reads. Without `--kubeconfig` and `--context` the operator
/// finds the same one we did and nothing is written; otherwise a copy with the chosen context
/// current goes to a private temporary directory, removed when the operator has stopped.
struct ChildKubeconfig {
    dir: Option<tempfile::TempDir>,
}

impl ChildKubeconfig {
    fn write(args: &crate::cli::ClusterArgs) -> anyhow::Result<ChildKubeconfig> {
        if args.kubeconfig.is_none() && args.context.is_none() {
            return Ok(ChildKubeconfig { dir: None });
        }
        let Some(kubeconfig) = crate::kube::kubeconfig_for_child(&connect_options(args))? else {
            return Ok(ChildKubeconfig { dir: None });
        };
        // tempfile creates the directory readable by its owner only: the copy holds credentials.
        let dir = tempfile::Builder::new()
            .prefix("operator-rs-run-")
            .tempdir()?;
        // JSON is YAML, and kube serialises its own Kubeconfig type to JSON faithfully.
        let text = serde_json::to_string_pretty(&kubeconfig)?;
        crate::fsutil::write_atomic(&dir.path().join("kubeconfig"), text.as_bytes())?;
        Ok(ChildKubeconfig { dir: Some(dir) })
    }

    fn path(&self) -> Option<PathBuf> {
        self.dir.as_ref().map(|d| d.path().join("kubeconfig"))
    }
}

#[cfg(test)]
mod tests {
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
