//! No module imports back the one that imports it: in `src/commands`, `src/helm_runtime` and the
//! template engine's `value` and `gofmt`, data flows one way. The test reads the source files,
//! builds the graph of `use super::…`, `use crate::…` and the same paths written inline, and
//! fails on every cycle it finds there, naming the edges.
//!
//! A module's edges to its own ancestors and descendants do not count (a `mod.rs` re-exports its
//! children, and a child uses what its parent defines); test modules inside a file
//! (`mod tests { use super::*; }`) count for the file itself, and comments are skipped.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use regex::Regex;

type Module = Vec<String>;

/// The modules of a crate whose root is `files`' `lib.rs`, keyed by their path in the crate
/// (`["commands", "new"]`), each with its source text.
fn modules(files: &[(String, String)]) -> BTreeMap<Module, &str> {
    files
        .iter()
        .map(|(path, text)| {
            let mut parts: Module = path
                .trim_end_matches(".rs")
                .split('/')
                .map(str::to_string)
                .collect();
            if matches!(
                parts.last().map(String::as_str),
                Some("mod" | "lib" | "main")
            ) {
                parts.pop();
            }
            (parts, text.as_str())
        })
        .collect()
}

/// The paths a `use` tree names, each as its segments: `super::{a, b::{c, d}}` gives
/// `super::a`, `super::b::c` and `super::b::d`.
fn expand_use(tree: &str) -> Vec<Vec<String>> {
    let tree: String = tree.chars().filter(|c| !c.is_whitespace()).collect();
    let (paths, _) = use_paths(tree.as_bytes(), 0);
    paths
}

fn use_paths(tree: &[u8], mut at: usize) -> (Vec<Vec<String>>, usize) {
    let mut prefix: Vec<String> = Vec::new();
    let mut segment = String::new();
    while at < tree.len() {
        match tree[at] {
            b'{' => {
                if !segment.is_empty() {
                    prefix.push(std::mem::take(&mut segment));
                }
                let mut out = Vec::new();
                at += 1;
                while at < tree.len() && tree[at] != b'}' {
                    let (paths, next) = use_paths(tree, at);
                    out.extend(paths.into_iter().map(|p| [prefix.clone(), p].concat()));
                    at = next;
                    if at < tree.len() && tree[at] == b',' {
                        at += 1;
                    }
                }
                return (out, at + 1);
            }
            b',' | b'}' => break,
            b':' if tree.get(at + 1) == Some(&b':') => {
                prefix.push(std::mem::take(&mut segment));
                at += 2;
                continue;
            }
            byte => segment.push(char::from(byte)),
        }
        at += 1;
    }
    if !segment.is_empty() {
        prefix.push(segment);
    }
    (vec![prefix], at)
}

/// For each line of a rustfmt-formatted file, how many inline modules (`mod tests {`) enclose it.
fn inline_depths(text: &str) -> Vec<usize> {
    let opening = Regex::new(r"^(\s*)(pub(\([\w:]+\))?\s+)?mod\s+\w+\s*\{\s*$").unwrap();
    let mut open: Vec<String> = Vec::new();
    text.lines()
        .map(|line| {
            let depth = open.len();
            if let Some(found) = opening.captures(line) {
                open.push(found[1].to_string());
            } else if open
                .last()
                .is_some_and(|indent| line == format!("{indent}}}"))
            {
                open.pop();
            }
            depth
        })
        .collect()
}

/// The edges `from -> to` between modules that are neither ancestor nor descendant of each
/// other.
fn edges(modules: &BTreeMap<Module, &str>) -> BTreeMap<Module, BTreeSet<Module>> {
    let use_statement = Regex::new(r"\buse\s+([^;]+);").unwrap();
    let inline_path = Regex::new(r"\b(?:crate|super|self)(?:::\w+)+").unwrap();
    let mut out: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    for (module, text) in modules {
        // Comment lines are blanked, so that line numbers (for the inline module depth) stay.
        let code: String = text
            .lines()
            .map(|line| {
                if line.trim_start().starts_with("//") {
                    ""
                } else {
                    line
                }
            })
            .collect::<Vec<_>>()
            .join("\n");
        let depths = inline_depths(&code);
        let line_of = |offset: usize| code[..offset].matches('\n').count();
        let mut paths: Vec<(usize, Vec<String>)> = Vec::new();
        for found in use_statement.captures_iter(&code) {
            let line = line_of(found.get(0).map_or(0, |m| m.start()));
            paths.extend(expand_use(&found[1]).into_iter().map(|p| (line, p)));
        }
        for found in inline_path.find_iter(&code) {
            let segments = found.as_str().split("::").map(str::to_string).collect();
            paths.push((line_of(found.start()), segments));
        }
        for (line, path) in paths {
            if let Some(to) = resolve(
                modules,
                module,
                depths.get(line).copied().unwrap_or(0),
                &path,
            ) {
                let related = to.starts_with(module) || module.starts_with(&to);
                if !related {
                    out.entry(module.clone()).or_default().insert(to);
                }
            }
        }
    }
    out
}

/// The module a path names (its longest prefix that is a module), seen from `module` at
/// `inline_depth` inline modules deep; `None` for paths into other crates.
fn resolve(
    modules: &BTreeMap<Module, &str>,
    module: &Module,
    mut inline_depth: usize,
    path: &[String],
) -> Option<Module> {
    let (mut base, mut rest): (Module, &[String]) = match path.first().map(String::as_str) {
        Some("crate") => (Vec::new(), &path[1..]),
        Some("super" | "self") => (module.clone(), path),
        _ => return None,
    };
    while let Some(first) = rest.first().map(String::as_str) {
        match first {
            "super" if inline_depth > 0 => inline_depth -= 1,
            "super" => {
                base.pop();
            }
            "self" => {}
            _ => break,
        }
        rest = &rest[1..];
    }
    let mut best = modules.contains_key(&base).then(|| base.clone());
    for segment in rest {
        base.push(segment.clone());
        if modules.contains_key(&base) {
            best = Some(base.clone());
        } else {
            break;
        }
    }
    best
}

/// The strongly connected components with more than one module (Tarjan's algorithm).
fn cycles(graph: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<BTreeSet<Module>> {
    struct State<'g> {
        graph: &'g BTreeMap<Module, BTreeSet<Module>>,
        index: BTreeMap<&'g Module, usize>,
        low: BTreeMap<&'g Module, usize>,
        stack: Vec<&'g Module>,
        on_stack: BTreeSet<&'g Module>,
        found: Vec<BTreeSet<Module>>,
    }
    fn visit<'g>(state: &mut State<'g>, node: &'g Module) {
        let next = state.index.len();
        state.index.insert(node, next);
        state.low.insert(node, next);
        state.stack.push(node);
        state.on_stack.insert(node);
        for to in state.graph.get(node).into_iter().flatten() {
            if !state.index.contains_key(to) {
                visit(state, to);
                let low = state.low[node].min(state.low[to]);
                state.low.insert(node, low);
            } else if state.on_stack.contains(to) {
                let low = state.low[node].min(state.index[to]);
                state.low.insert(node, low);
            }
        }
        if state.low[node] == state.index[node] {
            let mut component = BTreeSet::new();
            while let Some(top) = state.stack.pop() {
                state.on_stack.remove(top);
                component.insert(top.clone());
                if top == node {
                    break;
                }
            }
            if component.len() > 1 {
                state.found.push(component);
            }
        }
    }
    let mut state = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for node in graph.keys() {
        if !state.index.contains_key(node) {
            visit(&mut state, node);
        }
    }
    state.found
}

/// Every `.rs` file under `root`, as (path relative to `root`, text).
fn read_tree(root: &Path) -> Vec<(String, String)> {
    let mut files = Vec::new();
    for entry in walkdir::WalkDir::new(root).sort_by_file_name() {
        let entry = entry.expect("walk the source tree");
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "rs") {
            let relative = path.strip_prefix(root).unwrap().to_string_lossy();
            let text = std::fs::read_to_string(path).expect("read a source file");
            files.push((relative.replace('\\', "/"), text));
        }
    }
    files
}

fn name(module: &Module) -> String {
    module.join("::")
}

/// The cycles among modules that `watched` accepts, with their edges, as lines.
fn cycles_among(files: &[(String, String)], watched: impl Fn(&Module) -> bool) -> Vec<String> {
    let modules = modules(files);
    let graph = edges(&modules);
    cycles(&graph)
        .into_iter()
        .filter(|component| component.iter().any(&watched))
        .map(|component| {
            let arrows: Vec<String> = component
                .iter()
                .flat_map(|from| {
                    graph[from]
                        .iter()
                        .filter(|to| component.contains(*to))
                        .map(move |to| format!("{} -> {}", name(from), name(to)))
                })
                .collect();
            arrows.join(", ")
        })
        .collect()
}

/// The modules of the template engine's interpreter that call each other by nature: the
/// executor runs functions, and `include`/`tpl`-like functions run templates through the
/// executor. Not part of this check; `value` and `gofmt`, the data and its printing, are below
/// them and must stay out of any cycle.
const ENGINE_CORE: &[&str] = &[
    "builtins",
    "exec",
    "funcs",
    "parse",
    "sprig",
    "substitution",
    "template",
];

#[test]
fn commands_and_the_helm_runtime_import_in_one_direction() {
    let src = read_tree(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    let found = cycles_among(&src, |module| {
        matches!(
            module.first().map(String::as_str),
            Some("commands" | "helm_runtime")
        )
    });
    assert!(
        found.is_empty(),
        "modules of src/commands or src/helm_runtime import each other: {found:#?}"
    );
}

#[test]
fn the_engines_values_and_their_printing_import_in_one_direction() {
    let engine = read_tree(&Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/gotemplate/src"));
    let found = cycles_among(&engine, |module| {
        module
            .first()
            .is_some_and(|top| !ENGINE_CORE.contains(&top.as_str()))
    });
    assert!(
        found.is_empty(),
        "modules of crates/gotemplate import each other: {found:#?}"
    );
}

/// The check itself finds a cycle, whether written as imports or as paths inline, and does not
/// take a file's own test module for another module.
#[test]
fn the_check_finds_a_cycle_and_only_a_cycle() {
    let file = |path: &str, text: &str| (path.to_string(), text.to_string());
    let tree = [
        file("lib.rs", "pub mod a;\npub mod b;\npub mod c;\n"),
        file(
            "a/mod.rs",
            "//! Uses b: [`crate::c`] in a comment is no edge.\nmod x;\nuse super::b::{self, B};\n",
        ),
        file("a/x.rs", "pub fn f() { super::super::c::g() }\n"),
        file(
            "b.rs",
            "use crate::c;\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n}\n",
        ),
        file("c.rs", "pub fn g() { crate::a::x::f() }\n"),
    ];
    let found = cycles_among(&tree, |_| true);
    assert_eq!(found, ["a::x -> c, c -> a::x"], "{found:?}");
    let without = [
        tree[0].clone(),
        tree[1].clone(),
        tree[2].clone(),
        tree[3].clone(),
        file("c.rs", "pub fn g() {}\n"),
    ];
    assert!(cycles_among(&without, |_| true).is_empty());
}
