//! The files of a Helm operator project (operator-sdk's Helm layout).

use std::collections::BTreeMap;

use serde::Serialize;

use super::templates::{self, TemplateError};
use super::{FilePlan, common};
use crate::chart::Chart;
use crate::project::HelmRuntime;
use crate::schema::SpecSchema;

/// The helm-operator image the generated Dockerfile builds on: the newest v1 release whose
/// tag we could confirm (operator-sdk v1.42.3, June 2026), with the flags `deploy/operator.yaml` passes.
pub const HELM_OPERATOR_VERSION: &str = "v1.42.3";
pub const HELM_OPERATOR_IMAGE: &str = "quay.io/operator-framework/helm-operator:v1.42.3";

/// One Kind served by a chart.
pub struct HelmApi<'a> {
    pub group: String,
    pub version: String,
    pub kind: String,
    pub plural: String,
    pub chart: &'a Chart,
    /// The chart's directory in the project: `helm-charts/<name>`.
    pub chart_dir: String,
    pub spec_schema: SpecSchema,
    /// The sample's `spec:` block when it is not the chart's values.yaml as written (see
    /// [`merged_sample_spec_block`]).
    pub sample_spec: Option<String>,
}

pub struct HelmProject<'a> {
    pub name: String,
    pub runtime: HelmRuntime,
    pub apis: Vec<HelmApi<'a>>,
    pub rbac: RoleSpec,
}

#[derive(Serialize)]
struct WatchEntry<'a> {
    group: &'a str,
    version: &'a str,
    kind: &'a str,
    plural: &'a str,
    chart: &'a str,
    /// The chart's templates call `lookup`: the upgrade's dry run must see the cluster.
    dry_run_on_server: bool,
}

impl<'a> From<&'a HelmApi<'a>> for WatchEntry<'a> {
    fn from(api: &'a HelmApi<'a>) -> Self {
        WatchEntry {
            group: &api.group,
            version: &api.version,
            kind: &api.kind,
            plural: &api.plural,
            chart: &api.chart_dir,
            dry_run_on_server: crate::chart::kinds::calls_lookup(api.chart),
        }
    }
}

/// One Role or ClusterRole document of `deploy/role.yaml`.
pub struct RoleDocument {
    /// The `rules:` block, with its comments.
    pub rules_yaml: String,
    /// checkov checks that do not apply to it, each `CHECK=reason`.
    pub checkov_skips: Vec<String>,
}

/// The RBAC files' inputs, shared by `new` and `create api`: a Role, and a ClusterRole only
/// when something needs cluster scope.
pub struct RoleSpec {
    pub project_name: String,
    pub role: RoleDocument,
    pub cluster_role: Option<RoleDocument>,
    /// Why there is a ClusterRole, one phrase each.
    pub cluster_reasons: Vec<String>,
}

fn role_context(role: &RoleSpec) -> templates::Context {
    let mut context = templates::Context::new();
    context.insert("project_name", &role.project_name);
    // The shared binding template adds the ClusterRoleBinding when this is set.
    context.insert("cluster_scoped", &role.cluster_role.is_some());
    let header = crate::rbac::comment_lines(&format!(
        "A ClusterRole for only what a Role cannot grant: {}.",
        role.cluster_reasons.join(", ")
    ));
    context.insert("cluster_header", header.trim_end());
    context.insert("rules_yaml", role.role.rules_yaml.trim_end());
    context.insert("checkov_skips", &role.role.checkov_skips);
    let cluster = role.cluster_role.as_ref();
    context.insert(
        "cluster_rules_yaml",
        cluster.map_or("", |c| c.rules_yaml.trim_end()),
    );
    let no_skips: &[String] = &[];
    context.insert(
        "cluster_checkov_skips",
        cluster.map_or(no_skips, |c| &c.checkov_skips),
    );
    context
}

/// `deploy/role.yaml`
pub fn role_file(role: &RoleSpec) -> Result<String, TemplateError> {
    templates::render("helm/deploy/role.yaml.tera", &role_context(role))
}

/// `deploy/role_binding.yaml`
pub fn role_binding_file(role: &RoleSpec) -> Result<String, TemplateError> {
    templates::render("common/deploy/role_binding.yaml.tera", &role_context(role))
}

/// One entry of `watches.yaml`, to append to an existing file.
pub fn watches_entry(api: &HelmApi) -> Result<String, TemplateError> {
    let mut context = templates::Context::new();
    context.insert("api", &WatchEntry::from(api));
    templates::render("helm/watches_entry.yaml.tera", &context)
}

/// Every file of a new Helm operator project except `PROJECT`, which `commands` writes; the
/// files of each API ([`add_api_files`]), which `commands` makes while the chart renders for
/// the role; and the files of its charts, which are written as they are from each API's chart
/// (see [`super::write::Staging::write_tree`]) rather than copied into the plan.
pub fn plan(project: &HelmProject) -> Result<FilePlan, TemplateError> {
    let mut plan = FilePlan::new();
    let role = &project.rbac;
    let mut context = role_context(role);
    context.insert("helm_operator_image", HELM_OPERATOR_IMAGE);
    context.insert("helm_operator_version", HELM_OPERATOR_VERSION);
    // The published base image of this operator-rs; `build` makes one locally when it can.
    context.insert(
        "operator_rs_base_image",
        &crate::image::base_image::published(),
    );
    context.insert("runtime", project.runtime.as_str());
    let watches: Vec<WatchEntry> = project.apis.iter().map(WatchEntry::from).collect();
    context.insert("apis", &watches);
    let crd_files: Vec<String> = project.apis.iter().map(crd_file_name).collect();
    context.insert("crd_files", &crd_files);

    plan.add(
        "README.md",
        templates::render("helm/README.md.tera", &context)?,
    );
    plan.add(
        "watches.yaml",
        templates::render("helm/watches.yaml.tera", &context)?,
    );
    plan.add(
        "build/Dockerfile",
        templates::render(dockerfile_template(project.runtime), &context)?,
    );
    plan.add(
        "deploy/operator.yaml",
        templates::render("helm/deploy/operator.yaml.tera", &context)?,
    );
    plan.add("deploy/role.yaml", role_file(role)?);
    common::add_shared_files(&mut plan, &context)?;
    Ok(plan)
}

/// The image's recipe: the helm-operator image, or the operator-rs binary on a small base.
fn dockerfile_template(runtime: HelmRuntime) -> &'static str {
    match runtime {
        HelmRuntime::HelmOperator => "helm/build/Dockerfile.tera",
        HelmRuntime::OperatorRs => "helm/build/Dockerfile-operator-rs.tera",
    }
}

/// The runtime a Helm project's build/Dockerfile is made for, told by the default of its
/// `ARG BASE_IMAGE=` (the helm-operator image, or operator-rs's base image of any version),
/// with that default; `None` for a Dockerfile that names neither, which is the user's own.
pub fn dockerfile_runtime(dockerfile: &str) -> Option<(HelmRuntime, String)> {
    let base = dockerfile.lines().find_map(|line| {
        line.trim()
            .strip_prefix("ARG BASE_IMAGE=")
            .map(|value| value.trim().trim_matches('"').to_string())
    })?;
    // The repository, whatever the tag: a Dockerfile from an older operator-rs counts too.
    let names =
        |repository: &str| base == repository || base.starts_with(&format!("{repository}:"));
    let helm_operator = HELM_OPERATOR_IMAGE
        .rsplit_once(':')
        .map_or(HELM_OPERATOR_IMAGE, |(repository, _)| repository);
    let runtime = if names(helm_operator) {
        HelmRuntime::HelmOperator
    } else if names(crate::image::base_image::REPOSITORY) {
        HelmRuntime::OperatorRs
    } else {
        return None;
    };
    Some((runtime, base))
}

/// `deploy/crds/<group>_<plural>_crd.yaml`
pub fn crd_file_name(api: &HelmApi) -> String {
    format!("{}_{}_crd.yaml", api.group, api.plural)
}

/// `deploy/crds/<group>_<version>_<kind lower>_cr.yaml`
pub fn sample_file_name(api: &HelmApi) -> String {
    format!(
        "{}_{}_{}_cr.yaml",
        api.group,
        api.version,
        api.kind.to_ascii_lowercase()
    )
}

/// The CRD and the sample custom resource of one API.
pub fn add_api_files(plan: &mut FilePlan, api: &HelmApi) -> Result<(), TemplateError> {
    let mut context = templates::Context::new();
    context.insert("group", &api.group);
    context.insert("version", &api.version);
    context.insert("kind", &api.kind);
    context.insert("plural", &api.plural);
    context.insert("singular", &api.kind.to_ascii_lowercase());
    context.insert("chart_name", api.chart.name());
    let schema_source = if api.chart.files.contains_key("values.schema.json") {
        "the chart's values.schema.json"
    } else {
        "the chart's values.yaml (types inferred; unknown keys allowed)"
    };
    context.insert("schema_source", schema_source);
    context.insert("relaxed", &api.spec_schema.relaxed);
    context.insert(
        "spec_schema",
        &indent(&crate::yaml::to_string(&api.spec_schema.schema), 14),
    );
    context.insert("sample_name", &format!("{}-sample", heck_kebab(&api.kind)));
    let spec_block = match &api.sample_spec {
        Some(block) => block.clone(),
        None => sample_spec_block(&api.chart.values_text()),
    };
    context.insert("spec_block", &spec_block);
    plan.add(
        format!("deploy/crds/{}", crd_file_name(api)),
        templates::render("helm/deploy/crd.yaml.tera", &context)?,
    );
    plan.add(
        format!("deploy/crds/{}", sample_file_name(api)),
        templates::render("helm/deploy/cr.yaml.tera", &context)?,
    );
    Ok(())
}

fn heck_kebab(kind: &str) -> String {
    heck::ToKebabCase::to_kebab_case(kind)
}

/// The sample's `spec:` block: the chart's values.yaml text, indented under `spec:`, so its
/// comments and key order stay as the chart author wrote them.
pub fn sample_spec_block(values_text: &str) -> String {
    let text = values_text.trim_start_matches('\u{feff}');
    let lines: Vec<&str> = text
        .lines()
        // Document markers would end the sample's document.
        .filter(|line| {
            let trimmed = line.trim_end();
            trimmed != "---" && trimmed != "..." && !trimmed.starts_with("%YAML")
        })
        .collect();
    let has_content = lines.iter().any(|line| {
        let trimmed = line.trim();
        !trimmed.is_empty() && !trimmed.starts_with('#')
    });
    if !has_content {
        return "spec: {}".to_string();
    }
    let mut block = String::from("spec:\n");
    for line in lines {
        if line.trim().is_empty() {
            block.push('\n');
        } else {
            block.push_str("  ");
            block.push_str(line.trim_end());
            block.push('\n');
        }
    }
    block.trim_end().to_string()
}

/// The sample's `spec:` block from the chart's defaults (`values_text`) merged with the values
/// file `file` of the chart (its text `file_text`), as Helm merges a values file over them: maps
/// key by key, anything else replaced, a `null` removing the default. A comment above it says
/// so; the values are written as plain YAML, in the defaults' order, without their comments.
pub fn merged_sample_spec_block(
    values_text: &str,
    file: &str,
    file_text: &str,
) -> Result<String, String> {
    let read =
        |name: &str, text: &str| -> Result<serde_json::Map<String, serde_json::Value>, String> {
            let documents: Vec<serde_json::Value> = crate::yaml::from_str_multi_yaml11(text)
                .map_err(|e| format!("{name} is not valid YAML: {e}"))?;
            let mut values = serde_json::Map::new();
            for document in documents {
                match document {
                    // Later documents are merged over earlier ones, their nulls kept for the
                    // merge over the defaults.
                    serde_json::Value::Object(map) => merge_values(&mut values, map, false),
                    serde_json::Value::Null => {}
                    _ => return Err(format!("{name} is not a map of values")),
                }
            }
            Ok(values)
        };
    let mut values = read("values.yaml", values_text)?;
    merge_values(&mut values, read(file, file_text)?, true);
    let comment = format!(
        "# This spec is the chart's values.yaml merged with its {file}, values the chart's\n# authors test it with (`--sample-values`).\n"
    );
    if values.is_empty() {
        return Ok(format!("{comment}spec: {{}}"));
    }
    let values = serde_json::Value::Object(values);
    let mut yaml = crate::yaml::to_string(&values);
    // The API server reads the sample as YAML 1.1 does (kubectl, client-go): a string the
    // writer left bare that reads back as something else ("on", "0644") would change its type.
    let reads_back =
        crate::yaml::from_str_yaml11::<serde_json::Value>(&yaml).is_ok_and(|back| back == values);
    if !reads_back {
        yaml = serde_json::to_string_pretty(&values).map_err(|e| e.to_string())?;
    }
    Ok(format!("{comment}spec:\n{}", indent(&yaml, 2)))
}

/// `from` over `into`, maps key by key; with `delete_nulls`, as Helm coalesces a values file
/// over the defaults, a `null` removes the key.
fn merge_values(
    into: &mut serde_json::Map<String, serde_json::Value>,
    from: serde_json::Map<String, serde_json::Value>,
    delete_nulls: bool,
) {
    for (key, value) in from {
        match (into.get_mut(&key), value) {
            (_, serde_json::Value::Null) if delete_nulls => {
                into.remove(&key);
            }
            (Some(serde_json::Value::Object(old)), serde_json::Value::Object(new)) => {
                merge_values(old, new, delete_nulls);
            }
            (_, value) => {
                into.insert(key, value);
            }
        }
    }
}

/// Indents every non-empty line by `width` spaces.
pub fn indent(text: &str, width: usize) -> String {
    let pad = " ".repeat(width);
    // One buffer for the whole text: a CRD schema runs to thousands of lines.
    let mut out = String::with_capacity(text.len() + text.len() / 4);
    for (index, line) in text.trim_end().lines().enumerate() {
        if index > 0 {
            out.push('\n');
        }
        if !line.is_empty() {
            out.push_str(&pad);
            out.push_str(line);
        }
    }
    out
}

/// The starter chart (like `helm create`), named `chart_name`. As `helm create` does, the
/// `<CHARTNAME>` placeholder is replaced in every file; nothing goes through Tera, the engine
/// of the project's templates, whose braces would collide with the chart's Go templates.
pub fn default_chart_files(chart_name: &str) -> Result<BTreeMap<String, Vec<u8>>, TemplateError> {
    let files = templates::raw_tree("helm/default-chart")?;
    Ok(files
        .into_iter()
        .map(|(path, bytes)| {
            let text = crate::text::lossy(&bytes).replace("<CHARTNAME>", chart_name);
            (path, text.into_bytes())
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dockerfile_tells_its_runtime_by_its_base() {
        for runtime in [HelmRuntime::HelmOperator, HelmRuntime::OperatorRs] {
            let mut context = templates::Context::new();
            context.insert("helm_operator_image", HELM_OPERATOR_IMAGE);
            context.insert("helm_operator_version", HELM_OPERATOR_VERSION);
            context.insert(
                "operator_rs_base_image",
                &crate::image::base_image::published(),
            );
            let text = templates::render(dockerfile_template(runtime), &context).unwrap();
            assert_eq!(dockerfile_runtime(&text).map(|(r, _)| r), Some(runtime));
        }
        let older = "ARG BASE_IMAGE=ghcr.io/operator-rs/operator-rs:0.0.1\nFROM ${BASE_IMAGE}\n";
        assert_eq!(
            dockerfile_runtime(older),
            Some((
                HelmRuntime::OperatorRs,
                "ghcr.io/operator-rs/operator-rs:0.0.1".to_string()
            ))
        );
        for own in [
            "FROM quay.io/operator-framework/helm-operator:v1.42.3\n",
            "ARG BASE_IMAGE=registry.example.com/mirror/helm-operator:v1\n",
            "ARG BASE_IMAGE=quay.io/operator-framework/helm-operator-fork:v1\n",
        ] {
            assert_eq!(dockerfile_runtime(own), None, "{own}");
        }
    }

    #[test]
    fn sample_spec_keeps_comments_and_order() {
        let block = sample_spec_block("# top\nb: 1\n\na:\n  # inner\n  c: [1]\n");
        assert_eq!(
            block,
            "spec:\n  # top\n  b: 1\n\n  a:\n    # inner\n    c: [1]"
        );
        assert_eq!(sample_spec_block("# only comments\n\n"), "spec: {}");
        assert_eq!(sample_spec_block("---\na: 1\n"), "spec:\n  a: 1");
    }

    #[test]
    fn a_merged_sample_spec_keeps_the_defaults_order_and_the_files_values() {
        let block = merged_sample_spec_block(
            "# the host\nhost: \"\"\nport: 80\ntls:\n  enabled: false\n  secret: x\nextra: 1\n",
            "ci/tls-values.yaml",
            "host: example.com\ntls:\n  enabled: true\nextra: null\nmode: \"0644\"\nflag: \"on\"\n",
        )
        .unwrap();
        let (comment, spec) = block.split_once("spec:\n").unwrap();
        assert!(
            comment.contains("merged with its ci/tls-values.yaml"),
            "{comment}"
        );
        assert!(comment.lines().all(|l| l.starts_with("# ")), "{comment}");
        let spec: serde_json::Value = crate::yaml::from_str_yaml11(spec).unwrap();
        assert_eq!(
            spec,
            serde_json::json!({
                "host": "example.com",
                "port": 80,
                "tls": {"enabled": true, "secret": "x"},
                "mode": "0644",
                "flag": "on",
            })
        );
        let keys: Vec<&String> = spec.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["host", "port", "tls", "mode", "flag"]);
        assert!(
            merged_sample_spec_block("a: 1\n", "ci/x.yaml", "a: null\n")
                .unwrap()
                .ends_with("spec: {}")
        );
        assert!(merged_sample_spec_block("a: 1\n", "ci/x.yaml", "- a\n").is_err());
    }

    #[test]
    fn default_chart_is_named() {
        let files = default_chart_files("memcached").unwrap();
        let chart = String::from_utf8(files["Chart.yaml"].clone()).unwrap();
        assert!(chart.contains("name: memcached"), "{chart}");
        assert!(files.contains_key(".helmignore"));
        assert!(
            files
                .values()
                .all(|f| !crate::text::lossy(f).contains("<CHARTNAME>"))
        );
    }
}
