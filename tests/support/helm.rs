//! Real Helm as a judge: Helm 4's Go SDK through the PyPI package `helm-python-sdk` (import
//! `helm_python`), from the virtual environment that `scripts/test.sh` creates.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

/// Runs `script` with the venv's Python; `None` when the venv is missing on a developer
/// machine (see [`super::tools::venv_tool`]). The script prints one JSON value.
fn python(script: &str, args: &[&Path]) -> Option<Value> {
    let python = super::tools::venv_tool("python")?;
    let output = Command::new(python)
        .arg("-c")
        .arg(script)
        .args(args)
        .output()
        .expect("run the venv's python");
    assert!(
        output.status.success(),
        "helm_python failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    Some(serde_json::from_slice(&output.stdout).expect("helm_python script prints JSON"))
}

const LOAD: &str = r#"
import json, sys, helm_python
path = sys.argv[1]
try:
    helm_python.Chart.load(path).close()
    loaded = None
except helm_python.HelmError as e:
    loaded = str(e)
report = helm_python.lint(path)
lint = [m["error"] for m in report["messages"] if m["severity"] == 3 and m["path"] == "Chart.yaml"]
print(json.dumps({"load": loaded, "lint": lint}))
"#;

/// What real Helm says about a chart.
#[derive(Debug)]
pub struct Verdict {
    /// Why `Chart.load` failed, if it did: the helm-operator would not start.
    pub load_error: Option<String>,
    /// The errors `helm lint` finds in `Chart.yaml`.
    pub lint_errors: Vec<String>,
}

impl Verdict {
    /// Loads, and `helm lint` finds no error in `Chart.yaml`.
    pub fn clean(&self) -> bool {
        self.load_error.is_none() && self.lint_errors.is_empty()
    }
}

/// What real Helm says about the chart at `dir`. `None` without the venv.
pub fn verdict(dir: &Path) -> Option<Verdict> {
    let report = python(LOAD, &[dir])?;
    Some(Verdict {
        load_error: report["load"].as_str().map(str::to_string),
        lint_errors: report["lint"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|e| e.as_str().map(str::to_string))
            .collect(),
    })
}

/// The chart at `dir` rendered with its default values (release "sample" in "default"):
/// every object of every template. `None` without the venv.
pub fn render_objects(dir: &Path) -> Option<Vec<Value>> {
    let mut oracle = super::helm_oracle::HelmOracle::start()?;
    let request = super::helm_oracle::RenderRequest::new(dir).release("sample", "default");
    let rendered = oracle
        .render(&request)
        .unwrap_or_else(|e| panic!("Helm cannot render {}: {e}", dir.display()));
    let mut objects = Vec::new();
    for (template, text) in &rendered {
        if !template.ends_with(".yaml") {
            continue;
        }
        let documents: Vec<Value> = serde_saphyr::from_multiple(text)
            .unwrap_or_else(|e| panic!("{template} renders to invalid YAML: {e}"));
        objects.extend(documents.into_iter().filter(|d| !d.is_null()));
    }
    Some(objects)
}
