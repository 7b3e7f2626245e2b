//! Just enough of Go's template syntax to read a chart's templates as lines of YAML: where the
//! `{{ ... }}` actions are, which ones are comments or `define` blocks (not rendered where they
//! stand), and which literal strings an action can produce.
//!
//! Templates are not YAML until Helm renders them with values we do not have, so nothing here
//! parses YAML; it only finds what is certain from the text.

/// One `{{ ... }}` action of a template.
#[derive(Debug, Clone)]
pub(crate) struct Action<'t> {
    /// Byte offset of `{{`.
    pub start: usize,
    /// Byte offset just past `}}` (or the end of the text when the action is unterminated).
    pub end: usize,
    /// What is between the delimiters, without trim markers, trimmed.
    pub body: &'t str,
}

impl Action<'_> {
    /// The first word of the action: `if`, `end`, `include`, `.Values.x`, `$var`...
    pub fn keyword(&self) -> &str {
        if self.is_comment() {
            return "/*";
        }
        // Byte by byte while the text is ASCII (asked ~11,000 times for redis, and a character
        // search decoded each one); Unicode's other spaces are searched for from the first
        // byte past ASCII.
        let ends_word = |c: char| c.is_whitespace() || c == '(' || c == ')' || c == '|';
        let bytes = self.body.as_bytes();
        let end = match bytes
            .iter()
            .position(|&b| !b.is_ascii() || ends_word(char::from(b)))
        {
            Some(at) if !bytes[at].is_ascii() => self.body[at..]
                .find(ends_word)
                .map_or(self.body.len(), |rest| at + rest),
            Some(at) => at,
            None => self.body.len(),
        };
        &self.body[..end]
    }

    pub fn is_comment(&self) -> bool {
        self.body.starts_with("/*")
    }

    /// Opens a block that a later `{{ end }}` closes.
    pub fn opens_block(&self) -> bool {
        matches!(self.keyword(), "if" | "range" | "with" | "define" | "block")
    }

    /// A control action: it decides what is rendered but outputs nothing itself.
    pub fn is_control(&self) -> bool {
        self.is_comment()
            || matches!(
                self.keyword(),
                "if" | "else"
                    | "end"
                    | "range"
                    | "with"
                    | "define"
                    | "block"
                    | "break"
                    | "continue"
            )
            || self.is_assignment()
    }

    /// `$x := ...` or `$x = ...`.
    pub fn is_assignment(&self) -> bool {
        let mut words = self.body.split_whitespace();
        matches!(
            (words.next(), words.next()),
            (Some(var), Some(":=" | "=")) if var.starts_with('$')
        )
    }

    /// The template an `include "name"` or `template "name"` action renders, when the action
    /// starts with one.
    pub fn included_template(&self) -> Option<String> {
        let rest = self
            .body
            .strip_prefix("include")
            .or_else(|| self.body.strip_prefix("template"))?;
        if !rest.starts_with(char::is_whitespace) {
            return None;
        }
        first_string_literal(rest.trim_start())
    }

    /// The action prints a value taken from values or files whose kinds cannot be known:
    /// `{{ toYaml . }}`, `{{ tpl ... }}`, `{{ .Values.extra }}`, `{{ .Files.Get $path }}`.
    pub fn outputs_data(&self) -> bool {
        if self.is_control() || self.included_template().is_some() {
            return false;
        }
        let body = self.body;
        ["toYaml", "toJson", "toPrettyJson", "tpl ", ".Files."]
            .iter()
            .any(|f| body.contains(f))
            || body.starts_with('.')
            || body.starts_with('$')
    }

    /// String literals in the action, in order, except template names after include/template.
    pub fn string_literals(&self) -> Vec<String> {
        let body = self.body;
        let mut out = Vec::new();
        let mut skip_next = false;
        let mut word = String::new();
        let mut i = 0;
        while let Some(c) = body[i..].chars().next() {
            if c == '"' || c == '`' {
                let (literal, next) = read_string(body, i);
                if !std::mem::take(&mut skip_next) {
                    out.push(literal);
                }
                word.clear();
                i = next;
                continue;
            }
            if c.is_whitespace() || c == '(' || c == ')' {
                if word == "include" || word == "template" {
                    skip_next = true;
                }
                word.clear();
            } else {
                word.push(c);
            }
            i += c.len_utf8();
        }
        out
    }
}

/// Reads the string literal starting at `start` (a `"` or a backquote); returns its value and
/// the offset just past it.
fn read_string(text: &str, start: usize) -> (String, usize) {
    let quote = if text[start..].starts_with('`') {
        '`'
    } else {
        '"'
    };
    let mut value = String::new();
    let mut chars = text[start + 1..].char_indices();
    while let Some((offset, c)) = chars.next() {
        if c == quote {
            return (value, start + 1 + offset + c.len_utf8());
        }
        // Go's interpreted strings cannot span lines: an unmatched quote ends at the line.
        if c == '\n' && quote == '"' {
            return (value, start + 1 + offset);
        }
        if c == '\\' && quote == '"' {
            if let Some((_, escaped)) = chars.next() {
                value.push(escaped);
            }
            continue;
        }
        value.push(c);
    }
    (value, text.len())
}

/// The offset just past the string literal starting at `start`, as [`read_string`] finds it,
/// without collecting its value: finding where an action ends needs only that.
fn skip_string(text: &str, start: usize) -> usize {
    let bytes = text.as_bytes();
    let quote = bytes[start];
    let mut i = start + 1;
    while i < bytes.len() {
        match bytes[i] {
            b if b == quote => return i + 1,
            b'\n' if quote == b'"' => return i,
            // An escape takes the next character, whatever it is; UTF-8 continuation bytes
            // never equal a quote, a newline or a backslash, so stepping bytewise is safe.
            b'\\' if quote == b'"' => i += 2,
            _ => i += 1,
        }
    }
    text.len()
}

fn first_string_literal(text: &str) -> Option<String> {
    if text.starts_with('"') || text.starts_with('`') {
        Some(read_string(text, 0).0)
    } else {
        None
    }
}

/// Every action of a template, in order. Strings inside actions may contain `}}`.
pub(crate) fn actions(text: &str) -> Vec<Action<'_>> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(start) = find_open(text, i) {
        let mut j = start + 2;
        let mut end = bytes.len();
        let mut terminated = false;
        let mut in_comment = false;
        // The bytes between the special ones are skipped by byte searches: the scan reads
        // every action of every template, and stepping through them one byte at a time was
        // most of its cost.
        while j < bytes.len() {
            if in_comment {
                match memchr::memmem::find(&bytes[j..], b"*/") {
                    Some(at) => {
                        in_comment = false;
                        j += at + 2;
                    }
                    None => j = bytes.len(),
                }
                continue;
            }
            let stop =
                memchr::memchr3(b'"', b'`', b'}', &bytes[j..]).map_or(bytes.len(), |at| j + at);
            // A comment opened before the stop comes first; `/*` cannot straddle the stop,
            // which is not a `*`.
            if let Some(at) = comment_start(&bytes[j..stop]) {
                in_comment = true;
                j += at + 2;
                continue;
            }
            match bytes.get(stop) {
                None => j = stop,
                Some(b'"' | b'`') => j = skip_string(text, stop),
                Some(_) if bytes[stop..].starts_with(b"}}") => {
                    end = stop + 2;
                    terminated = true;
                    break;
                }
                Some(_) => j = stop + 1,
            }
        }
        let inner = &text[start + 2..if terminated { end - 2 } else { end }];
        let inner = inner.strip_prefix('-').unwrap_or(inner);
        let inner = inner.strip_suffix('-').unwrap_or(inner);
        out.push(Action {
            start,
            end,
            body: inner.trim(),
        });
        i = end;
    }
    out
}

/// Where the first `/*` of `bytes` starts.
fn comment_start(bytes: &[u8]) -> Option<usize> {
    memchr::memchr_iter(b'/', bytes).find(|&at| bytes.get(at + 1) == Some(&b'*'))
}

/// Where the next `{{` at or after `from` starts. A search for the brace alone runs on
/// `memchr`, where a search for the two-byte pattern sets up a searcher for every action.
fn find_open(text: &str, from: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut at = from;
    while let Some(found) = memchr::memchr(b'{', &bytes[at..]) {
        let brace = at + found;
        if bytes.get(brace + 1) == Some(&b'{') {
            return Some(brace);
        }
        at = brace + 1;
    }
    None
}

/// A `{{ define "name" }}` block: rendered only where it is included.
#[derive(Debug, Clone)]
pub(crate) struct Define {
    pub name: String,
    /// Chart-relative path of the file that holds it.
    pub file: String,
    /// The 1-based line on which the body starts.
    pub first_line: usize,
    /// The body, with comments removed.
    pub text: String,
}

/// A template with what is rendered in place separated from what is not.
#[derive(Debug)]
pub(crate) struct Parsed {
    /// The text with comments and `define` blocks removed; newlines are kept, so line numbers
    /// match the original file.
    pub rendered: String,
    pub defines: Vec<Define>,
}

/// 1-based line number of a byte offset.
pub(crate) fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

/// Line numbers of many offsets in one text: counting the newlines before each offset anew
/// made a helpers file with dozens of defines quadratic in its length.
struct LineIndex {
    newlines: Vec<usize>,
}

impl LineIndex {
    fn new(text: &str) -> Self {
        LineIndex {
            newlines: memchr::memchr_iter(b'\n', text.as_bytes()).collect(),
        }
    }

    /// As [`line_of`].
    fn line_of(&self, offset: usize) -> usize {
        self.newlines.partition_point(|&at| at < offset) + 1
    }
}

/// Adds the newlines of `text` alone to `out`, so that removing the text keeps line numbers.
fn push_newlines(out: &mut String, text: &str) {
    let count = memchr::memchr_iter(b'\n', text.as_bytes()).count();
    out.extend(std::iter::repeat_n('\n', count));
}

pub(crate) fn parse(file: &str, text: &str) -> Parsed {
    let all = actions(text);
    let lines = LineIndex::new(text);
    // Stack of open blocks: Some((name, body start offset)) for defines, None for others.
    let mut stack: Vec<Option<(String, usize, usize)>> = Vec::new();
    // Byte ranges that are not rendered in place.
    let mut removed: Vec<(usize, usize)> = Vec::new();
    let mut defines = Vec::new();
    for action in &all {
        if action.is_comment() {
            if !stack.iter().any(Option::is_some) {
                removed.push((action.start, action.end));
            }
            continue;
        }
        if action.keyword() == "define" {
            let name = first_string_literal(action.body["define".len()..].trim_start())
                .unwrap_or_default();
            stack.push(Some((name, action.start, action.end)));
        } else if action.opens_block() {
            stack.push(None);
        } else if action.keyword() == "end"
            && let Some(Some((name, define_start, body_start))) = stack.pop()
        {
            defines.push(Define {
                name,
                file: file.to_string(),
                first_line: lines.line_of(body_start),
                text: without_comments(text, body_start..action.start, &all),
            });
            removed.push((define_start, action.end));
        }
    }
    // An unterminated define swallows the rest of the file, as Go's parser would refuse it.
    for open in stack.into_iter().flatten() {
        let (name, define_start, body_start) = open;
        defines.push(Define {
            name,
            file: file.to_string(),
            first_line: lines.line_of(body_start),
            text: without_comments(text, body_start..text.len(), &all),
        });
        removed.push((define_start, text.len()));
    }
    removed.sort();
    let mut rendered = String::with_capacity(text.len());
    let mut at = 0;
    for (start, end) in removed {
        if start < at {
            continue;
        }
        rendered.push_str(&text[at..start]);
        push_newlines(&mut rendered, &text[start..end]);
        at = end;
    }
    rendered.push_str(&text[at..]);
    Parsed { rendered, defines }
}

/// `text[range]` with its `{{/* comments */}}` removed (newlines kept). `all` are the actions
/// of the whole text: a define's body is read from them rather than scanned a second time.
fn without_comments(text: &str, range: std::ops::Range<usize>, all: &[Action<'_>]) -> String {
    let mut out = String::with_capacity(range.len());
    let mut at = range.start;
    let first = all.partition_point(|a| a.start < range.start);
    let inside = all[first..].iter().take_while(|a| a.end <= range.end);
    for action in inside.filter(|a| a.is_comment()) {
        out.push_str(&text[at..action.start]);
        push_newlines(&mut out, &text[action.start..action.end]);
        at = action.end;
    }
    out.push_str(&text[at..range.end]);
    out
}

/// What a YAML value that may hold actions can be: the literal words outside actions, the
/// string literals inside them, and the templates it includes.
#[derive(Debug, Default)]
pub(crate) struct ValueParts {
    pub has_action: bool,
    pub outside: Vec<String>,
    pub literals: Vec<String>,
    pub includes: Vec<String>,
    /// The literal text before the first action (`autoscaling/` in
    /// `autoscaling/{{ if ... }}v2{{ else }}v2beta2{{ end }}`).
    pub prefix: String,
}

/// Splits a YAML value (the text after `key:`) into its parts; a trailing `# comment` outside
/// actions is dropped.
pub(crate) fn value_parts(value: &str) -> ValueParts {
    let mut parts = ValueParts::default();
    let mut at = 0;
    let mut outside_text = String::new();
    let mut first = true;
    for action in actions(value) {
        let before = &value[at..action.start];
        if first {
            parts.prefix = strip_yaml_comment(before).trim().to_string();
            first = false;
        }
        outside_text.push_str(before);
        outside_text.push(' ');
        parts.has_action = true;
        if let Some(name) = action.included_template() {
            parts.includes.push(name);
        }
        parts.literals.extend(action.string_literals());
        at = action.end;
    }
    outside_text.push_str(&value[at..]);
    if first {
        parts.prefix = strip_yaml_comment(value).trim().to_string();
    }
    parts.outside = outside_text
        .lines()
        .map(strip_yaml_comment)
        .flat_map(|line| line.split(|c: char| c.is_whitespace() || c == '"' || c == '\''))
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect();
    parts
}

/// Drops a YAML comment: `#` at the start or after a space, outside quotes.
fn strip_yaml_comment(text: &str) -> &str {
    let mut quote: Option<char> = None;
    let mut previous = ' ';
    for (i, c) in text.char_indices() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '"' || c == '\'' => quote = Some(c),
            None if c == '#' && previous.is_whitespace() => return &text[..i],
            None => {}
        }
        previous = c;
    }
    text
}

/// A `lookup "apiVersion" "Kind" namespace name` call found in an action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LookupCall {
    /// The four arguments as written: string literals unquoted, anything else as `None`.
    pub api_version: Option<String>,
    pub kind: Option<String>,
    pub namespace: Option<String>,
    pub name: Option<String>,
}

/// Every `lookup` call in an action.
pub(crate) fn lookup_calls(action: &Action<'_>) -> Vec<LookupCall> {
    let body = action.body;
    let mut out = Vec::new();
    let mut search = 0;
    while let Some(found) = body[search..].find("lookup") {
        let start = search + found;
        let end = start + "lookup".len();
        search = end;
        let before_ok = body[..start]
            .chars()
            .next_back()
            .is_none_or(|c| c.is_whitespace() || c == '(' || c == '|');
        let after_ok = body[end..].starts_with(char::is_whitespace);
        if !(before_ok && after_ok) {
            continue;
        }
        let args = call_arguments(&body[end..], 4);
        let arg = |i: usize| args.get(i).cloned().flatten();
        out.push(LookupCall {
            api_version: arg(0),
            kind: arg(1),
            namespace: arg(2),
            name: arg(3),
        });
    }
    out
}

/// Up to `count` arguments of a function call: `Some(value)` for string literals, `None` for
/// expressions (variables, fields, parenthesised pipelines).
fn call_arguments(text: &str, count: usize) -> Vec<Option<String>> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while out.len() < count {
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        if i >= bytes.len() || bytes[i] == b')' || bytes[i] == b'|' {
            break;
        }
        match bytes[i] {
            b'"' | b'`' => {
                let (value, next) = read_string(text, i);
                out.push(Some(value));
                i = next;
            }
            b'(' => {
                let mut depth = 0usize;
                while i < bytes.len() {
                    match bytes[i] {
                        b'(' => depth += 1,
                        b')' => {
                            depth -= 1;
                            if depth == 0 {
                                i += 1;
                                break;
                            }
                        }
                        b'"' | b'`' => {
                            i = read_string(text, i).1;
                            continue;
                        }
                        _ => {}
                    }
                    i += 1;
                }
                out.push(None);
            }
            _ => {
                while i < bytes.len() && !bytes[i].is_ascii_whitespace() && bytes[i] != b')' {
                    i += 1;
                }
                out.push(None);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn actions_skip_braces_in_strings_and_comments() {
        let text = r#"a {{ printf "}}" }} b {{/* x }} y */}} c {{- .Values.x -}}"#;
        let found = actions(text);
        assert_eq!(found.len(), 3);
        assert_eq!(found[0].body, r#"printf "}}""#);
        assert!(found[1].is_comment());
        assert_eq!(found[2].body, ".Values.x");
        assert_eq!(found[2].keyword(), ".Values.x");
    }

    #[test]
    fn defines_and_comments_are_not_rendered_in_place() {
        let text = "{{/*\nkind: Comment\n*/}}\n{{- define \"x.thing\" -}}\nkind: Inside\n{{- if .a }}a{{ end }}\n{{- end }}\nkind: Outside\n";
        let parsed = parse("templates/a.yaml", text);
        assert!(!parsed.rendered.contains("Comment"));
        assert!(!parsed.rendered.contains("Inside"));
        assert_eq!(
            parsed.rendered.lines().position(|l| l == "kind: Outside"),
            Some(7),
            "line numbers are kept: {:?}",
            parsed.rendered
        );
        assert_eq!(parsed.defines.len(), 1);
        let define = &parsed.defines[0];
        assert_eq!(define.name, "x.thing");
        assert_eq!(define.first_line, 4);
        assert!(define.text.contains("kind: Inside"));
    }

    /// The actions as the scan found them stepping one byte at a time: what the byte searches
    /// of [`actions`] must find.
    fn actions_bytewise(text: &str) -> Vec<(usize, usize, &str)> {
        let bytes = text.as_bytes();
        let mut out = Vec::new();
        let mut i = 0;
        while let Some(start) = find_open(text, i) {
            let (mut j, mut end, mut terminated, mut in_comment) =
                (start + 2, bytes.len(), false, false);
            while j < bytes.len() {
                if in_comment {
                    in_comment = !bytes[j..].starts_with(b"*/");
                    j += if in_comment { 1 } else { 2 };
                    continue;
                }
                match bytes[j] {
                    b'"' | b'`' => j = skip_string(text, j),
                    b'/' if bytes[j..].starts_with(b"/*") => {
                        in_comment = true;
                        j += 2;
                    }
                    b'}' if bytes[j..].starts_with(b"}}") => {
                        (end, terminated) = (j + 2, true);
                        break;
                    }
                    _ => j += 1,
                }
            }
            let inner = &text[start + 2..if terminated { end - 2 } else { end }];
            let inner = inner.strip_prefix('-').unwrap_or(inner);
            let inner = inner.strip_suffix('-').unwrap_or(inner);
            out.push((start, end, inner.trim()));
            i = end;
        }
        out
    }

    #[test]
    fn byte_searches_find_the_actions_a_bytewise_scan_finds() {
        let mut texts: Vec<String> = [
            "a {{ x / y }} b {{ \"/*\" }} {{ `*/ }}` }} {{/* a } b */}} {{ x }",
            "{{- /* open",
            "{{ \"unterminated\n}} {{ y }}",
            "{{ a }/ }} {{ b /} }} {{/**/}}{{ c /*/ d */ }}",
            "{{ \"\\\" }}\" }} é {{ `é}}` }}",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let before = texts.len();
        let in_templates =
            |path: &std::path::Path| path.components().any(|c| c.as_os_str() == "templates");
        for path in crate::chart::shared_chart_paths(in_templates) {
            if let Ok(text) = std::fs::read_to_string(&path) {
                texts.push(text);
            }
        }
        assert!(
            texts.len() > before + 100,
            "the shared charts' templates at {:?}",
            crate::chart::shared_charts_dir()
        );
        for text in &texts {
            let found: Vec<(usize, usize, &str)> = actions(text)
                .iter()
                .map(|a| (a.start, a.end, a.body))
                .collect();
            assert_eq!(found, actions_bytewise(text), "{text:.200}");
        }
    }

    #[test]
    fn a_define_keeps_its_text_without_its_comments() {
        let text = "{{/* before */}}{{ define \"a\" }}x: {{/* one\ntwo */}}1\n{{ .y }}{{ end }}{{/* after */}}{{ define \"b\" }}b: {{/* c */}}2";
        let parsed = parse("templates/_h.tpl", text);
        let texts: Vec<(&str, &str)> = parsed
            .defines
            .iter()
            .map(|d| (d.name.as_str(), d.text.as_str()))
            .collect();
        // The unterminated define runs to the end of the file.
        assert_eq!(texts, [("a", "x: \n1\n{{ .y }}"), ("b", "b: 2")]);
    }

    #[test]
    fn value_parts_find_literals_and_includes() {
        let parts = value_parts(r#"{{ $route.kind | default "HTTPRoute" }} # comment"#);
        assert!(parts.has_action);
        assert_eq!(parts.literals, ["HTTPRoute"]);
        assert!(parts.outside.is_empty());

        let parts = value_parts(r#"{{ include "common.capabilities.deployment.apiVersion" . }}"#);
        assert_eq!(
            parts.includes,
            ["common.capabilities.deployment.apiVersion"]
        );
        assert!(parts.literals.is_empty());

        let parts = value_parts(
            r#"{{ if semverCompare ">=1.21-0" .Capabilities.KubeVersion.GitVersion }}policy/v1{{ else }}policy/v1beta1{{ end }}"#,
        );
        assert_eq!(parts.outside, ["policy/v1", "policy/v1beta1"]);
        assert_eq!(parts.literals, [">=1.21-0"]);

        let parts = value_parts("autoscaling/{{ ternary \"v2\" \"v2beta2\" .x }}");
        assert_eq!(parts.prefix, "autoscaling/");

        let parts = value_parts("\"Deployment\" # the workload");
        assert!(!parts.has_action);
        assert_eq!(parts.outside, ["Deployment"]);
    }

    #[test]
    fn lookup_calls_are_parsed() {
        let text = r#"{{- $s := lookup "v1" "Secret" .Release.Namespace "bootstrap" -}} {{ (lookup "apiextensions.k8s.io/v1" "CustomResourceDefinition" "" $crd) }} {{ lookup $v $k "" "" }}"#;
        let calls: Vec<_> = actions(text).iter().flat_map(lookup_calls).collect();
        assert_eq!(calls.len(), 3);
        assert_eq!(calls[0].api_version.as_deref(), Some("v1"));
        assert_eq!(calls[0].kind.as_deref(), Some("Secret"));
        assert_eq!(calls[0].namespace, None);
        assert_eq!(calls[0].name.as_deref(), Some("bootstrap"));
        assert_eq!(calls[1].namespace.as_deref(), Some(""));
        assert_eq!(calls[1].name, None);
        assert_eq!(calls[2].api_version, None);
        assert_eq!(calls[2].name.as_deref(), Some(""));
    }

    #[test]
    fn output_actions_are_told_from_control() {
        let kinds: Vec<_> = actions(
            r#"{{ tpl (toYaml .) $ }}{{- if .x }}{{ $a := 1 }}{{ include "x" . }}{{ fail "no" }}{{ .Values.extra }}"#,
        )
        .iter()
        .map(Action::outputs_data)
        .collect();
        assert_eq!(kinds, [true, false, false, false, false, true]);
    }

    #[test]
    fn the_keyword_is_the_first_word_whatever_ends_it() {
        for (text, keyword) in [
            ("{{ if .x }}", "if"),
            ("{{- end -}}", "end"),
            ("{{ include(\"x\") }}", "include"),
            ("{{ .Values.x|quote }}", ".Values.x"),
            ("{{ $v }}", "$v"),
            ("{{ /* note */ }}", "/*"),
            ("{{ été\u{a0}x }}", "été"),
            ("{{ x\u{2003}y }}", "x"),
            ("{{ ünïcode }}", "ünïcode"),
            ("{{ if\t.x }}", "if"),
        ] {
            let found = actions(text);
            assert_eq!(found.len(), 1, "{text}");
            assert_eq!(found[0].keyword(), keyword, "{text}");
        }
    }
}
