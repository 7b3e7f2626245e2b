//! `operator-rs new --type=helm`: a Helm operator project around a chart (the user's, or the
//! starter chart).

use std::path::PathBuf;
use std::sync::OnceLock;

use super::helm_project;
use super::inputs::{self, ApiNames};
use super::scaffold_errors::{ensure_target_free, write_error};
use crate::chart::Chart;
use crate::cli::NewArgs;
use crate::names::ProjectName;
use crate::project::{HelmRuntime, Project, ProjectType, Resource};
use crate::render::probe::ProbeOptions;
use crate::scaffold::{self, FilePlan, helm::HelmApi};
use crate::ui::Ui;

pub fn run(ui: &Ui, args: &NewArgs, domain: &str) -> anyhow::Result<()> {
    let (chart, api) = helm_project::chart_and_names(ui, &args.api, domain)?;
    let requested_sample =
        helm_project::check_sample_values(&chart, args.api.sample_values.as_deref())?;
    let name = inputs::project_name(ui, args.name.as_deref(), &api.kind)?;
    let target = PathBuf::from(name.as_str());
    ensure_target_free(&target)?;

    // The role comes from rendering the chart, the longest chain of steps: it runs here. What
    // it does not wait on runs on one other thread, one step after the other: the chart, most
    // of the project's bytes, written as it is into the staging directory, then the CRD's files
    // from the values' schema. Any error drops the staging directory, so nothing is left.
    //
    // The CRD's files wait for the render to parse the chart's templates: while it parses,
    // the parse, the scan of the templates and the values' schema check already share the two
    // cores, and the render's execution that follows runs on this thread alone.
    let staging = scaffold::write::Staging::new(&target).map_err(write_error)?;
    let chart_dir = format!("helm-charts/{}", chart.name());
    let parsed = OnceLock::new();
    let ((rbac_plan, rendered), (chart_written, api_part)) = std::thread::scope(|scope| {
        let beside = scope.spawn(|| {
            let written = staging.write_tree(&chart_dir, &chart.files);
            parsed.wait();
            (
                written,
                helm_project::api_and_files(&api, &chart, &chart_dir),
            )
        });
        let rbac_plan = {
            // However the render ends (a chart that does not load parses nothing; a panic
            // unwinds through here), the CRD's files are not left waiting.
            let _done = SetOnDrop(&parsed);
            helm_project::rbac_for(
                &[&chart],
                &[(api.group.as_str(), api.plural.as_str())],
                ProbeOptions {
                    templates_parsed: &|| {
                        let _ = parsed.set(());
                    },
                    // new exits when it is done (see the option's figures).
                    leave_chart_to_exit: true,
                },
            )
        };
        let beside = beside
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (rbac_plan, beside)
    });
    let (mut helm_api, mut api_files) = api_part?;
    let mut staged = Some((staging, chart_written));
    let sample = match rendered.first() {
        Some(rendered) => {
            helm_project::sample_values(ui, &chart, requested_sample, rendered, &mut || {
                // Nothing stays on disk while the user thinks: Ctrl-C at the question ends the
                // process without dropping the staging directory.
                staged = None;
            })?
        }
        None => helm_project::SampleValues {
            file: requested_sample,
            warning: None,
        },
    };
    let (staging, chart_written) = match staged {
        Some(staged) => staged,
        None => {
            let staging = scaffold::write::Staging::new(&target).map_err(write_error)?;
            let written = staging.write_tree(&chart_dir, &chart.files);
            (staging, written)
        }
    };
    if let Some(file) = &sample.file {
        helm_project::use_sample_values(&mut helm_api, &mut api_files, file)?;
    }
    let (mut plan, project, mut summary) = helm_plan(
        &name,
        domain,
        &api,
        args.runtime.unwrap_or(HelmRuntime::FOR_NEW_PROJECTS),
        rbac_plan,
        (helm_api, api_files),
        chart_dir,
    )?;
    summary.warnings.extend(sample.warning);
    summary.sample_values = sample.file;
    chart_written.map_err(write_error)?;
    for warning in &summary.warnings {
        ui.warn(warning);
    }
    plan.add(crate::project::PROJECT_FILE, project.to_yaml());
    staging.write_plan(&plan).map_err(write_error)?;
    staging.finish().map_err(write_error)?;
    report(
        ui,
        &name,
        &api,
        &chart,
        &plan,
        &summary,
        project.helm_runtime(),
    );
    Ok(())
}

/// Sets its cell when dropped, unless it is set already.
struct SetOnDrop<'a>(&'a OnceLock<()>);

impl Drop for SetOnDrop<'_> {
    fn drop(&mut self) {
        let _ = self.0.set(());
    }
}

/// What the summary reports besides the files.
struct HelmSummary {
    rule_count: usize,
    cluster_rule_count: usize,
    cluster_reasons: Vec<String>,
    warnings: Vec<String>,
    /// The chart's values file the sample custom resource was made from, besides its defaults.
    sample_values: Option<String>,
}

/// The project's files and `PROJECT` from the role and the API's files made for it.
fn helm_plan(
    name: &ProjectName,
    domain: &str,
    api: &ApiNames,
    runtime: HelmRuntime,
    rbac_plan: crate::rbac::RbacPlan,
    (helm_api, api_files): (HelmApi<'_>, FilePlan),
    chart_dir: String,
) -> anyhow::Result<(FilePlan, Project, HelmSummary)> {
    let mut warnings = Vec::new();
    warnings.extend(rbac_plan.warnings.iter().cloned());
    warnings.extend(helm_project::relaxed_warning(api, &helm_api.spec_schema));

    let project_spec = scaffold::helm::HelmProject {
        name: name.to_string(),
        runtime,
        apis: vec![helm_api],
        rbac: helm_project::role_spec(
            name.as_str(),
            &rbac_plan.rules,
            &rbac_plan.cluster_rules,
            &rbac_plan.cluster_reasons,
        ),
    };
    let mut plan = scaffold::helm::plan(&project_spec)?;
    plan.extend(api_files);

    let mut project = Project::new(ProjectType::Helm, name.as_str(), domain);
    project.runtime = Some(runtime);
    project.resources.push(Resource {
        group: api.group.to_string(),
        version: api.version.to_string(),
        kind: api.kind.to_string(),
        plural: api.plural.clone(),
        chart: Some(chart_dir),
    });
    let summary = HelmSummary {
        rule_count: rbac_plan.rules.len(),
        cluster_rule_count: rbac_plan.cluster_rules.len(),
        cluster_reasons: rbac_plan.cluster_reasons,
        warnings,
        sample_values: None,
    };
    Ok((plan, project, summary))
}

fn report(
    ui: &Ui,
    name: &ProjectName,
    api: &ApiNames,
    chart: &Chart,
    plan: &FilePlan,
    summary: &HelmSummary,
    runtime: HelmRuntime,
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
    if summary.cluster_rule_count == 0 {
        ui.info(format!("  RBAC: Role with {} rules", summary.rule_count));
    } else {
        ui.info(format!(
            "  RBAC: Role with {} rules, ClusterRole with {} rules (cluster-scoped: {})",
            summary.rule_count,
            summary.cluster_rule_count,
            summary.cluster_reasons.join(", ")
        ));
    }
    let own_files = plan
        .paths()
        .filter(|p| !p.starts_with("helm-charts/"))
        .count();
    ui.info(format!(
        "  {own_files} files, plus the chart in helm-charts/{}",
        chart.name()
    ));
    if let Some(file) = &summary.sample_values {
        ui.info(format!(
            "  Sample custom resource: the chart's values.yaml merged with its {file}"
        ));
    }
    if runtime == HelmRuntime::OperatorRs {
        ui.info("  Runtime: operator-rs (build/Dockerfile packages this operator-rs binary with the charts)");
    }
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
