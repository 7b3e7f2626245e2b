//! `operator-rs deploy`: the project's deploy/ files, filled in and applied in dependency order
//! with server-side apply, then a wait until the operator is rolled out.

use std::path::PathBuf;

use anyhow::Context;
use tokio::time::Instant;

use super::cluster::{
    apply_stage, check_namespace, choose_namespace, connect_options, report, runtime, scope_of,
};
use crate::cli::{DeployArgs, DryRun};
use crate::duration;
use crate::kube::{Cluster, Outcome, Ownership, RolloutState, WriteMode};
use crate::manifests::{self, Bundle, Manifest, Settings, Stage};
use crate::project::{self, Project};
use crate::ui::Ui;

pub fn run(ui: &Ui, args: DeployArgs) -> anyhow::Result<()> {
    if let Some(namespace) = &args.namespace {
        check_namespace(namespace)?;
    }
    if let Some(image) = &args.image
        && (image.is_empty() || image.contains(char::is_whitespace))
    {
        return Err(crate::error::usage(format!(
            "image \"{image}\" must be an image reference without spaces (for example \"registry.example.com/me/op:v0.1.0\")"
        )));
    }
    let (root, project) = project::load_current()?;
    let bundle = manifests::load(&root, &project, args.with_sample)?;
    let image = args.image.clone().or_else(|| project.image.clone());
    if args.image.is_some() && !bundle.needs_image() {
        ui.warn(format!(
            "--image is not used: no file under {}/ holds the {} placeholder, so images are applied as written",
            manifests::DEPLOY_DIR,
            manifests::IMAGE_PLACEHOLDER
        ));
    }

    // Placeholders do not depend on the namespace or the cluster: check them before anything
    // is sent, and before a cluster is even needed.
    let provisional = Settings {
        image: image.as_deref(),
        namespace: "default",
    };
    bundle
        .filled(&provisional, &bundle.offline_scope())
        .check_placeholders()
        .map_err(|e| match e {
            manifests::ManifestError::NoImage { .. } => crate::error::usage(e),
            other => other.into(),
        })?;

    if args.dry_run == Some(DryRun::Client) {
        return print_manifests(ui, &args, &project, &bundle, image.as_deref());
    }
    let plan = Plan {
        root,
        project,
        bundle,
        image,
    };
    runtime()?.block_on(deploy(ui, &args, plan))
}

/// What was read from the project, ready to be applied.
struct Plan {
    root: PathBuf,
    project: Project,
    bundle: Bundle,
    image: Option<String>,
}

/// `--dry-run`: the manifests exactly as they would be applied, in apply order.
fn print_manifests(
    ui: &Ui,
    args: &DeployArgs,
    project: &Project,
    bundle: &Bundle,
    image: Option<&str>,
) -> anyhow::Result<()> {
    let context_namespace = crate::kube::context_namespace(&connect_options(&args.cluster))?;
    let namespace = choose_namespace(
        args.namespace.as_deref(),
        project,
        context_namespace.as_deref(),
    );
    check_namespace(&namespace)?;
    let filled = bundle.filled(
        &Settings {
            image,
            namespace: &namespace,
        },
        &bundle.offline_scope(),
    );
    let namespace_object = Manifest::namespace_object(&namespace);
    let mut documents: Vec<&Manifest> = Vec::new();
    if args.create_namespace {
        documents.push(&namespace_object);
    }
    for (_, stage) in manifests::staged(&filled) {
        documents.extend(stage);
    }
    ui.data(manifests::render(documents));
    Ok(())
}

async fn deploy(ui: &Ui, args: &DeployArgs, plan: Plan) -> anyhow::Result<()> {
    let Plan {
        root,
        mut project,
        bundle,
        image,
    } = plan;
    let mut cluster = Cluster::connect(&connect_options(&args.cluster)).await?;
    let namespace = choose_namespace(
        args.namespace.as_deref(),
        &project,
        cluster.context_namespace.as_deref(),
    );
    check_namespace(&namespace)?;
    let mode = match args.dry_run {
        Some(DryRun::Server) => WriteMode::ServerDryRun,
        _ => WriteMode::Persist,
    };
    ui.headline(format!(
        "{} {} to namespace \"{namespace}\" on {}",
        if mode == WriteMode::ServerDryRun {
            "Checking (server dry run, nothing is persisted) a deploy of"
        } else {
            "Deploying"
        },
        project.project_name,
        cluster.endpoint
    ));

    let settings = Settings {
        image: image.as_deref(),
        namespace: &namespace,
    };
    let filled = bundle.filled(&settings, &scope_of(&cluster, &bundle));
    filled.check_placeholders()?;
    // What shows that the webhooks answer when no sample is applied: the samples all the
    // same, in a dry run; a project without readable samples is not probed.
    let probe_samples = if filled.samples.is_empty() && crate::webhooks::any(&filled.manifests) {
        manifests::load(&root, &project, true)
            .map(|b| b.filled(&settings, &scope_of(&cluster, &b)).samples)
            .unwrap_or_default()
    } else {
        Vec::new()
    };

    // A server dry run creates nothing, so what needs a namespace or a CRD that only this
    // dry run "created" cannot be checked by the server.
    let mut dry_namespace = false;
    if args.create_namespace {
        let outcome = cluster.ensure_namespace(&namespace, mode).await?;
        report(ui, &format!("Namespace/{namespace}"), outcome.as_str());
        dry_namespace = mode == WriteMode::ServerDryRun && outcome == Outcome::Created;
    }

    let deadline = Instant::now() + args.timeout;
    let waited = duration::display(args.timeout);
    let crd_kinds = filled.crd_scopes();
    let webhooks = mode == WriteMode::Persist && crate::webhooks::any(&filled.manifests);
    let mut stages = manifests::staged(&filled);
    // With webhooks, samples wait until the webhooks answer: the API server refuses every
    // write they concern while it cannot call them.
    let samples = match stages.last() {
        Some((Stage::Samples, _)) if webhooks => stages.pop().map(|(_, samples)| samples),
        _ => None,
    };
    for (stage, manifests) in stages {
        if stage != Stage::Crds {
            cluster.discover_missing(&manifests).await?;
        }
        let mut ready = Vec::new();
        for manifest in manifests {
            let unserved_crd_kind = cluster
                .lookup(manifest.group(), manifest.version(), manifest.kind())
                .is_none()
                && crd_kinds
                    .contains_key(&(manifest.group().to_string(), manifest.kind().to_string()));
            let skipped = if mode == WriteMode::Persist {
                None
            } else if unserved_crd_kind {
                Some("skipped (its CustomResourceDefinition exists only in this dry run)")
            } else if dry_namespace && manifest.namespace().is_some() {
                Some("skipped (its namespace exists only in this dry run)")
            } else {
                None
            };
            match skipped {
                Some(reason) => report(ui, &manifest.display_name(), reason),
                None => ready.push(manifest),
            }
        }
        let ownership = if stage == Stage::Samples {
            Ownership::Respect
        } else {
            Ownership::Force
        };
        apply_stage(ui, &cluster, &ready, mode, ownership, deadline, &waited).await?;
    }

    if mode == WriteMode::ServerDryRun {
        ui.info("Server dry run passed: nothing was changed.");
        return Ok(());
    }
    cluster.save_applied();
    if project.namespace.as_deref() != Some(namespace.as_str()) {
        project.namespace = Some(namespace.clone());
        project
            .save(&root)
            .context("the objects were applied, but the namespace could not be recorded")?;
    }
    if !args.no_wait {
        for deployment in filled.manifests.iter().filter(|m| is_deployment(m)) {
            wait_rollout(ui, &cluster, deployment, deadline, &waited).await?;
        }
    }
    if webhooks && (!args.no_wait || samples.is_some()) {
        let probes = match &samples {
            Some(samples) => samples.clone(),
            None => probe_samples.iter().collect(),
        };
        wait_webhooks(ui, &mut cluster, &filled, &probes, deadline, &waited).await?;
    }
    if let Some(samples) = samples {
        cluster.discover_missing(&samples).await?;
        apply_stage(
            ui,
            &cluster,
            &samples,
            mode,
            Ownership::Respect,
            deadline,
            &waited,
        )
        .await?;
        cluster.save_applied();
    }
    ui.info(format!(
        "{} is deployed to namespace \"{namespace}\"; remove it with `operator-rs undeploy`.",
        project.project_name
    ));
    Ok(())
}

/// Waits until a dry-run create of each of `probes` reaches the webhooks, with the API
/// server's reason on a spinner while it cannot.
async fn wait_webhooks(
    ui: &Ui,
    cluster: &mut Cluster,
    filled: &Bundle,
    probes: &[&Manifest],
    deadline: Instant,
    waited: &str,
) -> anyhow::Result<()> {
    if probes.is_empty() {
        return Ok(());
    }
    cluster.discover_missing(probes).await?;
    let spinner = ui.spinner("Waiting for the webhooks to answer");
    let result = cluster
        .wait_webhooks(probes, deadline, waited, |reason| {
            spinner.set_message(format!("Waiting for the webhooks to answer: {reason}"));
        })
        .await;
    spinner.finish_and_clear();
    match result {
        Ok(()) => {
            report(ui, "Webhooks", "answering");
            Ok(())
        }
        Err(e) => {
            let mut message = e.to_string();
            if let Some(operator) = filled.manifests.iter().find(|m| is_deployment(m)) {
                message.push_str(&format!(
                    "\n  look at the operator with `kubectl -n {} logs deployment/{}`, and at the endpoints of its webhook Service with `kubectl -n {} get endpointslices`; deploy again with a longer --timeout to keep waiting",
                    operator.namespace().unwrap_or("default"),
                    operator.name(),
                    operator.namespace().unwrap_or("default"),
                ));
            }
            Err(anyhow::anyhow!(message))
        }
    }
}

fn is_deployment(manifest: &Manifest) -> bool {
    manifest.group() == "apps" && manifest.kind() == "Deployment"
}

async fn wait_rollout(
    ui: &Ui,
    cluster: &Cluster,
    deployment: &Manifest,
    deadline: Instant,
    waited: &str,
) -> anyhow::Result<()> {
    let name = deployment.display_name();
    let namespace = deployment.namespace().unwrap_or("default");
    let spinner = ui.spinner(format!("Waiting for {name} to roll out"));
    let rollout = cluster
        .wait_rollout(namespace, deployment.name(), deadline, |r| {
            spinner.set_message(format!(
                "Waiting for {name} to roll out: {}/{} ready",
                r.ready, r.desired
            ));
        })
        .await?;
    spinner.finish_and_clear();
    let reason = match rollout.state {
        RolloutState::Done => {
            report(
                ui,
                &name,
                &format!("rolled out ({}/{} ready)", rollout.ready, rollout.desired),
            );
            return Ok(());
        }
        RolloutState::Waiting(what) => format!("did not roll out within {waited}: {what}"),
        RolloutState::Failed(why) => format!("failed to roll out: {why}"),
    };
    let mut message = format!("{name} {reason}");
    // The details help, but failing to read them must not hide the timeout itself.
    match cluster.rollout_report(namespace, deployment.name()).await {
        Ok(details) => {
            message.push_str("\n  conditions:");
            if details.conditions.is_empty() {
                message.push_str(" none reported yet");
            }
            for condition in &details.conditions {
                message.push_str(&format!("\n    {condition}"));
            }
            message.push_str("\n  latest events of its pods:");
            if details.events.is_empty() {
                message.push_str(" none");
            }
            for event in &details.events {
                message.push_str(&format!("\n    {event}"));
            }
        }
        Err(e) => message.push_str(&format!(
            "\n  (its conditions and events could not be read: {e})"
        )),
    }
    message.push_str(&format!(
        "\n  look closer with `kubectl -n {namespace} describe deployment {}`; deploy again with a longer --timeout to keep waiting",
        deployment.name()
    ));
    Err(anyhow::anyhow!(message))
}
