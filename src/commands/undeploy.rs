//! `operator-rs undeploy`: delete what `deploy` applied, in reverse order, and wait until it is
//! gone. Webhook configurations go first, so that no write waits for a webhook that is gone.
//! Custom resources that carry a finalizer go before the operator that removes it, and only
//! with a yes or a flag; CRDs go only with `--include-crds`, and never silently with the
//! user's custom resources in them.

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
    // A disk cache older than a kind must not make its objects look "not found".
    let everything: Vec<&Manifest> = filled.manifests.iter().collect();
    cluster.discover_missing(&everything).await?;
    let crds: Vec<&Manifest> = filled.manifests.iter().filter(|m| m.is_crd()).collect();
    let deadline = Instant::now() + args.timeout;
    let waited = duration::display(args.timeout);
    let wait = !args.no_wait;

    // Custom resources go first, while the operator still runs and can finish their
    // finalizers (a Helm operator uninstalls each release there); they are waited for even
    // with --no-wait, since removing the operator before they are gone strands them.
    let mut found: Vec<(String, CustomResource)> = Vec::new();
    for crd in &crds {
        let api_version = served_api_version(crd);
        for resource in cluster.custom_resources(crd).await? {
            found.push((api_version.clone(), resource));
        }
    }
    let first: Vec<(String, CustomResource)> = if args.include_crds {
        if !found.is_empty() {
            confirm_custom_resources(ui, args, &found)?;
        }
        found
    } else {
        let watched = watched_namespaces(&filled.manifests);
        let theirs: Vec<_> = found
            .into_iter()
            .filter(|(_, r)| watched.contains(r.namespace.as_deref()))
            .collect();
        if safe_order(ui, args, &theirs)? {
            theirs
        } else {
            Vec::new()
        }
    };
    // Webhook configurations go first: once the operator is gone nothing answers them, and
    // the API server would refuse every write they concern, the deletes of custom resources
    // included. A CRD's conversion webhook goes with the CRD.
    let mut stages = manifests::staged(&filled);
    if let Some((_, configurations)) = stages.iter().find(|(s, _)| *s == Stage::Webhooks) {
        delete_all(ui, &cluster, configurations, wait, deadline, &waited).await?;
    }
    stages.retain(|(stage, _)| !matches!(stage, Stage::Crds | Stage::Webhooks));

    if !first.is_empty() {
        let operator = operator_deployment(&filled.manifests);
        ui.info(format!(
            "Deleting {} first; the operator finishes them (a Helm operator uninstalls their releases) before it is removed.",
            count(first.len(), "custom resource", "custom resources")
        ));
        let objects: Vec<Manifest> = first
            .iter()
            .map(|(api_version, r)| r.as_manifest(api_version))
            .collect();
        delete_all(
            ui,
            &cluster,
            &objects.iter().collect::<Vec<_>>(),
            true,
            deadline,
            &waited,
        )
        .await
        .with_context(|| match &operator {
            Some(d) => format!(
                "the custom resources are not gone, so the operator was kept to finish them; see what it does with `kubectl -n {} logs deployment/{}`",
                d.namespace().unwrap_or("default"),
                d.name()
            ),
            None => "the custom resources are not gone, so nothing else was deleted".to_string(),
        })?;
    }

    for (_, objects) in stages.iter().rev() {
        delete_all(ui, &cluster, objects, wait, deadline, &waited).await?;
    }

    if args.include_crds {
        delete_all(ui, &cluster, &crds, wait, deadline, &waited).await?;
        let group_versions: Vec<String> = crds
            .iter()
            .flat_map(|crd| crd_group_versions(crd))
            .collect();
        cluster.forget_cached(&group_versions);
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

/// The namespaces whose custom resources the operator reconciles.
#[derive(Debug, PartialEq, Eq)]
enum Watched {
    All,
    Only(Vec<String>),
}

impl Watched {
    fn contains(&self, namespace: Option<&str>) -> bool {
        match (self, namespace) {
            (Watched::All, _) | (_, None) => true,
            (Watched::Only(list), Some(ns)) => list.iter().any(|n| n == ns),
        }
    }
}

/// Read from `WATCH_NAMESPACE` of the operator Deployment, as both runtimes read it: its own
/// namespace (`fieldRef: metadata.namespace`), a comma-separated list, or every namespace
/// when it is empty or not set.
fn watched_namespaces(manifests: &[Manifest]) -> Watched {
    let Some(deployment) = operator_deployment(manifests) else {
        return Watched::All;
    };
    let own = deployment.namespace().unwrap_or("default").to_string();
    let containers = deployment.object["spec"]["template"]["spec"]["containers"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let variable = containers
        .iter()
        .flat_map(|c| c["env"].as_array().cloned().unwrap_or_default())
        .find(|e| e["name"] == "WATCH_NAMESPACE");
    let Some(variable) = variable else {
        return Watched::All;
    };
    if variable["valueFrom"]["fieldRef"]["fieldPath"] == "metadata.namespace" {
        return Watched::Only(vec![own]);
    }
    let list: Vec<String> = variable["value"]
        .as_str()
        .unwrap_or_default()
        .split(',')
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .map(String::from)
        .collect();
    if list.is_empty() {
        Watched::All
    } else {
        Watched::Only(list)
    }
}

fn operator_deployment(manifests: &[Manifest]) -> Option<&Manifest> {
    manifests
        .iter()
        .find(|m| m.group() == "apps" && m.kind() == "Deployment")
}

/// Whether the custom resources the operator watches must go before it. Only those with a
/// finalizer make it matter: the operator is what removes it, and without the operator they
/// can no longer be deleted. They are never deleted without a yes or a flag.
fn safe_order(
    ui: &Ui,
    args: &UndeployArgs,
    resources: &[(String, CustomResource)],
) -> anyhow::Result<bool> {
    if resources.is_empty() {
        return Ok(false);
    }
    if args.delete_custom_resources {
        return Ok(true);
    }
    let blocking: Vec<&CustomResource> = resources
        .iter()
        .map(|(_, r)| r)
        .filter(|r| !r.finalizers.is_empty())
        .collect();
    if blocking.is_empty() {
        return Ok(false);
    }
    let mut finalizers: Vec<&str> = blocking
        .iter()
        .flat_map(|r| r.finalizers.iter().map(String::as_str))
        .collect();
    finalizers.sort_unstable();
    finalizers.dedup();
    let why = format!(
        "{} ({}) {} the finalizer {} that only the running operator removes, so removing the operator first would leave {} undeletable",
        count(blocking.len(), "custom resource", "custom resources"),
        listing(blocking.iter().copied()),
        if blocking.len() == 1 {
            "carries"
        } else {
            "carry"
        },
        finalizers.join(", "),
        if blocking.len() == 1 { "it" } else { "them" },
    );
    if args.keep_custom_resources {
        ui.warn(format!(
            "{why}; they are kept as asked, and can be deleted once the operator runs again (`operator-rs deploy`)"
        ));
        return Ok(false);
    }
    if ui.is_interactive() {
        if ui.confirm(&format!(
            "{why}. Delete them first, and remove the operator once it has finished them?"
        ))? {
            return Ok(true);
        }
        anyhow::bail!(
            "nothing was deleted: the custom resources and the operator are kept; `operator-rs undeploy --keep-custom-resources` removes the operator and keeps them"
        );
    }
    Err(crate::error::usage(format!(
        "refusing to remove the operator: {why}. Pass --delete-custom-resources to delete them first and wait until the operator has finished them, or --keep-custom-resources to remove the operator and keep them; nothing was deleted"
    )))
}

/// `1 custom resource`, `3 custom resources`.
fn count(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

/// The first few objects by name, and how many more there are.
fn listing<'a>(resources: impl Iterator<Item = &'a CustomResource>) -> String {
    const SHOWN: usize = 5;
    let all: Vec<&CustomResource> = resources.collect();
    let mut names: Vec<String> = all.iter().take(SHOWN).map(|r| r.display_name()).collect();
    if all.len() > SHOWN {
        names.push(format!("and {} more", all.len() - SHOWN));
    }
    names.join(", ")
}

/// `group/version` of every version a CRD manifest defines.
fn crd_group_versions(crd: &Manifest) -> Vec<String> {
    let spec = &crd.object["spec"];
    let group = spec["group"].as_str().unwrap_or_default();
    spec["versions"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|v| v["name"].as_str())
        .map(|version| format!("{group}/{version}"))
        .collect()
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

/// Deleting a CRD deletes all of its objects: that needs a yes on a terminal, or a flag.
fn confirm_custom_resources(
    ui: &Ui,
    args: &UndeployArgs,
    found: &[(String, CustomResource)],
) -> anyhow::Result<()> {
    if args.force || args.delete_custom_resources {
        return Ok(());
    }
    let list = listing(found.iter().map(|(_, r)| r));
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
    Err(crate::error::usage(format!(
        "refusing to delete the CustomResourceDefinitions: {count} ({list}) and would be deleted with them. Delete those you no longer need with kubectl, or pass --force (or --delete-custom-resources) to delete them all; nothing was deleted"
    )))
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
