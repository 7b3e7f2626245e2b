//! Which kinds a chart creates, read from its templates (and its subcharts' templates) without
//! rendering them.
//!
//! Templates are Go templates, not YAML, so they are read as lines: the `apiVersion:` and
//! `kind:` keys at the top level of each document (column 0), the items of a `kind: List`,
//! templated values that name their possible kinds (`default "HTTPRoute"`, both branches of an
//! `if`, a helper that prints the apiVersion), and documents that come from helpers included at
//! the top level. Every branch counts: a kind behind `{{ if }}` is a kind the chart may create,
//! and the operator must be allowed to create it the day a user turns that value on.
//!
//! Nested `kind:` keys (`subjects`, `roleRef`, `issuerRef`, `scaleTargetRef`...) are
//! references to other objects, not objects the chart creates, and are not reported. What
//! cannot be known from the text (`kind: {{ .Values.kind }}`, `{{ toYaml .Values.extraObjects }}`)
//! is reported as [`Unresolved`] with its file and line, never guessed.
//!
//! Templates may also read objects with Helm's `lookup`; Helm fails the install when that read
//! is forbidden, so those reads are reported too ([`LookupRef`]).

mod documents;
mod template;

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};

use super::Chart;
use template::Define;

/// A kind the chart creates, and where.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct KindRef {
    /// `group/version`, or `v1` for the core group, as the template writes it. When the template
    /// computes it and no literal alternative appears, it is empty; when only the group is
    /// literal (`autoscaling/{{ ... }}`), it ends with `/`.
    pub api_version: String,
    pub kind: String,
    /// Chart-relative path: `templates/deployment.yaml`, `charts/sub/templates/x.yaml`, or
    /// `charts/sub-1.0.0.tgz/templates/x.yaml` for a packaged subchart.
    pub file: String,
    /// 1-based line of the `kind:` key.
    pub line: usize,
    /// The apiVersion is chosen when the template renders (it comes from an action, such as a
    /// capabilities check), rather than written literally.
    pub api_version_templated: bool,
}

impl KindRef {
    /// The API group (`""` for the core group), or `None` when the template computes it.
    pub fn group(&self) -> Option<&str> {
        group_of(&self.api_version)
    }
}

/// The group of an apiVersion as a template writes it; `None` when it is empty (computed).
pub fn group_of(api_version: &str) -> Option<&str> {
    if api_version.is_empty() {
        None
    } else {
        Some(api_version.rsplit_once('/').map_or("", |(group, _)| group))
    }
}

/// A place where the chart creates objects whose kind cannot be known without the values.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Unresolved {
    pub file: String,
    pub line: usize,
    /// The line as written (for example `kind: {{ .Values.kind }}`).
    pub text: String,
}

/// A Helm `lookup` of existing objects: the operator needs `get` (or `list`) on them, or Helm
/// fails to render the chart.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct LookupRef {
    pub api_version: String,
    pub kind: String,
    /// The namespace is the literal `""`: the lookup reads across all namespaces (or a
    /// cluster-scoped kind).
    pub all_namespaces: bool,
    /// The name is the literal `""`: the lookup lists objects rather than getting one.
    pub lists: bool,
    pub file: String,
    pub line: usize,
}

/// Everything [`scan`] found in a chart.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KindScan {
    pub kinds: Vec<KindRef>,
    pub unresolved: Vec<Unresolved>,
    pub lookups: Vec<LookupRef>,
    /// Objects that are Helm test hooks (`helm.sh/hook: test`): only `helm test` creates them,
    /// which the helm-operator never runs, so they are not the operator's to create.
    pub test_hooks: Vec<KindRef>,
    /// Objects a render of the chart put into a namespace other than the release's: a Role in
    /// the operator's namespace does not reach them.
    pub elsewhere: Vec<Elsewhere>,
    /// What rendering the chart told that its text does not (defaults that do not render).
    pub notes: Vec<String>,
    /// The kinds a render with the chart's own values showed for an [`Unresolved`] place
    /// (file, line) of whole objects from values (`extraObjects`).
    pub shown: BTreeMap<(String, usize), Vec<String>>,
}

/// A rendered object in a namespace of its own.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Elsewhere {
    pub api_version: String,
    pub kind: String,
    pub namespace: String,
    pub file: String,
    /// The values it was rendered with (`the default values`, `ci/x-values.yaml`).
    pub values: String,
}

impl KindScan {
    /// The distinct kind names, sorted.
    pub fn kind_names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self.kinds.iter().map(|k| k.kind.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        names
    }
}

/// How deep packaged subcharts may nest inside each other before we stop opening them.
const MAX_ARCHIVE_DEPTH: usize = 8;

/// Scans every template of the chart and of its subcharts (directories under `charts/` and
/// packaged `charts/*.tgz`, recursively), and the CRDs under `crds/`, which Helm installs too.
pub fn scan(chart: &Chart) -> KindScan {
    let mut out = KindScan::default();
    // The chart's own files are borrowed, not copied: only packaged subcharts are expanded.
    let expanded = packaged_subcharts(&chart.files, &mut out);
    let files: BTreeMap<&str, &[u8]> = chart
        .files
        .iter()
        .chain(&expanded)
        .map(|(path, bytes)| (path.as_str(), bytes.as_slice()))
        .collect();
    let roots = chart_roots(files.keys().copied());

    // Helm renders the templates of a chart and all its subcharts as one set, so a helper
    // defined anywhere can be included anywhere. Parents override subcharts: keep the
    // shallowest definition. Each template is decoded and parsed once, here.
    let mut parsed: BTreeMap<&str, (Cow<str>, template::Parsed)> = BTreeMap::new();
    let mut defines: HashMap<String, Define> = HashMap::new();
    let mut by_depth: Vec<(&str, &str)> = Vec::new();
    for (&path, &bytes) in &files {
        let Some((root, relative)) = split_root(&roots, path) else {
            continue;
        };
        if relative.starts_with("templates/") {
            let text = crate::text::lossy(bytes);
            let p = template::parse(path, &text);
            parsed.insert(path, (text, p));
            by_depth.push((root, path));
        }
    }
    by_depth.sort_by_key(|(root, path)| (root.matches('/').count(), *path));
    for (_, path) in &by_depth {
        for define in &parsed[path].1.defines {
            defines
                .entry(define.name.clone())
                .or_insert_with(|| define.clone());
        }
    }

    let values: HashMap<&str, documents::LazyValues> = roots
        .iter()
        .map(|root| {
            let text = files
                .get(format!("{root}values.yaml").as_str())
                .map(|bytes| crate::text::lossy(bytes))
                .unwrap_or_default();
            (root.as_str(), documents::LazyValues::new(text))
        })
        .collect();
    let mut scanner = documents::Scanner::new(&defines, &roots, &values);
    for (&path, &bytes) in &files {
        let Some((_, relative)) = split_root(&roots, path) else {
            continue;
        };
        if let Some((text, template)) = parsed.get(path) {
            scanner.lookups(path, text);
            if is_rendered_template(relative) {
                scanner.stream(path, 1, &template.rendered, 0);
            }
        } else if relative.starts_with("crds/") && is_manifest(relative) {
            scanner.stream(path, 1, &crate::text::lossy(bytes), 0);
        }
    }
    let found = scanner.finish();
    out.kinds.extend(found.kinds);
    out.unresolved.extend(found.unresolved);
    out.lookups.extend(found.lookups);
    out.test_hooks.extend(found.test_hooks);
    sort_dedup(&mut out);
    out
}

/// Whether a template of the chart or of one of its subcharts calls Helm's `lookup`: such a
/// chart renders differently once its objects exist (a kept password, a found CRD). A pass of
/// its own, cheaper than [`scan`]: only templates that mention `lookup` are parsed.
pub fn calls_lookup(chart: &Chart) -> bool {
    let mut unreadable = KindScan::default();
    let expanded = packaged_subcharts(&chart.files, &mut unreadable);
    let files: Vec<(&str, &[u8])> = chart
        .files
        .iter()
        .chain(&expanded)
        .map(|(path, bytes)| (path.as_str(), bytes.as_slice()))
        .collect();
    let roots = chart_roots(files.iter().map(|(path, _)| *path));
    files
        .iter()
        .filter(|(path, _)| {
            split_root(&roots, path).is_some_and(|(_, relative)| relative.starts_with("templates/"))
        })
        .any(|(_, bytes)| {
            let text = crate::text::lossy(bytes);
            text.contains("lookup")
                && template::actions(&text)
                    .iter()
                    .filter(|action| !action.is_comment())
                    .any(|action| !template::lookup_calls(action).is_empty())
        })
}

/// Helm renders every file under `templates/` except `NOTES.txt` (shown, not installed) and
/// files whose name starts with `_` (helpers).
fn is_rendered_template(relative: &str) -> bool {
    let name = relative.rsplit('/').next().unwrap_or(relative);
    !(name.starts_with('_') || name == "NOTES.txt")
}

/// Helm installs the `.yaml`, `.yml` and `.json` files of `crds/`.
fn is_manifest(relative: &str) -> bool {
    [".yaml", ".yml", ".json"]
        .iter()
        .any(|ext| relative.ends_with(ext))
}

/// The files of every packaged subchart (`<root>charts/<name>.tgz`), expanded under
/// `<root>charts/<name>.tgz/`, recursively. An archive that cannot be read is reported as
/// unresolved: its kinds are unknown.
fn packaged_subcharts(
    files: &BTreeMap<String, Vec<u8>>,
    out: &mut KindScan,
) -> BTreeMap<String, Vec<u8>> {
    let mut expanded: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    let mut pending: Vec<(String, usize)> = archives_in(files.keys(), "")
        .into_iter()
        .map(|path| (path, 1))
        .collect();
    while let Some((archive, depth)) = pending.pop() {
        let Some(bytes) = files.get(&archive).or_else(|| expanded.get(&archive)) else {
            continue;
        };
        if depth > MAX_ARCHIVE_DEPTH {
            out.unresolved.push(Unresolved {
                file: archive.clone(),
                line: 0,
                text: format!("subcharts nested more than {MAX_ARCHIVE_DEPTH} deep"),
            });
            continue;
        }
        match super::archive::read_entries(&archive, bytes) {
            Ok(entries) => {
                let prefix = format!("{archive}/");
                for nested in archives_in(entries.keys(), &prefix) {
                    pending.push((nested, depth + 1));
                }
                for (path, content) in entries {
                    expanded.insert(format!("{prefix}{path}"), content);
                }
            }
            Err(e) => out.unresolved.push(Unresolved {
                file: archive.clone(),
                line: 0,
                text: format!("subchart archive cannot be read: {e}"),
            }),
        }
    }
    expanded
}

/// Paths of `.tgz` subcharts directly under some `charts/` directory, prefixed.
fn archives_in<'a>(paths: impl Iterator<Item = &'a String>, prefix: &str) -> Vec<String> {
    paths
        .filter(|path| {
            let parent = path.rsplit_once('/').map_or("", |(dir, _)| dir);
            path.ends_with(".tgz") && (parent == "charts" || parent.ends_with("/charts"))
        })
        .map(|path| format!("{prefix}{path}"))
        .collect()
}

/// Prefixes of every chart in the tree: `""` and each `.../charts/<name>/` that has a
/// `Chart.yaml`.
fn chart_roots<'a>(paths: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut roots = vec![String::new()];
    for path in paths {
        if let Some(root) = path.strip_suffix("Chart.yaml") {
            let parent = root.trim_end_matches('/').rsplit_once('/').map(|(p, _)| p);
            let in_charts_dir =
                matches!(parent, Some(p) if p == "charts" || p.ends_with("/charts"));
            if !root.is_empty() && in_charts_dir {
                roots.push(root.to_string());
            }
        }
    }
    roots
}

/// The chart a file belongs to (its longest root) and the path inside that chart.
fn split_root<'a>(roots: &'a [String], path: &'a str) -> Option<(&'a str, &'a str)> {
    roots
        .iter()
        .filter(|root| path.starts_with(root.as_str()))
        .max_by_key(|root| root.len())
        .map(|root| (root.as_str(), &path[root.len()..]))
}

fn sort_dedup(scan: &mut KindScan) {
    scan.kinds.sort_by(|a, b| {
        (&a.file, a.line, &a.kind, &a.api_version).cmp(&(&b.file, b.line, &b.kind, &b.api_version))
    });
    scan.kinds.dedup();
    scan.unresolved
        .sort_by(|a, b| (&a.file, a.line, &a.text).cmp(&(&b.file, b.line, &b.text)));
    scan.unresolved.dedup();
    scan.lookups.sort_by(|a, b| {
        (&a.file, a.line, &a.kind, &a.api_version).cmp(&(&b.file, b.line, &b.kind, &b.api_version))
    });
    scan.lookups.dedup();
    scan.test_hooks.sort_by(|a, b| {
        (&a.file, a.line, &a.kind, &a.api_version).cmp(&(&b.file, b.line, &b.kind, &b.api_version))
    });
    scan.test_hooks.dedup();
}

#[cfg(test)]
mod tests;
