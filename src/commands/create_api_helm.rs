//! `create api` for Helm projects: the chart goes to `helm-charts/`, an entry to
//! `watches.yaml`, the CRD and sample to `deploy/crds/`, and the chart's rules are merged into
//! the project's Role and ClusterRole.

use std::path::Path;

use super::helm_project;
use super::inputs::ApiNames;
use super::project_changes::{add_kustomization_resource, ensure_new, read, report_applied};
use crate::chart::{self, Chart};
use crate::cli::CreateApiArgs;
use crate::error::usage;
use crate::project::{self, Project, Resource};
use crate::rbac;
use crate::render::probe::{ProbeOptions, ValuesRendered};
use crate::scaffold::{self, FilePlan, write::Applied};
use crate::ui::Ui;

pub fn run(ui: &Ui, args: &CreateApiArgs, root: &Path, mut project: Project) -> anyhow::Result<()> {
    let (chart, api) = helm_project::chart_and_names(ui, &args.api, &project.domain)?;
    ensure_new(&project, &api)?;
    let requested_sample =
        helm_project::check_sample_values(&chart, args.api.sample_values.as_deref())?;

    let mut changes = FilePlan::new();
    let chart_dir = format!("helm-charts/{}", chart.name());
    let chart_is_new = place_chart(root, &chart_dir, &chart, &mut changes)?;

    let (mut helm_api, mut api_files) = helm_project::api_and_files(&api, &chart, &chart_dir)?;
    if let Some(warning) = helm_project::relaxed_warning(&api, &helm_api.spec_schema) {
        ui.warn(warning);
    }
    for (path, file) in api_files.iter() {
        if root.join(path).exists() {
            return Err(usage(format!(
                "{path} already exists: remove it or choose another --kind/--api-version"
            )));
        }
        changes.add(path.clone(), file.bytes.clone());
    }

    // watches.yaml: append, so edits to the existing entries stay as they are.
    let watches = read(root, "watches.yaml")?;
    let separator = if watches.ends_with('\n') { "" } else { "\n" };
    changes.add(
        "watches.yaml",
        format!(
            "{watches}{separator}{}\n",
            scaffold::helm::watches_entry(&helm_api)?
        ),
    );

    project.resources.push(Resource {
        group: api.group.to_string(),
        version: api.version.to_string(),
        kind: api.kind.to_string(),
        plural: api.plural.clone(),
        chart: Some(chart_dir.clone()),
    });
    let (scope_change, rendered) = plan_rbac(ui, root, &project, &chart, &chart_dir, &mut changes)?;
    // Nothing is on disk yet while the user is asked: the changes are applied at the end.
    let sample = helm_project::sample_values(ui, &chart, requested_sample, &rendered, &mut || {})?;
    if let Some(file) = &sample.file {
        helm_project::use_sample_values(&mut helm_api, &mut api_files, file)?;
        for (path, file) in api_files.iter() {
            changes.add(path.clone(), file.bytes.clone());
        }
    }
    if let Some(warning) = &sample.warning {
        ui.warn(warning);
    }

    let crd_file = format!("crds/{}", scaffold::helm::crd_file_name(&helm_api));
    changes.add(
        "deploy/kustomization.yaml",
        add_kustomization_resource(&read(root, "deploy/kustomization.yaml")?, &crd_file),
    );
    changes.add(project::PROJECT_FILE, project.to_yaml());

    let applied = scaffold::write::apply_changes(root, &changes)?;
    report(
        ui,
        &api,
        &chart,
        chart_is_new,
        scope_change,
        sample.file.as_deref(),
        &applied,
    );
    Ok(())
}

/// Adds the chart's files under `chart_dir` unless the same chart is already there.
/// Returns whether the chart is new to the project.
fn place_chart(
    root: &Path,
    chart_dir: &str,
    chart: &Chart,
    changes: &mut FilePlan,
) -> anyhow::Result<bool> {
    let existing = root.join(chart_dir);
    if !existing.exists() {
        changes.add_tree(chart_dir, &chart.files);
        return Ok(true);
    }
    let same = chart::load_local(&existing)
        .map(|present| present.files == chart.files)
        .unwrap_or(false);
    if same {
        Ok(false)
    } else {
        Err(usage(format!(
            "{chart_dir} already exists with different content: a project keeps one chart per name; rename the new chart (`name` in its Chart.yaml) or remove {chart_dir}"
        )))
    }
}

/// Recomputes the rules for every chart of the project and merges them into the existing Role
/// and ClusterRole, keeping rules the user added. Returns why, when a ClusterRole had to be
/// added, and which of the values tried the new chart renders with.
fn plan_rbac(
    ui: &Ui,
    root: &Path,
    project: &Project,
    new_chart: &Chart,
    new_chart_dir: &str,
    changes: &mut FilePlan,
) -> anyhow::Result<(Option<Vec<String>>, ValuesRendered)> {
    let mut charts: Vec<Chart> = Vec::new();
    for resource in &project.resources {
        let Some(dir) = &resource.chart else { continue };
        if dir == new_chart_dir
            || charts
                .iter()
                .any(|c| c.origin == root.join(dir).display().to_string())
        {
            continue;
        }
        charts.push(chart::load_local(&root.join(dir)).map_err(|e| {
            anyhow::Error::new(e).context(format!("reading {dir}, listed in PROJECT"))
        })?);
    }
    let mut chart_refs: Vec<&Chart> = charts.iter().collect();
    chart_refs.push(new_chart);
    let apis: Vec<(&str, &str)> = project
        .resources
        .iter()
        .map(|r| (r.group.as_str(), r.plural.as_str()))
        .collect();
    // create api exits when it is done, as new does (see the option's figures).
    let leave_to_exit = ProbeOptions {
        leave_chart_to_exit: true,
        ..ProbeOptions::default()
    };
    let (regenerated, mut rendered) = helm_project::rbac_for(&chart_refs, &apis, leave_to_exit);
    // The new chart is the last rendered.
    let new_chart_rendered = rendered.pop().unwrap_or_default();
    for warning in &regenerated.warnings {
        ui.warn(warning);
    }

    let role_text = read(root, "deploy/role.yaml")?;
    let existing = rbac::roles_from_yaml(&role_text).map_err(|e| {
        usage(format!(
            "deploy/role.yaml cannot be merged automatically: {e}"
        ))
    })?;
    let had_cluster_role = existing.cluster_role.is_some();
    let rules = rbac::merge(&existing.role.unwrap_or_default(), &regenerated.rules);
    let cluster_rules = rbac::merge(
        &existing.cluster_role.unwrap_or_default(),
        &regenerated.cluster_rules,
    );
    let mut reasons = regenerated.cluster_reasons.clone();
    if reasons.is_empty() && !cluster_rules.is_empty() {
        reasons.push("the rules kept from the existing deploy/role.yaml".to_string());
    }
    let role = helm_project::role_spec(&project.project_name, &rules, &cluster_rules, &reasons);
    changes.add("deploy/role.yaml", scaffold::helm::role_file(&role)?);

    // The binding file is rewritten only when it lacks a binding for one of the roles.
    let bindings = read(root, "deploy/role_binding.yaml")?;
    let binds = |kind: &str| {
        bindings
            .lines()
            .any(|l| l.trim_end() == format!("kind: {kind}"))
    };
    if !binds("RoleBinding") || (!cluster_rules.is_empty() && !binds("ClusterRoleBinding")) {
        changes.add(
            "deploy/role_binding.yaml",
            scaffold::helm::role_binding_file(&role)?,
        );
    }
    let scope_change =
        (!had_cluster_role && !cluster_rules.is_empty()).then_some(regenerated.cluster_reasons);
    Ok((scope_change, new_chart_rendered))
}

fn report(
    ui: &Ui,
    api: &ApiNames,
    chart: &Chart,
    chart_is_new: bool,
    new_cluster_role: Option<Vec<String>>,
    sample_values: Option<&str>,
    applied: &Applied,
) {
    ui.headline(format!(
        "Added {} ({}/{}) reconciled with chart {}",
        api.kind,
        api.group,
        api.version,
        chart.name()
    ));
    if !chart_is_new {
        ui.info(format!(
            "  the chart {} was already in the project and is shared",
            chart.name()
        ));
    }
    if let Some(reasons) = new_cluster_role {
        ui.info(format!(
            "  deploy/role.yaml now has a ClusterRole, and deploy/role_binding.yaml its ClusterRoleBinding, for what a Role cannot grant: {}",
            reasons.join(", ")
        ));
    }
    if let Some(file) = sample_values {
        ui.info(format!(
            "  the sample custom resource is the chart's values.yaml merged with its {file}"
        ));
    }
    report_applied(ui, applied);
}
