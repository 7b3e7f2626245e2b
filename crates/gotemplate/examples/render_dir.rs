//! Renders every template of a chart-like directory the way Helm's engine does (all files parsed
//! into one set, each non-partial file executed), N times, and prints the time per render.
//! Used by `benches/gotemplate.sh` at the repository root to compare with Helm.
//!
//! `cargo run --release --example render_dir -- DIR/templates VALUES.json ITERATIONS`

use std::time::Instant;

use gotemplate::{Function, Functions, Map, MissingKey, Templates, Type, Value};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 4 {
        eprintln!("usage: render_dir TEMPLATES_DIR VALUES_JSON ITERATIONS");
        std::process::exit(2);
    }
    let dir = std::path::Path::new(&args[1]);
    let values: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&args[2]).expect("read values"))
            .expect("values are JSON");
    let iterations: usize = args[3].parse().expect("iterations is a number");
    let mut files: Vec<(String, String)> = std::fs::read_dir(dir)
        .expect("read templates dir")
        .map(|e| e.expect("dir entry").path())
        .map(|p| {
            let name = format!("c/templates/{}", p.file_name().unwrap().to_string_lossy());
            (name, std::fs::read_to_string(&p).expect("read template"))
        })
        .collect();
    files.sort();

    let mut funcs = Functions::sprig();
    funcs.insert(
        "include",
        Function::new(&[Type::String, Type::Any], |cx, a| {
            let name = a[0].as_str().unwrap_or_default().to_string();
            cx.execute_template(&name, &a[1]).map(Value::from)
        }),
    );
    let funcs = std::sync::Arc::new(funcs);

    let start = Instant::now();
    let mut bytes = 0usize;
    for _ in 0..iterations {
        // As Helm does per render: a fresh set, every file parsed, every non-partial executed.
        let mut set = Templates::with_functions(funcs.clone());
        set.set_name("gotpl").set_missing_key(MissingKey::Zero);
        for (name, text) in &files {
            set.parse(name, text).expect("template parses");
        }
        let vals = match Value::from_json(&values) {
            Value::Map(ref m) => Value::Map(Map::named("common.Values", m.read().clone())),
            other => other,
        };
        for (name, _) in &files {
            let data: Map = [
                ("Values".to_string(), vals.clone()),
                (
                    "Release".to_string(),
                    Value::Map(
                        [
                            ("Name".to_string(), Value::from("r1")),
                            ("Namespace".to_string(), Value::from("ns1")),
                        ]
                        .into_iter()
                        .collect(),
                    ),
                ),
            ]
            .into_iter()
            .collect();
            let out = set
                .execute(name, &Value::Map(data))
                .expect("template executes");
            bytes += out.replace("<no value>", "").len();
        }
    }
    let per = start.elapsed().as_secs_f64() / iterations as f64;
    println!(
        "gotemplate: {} templates, {:.3} ms per render ({} bytes)",
        files.len(),
        per * 1000.0,
        bytes / iterations.max(1)
    );
}
