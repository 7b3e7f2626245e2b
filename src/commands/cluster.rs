//! What `deploy`, `undeploy` and `run` share: the async runtime, the connection flags, the
//! choice of namespace, the scope of each object, applying a stage of objects, and how a line
//! about one object looks.

use anyhow::Context;
use console::style;
use futures::future::join_all;
use tokio::time::Instant;

use crate::cli::ClusterArgs;
use crate::kube::{Cluster, ConnectOptions, Ownership, WriteMode};
use crate::manifests::{Bundle, Manifest, Scope};
use crate::project::Project;
use crate::ui::Ui;

/// The scope of each object of `bundle`: discovery knows the scope of every kind already
/// served; the CRDs in the bundle and the built-in table cover kinds that are not served yet.
pub fn scope_of<'a>(cluster: &'a Cluster, bundle: &Bundle) -> impl Fn(&Manifest) -> Scope + 'a {
    let offline = bundle.offline_scope();
    move |m: &Manifest| {
        cluster
            .lookup(m.group(), m.version(), m.kind())
            .map(|s| s.scope)
            .unwrap_or_else(|| offline(m))
    }
}

/// A runtime for one command: the work is a few dozen requests, one thread serves them.
pub fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    Ok(tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?)
}

pub fn connect_options(args: &ClusterArgs) -> ConnectOptions {
    ConnectOptions {
        kubeconfig: args.kubeconfig.clone(),
        context: args.context.clone(),
        cache_dir: args.cache_dir.clone(),
    }
}

/// A namespace name must be a DNS-1123 label; checked before anything is sent.
pub fn check_namespace(namespace: &str) -> anyhow::Result<()> {
    let valid = !namespace.is_empty()
        && namespace.len() <= 63
        && namespace
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !namespace.starts_with('-')
        && !namespace.ends_with('-');
    if valid {
        Ok(())
    } else {
        Err(crate::error::usage(format!(
            "namespace \"{namespace}\" must be a DNS-1123 label: at most 63 lower-case letters, digits and '-', starting and ending with a letter or digit (for example \"rancher-system\")"
        )))
    }
}

/// `-n` first, then the namespace of the last deploy (PROJECT), then the context's, then
/// `default`: the order kubectl users expect, with the project remembering its place.
pub fn choose_namespace(flag: Option<&str>, project: &Project, context: Option<&str>) -> String {
    flag.or(project.namespace.as_deref())
        .or(context)
        .unwrap_or("default")
        .to_string()
}

/// `Kind/name (namespace): outcome`, the outcome coloured on a terminal.
pub fn report(ui: &Ui, object: &str, outcome: &str) {
    let styled = match outcome {
        "created" | "deleted" => style(outcome).green(),
        "configured" => style(outcome).yellow(),
        _ => style(outcome).dim(),
    };
    ui.info(format!("{object}: {styled}"));
}

/// Applies the objects of one stage concurrently, reports each, and waits until the CRDs among
/// them are Established (not in a dry run, where none is created).
pub async fn apply_stage(
    ui: &Ui,
    cluster: &Cluster,
    manifests: &[&Manifest],
    mode: WriteMode,
    ownership: Ownership,
    deadline: Instant,
    waited: &str,
) -> anyhow::Result<()> {
    let results = join_all(manifests.iter().map(|m| cluster.apply(m, mode, ownership))).await;
    let mut established = Vec::new();
    for (manifest, result) in manifests.iter().zip(results) {
        let applied = result.with_context(|| format!("cannot apply {}", manifest.origin))?;
        report(ui, &manifest.display_name(), applied.outcome.as_str());
        if manifest.is_crd()
            && mode == WriteMode::Persist
            && !crate::kube::is_established(&applied.object)
        {
            established.push(manifest.name().to_string());
        }
    }
    if !established.is_empty() {
        let spinner = ui.spinner("Waiting for the CustomResourceDefinitions to be Established");
        let waits = established
            .iter()
            .map(|name| cluster.wait_established(name, deadline, waited));
        let results = join_all(waits).await;
        spinner.finish_and_clear();
        results.into_iter().collect::<Result<Vec<()>, _>>()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::project::ProjectType;

    #[test]
    fn namespace_precedence() {
        let mut project = Project::new(ProjectType::Helm, "demo", "example.com");
        assert_eq!(choose_namespace(None, &project, None), "default");
        assert_eq!(choose_namespace(None, &project, Some("ctx")), "ctx");
        project.namespace = Some("recorded".into());
        assert_eq!(choose_namespace(None, &project, Some("ctx")), "recorded");
        assert_eq!(
            choose_namespace(Some("flag"), &project, Some("ctx")),
            "flag"
        );
    }

    #[test]
    fn namespace_names_are_checked() {
        assert!(check_namespace("rancher-system").is_ok());
        for bad in ["", "Team", "-a", "a-", "a_b", &"x".repeat(64)] {
            let err = check_namespace(bad).unwrap_err();
            assert!(crate::error::is_usage(&err), "{bad}");
        }
    }
}
