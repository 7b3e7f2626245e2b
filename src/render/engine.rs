//! Rendering a chart's templates as Helm's engine does: every template of the chart and its
//! subcharts parsed into one set (deeper paths first, so a parent's `define` wins), each
//! non-partial executed with its chart's scope (`.Values`, `.Chart`, `.Files`, `.Subcharts`,
//! `.Template`), `<no value>` removed, and errors reworded as Helm words them.

use std::collections::BTreeMap;
use std::sync::Arc;

use gotemplate::{ErrorKind, Map, MissingKey, Templates, Value};
use thiserror::Error;

use super::capabilities::Capabilities;
use super::funcs::{self, ERR_END, ERR_START, Host, Lookup};
use super::go_json::map_to_engine;
use super::objects::{CapabilitiesObject, Files};
use super::tree::{ChartNode, File, ParseCache};
use super::values::Values;
use super::version_watch::KubeVersionWatch;

#[derive(Debug, Error, Clone, PartialEq)]
#[error("{0}")]
pub struct RenderError(pub String);

/// `.Release`.
#[derive(Debug, Clone)]
pub struct Release {
    pub name: String,
    pub namespace: String,
    pub revision: i64,
    pub is_install: bool,
    pub is_upgrade: bool,
}

impl Release {
    fn object(&self) -> Value {
        let map = Map::new();
        map.insert("Name", Value::String(self.name.clone()));
        map.insert("Namespace", Value::String(self.namespace.clone()));
        map.insert("IsUpgrade", Value::Bool(self.is_upgrade));
        map.insert("IsInstall", Value::Bool(self.is_install));
        map.insert("Revision", Value::Int(self.revision));
        map.insert("Service", Value::str("Helm"));
        Value::Map(map)
    }
}

/// The Go type of Helm's values (`chartutil.Values` before Helm 4).
const VALUES_TYPE: &str = "common.Values";

/// Values as Helm's named map type; anything else as it is.
fn named_values(value: Value) -> Value {
    match value {
        Value::Map(ref map) => Value::Map(map.as_named(VALUES_TYPE)),
        other => other,
    }
}

/// What Go prints for a missing value; Helm removes it from every output.
const NO_VALUE: &str = "<no value>";

struct Renderable<'c> {
    text: Arc<str>,
    parsed: &'c ParseCache,
    scope: Map,
    base_path: String,
}

/// Renders every template of `chart` (dependencies already processed) with the coalesced
/// `values`: template path -> output, partials excluded, NOTES included.
pub fn render(
    chart: &ChartNode,
    values: &Values,
    release: &Release,
    capabilities: &Capabilities,
    lookup: Arc<dyn Lookup>,
    mut watch: Option<&mut KubeVersionWatch>,
) -> Result<BTreeMap<String, String>, RenderError> {
    // Helm's top-level data and every chart's `.Values` are of its named map type.
    let top = Map::new().as_named(VALUES_TYPE);
    top.insert("Values", named_values(map_to_engine(values)));
    let mut templates = BTreeMap::new();
    let release = release.object();
    let capabilities = Value::Object(Arc::new(CapabilitiesObject {
        capabilities: Arc::new(capabilities.clone()),
        reads: watch.as_ref().map(|w| w.reads.clone()),
    }));
    collect(chart, None, &top, &release, &capabilities, &mut templates);

    let mut set = Templates::new(funcs::helm_functions(lookup));
    set.set_missing_key(MissingKey::Zero);
    let order = parse_order(templates.keys());
    parse_ahead(&set, &order, &templates);
    for name in &order {
        let renderable = &templates[name];
        let parsed = parsed(&set, name, renderable)
            .map_err(|e| RenderError(parse_error(name, &e.message)))?;
        set.add_parsed(&parsed);
    }
    let mut host = Host::default();
    let mut rendered = BTreeMap::new();
    for name in &order {
        let base = name.rsplit('/').next().unwrap_or(name);
        if base.starts_with('_') {
            continue;
        }
        let renderable = &templates[name];
        let template = Map::new();
        template.insert("Name", Value::String(name.clone()));
        template.insert("BasePath", Value::String(renderable.base_path.clone()));
        renderable.scope.insert("Template", Value::Map(template));
        let scope = Value::Map(renderable.scope.clone());
        let output = match watch.as_deref_mut() {
            Some(w) => set.execute_watching(name, &scope, Some(&mut host), &mut w.substitution),
            None => set.execute_with_host(name, &scope, &mut host),
        }
        .map_err(|e| RenderError(exec_error(name, &e)))?;
        // Searching first spares a copy of the output in the usual case of nothing to remove;
        // memchr's search (SIMD) reads a megabyte of CRDs several times faster than `contains`.
        let output = if memchr::memmem::find(output.as_bytes(), NO_VALUE.as_bytes()).is_some() {
            output.replace(NO_VALUE, "")
        } else {
            output
        };
        rendered.insert(name.clone(), output);
    }
    Ok(rendered)
}

/// Builds a chart's scope and collects its templates; returns the scope (for `.Subcharts`).
fn collect<'c>(
    chart: &'c ChartNode,
    parent: Option<(&str, &Map)>,
    parent_scope: &Map,
    release: &Value,
    capabilities: &Value,
    out: &mut BTreeMap<String, Renderable<'c>>,
) -> Map {
    let is_root = parent.is_none();
    let full_path = full_path(chart, parent.map(|(path, _)| path));
    let chart_object = map_to_engine(&chart.chart_object(is_root));
    let files: BTreeMap<String, Arc<[u8]>> = chart
        .files
        .iter()
        .map(|f| (f.name.clone(), f.data.clone()))
        .collect();
    let subcharts = Map::new();
    let scope = Map::new().as_named(VALUES_TYPE);
    scope.insert("Chart", chart_object);
    scope.insert("Files", Value::Object(Arc::new(Files::new(files))));
    scope.insert("Release", release.clone());
    scope.insert("Capabilities", capabilities.clone());
    scope.insert("Subcharts", Value::Map(subcharts.clone()));
    let chart_values = if is_root {
        parent_scope
            .get("Values")
            .unwrap_or_else(|| Value::Map(Map::new().as_named(VALUES_TYPE)))
    } else {
        // A subchart sees its parent's `.Values.<name>`, the same map (changes are shared).
        match parent_scope.get("Values") {
            Some(Value::Map(ref parent_values)) => match parent_values.get(chart.name()) {
                Some(Value::Map(ref own)) => Value::Map(own.as_named(VALUES_TYPE)),
                _ => Value::Map(Map::new().as_named(VALUES_TYPE)),
            },
            _ => Value::Map(Map::new().as_named(VALUES_TYPE)),
        }
    };
    scope.insert("Values", chart_values);
    for dep in &chart.dependencies {
        let sub_scope = collect(
            dep,
            Some((&full_path, &scope)),
            &scope,
            release,
            capabilities,
            out,
        );
        subcharts.insert(dep.name(), Value::Map(sub_scope));
    }
    for template in rendered_templates(chart) {
        out.insert(
            format!("{full_path}/{}", template.name),
            Renderable {
                text: template_text(template),
                parsed: &template.parsed,
                scope: scope.clone(),
                base_path: format!("{full_path}/templates"),
            },
        );
    }
    scope
}

/// A chart's path in the names of its templates: `top`, `top/charts/sub`.
fn full_path(chart: &ChartNode, parent_path: Option<&str>) -> String {
    match parent_path {
        None => chart.name().to_string(),
        Some(parent_path) => format!("{parent_path}/charts/{}", chart.name()),
    }
}

/// The templates of `chart` that are rendered or included: a library chart's partials only.
fn rendered_templates(chart: &ChartNode) -> impl Iterator<Item = &File> {
    chart.templates.iter().filter(|template| {
        let base = template.name.rsplit('/').next().unwrap_or(&template.name);
        !chart.is_library() || base.starts_with('_')
    })
}

/// Starts parsing every template of `chart` and its subcharts into the chart's cache, under
/// the names a render gives them, on a thread of `scope`: a render started meanwhile finds
/// them parsed (or waits for the one being parsed). The probe starts it as soon as the chart's
/// tree is loaded, while its values files are still being read. `parsed` is called once every
/// template is parsed, by this thread or a render's.
pub fn start_parsing_templates<'scope>(
    scope: &'scope std::thread::Scope<'scope, '_>,
    chart: &ChartNode,
    parsed: &'scope (dyn Fn() + Sync),
) {
    let mut jobs = Vec::new();
    collect_parse_jobs(chart, None, &mut jobs);
    // The longest first: the render waits for the last template parsed, and the short ones
    // left when it starts share out evenly over its parse workers.
    jobs.sort_by_key(|(_, text, _)| std::cmp::Reverse(text.len()));
    scope.spawn(move || {
        let set = Templates::new(funcs::helm_functions(Arc::new(funcs::NoCluster)));
        for (name, text, cache) in jobs {
            // A template a render's parse has begun waits here until it is parsed.
            let _ = parse_cached(&set, &name, text, &cache);
        }
        parsed();
    });
}

/// Each template [`start_parsing_templates`] parses: its name, its text and its cache.
fn collect_parse_jobs(
    chart: &ChartNode,
    parent_path: Option<&str>,
    jobs: &mut Vec<(String, Arc<str>, ParseCache)>,
) {
    let path = full_path(chart, parent_path);
    for dep in &chart.dependencies {
        collect_parse_jobs(dep, Some(&path), jobs);
    }
    for template in rendered_templates(chart) {
        jobs.push((
            format!("{path}/{}", template.name),
            template_text(template),
            template.parsed.clone(),
        ));
    }
}

/// Parses the templates not parsed yet on every core, into the chart's cache: parsing is a
/// good part of a chart's first render, and every template parses on its own.
fn parse_ahead(set: &Templates, order: &[String], templates: &BTreeMap<String, Renderable<'_>>) {
    let mut unparsed: Vec<&String> = order
        .iter()
        .filter(|name| templates[*name].parsed.get().is_none())
        .collect();
    // The longest first, dealt out in turn: the workers' shares come out near equal.
    unparsed.sort_by_key(|name| std::cmp::Reverse(templates[*name].text.len()));
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(unparsed.len());
    if workers < 2 {
        return;
    }
    let parse_share = |worker: usize| {
        for name in unparsed.iter().skip(worker).step_by(workers) {
            // Errors are kept in the cache and reported by the render in its order.
            let _ = parsed(set, name, &templates[*name]);
        }
    };
    std::thread::scope(|scope| {
        for worker in 1..workers {
            scope.spawn(move || parse_share(worker));
        }
        parse_share(0);
    });
}

/// The template `name` parsed: from the chart's cache when it was parsed under that name
/// before (the same chart rendered again), else parsed now and kept for the next render.
fn parsed(
    set: &Templates,
    name: &str,
    renderable: &Renderable<'_>,
) -> Result<gotemplate::Parsed, gotemplate::Error> {
    parse_cached(set, name, renderable.text.clone(), renderable.parsed)
}

/// `text` parsed as the template `name`, through `cache`.
fn parse_cached(
    set: &Templates,
    name: &str,
    text: Arc<str>,
    cache: &ParseCache,
) -> Result<gotemplate::Parsed, gotemplate::Error> {
    // Renders of one chart on other threads wait for this parse rather than repeat it. The
    // first name a template is parsed under is kept; a chart used under two names (two
    // aliases of one dependency) parses the other anew each time.
    let (cached_name, result) =
        cache.get_or_init(|| (name.to_string(), set.parse_shared(name, text.clone())));
    if cached_name == name {
        result.clone()
    } else {
        set.parse_shared(name, text)
    }
}

/// A template's text: made at load when it is valid UTF-8, else its bytes with invalid UTF-8
/// replaced, as Go's conversion to string does.
fn template_text(template: &File) -> Arc<str> {
    template
        .text
        .clone()
        .unwrap_or_else(|| Arc::from(crate::text::lossy(&template.data)))
}

/// Helm parses (and renders) deeper paths first, and paths of one depth in reverse order.
fn parse_order<'a>(names: impl Iterator<Item = &'a String>) -> Vec<String> {
    let mut names: Vec<String> = names.cloned().collect();
    names.sort_by(|a, b| {
        let (da, db) = (a.matches('/').count(), b.matches('/').count());
        db.cmp(&da).then_with(|| b.cmp(a))
    });
    names
}

/// Helm's wording of a parse error: `parse error at (name:line): message`.
fn parse_error(name: &str, message: &str) -> String {
    let tokens: Vec<&str> = message.split(": ").collect();
    if tokens.len() == 1 {
        return format!("parse error in ({name}): {message}");
    }
    format!(
        "parse error at ({}): {}",
        tokens[1],
        tokens[tokens.len() - 1]
    )
}

/// Helm's wording of an execution error: a `required`/`fail` message with its location, or
/// the chain of template locations down to the failing call.
fn exec_error(name: &str, error: &gotemplate::Error) -> String {
    let message = &error.message;
    if error.kind == ErrorKind::Limit {
        return message.clone();
    }
    let tokens: Vec<&str> = message.splitn(3, ": ").collect();
    if tokens.len() != 3 || tokens[0] != "template" {
        return format!("execution error in ({name}): {message}");
    }
    if let Some(start) = tokens[2].find(ERR_START) {
        let rest = &tokens[2][start + ERR_START.len()..];
        if let Some(end) = rest.rfind(ERR_END) {
            return format!("execution error at ({}): {}", tokens[1], &rest[..end]);
        }
    }
    let mut chain: Vec<String> = Vec::new();
    let mut current = message.as_str();
    while let Some(entry) = traceable(current) {
        // Go wraps a function's own error (`error calling NAME: %w`); unwrapping down to it
        // finds a text that is no template error, and Helm then shows Go's message as it is.
        let entry = match entry {
            Traceable::PlainCall => return message.clone(),
            Traceable::Level(entry) => entry,
        };
        if chain.last() != Some(&entry) {
            chain.push(entry);
        }
        // The wrapped error's text follows as " template: ...".
        match current[1..].find("template: ") {
            Some(i) => current = &current[i + 1..],
            None => break,
        }
    }
    if chain.is_empty() {
        return message.clone();
    }
    chain.concat().trim().to_string()
}

enum Traceable {
    /// One level of Helm's TraceableError, formatted.
    Level(String),
    /// A level whose cause is a function's error that is not a template's.
    PlainCall,
}

/// One level of Helm's TraceableError.
fn traceable(text: &str) -> Option<Traceable> {
    let rest = text.strip_prefix("template: ")?;
    if rest.starts_with("no template ") {
        return Some(Traceable::Level(format!("{text}\n")));
    }
    let cut = |m: &str| -> String {
        match m.find(" template:") {
            Some(i) => m[..i].to_string(),
            None => m.to_string(),
        }
    };
    if let Some((template, after)) = rest.split_once(": executing ")
        && let Some(after) = after.strip_prefix('"')
        && let Some((function, after_function)) = after.split_once('"')
        && let Some(after_at) = after_function.strip_prefix(" at <")
        && let Some((location, message)) = after_at.split_once(">: ")
    {
        if let Some(called) = message.strip_prefix("error calling ")
            && called
                .split_once(": ")
                .is_some_and(|(_, cause)| !cause.starts_with("template: "))
        {
            return Some(Traceable::PlainCall);
        }
        return Some(Traceable::Level(format!(
            "{template}\n  executing \"{function}\" at <{location}>:\n    {}\n",
            cut(message)
        )));
    }
    let (template, message) = rest.rsplit_once(": ")?;
    Some(Traceable::Level(format!(
        "{template}\n  {}\n",
        cut(message)
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chart(templates: &[(&str, &str)]) -> ChartNode {
        let mut files: BTreeMap<String, Vec<u8>> = templates
            .iter()
            .map(|(k, v)| (format!("templates/{k}"), v.as_bytes().to_vec()))
            .collect();
        files.insert(
            "Chart.yaml".to_string(),
            b"apiVersion: v2\nname: c\nversion: 0.1.0\n".to_vec(),
        );
        let chart = crate::chart::Chart::from_files("c", files).unwrap();
        ChartNode::load(&chart, false).unwrap()
    }

    fn render_once(chart: &ChartNode) -> Result<BTreeMap<String, String>, RenderError> {
        let caps = Capabilities::new(None, &[]);
        let release = Release {
            name: "r".to_string(),
            namespace: "n".to_string(),
            revision: 1,
            is_install: true,
            is_upgrade: false,
        };
        let values = Values::new();
        render(
            chart,
            &values,
            &release,
            &caps,
            Arc::new(funcs::NoCluster),
            None,
        )
    }

    #[test]
    fn a_chart_rendered_again_reuses_its_parsed_templates_with_the_same_result() {
        let chart = chart(&[
            (
                "_h.tpl",
                r#"{{ define "h" }}name: {{ .Release.Name }}{{ end }}"#,
            ),
            ("a.yaml", r#"{{ include "h" . }}"#),
        ]);
        let first = render_once(&chart).unwrap();
        assert!(chart.templates.iter().all(|t| t.parsed.get().is_some()));
        assert_eq!(render_once(&chart.clone()).unwrap(), first);
        assert_eq!(first["c/templates/a.yaml"], "name: r");

        let broken = self::chart(&[("a.yaml", "{{ if }}")]);
        let error = render_once(&broken).unwrap_err();
        assert_eq!(render_once(&broken).unwrap_err(), error);
        assert!(
            error.0.starts_with("parse error at (c/templates/a.yaml:1)"),
            "{error}"
        );
    }

    #[test]
    fn each_from_yaml_of_a_text_read_before_gets_values_of_its_own() {
        // The second read of the text comes from the render's record of the first; the map
        // the first gave was changed meanwhile, and the change must not show in the second.
        let chart = chart(&[(
            "a.yaml",
            concat!(
                r#"{{ $a := fromYaml "x: 1\ny: [1]" }}{{ $_ := set $a "x" 2 }}"#,
                r#"{{ $_ := set $a "z" 3 }}{{ $b := fromYaml "x: 1\ny: [1]" }}"#,
                r#"{{ $b | toJson }} {{ $a | toJson }} {{ fromYaml "- 1" | toJson }}"#,
            ),
        )]);
        let out = render_once(&chart).unwrap();
        assert_eq!(
            out["c/templates/a.yaml"],
            r#"{"x":1,"y":[1]} {"x":2,"y":[1],"z":3} {"Error":"error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go value of type map[string]interface {}"}"#
        );
    }

    #[test]
    fn helm_parses_deeper_templates_first() {
        let names = [
            "c/templates/a.yaml".to_string(),
            "c/templates/b.yaml".to_string(),
            "c/charts/s/templates/x.yaml".to_string(),
            "c/templates/_h.tpl".to_string(),
        ];
        assert_eq!(
            parse_order(names.iter()),
            vec![
                "c/charts/s/templates/x.yaml",
                "c/templates/b.yaml",
                "c/templates/a.yaml",
                "c/templates/_h.tpl"
            ]
        );
    }

    #[test]
    fn required_messages_are_lifted_out() {
        let e = gotemplate::Error {
            kind: ErrorKind::Exec,
            message: format!(
                "template: c/templates/a.yaml:3:4: executing \"c/templates/a.yaml\" at <required \"x\" .Values.x>: error calling required: {ERR_START}x is required{ERR_END}"
            ),
        };
        assert_eq!(
            exec_error("c/templates/a.yaml", &e),
            "execution error at (c/templates/a.yaml:3:4): x is required"
        );
    }
}
