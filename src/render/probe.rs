//! What a chart really renders for the values operator-rs can try on its own: the chart's
//! defaults and each of its `ci/*.yaml` files (the values its authors test with), on the oldest
//! and the newest Kubernetes operator-rs supports.
//!
//! The text scan of the templates (`chart::kinds`) sees every branch of every `if`, but not a
//! kind that comes from values (`kind: {{ .Values.master.kind }}`) nor the namespace an object
//! lands in. A render sees both, for the values tried; the two together are what the operator's
//! role is made from.

use std::collections::BTreeMap;

use serde_json::Value as Json;

use super::capabilities::{Capabilities, KubeVersion};
use super::release::{self, Options};
use super::tree::ChartNode;
use super::values::{self, Values};
use super::version_watch::KubeVersionWatch;
use crate::chart::Chart;
use crate::rbac::removed_apis::OLDEST_SUPPORTED;

/// The namespace the probe renders the release into. The helm-operator installs each release in
/// its custom resource's namespace; a name no chart writes tells an object that follows the
/// release's namespace from one the chart puts somewhere else.
pub const RELEASE_NAMESPACE: &str = "operator-rs-release-namespace";
const RELEASE_NAME: &str = "sample";

/// One object the chart rendered.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct RenderedObject {
    pub api_version: String,
    pub kind: String,
    /// `metadata.namespace` as rendered; empty when the chart leaves it to the release.
    pub namespace: String,
    /// Chart-relative template path (`templates/x.yaml`, `charts/sub/templates/y.yaml`).
    pub template: String,
    /// The values it rendered with (`the default values`, `ci/tls-values.yaml`).
    pub values: String,
}

impl RenderedObject {
    /// Rendered into a namespace of its own rather than the release's.
    pub fn elsewhere(&self) -> bool {
        !self.namespace.is_empty() && self.namespace != RELEASE_NAMESPACE
    }
}

/// A set of values the chart does not render with, and Helm's error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub values: String,
    pub kube_version: String,
    pub error: String,
}

/// Everything the probe renders of a chart.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Probe {
    /// Distinct objects (by kind, namespace, template and values), Helm test hooks left out:
    /// only `helm test` creates those, which the helm-operator never runs.
    pub objects: Vec<RenderedObject>,
    pub failures: Vec<Failure>,
    /// The Kubernetes versions rendered on.
    pub kube_versions: Vec<String>,
    /// The values tried, by their label: the defaults, then each `ci/` file that reads as
    /// values.
    pub values_tried: Vec<String>,
}

impl Probe {
    /// The failure of the chart's own defaults, if they do not render.
    pub fn defaults_failure(&self) -> Option<&Failure> {
        self.failures.iter().find(|f| f.values == DEFAULTS)
    }

    /// Which of the values tried render.
    pub fn values_rendered(&self) -> ValuesRendered {
        let mut rendered = ValuesRendered {
            defaults_error: self.defaults_failure().map(|f| f.error.clone()),
            ..ValuesRendered::default()
        };
        for label in self.values_tried.iter().filter(|label| *label != DEFAULTS) {
            match self.failures.iter().find(|f| &f.values == label) {
                None => rendered.ci_files.push(label.clone()),
                Some(failure) => rendered
                    .ci_errors
                    .push((label.clone(), failure.error.clone())),
            }
        }
        rendered
    }
}

/// Which values a chart renders with, of those the probe tries: its defaults, and each of its
/// `ci/` files, values its authors test it with (a sample custom resource can start from one).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ValuesRendered {
    /// Helm's error when the chart's defaults do not render.
    pub defaults_error: Option<String>,
    /// The `ci/` files that render on every Kubernetes version tried, in path order.
    pub ci_files: Vec<String>,
    /// The `ci/` files that do not, each with Helm's error.
    pub ci_errors: Vec<(String, String)>,
}

const DEFAULTS: &str = "the default values";

/// Renders `chart` (loaded as the helm-operator loads it, from its directory) with each set of
/// values to try, on each supported Kubernetes version that can change the output.
pub fn probe(chart: &Chart) -> Probe {
    probe_with(chart, ProbeOptions::default())
}

/// What the command running a probe asks of it besides the result.
#[derive(Clone, Copy)]
pub struct ProbeOptions<'a> {
    /// Called once, as soon as the chart's templates are all parsed (not at all when the chart
    /// does not load): the renders then only execute them.
    pub templates_parsed: &'a (dyn Fn() + Sync),
    /// Leave the loaded chart to the process's exit instead of freeing it, for a command that
    /// exits as soon as it is done (`new`, `create api`): its parsed templates are hundreds of
    /// thousands of small allocations, and freeing them one by one sits on the command's
    /// critical path. For `new` on redis, a build freeing them took 1.055, 1.066 and 1.073
    /// times as long as one leaving them (median of per-round ratios, `benches/new.sh` with
    /// OPERATOR_RS_BASELINE_BIN, 60, 150 and 300 rounds on a RAM disk) and ~2 ms more CPU per
    /// run (35.3 against 33.3 ms).
    pub leave_chart_to_exit: bool,
}

impl Default for ProbeOptions<'_> {
    fn default() -> Self {
        ProbeOptions {
            templates_parsed: &|| {},
            leave_chart_to_exit: false,
        }
    }
}

/// [`probe`], as `options` ask.
pub fn probe_with(chart: &Chart, options: ProbeOptions<'_>) -> Probe {
    probe_on(chart, false, options)
}

/// [`probe`], rendering on both Kubernetes versions whenever a template mentions
/// `.Capabilities`, even when the first render shows the second would come out the same: what
/// [`probe`] must agree with.
pub fn probe_every_version(chart: &Chart) -> Probe {
    probe_on(chart, true, ProbeOptions::default())
}

fn probe_on(chart: &Chart, every_version: bool, options: ProbeOptions<'_>) -> Probe {
    // The parse the load starts ends with the probe, whichever way the probe ends: a thread
    // still allocating when the process exits would race the allocator's shutdown.
    std::thread::scope(|scope| probe_in(scope, chart, every_version, options))
}

fn probe_in<'scope>(
    scope: &'scope std::thread::Scope<'scope, '_>,
    chart: &Chart,
    every_version: bool,
    options: ProbeOptions<'scope>,
) -> Probe {
    let mut out = Probe::default();
    // The templates parse while the values files are read; the renders wait for them.
    let load = ChartNode::load_beside(chart, true, |tree| {
        super::engine::start_parsing_templates(scope, tree, options.templates_parsed)
    });
    let node = match load {
        Ok(node) => node,
        Err(e) => {
            out.failures.push(Failure {
                values: DEFAULTS.to_string(),
                kube_version: String::new(),
                error: e.to_string(),
            });
            return out;
        }
    };
    let value_sets = value_sets(chart, &mut out);
    out.values_tried = value_sets.iter().map(|(label, _)| label.clone()).collect();
    let oldest = oldest_to_try(chart);
    // The render follows the newest version's string through the templates; the same text
    // written in the chart itself would be taken for it.
    let every_version = every_version || mentions(&node, super::capabilities::DEFAULT_KUBE_VERSION);
    // Renders are independent: spread them over the machine's cores, this thread taking the
    // first share (a thread started for one render, the usual case, only delayed it).
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(value_sets.len())
        .max(1);
    let share = |worker: usize| -> Vec<Rendering> {
        value_sets
            .iter()
            .skip(worker)
            .step_by(workers)
            .flat_map(|(label, values)| {
                render_set(&node, label, values, oldest.as_deref(), every_version)
            })
            .collect()
    };
    let results: Vec<Rendering> = std::thread::scope(|scope| {
        let others: Vec<_> = (1..workers)
            .map(|worker| scope.spawn(move || share(worker)))
            .collect();
        let mut results = share(0);
        for other in others {
            results.extend(
                other
                    .join()
                    .unwrap_or_else(|p| std::panic::resume_unwind(p)),
            );
        }
        results
    });
    if options.leave_chart_to_exit {
        std::mem::forget(node);
    }
    for rendering in results {
        out.objects.extend(rendering.objects);
        out.failures.extend(rendering.failure);
        if !out.kube_versions.contains(&rendering.kube_version) {
            out.kube_versions.push(rendering.kube_version);
        }
    }
    out.kube_versions.sort();
    out.objects.sort();
    out.objects.dedup();
    out.failures.sort_by(|a, b| {
        (a.values != DEFAULTS, &a.values, &a.kube_version).cmp(&(
            b.values != DEFAULTS,
            &b.values,
            &b.kube_version,
        ))
    });
    out
}

/// The defaults (no user values) and each `ci/*.yaml` of the top chart. A `ci/` file that is not
/// valid values is a failure of that set, not of the probe.
fn value_sets(chart: &Chart, out: &mut Probe) -> Vec<(String, Values)> {
    let mut sets = vec![(DEFAULTS.to_string(), Values::new())];
    for (path, bytes) in &chart.files {
        let Some(name) = path.strip_prefix("ci/") else {
            continue;
        };
        if name.contains('/') || !(name.ends_with(".yaml") || name.ends_with(".yml")) {
            continue;
        }
        match values::from_yaml_stream(&crate::text::lossy(bytes)) {
            Ok(values) => sets.push((path.clone(), values)),
            Err(e) => out.failures.push(Failure {
                values: path.clone(),
                kube_version: String::new(),
                error: format!("not valid YAML values: {e}"),
            }),
        }
    }
    sets
}

/// The oldest supported Kubernetes when a template may ask `.Capabilities` about it; else
/// the newest alone renders what both would.
fn oldest_to_try(chart: &Chart) -> Option<String> {
    let asks = chart
        .files
        .iter()
        .filter(|(path, _)| path.contains("templates/") || path.ends_with(".tgz"))
        .any(|(path, bytes)| {
            path.ends_with(".tgz") || memchr::memmem::find(bytes, b".Capabilities").is_some()
        });
    asks.then(|| format!("v{OLDEST_SUPPORTED}.0"))
}

/// Whether the chart or a subchart holds `text` where a template can read it: in a template,
/// a file (`.Files`), its values or its `Chart.yaml` (`.Chart`).
fn mentions(node: &ChartNode, text: &str) -> bool {
    node.templates
        .iter()
        .chain(&node.files)
        .any(|file| memchr::memmem::find(&file.data, text.as_bytes()).is_some())
        || node
            .values
            .iter()
            .any(|(k, v)| k.contains(text) || json_mentions(v, text))
        || node
            .chart_object(false)
            .values()
            .any(|v| json_mentions(v, text))
        || node.dependencies.iter().any(|dep| mentions(dep, text))
}

fn json_mentions(value: &Json, text: &str) -> bool {
    match value {
        Json::String(s) => s.contains(text),
        Json::Array(items) => items.iter().any(|v| json_mentions(v, text)),
        Json::Object(map) => map
            .iter()
            .any(|(k, v)| k.contains(text) || json_mentions(v, text)),
        _ => false,
    }
}

/// One render's objects, or its failure.
struct Rendering {
    objects: Vec<RenderedObject>,
    failure: Option<Failure>,
    kube_version: String,
}

/// Renders one set of values on the newest Kubernetes, and on `oldest` too unless the first
/// render shows that it would have come out the same there (or `every_version` is asked).
fn render_set(
    node: &ChartNode,
    label: &str,
    values: &Values,
    oldest: Option<&str>,
    every_version: bool,
) -> Vec<Rendering> {
    let newest = super::capabilities::DEFAULT_KUBE_VERSION;
    let Some(oldest) = oldest else {
        return vec![render_one(node, label, values, newest, None)];
    };
    let mut watch = match (KubeVersion::parse(newest), KubeVersion::parse(oldest)) {
        (Ok(newest), Ok(oldest)) if !every_version => KubeVersionWatch::new(&newest, &oldest),
        _ => None,
    };
    let first = render_one(node, label, values, newest, watch.as_mut());
    let same = first.failure.is_none() && watch.is_some_and(|w| w.same_on_other().is_ok());
    if same {
        vec![first]
    } else {
        vec![first, render_one(node, label, values, oldest, None)]
    }
}

fn render_one(
    node: &ChartNode,
    label: &str,
    values: &Values,
    kube: &str,
    watch: Option<&mut KubeVersionWatch>,
) -> Rendering {
    let done = |objects: Vec<RenderedObject>, error: Option<String>| Rendering {
        objects,
        failure: error.map(|error| Failure {
            values: label.to_string(),
            kube_version: kube.to_string(),
            error,
        }),
        kube_version: kube.to_string(),
    };
    let kube_version = match KubeVersion::parse(kube) {
        Ok(v) => v,
        Err(e) => return done(Vec::new(), Some(e.to_string())),
    };
    let options = Options::new(
        RELEASE_NAME,
        RELEASE_NAMESPACE,
        Capabilities::new(Some(kube_version), &[]),
    );
    let rendered = match release::render_watching(node, values, &options, watch) {
        Ok(rendered) => rendered,
        Err(e) => return done(Vec::new(), Some(e.to_string())),
    };
    let top = format!("{}/", node.name());
    let heads = rendered
        .manifests
        .iter()
        .map(|m| {
            (
                &m.template,
                &m.content,
                &m.api_version,
                &m.kind,
                &m.namespace,
            )
        })
        .chain(
            rendered
                .hooks
                .iter()
                .filter(|h| !h.events.iter().any(|e| e == "test"))
                .map(|h| {
                    (
                        &h.template,
                        &h.content,
                        &h.api_version,
                        &h.kind,
                        &h.namespace,
                    )
                }),
        );
    let mut objects = Vec::new();
    for (template, content, api_version, kind, namespace) in heads {
        let template = template.strip_prefix(&top).unwrap_or(template);
        if kind.ends_with("List") {
            // Helm installs a list's items: the whole document is read for them.
            if let Ok(Some(document)) = crate::yaml::from_str::<Option<Json>>(content) {
                collect(&document, template, label, &mut objects);
            }
        } else if !kind.is_empty() {
            objects.push(RenderedObject {
                api_version: api_version.clone(),
                kind: kind.clone(),
                namespace: namespace.clone(),
                template: template.to_string(),
                values: label.to_string(),
            });
        }
    }
    done(objects, None)
}

/// The object, or each item of a `kind: List` (Helm installs the items).
fn collect(document: &Json, template: &str, label: &str, out: &mut Vec<RenderedObject>) {
    let text = |v: Option<&Json>| v.and_then(Json::as_str).unwrap_or("").to_string();
    let kind = text(document.get("kind"));
    if kind.ends_with("List")
        && let Some(items) = document.get("items").and_then(Json::as_array)
    {
        for item in items {
            collect(item, template, label, out);
        }
        return;
    }
    if kind.is_empty() {
        return;
    }
    out.push(RenderedObject {
        api_version: text(document.get("apiVersion")),
        kind,
        namespace: text(document.get("metadata").and_then(|m| m.get("namespace"))),
        template: template.to_string(),
        values: label.to_string(),
    });
}

/// The kinds each template rendered, by chart-relative template path.
pub fn kinds_by_template(probe: &Probe) -> BTreeMap<&str, Vec<&RenderedObject>> {
    let mut by: BTreeMap<&str, Vec<&RenderedObject>> = BTreeMap::new();
    for object in &probe.objects {
        by.entry(object.template.as_str()).or_default().push(object);
    }
    by
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chart(files: &[(&str, &str)]) -> Chart {
        let files = files
            .iter()
            .map(|(p, t)| (p.to_string(), t.as_bytes().to_vec()))
            .collect();
        Chart::from_files("test", files).unwrap()
    }

    const CHART_YAML: &str = "apiVersion: v2\nname: probe\nversion: 1.0.0\n";

    #[test]
    fn the_caller_is_told_once_when_the_templates_are_parsed() {
        let told = std::sync::atomic::AtomicUsize::new(0);
        let tell = || {
            told.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        };
        // Two sets of values, two Kubernetes versions: one parse.
        let told_when_parsed = ProbeOptions {
            templates_parsed: &tell,
            leave_chart_to_exit: false,
        };
        let probe = probe_with(
            &chart(&[
                ("Chart.yaml", CHART_YAML),
                ("ci/a-values.yaml", "a: 1\n"),
                ("templates/_h.tpl", r#"{{ define "h" }}x{{ end }}"#),
                (
                    "templates/cm.yaml",
                    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ include \"h\" . }}{{ .Capabilities.KubeVersion.Minor }}\n",
                ),
            ]),
            told_when_parsed,
        );
        assert_eq!(probe.failures, vec![]);
        assert_eq!(probe.kube_versions.len(), 2, "{probe:?}");
        assert_eq!(told.load(std::sync::atomic::Ordering::SeqCst), 1);

        // A chart that does not load parses nothing.
        told.store(0, std::sync::atomic::Ordering::SeqCst);
        let probe = probe_with(
            &chart(&[
                ("Chart.yaml", CHART_YAML),
                ("charts/broken-1.0.0.tgz", "not an archive"),
                ("templates/cm.yaml", "a: b\n"),
            ]),
            told_when_parsed,
        );
        assert!(probe.defaults_failure().is_some(), "{probe:?}");
        assert_eq!(told.load(std::sync::atomic::Ordering::SeqCst), 0);
    }

    #[test]
    fn a_kind_from_values_is_rendered() {
        let probe = probe(&chart(&[
            ("Chart.yaml", CHART_YAML),
            ("values.yaml", "kind: StatefulSet\n"),
            (
                "templates/app.yaml",
                "apiVersion: apps/v1\nkind: {{ .Values.kind }}\nmetadata:\n  name: x\n",
            ),
        ]));
        assert_eq!(probe.failures, vec![]);
        assert_eq!(probe.objects.len(), 1);
        assert_eq!(probe.objects[0].kind, "StatefulSet");
        assert_eq!(probe.objects[0].template, "templates/app.yaml");
        assert!(!probe.objects[0].elsewhere());
    }

    #[test]
    fn ci_values_are_tried_and_lists_are_opened() {
        let probe = probe(&chart(&[
            ("Chart.yaml", CHART_YAML),
            ("values.yaml", "extra: false\n"),
            ("ci/extra-values.yaml", "extra: true\n"),
            (
                "templates/extra.yaml",
                "{{ if .Values.extra }}apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n    namespace: kube-system\n{{ end }}",
            ),
        ]));
        assert_eq!(probe.objects.len(), 1, "{probe:?}");
        let object = &probe.objects[0];
        assert_eq!(
            (object.kind.as_str(), object.values.as_str()),
            ("ConfigMap", "ci/extra-values.yaml")
        );
        assert!(object.elsewhere());
    }

    #[test]
    fn required_defaults_are_a_failure_and_test_hooks_are_left_out() {
        let probe = probe(&chart(&[
            ("Chart.yaml", CHART_YAML),
            (
                "templates/cm.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ required \"host is required\" .Values.host }}\n",
            ),
            (
                "templates/tests/t.yaml",
                "apiVersion: v1\nkind: Pod\nmetadata:\n  name: t\n  annotations:\n    helm.sh/hook: test\n",
            ),
            ("ci/host-values.yaml", "host: a\n"),
            ("ci/no-host-values.yaml", "other: b\n"),
        ]));
        let failure = probe.defaults_failure().expect("defaults fail");
        assert!(failure.error.contains("host is required"), "{failure:?}");
        let rendered = probe.values_rendered();
        assert!(
            rendered
                .defaults_error
                .as_deref()
                .is_some_and(|e| e.contains("host is required"))
        );
        assert_eq!(rendered.ci_files, ["ci/host-values.yaml"]);
        assert_eq!(rendered.ci_errors.len(), 1, "{rendered:?}");
        assert_eq!(rendered.ci_errors[0].0, "ci/no-host-values.yaml");
        assert_eq!(
            probe
                .objects
                .iter()
                .map(|o| o.kind.as_str())
                .collect::<Vec<_>>(),
            ["ConfigMap"]
        );
    }

    #[test]
    fn both_kubernetes_versions_are_tried_when_a_template_asks() {
        let probe = probe(&chart(&[
            ("Chart.yaml", CHART_YAML),
            (
                "templates/pdb.yaml",
                "apiVersion: policy/v1\nkind: {{ if semverCompare \">=1.35-0\" .Capabilities.KubeVersion.Version }}PodDisruptionBudget{{ else }}ConfigMap{{ end }}\nmetadata:\n  name: x\n",
            ),
        ]));
        let kinds: Vec<&str> = probe.objects.iter().map(|o| o.kind.as_str()).collect();
        assert_eq!(kinds, ["ConfigMap", "PodDisruptionBudget"]);
    }

    /// A template that asks `.Capabilities` only what both versions answer alike, the way
    /// Bitnami's `common` library does on every render.
    const ASKS_ALIKE: &str = "{{- define \"kube\" }}{{ default .Capabilities.KubeVersion.Version .Values.kubeVersion }}{{ end -}}\napiVersion: {{ if semverCompare \"<1.25-0\" (include \"kube\" .) }}policy/v1beta1{{ else }}policy/v1{{ end }}\nkind: PodDisruptionBudget\nmetadata:\n  name: x\n";

    #[test]
    fn the_oldest_kubernetes_is_not_rendered_when_it_would_render_the_same() {
        let probe = probe(&chart(&[
            ("Chart.yaml", CHART_YAML),
            ("templates/pdb.yaml", ASKS_ALIKE),
        ]));
        assert_eq!(probe.failures, vec![]);
        assert_eq!(probe.kube_versions, ["v1.36.0"]);
        assert_eq!(probe.objects.len(), 1);
        assert_eq!(probe.objects[0].api_version, "policy/v1");
    }

    #[test]
    fn the_oldest_kubernetes_is_rendered_when_a_template_reads_what_differs() {
        for template in [
            // Minor differs, and is not the version string the render can follow.
            "apiVersion: v1\nkind: {{ if ge (int .Capabilities.KubeVersion.Minor) 35 }}Secret{{ else }}ConfigMap{{ end }}\nmetadata:\n  name: x\n",
            // The version printed.
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  labels:\n    kube: {{ .Capabilities.KubeVersion.Version | quote }}\n",
        ] {
            let probe = probe(&chart(&[
                ("Chart.yaml", CHART_YAML),
                ("templates/t.yaml", template),
            ]));
            assert_eq!(probe.kube_versions, ["v1.33.0", "v1.36.0"], "{template}");
        }
    }

    #[test]
    fn a_kube_version_only_the_newest_meets_fails_on_the_oldest() {
        let probe = probe(&chart(&[
            (
                "Chart.yaml",
                &format!("{CHART_YAML}kubeVersion: '>=1.35.0-0'\n"),
            ),
            ("templates/pdb.yaml", ASKS_ALIKE),
        ]));
        assert_eq!(probe.kube_versions, ["v1.33.0", "v1.36.0"]);
        let failures: Vec<&str> = probe
            .failures
            .iter()
            .map(|f| f.kube_version.as_str())
            .collect();
        assert_eq!(failures, ["v1.33.0"], "{:?}", probe.failures);
    }

    /// A chart that writes the newest version's string itself (here to compare with) is
    /// rendered on both: the render could not tell that string from the version it follows.
    #[test]
    fn a_chart_that_writes_the_version_string_is_rendered_on_both() {
        let compare = |with: &str| {
            format!(
                "apiVersion: v1\nkind: {{{{ if eq .Capabilities.KubeVersion.Version {with} }}}}Secret{{{{ else }}}}ConfigMap{{{{ end }}}}\nmetadata:\n  name: x\n"
            )
        };
        for (values, template) in [
            ("", compare("\"v1.36.0\"")),
            ("newest: v1.36.0\n", compare(".Values.newest")),
            ("", compare(".Chart.AppVersion")),
        ] {
            let chart_yaml = format!("{CHART_YAML}appVersion: v1.36.0\n");
            let chart_yaml = if template.contains("AppVersion") {
                chart_yaml.as_str()
            } else {
                CHART_YAML
            };
            let probe = probe(&chart(&[
                ("Chart.yaml", chart_yaml),
                ("values.yaml", values),
                ("templates/t.yaml", &template),
            ]));
            let kinds: Vec<&str> = probe.objects.iter().map(|o| o.kind.as_str()).collect();
            assert_eq!(kinds, ["ConfigMap", "Secret"], "{template}");
        }
    }
}
