//! `operator-rs new --type=helm`, end to end: the real binary on every shared chart, judged by
//! snapshots, `kubernetes-validate --strict`, `checkov` and the CRD schema.

mod support;

use std::collections::BTreeMap;
use std::path::Path;

use support::project::{
    copy_dir, deploy_files, list_entries, operator_rs, read_tree, shared_chart, shared_chart_names,
};

/// The generated files of a project except the copied chart, as one text for a snapshot.
fn generated_text(project: &Path) -> String {
    let mut text = String::new();
    for (path, bytes) in read_tree(project) {
        if path.starts_with("helm-charts/") {
            continue;
        }
        text.push_str(&format!(
            "=== {path}\n{}\n",
            String::from_utf8_lossy(&bytes)
        ));
    }
    text
}

/// Files under `prefix/` of a tree, relative to it.
fn subtree(tree: &BTreeMap<String, Vec<u8>>, prefix: &str) -> BTreeMap<String, Vec<u8>> {
    tree.iter()
        .filter_map(|(path, bytes)| {
            path.strip_prefix(&format!("{prefix}/"))
                .map(|rest| (rest.to_string(), bytes.clone()))
        })
        .collect()
}

fn judge_manifests(project: &Path) {
    let (manifests, samples) = deploy_files(project);
    assert!(!manifests.is_empty() && !samples.is_empty());
    support::tools::kubernetes_validate(&manifests);
    support::tools::checkov(&project.join("deploy"));
    support::crds::assert_samples_match_crds(project);
}

/// The version stamped into the unreleased rancher chart, whose Chart.yaml says `%VERSION%`.
const RANCHER_VERSION: &str = "2.13.0";

/// The lines of two texts that differ, pairwise (the texts must have as many lines).
fn changed_lines<'a>(a: &'a str, b: &'a str) -> Vec<(&'a str, &'a str)> {
    assert_eq!(a.lines().count(), b.lines().count(), "{a}\n---\n{b}");
    a.lines().zip(b.lines()).filter(|(x, y)| x != y).collect()
}

#[test]
fn new_on_every_shared_chart() {
    for chart in shared_chart_names() {
        let work = tempfile::tempdir().unwrap();
        let name = format!("{chart}-op");
        let mut command = operator_rs(work.path());
        command.args(["new", &name, "--type=helm", "--helm-chart"]);
        command.arg(shared_chart(&chart));
        if chart == "rancher" {
            command.arg(format!("--set-chart-version={RANCHER_VERSION}"));
        }
        command.assert().success();
        let project = work.path().join(&name);
        let tree = read_tree(&project);

        // The chart is copied byte for byte; rancher's Chart.yaml gets only its versions.
        let mut copied = subtree(&tree, &format!("helm-charts/{chart}"));
        let mut original = read_tree(&shared_chart(&chart));
        if chart == "rancher" {
            let text = |files: &mut BTreeMap<String, Vec<u8>>| {
                String::from_utf8(files.remove("Chart.yaml").unwrap()).unwrap()
            };
            let (before, after) = (text(&mut original), text(&mut copied));
            assert_eq!(
                changed_lines(&before, &after),
                [
                    ("version: %VERSION%", "version: 2.13.0"),
                    ("appVersion: %APP_VERSION%", "appVersion: 2.13.0")
                ]
            );
        }
        assert_eq!(copied, original, "chart {chart} changed in copy");
        // Real Helm loads the copied chart, as the helm-operator will at start-up.
        if let Some(verdict) = support::helm::verdict(&project.join(format!("helm-charts/{chart}")))
        {
            assert!(verdict.clean(), "{chart}: {verdict:?}");
        }

        for expected in [
            "PROJECT",
            "README.md",
            ".gitignore",
            ".dockerignore",
            "watches.yaml",
            "build/Dockerfile",
            "deploy/operator.yaml",
            "deploy/service_account.yaml",
            "deploy/role.yaml",
            "deploy/role_binding.yaml",
            "deploy/kustomization.yaml",
        ] {
            assert!(tree.contains_key(expected), "{chart}: {expected} missing");
        }
        judge_manifests(&project);
        insta::assert_snapshot!(format!("new_helm_{chart}"), generated_text(&project));
    }
}

#[test]
fn new_without_a_chart_uses_the_starter_chart() {
    let work = tempfile::tempdir().unwrap();
    let output = operator_rs(work.path())
        .args(["new", "--kind=Memcached", "--type=helm"])
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&output.get_output().stdout).into_owned();
    assert!(stdout.contains("memcached-operator"), "{stdout}");
    assert!(stdout.contains("operator-rs deploy"), "{stdout}");
    let project = work.path().join("memcached-operator");
    let tree = read_tree(&project);
    let chart = String::from_utf8_lossy(&tree["helm-charts/memcached/Chart.yaml"]).into_owned();
    assert!(chart.contains("name: memcached"), "{chart}");
    let project_file = String::from_utf8_lossy(&tree["PROJECT"]).into_owned();
    assert!(
        project_file.contains("group: charts.example.com"),
        "{project_file}"
    );
    assert!(project_file.contains("version: v1alpha1"), "{project_file}");
    assert!(tree.contains_key("deploy/crds/charts.example.com_memcacheds_crd.yaml"));
    assert!(tree.contains_key("deploy/crds/charts.example.com_v1alpha1_memcached_cr.yaml"));
    judge_manifests(&project);
    insta::assert_snapshot!("new_helm_starter", generated_text(&project));
}

#[test]
fn defaults_come_from_the_chart_and_flags() {
    let work = tempfile::tempdir().unwrap();
    operator_rs(work.path())
        .args([
            "new",
            "--type=helm",
            "--domain=acme.io",
            "--plural=exporterz",
            "--helm-chart",
        ])
        .arg(shared_chart("prometheus-node-exporter"))
        .assert()
        .success();
    let project = work.path().join("prometheus-node-exporter-operator");
    let watches = std::fs::read_to_string(project.join("watches.yaml")).unwrap();
    assert!(
        watches.contains("kind: PrometheusNodeExporter"),
        "{watches}"
    );
    assert!(watches.contains("group: charts.acme.io"), "{watches}");
    assert!(
        project
            .join("deploy/crds/charts.acme.io_exporterz_crd.yaml")
            .is_file()
    );
}

#[test]
fn new_from_a_tgz_equals_new_from_the_directory() {
    let work = tempfile::tempdir().unwrap();
    let chart = operator_rs::chart::load_local(&shared_chart("hello-world")).unwrap();
    let archive = operator_rs::chart::archive::write_tgz("hello-world", &chart.files).unwrap();
    let tgz = work.path().join("hello-world-0.1.0.tgz");
    std::fs::write(&tgz, archive).unwrap();
    operator_rs(work.path())
        .args(["new", "from-tgz", "--type=helm", "--helm-chart"])
        .arg(&tgz)
        .assert()
        .success();
    operator_rs(work.path())
        .args(["new", "from-dir", "--type=helm", "--helm-chart"])
        .arg(shared_chart("hello-world"))
        .assert()
        .success();
    let normalise = |name: &str| generated_text(&work.path().join(name)).replace(name, "NAME");
    assert_eq!(normalise("from-tgz"), normalise("from-dir"));
    assert_eq!(
        read_tree(&work.path().join("from-tgz/helm-charts")),
        read_tree(&work.path().join("from-dir/helm-charts"))
    );
}

#[test]
fn an_unreleased_chart_is_refused_with_the_ways_forward() {
    let rancher = shared_chart("rancher");
    let args = [
        "new",
        "rancher-op",
        "--api-version=rancher.com/v1alpha1",
        "--kind=Rancher",
        "--type=helm",
        "--helm-chart",
        rancher.to_str().unwrap(),
    ];
    let chart_yaml = rancher.join("Chart.yaml").display().to_string();
    assert_refused(
        &args,
        |_| {},
        2,
        &[
            &chart_yaml,
            "line 4",
            "version: %VERSION%",
            "placeholder",
            "Helm cannot load this chart",
            "exits when one fails",
            "crash-loop",
            "none of its kinds",
            "--helm-chart=REPO/NAME",
            "--set-chart-version=VERSION",
        ],
    );
    // Real Helm refuses it too.
    if let Some(verdict) = support::helm::verdict(&rancher) {
        assert!(verdict.load_error.is_some(), "{verdict:?}");
    }
    // With a version it scaffolds, and says what it wrote.
    let work = tempfile::tempdir().unwrap();
    let output = operator_rs(work.path())
        .args(args)
        .arg("--set-chart-version=2.13.0")
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&output.get_output().stdout).into_owned();
    assert!(
        stdout.contains("Wrote version: 2.13.0 and appVersion: 2.13.0 into the copied helm-charts/rancher/Chart.yaml"),
        "{stdout}"
    );
    // The flag takes a semver version only, and only with a chart.
    assert_refused(
        &[&args[..], &["--set-chart-version=2.13"]].concat(),
        |_| {},
        2,
        &["\"2.13\"", "MAJOR.MINOR.PATCH"],
    );
    assert_refused(
        &[
            "new",
            "--type=helm",
            "--kind=Demo",
            "--set-chart-version=1.0.0",
        ],
        |_| {},
        2,
        &["--helm-chart"],
    );
}

/// A chart directory `bad` with this Chart.yaml (and an empty templates/).
fn bad_chart(dir: &Path, chart_yaml: &str) {
    std::fs::create_dir_all(dir.join("bad/templates")).unwrap();
    std::fs::write(dir.join("bad/Chart.yaml"), chart_yaml).unwrap();
}

/// Every Chart.yaml that real Helm refuses is refused by `new` (exit 2, nothing written), with
/// the file, the line and the reason; and real Helm agrees with each refusal.
#[test]
fn charts_helm_cannot_load_are_refused() {
    let cases: &[(&str, &[&str])] = &[
        ("apiVersion: v2\nversion: 1.0.0\n", &["`name` is required"]),
        (
            "apiVersion: v2\nname: bad\n",
            &["`version` is required", "--set-chart-version"],
        ),
        (
            "apiVersion: v2\nname: bad\nversion: latest\n",
            &[
                "line 3",
                "version: latest",
                "\"latest\" is not a semantic version",
                "--set-chart-version",
            ],
        ),
        (
            "apiVersion: v2\nname: bad\nversion: \"%VERSION%\"\n",
            &["line 3", "\"%VERSION%\" is not a semantic version"],
        ),
        (
            "apiVersion: v2\nname: bad\nversion: [unclosed\n",
            &["not valid YAML", "line"],
        ),
        (
            "apiVersion: v3\nname: bad\nversion: 1.0.0\n",
            &["line 1", "apiVersion \"v3\"", "helm lint", "correct"],
        ),
        (
            "apiVersion: v2\nname: bad\nversion: 1.0.0\ntype: service\n",
            &[
                "line 4",
                "\"service\" must be application or library",
                "crash-loop",
            ],
        ),
        (
            "apiVersion: v2\nname: bad\nversion: 1.0.0\ndependencies:\n  -\n",
            &["line 4", "dependency 1 is empty", "correct"],
        ),
        (
            "apiVersion: v2\nname: bad\nversion: 1.0.0\ndependencies:\n  - name: common\n    version: 1.x\n    repository: file://../common\n    alias: my.common\n",
            &["alias \"my.common\""],
        ),
        (
            "apiVersion: v2\nname: bad\nversion: 1.0.0\ndependencies:\n  - name: common\n    repository: file://../common\n  - name: other\n    repository: file://../other\n    alias: common\n",
            &["more than one dependency", "\"common\""],
        ),
    ];
    for (chart_yaml, fragments) in cases {
        let mut expected = vec!["bad/Chart.yaml"];
        expected.extend_from_slice(fragments);
        assert_refused(
            &["new", "--type=helm", "--kind=Bad", "--helm-chart=./bad"],
            |dir| bad_chart(dir, chart_yaml),
            2,
            &expected,
        );
        let work = tempfile::tempdir().unwrap();
        bad_chart(work.path(), chart_yaml);
        if let Some(verdict) = support::helm::verdict(&work.path().join("bad")) {
            assert!(!verdict.clean(), "real Helm accepts:\n{chart_yaml}");
        }
    }
    // What Helm loads is not refused: a number as the version, repeated keys, no apiVersion
    // (`helm lint` complains about the last, but the helm-operator starts).
    let work = tempfile::tempdir().unwrap();
    bad_chart(work.path(), "name: bad\nversion: 1.0\nname: good\n");
    if let Some(verdict) = support::helm::verdict(&work.path().join("bad")) {
        assert_eq!(verdict.load_error, None);
    }
    operator_rs(work.path())
        .args(["new", "--type=helm", "--kind=Good", "--helm-chart=./bad"])
        .assert()
        .success();
}

/// A subchart that Helm cannot load stops the operator as well; the flag does not cure it.
#[test]
fn a_subchart_helm_cannot_load_is_refused() {
    assert_refused(
        &[
            "new",
            "--type=helm",
            "--kind=Bad",
            "--helm-chart=./bad",
            "--set-chart-version=1.0.0",
        ],
        |dir| {
            bad_chart(dir, "apiVersion: v2\nname: bad\nversion: 1.0.0\n");
            std::fs::create_dir_all(dir.join("bad/charts/common")).unwrap();
            std::fs::write(
                dir.join("bad/charts/common/Chart.yaml"),
                "apiVersion: v2\nname: common\nversion: '%VERSION%'\n",
            )
            .unwrap();
        },
        2,
        &[
            "bad/charts/common/Chart.yaml",
            "line 3",
            "\"%VERSION%\"",
            "crash-loop",
            "correct",
        ],
    );
}

/// A values.yaml that Helm cannot load stops the operator too (exit 2, nothing written), with
/// the file and the reason; real Helm agrees. The check of the top chart's values runs beside
/// the reading of the chart, so this holds that path to the same verdicts.
#[test]
fn values_helm_cannot_load_are_refused() {
    let cases: &[(&str, &[&str])] = &[
        ("- a\n- b\n", &["values.yaml must be a mapping"]),
        ("just text\n", &["values.yaml must be a mapping"]),
        ("image:\n  tag: [1.0\n", &["not valid YAML", "line"]),
    ];
    for (values, fragments) in cases {
        let chart = |dir: &Path| {
            bad_chart(dir, "apiVersion: v2\nname: bad\nversion: 1.0.0\n");
            std::fs::write(dir.join("bad/values.yaml"), values).unwrap();
        };
        let mut expected = vec!["bad/values.yaml", "crash-loop"];
        expected.extend_from_slice(fragments);
        assert_refused(
            &["new", "--type=helm", "--kind=Bad", "--helm-chart=./bad"],
            chart,
            2,
            &expected,
        );
        let work = tempfile::tempdir().unwrap();
        chart(work.path());
        if let Some(verdict) = support::helm::verdict(&work.path().join("bad")) {
            assert!(!verdict.clean(), "real Helm accepts values:\n{values}");
        }
    }
}

/// The starter chart runs under the restricted Pod Security Standard: real Helm renders it,
/// and every container listens above 1024 and runs as a non-root user.
#[test]
fn the_starter_chart_runs_as_non_root_on_an_unprivileged_port() {
    // Images known to run as a numeric non-root user, with the UID their documentation gives.
    const NON_ROOT_IMAGES: &[(&str, u64)] = &[("docker.io/nginxinc/nginx-unprivileged", 101)];
    let work = tempfile::tempdir().unwrap();
    operator_rs(work.path())
        .args(["new", "--kind=Memcached", "--type=helm"])
        .assert()
        .success();
    let chart = work.path().join("memcached-operator/helm-charts/memcached");
    let Some(objects) = support::helm::render_objects(&chart) else {
        return;
    };
    let deployments: Vec<&serde_json::Value> = objects
        .iter()
        .filter(|o| o["kind"] == "Deployment")
        .collect();
    assert_eq!(deployments.len(), 1, "{objects:?}");
    let pod = &deployments[0]["spec"]["template"]["spec"];
    assert_eq!(pod["securityContext"]["runAsNonRoot"], true, "{pod}");
    let containers = pod["containers"].as_array().unwrap();
    assert!(!containers.is_empty());
    for container in containers {
        let image = container["image"].as_str().unwrap();
        let run_as = container["securityContext"]["runAsUser"]
            .as_u64()
            .or(pod["securityContext"]["runAsUser"].as_u64())
            .or_else(|| {
                NON_ROOT_IMAGES
                    .iter()
                    .find(|(repository, _)| image.split(':').next() == Some(repository))
                    .map(|(_, uid)| *uid)
            });
        assert!(
            run_as.is_some_and(|uid| uid > 0),
            "{image} may run as root: set runAsUser or use an image known to run as non-root"
        );
        for port in container["ports"].as_array().unwrap() {
            assert!(port["containerPort"].as_u64().unwrap() > 1024, "{port}");
        }
        for probe in ["livenessProbe", "readinessProbe"] {
            assert!(container[probe].is_object(), "{image}: no {probe}");
        }
        for bound in ["requests", "limits"] {
            let resources = &container["resources"][bound];
            assert!(
                resources["cpu"].is_string() && resources["memory"].is_string(),
                "{image}: {bound}"
            );
        }
        assert_eq!(
            container["securityContext"]["allowPrivilegeEscalation"],
            false
        );
    }
}

/// What `deploy` sends holds no placeholder token anywhere, annotations included, for both
/// kinds of project.
#[test]
fn deploy_sends_no_placeholder_token() {
    let work = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    for (name, args) in [
        (
            "memcached-operator",
            &["new", "--kind=Memcached", "--type=helm"][..],
        ),
        (
            "cache-operator",
            &["new", "cache-operator", "--kind=Memcached", "--type=rust"][..],
        ),
    ] {
        operator_rs(work.path()).args(args).assert().success();
        let output = operator_rs(&work.path().join(name))
            .env("HOME", home.path())
            .env_remove("KUBECONFIG")
            .args([
                "deploy",
                "--dry-run",
                "--with-sample",
                "-n",
                "demo",
                "--image",
                "registry.local/op:v1",
            ])
            .assert()
            .success();
        let rendered = String::from_utf8_lossy(&output.get_output().stdout).into_owned();
        assert!(rendered.contains("kind: Deployment"), "{rendered}");
        assert!(!rendered.contains("REPLACE_"), "{name}:\n{rendered}");
    }
}

#[test]
fn quiet_prints_nothing() {
    let work = tempfile::tempdir().unwrap();
    operator_rs(work.path())
        .args(["new", "--kind=Memcached", "--type=helm", "--quiet"])
        .assert()
        .success()
        .stdout("")
        .stderr("");
}

/// Runs `new` expecting failure; checks the exit code, that the message contains every
/// fragment, and that nothing was left in the working directory.
fn assert_refused(args: &[&str], setup: impl FnOnce(&Path), code: i32, fragments: &[&str]) {
    let work = tempfile::tempdir().unwrap();
    setup(work.path());
    let before = list_entries(work.path());
    let output = operator_rs(work.path()).args(args).assert().code(code);
    let stderr = String::from_utf8_lossy(&output.get_output().stderr).into_owned();
    for fragment in fragments {
        assert!(
            stderr.contains(fragment),
            "{args:?}: {fragment:?} not in:\n{stderr}"
        );
    }
    assert_eq!(
        list_entries(work.path()),
        before,
        "{args:?} left files behind"
    );
}

#[test]
fn bad_names_are_usage_errors() {
    let none = |_: &Path| {};
    assert_refused(
        &["new", "--type=helm", "--kind=rancher"],
        none,
        2,
        &["\"rancher\"", "upper-case", "\"Rancher\""],
    );
    assert_refused(
        &["new", "--type=helm", "--kind=My-Kind"],
        none,
        2,
        &["\"My-Kind\""],
    );
    assert_refused(
        &[
            "new",
            "--type=helm",
            "--kind=Rancher",
            "--api-version=Rancher.com/v1",
        ],
        none,
        2,
        &["\"Rancher.com\"", "DNS subdomain"],
    );
    assert_refused(
        &[
            "new",
            "--type=helm",
            "--kind=Rancher",
            "--api-version=example/v1",
        ],
        none,
        2,
        &["\"example\""],
    );
    assert_refused(
        &[
            "new",
            "--type=helm",
            "--kind=Rancher",
            "--api-version=rancher.com/1.0",
        ],
        none,
        2,
        &["\"1.0\"", "v1alpha1"],
    );
    assert_refused(
        &[
            "new",
            "--type=helm",
            "--kind=Rancher",
            "--api-version=rancher.com",
        ],
        none,
        2,
        &["\"rancher.com\"", "GROUP/VERSION"],
    );
    assert_refused(
        &["new", "Rancher_Op", "--type=helm", "--kind=Rancher"],
        none,
        2,
        &["\"Rancher_Op\"", "DNS-1123", "\"rancher-op\""],
    );
    assert_refused(
        &["new", "--type=helm", "--kind=Rancher", "--plural=Ranchers"],
        none,
        2,
        &["\"Ranchers\""],
    );
    assert_refused(
        &["new", "--type=helm", "--kind=Rancher", "--domain=Example"],
        none,
        2,
        &["\"Example\""],
    );
    // No kind and no chart to take one from, and nobody to ask.
    assert_refused(&["new", "--type=helm"], none, 2, &["--kind"]);
}

#[test]
fn bad_charts_are_refused_and_leave_nothing() {
    let none = |_: &Path| {};
    assert_refused(
        &["new", "--type=helm", "--helm-chart=./nope"],
        none,
        2,
        &["./nope", "does not exist"],
    );
    assert_refused(
        &["new", "--type=helm", "--helm-chart=./empty"],
        |dir| std::fs::create_dir(dir.join("empty")).unwrap(),
        2,
        &["./empty", "Chart.yaml"],
    );
    assert_refused(
        &["new", "--type=helm", "--helm-chart=./corrupt.tgz"],
        |dir| std::fs::write(dir.join("corrupt.tgz"), b"\x1f\x8b\x08garbage").unwrap(),
        1,
        &["./corrupt.tgz", "not a valid gzip-compressed tar"],
    );
    assert_refused(
        &["new", "--type=helm", "--helm-chart=./bad-yaml"],
        |dir| {
            std::fs::create_dir(dir.join("bad-yaml")).unwrap();
            std::fs::write(dir.join("bad-yaml/Chart.yaml"), "name: [unclosed\n").unwrap();
        },
        2,
        &["bad-yaml/Chart.yaml", "not valid YAML", "crash-loop"],
    );
    assert_refused(
        &["new", "--type=helm", "--helm-chart=./escape.tgz"],
        |dir| {
            std::fs::write(
                dir.join("escape.tgz"),
                tgz_with_raw_entry("demo/../../evil"),
            )
            .unwrap()
        },
        1,
        &["./escape.tgz", "unsafe entry", "../../evil"],
    );
    assert_refused(
        &["new", "--type=helm", "--helm-chart=./link"],
        |dir| {
            std::fs::create_dir_all(dir.join("link/templates")).unwrap();
            std::fs::write(
                dir.join("link/Chart.yaml"),
                "apiVersion: v2\nname: link\nversion: 0.1.0\n",
            )
            .unwrap();
            std::os::unix::fs::symlink("/etc/hostname", dir.join("link/templates/x.yaml")).unwrap();
        },
        1,
        &["./link", "outside the chart"],
    );
}

#[test]
fn an_existing_directory_is_never_touched() {
    assert_refused(
        &["new", "taken", "--type=helm", "--kind=Memcached"],
        |dir| {
            std::fs::create_dir(dir.join("taken")).unwrap();
            std::fs::write(dir.join("taken/mine.txt"), "user data").unwrap();
        },
        2,
        &["taken", "already exists"],
    );
    // An empty directory is fine: `mkdir x && cd x && ...` habits.
    let work = tempfile::tempdir().unwrap();
    std::fs::create_dir(work.path().join("empty")).unwrap();
    operator_rs(work.path())
        .args(["new", "empty", "--type=helm", "--kind=Memcached"])
        .assert()
        .success();
    assert!(work.path().join("empty/PROJECT").is_file());
    // No staging directory is left beside the project.
    assert_eq!(
        std::fs::read_dir(work.path()).unwrap().count(),
        1,
        "{:?}",
        list_entries(work.path())
    );
}

/// A .tgz whose single entry has exactly `name`, unchecked (the tar crate refuses to write
/// `..` through its safe API, which is the point of this test).
fn tgz_with_raw_entry(name: &str) -> Vec<u8> {
    let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let mut builder = tar::Builder::new(gz);
    let chart = b"apiVersion: v2\nname: demo\nversion: 0.1.0\n";
    let mut header = tar::Header::new_gnu();
    header.set_size(chart.len() as u64);
    header.set_mode(0o644);
    header.set_path("demo/Chart.yaml").unwrap();
    header.set_cksum();
    builder.append(&header, &chart[..]).unwrap();
    let mut header = tar::Header::new_gnu();
    header.set_size(4);
    header.set_mode(0o644);
    header.as_old_mut().name[..name.len()].copy_from_slice(name.as_bytes());
    header.set_cksum();
    builder.append(&header, &b"evil"[..]).unwrap();
    builder.into_inner().unwrap().finish().unwrap()
}

#[test]
fn the_operator_rs_runtime_is_recorded_and_packaged() {
    let work = tempfile::tempdir().unwrap();
    let output = operator_rs(work.path())
        .args([
            "new",
            "--type=helm",
            "--runtime=operator-rs",
            "--helm-chart",
        ])
        .arg(shared_chart("hello-world"))
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&output.get_output().stdout).into_owned();
    assert!(stdout.contains("Runtime: operator-rs"), "{stdout}");
    let project = work.path().join("hello-world-operator");
    let tree = read_tree(&project);
    let text = |path: &str| String::from_utf8_lossy(&tree[path]).into_owned();

    let project_file = text("PROJECT");
    assert!(
        project_file.contains("\nruntime: operator-rs\n"),
        "{project_file}"
    );
    // The image is built FROM operator-rs's base image of this version (which runs the
    // runtime), never the helm-operator.
    let dockerfile = text("build/Dockerfile");
    let from = format!(
        "ARG BASE_IMAGE=ghcr.io/operator-rs/operator-rs:{}\nFROM ${{BASE_IMAGE}}\n",
        env!("CARGO_PKG_VERSION")
    );
    for expected in [
        from.as_str(),
        "COPY watches.yaml ${HOME}/watches.yaml\n",
        "COPY helm-charts/ ${HOME}/helm-charts/\n",
        "WORKDIR ${HOME}\n",
        "USER 65532:65532\n",
    ] {
        assert!(
            dockerfile.contains(expected),
            "{expected:?} not in:\n{dockerfile}"
        );
    }
    assert!(!dockerfile.contains("quay.io"), "{dockerfile}");
    // Nothing is copied into the project for the image any more.
    assert!(!dockerfile.contains("COPY build/"), "{dockerfile}");
    assert!(!text(".gitignore").contains("/build/operator-rs"));

    // operator.yaml keeps the helm-operator's arguments: both runtimes take them.
    let helm_operator_work = tempfile::tempdir().unwrap();
    let other = new_hello_world(helm_operator_work.path(), "helm-operator");
    let args = |operator_yaml: &str| -> Vec<String> {
        let object: serde_json::Value = operator_rs::yaml::from_str(operator_yaml).unwrap();
        serde_json::from_value(object["spec"]["template"]["spec"]["containers"][0]["args"].clone())
            .unwrap()
    };
    let theirs = std::fs::read_to_string(other.join("deploy/operator.yaml")).unwrap();
    assert_eq!(args(&text("deploy/operator.yaml")), args(&theirs));
    judge_manifests(&project);
}

/// `new` of the hello-world chart with `--runtime=RUNTIME`, in `work`.
fn new_hello_world(work: &Path, runtime: &str) -> std::path::PathBuf {
    let output = operator_rs(work)
        .args(["new", "--type=helm", &format!("--runtime={runtime}")])
        .arg("--helm-chart")
        .arg(shared_chart("hello-world"))
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&output.get_output().stdout).into_owned();
    assert_eq!(
        stdout.contains("Runtime: operator-rs"),
        runtime == "operator-rs",
        "{stdout}"
    );
    work.join("hello-world-operator")
}

#[test]
fn a_runtime_is_a_helm_projects_choice_among_two() {
    let none = |_: &Path| {};
    assert_refused(
        &["new", "--type=helm", "--kind=Memcached", "--runtime=go"],
        none,
        2,
        &["'go'", "--runtime", "helm-operator", "operator-rs"],
    );
    assert_refused(
        &["new", "--kind=Memcached", "--runtime=operator-rs"],
        none,
        2,
        &["--runtime=operator-rs", "Rust project", "--type=helm"],
    );
    // The default is operator-rs, written down, so that a later change of default never
    // moves an existing project.
    let work = tempfile::tempdir().unwrap();
    let output = operator_rs(work.path())
        .args(["new", "--type=helm", "--kind=Memcached"])
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&output.get_output().stdout).into_owned();
    assert!(stdout.contains("Runtime: operator-rs"), "{stdout}");
    let project = work.path().join("memcached-operator");
    let project_file = std::fs::read_to_string(project.join("PROJECT")).unwrap();
    assert!(
        project_file.contains("\nruntime: operator-rs\n"),
        "{project_file}"
    );
    let dockerfile = std::fs::read_to_string(project.join("build/Dockerfile")).unwrap();
    assert!(
        dockerfile.contains("ARG BASE_IMAGE=ghcr.io/operator-rs/operator-rs:"),
        "{dockerfile}"
    );
}

/// `--runtime=helm-operator` still makes a project on the operator-framework image, with the
/// Go runtime's resources; the files that differ from operator-rs's are kept as a snapshot.
#[test]
fn the_helm_operator_runtime_builds_on_the_operator_framework_image() {
    let work = tempfile::tempdir().unwrap();
    let project = new_hello_world(work.path(), "helm-operator");
    let text = |path: &str| std::fs::read_to_string(project.join(path)).unwrap();
    assert!(
        text("PROJECT").contains("\nruntime: helm-operator\n"),
        "{}",
        text("PROJECT")
    );
    let dockerfile = text("build/Dockerfile");
    assert!(
        dockerfile.contains(
            "ARG BASE_IMAGE=quay.io/operator-framework/helm-operator:v1.42.3\nFROM ${BASE_IMAGE}\n"
        ),
        "{dockerfile}"
    );
    judge_manifests(&project);
    let files = ["build/Dockerfile", "deploy/operator.yaml", "README.md"]
        .map(|path| format!("=== {path}\n{}", text(path)))
        .join("\n");
    insta::assert_snapshot!("new_helm_runtime_helm_operator", files);
}

/// hello-world copied into `dir`, with a value its defaults leave unset that a template
/// `required`s, and two `ci/` files: one sets it, the other does not.
fn chart_with_a_required_value(dir: &Path) -> std::path::PathBuf {
    let chart = dir.join("greeter");
    copy_dir(&shared_chart("hello-world"), &chart);
    std::fs::write(
        chart.join("templates/greeting.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-greeting\ndata:\n  greeting: {{ required \"greeting is required\" .Values.greeting | quote }}\n",
    )
    .unwrap();
    std::fs::create_dir_all(chart.join("ci")).unwrap();
    std::fs::write(
        chart.join("ci/greeting-values.yaml"),
        "# What CI greets with.\ngreeting: hello\nreplicaCount: 2\nservice:\n  port: 8080\n",
    )
    .unwrap();
    std::fs::write(
        chart.join("ci/no-greeting-values.yaml"),
        "replicaCount: 3\n",
    )
    .unwrap();
    chart
}

/// The sample custom resource of a hello-world project, parsed.
fn hello_world_sample(project: &Path) -> serde_json::Value {
    let path = project.join("deploy/crds/charts.example.com_v1alpha1_helloworld_cr.yaml");
    serde_saphyr::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn a_chart_whose_defaults_do_not_render_gets_its_sample_from_a_ci_file_that_does() {
    let work = tempfile::tempdir().unwrap();
    let chart = chart_with_a_required_value(work.path());
    let new = |parent: &str, extra: &[&str]| {
        let dir = work.path().join(parent);
        std::fs::create_dir_all(&dir).unwrap();
        let output = operator_rs(&dir)
            .args(["new", "--type=helm", "greeter-op"])
            .arg("--helm-chart")
            .arg(&chart)
            .args(extra)
            .assert()
            .success();
        let output = output.get_output();
        (
            dir.join("greeter-op"),
            String::from_utf8_lossy(&output.stdout).into_owned(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    };

    // Without a terminal nothing is chosen: the sample is the chart's values.yaml, which the
    // operator's first render refuses, and the output names the flag that fixes it.
    let (plain, _, stderr) = new("plain", &[]);
    assert!(
        stderr.contains("does not render with its default values"),
        "{stderr}"
    );
    assert!(
        stderr.contains("pass --sample-values=ci/greeting-values.yaml"),
        "{stderr}"
    );
    assert!(!stderr.contains("no-greeting"), "{stderr}");
    assert_eq!(hello_world_sample(&plain)["spec"]["replicaCount"], 1);
    let refused = operator_rs(&plain).arg("template").assert().failure();
    assert!(String::from_utf8_lossy(&refused.get_output().stderr).contains("greeting is required"));

    // With the flag the sample is the defaults merged with the ci/ file, and it renders.
    let (merged, stdout, stderr) = new("merged", &["--sample-values=ci/greeting-values.yaml"]);
    assert!(
        stdout.contains("values.yaml merged with its ci/greeting-values.yaml"),
        "{stdout}"
    );
    assert!(!stderr.contains("pass --sample-values"), "{stderr}");
    let spec = hello_world_sample(&merged)["spec"].clone();
    assert_eq!(spec["greeting"], "hello");
    assert_eq!(spec["replicaCount"], 2);
    assert_eq!(spec["service"]["port"], 8080);
    assert_eq!(spec["service"]["type"], "ClusterIP", "a default kept");
    assert_eq!(spec["image"]["repository"], "nginx", "a default kept");
    let rendered = operator_rs(&merged).arg("template").assert().success();
    let rendered = String::from_utf8_lossy(&rendered.get_output().stdout).into_owned();
    assert!(rendered.contains("greeting: \"hello\""), "{rendered}");
    // Real Helm renders the chart with the sample's spec, as the operator installs it.
    if let Some(mut helm) = support::helm_oracle::HelmOracle::start() {
        let manifests = helm
            .render(
                &support::helm_oracle::RenderRequest::new(merged.join("helm-charts/hello-world"))
                    .values(spec.clone()),
            )
            .expect("Helm renders the chart with the sample's spec");
        let greeting = manifests
            .iter()
            .find(|(template, _)| template.ends_with("templates/greeting.yaml"))
            .map(|(_, text)| text.clone())
            .unwrap_or_default();
        assert!(greeting.contains("greeting: \"hello\""), "{greeting}");
    }
    judge_manifests(&merged);

    // Nothing else differs between the two projects.
    let (plain_tree, merged_tree) = (read_tree(&plain), read_tree(&merged));
    let differing: Vec<&String> = plain_tree
        .keys()
        .filter(|path| plain_tree.get(*path) != merged_tree.get(*path))
        .collect();
    assert_eq!(
        differing,
        ["deploy/crds/charts.example.com_v1alpha1_helloworld_cr.yaml"]
    );
}

#[test]
fn sample_values_that_do_not_render_or_are_not_ci_files_are_refused() {
    let chart = |work: &Path| {
        chart_with_a_required_value(work);
    };
    assert_refused(
        &[
            "new",
            "--type=helm",
            "--helm-chart=greeter",
            "--sample-values=ci/no-greeting-values.yaml",
        ],
        chart,
        2,
        &[
            "--sample-values=ci/no-greeting-values.yaml",
            "does not render with its default values merged with ci/no-greeting-values.yaml",
            "greeting is required",
        ],
    );
    assert_refused(
        &[
            "new",
            "--type=helm",
            "--helm-chart=greeter",
            "--sample-values=values.yaml",
        ],
        chart,
        2,
        &[
            "--sample-values=values.yaml: not one of the ci/*.yaml files of chart hello-world",
            "ci/greeting-values.yaml, ci/no-greeting-values.yaml",
        ],
    );
    assert_refused(
        &["new", "--type=helm", "--sample-values=ci/a.yaml"],
        |_| {},
        2,
        &["--helm-chart"],
    );
}

#[test]
fn on_a_terminal_new_offers_the_ci_file_that_renders() {
    let work = tempfile::tempdir().unwrap();
    let chart = chart_with_a_required_value(work.path());
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_operator-rs"));
    command
        .current_dir(work.path())
        .env("NO_COLOR", "1")
        .args([
            "new",
            "--type=helm",
            "greeter-op",
            "--kind=HelloWorld",
            "--api-version=charts.example.com/v1alpha1",
        ])
        .arg("--helm-chart")
        .arg(&chart);
    let question =
        "Write the sample custom resource from the defaults merged with ci/greeting-values.yaml?";
    // Ctrl-C at the question leaves nothing behind, not even the staging directory.
    let before = list_entries(work.path());
    let interrupted = support::terminal::answer(&command, question, "\u{3}");
    assert_ne!(interrupted.code, Some(0), "{}", interrupted.screen);
    assert_eq!(list_entries(work.path()), before, "{}", interrupted.screen);
    let session = support::terminal::answer(&command, question, "y");
    assert_eq!(session.code, Some(0), "the screen:\n{}", session.screen);
    assert!(
        session
            .screen
            .contains("Chart hello-world does not render with its default values"),
        "{}",
        session.screen
    );
    let spec = hello_world_sample(&work.path().join("greeter-op"))["spec"].clone();
    assert_eq!(spec["greeting"], "hello");
}
