//! Small projects for `build` tests: what `operator-rs new` makes, reduced to what a build reads
//! (PROJECT, build/Dockerfile and the files it copies), plus a deploy/ file to prove that build
//! leaves deploy/ alone.

use std::path::{Path, PathBuf};

use operator_rs::project::{HelmRuntime, Project, ProjectType, Resource};

/// A helm-operator project in `dir` whose Dockerfile has the shape of the generated one.
pub fn helm_project(dir: &Path, name: &str) {
    let mut project = Project::new(ProjectType::Helm, name, "example.com");
    project.runtime = Some(HelmRuntime::HelmOperator);
    project.resources.push(Resource {
        group: "charts.example.com".into(),
        version: "v1alpha1".into(),
        kind: "Demo".into(),
        plural: "demos".into(),
        chart: Some("helm-charts/demo".into()),
    });
    project.save(dir).unwrap();
    write(
        dir,
        "build/Dockerfile",
        "ARG BASE_IMAGE=helm-operator-image-that-cannot-be-pulled-here:v1\nFROM ${BASE_IMAGE}\nENV HOME=/opt/helm\nCOPY watches.yaml ${HOME}/watches.yaml\nCOPY helm-charts/ ${HOME}/helm-charts/\nWORKDIR ${HOME}\n",
    );
    write(
        dir,
        "watches.yaml",
        "- group: charts.example.com\n  version: v1alpha1\n  kind: Demo\n  chart: helm-charts/demo\n",
    );
    write(
        dir,
        "helm-charts/demo/Chart.yaml",
        "apiVersion: v2\nname: demo\nversion: 0.1.0\n",
    );
    write(dir, "deploy/operator.yaml", "image: REPLACE_IMAGE\n");
}

/// A Rust project in `dir`: one binary, and a multi-stage Dockerfile like the generated one
/// (builder and runtime images as ARGs).
pub fn rust_project(dir: &Path, name: &str) {
    let project = Project::new(ProjectType::Rust, name, "example.com");
    project.save(dir).unwrap();
    write(
        dir,
        "Cargo.toml",
        &format!(
            "[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n"
        ),
    );
    write(
        dir,
        "src/main.rs",
        "fn main() {\n    println!(\"reconciling\");\n}\n",
    );
    write(
        dir,
        "build/Dockerfile",
        &format!(
            "ARG BUILDER_IMAGE=rust-image-that-cannot-be-pulled-here:1\nARG BASE_IMAGE=runtime-image-that-cannot-be-pulled-here:1\n\nFROM ${{BUILDER_IMAGE}} AS builder\nWORKDIR /app\nCOPY . .\nRUN cargo build --release --locked\n\nFROM ${{BASE_IMAGE}}\nCOPY --from=builder /app/target/release/{name} /usr/local/bin/{name}\nUSER 65532:65532\nENTRYPOINT [\"/usr/local/bin/{name}\"]\n"
        ),
    );
    write(dir, "deploy/operator.yaml", "image: REPLACE_IMAGE\n");
}

pub fn write(dir: &Path, relative: &str, text: &str) {
    let path = dir.join(relative);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A real helm-operator project (`--runtime=helm-operator`, no longer `new`'s default) made by
/// `operator-rs new` from the shared hello-world chart, in `parent`.
pub fn generated_helm_project(parent: &Path) -> PathBuf {
    generated_helm_project_with(parent, &["--runtime=helm-operator"])
}

/// A Helm project made by `operator-rs new` from the shared hello-world chart, with more
/// arguments for `new` (none: `new`'s default runtime, operator-rs), in `parent`.
pub fn generated_helm_project_with(parent: &Path, args: &[&str]) -> PathBuf {
    generated_chart_project(parent, "hello-world", args)
}

/// A real Helm project made by `operator-rs new` from the shared chart `chart`, with more
/// arguments for `new`, in `parent`: `<chart>-operator`.
pub fn generated_chart_project(parent: &Path, chart: &str, args: &[&str]) -> PathBuf {
    super::project::operator_rs(parent)
        .args(["new", "--type=helm", "--yes", "--quiet"])
        .args(args)
        .arg("--helm-chart")
        .arg(super::project::shared_chart(chart))
        .assert()
        .success();
    let dir = parent.join(format!("{chart}-operator"));
    assert!(dir.join("build/Dockerfile").is_file());
    dir
}
