//! The steps `new` and `create api` share for Helm projects: getting the chart, deriving the
//! CRD schema from it, and deriving the operator's RBAC from every chart of the project.

use anyhow::Context as _;

use super::inputs::{self, ApiNames};
use crate::chart::{self, Chart, ChartError, ChartSource, ResolveError};
use crate::cli::ApiArgs;
use crate::cli::ChartSourceArgs;
use crate::error::usage;
use crate::names::Kind;
use crate::rbac;
use crate::render::probe::{ProbeOptions, ValuesRendered};
use crate::scaffold;
use crate::schema::{self, SpecSchema};
use crate::ui::Ui;

/// What a chart is loaded for, which decides the ways on when Helm cannot load it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChartUse {
    /// Copied into a project (`new`, `create api`), where `--set-chart-version` can stamp it.
    Project,
    /// Rendered as it is (`template`).
    Render,
}

/// The chart a user named with `--helm-chart` (a directory, .tgz, repo/name, URL or oci://),
/// with its dependencies in `charts/`, or `None` when they named none. Everything is fetched
/// and verified here, before any project file is written.
pub fn load_user_chart(
    ui: &Ui,
    reference: Option<&str>,
    set_version: Option<&str>,
    remote: &ChartSourceArgs,
    purpose: ChartUse,
) -> anyhow::Result<Option<Chart>> {
    let Some(reference) = reference else {
        return Ok(None);
    };
    let source = ChartSource::parse(
        reference,
        remote.helm_chart_version.as_deref(),
        remote.helm_chart_repo.as_deref(),
    )
    .map_err(usage)?;
    let options = chart::ResolveOptions::from_env(remote.plain_http);
    let bar = if source.is_remote() {
        ui.download_bar(format!("Fetching chart {}", source.describe()))
    } else {
        ui.spinner(format!("Reading chart {reference}"))
    };
    let resolved = chart::resolve_with(&source, &options, set_version, &|done, total| {
        Ui::download_progress(&bar, done, total)
    });
    bar.finish_and_clear();
    match resolved {
        Ok(resolved) => {
            for warning in &resolved.warnings {
                ui.warn(warning);
            }
            if let (true, Some(version)) = (source.is_remote(), &resolved.version) {
                ui.info(format!(
                    "Fetched chart {} {version} from {}",
                    resolved.chart.name(),
                    resolved.chart.origin
                ));
            }
            for dependency in &resolved.fetched_dependencies {
                ui.info(format!("Fetched dependency {dependency}"));
            }
            if let (false, Some(version)) = (resolved.stamped.is_empty(), set_version) {
                ui.info(format!(
                    "Wrote {} into the copied helm-charts/{}/Chart.yaml; the rest of the chart is unchanged",
                    resolved
                        .stamped
                        .iter()
                        .map(|key| format!("{key}: {version}"))
                        .collect::<Vec<_>>()
                        .join(" and "),
                    resolved.chart.name()
                ));
            }
            Ok(Some(resolved.chart))
        }
        Err(ResolveError::Chart(ChartError::Unloadable { origin, refusal })) => Err(usage(
            unloadable_message(&origin, &refusal, source.is_remote(), purpose),
        )),
        // The argument does not name a chart at all: that is how the command was called.
        Err(ResolveError::Chart(e @ (ChartError::Missing(_) | ChartError::NoChartYaml(_)))) => {
            Err(usage(format!("--helm-chart: {e}")))
        }
        Err(e) if e.is_usage() => Err(usage(e)),
        Err(e) => Err(anyhow::Error::new(e).context(format!("--helm-chart {reference}"))),
    }
}

/// Why a chart Helm refuses cannot be used, what it would do to the operator, and the ways on.
fn unloadable_message(
    origin: &str,
    refusal: &chart::Refusal,
    remote: bool,
    purpose: ChartUse,
) -> String {
    let path = std::path::Path::new(origin);
    let file = if path.is_dir() {
        path.join(&refusal.file).display().to_string()
    } else {
        format!("{} in {origin}", refusal.file)
    };
    let mut message = format!("{file}: {refusal}\n");
    if purpose == ChartUse::Render {
        let release = if remote {
            "use another release of the chart (--chart-version)"
        } else {
            "use a packaged release of the chart (REPO/NAME after `helm repo add`, or its released .tgz)"
        };
        let fix = if refusal.cured_by_version {
            format!("write a semver version into {file}")
        } else {
            format!("correct {file}")
        };
        message.push_str(&format!(
            "Helm cannot load this chart, so `helm template` refuses it too.\nEither {release}, or {fix}."
        ));
        return message;
    }
    if refusal.stops_operator {
        message.push_str(
            "Helm cannot load this chart. The helm-operator loads every chart of watches.yaml when it starts and exits when one fails, so the operator would crash-loop and none of its kinds would be reconciled.\n",
        );
    } else {
        message.push_str("Helm does not support this chart (`helm lint` refuses it).\n");
    }
    let release = if remote {
        "use another release of the chart (--helm-chart-version)"
    } else {
        "use a packaged release of the chart (--helm-chart=REPO/NAME after `helm repo add`, or its released .tgz)"
    };
    if refusal.cured_by_version {
        message.push_str(&format!(
            "Either {release}, or pass --set-chart-version=VERSION (for example --set-chart-version=1.0.0) to write that version into the copied Chart.yaml and change nothing else."
        ));
    } else {
        message.push_str(&format!("Either {release}, or correct {file}."));
    }
    message
}

/// The chart `--helm-chart` names (or the starter chart) and the names of its Kind, whose
/// defaults come from the chart: the kind from its name, the group `charts.<domain>`.
pub fn chart_and_names(ui: &Ui, args: &ApiArgs, domain: &str) -> anyhow::Result<(Chart, ApiNames)> {
    let user_chart = load_user_chart(
        ui,
        args.helm_chart.as_deref(),
        args.set_chart_version.as_deref(),
        &args.chart_source,
        ChartUse::Project,
    )?;
    let default_kind = user_chart.as_ref().map(kind_from_chart).transpose()?;
    let api = inputs::api_names(
        ui,
        args.kind.as_deref(),
        default_kind,
        args.api_version.as_deref(),
        &format!("charts.{domain}"),
        args.plural.as_deref(),
    )?;
    let chart = match user_chart {
        Some(chart) => chart,
        None => starter_chart(&api.kind)?,
    };
    Ok((chart, api))
}

/// The starter chart: like `helm create`, named after the kind.
pub fn starter_chart(kind: &Kind) -> anyhow::Result<Chart> {
    let files = scaffold::helm::default_chart_files(&kind.lower())?;
    Ok(Chart::from_files("the starter chart", files)?)
}

/// The kind a chart suggests when `--kind` is absent.
pub fn kind_from_chart(chart: &Chart) -> anyhow::Result<Kind> {
    Kind::from_chart_name(chart.name()).map_err(|_| {
        usage(format!(
            "the chart name \"{}\" does not make a valid kind; pass --kind",
            chart.name()
        ))
    })
}

/// The `spec` schema of the CRD: from `values.schema.json` when the chart has one, else
/// inferred from `values.yaml`.
pub fn spec_schema(chart: &Chart) -> anyhow::Result<SpecSchema> {
    match chart
        .values_schema()
        .with_context(|| format!("chart {}", chart.origin))?
    {
        Some(values_schema) => Ok(schema::from_values_schema(&values_schema)),
        None => {
            let values: serde_json::Value =
                crate::yaml::from_str(&chart.values_text()).map_err(|e| {
                    anyhow::anyhow!(
                        "values.yaml of chart {} is not valid YAML: {e}",
                        chart.origin
                    )
                })?;
            Ok(schema::infer_from_values(&values))
        }
    }
}

/// An API served by `chart` (copied to `chart_dir`), with its CRD schema derived from the
/// chart's values, and its files: the CRD and the sample custom resource.
pub fn api_and_files<'c>(
    api: &ApiNames,
    chart: &'c Chart,
    chart_dir: &str,
) -> anyhow::Result<(scaffold::helm::HelmApi<'c>, scaffold::FilePlan)> {
    let helm_api = scaffold::helm::HelmApi {
        group: api.group.to_string(),
        version: api.version.to_string(),
        kind: api.kind.to_string(),
        plural: api.plural.clone(),
        chart,
        chart_dir: chart_dir.to_string(),
        spec_schema: spec_schema(chart)?,
        sample_spec: None,
    };
    let mut files = scaffold::FilePlan::new();
    scaffold::helm::add_api_files(&mut files, &helm_api)?;
    Ok((helm_api, files))
}

/// A warning for schema places that had to accept any value, if any.
pub fn relaxed_warning(api: &ApiNames, schema: &SpecSchema) -> Option<String> {
    (!schema.relaxed.is_empty()).then(|| {
        format!(
            "{}: {} place(s) of the chart's values schema cannot be expressed in a CRD schema and accept any value; see the comments in the CRD file",
            api.kind,
            schema.relaxed.len()
        )
    })
}

/// The operator's RBAC for all its charts and custom resources, and which of the values tried
/// each chart renders with (in the order of `charts`), each chart rendered as `options` ask.
pub fn rbac_for(
    charts: &[&Chart],
    apis: &[(&str, &str)],
    options: ProbeOptions<'_>,
) -> (rbac::RbacPlan, Vec<ValuesRendered>) {
    let (scans, rendered): (Vec<chart::kinds::KindScan>, Vec<ValuesRendered>) = charts
        .iter()
        .map(|c| rbac::from_render::scan_and_render_with(c, options))
        .unzip();
    let scan_refs: Vec<&chart::kinds::KindScan> = scans.iter().collect();
    let owned: Vec<rbac::OwnedApi> = apis
        .iter()
        .map(|(group, plural)| rbac::OwnedApi {
            group: group.to_string(),
            plural: plural.to_string(),
        })
        .collect();
    (rbac::helm_operator_rules(&scan_refs, &owned), rendered)
}

/// `--sample-values`, checked before any slow work: one of the chart's own `ci/*.yaml` files
/// (the values the render tries besides the defaults), as a path in the chart.
pub fn check_sample_values(
    chart: &Chart,
    requested: Option<&str>,
) -> anyhow::Result<Option<String>> {
    let Some(requested) = requested else {
        return Ok(None);
    };
    let path = requested.trim_start_matches("./");
    let ci_files: Vec<&str> = chart
        .files
        .keys()
        .map(String::as_str)
        .filter(|p| is_ci_values_file(p))
        .collect();
    if ci_files.contains(&path) {
        return Ok(Some(path.to_string()));
    }
    let listed = if ci_files.is_empty() {
        "it has none".to_string()
    } else {
        format!("it has {}", ci_files.join(", "))
    };
    Err(usage(format!(
        "--sample-values={requested}: not one of the ci/*.yaml files of chart {} ({listed}); name one by its path in the chart, for example --sample-values=ci/NAME.yaml",
        chart.name()
    )))
}

/// A values file directly under the chart's `ci/`, as the render tries them.
fn is_ci_values_file(path: &str) -> bool {
    path.strip_prefix("ci/").is_some_and(|name| {
        !name.contains('/') && (name.ends_with(".yaml") || name.ends_with(".yml"))
    })
}

/// The `ci/` file the sample custom resource starts from, if any: the one `--sample-values`
/// named (`requested`, which must render), else, when the chart's defaults do not render and a
/// `ci/` file does, that file if the user says yes at the prompt. Without a terminal (or with
/// `--yes`) nothing is chosen, and the warning returned says what to pass; a sample left with
/// defaults that do not render gets a warning too. `before_asking` runs just before the
/// question, for a caller with files to take off the disk while the user thinks (Ctrl-C at the
/// question ends the process without unwinding).
pub fn sample_values(
    ui: &Ui,
    chart: &Chart,
    requested: Option<String>,
    rendered: &ValuesRendered,
    before_asking: &mut dyn FnMut(),
) -> anyhow::Result<SampleValues> {
    if let Some(file) = requested {
        if let Some((_, error)) = rendered.ci_errors.iter().find(|(f, _)| *f == file) {
            return Err(usage(format!(
                "--sample-values={file}: chart {} does not render with its default values merged with {file}, so a sample custom resource made from them would fail on its first reconcile: {}",
                chart.name(),
                one_line(error)
            )));
        }
        return Ok(SampleValues {
            file: Some(file),
            warning: None,
        });
    }
    if rendered.defaults_error.is_none() {
        return Ok(SampleValues::default());
    }
    let unchanged = SampleValues {
        file: None,
        warning: Some(format!(
            "the sample custom resource has the default values of chart {}, which do not render: set what the chart asks for in its spec before `operator-rs deploy --with-sample`",
            chart.name()
        )),
    };
    let Some(first) = rendered.ci_files.first() else {
        return Ok(unchanged);
    };
    let others = match &rendered.ci_files[1..] {
        [] => String::new(),
        rest => format!(" (so do {})", rest.join(", ")),
    };
    if ui.is_interactive() {
        before_asking();
        let yes = ui.confirm(&format!(
            "Chart {} does not render with its default values, but with its {first} merged over them it does{others}. Write the sample custom resource from the defaults merged with {first}?",
            chart.name()
        ))?;
        return Ok(if yes {
            SampleValues {
                file: Some(first.clone()),
                warning: None,
            }
        } else {
            unchanged
        });
    }
    Ok(SampleValues {
        file: None,
        warning: Some(format!(
            "chart {} renders with its default values merged with its {first}{others}: pass --sample-values={first} to write the sample custom resource from them, so that `operator-rs deploy --with-sample` installs a release",
            chart.name()
        )),
    })
}

/// What [`sample_values`] chose, or what to tell the user instead.
#[derive(Debug, Default)]
pub struct SampleValues {
    /// The chart's values file the sample starts from, besides its defaults.
    pub file: Option<String>,
    /// What the user still has to do for a sample that renders (which file to pass, or what
    /// to set).
    pub warning: Option<String>,
}

/// The API's files with the sample's spec made from the chart's defaults merged with its values
/// file `file` (see [`scaffold::helm::merged_sample_spec_block`]).
pub fn use_sample_values(
    api: &mut scaffold::helm::HelmApi<'_>,
    files: &mut scaffold::FilePlan,
    file: &str,
) -> anyhow::Result<()> {
    let file_text = api
        .chart
        .files
        .get(file)
        .map(|bytes| crate::text::lossy(bytes).into_owned())
        .unwrap_or_default();
    let block =
        scaffold::helm::merged_sample_spec_block(&api.chart.values_text(), file, &file_text)
            .map_err(|e| usage(format!("--sample-values={file}: {e}")))?;
    api.sample_spec = Some(block);
    scaffold::helm::add_api_files(files, api)?;
    Ok(())
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The inputs of `deploy/role.yaml` and `deploy/role_binding.yaml`: a Role with `rules`, and a
/// ClusterRole with `cluster_rules` when there are any.
pub fn role_spec(
    project_name: &str,
    rules: &[rbac::Rule],
    cluster_rules: &[rbac::Rule],
    cluster_reasons: &[String],
) -> scaffold::helm::RoleSpec {
    let document = |rules: &[rbac::Rule]| scaffold::helm::RoleDocument {
        rules_yaml: rbac::rules_yaml(rules),
        checkov_skips: role_checkov_skips(rules),
    };
    scaffold::helm::RoleSpec {
        project_name: project_name.to_string(),
        role: document(rules),
        cluster_role: (!cluster_rules.is_empty()).then(|| document(cluster_rules)),
        cluster_reasons: cluster_reasons.to_vec(),
    }
}

/// checkov checks on a role that the helm-operator cannot satisfy, each with its reason.
pub fn role_checkov_skips(rules: &[rbac::Rule]) -> Vec<String> {
    let grants = |resource: &str, verb: &str| {
        rules
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
    let webhooks = [
        "mutatingwebhookconfigurations",
        "validatingwebhookconfigurations",
    ];
    if webhooks
        .iter()
        .any(|w| ["create", "patch", "update"].iter().any(|v| grants(w, v)))
    {
        skips.push("CKV_K8S_155=the chart creates admission webhook configurations, which the operator installs and upgrades".to_string());
    }
    skips
}
