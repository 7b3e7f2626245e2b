//! A chart as Helm's loader sees it: metadata, default values, templates, other files, and its
//! subcharts (from `charts/`, directories and `.tgz`), built from the files [`crate::chart`]
//! loaded. `.helmignore` applies to charts loaded from a directory, as in Helm.

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use serde::Deserialize;
use serde_json::{Map, Value};
use thiserror::Error;

use super::glob::path_match;
use super::schema::Schema;
use super::values::{self, Values};
use crate::chart::{Chart, ChartError, archive};

#[derive(Debug, Error)]
pub enum TreeError {
    #[error(transparent)]
    Chart(#[from] ChartError),
    #[error("cannot load {file} of chart {chart}: {detail}")]
    BadFile {
        chart: String,
        file: String,
        detail: String,
    },
    #[error(".helmignore of chart {chart}: {detail}")]
    BadIgnore { chart: String, detail: String },
    #[error("validation: chart.metadata.{field} is required (chart {chart})")]
    Missing { chart: String, field: &'static str },
    #[error(
        "validation: chart.metadata.version \"{version}\" is invalid (chart {chart}); Helm needs a semantic version such as 1.2.3"
    )]
    BadVersion { chart: String, version: String },
    #[error("subcharts of chart {chart} nest deeper than {limit} levels")]
    TooDeep { chart: String, limit: usize },
}

/// One `dependencies` entry of Chart.yaml (or requirements.yaml).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Dependency {
    #[serde(default)]
    pub name: String,
    #[serde(default, deserialize_with = "text")]
    pub version: String,
    #[serde(default)]
    pub repository: String,
    #[serde(default)]
    pub condition: String,
    #[serde(default)]
    pub tags: Vec<String>,
    #[serde(default)]
    pub import_values: Vec<Value>,
    #[serde(default)]
    pub alias: String,
    /// Set while dependencies are processed.
    #[serde(skip)]
    pub enabled: bool,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Maintainer {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub email: String,
    #[serde(default)]
    pub url: String,
}

/// Chart.yaml, with Helm's fields.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Metadata {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub home: String,
    #[serde(default)]
    pub sources: Vec<String>,
    #[serde(default, deserialize_with = "text")]
    pub version: String,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub keywords: Vec<String>,
    #[serde(default)]
    pub maintainers: Vec<Maintainer>,
    #[serde(default)]
    pub icon: String,
    #[serde(default)]
    pub api_version: String,
    #[serde(default)]
    pub condition: String,
    #[serde(default)]
    pub tags: String,
    #[serde(default, deserialize_with = "text")]
    pub app_version: String,
    #[serde(default)]
    pub deprecated: bool,
    #[serde(default)]
    pub annotations: Option<BTreeMap<String, String>>,
    #[serde(default)]
    pub kube_version: String,
    /// `None` when Chart.yaml has no `dependencies`: Helm then processes no conditions at all.
    #[serde(default)]
    pub dependencies: Option<Vec<Dependency>>,
    #[serde(default, rename = "type")]
    pub chart_type: String,
}

fn text<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    let value = Option::<Value>::deserialize(d)?;
    Ok(match value {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s,
        Some(other) => other.to_string(),
    })
}

#[derive(Debug, Deserialize, Default)]
struct Requirements {
    #[serde(default)]
    dependencies: Option<Vec<Dependency>>,
}

/// A file of a chart: its path inside the chart and its bytes, shared (charts are copied for
/// each render, and a chart with CRDs holds megabytes).
#[derive(Debug, Clone)]
pub struct File {
    pub name: String,
    pub data: Arc<[u8]>,
    /// For a template loaded from a chart's files: its bytes as text when they are UTF-8, the
    /// same allocation as `data`, so that renders neither check nor copy a megabyte of CRDs.
    pub text: Option<Arc<str>>,
    /// For a template: its parse, once rendered (see [`ParseCache`]).
    pub parsed: ParseCache,
}

impl File {
    pub fn new(name: String, data: Arc<[u8]>) -> File {
        File {
            name,
            data,
            text: None,
            parsed: ParseCache::default(),
        }
    }

    fn loaded(name: String, contents: Contents) -> File {
        File {
            text: contents.text,
            ..File::new(name, contents.data)
        }
    }
}

/// A template's parse, with the name it was parsed under, kept with the loaded chart (and
/// shared by its copies): a chart loaded once is often rendered many times (`new` renders it
/// for several values files and Kubernetes versions, the operator on every reconcile), and
/// its templates do not change between renders.
pub type ParseCache = Arc<OnceLock<(String, Result<gotemplate::Parsed, gotemplate::Error>)>>;

#[derive(Debug, Clone)]
pub struct ChartNode {
    pub metadata: Metadata,
    pub values: Values,
    pub schema: Option<Schema>,
    /// `templates/...`, in path order.
    pub templates: Vec<File>,
    /// Every other file (what `.Files` sees), in path order; `crds/` among them.
    pub files: Vec<File>,
    pub dependencies: Vec<ChartNode>,
}

/// Vendored charts nested deeper than this are refused.
pub const MAX_DEPTH: usize = 10;

impl ChartNode {
    pub fn name(&self) -> &str {
        &self.metadata.name
    }

    pub fn is_library(&self) -> bool {
        self.metadata.chart_type.eq_ignore_ascii_case("library")
    }

    /// Loads a chart from its files. `from_directory` applies `.helmignore`, as Helm does only
    /// when it reads a chart directory.
    pub fn load(chart: &Chart, from_directory: bool) -> Result<ChartNode, TreeError> {
        let files = chart_files(chart, from_directory)?;
        load_files(chart.name(), files, 0, &mut ValuesRead::Now)
    }

    /// [`ChartNode::load`], calling `beside` with the chart's tree (templates, files and
    /// dependencies, their values still empty) before the values files are read, which is most
    /// of a load: work on the templates that `beside` starts (the probe's parse) runs while
    /// they are read. A chart with an error loads again as [`ChartNode::load`] does, so that
    /// the error is the one Helm's order of reading gives.
    pub fn load_beside(
        chart: &Chart,
        from_directory: bool,
        beside: impl FnOnce(&ChartNode),
    ) -> Result<ChartNode, TreeError> {
        let files = chart_files(chart, from_directory)?;
        let mut unread = Vec::new();
        let Ok(mut node) = load_files(
            chart.name(),
            files,
            0,
            &mut ValuesRead::Later(Vec::new(), &mut unread),
        ) else {
            return Self::load(chart, from_directory);
        };
        beside(&node);
        for values in unread {
            let Ok(read) = values::from_yaml_stream(&crate::text::lossy(&values.data)) else {
                return Self::load(chart, from_directory);
            };
            let mut at = &mut node;
            for &index in &values.at {
                at = &mut at.dependencies[index];
            }
            at.values = read;
        }
        Ok(node)
    }

    /// The `crds/` files of this chart and its subcharts, as (path shown in output, bytes).
    pub fn crd_files(&self) -> Vec<(String, &[u8])> {
        let mut out = Vec::new();
        self.collect_crds(self.name().to_string(), &mut out);
        out
    }

    fn collect_crds<'a>(&'a self, full_path: String, out: &mut Vec<(String, &'a [u8])>) {
        for file in &self.files {
            if file.name.starts_with("crds/") && is_yaml_like(&file.name) {
                out.push((format!("{full_path}/{}", file.name), &file.data));
            }
        }
        for dep in &self.dependencies {
            dep.collect_crds(format!("{full_path}/charts/{}", dep.name()), out);
        }
    }

    /// `.Chart` as templates see it: Chart.yaml's fields under Helm's Go names.
    pub fn chart_object(&self, is_root: bool) -> Values {
        let m = &self.metadata;
        let strings = |v: &[String]| Value::Array(v.iter().cloned().map(Value::String).collect());
        let mut out = Map::new();
        let mut put = |k: &str, v: Value| {
            out.insert(k.to_string(), v);
        };
        put("Name", Value::String(m.name.clone()));
        put("Home", Value::String(m.home.clone()));
        put("Sources", strings(&m.sources));
        put("Version", Value::String(m.version.clone()));
        put("Description", Value::String(m.description.clone()));
        put("Keywords", strings(&m.keywords));
        put(
            "Maintainers",
            Value::Array(
                m.maintainers
                    .iter()
                    .map(|x| {
                        let mut o = Map::new();
                        o.insert("Name".into(), Value::String(x.name.clone()));
                        o.insert("Email".into(), Value::String(x.email.clone()));
                        o.insert("URL".into(), Value::String(x.url.clone()));
                        Value::Object(o)
                    })
                    .collect(),
            ),
        );
        put("Icon", Value::String(m.icon.clone()));
        put("APIVersion", Value::String(m.api_version.clone()));
        put("Condition", Value::String(m.condition.clone()));
        put("Tags", Value::String(m.tags.clone()));
        put("AppVersion", Value::String(m.app_version.clone()));
        put("Deprecated", Value::Bool(m.deprecated));
        put(
            "Annotations",
            match &m.annotations {
                None => Value::Null,
                Some(a) => Value::Object(
                    a.iter()
                        .map(|(k, v)| (k.clone(), Value::String(v.clone())))
                        .collect(),
                ),
            },
        );
        put("KubeVersion", Value::String(m.kube_version.clone()));
        put(
            "Dependencies",
            Value::Array(
                m.dependencies
                    .iter()
                    .flatten()
                    .map(|d| {
                        let mut o = Map::new();
                        o.insert("Name".into(), Value::String(d.name.clone()));
                        o.insert("Version".into(), Value::String(d.version.clone()));
                        o.insert("Repository".into(), Value::String(d.repository.clone()));
                        o.insert("Condition".into(), Value::String(d.condition.clone()));
                        o.insert("Tags".into(), strings(&d.tags));
                        o.insert("Enabled".into(), Value::Bool(d.enabled));
                        o.insert("ImportValues".into(), Value::Array(d.import_values.clone()));
                        o.insert("Alias".into(), Value::String(d.alias.clone()));
                        Value::Object(o)
                    })
                    .collect(),
            ),
        );
        put("Type", Value::String(m.chart_type.clone()));
        put("IsRoot", Value::Bool(is_root));
        out
    }
}

fn is_yaml_like(name: &str) -> bool {
    // Helm reads every file under crds/ as a CRD; only YAML and JSON are valid there.
    name.ends_with(".yaml") || name.ends_with(".yml") || name.ends_with(".json")
}

/// A chart's files with their contents shared, made once per load: [`File`]s keep them.
type SharedFiles = BTreeMap<String, Contents>;

/// A file's bytes, shared, and a template's text (see [`File::text`]).
struct Contents {
    data: Arc<[u8]>,
    text: Option<Arc<str>>,
}

impl std::ops::Deref for Contents {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.data
    }
}

/// The file `path` of a chart (or of one of its vendored charts) shared: copied once, as text
/// for a template that is UTF-8.
fn share(path: &str, bytes: &[u8]) -> Contents {
    if (path.starts_with("templates/") || path.contains("/templates/"))
        && let Ok(text) = std::str::from_utf8(bytes)
    {
        let text: Arc<str> = Arc::from(text);
        return Contents {
            data: Arc::from(text.clone()),
            text: Some(text),
        };
    }
    Contents {
        data: Arc::from(bytes),
        text: None,
    }
}

fn shared(files: &BTreeMap<String, Vec<u8>>) -> SharedFiles {
    files
        .iter()
        .map(|(k, v)| (k.clone(), share(k, v)))
        .collect()
}

/// The files of `chart` that Helm loads: `.helmignore` applied when it is read from a directory.
fn chart_files(chart: &Chart, from_directory: bool) -> Result<SharedFiles, TreeError> {
    if from_directory {
        apply_helmignore(chart.name(), &chart.files)
    } else {
        Ok(shared(&chart.files))
    }
}

/// When a load reads each chart's `values.yaml`: as it meets it, or later, in the same order.
enum ValuesRead<'u> {
    Now,
    /// The place of the chart being loaded in the tree (indexes into `dependencies`), and
    /// where its values file is put to read later.
    Later(Vec<usize>, &'u mut Vec<UnreadValues>),
}

impl ValuesRead<'_> {
    /// The same, for the dependency that will be `dependencies[index]`.
    fn for_dependency(&mut self, index: usize) -> ValuesRead<'_> {
        match self {
            ValuesRead::Now => ValuesRead::Now,
            ValuesRead::Later(at, unread) => {
                ValuesRead::Later([at.as_slice(), &[index]].concat(), unread)
            }
        }
    }
}

/// A `values.yaml` left for [`ChartNode::load_beside`] to read.
struct UnreadValues {
    at: Vec<usize>,
    data: Arc<[u8]>,
}

fn load_files(
    origin: &str,
    files: SharedFiles,
    depth: usize,
    values_read: &mut ValuesRead<'_>,
) -> Result<ChartNode, TreeError> {
    if depth >= MAX_DEPTH {
        return Err(TreeError::TooDeep {
            chart: origin.to_string(),
            limit: MAX_DEPTH,
        });
    }
    let bad = |file: &str, detail: String| TreeError::BadFile {
        chart: origin.to_string(),
        file: file.to_string(),
        detail,
    };
    let chart_yaml = files
        .get("Chart.yaml")
        .ok_or_else(|| ChartError::NoChartYaml(origin.to_string()))?;
    let mut metadata: Metadata = crate::yaml::from_str(&crate::text::lossy(chart_yaml))
        .map_err(|e| bad("Chart.yaml", e.to_string()))?;
    if metadata.api_version.is_empty() {
        metadata.api_version = "v1".to_string();
    }
    let mut node = ChartNode {
        metadata,
        values: Values::new(),
        schema: None,
        templates: Vec::new(),
        files: Vec::new(),
        dependencies: Vec::new(),
    };
    let mut subcharts: BTreeMap<String, SharedFiles> = BTreeMap::new();
    for (name, data) in files {
        match name.as_str() {
            "Chart.yaml" | "Chart.lock" | "requirements.lock" => {}
            "values.yaml" => match values_read {
                ValuesRead::Now => {
                    node.values = values::from_yaml_stream(&crate::text::lossy(&data))
                        .map_err(|e| bad("values.yaml", e))?;
                }
                ValuesRead::Later(at, unread) => unread.push(UnreadValues {
                    at: at.clone(),
                    data: data.data,
                }),
            },
            "values.schema.json" => node.schema = Some(Schema::new(data.data)),
            "requirements.yaml" => {
                let reqs: Requirements =
                    crate::yaml::from_str(&crate::text::lossy(&data)).unwrap_or_default();
                if reqs.dependencies.is_some() {
                    node.metadata.dependencies = reqs.dependencies;
                }
                if node.metadata.api_version == "v1" {
                    node.files.push(File::loaded(name, data));
                }
            }
            n if n.starts_with("templates/") => node.templates.push(File::loaded(name, data)),
            n if n.starts_with("charts/") && !n.ends_with(".prov") => {
                let rest = &n["charts/".len()..];
                let top = rest.split('/').next().unwrap_or_default().to_string();
                subcharts
                    .entry(top)
                    .or_default()
                    .insert(rest.to_string(), data);
            }
            _ => node.files.push(File::loaded(name, data)),
        }
    }
    validate(origin, &node.metadata)?;
    for (top, files) in subcharts {
        if top.starts_with(['_', '.']) {
            continue;
        }
        let sub = if top.ends_with(".tgz") {
            let Some(bytes) = files.get(&top) else {
                continue;
            };
            let inner_origin = format!("{origin} charts/{top}");
            let entries = archive::read_entries(&inner_origin, bytes)?;
            load_files(
                &inner_origin,
                shared(&entries),
                depth + 1,
                &mut values_read.for_dependency(node.dependencies.len()),
            )?
        } else {
            let prefix = format!("{top}/");
            let inner: SharedFiles = files
                .into_iter()
                .filter_map(|(k, v)| k.strip_prefix(&prefix).map(|k| (k.to_string(), v)))
                .collect();
            if inner.is_empty() {
                continue;
            }
            load_files(
                &format!("{origin} charts/{top}"),
                inner,
                depth + 1,
                &mut values_read.for_dependency(node.dependencies.len()),
            )?
        };
        node.dependencies.push(sub);
    }
    Ok(node)
}

fn validate(origin: &str, metadata: &Metadata) -> Result<(), TreeError> {
    let missing = |field| TreeError::Missing {
        chart: origin.to_string(),
        field,
    };
    if metadata.name.trim().is_empty() {
        return Err(missing("name"));
    }
    if metadata.version.is_empty() {
        return Err(missing("version"));
    }
    if crate::chart::version::parse_version(&metadata.version).is_none() {
        return Err(TreeError::BadVersion {
            chart: metadata.name.clone(),
            version: metadata.version.clone(),
        });
    }
    Ok(())
}

/// One rule of `.helmignore`.
#[derive(Debug, Clone)]
struct IgnoreRule {
    pattern: String,
    negate: bool,
    directories_only: bool,
    kind: RuleKind,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum RuleKind {
    /// Matched against the whole relative path.
    Path,
    /// Matched against the last path element.
    Base,
}

fn parse_ignore(chart: &str, text: &str) -> Result<Vec<IgnoreRule>, TreeError> {
    let mut rules = Vec::new();
    for line in text.trim_start_matches('\u{feff}').lines() {
        if let Some(rule) = parse_rule(chart, line)? {
            rules.push(rule);
        }
    }
    Ok(rules)
}

fn parse_rule(chart: &str, line: &str) -> Result<Option<IgnoreRule>, TreeError> {
    let mut rule = line.trim();
    if rule.is_empty() || rule.starts_with('#') {
        return Ok(None);
    }
    if rule.contains("**") {
        return Err(TreeError::BadIgnore {
            chart: chart.to_string(),
            detail: format!("rule \"{rule}\": double-star (**) syntax is not supported"),
        });
    }
    let negate = rule.starts_with('!');
    if negate {
        rule = &rule[1..];
    }
    let directories_only = rule.ends_with('/');
    let rule = rule.trim_end_matches('/');
    let (pattern, kind) = if let Some(anchored) = rule.strip_prefix('/') {
        (anchored, RuleKind::Path)
    } else if rule.contains('/') {
        (rule, RuleKind::Path)
    } else {
        (rule, RuleKind::Base)
    };
    Ok(Some(IgnoreRule {
        pattern: pattern.to_string(),
        negate,
        directories_only,
        kind,
    }))
}

/// Helm's rule evaluation, including its reading of `!` rules: a negated rule that does not
/// match ignores the path.
fn ignored(rules: &[IgnoreRule], path: &str, is_dir: bool) -> bool {
    for rule in rules {
        let subject = match rule.kind {
            RuleKind::Path => path,
            RuleKind::Base => path.rsplit('/').next().unwrap_or(path),
        };
        if rule.negate {
            if rule.directories_only && !is_dir {
                return true;
            }
            if !path_match(&rule.pattern, subject) {
                return true;
            }
            continue;
        }
        if rule.directories_only && !is_dir {
            continue;
        }
        if path_match(&rule.pattern, subject) {
            return true;
        }
    }
    false
}

fn apply_helmignore(
    chart: &str,
    files: &BTreeMap<String, Vec<u8>>,
) -> Result<SharedFiles, TreeError> {
    let mut rules = match files.get(".helmignore") {
        Some(bytes) => parse_ignore(chart, &crate::text::lossy(bytes))?,
        None => Vec::new(),
    };
    rules.extend(parse_rule(chart, "templates/.?*")?);
    Ok(files
        .iter()
        .filter(|(path, _)| {
            // A directory that is ignored hides everything below it, as Helm's walk skips it.
            let dir_ignored = path
                .match_indices('/')
                .any(|(i, _)| ignored(&rules, &path[..i], true));
            !dir_ignored && !ignored(&rules, path, false)
        })
        .map(|(k, v)| (k.clone(), share(k, v)))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(list: &[(&str, &str)]) -> BTreeMap<String, Vec<u8>> {
        list.iter()
            .map(|(k, v)| (k.to_string(), v.as_bytes().to_vec()))
            .collect()
    }

    #[test]
    fn helmignore_rules() {
        let f = files(&[
            (".helmignore", "*.md\nci/\n/secret.txt\n"),
            ("Chart.yaml", ""),
            ("README.md", ""),
            ("ci/a.yaml", ""),
            ("docs/ci/b.yaml", ""),
            ("secret.txt", ""),
            ("templates/.keep", ""),
            ("templates/a.yaml", ""),
        ]);
        let kept: Vec<String> = apply_helmignore("c", &f).unwrap().into_keys().collect();
        assert_eq!(kept, vec![".helmignore", "Chart.yaml", "templates/a.yaml"]);
    }

    /// A packaged subchart `leaf` 1.0.0 whose values are `x: 1`.
    fn leaf_archive() -> Vec<u8> {
        let leaf = files(&[
            ("Chart.yaml", "apiVersion: v2\nname: leaf\nversion: 1.0.0\n"),
            ("values.yaml", "x: 1\n"),
        ]);
        archive::write_tgz("leaf", &leaf).unwrap()
    }

    #[test]
    fn subcharts_load_from_directories_and_archives() {
        let tgz = leaf_archive();
        let mut f = files(&[
            ("Chart.yaml", "apiVersion: v2\nname: top\nversion: 0.1.0\n"),
            ("charts/dir/Chart.yaml", "name: dir\nversion: 0.2.0\n"),
            ("charts/dir/templates/x.yaml", "a: b\n"),
            ("crds/c.yaml", "kind: CustomResourceDefinition\n"),
        ]);
        f.insert("charts/leaf-1.0.0.tgz".to_string(), tgz);
        let chart = Chart::from_files("top", f).unwrap();
        let node = ChartNode::load(&chart, true).unwrap();
        let names: Vec<&str> = node.dependencies.iter().map(|d| d.name()).collect();
        assert_eq!(names, vec!["dir", "leaf"]);
        assert!(node.dependencies[1].values["x"].is_f64());
        assert_eq!(node.crd_files()[0].0, "top/crds/c.yaml");
    }

    /// Every chart of the tree as (path, values), depth first.
    fn all_values(node: &ChartNode, path: &str, out: &mut Vec<(String, Values)>) {
        out.push((path.to_string(), node.values.clone()));
        for dep in &node.dependencies {
            all_values(dep, &format!("{path}/{}", dep.name()), out);
        }
    }

    #[test]
    fn load_beside_shows_the_tree_before_its_values_and_then_reads_them_all() {
        let mut f = files(&[
            ("Chart.yaml", "apiVersion: v2\nname: top\nversion: 0.1.0\n"),
            ("values.yaml", "a: 1\n---\nb: yes\n"),
            ("templates/t.yaml", "a: {{ .Values.a }}\n"),
            ("charts/dir/Chart.yaml", "name: dir\nversion: 0.2.0\n"),
            ("charts/dir/values.yaml", "d: [1, 2]\n"),
            (
                "charts/dir/charts/deep/Chart.yaml",
                "name: deep\nversion: 0.3.0\n",
            ),
            ("charts/dir/charts/deep/values.yaml", "e: {f: g}\n"),
        ]);
        f.insert("charts/leaf-1.0.0.tgz".to_string(), leaf_archive());
        let chart = Chart::from_files("top", f).unwrap();
        let mut seen = Vec::new();
        let node = ChartNode::load_beside(&chart, true, |tree| {
            all_values(tree, "top", &mut seen);
            assert_eq!(tree.templates.len(), 1);
        })
        .unwrap();
        assert_eq!(seen.len(), 4);
        assert!(seen.iter().all(|(_, values)| values.is_empty()), "{seen:?}");
        let (mut beside, mut loaded) = (Vec::new(), Vec::new());
        all_values(&node, "top", &mut beside);
        all_values(&ChartNode::load(&chart, true).unwrap(), "top", &mut loaded);
        assert_eq!(beside, loaded);
        assert_eq!(loaded[0].1["b"], Value::Bool(true));
        assert_eq!(loaded[2].0, "top/dir/deep");
        assert_eq!(loaded[2].1["e"]["f"], "g");
    }

    #[test]
    fn load_beside_gives_the_error_load_gives() {
        let cases = [
            // A bad values file comes before a bad version, in Helm's order of reading.
            vec![
                ("Chart.yaml", "apiVersion: v2\nname: x\nversion: nope\n"),
                ("values.yaml", "a: [1\n"),
            ],
            vec![
                ("Chart.yaml", "apiVersion: v2\nname: x\nversion: 1.0.0\n"),
                ("charts/a/Chart.yaml", "name: a\nversion: 1.0.0\n"),
                ("charts/a/values.yaml", "a: {\n"),
                ("charts/b/Chart.yaml", "name: b\nversion: 1.0.0\n"),
                ("charts/b/values.yaml", "b: [\n"),
            ],
            vec![
                ("Chart.yaml", "apiVersion: v2\nname: x\nversion: 1.0.0\n"),
                ("values.yaml", ": : :\n"),
            ],
        ];
        for case in cases {
            let chart = Chart::from_files("x", files(&case)).unwrap();
            let loaded = ChartNode::load(&chart, true).unwrap_err().to_string();
            let beside = ChartNode::load_beside(&chart, true, |_| {})
                .unwrap_err()
                .to_string();
            assert!(loaded.contains("values.yaml"), "{loaded}");
            assert_eq!(beside, loaded);
        }
    }

    #[test]
    fn a_version_that_is_not_semver_is_refused() {
        let chart = Chart::from_files(
            "x",
            files(&[(
                "Chart.yaml",
                "apiVersion: v2\nname: x\nversion: '%VERSION%'\n",
            )]),
        )
        .unwrap();
        let err = ChartNode::load(&chart, true).unwrap_err();
        assert!(err.to_string().contains("%VERSION%"), "{err}");
    }
}
