//! `operator-rs run` in a Rust project: after the project's CRDs are applied, the operator is
//! built with cargo and run as a child process against the cluster, with Ctrl-C and SIGTERM
//! passed on to it and its exit status ours. When `deploy/` has webhooks, the operator serves
//! them on this machine and `run_webhooks` registers them while it runs.

use std::path::{Path, PathBuf};

use tokio::time::Instant;

use super::cluster::{connect_options, runtime};
use super::run_cluster::{Target, apply_crds, connect, fill_namespace};
use super::run_webhooks::{self, LocalWebhooks, Registered};
use crate::cargo;
use crate::cli::RunArgs;
use crate::error::ExitWith;
use crate::manifests;
use crate::project::Project;
use crate::supervise::{self, Stop};
use crate::ui::Ui;

pub fn run(ui: &Ui, args: &RunArgs, root: &Path, project: &Project) -> anyhow::Result<()> {
    runtime()?.block_on(run_operator(ui, args, root, project))
}

async fn run_operator(
    ui: &Ui,
    args: &RunArgs,
    root: &Path,
    project: &Project,
) -> anyhow::Result<()> {
    // Flags that cannot work with the project's webhooks are refused before connecting.
    let bundle = manifests::load(root, project, false)?;
    if crate::webhooks::any(&bundle.manifests) {
        run_webhooks::check(args)?;
    }
    let Target {
        cluster,
        namespace,
        watched,
    } = connect(ui, args, project, &project.project_name).await?;

    let filled = fill_namespace(&cluster, &bundle, &namespace);
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
    apply_crds(ui, &cluster, args, &filled).await?;

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
        .env("POD_NAMESPACE", &namespace)
        // Plain HTTP /metrics for a local run (`-- --metrics-secure=true` wins): a variable
        // rather than the flag, which operators generated before it would refuse.
        .env("METRICS_SECURE", "false");
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
