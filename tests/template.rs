//! `operator-rs template`, end to end: the real binary's output in `helm template`'s format,
//! every document checked against what real Helm renders for its template; `--set`, `-f`,
//! `--show-only`, and a Helm project's kinds rendered with their samples.

mod support;

use std::collections::BTreeMap;

use operator_rs::render::manifests::{INSTALL_ORDER, split_documents};
use support::helm_oracle::{HelmOracle, RenderRequest};
use support::project::{operator_rs, shared_chart};

/// (template, document) pairs of `helm template`-style output, in order.
fn sources(output: &str) -> Vec<(String, String)> {
    assert!(output.starts_with("---\n# Source: "), "{output}");
    split_documents(output)
        .into_iter()
        .map(|doc| {
            let (first, rest) = doc.split_once('\n').unwrap_or((&doc, ""));
            let template = first
                .strip_prefix("# Source: ")
                .unwrap_or_else(|| panic!("a document without its # Source line: {doc}"));
            (template.to_string(), rest.trim_end().to_string())
        })
        .collect()
}

fn kind_of(doc: &str) -> String {
    doc.lines()
        .find_map(|l| l.strip_prefix("kind: "))
        .unwrap_or_default()
        .trim()
        .to_string()
}

fn is_hook(doc: &str) -> bool {
    doc.contains("helm.sh/hook:") || doc.contains("\"helm.sh/hook\":")
}

/// Every document of our output is a document Helm rendered for that template, every
/// non-empty document Helm rendered is there once, manifests come in Helm's kind order and
/// hooks after them.
fn assert_same_documents(ours: &str, helm: &BTreeMap<String, String>) {
    let mut expected: Vec<(String, String)> = helm
        .iter()
        .filter(|(k, _)| !k.ends_with("NOTES.txt"))
        .flat_map(|(k, v)| {
            split_documents(v)
                .into_iter()
                .map(move |d| (k.clone(), d.trim_end().to_string()))
        })
        .collect();
    let got = sources(ours);
    for pair in &got {
        let at = expected
            .iter()
            .position(|e| e == pair)
            .unwrap_or_else(|| panic!("not rendered so by Helm: {pair:?}"));
        expected.remove(at);
    }
    assert!(expected.is_empty(), "Helm rendered more: {expected:?}");
    let rank = |k: &str| {
        INSTALL_ORDER
            .iter()
            .position(|x| *x == k)
            .unwrap_or(INSTALL_ORDER.len())
    };
    let manifests: Vec<&(String, String)> = got.iter().filter(|(_, d)| !is_hook(d)).collect();
    let first_hook = got
        .iter()
        .position(|(_, d)| is_hook(d))
        .unwrap_or(got.len());
    assert!(
        got[first_hook..].iter().all(|(_, d)| is_hook(d)),
        "hooks come last"
    );
    for pair in manifests.windows(2) {
        assert!(
            rank(&kind_of(&pair[0].1)) <= rank(&kind_of(&pair[1].1)),
            "install order: {} before {}",
            kind_of(&pair[0].1),
            kind_of(&pair[1].1)
        );
    }
}

/// The output of an `operator-rs` run that must succeed.
fn stdout_of(command: &mut assert_cmd::Command) -> String {
    let output = command.output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn a_chart_renders_in_helm_templates_format() {
    let Some(mut helm) = HelmOracle::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let chart = shared_chart("alertmanager");
    let values = dir.path().join("values.yaml");
    std::fs::write(
        &values,
        "replicaCount: 2\nserviceAccount:\n  name: from-file\n",
    )
    .unwrap();
    let ours = stdout_of(
        operator_rs(dir.path())
            .args(["template"])
            .arg(&chart)
            .args(["--name", "rel", "-n", "ns", "-f"])
            .arg(&values)
            .args([
                "--set",
                "serviceAccount.name=from-set,podLabels.team=x,testFramework.enabled=true",
            ]),
    );
    let expected = helm
        .render(
            &RenderRequest::new(&chart)
                .release("rel", "ns")
                .values(serde_json::json!({
                    "replicaCount": 2,
                    "serviceAccount": {"name": "from-set"},
                    "podLabels": {"team": "x"},
                    "testFramework": {"enabled": true},
                })),
        )
        .unwrap();
    assert_same_documents(&ours, &expected);
    assert!(ours.contains("name: from-set"), "--set wins over -f");
    assert!(
        ours.contains("helm.sh/hook"),
        "alertmanager's test hook is printed"
    );
}

/// A chart that ranges over `.Files.Glob` (a Go map of file names to bytes, in key order), as
/// charts do to put a directory of files into a ConfigMap or a Secret, and tests, measures and
/// indexes what it returns: `operator-rs template` prints what Helm renders.
#[test]
fn a_chart_that_ranges_over_its_files_renders_as_helm_renders_it() {
    let Some(mut helm) = HelmOracle::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let chart = dir.path().join("dashboards");
    std::fs::create_dir_all(chart.join("templates")).unwrap();
    std::fs::create_dir_all(chart.join("files/dashboards")).unwrap();
    std::fs::create_dir_all(chart.join("files/tls")).unwrap();
    std::fs::write(
        chart.join("Chart.yaml"),
        "apiVersion: v2\nname: dashboards\nversion: 1.0.0\n",
    )
    .unwrap();
    for (name, text) in [
        ("files/dashboards/b.json", "{\"title\": \"b\"}\n"),
        ("files/dashboards/a.json", "{\"title\": \"a\"}\n"),
        ("files/dashboards/notes.txt", "not a dashboard\n"),
        ("files/tls/tls.key", "key\n"),
    ] {
        std::fs::write(chart.join(name), text).unwrap();
    }
    std::fs::write(
        chart.join("templates/configmap.yaml"),
        r#"{{- $dashboards := .Files.Glob "files/dashboards/*.json" }}
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-dashboards
  annotations:
    count: {{ len $dashboards | quote }}
    first: {{ index $dashboards "files/dashboards/a.json" | toString | trim | quote }}
data:
{{- range $path, $bytes := $dashboards }}
  {{ base $path }}: {{ $bytes | toString | quote }}
{{- end }}
{{- range $path, $_ := .Files.Glob "files/dashboards/*.txt" }}
  {{ base $path }}: {{ $.Files.Get $path | quote }}
{{- end }}
"#,
    )
    .unwrap();
    std::fs::write(
        chart.join("templates/secret.yaml"),
        r#"{{- if .Files.Glob "files/tls/*" }}
apiVersion: v1
kind: Secret
metadata:
  name: {{ .Release.Name }}-tls
data:
{{- range $path, $bytes := .Files.Glob "files/tls/*" }}
  {{ base $path }}: {{ $bytes | toString | b64enc }}
{{- end }}
{{- end }}
{{- with .Files.Glob "files/none/*" }}
---
apiVersion: v1
kind: Secret
metadata:
  name: never-rendered
{{- end }}
"#,
    )
    .unwrap();
    let ours = stdout_of(
        operator_rs(dir.path())
            .args(["template"])
            .arg(&chart)
            .args(["--name", "rel", "-n", "ns"]),
    );
    let expected = helm
        .render(&RenderRequest::new(&chart).release("rel", "ns"))
        .unwrap();
    assert_same_documents(&ours, &expected);
    assert!(
        ours.contains("a.json: \"{\\\"title\\\": \\\"a\\\"}\\n\""),
        "{ours}"
    );
    assert!(ours.contains("tls.key: a2V5Cg=="), "{ours}");
}

#[test]
fn show_only_prints_the_named_templates() {
    let dir = tempfile::tempdir().unwrap();
    let ours = stdout_of(
        operator_rs(dir.path())
            .arg("template")
            .arg(shared_chart("hello-world"))
            .args(["--show-only", "templates/service.yaml"]),
    );
    let docs = sources(&ours);
    assert_eq!(docs.len(), 1, "{ours}");
    assert_eq!(docs[0].0, "hello-world/templates/service.yaml");
    let missing = operator_rs(dir.path())
        .arg("template")
        .arg(shared_chart("hello-world"))
        .args(["--show-only", "templates/nothing.yaml"])
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&missing.stderr)
            .contains("could not find template templates/nothing.yaml in chart")
    );
}

#[test]
fn bad_flags_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    for args in [vec!["--kube-version", "banana"], vec!["--set", "novalue"]] {
        let output = operator_rs(dir.path())
            .arg("template")
            .arg(shared_chart("hello-world"))
            .args(&args)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains("banana") || stderr.contains("novalue"),
            "{stderr}"
        );
    }
}

#[test]
fn a_chart_helm_cannot_load_is_refused_with_the_ways_on_that_template_has() {
    let dir = tempfile::tempdir().unwrap();
    let output = operator_rs(dir.path())
        .arg("template")
        .arg(shared_chart("rancher"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("version: %VERSION%"), "{stderr}");
    assert!(
        stderr.contains("`helm template` refuses it too"),
        "{stderr}"
    );
    // `--set-chart-version` and the operator's crash-loop belong to `new`, not to `template`.
    assert!(!stderr.contains("--set-chart-version"), "{stderr}");
    assert!(!stderr.contains("helm-operator"), "{stderr}");
    assert!(stderr.contains("write a semver version into"), "{stderr}");
}

#[test]
fn in_a_helm_project_each_kind_renders_with_its_sample() {
    let Some(mut helm) = HelmOracle::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let new = operator_rs(dir.path())
        .args([
            "new",
            "hello-op",
            "--type=helm",
            "--kind=HelloWorld",
            "--yes",
            "--helm-chart",
        ])
        .arg(shared_chart("hello-world"))
        .output()
        .unwrap();
    assert!(
        new.status.success(),
        "{}",
        String::from_utf8_lossy(&new.stderr)
    );
    let project = dir.path().join("hello-op");
    let output = operator_rs(&project.join("deploy"))
        .args(["template", "-n", "team-a"])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let ours = String::from_utf8(output.stdout).unwrap();
    let sample = std::fs::read_dir(project.join("deploy/crds"))
        .unwrap()
        .filter_map(|e| e.ok())
        .find(|e| e.file_name().to_string_lossy().ends_with("_cr.yaml"))
        .unwrap()
        .path();
    let cr: serde_json::Value =
        operator_rs::yaml::from_str(&std::fs::read_to_string(&sample).unwrap()).unwrap();
    let name = cr["metadata"]["name"].as_str().unwrap();
    let expected = helm
        .render(
            &RenderRequest::new(project.join("helm-charts/hello-world"))
                .release(name, "team-a")
                .values(cr["spec"].clone()),
        )
        .unwrap();
    assert_same_documents(&ours, &expected);
    assert!(
        ours.contains(name),
        "the release is named after the sample: {ours}"
    );
}
