//! `operator-rs helm-operator-runtime` (hidden): the entrypoint of a Helm project's image built
//! with `--runtime=operator-rs`. It takes the helm-operator's flags and `WATCH_NAMESPACE`, so
//! `deploy/operator.yaml` is the same for both runtimes, needs no PROJECT, applies no CRDs
//! (`deploy` did) and runs the same runtime as `operator-rs run` in a Helm project.

use anyhow::Context;

use super::cluster::check_namespace;
use super::run_helm::{self, Lease, Operator};
use crate::cli::HelmRuntimeCommandArgs;
use crate::error::usage;
use crate::helm_runtime::watches;
use crate::kube::{Cluster, ConnectOptions};
use crate::ui::Ui;

pub fn run(ui: &Ui, args: HelmRuntimeCommandArgs) -> anyhow::Result<()> {
    let flags = &args.flags;
    let endpoints = run_helm::endpoints(flags)?;
    if flags.leader_elect && flags.leader_election_id.is_none() {
        // Without a project there is no name to default to, and a shared guess would let two
        // operators of one namespace take each other's Lease.
        return Err(usage(
            "--leader-elect needs --leader-election-id=NAME (deploy/operator.yaml passes the project's name)",
        ));
    }
    // The helm-operator's WATCH_NAMESPACE: comma-separated, unset or empty for every namespace.
    let watched = std::env::var("WATCH_NAMESPACE").unwrap_or_default();
    let namespaces = run_helm::split_namespaces(&watched);
    for namespace in &namespaces {
        check_namespace(namespace).context("WATCH_NAMESPACE")?;
    }
    // Charts are resolved against the working directory, as the helm-operator does (the
    // image's WORKDIR holds watches.yaml and helm-charts/).
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let loaded = watches::load(&cwd.join(&flags.watches_file), &cwd)?;

    run_helm::multi_thread_runtime()?.block_on(async {
        let cluster = Cluster::connect(&ConnectOptions {
            kubeconfig: args.kubeconfig.clone(),
            context: None,
            cache_dir: None,
        })
        .await?;
        ui.headline(format!(
            "Running the Helm operator runtime against {}, watching {}",
            cluster.endpoint,
            if namespaces.is_empty() {
                "every namespace".to_string()
            } else {
                format!("namespace(s) {}", namespaces.join(", "))
            }
        ));
        for warning in &loaded.warnings {
            ui.warn(warning);
        }
        // The Lease lives in the operator's own namespace: the pod's service account names it.
        let lease = match &flags.leader_election_id {
            Some(name) if flags.leader_elect => Some(Lease {
                namespace: flags
                    .leader_election_namespace
                    .clone()
                    .or_else(|| {
                        std::env::var("POD_NAMESPACE")
                            .ok()
                            .filter(|n| !n.is_empty())
                    })
                    .or_else(|| cluster.context_namespace.clone())
                    .unwrap_or_else(|| "default".to_string()),
                name: name.clone(),
            }),
            _ => None,
        };
        run_helm::operate(
            ui,
            Operator {
                cluster,
                flags,
                endpoints,
                watches: loaded.entries,
                namespaces,
                lease,
            },
        )
        .await
    })
}
