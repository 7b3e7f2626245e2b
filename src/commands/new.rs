//! `operator-rs new`: a new operator project in a new directory.

use std::path::{Path, PathBuf};

use anyhow::Context as _;

use super::inputs::{self, ApiNames};
use crate::chart::{self, Chart, ChartError};
use crate::cli::NewArgs;
use crate::error::{UsageError, usage};
use crate::names::{self, Kind, ProjectName};
use crate::project::{Project, ProjectType, Resource};
use crate::rbac;
use crate::scaffold::{self, FilePlan, helm::HelmApi};
use crate::schema;
use crate::ui::Ui;

pub fn run(ui: &Ui, args: NewArgs) -> anyhow::Result<()> {
    let domain = names::parse_domain(&args.domain).map_err(usage)?;
    match args.project_type {
        ProjectType::Helm => new_helm(ui, &args, &domain),
        ProjectType::Rust => super::new_rust::run(ui, &args, &domain),
    }
}

/// The chart a user named, or `None` for the starter chart.
fn load_user_chart(ui: &Ui, args: &NewArgs) -> anyhow::Result<Option<Chart>> {
    let Some(reference) = &args.helm_chart else {
        return Ok(None);
    };
    let spinner = ui.spinner(format!("Reading chart {reference}"));
    let loaded = chart::load_local(Path::new(reference));
    spinner.finish_and_clear();
    match loaded {
        Ok(chart) => Ok(Some(chart)),
        // The argument does not name a chart at all: that is how the command was called.
        Err(e @ (ChartError::Missing(_) | ChartError::NoChartYaml(_))) => {
            Err(usage(format!("--helm-chart: {e}")))
        }
        Err(e) => Err(anyhow::Error::new(e).context(format!("--helm-chart {reference}"))),
    }
}

fn new_helm(ui: &Ui, args: &NewArgs, domain: &str) -> anyhow::Result<()> {
    let user_chart = load_user_chart(ui, args)?;
    let default_kind = match &user_chart {
        Some(chart) => Some(Kind::from_chart_name(chart.name()).map_err(|_| {
            UsageError::new(format!(
                "the chart name \"{}\" does not make a valid kind; pass --kind",
                chart.name()
            ))
        })?),
        None => None,
    };
    let api = inputs::api_names(
        ui,
        args.kind.as_deref(),
        default_kind,
        args.api_version.as_deref(),
        &format!("charts.{domain}"),
        args.plural.as_deref(),
    )?;
    let name = inputs::project_name(ui, args.name.as_deref(), &api.kind)?;
    let target = PathBuf::from(name.as_str());
    ensure_target_free(&target)?;

    let chart = match user_chart {
        Some(chart) => chart,
        None => starter_chart(&api.kind)?,
    };
    if let Some(warning) = chart.version_warning() {
        ui.warn(warning);
    }

    let (plan, project, summary) = helm_plan(&name, domain, &api, &chart)?;
    for warning in &summary.warnings {
        ui.warn(warning);
    }
    let mut plan = plan;
    plan.add(crate::project::PROJECT_FILE, project.to_yaml());
    scaffold::write::create_project(&target, &plan).map_err(|e| match e {
        scaffold::write::WriteError::TargetExists(_) => usage(e),
        other => anyhow::Error::new(other),
    })?;
    report(ui, &name, &api, &chart, &plan, &summary);
    Ok(())
}

/// The starter chart: like `helm create`, named after the kind.
fn starter_chart(kind: &Kind) -> anyhow::Result<Chart> {
    let files = scaffold::helm::default_chart_files(&kind.lower())?;
    Ok(Chart::from_files("the starter chart", files)?)
}

pub(super) fn ensure_target_free(target: &Path) -> anyhow::Result<()> {
    let occupied = match std::fs::read_dir(target) {
        Ok(mut entries) => entries.next().is_some(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => false,
        Err(_) => target.exists(),
    };
    if occupied {
        return Err(UsageError::new(format!(
            "{} already exists and is not an empty directory: choose another NAME or remove it",
            target.display()
        ))
        .into());
    }
    Ok(())
}

/// What the summary reports besides the files.
struct HelmSummary {
    cluster_scoped: bool,
    rule_count: usize,
    warnings: Vec<String>,
}

fn helm_plan(
    name: &ProjectName,
    domain: &str,
    api: &ApiNames,
    chart: &Chart,
) -> anyhow::Result<(FilePlan, Project, HelmSummary)> {
    let mut warnings = Vec::new();
    let scan = chart::kinds::scan(chart);
    let owned = [rbac::OwnedApi {
        group: api.group.to_string(),
        plural: api.plural.clone(),
    }];
    let rbac_plan = rbac::helm_operator_rules(&[&scan], &owned);
    warnings.extend(rbac_plan.warnings.iter().cloned());

    let spec_schema = match chart
        .values_schema()
        .with_context(|| format!("chart {}", chart.origin))?
    {
        Some(values_schema) => schema::from_values_schema(&values_schema),
        None => {
            let values: serde_json::Value =
                crate::yaml::from_str(&chart.values_text()).map_err(|e| {
                    anyhow::anyhow!(
                        "values.yaml of chart {} is not valid YAML: {e}",
                        chart.origin
                    )
                })?;
            schema::infer_from_values(&values)
        }
    };
    if !spec_schema.relaxed.is_empty() {
        warnings.push(format!(
            "{} place(s) of the chart's values schema cannot be expressed in a CRD schema and accept any value; see the comments in the CRD file",
            spec_schema.relaxed.len()
        ));
    }

    let chart_dir = format!("helm-charts/{}", chart.name());
    let helm_api = HelmApi {
        group: api.group.to_string(),
        version: api.version.to_string(),
        kind: api.kind.to_string(),
        plural: api.plural.clone(),
        chart,
        chart_dir: chart_dir.clone(),
        spec_schema,
    };
    let project_spec = scaffold::helm::HelmProject {
        name: name.to_string(),
        apis: vec![helm_api],
        cluster_scoped: rbac_plan.cluster_scoped,
        rules_yaml: rbac::rules_yaml(&rbac_plan.rules),
        role_checkov_skips: role_checkov_skips(&rbac_plan),
    };
    let plan = scaffold::helm::plan(&project_spec)?;

    let mut project = Project::new(ProjectType::Helm, name.as_str(), domain);
    project.resources.push(Resource {
        group: api.group.to_string(),
        version: api.version.to_string(),
        kind: api.kind.to_string(),
        plural: api.plural.clone(),
        chart: Some(chart_dir),
    });
    let summary = HelmSummary {
        cluster_scoped: rbac_plan.cluster_scoped,
        rule_count: rbac_plan.rules.len(),
        warnings,
    };
    Ok((plan, project, summary))
}

/// checkov checks on the role that the helm-operator cannot satisfy, with why.
fn role_checkov_skips(plan: &rbac::RbacPlan) -> Vec<String> {
    let grants = |resource: &str, verb: &str| {
        plan.rules
            .iter()
            .any(|r| r.resources.iter().any(|x| x == resource) && r.verbs.iter().any(|v| v == verb))
    };
    let mut skips = Vec::new();
    if grants("secrets", "get") || grants("secrets", "list") {
        skips.push(
            "CKV2_K8S_5=the helm-operator stores each release in a secret, so it must read secrets"
                .to_string(),
        );
    }
    if grants("clusterroles", "escalate") || grants("roles", "escalate") {
        skips.push("CKV_K8S_158=the chart creates roles; escalate lets the operator create roles granting permissions it holds only through its chart's rules".to_string());
    }
    if grants("clusterroles", "bind") || grants("roles", "bind") {
        skips.push("CKV_K8S_157=the chart creates role bindings; bind lets the operator bind the roles the chart defines".to_string());
    }
    skips
}

fn report(
    ui: &Ui,
    name: &ProjectName,
    api: &ApiNames,
    chart: &Chart,
    plan: &FilePlan,
    summary: &HelmSummary,
) {
    ui.headline(format!("Created Helm operator project {name} in ./{name}"));
    ui.info(format!(
        "  {} ({}/{}) reconciled with chart {} {}",
        api.kind,
        api.group,
        api.version,
        chart.name(),
        chart.metadata.version.as_deref().unwrap_or("")
    ));
    ui.info(format!(
        "  RBAC: {} with {} rules{}",
        if summary.cluster_scoped {
            "ClusterRole"
        } else {
            "Role"
        },
        summary.rule_count,
        if summary.cluster_scoped {
            " (the chart creates cluster-scoped objects)"
        } else {
            ""
        }
    ));
    let own_files = plan
        .paths()
        .filter(|p| !p.starts_with("helm-charts/"))
        .count();
    ui.info(format!(
        "  {own_files} files, plus the chart in helm-charts/{}",
        chart.name()
    ));
    ui.info("");
    ui.info("Next:");
    ui.info(format!("  cd {name}"));
    ui.info(format!(
        "  operator-rs build registry.example.com/me/{name}:v0.1.0 --push"
    ));
    ui.info(format!(
        "  operator-rs deploy --namespace {name}-system --with-sample"
    ));
}
