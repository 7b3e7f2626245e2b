//! Would Helm load this chart? The helm-operator (operator-sdk v1.42, on Helm 3.18) loads the
//! chart of every entry of `watches.yaml` when it starts, and exits when one fails, so a chart
//! Helm refuses stops the whole operator. The rules are those of Helm's `loader.LoadFiles` and
//! `Metadata.Validate` (helm.sh/helm/v3 pkg/chart): `Chart.yaml` and `values.yaml` parse, `name`
//! and a semver `version` are present, `type` is known, maintainers and dependencies have no
//! empty entries, dependency aliases are well-formed and unique; and the same for every subchart
//! under `charts/`. `apiVersion` must be `v1` or `v2` besides, as `helm lint` and Helm 4 require.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::version::is_helm_version;

/// Why Helm would refuse a chart: the file and line at fault and the rule broken.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The file inside the chart, such as `Chart.yaml` or `charts/common/Chart.yaml`.
    pub file: String,
    /// 1-based line of the offending value, when there is one.
    pub line: Option<usize>,
    /// That line as written, for the message.
    pub text: Option<String>,
    /// The rule, with the value.
    pub reason: String,
    /// The helm-operator's Helm 3 refuses it, so the operator cannot start (otherwise only
    /// `helm lint` and Helm 4 refuse it).
    pub stops_operator: bool,
    /// Writing a valid `version` (and `appVersion`) into `Chart.yaml` cures it.
    pub cured_by_version: bool,
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (&self.line, &self.text) {
            (Some(line), Some(text)) => write!(f, "line {line} (`{text}`): {}", self.reason),
            (Some(line), None) => write!(f, "line {line}: {}", self.reason),
            _ => f.write_str(&self.reason),
        }
    }
}

/// Subcharts nested deeper than this are not followed (real charts nest two or three levels).
const MAX_DEPTH: usize = 10;

/// Checks a chart held as its files (relative path -> bytes), subcharts included.
pub fn check(files: &BTreeMap<String, Vec<u8>>) -> Result<(), Refusal> {
    check_at(files, "", 0, None)
}

/// [`check`], with the verdict on the top chart's `values.yaml` taken from `judged` when it
/// judged the same bytes.
pub fn check_judged(
    files: &BTreeMap<String, Vec<u8>>,
    judged: Option<&JudgedValues>,
) -> Result<(), Refusal> {
    check_at(files, "", 0, judged)
}

/// The top chart's `values.yaml` judged ahead of the rest of the check: parsing it is most of
/// the check (100 KB of values for redis), and it can run while the chart's other files are
/// read. The verdict holds only for the bytes it judged.
pub struct JudgedValues {
    bytes: Vec<u8>,
    verdict: Result<(), Refusal>,
}

impl JudgedValues {
    /// `bytes` judged as the top chart's `values.yaml`, as [`check`] judges it.
    pub fn judge(bytes: Vec<u8>) -> JudgedValues {
        let verdict = check_values("values.yaml", &crate::text::lossy(&bytes));
        JudgedValues { bytes, verdict }
    }
}

fn check_at(
    files: &BTreeMap<String, Vec<u8>>,
    prefix: &str,
    depth: usize,
    judged: Option<&JudgedValues>,
) -> Result<(), Refusal> {
    let file = |name: &str| files.get(&format!("{prefix}{name}"));
    let chart_yaml = format!("{prefix}Chart.yaml");
    let Some(bytes) = file("Chart.yaml") else {
        return Err(Refusal {
            file: chart_yaml,
            line: None,
            text: None,
            reason: "Chart.yaml is missing".to_string(),
            stops_operator: true,
            cured_by_version: false,
        });
    };
    check_metadata(&chart_yaml, &crate::text::lossy(bytes))?;
    if let Some(bytes) = file("values.yaml") {
        match judged.filter(|judged| judged.bytes == *bytes) {
            Some(judged) => judged.verdict.clone()?,
            None => check_values(&format!("{prefix}values.yaml"), &crate::text::lossy(bytes))?,
        }
    }
    if depth < MAX_DEPTH {
        check_subcharts(files, prefix, depth)?;
    }
    Ok(())
}

/// Every entry of `charts/` is a subchart Helm loads: a directory, or a `.tgz`; names
/// starting with `_` or `.` are skipped, `.prov` files are kept as plain files.
fn check_subcharts(
    files: &BTreeMap<String, Vec<u8>>,
    prefix: &str,
    depth: usize,
) -> Result<(), Refusal> {
    let charts = format!("{prefix}charts/");
    let mut seen: Vec<&str> = Vec::new();
    for (path, bytes) in files.range(charts.clone()..) {
        let Some(rest) = path.strip_prefix(&charts) else {
            break;
        };
        let name = rest.split('/').next().unwrap_or(rest);
        if name.starts_with(['_', '.']) || name.ends_with(".prov") || seen.contains(&name) {
            continue;
        }
        seen.push(name);
        if !rest.contains('/') && name.ends_with(".tgz") {
            let entries = super::archive::read_entries(path, bytes).map_err(|e| Refusal {
                file: path.clone(),
                line: None,
                text: None,
                reason: format!("the subchart archive cannot be read: {e}"),
                stops_operator: true,
                cured_by_version: false,
            })?;
            check_at(&entries, "", depth + 1, None).map_err(|mut refusal| {
                refusal.file = format!("{path}: {}", refusal.file);
                refusal.cured_by_version = false;
                refusal
            })?;
        } else if !rest.contains('/') {
            return Err(Refusal {
                file: path.clone(),
                line: None,
                text: None,
                reason: "a file in charts/ is taken for a subchart, and it is neither a directory nor a .tgz (rename it to start with `_` or move it)".to_string(),
                stops_operator: true,
                cured_by_version: false,
            });
        } else {
            // --set-chart-version stamps the top-level chart only.
            check_at(files, &format!("{charts}{name}/"), depth + 1, None).map_err(
                |mut refusal| {
                    refusal.cured_by_version = false;
                    refusal
                },
            )?;
        }
    }
    Ok(())
}

fn check_values(file: &str, text: &str) -> Result<(), Refusal> {
    match crate::yaml::from_str_last_key_wins::<Shape>(text) {
        Ok(Shape::Mapping | Shape::Null) => Ok(()),
        Ok(Shape::Other) => Err(Refusal {
            file: file.to_string(),
            line: None,
            text: None,
            reason: "values.yaml must be a mapping of keys to values".to_string(),
            stops_operator: true,
            cured_by_version: false,
        }),
        Err(e) => Err(syntax_refusal(file, text, &e)),
    }
}

/// What a YAML value is, read the way a `serde_json::Value` is read (every key a string, every
/// alias resolved) without building it: the check only needs to know that the values load and
/// what their top level is, and building them was half of its cost on large charts (100 KB of
/// values for redis).
enum Shape {
    Mapping,
    /// Nothing at all: an empty file loads as no values.
    Null,
    Other,
}

impl<'de> serde::Deserialize<'de> for Shape {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ShapeVisitor)
    }
}

struct ShapeVisitor;

/// Visit methods that take a scalar as [`Shape::Other`].
macro_rules! scalars_are_other {
    ($($visit:ident: $ty:ty),*) => {
        $(fn $visit<E>(self, _: $ty) -> Result<Shape, E> {
            Ok(Shape::Other)
        })*
    };
}

impl<'de> serde::de::Visitor<'de> for ShapeVisitor {
    type Value = Shape;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any value")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Shape, A::Error> {
        while map.next_key::<StringKey>()?.is_some() {
            map.next_value::<Shape>()?;
        }
        Ok(Shape::Mapping)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Shape, A::Error> {
        while seq.next_element::<Shape>()?.is_some() {}
        Ok(Shape::Other)
    }

    fn visit_some<D: serde::Deserializer<'de>>(self, inner: D) -> Result<Shape, D::Error> {
        inner.deserialize_any(self)
    }

    fn visit_unit<E>(self) -> Result<Shape, E> {
        Ok(Shape::Null)
    }

    fn visit_none<E>(self) -> Result<Shape, E> {
        Ok(Shape::Null)
    }

    scalars_are_other!(
        visit_bool: bool,
        visit_i64: i64,
        visit_u64: u64,
        visit_i128: i128,
        visit_u128: u128,
        visit_f64: f64,
        visit_str: &str
    );
}

/// A mapping key, which must be read as a string as `serde_json::Value`'s keys are.
struct StringKey;

impl<'de> serde::Deserialize<'de> for StringKey {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Key;
        impl serde::de::Visitor<'_> for Key {
            type Value = StringKey;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a string key")
            }
            fn visit_str<E>(self, _: &str) -> Result<StringKey, E> {
                Ok(StringKey)
            }
        }
        deserializer.deserialize_str(Key)
    }
}

/// A YAML syntax error, at its line.
fn syntax_refusal(file: &str, text: &str, error: &serde_saphyr::Error) -> Refusal {
    let line = error
        .location()
        .map(|l| l.line() as usize)
        .filter(|l| *l >= 1);
    let line_text = line
        .and_then(|l| text.lines().nth(l - 1))
        .map(str::trim_end);
    let cured_by_version = line_text.is_some_and(|t| {
        ["version:", "appVersion:"]
            .iter()
            .any(|key| t.starts_with(key))
    });
    let message = error.to_string();
    let first_line = message.lines().next().unwrap_or_default();
    let detail = first_line.strip_prefix("error: ").unwrap_or(first_line);
    let hint = if line_text
        .is_some_and(|t| t.contains(": %") || t.contains(": @") || t.contains(": `"))
    {
        " (`%`, `@` and `` ` `` cannot start a plain YAML value: this looks like a placeholder that the chart's release process replaces)"
    } else {
        ""
    };
    Refusal {
        file: file.to_string(),
        line,
        text: line_text.map(str::to_string),
        reason: format!("{file} is not valid YAML: {detail}{hint}"),
        stops_operator: true,
        cured_by_version,
    }
}

fn check_metadata(file: &str, text: &str) -> Result<(), Refusal> {
    let metadata = match crate::yaml::from_str_last_key_wins::<Value>(text) {
        Ok(Value::Object(map)) => map,
        // An empty Chart.yaml loads as empty metadata, which then lacks a name.
        Ok(Value::Null) => Map::new(),
        Ok(_) => {
            return Err(Refusal {
                file: file.to_string(),
                line: None,
                text: None,
                reason: "Chart.yaml must be a mapping (apiVersion, name, version, ...)".to_string(),
                stops_operator: true,
                cured_by_version: false,
            });
        }
        Err(e) => return Err(syntax_refusal(file, text, &e)),
    };
    let refuse = |key: &str, reason: String, stops_operator: bool| {
        let found = key_line(text, key);
        Refusal {
            file: file.to_string(),
            line: found.map(|(n, _)| n),
            text: found.map(|(_, t)| t.to_string()),
            reason,
            stops_operator,
            cured_by_version: key == "version",
        }
    };

    let api_version = scalar(&metadata, "apiVersion").map_err(|r| refuse("apiVersion", r, true))?;
    if let Some(api_version) = api_version.filter(|v| !v.is_empty())
        && api_version != "v1"
        && api_version != "v2"
    {
        return Err(refuse(
            "apiVersion",
            format!(
                "apiVersion \"{api_version}\" is not a chart API version: Helm charts are apiVersion v2 (or v1 for Helm 2 charts); `helm lint` and Helm 4 refuse any other"
            ),
            false,
        ));
    }

    let name = scalar(&metadata, "name").map_err(|r| refuse("name", r, true))?;
    let name = name.unwrap_or_default();
    if name.trim().is_empty() {
        return Err(refuse(
            "name",
            "`name` is required and missing or empty".to_string(),
            true,
        ));
    }
    // Helm refuses a name with a path separator; `.` and `..` would leave helm-charts/.
    if name.contains(['/', '\\']) || name == "." || name == ".." {
        return Err(refuse(
            "name",
            format!("name \"{name}\" must be a plain name, not a path"),
            true,
        ));
    }

    match scalar(&metadata, "version").map_err(|r| refuse("version", r, true))? {
        None => {
            return Err(refuse(
                "version",
                "`version` is required and missing".to_string(),
                true,
            ));
        }
        Some(v) if v.is_empty() => {
            return Err(refuse(
                "version",
                "`version` is required and empty".to_string(),
                true,
            ));
        }
        Some(v) if !is_helm_version(&v) => {
            return Err(refuse(
                "version",
                format!("version \"{v}\" is not a semantic version (such as 2.13.0)"),
                true,
            ));
        }
        Some(_) => {}
    }

    let chart_type = scalar(&metadata, "type").map_err(|r| refuse("type", r, true))?;
    if let Some(t) = chart_type.filter(|t| !t.is_empty() && t != "application" && t != "library") {
        return Err(refuse(
            "type",
            format!("type \"{t}\" must be application or library"),
            true,
        ));
    }

    if let Some(Value::Array(maintainers)) = metadata.get("maintainers")
        && maintainers.iter().any(Value::is_null)
    {
        return Err(refuse(
            "maintainers",
            "`maintainers` has an empty entry".to_string(),
            true,
        ));
    }
    check_dependencies(&metadata, &|reason| refuse("dependencies", reason, true))
}

fn check_dependencies(
    metadata: &Map<String, Value>,
    refuse: &dyn Fn(String) -> Refusal,
) -> Result<(), Refusal> {
    let dependencies = match metadata.get("dependencies") {
        None | Some(Value::Null) => return Ok(()),
        Some(Value::Array(list)) => list,
        Some(_) => return Err(refuse("`dependencies` must be a list".to_string())),
    };
    let mut keys: Vec<String> = Vec::new();
    for (index, dependency) in dependencies.iter().enumerate() {
        let entry = index + 1;
        let Value::Object(dependency) = dependency else {
            return Err(refuse(format!(
                "dependency {entry} is {}; each dependency is a mapping with name, version and repository",
                if dependency.is_null() {
                    "empty"
                } else {
                    "not a mapping"
                }
            )));
        };
        let name = scalar(dependency, "name")
            .map_err(|r| refuse(format!("dependency {entry}: {r}")))?
            .unwrap_or_default();
        let alias = scalar(dependency, "alias")
            .map_err(|r| refuse(format!("dependency {entry}: {r}")))?
            .unwrap_or_default();
        if !alias.is_empty()
            && !alias
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        {
            return Err(refuse(format!(
                "dependency \"{name}\" has alias \"{alias}\", which may hold only letters, digits, `_` and `-`"
            )));
        }
        let key = if alias.is_empty() { name } else { alias };
        if keys.contains(&key) {
            return Err(refuse(format!(
                "more than one dependency is named (or aliased) \"{key}\""
            )));
        }
        keys.push(key);
    }
    Ok(())
}

/// A string field as Helm reads it: numbers and booleans become their text; a list or a
/// mapping cannot go into a string field and fails the load.
fn scalar(map: &Map<String, Value>, key: &str) -> Result<Option<String>, String> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(Value::Number(n)) => Ok(Some(n.to_string())),
        Some(Value::Bool(b)) => Ok(Some(b.to_string())),
        Some(_) => Err(format!(
            "`{key}` must be a single value, not a list or mapping"
        )),
    }
}

/// The 1-based number and text of the top-level line that sets `key`.
fn key_line<'a>(text: &'a str, key: &str) -> Option<(usize, &'a str)> {
    text.lines().enumerate().find_map(|(i, line)| {
        let rest = line.strip_prefix(key)?;
        let rest = rest.trim_start_matches([' ', '\t']);
        (rest.starts_with(':')).then_some((i + 1, line.trim_end()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chart(chart_yaml: &str) -> BTreeMap<String, Vec<u8>> {
        BTreeMap::from([("Chart.yaml".to_string(), chart_yaml.as_bytes().to_vec())])
    }

    fn refusal(chart_yaml: &str) -> Refusal {
        check(&chart(chart_yaml)).expect_err(chart_yaml)
    }

    #[test]
    fn a_placeholder_version_is_a_syntax_error_at_its_line() {
        let r = refusal("apiVersion: v2\nname: rancher\nversion: %VERSION%\n");
        assert_eq!(r.line, Some(3));
        assert_eq!(r.text.as_deref(), Some("version: %VERSION%"));
        assert!(r.cured_by_version && r.stops_operator);
        assert!(r.reason.contains("placeholder"), "{}", r.reason);
    }

    #[test]
    fn what_helm_refuses() {
        for (yaml, fragment) in [
            ("apiVersion: v2\nversion: 1.0.0\n", "`name` is required"),
            ("apiVersion: v2\nname: x\n", "`version` is required"),
            ("apiVersion: v2\nname: x\nversion: latest\n", "\"latest\""),
            ("apiVersion: v2\nname: a/b\nversion: 1.0.0\n", "\"a/b\""),
            (
                "apiVersion: v2\nname: x\nversion: 1.0.0\ntype: app\n",
                "\"app\"",
            ),
            (
                "apiVersion: v2\nname: x\nversion: 1.0.0\ndependencies:\n  -\n",
                "empty",
            ),
            (
                "apiVersion: v2\nname: x\nversion: 1.0.0\ndependencies:\n  - name: a\n    alias: a.b\n",
                "\"a.b\"",
            ),
            (
                "apiVersion: v2\nname: x\nversion: 1.0.0\ndependencies:\n  - name: a\n  - name: b\n    alias: a\n",
                "more than one",
            ),
            (
                "apiVersion: v2\nname: [x]\nversion: 1.0.0\n",
                "single value",
            ),
        ] {
            let r = refusal(yaml);
            assert!(r.reason.contains(fragment), "{yaml}: {}", r.reason);
            assert!(r.stops_operator, "{yaml}");
        }
        let r = refusal("apiVersion: v3\nname: x\nversion: 1.0.0\n");
        assert!(!r.stops_operator && r.line == Some(1), "{r:?}");
    }

    #[test]
    fn what_helm_accepts() {
        for yaml in [
            "apiVersion: v2\nname: x\nversion: 1.0.0\n",
            "name: x\nversion: v1.2\n",
            "apiVersion: \"v1\"\nname: x\nversion: 1.0\n",
            "apiVersion: v2\nname: x\nversion: 1.0.0\nname: y\n",
        ] {
            assert_eq!(check(&chart(yaml)), Ok(()), "{yaml}");
        }
    }

    /// The values check reads values without building them; it must accept and refuse exactly
    /// what reading them into a `serde_json::Value` does, with the same error.
    #[test]
    fn values_are_checked_as_reading_them_would() {
        let full = |text: &str| match crate::yaml::from_str_last_key_wins::<Value>(text) {
            Ok(Value::Object(_) | Value::Null) => Ok(true),
            Ok(_) => Ok(false),
            Err(e) => Err(e.to_string()),
        };
        let shape = |text: &str| match crate::yaml::from_str_last_key_wins::<Shape>(text) {
            Ok(Shape::Mapping | Shape::Null) => Ok(true),
            Ok(Shape::Other) => Ok(false),
            Err(e) => Err(e.to_string()),
        };
        for text in &values_cases() {
            assert_eq!(shape(text), full(text), "{text:.200}");
        }
    }

    /// The values the check is held to: edge cases of YAML and every values.yaml of the shared
    /// charts.
    fn values_cases() -> Vec<String> {
        let mut cases: Vec<String> = [
            "",
            "# only a comment\n",
            "~\n",
            "a: 1\nb: [1, 2.5, {c: d}]\nc: ~\nd: yes\n",
            "a: 1\na: 2\n",
            "base: &b {x: 1}\nuse:\n  <<: *b\n  y: 2\n",
            "a: *missing\n",
            "? [a, b]\n: c\n",
            "? {a: 1}\n: c\n",
            "1: one\ntrue: yes\n",
            "big: 340282366920938463463374607431768211456\n",
            "- a\n- b\n",
            "just text\n",
            "42\n",
            "a: [1, 2\n",
            "a: b: c\n",
            "version: %VERSION%\n",
            "a: 1\n---\nb: 2\n",
            "a: 1\n---\n",
            "a: 1\n...\n",
            "---\na: 1\n",
            "%YAML 1.1\n---\na: 1\n",
            "a: !!int 0778\n",
            "a: !!int 0o17\n",
            "a: !!str 017\n",
            "a: !local x\n",
            "mode: 0644\nflag: on\n",
            "\t- tab\n",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let before = cases.len();
        let is_values = |path: &std::path::Path| path.ends_with("values.yaml");
        for path in crate::chart::shared_chart_paths(is_values) {
            cases.push(std::fs::read_to_string(&path).unwrap());
        }
        assert!(
            cases.len() > before + 8,
            "the shared charts' values at {:?}",
            crate::chart::shared_charts_dir()
        );
        cases
    }

    /// Values judged ahead give the check's own verdict, and count only for the bytes judged.
    #[test]
    fn values_judged_ahead_stand_for_the_same_bytes_only() {
        let with_values = |values: &str| {
            let mut files = chart("apiVersion: v2\nname: x\nversion: 1.0.0\n");
            files.insert("values.yaml".to_string(), values.as_bytes().to_vec());
            files
        };
        for values in ["a: 1\n", "- a\n", "a: [1\n", ""] {
            let files = with_values(values);
            let judged = JudgedValues::judge(values.as_bytes().to_vec());
            assert_eq!(
                check_judged(&files, Some(&judged)),
                check(&files),
                "{values:?}"
            );
        }
        // A verdict on other bytes is not taken for these: each way round.
        let refused = with_values("- a\n");
        let judged_fine = JudgedValues::judge(b"a: 1\n".to_vec());
        assert_eq!(
            check_judged(&refused, Some(&judged_fine)),
            check(&refused),
            "a list refused"
        );
        assert!(check(&refused).is_err());
        let fine = with_values("a: 1\n");
        let judged_refused = JudgedValues::judge(b"- a\n".to_vec());
        assert_eq!(check_judged(&fine, Some(&judged_refused)), Ok(()));
        // A subchart's values are never taken for the top chart's.
        let mut files = with_values("a: 1\n");
        files.insert(
            "charts/sub/Chart.yaml".to_string(),
            b"apiVersion: v2\nname: sub\nversion: 1.0.0\n".to_vec(),
        );
        files.insert("charts/sub/values.yaml".to_string(), b"- a\n".to_vec());
        let judged = JudgedValues::judge(b"- a\n".to_vec());
        let refusal = check_judged(&files, Some(&judged)).unwrap_err();
        assert_eq!(refusal.file, "charts/sub/values.yaml");
    }

    #[test]
    fn subcharts_are_checked_and_skipped_as_helm_does() {
        let mut files = chart("apiVersion: v2\nname: x\nversion: 1.0.0\n");
        files.insert(
            "charts/_skip/Chart.yaml".to_string(),
            b"version: [".to_vec(),
        );
        assert_eq!(check(&files), Ok(()));
        files.insert(
            "charts/common/Chart.yaml".to_string(),
            b"name: common\n".to_vec(),
        );
        let r = check(&files).unwrap_err();
        assert_eq!(r.file, "charts/common/Chart.yaml");
        assert!(r.reason.contains("version"), "{}", r.reason);
    }
}
