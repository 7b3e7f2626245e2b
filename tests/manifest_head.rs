//! The quick reading of a manifest's head agrees with the YAML parser: on every YAML document of
//! the shared charts (their own YAML files and what they render) and on thousands of damaged
//! copies of them, whenever the scanner calls a document valid the parser accepts it too and
//! finds the same `apiVersion`, `kind` and `metadata` in the scanner's excerpt.

mod support;

use operator_rs::render::capabilities::Capabilities;
use operator_rs::render::manifest_head::head_excerpt;
use operator_rs::render::manifests::split_documents;
use operator_rs::render::release::{self, Options};
use operator_rs::render::tree::ChartNode;
use operator_rs::render::values::Values;
use serde_json::Value;
use support::project::{read_tree, shared_chart_names, shared_charts};

/// The head as the parser finds it, or its error.
fn parsed_head(text: &str) -> Result<Option<[Value; 3]>, String> {
    let value: Option<Value> =
        operator_rs::yaml::from_str_last_key_wins(text).map_err(|e| e.to_string())?;
    Ok(value.map(|v| {
        ["apiVersion", "kind", "metadata"].map(|k| v.get(k).cloned().unwrap_or(Value::Null))
    }))
}

/// The verdict on one document: whether the scanner answered.
fn check(doc: &str) -> bool {
    let Some(excerpt) = head_excerpt(doc) else {
        return false;
    };
    let full = parsed_head(doc)
        .unwrap_or_else(|e| panic!("the scanner accepted what the parser refuses ({e}):\n{doc}"));
    let quick = parsed_head(&excerpt)
        .unwrap_or_else(|e| panic!("the excerpt does not parse ({e}):\n{excerpt}\nof\n{doc}"));
    let none = |h: Option<[Value; 3]>| h.unwrap_or([Value::Null, Value::Null, Value::Null]);
    assert_eq!(none(quick), none(full), "different heads for\n{doc}");
    true
}

/// Every YAML document of the shared charts: their files without template actions, and the
/// documents each chart renders with its defaults.
fn corpus() -> Vec<String> {
    let mut docs = Vec::new();
    for name in shared_chart_names() {
        let dir = shared_charts().join(&name);
        for (path, bytes) in read_tree(&dir) {
            let text = String::from_utf8_lossy(&bytes);
            if (path.ends_with(".yaml") || path.ends_with(".yml")) && !text.contains("{{") {
                docs.extend(split_documents(&text));
            }
        }
        // rancher's unreleased version does not load; its files are in the corpus above.
        let Ok(chart) = operator_rs::chart::load_local(&dir) else {
            continue;
        };
        let Ok(node) = ChartNode::load(&chart, true) else {
            continue;
        };
        let options = Options::new("release-name", "default", Capabilities::new(None, &[]));
        if let Ok(rendered) = release::render(&node, &Values::new(), &options) {
            // NOTES.txt is text for people, never sorted as manifests.
            for (path, text) in &rendered.templates {
                if !path.ends_with("NOTES.txt") {
                    docs.extend(split_documents(text));
                }
            }
        }
    }
    docs
}

#[test]
fn the_scanner_reads_the_shared_charts_as_the_parser_does() {
    let docs = corpus();
    let answered = docs.iter().filter(|d| check(d)).count();
    // The scanner is there for speed: it must answer for nearly all real documents (rancher's
    // Chart.yaml, with its unreleased `version: %VERSION%`, is not YAML at all).
    assert!(
        answered * 100 >= docs.len() * 99,
        "the scanner answered for only {answered} of {} documents",
        docs.len()
    );
}

/// A small deterministic generator (the test must not depend on a random seed to reproduce).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n.max(1)
    }
}

const SNIPPETS: &[&str] = &[
    ": ", " #", "#", "\t", "'", "\"", "''", "- ", "-", "&a ", "*a", "!t ", "{", "}", "[", "]",
    "[]", "{}", "|", ">", "|-", "\\", "\\x4", "\\u00e9", "...", "---", "? ", "\r", "%", "@", "`",
    "\u{feff}", "\u{2028}", "\u{85}", "\u{7}", "é", " ", "  ", "a: b", ":", "<<: ", "~: ",
];

/// One damaged copy of `doc`.
fn mutate(doc: &str, rng: &mut Lcg) -> String {
    let mut lines: Vec<String> = doc.lines().map(str::to_string).collect();
    if lines.is_empty() {
        return doc.to_string();
    }
    let i = rng.below(lines.len());
    match rng.below(7) {
        0 => lines[i].insert(0, ' '),
        1 => {
            if lines[i].starts_with(' ') {
                lines[i].remove(0);
            }
        }
        2 => {
            let line = &mut lines[i];
            let mut at = rng.below(line.len() + 1);
            while !line.is_char_boundary(at) {
                at -= 1;
            }
            line.insert_str(at, SNIPPETS[rng.below(SNIPPETS.len())]);
        }
        3 => {
            let line = &mut lines[i];
            if !line.is_empty() {
                let mut at = rng.below(line.len());
                while !line.is_char_boundary(at) {
                    at -= 1;
                }
                line.remove(at);
            }
        }
        4 => {
            let copy = lines[i].clone();
            lines.insert(i, copy);
        }
        5 => {
            lines.remove(i);
        }
        _ => {
            if i + 1 < lines.len() {
                let next = lines.remove(i + 1);
                lines[i].push_str(&next);
            }
        }
    }
    let mut out = lines.join("\n");
    out.push('\n');
    out
}

#[test]
fn damaged_documents_are_refused_or_read_as_the_parser_reads_them() {
    let mut rng = Lcg(0x5eed);
    // The start of each document keeps the full parses cheap; a cut document is one more case.
    let docs: Vec<String> = corpus()
        .into_iter()
        .map(|d| d.lines().take(80).collect::<Vec<_>>().join("\n") + "\n")
        .collect();
    let mut answered = 0;
    for round in 0..20000 {
        let mut doc = docs[round % docs.len()].clone();
        for _ in 0..1 + rng.below(3) {
            doc = mutate(&doc, &mut rng);
        }
        if check(&doc) {
            answered += 1;
        }
    }
    assert!(
        answered > 5000,
        "only {answered} damaged documents were answered"
    );
}
