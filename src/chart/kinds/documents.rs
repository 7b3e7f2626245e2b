//! Reading a rendered-in-place template as a stream of YAML documents, line by line: the
//! top-level `apiVersion:`/`kind:` keys of each document, the items of a `kind: List`, and the
//! helpers included at the top level.

use std::borrow::Cow;
use std::cell::OnceCell;
use std::collections::HashMap;

use serde_json::Value;

use super::template::{self, Define};
use super::{KindRef, LookupRef, Unresolved, split_root};

/// How deep helpers may include helpers before we stop following them (a helper that includes
/// itself would otherwise never end).
const MAX_INCLUDE_DEPTH: usize = 10;

/// What the scanner found, before sorting.
#[derive(Debug, Default)]
pub(super) struct Found {
    pub kinds: Vec<KindRef>,
    pub unresolved: Vec<Unresolved>,
    pub lookups: Vec<LookupRef>,
    pub test_hooks: Vec<KindRef>,
}

/// A chart's default values, parsed the first time a document's metadata reads them and only
/// if they can name a hook at all: values.yaml is often the largest file of a chart, and
/// parsing it was a large share of the scan.
pub(super) struct LazyValues<'t> {
    text: Cow<'t, str>,
    /// Asked for every document with a kind, so answered once: the search runs through the
    /// whole text (100 KB for redis) when no value names a hook, the usual case.
    names_hooks: OnceCell<bool>,
    parsed: OnceCell<Value>,
}

impl<'t> LazyValues<'t> {
    pub fn new(text: Cow<'t, str>) -> Self {
        LazyValues {
            text,
            names_hooks: OnceCell::new(),
            parsed: OnceCell::new(),
        }
    }

    /// Whether some value may hold a `helm.sh/hook` key. A YAML key has that name only when
    /// the text spells it, or writes it with escapes (which need a backslash).
    fn may_name_hooks(&self) -> bool {
        *self
            .names_hooks
            .get_or_init(|| self.text.contains("helm.sh/hook") || self.text.contains('\\'))
    }

    fn get(&self) -> &Value {
        // Values that do not parse only hide test hooks that come from values.
        self.parsed
            .get_or_init(|| crate::yaml::from_str(&self.text).unwrap_or(Value::Null))
    }
}

pub(super) struct Scanner<'a> {
    defines: &'a HashMap<String, Define>,
    /// Every chart root of the tree (see `chart_roots`), and the default values of each.
    roots: &'a [String],
    values: &'a HashMap<&'a str, LazyValues<'a>>,
    found: Found,
}

/// A `key: value` line of a document: its line number and value text.
type KeyLine<'t> = (usize, &'t str);

/// The apiVersions a value can take, each with whether it is chosen at render time.
type ApiChoices = Vec<(String, bool)>;

/// The hooks that only `helm test` runs (`test-success` and `test-failure` are Helm 2's names).
const TEST_HOOKS: &[&str] = &["test", "test-success", "test-failure"];

impl<'a> Scanner<'a> {
    pub fn new(
        defines: &'a HashMap<String, Define>,
        roots: &'a [String],
        values: &'a HashMap<&'a str, LazyValues<'a>>,
    ) -> Self {
        Scanner {
            defines,
            roots,
            values,
            found: Found::default(),
        }
    }

    pub fn finish(self) -> Found {
        self.found
    }

    /// Scans `text` (whose first line is line `first_line` of `file`) as YAML documents
    /// separated by `---` lines.
    pub fn stream(&mut self, file: &str, first_line: usize, text: &str, depth: usize) {
        let mut document: Vec<(usize, &str)> = Vec::new();
        for (index, line) in text.split('\n').enumerate() {
            let line = line.strip_suffix('\r').unwrap_or(line);
            if is_separator(line) {
                self.document(file, &document, depth);
                document.clear();
            } else {
                document.push((first_line + index, line));
            }
        }
        self.document(file, &document, depth);
    }

    fn document(&mut self, file: &str, lines: &[(usize, &str)], depth: usize) {
        let kinds_before = self.found.kinds.len();
        let unresolved_before = self.found.unresolved.len();
        self.document_kinds(file, lines, depth);
        if self.found.kinds.len() > kinds_before && self.is_test_hook(file, lines) {
            let hooks = self.found.kinds.split_off(kinds_before);
            self.found.test_hooks.extend(hooks);
            self.found.unresolved.truncate(unresolved_before);
        }
    }

    fn document_kinds(&mut self, file: &str, lines: &[(usize, &str)], depth: usize) {
        let mut api_lines: Vec<KeyLine> = Vec::new();
        let mut kind_lines: Vec<KeyLine> = Vec::new();
        let mut items_at: Option<usize> = None;
        let mut includes: Vec<(usize, String, &str)> = Vec::new();
        let mut data_output: Option<(usize, &str)> = None;
        for (index, &(number, text)) in lines.iter().enumerate() {
            if let Some(value) = text.strip_prefix("apiVersion:") {
                api_lines.push((number, value));
            } else if let Some(value) = text.strip_prefix("kind:") {
                kind_lines.push((number, value));
            } else if text.starts_with("items:") {
                items_at = Some(index);
            } else if text.starts_with("{{") || text.trim_start().starts_with("{{-") {
                // `{{-` trims the whitespace before it, so its indentation does not count.
                for action in template::actions(text) {
                    if let Some(name) = action.included_template() {
                        // An included helper piped to `indent`/`nindent` is nested content
                        // (labels, a pod spec), not top-level keys.
                        if !action.body.contains("indent") {
                            includes.push((number, name, text));
                        }
                    } else if action.outputs_data() && data_output.is_none() {
                        data_output = Some((number, text));
                    }
                }
            }
        }

        let before = self.found_count();
        let apis: Vec<(usize, ApiChoices)> = api_lines
            .iter()
            .map(|&(number, value)| (number, self.api_versions(value)))
            .collect();
        let mut kinds: Vec<(usize, Vec<String>)> = Vec::new();
        let mut is_list = false;
        for &(number, value) in &kind_lines {
            match self.kind_choices(value) {
                Some(choices) => {
                    let (lists, objects): (Vec<String>, Vec<String>) =
                        choices.into_iter().partition(|k| is_list_kind(k));
                    is_list |= !lists.is_empty();
                    if !objects.is_empty() {
                        kinds.push((number, objects));
                    }
                }
                None => self.unresolved(file, number, &format!("kind:{value}")),
            }
        }
        self.push_kinds(file, &apis, &kinds);
        if let (true, Some(at)) = (is_list, items_at) {
            self.list_items(file, &lines[at + 1..]);
        }
        // An include is what creates the document only when the document has no kind of its
        // own; otherwise it fills in nested content.
        let creates = kind_lines.is_empty();
        if depth < MAX_INCLUDE_DEPTH {
            // The definitions outlive the scanner, so a helper is streamed without a copy.
            let defines = self.defines;
            for (number, name, text) in includes {
                match defines.get(&name) {
                    Some(define) => {
                        let before = self.found_count();
                        self.stream(&define.file, define.first_line, &define.text, depth + 1);
                        // A helper that prints values (`common.tplvalues.render` of
                        // `extraDeploy`) creates objects of unknown kinds where it is included.
                        if creates && self.found_count() == before && self.prints_data(&name, depth)
                        {
                            self.unresolved(file, number, text);
                        }
                    }
                    None if creates => self.unresolved(file, number, text),
                    None => {}
                }
            }
        }
        let found_something = self.found_count() > before;
        // Inside an included helper, the include line is the better place to report.
        if let (false, 0, Some((number, text))) = (found_something, depth, data_output) {
            self.unresolved(file, number, text.trim());
        }
    }

    fn found_count(&self) -> usize {
        self.found.kinds.len() + self.found.unresolved.len()
    }

    /// Whether a helper prints data from values anywhere in its body (or in a helper it
    /// includes without indenting).
    fn prints_data(&self, name: &str, depth: usize) -> bool {
        let Some(define) = self.defines.get(name) else {
            return false;
        };
        template::actions(&define.text).iter().any(|action| {
            action.outputs_data()
                || match action.included_template() {
                    Some(nested) if !action.body.contains("indent") => {
                        depth < MAX_INCLUDE_DEPTH
                            && nested != name
                            && self.prints_data(&nested, depth + 1)
                    }
                    _ => false,
                }
        })
    }

    /// The items of a `kind: List`: `- apiVersion:`/`- kind:` at the item's dash and the same
    /// keys two columns further in. Items end at the next top-level key.
    fn list_items(&mut self, file: &str, lines: &[(usize, &str)]) {
        let mut item_indent: Option<usize> = None;
        let mut items: Vec<Vec<(usize, &str)>> = Vec::new();
        for &(number, text) in lines {
            let indent = text.len() - text.trim_start_matches(' ').len();
            let rest = &text[indent..];
            if rest.is_empty() || rest.starts_with('#') {
                continue;
            }
            let item_start = if rest == "-" {
                Some("")
            } else {
                rest.strip_prefix("- ")
            };
            if let Some(content) = item_start
                && *item_indent.get_or_insert(indent) == indent
            {
                items.push(vec![(number, content.trim_start())]);
                continue;
            }
            if rest.starts_with("{{") {
                continue;
            }
            if indent == 0 {
                break;
            }
            if let (Some(item_at), Some(item)) = (item_indent, items.last_mut())
                && indent == item_at + 2
            {
                item.push((number, rest));
            }
        }
        for item in items {
            let mut apis: Vec<(usize, ApiChoices)> = Vec::new();
            let mut kinds = Vec::new();
            for &(number, text) in &item {
                if let Some(value) = text.strip_prefix("apiVersion:") {
                    apis.push((number, self.api_versions(value)));
                } else if let Some(value) = text.strip_prefix("kind:") {
                    match self.kind_choices(value) {
                        Some(choices) if !choices.is_empty() => kinds.push((number, choices)),
                        Some(_) => {}
                        None => self.unresolved(file, number, &format!("kind:{value}")),
                    }
                }
            }
            let first = item.first().copied();
            if let (true, Some((number, text))) = (kinds.is_empty(), first) {
                let data = template::actions(text).iter().any(|a| a.outputs_data());
                if data {
                    self.unresolved(file, number, text);
                }
            }
            self.push_kinds(file, &apis, &kinds);
        }
    }

    /// Records each kind with the apiVersions that go with it (see [`pair`]).
    fn push_kinds(
        &mut self,
        file: &str,
        apis: &[(usize, ApiChoices)],
        kinds: &[(usize, Vec<String>)],
    ) {
        for (number, kind, versions) in pair(apis, kinds) {
            if versions.is_empty() {
                self.found.kinds.push(KindRef {
                    api_version: String::new(),
                    kind: kind.clone(),
                    file: file.to_string(),
                    line: number,
                    api_version_templated: true,
                });
            }
            for (api_version, templated) in versions {
                self.found.kinds.push(KindRef {
                    api_version,
                    kind: kind.clone(),
                    file: file.to_string(),
                    line: number,
                    api_version_templated: templated,
                });
            }
        }
    }

    /// Whether a document is a Helm test hook: its metadata has `helm.sh/hook` with only test
    /// hooks, written in the template or coming from the chart's default values
    /// (`{{- with .Values.testFramework.annotations }}`).
    fn is_test_hook(&self, file: &str, lines: &[(usize, &str)]) -> bool {
        let Some(start) = lines.iter().position(|(_, l)| l.trim_end() == "metadata:") else {
            return false;
        };
        let metadata: Vec<&str> = lines[start + 1..]
            .iter()
            .map(|(_, l)| *l)
            .take_while(|l| {
                let rest = l.trim_start();
                l.starts_with(' ')
                    || rest.is_empty()
                    || rest.starts_with('#')
                    || rest.starts_with("{{")
            })
            .collect();
        for line in &metadata {
            if let Some(value) = hook_value(line) {
                return only_test_hooks(value);
            }
        }
        let paths: Vec<Vec<String>> = metadata
            .iter()
            .flat_map(|line| template::actions(line))
            .flat_map(|action| values_paths(action.body))
            .collect();
        if paths.is_empty() {
            return false;
        }
        let root = split_root(self.roots, file).map_or("", |(root, _)| root);
        let Some(values) = self.values.get(root).filter(|v| v.may_name_hooks()) else {
            return false;
        };
        let values = values.get();
        paths
            .iter()
            .filter_map(|path| value_at(values, path))
            .find_map(|value| value.get("helm.sh/hook").and_then(Value::as_str))
            .is_some_and(only_test_hooks)
    }

    fn unresolved(&mut self, file: &str, line: usize, text: &str) {
        self.found.unresolved.push(Unresolved {
            file: file.to_string(),
            line,
            text: text.trim().to_string(),
        });
    }

    /// The apiVersions an `apiVersion:` value can take: the literal, or the literal
    /// alternatives a template writes (`default "x"`, both branches of an `if`, what an included
    /// helper prints). Empty when none appears literally.
    fn api_versions(&self, value: &str) -> ApiChoices {
        let parts = template::value_parts(value);
        let mut words: Vec<String> = parts.outside.clone();
        words.extend(parts.literals.iter().cloned());
        for name in &parts.includes {
            words.extend(self.define_words(name, 0));
        }
        let mut out: Vec<String> = Vec::new();
        if parts.has_action
            && parts.prefix.ends_with('/')
            && is_group(&parts.prefix[..parts.prefix.len() - 1])
        {
            // `autoscaling/{{ if ... }}v2{{ else }}v2beta2{{ end }}`: the group is literal.
            out.extend(
                words
                    .iter()
                    .filter(|w| is_version(w))
                    .map(|v| format!("{}{v}", parts.prefix)),
            );
            if out.is_empty() {
                out.push(parts.prefix.clone());
            }
        } else {
            out.extend(words.into_iter().filter(|w| is_api_version(w)));
        }
        let mut seen = std::collections::HashSet::new();
        out.retain(|v| seen.insert(v.clone()));
        out.into_iter().map(|v| (v, parts.has_action)).collect()
    }

    /// The kinds a `kind:` value can be: `Some([literal])`, the literal alternatives of a
    /// template, or `None` when the template gives none (the kind comes from values).
    fn kind_choices(&self, value: &str) -> Option<Vec<String>> {
        let parts = template::value_parts(value);
        if !parts.has_action {
            return Some(parts.outside.into_iter().take(1).collect());
        }
        let mut words: Vec<String> = parts.outside;
        words.extend(parts.literals);
        for name in &parts.includes {
            words.extend(self.define_words(name, 0));
        }
        let mut choices: Vec<String> = Vec::new();
        for word in words {
            if is_kind_name(&word) && !choices.contains(&word) {
                choices.push(word);
            }
        }
        (!choices.is_empty()).then_some(choices)
    }

    /// The literal words a helper can print: text outside its actions and string literals in
    /// them, following the helpers it includes.
    fn define_words(&self, name: &str, depth: usize) -> Vec<String> {
        let Some(define) = self.defines.get(name) else {
            return Vec::new();
        };
        let parts = template::value_parts(&define.text);
        let mut words = parts.outside;
        words.extend(parts.literals);
        if depth < MAX_INCLUDE_DEPTH {
            for nested in &parts.includes {
                words.extend(self.define_words(nested, depth + 1));
            }
        }
        words
    }

    /// Records every `lookup` call in the file (helpers and NOTES.txt included: Helm renders
    /// them during the install, and a forbidden lookup fails it).
    pub fn lookups(&mut self, file: &str, text: &str) {
        // Most templates call no lookup: skip reading their actions again.
        if !text.contains("lookup") {
            return;
        }
        for action in template::actions(text).iter().filter(|a| !a.is_comment()) {
            for call in template::lookup_calls(action) {
                let line = template::line_of(text, action.start);
                match (call.api_version, call.kind) {
                    (Some(api_version), Some(kind)) if !kind.is_empty() => {
                        self.found.lookups.push(LookupRef {
                            api_version,
                            kind,
                            all_namespaces: call.namespace.as_deref() == Some(""),
                            lists: call.name.as_deref() == Some(""),
                            file: file.to_string(),
                            line,
                        })
                    }
                    _ => self.unresolved(file, line, &format!("{{{{ {} }}}}", action.body)),
                }
            }
        }
    }
}

/// The value of a `helm.sh/hook` annotation line (key quoted or not), trimmed.
fn hook_value(line: &str) -> Option<&str> {
    let rest = line.trim_start();
    ["\"helm.sh/hook\":", "'helm.sh/hook':", "helm.sh/hook:"]
        .iter()
        .find_map(|key| rest.strip_prefix(key))
        .map(str::trim)
}

/// `test`, `"test-success"`, `test-success,test-failure`: every hook listed is a test hook. A
/// value with an action is not known, so it is not taken for a test.
fn only_test_hooks(value: &str) -> bool {
    let value = value.split(" #").next().unwrap_or(value).trim();
    let value = value.trim_matches(|c| c == '"' || c == '\'');
    !value.is_empty()
        && !value.contains("{{")
        && value
            .split(',')
            .all(|hook| TEST_HOOKS.contains(&hook.trim()))
}

/// The `.Values.a.b` paths an action names, as their keys (`["a", "b"]`).
fn values_paths(body: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut rest = body;
    while let Some(at) = rest.find(".Values.") {
        let after = &rest[at + ".Values.".len()..];
        let end = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
            .unwrap_or(after.len());
        let path: Vec<String> = after[..end]
            .split('.')
            .filter(|k| !k.is_empty())
            .map(str::to_string)
            .collect();
        if !path.is_empty() {
            out.push(path);
        }
        rest = &after[end..];
    }
    out
}

fn value_at<'v>(values: &'v Value, path: &[String]) -> Option<&'v Value> {
    path.iter().try_fold(values, |value, key| value.get(key))
}

/// A `---` document separator (optionally followed by a comment).
fn is_separator(line: &str) -> bool {
    line.strip_prefix("---").is_some_and(|rest| {
        let rest = rest.trim_start();
        rest.is_empty() || rest.starts_with('#')
    })
}

/// `List` (and `FooList`) wrap items; the wrapper itself is not an object on the server.
fn is_list_kind(kind: &str) -> bool {
    kind.ends_with("List")
}

/// Pairs kinds with apiVersions within one document. With one `kind:` line or at most one
/// `apiVersion:` line, every kind goes with every apiVersion (`apiVersion: apps/v1` then
/// `{{ if }}kind: StatefulSet{{ else }}kind: Deployment{{ end }}`). With several of both, each
/// kind goes with the nearest apiVersion line (each branch of an `if` writes its own pair).
fn pair(
    apis: &[(usize, ApiChoices)],
    kinds: &[(usize, Vec<String>)],
) -> Vec<(usize, String, ApiChoices)> {
    let mut out = Vec::new();
    for (number, choices) in kinds {
        let versions: ApiChoices = if kinds.len() == 1 || apis.len() <= 1 {
            apis.iter().flat_map(|(_, v)| v.iter().cloned()).collect()
        } else {
            apis.iter()
                .min_by_key(|(api_line, _)| {
                    // Nearest first; on a tie, the apiVersion written before the kind.
                    (api_line.abs_diff(*number), *api_line > *number)
                })
                .map(|(_, v)| v.clone())
                .unwrap_or_default()
        };
        let mut unique: ApiChoices = Vec::new();
        for version in versions {
            if !unique.contains(&version) {
                unique.push(version);
            }
        }
        for kind in choices {
            out.push((*number, kind.clone(), unique.clone()));
        }
    }
    out
}

fn is_dns_label_like(part: &str) -> bool {
    !part.is_empty()
        && part
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && !part.starts_with('-')
        && !part.ends_with('-')
}

/// An API group as written in an apiVersion: a DNS subdomain (`apps`, `cert-manager.io`).
fn is_group(text: &str) -> bool {
    text.split('.').all(is_dns_label_like)
}

/// `v1`, `v1alpha1`, `v2beta3`.
fn is_version(text: &str) -> bool {
    let Some(rest) = text.strip_prefix('v') else {
        return false;
    };
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    if digits == 0 {
        return false;
    }
    let tail = &rest[digits..];
    if tail.is_empty() {
        return true;
    }
    let number = tail
        .strip_prefix("alpha")
        .or_else(|| tail.strip_prefix("beta"));
    number.is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
}

/// `v1` (core) or `group/version`.
fn is_api_version(text: &str) -> bool {
    match text.split_once('/') {
        Some((group, version)) => is_group(group) && is_version(version),
        None => is_version(text),
    }
}

/// A kind name: UpperCamelCase letters and digits.
fn is_kind_name(text: &str) -> bool {
    text.starts_with(|c: char| c.is_ascii_uppercase())
        && text.chars().all(|c| c.is_ascii_alphanumeric())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_versions_and_kinds_are_recognised() {
        assert!(is_api_version("v1"));
        assert!(is_api_version("apps/v1"));
        assert!(is_api_version("cert-manager.io/v1alpha2"));
        assert!(!is_api_version(">=1.21-0"));
        assert!(!is_api_version("v1.19"));
        assert!(!is_api_version("networking.k8s.io/v1/Ingress"));
        assert!(is_kind_name("HTTPRoute"));
        assert!(!is_kind_name("x.kind"));
        assert!(!is_kind_name("httproute"));
    }

    #[test]
    fn pairing_follows_branches() {
        let one_api = [(1, vec![("apps/v1".to_string(), false)])];
        let two_kinds = [
            (3, vec!["StatefulSet".to_string()]),
            (5, vec!["Deployment".to_string()]),
        ];
        let paired = pair(&one_api, &two_kinds);
        assert!(
            paired
                .iter()
                .all(|(_, _, v)| v == &[("apps/v1".to_string(), false)])
        );

        let apis = [
            (2, vec![("a.io/v1".to_string(), false)]),
            (5, vec![("b.io/v1".to_string(), true)]),
        ];
        let kinds = [(1, vec!["A".to_string()]), (4, vec!["B".to_string()])];
        let paired = pair(&apis, &kinds);
        assert_eq!(paired[0].2, [("a.io/v1".to_string(), false)]);
        assert_eq!(paired[1].2, [("b.io/v1".to_string(), true)]);
    }

    #[test]
    fn test_hook_values() {
        assert!(only_test_hooks("test"));
        assert!(only_test_hooks("\"test-success\""));
        assert!(only_test_hooks("test-success, test-failure # legacy"));
        assert!(!only_test_hooks("pre-install,test"));
        assert!(!only_test_hooks("{{ .Values.hook }}"));
        assert!(!only_test_hooks(""));
        assert_eq!(hook_value("    \"helm.sh/hook\": test"), Some("test"));
        assert_eq!(hook_value("    helm.sh/hook-weight: \"1\""), None);
        assert_eq!(
            values_paths("with .Values.testFramework.annotations"),
            [vec!["testFramework".to_string(), "annotations".to_string()]]
        );
    }
}
