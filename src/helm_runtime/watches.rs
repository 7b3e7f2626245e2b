//! watches.yaml as the helm-operator (operator-sdk v1.42) reads it: which custom resource kinds
//! the runtime reconciles, with which chart and options.
//!
//! Compatibility notes, from the helm-operator's loader:
//! - Keys are matched as Go's `encoding/json` matches them (exact, else case-insensitive) and
//!   unknown keys are ignored; we return them as warnings, since a typo silently loses a setting.
//! - `group` may be empty (the core group); `version` and `kind` may not; one entry per kind.
//! - `chart` must be a directory holding a `Chart.yaml` with a `name`, resolved against the
//!   working directory (the helm-operator runs in /opt/helm), not against watches.yaml's folder.
//! - `watchDependentResources` defaults to true.
//! - `overrideValues` values must be strings (Go refuses numbers); each is expanded as
//!   `os.ExpandEnv` does and then run as a Go template with the Sprig functions.
//! - `reconcilePeriod` is a Go duration; zero or absent means the `--reconcile-period` flag.
//! - `maxConcurrentReconciles` is not read by the Go helm-operator v1.42 (there it is only the
//!   `--max-concurrent-reconciles` flag); we accept it per kind, as the Ansible operator does.
//! - `dryRunOption` goes to Helm's upgrade dry run. Helm 3.18 (inside v1.42) consults the
//!   cluster (so `lookup` sees live objects) for `server`, `none` and `false`, and renders
//!   offline for empty, `client` and `true`; it treats any other text as `client` silently,
//!   which we refuse instead.

use std::collections::{BTreeMap, HashSet};
use std::fmt;
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value as Json;

use super::expand_env;
use super::label_selector::LabelSelector;

/// One entry of watches.yaml, defaults applied and values expanded.
#[derive(Debug, Clone, PartialEq)]
pub struct Watch {
    pub group: String,
    pub version: String,
    pub kind: String,
    /// The chart as written in the file.
    pub chart: String,
    /// The chart directory, resolved against the base the file was loaded with.
    pub chart_dir: PathBuf,
    pub watch_dependent_resources: bool,
    /// strvals-style dotted keys (`image.repository`) to their expanded values.
    pub override_values: BTreeMap<String, String>,
    /// `None`: the `--reconcile-period` flag decides.
    pub reconcile_period: Option<Duration>,
    /// `None`: the `--max-concurrent-reconciles` flag decides.
    pub max_concurrent_reconciles: Option<NonZeroUsize>,
    pub selector: LabelSelector,
    pub dry_run: DryRun,
}

/// How the upgrade dry run that detects changes renders the chart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DryRun {
    /// Offline: `lookup` finds nothing.
    Client,
    /// Against the cluster: `lookup` sees live objects.
    Server,
}

impl Watch {
    /// `group/version`, or `version` alone for the core group.
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }
}

/// The entries of a watches file, and keys that were ignored.
#[derive(Debug, Clone, PartialEq)]
pub struct Watches {
    pub entries: Vec<Watch>,
    /// One line per ignored key, naming the entry: not errors, because the helm-operator
    /// ignores them too and a project must keep loading.
    pub warnings: Vec<String>,
}

/// What was wrong, where: the file, the entry (1-based, with its kind when known) and the rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WatchesError {
    pub file: PathBuf,
    pub entry: Option<String>,
    pub message: String,
}

impl fmt::Display for WatchesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.entry {
            Some(entry) => write!(f, "{}: {entry}: {}", self.file.display(), self.message),
            None => write!(f, "{}: {}", self.file.display(), self.message),
        }
    }
}

impl std::error::Error for WatchesError {}

/// Reads `path`, resolving charts against `chart_base` and expanding from the environment.
pub fn load(path: &Path, chart_base: &Path) -> Result<Watches, WatchesError> {
    let text = std::fs::read_to_string(path).map_err(|e| WatchesError {
        file: path.to_path_buf(),
        entry: None,
        message: format!("cannot read the watches file: {e}"),
    })?;
    parse(&text, path, chart_base, &|name| std::env::var(name).ok())
}

/// Parses watches text; `file` names it in errors, `env` looks variables up.
pub fn parse(
    text: &str,
    file: &Path,
    chart_base: &Path,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Watches, WatchesError> {
    let fail = |entry: Option<String>, message: String| WatchesError {
        file: file.to_path_buf(),
        entry,
        message,
    };
    let document: Json =
        crate::yaml::from_str_go(text).map_err(|e| fail(None, format!("not valid YAML: {e}")))?;
    let items = match document {
        // An empty file is an empty list to Go's YAML reader.
        Json::Null => Vec::new(),
        Json::Array(items) => items,
        other => {
            return Err(fail(
                None,
                format!(
                    "a watches file is a list of entries (\"- group: ...\"), but this one is {}",
                    describe(&other)
                ),
            ));
        }
    };
    let mut entries = Vec::with_capacity(items.len());
    let mut warnings = Vec::new();
    let mut seen = HashSet::new();
    for (index, item) in items.iter().enumerate() {
        let mut label = format!("entry {}", index + 1);
        let fields = match item {
            Json::Object(map) => map,
            other => {
                return Err(fail(
                    Some(label),
                    format!(
                        "an entry is a mapping with group, version, kind and chart, but this one is {}",
                        describe(other)
                    ),
                ));
            }
        };
        let raw = Raw::collect(fields, &mut |key| {
            warnings.push(format!(
                "{}: {label}: unknown key {key:?} is ignored (the keys are {})",
                file.display(),
                KNOWN.join(", ")
            ))
        });
        let group = raw
            .string("group")
            .map_err(|m| fail(Some(label.clone()), m))?;
        let version = raw
            .string("version")
            .map_err(|m| fail(Some(label.clone()), m))?;
        let kind = raw
            .string("kind")
            .map_err(|m| fail(Some(label.clone()), m))?;
        label = format!(
            "entry {} (kind {} {})",
            index + 1,
            if group.is_empty() {
                version.clone()
            } else {
                format!("{group}/{version}")
            },
            kind
        );
        let entry = || Some(label.clone());
        let watch =
            build(&raw, group, version, kind, chart_base, env).map_err(|m| fail(entry(), m))?;
        if !seen.insert((
            watch.group.clone(),
            watch.version.clone(),
            watch.kind.clone(),
        )) {
            return Err(fail(
                entry(),
                "this group, version and kind is already watched by an earlier entry: each kind has one chart".to_string(),
            ));
        }
        entries.push(watch);
    }
    Ok(Watches { entries, warnings })
}

const KNOWN: [&str; 10] = [
    "group",
    "version",
    "kind",
    "chart",
    "watchDependentResources",
    "overrideValues",
    "reconcilePeriod",
    "maxConcurrentReconciles",
    "selector",
    "dryRunOption",
];

/// An entry's values by canonical key, found as Go's JSON decoder finds struct fields.
struct Raw<'a> {
    values: BTreeMap<&'static str, &'a Json>,
}

impl<'a> Raw<'a> {
    fn collect(fields: &'a serde_json::Map<String, Json>, unknown: &mut dyn FnMut(&str)) -> Self {
        let mut values = BTreeMap::new();
        for (key, value) in fields {
            let known = KNOWN
                .iter()
                .find(|k| **k == key)
                .or_else(|| KNOWN.iter().find(|k| k.eq_ignore_ascii_case(key)));
            match known {
                // A null leaves a Go field at its zero value: the same as leaving it out.
                Some(k) if value.is_null() => {
                    values.remove(k);
                }
                Some(k) => {
                    values.insert(*k, value);
                }
                None => unknown(key),
            }
        }
        Raw { values }
    }

    fn get(&self, key: &str) -> Option<&'a Json> {
        self.values.get(key).copied()
    }

    fn string(&self, key: &str) -> Result<String, String> {
        match self.get(key) {
            None => Ok(String::new()),
            Some(Json::String(s)) => Ok(s.clone()),
            Some(other) => Err(format!(
                "{key} must be a string, but it is {}",
                describe(other)
            )),
        }
    }
}

fn build(
    raw: &Raw<'_>,
    group: String,
    version: String,
    kind: String,
    chart_base: &Path,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Watch, String> {
    if version.is_empty() {
        return Err("version must not be empty (for example v1alpha1)".to_string());
    }
    if kind.is_empty() {
        return Err("kind must not be empty (for example MyApp)".to_string());
    }
    let chart = raw.string("chart")?;
    let chart_dir = check_chart_dir(&chart, chart_base)?;
    let watch_dependent_resources = match raw.get("watchDependentResources") {
        None => true,
        Some(Json::Bool(b)) => *b,
        Some(other) => {
            return Err(format!(
                "watchDependentResources must be true or false, but it is {}",
                describe(other)
            ));
        }
    };
    let override_values = override_values(raw.get("overrideValues"), env)?;
    let reconcile_period = match raw.string("reconcilePeriod")?.as_str() {
        "" => None,
        text => {
            let nanos = crate::duration::parse_go(text)
                .map_err(|e| format!("reconcilePeriod {text:?} is not a Go duration ({e}); write for example 30s, 5m or 1h"))?;
            if nanos < 0 {
                // Go accepts it and then never requeues: surely not what was meant.
                return Err(format!(
                    "reconcilePeriod {text:?} is negative; write a positive duration such as 5m, or 0 for the --reconcile-period flag"
                ));
            }
            (nanos > 0).then(|| Duration::from_nanos(nanos.unsigned_abs()))
        }
    };
    let max_concurrent_reconciles = match raw.get("maxConcurrentReconciles") {
        None => None,
        Some(value) => Some(
            value
                .as_u64()
                .and_then(|n| usize::try_from(n).ok())
                .and_then(NonZeroUsize::new)
                .ok_or_else(|| {
                    format!(
                        "maxConcurrentReconciles must be a whole number of at least 1, but it is {}",
                        describe(value)
                    )
                })?,
        ),
    };
    let selector = match raw.get("selector") {
        None => LabelSelector::default(),
        Some(value) => {
            let selector: LabelSelector = serde_json::from_value(value.clone()).map_err(|e| {
                format!("selector must be a label selector with matchLabels and/or matchExpressions ({e})")
            })?;
            selector.validate().map_err(|e| format!("selector: {e}"))?;
            selector
        }
    };
    let dry_run = match raw.string("dryRunOption")?.as_str() {
        "" | "client" | "true" => DryRun::Client,
        "server" | "none" | "false" => DryRun::Server,
        other => {
            return Err(format!(
                "dryRunOption {other:?} is not one of client or server (Helm also reads true and none/false as these)"
            ));
        }
    };
    Ok(Watch {
        group,
        version,
        kind,
        chart,
        chart_dir,
        watch_dependent_resources,
        override_values,
        reconcile_period,
        max_concurrent_reconciles,
        selector,
        dry_run,
    })
}

/// Checks what Helm's `IsChartDir` checks: a directory with a Chart.yaml that names the chart.
fn check_chart_dir(chart: &str, base: &Path) -> Result<PathBuf, String> {
    if chart.is_empty() {
        return Err(
            "chart must name the chart's directory (for example helm-charts/myapp)".to_string(),
        );
    }
    let dir = base.join(chart);
    let metadata = std::fs::metadata(&dir)
        .map_err(|e| format!("chart directory {} cannot be read: {e}", dir.display()))?;
    if !metadata.is_dir() {
        return Err(format!(
            "chart {} is not a directory: the helm-operator needs an unpacked chart, not an archive",
            dir.display()
        ));
    }
    let chart_yaml = dir.join("Chart.yaml");
    let text = std::fs::read_to_string(&chart_yaml).map_err(|e| {
        format!(
            "chart directory {} has no readable Chart.yaml ({e})",
            dir.display()
        )
    })?;
    let parsed: Json = crate::yaml::from_str_go(&text)
        .map_err(|e| format!("{} is not valid YAML: {e}", chart_yaml.display()))?;
    match parsed.get("name") {
        Some(Json::String(name)) if !name.is_empty() => Ok(dir),
        _ => Err(format!(
            "{} must give the chart a name",
            chart_yaml.display()
        )),
    }
}

/// Expands each value from the environment, then runs it as a Go template with Sprig.
fn override_values(
    value: Option<&Json>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<BTreeMap<String, String>, String> {
    let map = match value {
        None => return Ok(BTreeMap::new()),
        Some(Json::Object(map)) => map,
        Some(other) => {
            return Err(format!(
                "overrideValues must map value paths to strings (image.tag: \"1.2\"), but it is {}",
                describe(other)
            ));
        }
    };
    let mut out = BTreeMap::new();
    for (key, value) in map {
        let Json::String(text) = value else {
            return Err(format!(
                "overrideValues.{key} must be a string, but it is {}; quote it (for example \"2\" or \"true\"): Helm's --set reading turns it back into a number or boolean",
                describe(value)
            ));
        };
        let expanded = expand_env::expand(text, env);
        // Go's default missing-key behaviour, as the helm-operator leaves it (not Helm's).
        let mut set = gotemplate::Templates::new(gotemplate::Functions::sprig());
        let rendered = set
            .parse(key, &expanded)
            .and_then(|set| set.execute(key, &gotemplate::Value::Nil))
            .map_err(|e| {
                format!("overrideValues.{key}: {expanded:?} is not a valid template: {e}")
            })?;
        out.insert(key.clone(), rendered);
    }
    Ok(out)
}

/// A value's YAML shape, for messages.
fn describe(value: &Json) -> String {
    match value {
        Json::Null => "empty".to_string(),
        Json::Bool(b) => format!("the boolean {b}"),
        Json::Number(n) => format!("the number {n}"),
        Json::String(s) => format!("the string {s:?}"),
        Json::Array(_) => "a list".to_string(),
        Json::Object(_) => "a mapping".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A base directory with a chart at `charts/app`.
    fn base() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("charts/app")).unwrap();
        std::fs::write(
            dir.path().join("charts/app/Chart.yaml"),
            "apiVersion: v2\nname: app\nversion: 0.1.0\n",
        )
        .unwrap();
        dir
    }

    fn env(name: &str) -> Option<String> {
        (name == "MY_IMAGE").then(|| "quay.io/example/app:1.2".to_string())
    }

    fn parse_text(text: &str) -> Result<Watches, WatchesError> {
        let dir = base();
        parse(text, Path::new("watches.yaml"), dir.path(), &env)
    }

    fn error(text: &str) -> String {
        parse_text(text).unwrap_err().to_string()
    }

    const ENTRY: &str =
        "- group: cache.example.com\n  version: v1alpha1\n  kind: Memcached\n  chart: charts/app\n";

    #[test]
    fn applies_the_helm_operator_defaults() {
        let watches = parse_text(ENTRY).unwrap();
        assert!(watches.warnings.is_empty());
        let w = &watches.entries[0];
        assert_eq!(w.api_version(), "cache.example.com/v1alpha1");
        assert_eq!(w.kind, "Memcached");
        assert!(w.watch_dependent_resources);
        assert!(w.override_values.is_empty());
        assert_eq!(w.reconcile_period, None);
        assert_eq!(w.max_concurrent_reconciles, None);
        assert!(w.selector.is_empty());
        assert_eq!(w.dry_run, DryRun::Client);
        assert!(w.chart_dir.ends_with("charts/app"));
    }

    #[test]
    fn reads_every_field() {
        let text = format!(
            "{ENTRY}  watchDependentResources: false\n  overrideValues:\n    image.repository: '{{{{ (\"$MY_IMAGE\" | split \":\")._0 }}}}'\n    image.tag: '{{{{ (\"${{MY_IMAGE}}\" | split \":\")._1 }}}}'\n    plain: $UNSET-x\n  reconcilePeriod: 1m30s\n  maxConcurrentReconciles: 4\n  selector:\n    matchLabels: {{tier: web}}\n    matchExpressions:\n    - {{key: env, operator: In, values: [prod]}}\n  dryRunOption: server\n"
        );
        let w = parse_text(&text).unwrap().entries.remove(0);
        assert!(!w.watch_dependent_resources);
        assert_eq!(w.override_values["image.repository"], "quay.io/example/app");
        assert_eq!(w.override_values["image.tag"], "1.2");
        assert_eq!(w.override_values["plain"], "-x");
        assert_eq!(w.reconcile_period, Some(Duration::from_secs(90)));
        assert_eq!(w.max_concurrent_reconciles, NonZeroUsize::new(4));
        assert_eq!(w.selector.to_query(), "env in (prod),tier=web");
        assert_eq!(w.dry_run, DryRun::Server);
    }

    #[test]
    fn matches_keys_as_go_json_does_and_warns_about_unknown_ones() {
        let text = "- Group: g.example.com\n  VERSION: v1\n  kind: K\n  chart: charts/app\n  watchDependentResource: false\n  reconcilePeriod: \"0\"\n";
        let watches = parse_text(text).unwrap();
        let w = &watches.entries[0];
        assert_eq!(w.group, "g.example.com");
        assert_eq!(w.version, "v1");
        // The typo is ignored, so the default stays, and it is reported.
        assert!(w.watch_dependent_resources);
        assert_eq!(w.reconcile_period, None);
        assert_eq!(watches.warnings.len(), 1);
        assert!(
            watches.warnings[0].contains("entry 1: unknown key \"watchDependentResource\""),
            "{}",
            watches.warnings[0]
        );
    }

    #[test]
    fn the_core_group_and_an_empty_file_are_fine() {
        let w = parse_text("- version: v1\n  kind: ConfigMap\n  chart: charts/app\n").unwrap();
        assert_eq!(w.entries[0].api_version(), "v1");
        assert!(parse_text("").unwrap().entries.is_empty());
        assert!(parse_text("# only a comment\n").unwrap().entries.is_empty());
        assert!(parse_text("[]").unwrap().entries.is_empty());
    }

    #[test]
    fn every_bad_input_names_the_file_the_entry_and_the_rule() {
        let with = |extra: &str| format!("{ENTRY}{extra}");
        let cases: Vec<(String, &str)> = vec![
            (
                "group: x\n".into(),
                "watches.yaml: a watches file is a list of entries",
            ),
            (
                "- just a string\n".into(),
                "watches.yaml: entry 1: an entry is a mapping",
            ),
            (
                "- version: v1\n  kind: K\n  chart: charts/app\n  group: 3\n".into(),
                "entry 1: group must be a string, but it is the number 3",
            ),
            (
                "- group: g\n  kind: K\n  chart: charts/app\n".into(),
                "entry 1 (kind g/ K): version must not be empty",
            ),
            (
                "- group: g\n  version: v1\n  chart: charts/app\n".into(),
                "entry 1 (kind g/v1 ): kind must not be empty",
            ),
            (
                "- group: g\n  version: v1\n  kind: K\n".into(),
                "chart must name the chart's directory",
            ),
            (
                "- group: g\n  version: v1\n  kind: K\n  chart: charts/missing\n".into(),
                "chart directory",
            ),
            (
                "- group: g\n  version: v1\n  kind: K\n  chart: charts/app/Chart.yaml\n".into(),
                "is not a directory",
            ),
            (
                format!("{ENTRY}{ENTRY}"),
                "entry 2 (kind cache.example.com/v1alpha1 Memcached): this group, version and kind is already watched",
            ),
            (
                with("  watchDependentResources: sometimes\n"),
                "watchDependentResources must be true or false, but it is the string \"sometimes\"",
            ),
            (
                with("  overrideValues: [a]\n"),
                "overrideValues must map value paths to strings",
            ),
            (
                with("  overrideValues:\n    replicaCount: 2\n"),
                "overrideValues.replicaCount must be a string, but it is the number 2; quote it",
            ),
            (
                with("  overrideValues:\n    a: '{{ .x'\n"),
                "overrideValues.a: \"{{ .x\" is not a valid template",
            ),
            (
                with("  reconcilePeriod: 5\n"),
                "reconcilePeriod must be a string, but it is the number 5",
            ),
            (
                with("  reconcilePeriod: 5 minutes\n"),
                "reconcilePeriod \"5 minutes\" is not a Go duration (time: unknown unit \" minutes\" in duration \"5 minutes\")",
            ),
            (
                with("  reconcilePeriod: -1m\n"),
                "reconcilePeriod \"-1m\" is negative",
            ),
            (
                with("  maxConcurrentReconciles: 0\n"),
                "maxConcurrentReconciles must be a whole number of at least 1, but it is the number 0",
            ),
            (
                with("  maxConcurrentReconciles: two\n"),
                "maxConcurrentReconciles must be a whole number",
            ),
            (
                with("  selector: [a]\n"),
                "selector must be a label selector",
            ),
            (
                with("  selector:\n    matchExpressions: [{key: a, operator: In}]\n"),
                "selector: matchExpressions[0] (key \"a\"): operator In needs at least one value",
            ),
            (
                with("  dryRunOption: always\n"),
                "dryRunOption \"always\" is not one of client or server",
            ),
            (
                "- group: [unclosed\n".into(),
                "watches.yaml: not valid YAML",
            ),
        ];
        for (text, want) in cases {
            let got = error(&text);
            assert!(
                got.contains(want),
                "for\n{text}\nwant {want:?}\ngot  {got:?}"
            );
            assert!(got.starts_with("watches.yaml: "), "{got}");
        }
    }

    #[test]
    fn dry_run_options_follow_helm() {
        for (option, want) in [
            ("client", DryRun::Client),
            ("true", DryRun::Client),
            ("server", DryRun::Server),
            ("none", DryRun::Server),
            ("false", DryRun::Server),
        ] {
            let text = format!("{ENTRY}  dryRunOption: \"{option}\"\n");
            assert_eq!(
                parse_text(&text).unwrap().entries[0].dry_run,
                want,
                "{option}"
            );
        }
    }

    #[test]
    fn loads_a_scaffolded_watches_file() {
        let dir = base();
        let path = dir.path().join("watches.yaml");
        std::fs::write(
            &path,
            format!("# Use the 'create api' subcommand to add watches to this file.\n{ENTRY}"),
        )
        .unwrap();
        let watches = load(&path, dir.path()).unwrap();
        assert_eq!(watches.entries.len(), 1);
        let missing = load(&dir.path().join("nope.yaml"), dir.path()).unwrap_err();
        assert!(
            missing
                .to_string()
                .contains("nope.yaml: cannot read the watches file"),
            "{missing}"
        );
    }
}
