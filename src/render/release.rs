//! A chart rendered for a release, as `helm install --dry-run` / `helm template` produce it:
//! dependencies processed for the user's values, values coalesced and checked against the
//! schemas, templates rendered, NOTES taken out, hooks kept apart, kinds in install order.

use std::collections::BTreeMap;
use std::sync::Arc;

use thiserror::Error;

use super::capabilities::Capabilities;
use super::engine::{self, Release};
use super::funcs::{Lookup, NoCluster};
use super::manifests::{self, Hook, Manifest};
use super::tree::ChartNode;
use super::values::{self, Values, Warnings};
use super::version_watch::KubeVersionWatch;
use super::{dependencies, schema};

#[derive(Debug, Error)]
pub enum ReleaseError {
    #[error(transparent)]
    Render(#[from] engine::RenderError),
    #[error(
        "values don't meet the specifications of the schema(s) in the following chart(s):\n{0}"
    )]
    Schema(String),
    #[error(
        "chart requires kubeVersion: {required} which is incompatible with Kubernetes {actual}"
    )]
    KubeVersion { required: String, actual: String },
    #[error(transparent)]
    Manifest(#[from] manifests::ManifestError),
}

/// What to render a chart for.
#[derive(Clone)]
pub struct Options {
    pub release: Release,
    pub capabilities: Capabilities,
    pub lookup: Arc<dyn Lookup>,
}

impl Options {
    /// `helm template`'s defaults: an install of revision 1, offline.
    pub fn new(name: &str, namespace: &str, capabilities: Capabilities) -> Options {
        Options {
            release: Release {
                name: name.to_string(),
                namespace: namespace.to_string(),
                revision: 1,
                is_install: true,
                is_upgrade: false,
            },
            capabilities,
            lookup: Arc::new(NoCluster),
        }
    }
}

#[derive(Debug)]
pub struct Rendered {
    /// Every template's output (partials excepted, NOTES included), by path.
    pub templates: BTreeMap<String, String>,
    pub manifests: Vec<Manifest>,
    pub hooks: Vec<Hook>,
    /// The top chart's NOTES.txt, rendered.
    pub notes: String,
    /// `crds/` files of the chart and its subcharts: (path, text).
    pub crds: Vec<(String, String)>,
    /// The values the templates saw.
    pub values: Values,
    pub warnings: Vec<String>,
}

const NOTES: &str = "NOTES.txt";

/// What Helm's engine returns for a chart: every template's output, before `helm template`
/// or an install sorts it into manifests and hooks.
pub struct Outputs {
    /// The chart with its dependencies processed for the values.
    pub chart: ChartNode,
    pub values: Values,
    /// Every template's output (partials excepted, NOTES included), by path.
    pub templates: BTreeMap<String, String>,
    pub warnings: Warnings,
}

/// Renders `chart`'s templates with the user's values (`-f` and `--set` already merged):
/// dependencies processed, values coalesced and checked, every template executed.
pub fn render_templates(
    chart: &ChartNode,
    user: &Values,
    options: &Options,
) -> Result<Outputs, ReleaseError> {
    render_templates_watching(chart, user, options, None)
}

/// [`render_templates`], watched for another Kubernetes version (see `version_watch`).
fn render_templates_watching(
    chart: &ChartNode,
    user: &Values,
    options: &Options,
    mut watch: Option<&mut KubeVersionWatch>,
) -> Result<Outputs, ReleaseError> {
    let mut warnings = Warnings::default();
    let mut chart = chart.clone();
    dependencies::process(&mut chart, user, &mut warnings);
    // One JSON object, which the schema check reads whole and the render as a map: a large
    // chart's values are not copied for either.
    let values = serde_json::Value::Object(values::coalesce_values(&chart, user, &mut warnings));
    let values_map = values
        .as_object()
        .expect("the coalesced values were made a map above");
    let checked_and_rendered = || -> Result<BTreeMap<String, String>, ReleaseError> {
        check_kube_version(&chart, &options.capabilities)?;
        if let Some(w) = watch.as_deref_mut()
            && check_kube_version(&chart, &w.other_capabilities(&options.capabilities)).is_err()
        {
            w.kube_version_check_differs();
        }
        Ok(engine::render(
            &chart,
            values_map,
            &options.release,
            &options.capabilities,
            options.lookup.clone(),
            watch,
        )?)
    };
    let templates = if options.lookup.reads_a_cluster() {
        schema::validate(&chart, &values).map_err(ReleaseError::Schema)?;
        checked_and_rendered()?
    } else {
        // Offline, a render touches nothing: the values are checked against the chart's
        // schema beside it, and a schema error still comes first, as Helm checks first.
        let (schema, templates) = std::thread::scope(|scope| {
            let schema = scope.spawn(|| schema::validate(&chart, &values));
            let templates = checked_and_rendered();
            let schema = schema
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            (schema, templates)
        });
        schema.map_err(ReleaseError::Schema)?;
        templates?
    };
    let serde_json::Value::Object(values) = values else {
        unreachable!("the coalesced values were made a map above")
    };
    Ok(Outputs {
        chart,
        values,
        templates,
        warnings,
    })
}

/// Renders `chart` with the user's values (`-f` and `--set` already merged).
pub fn render(
    chart: &ChartNode,
    user: &Values,
    options: &Options,
) -> Result<Rendered, ReleaseError> {
    render_watching(chart, user, options, None)
}

/// [`render`], and says in `watch` whether the other Kubernetes version it watches for would
/// have rendered the same.
pub fn render_watching(
    chart: &ChartNode,
    user: &Values,
    options: &Options,
    watch: Option<&mut KubeVersionWatch>,
) -> Result<Rendered, ReleaseError> {
    let Outputs {
        chart,
        values,
        templates,
        warnings,
    } = render_templates_watching(chart, user, options, watch)?;
    let top_notes = format!("{}/templates/{NOTES}", chart.name());
    let notes = templates.get(&top_notes).cloned().unwrap_or_default();
    let sorted = manifests::sort(templates.iter().filter(|(k, _)| !k.ends_with(NOTES)))?;
    let crds = chart
        .crd_files()
        .into_iter()
        .map(|(path, data)| (path, crate::text::lossy(data).into_owned()))
        .collect();
    Ok(Rendered {
        templates,
        manifests: sorted.manifests,
        hooks: sorted.hooks,
        notes,
        crds,
        values,
        warnings: warnings.0,
    })
}

fn check_kube_version(chart: &ChartNode, caps: &Capabilities) -> Result<(), ReleaseError> {
    let required = chart.metadata.kube_version.trim();
    if required.is_empty() {
        return Ok(());
    }
    let actual = caps
        .kube_version
        .normalized
        .trim_start_matches('v')
        .to_string();
    // Masterminds' semver, which Helm uses, admits a pre-release server version (a
    // provider's `v1.33.4-gke.1`) when the constraint names any pre-release (the charts'
    // `>=1.21.0-0` idiom) and then compares it plainly; Cargo's rules admit one only against
    // the same major.minor.patch. So such a version is checked by its core, which orders the
    // same against those constraints.
    let core = match actual.split_once(['-', '+']) {
        Some((core, _)) if required.contains('-') => core.to_string(),
        _ => actual.clone(),
    };
    // Only a constraint this tool understands can refuse a chart; Helm's own parser accepts
    // a few spellings more, and refusing what Helm installs would be worse than not checking.
    if let Ok(spec) = crate::chart::version::VersionSpec::parse(Some(required))
        && crate::chart::version::parse_version(&core).is_some()
        && !spec.matches(&core)
        && !spec.matches(&format!("{core}-0"))
    {
        return Err(ReleaseError::KubeVersion {
            required: required.to_string(),
            actual: caps.kube_version.version.clone(),
        });
    }
    Ok(())
}

impl Rendered {
    /// `helm template`'s output: CRDs when asked, the manifests, then the hooks.
    pub fn helm_template_output(&self, include_crds: bool) -> String {
        let crds = self.crds.iter().filter(|_| include_crds);
        let manifests = self.manifests.iter().map(|m| (&m.template, &m.content));
        let documents: Vec<(&String, &String)> =
            crds.map(|(p, t)| (p, t)).chain(manifests).collect();
        let hooks: Vec<(&String, &String)> = self
            .hooks
            .iter()
            .map(|h| (&h.template, &h.content))
            .collect();
        // One buffer of the right size: the output of a chart with CRDs runs to megabytes.
        let size: usize = documents
            .iter()
            .chain(&hooks)
            .map(|(path, text)| path.len() + text.len() + 16)
            .sum();
        let mut out = String::with_capacity(size + 1);
        for (path, text) in documents {
            push_document(&mut out, path, text);
        }
        // The manifest part is trimmed as a whole, as Helm trims it, and ends in one newline.
        let trimmed = out.trim_end().len();
        out.truncate(trimmed);
        let leading = out.len() - out.trim_start().len();
        out.drain(..leading);
        out.push('\n');
        for (path, text) in hooks {
            push_document(&mut out, path, text);
        }
        out
    }
}

/// `---`, the `# Source:` line and the text of one document.
fn push_document(out: &mut String, path: &str, text: &str) {
    out.push_str("---\n# Source: ");
    out.push_str(path);
    out.push('\n');
    out.push_str(text);
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::capabilities::KubeVersion;

    fn chart_requiring(kube_version: &str) -> ChartNode {
        let chart_yaml =
            format!("apiVersion: v2\nname: c\nversion: 1.0.0\nkubeVersion: '{kube_version}'\n");
        let files = BTreeMap::from([("Chart.yaml".to_string(), chart_yaml.into_bytes())]);
        let chart = crate::chart::Chart::from_files("c", files).unwrap();
        ChartNode::load(&chart, false).unwrap()
    }

    #[test]
    fn pre_release_servers_meet_constraints_that_name_a_pre_release() {
        let server = |v: &str| Capabilities::new(Some(KubeVersion::parse(v).unwrap()), &[]);
        let chart = chart_requiring(">=1.21.0-0");
        assert!(check_kube_version(&chart, &server("v1.33.0-operator-rs-test")).is_ok());
        assert!(check_kube_version(&chart, &server("v1.20.4-gke.1")).is_err());
        let plain = chart_requiring(">=1.21.0");
        assert!(check_kube_version(&plain, &server("v1.33.0")).is_ok());
        assert!(check_kube_version(&plain, &server("v1.20.0")).is_err());
    }

    /// The schema is checked beside an offline render, yet its error comes first, as Helm
    /// checks the values before it renders (or checks the Kubernetes version).
    #[test]
    fn a_schema_error_comes_before_a_render_or_kube_version_error() {
        let files = BTreeMap::from([
            (
                "Chart.yaml".to_string(),
                b"apiVersion: v2\nname: c\nversion: 1.0.0\nkubeVersion: '<1.0.0'\n".to_vec(),
            ),
            ("values.yaml".to_string(), b"replicas: many\n".to_vec()),
            (
                "values.schema.json".to_string(),
                br#"{"properties": {"replicas": {"type": "integer"}}}"#.to_vec(),
            ),
            (
                "templates/x.yaml".to_string(),
                b"{{ fail \"boom\" }}\n".to_vec(),
            ),
        ]);
        let chart = crate::chart::Chart::from_files("c", files).unwrap();
        let node = ChartNode::load(&chart, false).unwrap();
        let options = Options::new("r", "ns", Capabilities::new(None, &[]));
        let error = render(&node, &Values::new(), &options).unwrap_err();
        assert!(matches!(error, ReleaseError::Schema(_)), "{error}");
    }
}
