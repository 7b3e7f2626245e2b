//! The template engine against real Helm: every snippet of `tests/gotemplate_corpus/*.tmpl` is
//! rendered by `crates/gotemplate` and by Helm 4 (through helm-python-sdk) at test time, and the
//! outputs (or error messages) must be identical. Nothing is copied in as an expected string.
//! Differences known and not yet fixed are listed, with the reason, in
//! `tests/gotemplate_corpus/known_differences.txt`; any other difference fails the test, and a
//! listed snippet that became identical fails it too (so the list stays true).

mod support;

use std::collections::BTreeMap;
use std::path::Path;

use gotemplate::{Function, Functions, Map, MissingKey, Templates, Type, Value};
use support::helm_oracle::{HelmOracle, RenderRequest};

const CHART: &str = "c";
const TEMPLATE: &str = "c/templates/t.yaml";

/// Snippets: `### name` starts one; its text runs to the next header (the newline before the
/// header is not part of it).
fn snippets(dir: &Path) -> Vec<(String, String)> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .expect("corpus directory")
        .map(|e| e.expect("corpus entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "tmpl"))
        .collect();
    files.sort();
    let mut out: Vec<(String, String)> = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).expect("read corpus file");
        let stem = f.file_stem().unwrap().to_string_lossy().to_string();
        let mut current: Option<(String, String)> = None;
        for line in text.split_inclusive('\n') {
            if let Some(name) = line.strip_prefix("### ") {
                if let Some((n, mut t)) = current.take() {
                    if t.ends_with('\n') {
                        t.pop();
                    }
                    out.push((n, t));
                }
                current = Some((format!("{stem}/{}", name.trim()), String::new()));
            } else if let Some((_, t)) = current.as_mut() {
                t.push_str(line);
            }
        }
        if let Some((n, mut t)) = current.take() {
            if t.ends_with('\n') {
                t.pop();
            }
            out.push((n, t));
        }
    }
    let mut seen = std::collections::HashSet::new();
    for (n, _) in &out {
        assert!(seen.insert(n.clone()), "snippet {n} is defined twice");
    }
    out
}

/// The engine as Helm sets it up, with a minimal `include` (Helm's own functions are the
/// tool's; the corpus needs only this one to exercise nested execution).
fn engine_render(text: &str, data: &Value) -> Result<String, String> {
    let mut funcs = Functions::sprig();
    funcs.insert(
        "include",
        Function::new(&[Type::String, Type::Any], |cx, a| {
            let name = a[0].as_str().unwrap_or_default().to_string();
            cx.execute_template(&name, &a[1]).map(Value::from)
        }),
    );
    let mut set = Templates::new(funcs);
    set.set_name("gotpl").set_missing_key(MissingKey::Zero);
    set.parse(TEMPLATE, text)
        .map_err(|e| helm_error(&e.message))?;
    set.execute(TEMPLATE, data)
        .map(|s| s.replace("<no value>", ""))
        .map_err(|e| helm_error(&e.message))
}

/// Helm 4's presentation of Go's template errors, as observed from the oracle: parse errors
/// become `parse error at (LOC): MSG`; `fail` becomes `execution error at (LOC): MSG`; an
/// execution error is shown as a trace, one `LOC / executing ... / MSG` block per nested
/// template, unless its innermost cause is a function's plain error, which Helm leaves as Go
/// wrote it.
fn helm_error(go: &str) -> String {
    let Some(rest) = go.strip_prefix("template: ") else {
        return go.to_string();
    };
    if !rest.contains(": executing ") {
        let tokens: Vec<&str> = go.split(": ").collect();
        if tokens.len() > 1 {
            return format!(
                "parse error at ({}): {}",
                tokens[1],
                tokens[tokens.len() - 1]
            );
        }
        return go.to_string();
    }
    let outer_loc = rest.split(": ").next().unwrap_or_default();
    if let Some(i) = go.rfind("error calling fail: ") {
        let msg = &go[i + "error calling fail: ".len()..];
        return format!("execution error at ({outer_loc}): {msg}");
    }
    let mut blocks: Vec<String> = Vec::new();
    let mut cur = rest;
    loop {
        let Some((loc, after)) = cur.split_once(": executing ") else {
            blocks.push(format!("template: {cur}"));
            break;
        };
        let Some((at, msg)) = after.split_once(">: ") else {
            return go.to_string();
        };
        let head = format!("{loc}\n  executing {at}>:\n    ");
        if let Some(called) = msg.strip_prefix("error calling ") {
            let Some((fname, inner)) = called.split_once(": ") else {
                return go.to_string();
            };
            match inner.strip_prefix("template: ") {
                Some(next) => {
                    blocks.push(format!("{head}error calling {fname}:"));
                    cur = next;
                }
                None => return go.to_string(),
            }
        } else {
            blocks.push(format!("{head}{msg}"));
            break;
        }
    }
    blocks.dedup();
    blocks.join("\n").trim().to_string()
}

/// `.Values` as Helm 4 has it: a map of the named type `common.Values`.
fn helm_values(values: &serde_json::Value) -> Value {
    match Value::from_json(values) {
        Value::Map(ref m) => Value::Map(Map::named("common.Values", m.read().clone())),
        other => other,
    }
}

fn data(values: &serde_json::Value) -> Value {
    let release: Map = [
        ("Name".to_string(), Value::from("r1")),
        ("Namespace".to_string(), Value::from("ns1")),
    ]
    .into_iter()
    .collect();
    let template: Map = [
        ("Name".to_string(), Value::from(TEMPLATE)),
        ("BasePath".to_string(), Value::from("c/templates")),
    ]
    .into_iter()
    .collect();
    [
        ("Values".to_string(), helm_values(values)),
        ("Release".to_string(), Value::Map(release)),
        ("Template".to_string(), Value::Map(template)),
    ]
    .into_iter()
    .collect::<Map>()
    .into()
}

#[test]
fn snippets_render_as_helm_renders_them() {
    let Some(mut helm) = HelmOracle::start() else {
        return;
    };
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/gotemplate_corpus");
    let values: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("values.json")).expect("values.json"),
    )
    .expect("values.json is JSON");
    let known: BTreeMap<String, String> =
        std::fs::read_to_string(dir.join("known_differences.txt"))
            .unwrap_or_default()
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
            .map(|l| match l.split_once(' ') {
                Some((n, why)) => (n.to_string(), why.trim().to_string()),
                None => (l.to_string(), String::new()),
            })
            .collect();
    let cases = snippets(&dir);
    assert!(
        cases.len() >= 100,
        "the corpus has {} snippets",
        cases.len()
    );

    let tmp = tempfile::tempdir().expect("temp dir");
    let reqs: Vec<RenderRequest> = cases
        .iter()
        .enumerate()
        .map(|(i, (_, text))| {
            let chart = tmp.path().join(i.to_string());
            std::fs::create_dir_all(chart.join("templates")).unwrap();
            std::fs::write(
                chart.join("Chart.yaml"),
                format!("apiVersion: v2\nname: {CHART}\nversion: 0.1.0\n"),
            )
            .unwrap();
            std::fs::write(chart.join("templates/t.yaml"), text).unwrap();
            RenderRequest::new(chart)
                .values(values.clone())
                .release("r1", "ns1")
        })
        .collect();
    let answers = helm.render_all(&reqs);

    let mut identical = 0;
    let mut unexpected = Vec::new();
    let mut fixed = Vec::new();
    let mut known_left = Vec::new();
    for ((name, text), helm_answer) in cases.iter().zip(answers) {
        let helm_out = helm_answer.map(|m| m.get(TEMPLATE).cloned().unwrap_or_default());
        // Fresh data for each snippet: templates may change maps in place, as in Go.
        let ours = engine_render(text, &data(&values));
        if ours == helm_out {
            identical += 1;
            if known.contains_key(name) {
                fixed.push(name.clone());
            }
        } else if let Some(why) = known.get(name) {
            known_left.push(format!("{name}: {why}"));
        } else {
            unexpected.push(format!(
                "--- {name}\n{text}\n  helm: {helm_out:?}\n  ours: {ours:?}"
            ));
        }
    }
    eprintln!(
        "gotemplate corpus: {} snippets, {identical} identical, {} different ({} known)",
        cases.len(),
        cases.len() - identical,
        known_left.len()
    );
    for k in &known_left {
        eprintln!("  known difference: {k}");
    }
    assert!(
        unexpected.is_empty(),
        "{} snippets render differently from Helm:\n{}",
        unexpected.len(),
        unexpected.join("\n")
    );
    assert!(
        fixed.is_empty(),
        "these snippets now render as Helm does; remove them from known_differences.txt: {fixed:?}"
    );
}
