//! `operator-rs template`: a chart rendered locally as `helm template` renders it, or, in a Helm
//! project, each kind's chart rendered with its custom resource as the helm-operator would.

use std::path::{Path, PathBuf};

use anyhow::Context as _;

use super::helm_project::{ChartUse, load_user_chart};
use crate::cli::{ChartSourceArgs, TemplateArgs};
use crate::error::{UsageError, usage};
use crate::helm_runtime::watches;
use crate::project::{self, ProjectType};
use crate::render::capabilities::{Capabilities, KubeVersion};
use crate::render::glob::path_match;
use crate::render::manifests::split_documents;
use crate::render::release::{self, Options};
use crate::render::strvals;
use crate::render::tree::ChartNode;
use crate::render::values::{self, Values};
use crate::ui::Ui;

pub fn run(ui: &Ui, args: TemplateArgs) -> anyhow::Result<()> {
    let kube_version = args
        .kube_version
        .as_deref()
        .map(KubeVersion::parse)
        .transpose()
        .map_err(usage)?;
    let capabilities = Capabilities::new(kube_version, &args.api_versions);
    let user = user_values(&args)?;
    let output = match &args.chart {
        Some(reference) => {
            let remote = ChartSourceArgs {
                helm_chart_version: args.chart_version.clone(),
                helm_chart_repo: args.repo.clone(),
                plain_http: args.plain_http,
            };
            // The output is the manifests alone: nothing about fetching goes to stdout.
            let chart = load_user_chart(
                &Ui::new(true, true),
                Some(reference),
                None,
                &remote,
                ChartUse::Render,
            )?
            .ok_or_else(|| usage("no chart given"))?;
            let node = ChartNode::load(&chart, Path::new(reference).is_dir())
                .with_context(|| format!("chart {reference}"))?;
            let name = args.name.as_deref().unwrap_or("release-name");
            let namespace = args.namespace.as_deref().unwrap_or("default");
            render_one(ui, &node, &user, name, namespace, &capabilities, &args)?
        }
        None => render_project(ui, &user, &capabilities, &args)?,
    };
    ui.data(output);
    Ok(())
}

/// `-f` files merged in order, then `--set` pairs, as Helm merges them.
fn user_values(args: &TemplateArgs) -> anyhow::Result<Values> {
    let mut base = Values::new();
    for file in &args.values {
        let text = std::fs::read_to_string(file)
            .map_err(|e| usage(format!("-f {}: {e}", file.display())))?;
        let current = values::from_yaml_stream(&text)
            .map_err(|e| usage(format!("failed to parse {}: {e}", file.display())))?;
        values::merge_maps(&mut base, current);
    }
    for pair in &args.set {
        strvals::parse_into(pair, &mut base).map_err(usage)?;
    }
    Ok(base)
}

fn render_one(
    ui: &Ui,
    chart: &ChartNode,
    user: &Values,
    name: &str,
    namespace: &str,
    capabilities: &Capabilities,
    args: &TemplateArgs,
) -> anyhow::Result<String> {
    let options = Options::new(name, namespace, capabilities.clone());
    let rendered = release::render(chart, user, &options)
        .with_context(|| format!("rendering chart {}", chart.name()))?;
    for warning in &rendered.warnings {
        ui.warn(warning);
    }
    let output = rendered.helm_template_output(args.include_crds);
    if args.show_only.is_empty() {
        return Ok(output);
    }
    show_only(&output, &args.show_only)
}

/// Helm's `--show-only`: the documents whose `# Source:` path inside the chart matches.
fn show_only(output: &str, patterns: &[String]) -> anyhow::Result<String> {
    let documents = split_documents(output);
    let mut out = String::new();
    for pattern in patterns {
        let pattern = pattern.replace('\\', "/");
        let mut found = false;
        for document in &documents {
            let Some(source) = document
                .lines()
                .find_map(|l| l.strip_prefix("# Source: "))
                .and_then(|s| s.split_once('/').map(|(_, rest)| rest.to_string()))
            else {
                continue;
            };
            if path_match(&pattern, &source) {
                out.push_str(&format!("---\n{document}\n"));
                found = true;
            }
        }
        if !found {
            return Err(
                UsageError::new(format!("could not find template {pattern} in chart")).into(),
            );
        }
    }
    Ok(out)
}

/// Every kind of the Helm project here, rendered with its sample (or `--cr`).
fn render_project(
    ui: &Ui,
    user: &Values,
    capabilities: &Capabilities,
    args: &TemplateArgs,
) -> anyhow::Result<String> {
    let (root, project) = project::load_current().map_err(|e| {
        usage(format!(
            "no CHART given and {e}; name a chart (a directory, .tgz, repo/name, URL or oci://)"
        ))
    })?;
    if project.project_type != ProjectType::Helm {
        return Err(usage(format!(
            "{} is a {} project: without CHART, template renders the charts of a Helm project; name a chart to render it",
            root.display(),
            project.project_type.as_str()
        )));
    }
    // Charts are resolved against the project root, the operator image's working directory.
    let watches = watches::load(&root.join("watches.yaml"), &root)?.entries;
    let given = args.cr.as_ref().map(read_cr).transpose()?;
    let mut out = String::new();
    let mut rendered_any = false;
    for watch in &watches {
        let api_version = watch.api_version();
        let cr = match &given {
            Some(cr) if cr.api_version == api_version && cr.kind == watch.kind => cr.clone(),
            Some(_) => continue,
            None => read_cr(&root.join("deploy/crds").join(format!(
                "{}_{}_{}_cr.yaml",
                watch.group,
                watch.version,
                watch.kind.to_lowercase()
            )))?,
        };
        let chart_dir = &watch.chart_dir;
        let chart = crate::chart::load_local(chart_dir)
            .with_context(|| format!("chart of kind {} in watches.yaml", watch.kind))?;
        let node = ChartNode::load(&chart, true)
            .with_context(|| format!("chart {}", chart_dir.display()))?;
        // The custom resource's spec is the release's values; -f and --set go on top of it.
        let mut values = cr.spec.clone();
        values::merge_maps(&mut values, user.clone());
        let name = args.name.clone().unwrap_or(cr.name.clone());
        let namespace = args
            .namespace
            .clone()
            .or(cr.namespace.clone())
            .unwrap_or_else(|| "default".to_string());
        out.push_str(&render_one(
            ui,
            &node,
            &values,
            &name,
            &namespace,
            capabilities,
            args,
        )?);
        rendered_any = true;
    }
    if !rendered_any && let Some(cr) = &given {
        return Err(usage(format!(
            "--cr: no kind in watches.yaml serves {} {}; the project serves {}",
            cr.api_version,
            cr.kind,
            watches
                .iter()
                .map(|w| format!("{}/{} {}", w.group, w.version, w.kind))
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    Ok(out)
}

#[derive(Debug, Clone)]
struct CustomResource {
    api_version: String,
    kind: String,
    name: String,
    namespace: Option<String>,
    spec: Values,
}

fn read_cr(path: &PathBuf) -> anyhow::Result<CustomResource> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        usage(format!(
            "cannot read custom resource {}: {e}",
            path.display()
        ))
    })?;
    let value: serde_json::Value = crate::yaml::from_str(&text)
        .map_err(|e| usage(format!("{} is not YAML: {e}", path.display())))?;
    let text_at = |pointer: &str| {
        value
            .pointer(pointer)
            .and_then(|v| v.as_str())
            .map(str::to_string)
    };
    let name = text_at("/metadata/name").ok_or_else(|| {
        usage(format!(
            "custom resource {} has no metadata.name, which becomes the release name",
            path.display()
        ))
    })?;
    // The operator reads the spec as the API server stores it: integers stay integers.
    let spec = match value.get("spec") {
        Some(serde_json::Value::Object(map)) => map.clone(),
        _ => Values::new(),
    };
    Ok(CustomResource {
        api_version: text_at("/apiVersion").unwrap_or_default(),
        kind: text_at("/kind").unwrap_or_default(),
        name,
        namespace: text_at("/metadata/namespace"),
        spec,
    })
}
