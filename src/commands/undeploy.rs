//! `operator-rs undeploy`: delete what `deploy` applied, in reverse order, and wait until it is
//! gone. CRDs go only with `--include-crds`, and never silently with the user's custom
//! resources in them.

use anyhow::Context;
use futures::future::join_all;
use tokio::time::Instant;

use super::cluster::{
    check_namespace, choose_namespace, connect_options, report, runtime, scope_of,
};
use crate::cli::UndeployArgs;
use crate::duration;
use crate::kube::{Cluster, CustomResource};
use crate::manifests::{self, Bundle, Manifest, Settings, Stage};
use crate::project::{self, Project};
use crate::ui::Ui;

pub fn run(ui: &Ui, args: UndeployArgs) -> anyhow::Result<()> {
    if let Some(namespace) = &args.namespace {
        check_namespace(namespace)?;
    }
    let (root, project) = project::load_current()?;
    let bundle = manifests::load(&root, &project, false)?;
    runtime()?.block_on(undeploy(ui, &args, &project, &bundle))
}

async fn undeploy(
    ui: &Ui,
    args: &UndeployArgs,
    project: &Project,
    bundle: &Bundle,
) -> anyhow::Result<()> {
    let mut cluster = Cluster::connect(&connect_options(&args.cluster)).await?;
    let namespace = choose_namespace(
        args.namespace.as_deref(),
        project,
        cluster.context_namespace.as_deref(),
    );
    check_namespace(&namespace)?;
    ui.headline(format!(
        "Removing {} from namespace \"{namespace}\" on {}",
        project.project_name, cluster.endpoint
    ));
    // The image does not matter for deleting; the namespace decides what is found.
    let filled = bundle.filled(
        &Settings {
            image: None,
            namespace: &namespace,
        },
        &scope_of(&cluster, bundle),
    );
    let crds: Vec<&Manifest> = filled.manifests.iter().filter(|m| m.is_crd()).collect();
    let deadline = Instant::now() + args.timeout;
    let waited = duration::display(args.timeout);
    let wait = !args.no_wait;

    // Custom resources first, while the operator still runs and can finish their finalizers
    // (a Helm operator uninstalls each release there).
    if args.include_crds {
        let mut found: Vec<(String, CustomResource)> = Vec::new();
        for crd in &crds {
            let api_version = served_api_version(crd);
            for resource in cluster.custom_resources(crd).await? {
                found.push((api_version.clone(), resource));
            }
        }
        if !found.is_empty() {
            confirm_custom_resources(ui, args, &found)?;
            let objects: Vec<Manifest> = found
                .iter()
                .map(|(api_version, r)| r.as_manifest(api_version))
                .collect();
            delete_all(
                ui,
                &cluster,
                &objects.iter().collect::<Vec<_>>(),
                wait,
                deadline,
                &waited,
            )
            .await?;
        }
    }

    let mut stages = manifests::staged(&filled);
    stages.retain(|(stage, _)| *stage != Stage::Crds);
    for (_, objects) in stages.iter().rev() {
        delete_all(ui, &cluster, objects, wait, deadline, &waited).await?;
    }

    if args.include_crds {
        delete_all(ui, &cluster, &crds, wait, deadline, &waited).await?;
    } else if !crds.is_empty() {
        let names: Vec<String> = crds.iter().map(|c| c.name().to_string()).collect();
        ui.info(format!(
            "Kept the CustomResourceDefinitions {} and every custom resource of them; `operator-rs undeploy --include-crds` removes them too.",
            names.join(", ")
        ));
    }
    ui.info(format!(
        "{} is removed from namespace \"{namespace}\"; the namespace itself is kept.",
        project.project_name
    ));
    Ok(())
}

/// The apiVersion under which the CRD's kind is listed: its storage version, else the first.
fn served_api_version(crd: &Manifest) -> String {
    let spec = &crd.object["spec"];
    let versions = spec["versions"].as_array().cloned().unwrap_or_default();
    let version = versions
        .iter()
        .find(|v| v["storage"] == true)
        .or(versions.first())
        .and_then(|v| v["name"].as_str())
        .unwrap_or("v1");
    format!("{}/{version}", spec["group"].as_str().unwrap_or_default())
}

/// Deleting a CRD deletes all of its objects: that needs a yes on a terminal, or `--force`.
fn confirm_custom_resources(
    ui: &Ui,
    args: &UndeployArgs,
    found: &[(String, CustomResource)],
) -> anyhow::Result<()> {
    const SHOWN: usize = 5;
    let mut names: Vec<String> = found
        .iter()
        .take(SHOWN)
        .map(|(_, r)| match &r.namespace {
            Some(ns) => format!("{}/{} ({ns})", r.kind, r.name),
            None => format!("{}/{}", r.kind, r.name),
        })
        .collect();
    if found.len() > SHOWN {
        names.push(format!("and {} more", found.len() - SHOWN));
    }
    let list = names.join(", ");
    if args.force {
        return Ok(());
    }
    let count = match found.len() {
        1 => "1 custom resource exists".to_string(),
        n => format!("{n} custom resources exist"),
    };
    let question = format!(
        "{count} ({list}); deleting the CRDs deletes them and everything the operator made for them. Delete them?"
    );
    if ui.is_interactive() {
        if ui.confirm(&question)? {
            return Ok(());
        }
        anyhow::bail!("nothing was deleted: the custom resources are kept");
    }
    anyhow::bail!(
        "refusing to delete the CustomResourceDefinitions: {count} ({list}) and would be deleted with them. Delete those you no longer need with kubectl, or pass --force to delete them all; nothing was deleted"
    )
}

/// Deletes one stage concurrently, reports each object, then waits until all are gone.
async fn delete_all(
    ui: &Ui,
    cluster: &Cluster,
    objects: &[&Manifest],
    wait: bool,
    deadline: Instant,
    waited: &str,
) -> anyhow::Result<()> {
    let results = join_all(objects.iter().map(|m| cluster.delete(m))).await;
    let mut deleted = Vec::new();
    for (manifest, result) in objects.iter().zip(results) {
        let outcome =
            result.with_context(|| format!("cannot delete {}", manifest.display_name()))?;
        report(ui, &manifest.display_name(), outcome.as_str());
        if outcome == crate::kube::Deleted::Deleted {
            deleted.push(*manifest);
        }
    }
    if wait && !deleted.is_empty() {
        let spinner = ui.spinner(format!("Waiting for {} objects to be gone", deleted.len()));
        let results = join_all(
            deleted
                .iter()
                .map(|m| cluster.wait_gone(m, deadline, waited)),
        )
        .await;
        spinner.finish_and_clear();
        results.into_iter().collect::<Result<Vec<()>, _>>()?;
    }
    Ok(())
}
