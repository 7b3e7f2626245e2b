//! No panic on any input: every prefix of every snippet of the Helm corpus (cut anywhere,
//! including inside a character) is parsed and, when it parses, executed. The fuzz target
//! (`fuzz/`) explores further; this runs with the ordinary tests.

use gotemplate::{Function, Functions, Limits, MissingKey, Templates, Type, Value};

fn funcs() -> Functions {
    let mut f = Functions::sprig();
    f.insert(
        "include",
        Function::new(&[Type::String, Type::Any], |cx, a| {
            let name = a[0].as_str().unwrap_or_default().to_string();
            cx.execute_template(&name, &a[1]).map(Value::from)
        }),
    );
    f.remove("getHostByName");
    f
}

#[test]
fn every_prefix_of_every_snippet_parses_or_fails_cleanly() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/gotemplate_corpus");
    let values: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(format!("{dir}/values.json")).unwrap())
            .unwrap();
    let data: Value = [("Values".to_string(), Value::from_json(&values))]
        .into_iter()
        .collect::<gotemplate::Map>()
        .into();
    let funcs = std::sync::Arc::new(funcs());
    let mut texts = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "tmpl") {
            let file = std::fs::read_to_string(&path).unwrap();
            for snippet in file.split("\n### ") {
                // Drop the snippet's name line.
                let body = snippet.split_once('\n').map(|(_, b)| b).unwrap_or("");
                texts.push(body.as_bytes().to_vec());
            }
        }
    }
    assert!(!texts.is_empty());
    let mut runs = 0;
    for bytes in texts {
        for cut in 0..=bytes.len() {
            let text = String::from_utf8_lossy(&bytes[..cut]);
            let mut set = Templates::with_functions(funcs.clone());
            set.set_missing_key(MissingKey::Zero).set_limits(Limits {
                max_depth: 100,
                max_output: 1 << 20,
                max_input: 1 << 20,
            });
            if set.parse("t", &text).is_ok() {
                let _ = set.execute("t", &data.deep_clone());
            }
            runs += 1;
        }
    }
    assert!(runs > 1000, "{runs} runs");
}

/// Found by the fuzz target on a real chart template (redis' sentinel StatefulSet, 46 KB, two
/// seconds to parse): the lexer counted the newlines from the start of the text for every item,
/// so parsing took time quadratic in the text. A 2.5 MB text of 300,000 items must still give
/// the right line in its message. No clock is asserted (tests never do): quadratic counting
/// would make this test take minutes, which shows in the test run's time.
#[test]
fn parsing_is_linear_in_the_text() {
    let lines = 100_000;
    let mut text = "{{ .a }} {{ .b }}\n".repeat(lines);
    text.push_str("{{ .c ) }}");
    let mut set = Templates::new(Functions::sprig());
    let err = set.parse("t", &text).unwrap_err().to_string();
    assert_eq!(
        err,
        format!("template: t:{}: unexpected right paren", lines + 1)
    );
    let mut set = Templates::new(Functions::sprig());
    set.parse("t", &"{{ .a }}\n".repeat(lines)).unwrap();
}

/// Runs `f` on a thread with the 2 MiB stack that Rust gives new threads, so that a test
/// that would overflow the stack fails here as it would in a program's worker thread.
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap()
}

fn render(text: &str) -> Result<String, String> {
    gotemplate::render("t", text, &Value::Nil).map_err(|e| e.to_string())
}

/// Go's bound on nested parentheses (10000), with Go's message; up to it, the parser and the
/// executor recurse without overflowing the stack.
#[test]
fn nested_parentheses_stop_at_go_s_depth() {
    on_small_stack(|| {
        let nested = |n: usize| format!("{{{{ {}1{} }}}}", "(".repeat(n), ")".repeat(n));
        assert_eq!(render(&nested(10_000)).unwrap(), "1");
        assert_eq!(
            render(&nested(10_001)).unwrap_err(),
            "template: t:1: max expression depth exceeded"
        );
        assert_eq!(
            render(&nested(1_000_000)).unwrap_err(),
            "template: t:1: max expression depth exceeded"
        );
    });
}

/// Nested blocks (Go has no bound of its own) stop at 10000 with a message that says so.
#[test]
fn nested_blocks_stop_at_a_bound() {
    on_small_stack(|| {
        let ifs = |n: usize| format!("{}x{}", "{{ if 1 }}".repeat(n), "{{ end }}".repeat(n));
        assert_eq!(render(&ifs(10_000)).unwrap(), "x");
        let err = render(&ifs(10_001)).unwrap_err();
        assert!(err.contains("max block depth exceeded"), "{err}");
        let err = render(&"{{ range . }}{{ with 1 }}".repeat(200_000)).unwrap_err();
        assert!(err.contains("max block depth exceeded"), "{err}");
        let chain = format!(
            "{{{{ if 0 }}}}{}x{{{{ end }}}}",
            "{{ else if 0 }}".repeat(20_000)
        );
        assert!(
            render(&chain)
                .unwrap_err()
                .contains("max block depth exceeded")
        );
    });
}

/// A list nested 100000 deep, built by a template, is printed, measured and encoded without
/// overflowing the stack, and dropped without overflowing it either.
#[test]
fn deeply_nested_values_are_used_and_dropped_on_a_small_stack() {
    on_small_stack(|| {
        let text = "{{ $l := list }}{{ range until 100000 }}{{ $l = list $l }}{{ end }}\
                    {{ len $l }} {{ len (printf \"%v\" $l) }}";
        // Go prints it all; this engine's `%v` cuts nesting at 100 levels with "...".
        assert!(render(text).unwrap().starts_with("1 "));
        render(
            "{{ $l := list }}{{ range until 100000 }}{{ $l = list $l }}{{ end }}{{ toJson $l }}",
        )
        .unwrap();
        let mut deep = Value::list(Vec::new());
        for _ in 0..1_000_000 {
            let map: gotemplate::Map = [("k".to_string(), deep)].into_iter().collect();
            deep = Value::list(vec![Value::Map(map)]);
        }
        drop(deep);
    });
}

/// Found by the fuzz target: a width of 44073709551615 asked for 44 TB of padding. Go's
/// `fmt` stops a width or precision that grows past a million with `%!(NOVERB)`, and refuses
/// such a `*` width as `%!(BADWIDTH)` (the expected texts are real Helm's).
#[test]
fn printf_widths_past_a_million_are_refused_as_go_refuses_them() {
    let out = render(r#"{{ printf "%x|% 044073709551615x|%#x" "hi" "hi" "hi" }}"#).unwrap();
    assert_eq!(out, "6869|%!(NOVERB)%!(EXTRA string=hi, string=hi)");
    let out = render(r#"{{ printf "%.99999999s" "hi" }}"#).unwrap();
    assert_eq!(out, "%!(NOVERB)%!(EXTRA string=hi)");
    let out = render(r#"{{ printf "%*d" 99999999 1 }}"#).unwrap();
    assert_eq!(out, "%!(BADWIDTH)1");
}
