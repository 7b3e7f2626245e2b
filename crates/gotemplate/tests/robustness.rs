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
