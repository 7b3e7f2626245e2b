//! What `run` does for every project type before its operator starts: connect to the cluster,
//! choose the namespace the operator runs in and the namespaces it watches, and apply the
//! project's CRDs (server-side, then a wait until they are Established).

use tokio::time::Instant;

use super::cluster::{apply_stage, check_namespace, choose_namespace, connect_options, scope_of};
use crate::cli::RunArgs;
use crate::duration;
use crate::kube::{Cluster, Ownership, WriteMode};
use crate::manifests::{Bundle, Manifest, Settings};
use crate::project::Project;
use crate::ui::Ui;

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

/// `bundle` with the namespace filled in wherever it is named: a CRD converted by webhook names
/// the operator's Service in it.
pub(super) fn fill_namespace(cluster: &Cluster, bundle: &Bundle, namespace: &str) -> Bundle {
    let settings = Settings {
        image: None,
        namespace,
    };
    bundle.filled(&settings, &scope_of(cluster, bundle))
}

/// Applies the CRDs of `bundle` and waits until they are Established, within `--timeout`.
pub(super) async fn apply_crds(
    ui: &Ui,
    cluster: &Cluster,
    args: &RunArgs,
    bundle: &Bundle,
) -> anyhow::Result<()> {
    let crds: Vec<&Manifest> = bundle.all().filter(|m| m.is_crd()).collect();
    let deadline = Instant::now() + args.timeout;
    apply_stage(
        ui,
        cluster,
        &crds,
        WriteMode::Persist,
        Ownership::Force,
        deadline,
        &duration::display(args.timeout),
    )
    .await
}
