//! `operator-rs create api` on Helm projects: `new`, then two more Kinds; user edits survive;
//! every refusal leaves the project byte-identical.

mod support;

use std::path::{Path, PathBuf};

use support::project::{deploy_files, operator_rs, read_tree, shared_chart};

fn new_project(work: &Path) -> PathBuf {
    operator_rs(work)
        .args([
            "new",
            "demo",
            "--type=helm",
            "--api-version=demo.example.com/v1alpha1",
            "--helm-chart",
        ])
        .arg(shared_chart("hello-world"))
        .assert()
        .success();
    work.join("demo")
}

fn generated_text(project: &Path) -> String {
    read_tree(project)
        .into_iter()
        .filter(|(path, _)| !path.starts_with("helm-charts/"))
        .map(|(path, bytes)| format!("=== {path}\n{}\n", String::from_utf8_lossy(&bytes)))
        .collect()
}

#[test]
fn two_more_kinds_with_their_charts() {
    let work = tempfile::tempdir().unwrap();
    let project = new_project(work.path());
    // A user edit in a file the user owns must survive byte for byte.
    let readme = project.join("README.md");
    let edited = format!(
        "{}\nOur team's notes.\n",
        std::fs::read_to_string(&readme).unwrap()
    );
    std::fs::write(&readme, &edited).unwrap();
    let watches = project.join("watches.yaml");
    let edited_watches = std::fs::read_to_string(&watches)
        .unwrap()
        .replace("  # reconcilePeriod: 1m", "  reconcilePeriod: 5m");
    std::fs::write(&watches, &edited_watches).unwrap();

    // Run from a subdirectory: the project root is found upwards.
    let output = operator_rs(&project.join("deploy"))
        .args([
            "create",
            "api",
            "--api-version=demo.example.com/v1beta1",
            "--helm-chart",
        ])
        .arg(shared_chart("alertmanager"))
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&output.get_output().stdout).into_owned();
    assert!(
        stdout.contains("created deploy/crds/demo.example.com_alertmanagers_crd.yaml"),
        "{stdout}"
    );
    assert!(stdout.contains("changed deploy/role.yaml"), "{stdout}");
    assert!(
        !stdout.contains("ClusterRole"),
        "alertmanager is namespaced: {stdout}"
    );

    let rancher = rancher_with_a_version(work.path());
    let output = operator_rs(&project)
        .args([
            "create",
            "api",
            "--api-version=rancher.com/v1",
            "--kind=Rancher",
            "--set-chart-version=2.13.0",
            "--helm-chart",
        ])
        .arg(&rancher)
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&output.get_output().stdout).into_owned();
    assert!(
        stdout.contains("now has a ClusterRole") && stdout.contains("PriorityClass"),
        "the new ClusterRole is reported with its reasons: {stdout}"
    );
    assert!(
        stdout.contains("changed deploy/role_binding.yaml"),
        "{stdout}"
    );

    assert_eq!(std::fs::read_to_string(&readme).unwrap(), edited);
    let watches_now = std::fs::read_to_string(&watches).unwrap();
    assert!(watches_now.starts_with(&edited_watches), "{watches_now}");
    assert_eq!(watches_now.matches("- group:").count(), 3);

    let role = std::fs::read_to_string(project.join("deploy/role.yaml")).unwrap();
    assert!(
        role.contains("\nkind: Role\n") && role.contains("\nkind: ClusterRole\n"),
        "{role}"
    );
    let binding = std::fs::read_to_string(project.join("deploy/role_binding.yaml")).unwrap();
    assert!(
        binding.contains("\nkind: RoleBinding\n")
            && binding.contains("\nkind: ClusterRoleBinding\n")
            && binding.contains("  kind: Role\n")
            && binding.contains("  kind: ClusterRole\n"),
        "{binding}"
    );
    assert_kustomize_builds(
        &project,
        &["ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"],
    );

    // Adding a chart again merges into both documents without duplicating a rule.
    let before = role.clone();
    operator_rs(&project)
        .args([
            "create",
            "api",
            "--api-version=rancher.com/v1",
            "--kind=RancherCopy",
            "--helm-chart",
        ])
        .arg(&rancher)
        .assert()
        .success();
    let after = std::fs::read_to_string(project.join("deploy/role.yaml")).unwrap();
    let rules = |text: &str| {
        let file = operator_rs::rbac::roles_from_yaml(text).unwrap();
        (file.role.unwrap(), file.cluster_role.unwrap())
    };
    let (role_before, cluster_before) = rules(&before);
    let (role_after, cluster_after) = rules(&after);
    assert_eq!(
        cluster_after, cluster_before,
        "nothing new at cluster scope"
    );
    assert_eq!(&role_after[..role_before.len()], role_before.as_slice());
    assert_eq!(
        role_after.len(),
        role_before.len() + 3,
        "only the new kind's three rules (resource, status, finalizers) are added: {after}"
    );
    let project_file = std::fs::read_to_string(project.join("PROJECT")).unwrap();
    assert_eq!(
        project_file.matches("- group:").count(),
        4,
        "{project_file}"
    );

    assert_role_covers_every_chart(&project);
    let (manifests, _) = deploy_files(&project);
    support::tools::kubernetes_validate(&manifests);
    support::crds::assert_samples_match_crds(&project);
    insta::assert_snapshot!("create_api_helm_two_kinds", generated_text(&project));
}

/// The rancher chart with a version Helm can load (its `Chart.yaml` says `%VERSION%` until it
/// is released), copied into `work`.
fn rancher_with_a_version(work: &Path) -> PathBuf {
    let copy = work.join("rancher-chart");
    let files = read_tree(&shared_chart("rancher"));
    for (path, bytes) in files {
        let target = copy.join(&path);
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        let bytes = if path == "Chart.yaml" {
            String::from_utf8(bytes)
                .unwrap()
                .replace("%VERSION%", "2.13.0")
                .replace("%APP_VERSION%", "2.13.0")
                .into_bytes()
        } else {
            bytes
        };
        std::fs::write(target, bytes).unwrap();
    }
    copy
}

/// `kubectl kustomize deploy/` builds, with the objects of these kinds in it.
fn assert_kustomize_builds(project: &Path, kinds: &[&str]) {
    let output = support::kube_server::kubectl()
        .arg("kustomize")
        .arg(project.join("deploy"))
        .output()
        .expect("kubectl runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "kubectl kustomize deploy/ failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    for kind in kinds {
        assert!(
            stdout.contains(&format!("\nkind: {kind}\n")),
            "{kind} missing in:\n{stdout}"
        );
    }
}

/// The role file grants every verb the helm-operator uses on every kind of every chart: the
/// Role for namespaced kinds, the ClusterRole for cluster-scoped ones.
fn assert_role_covers_every_chart(project: &Path) {
    let role = std::fs::read_to_string(project.join("deploy/role.yaml")).unwrap();
    let file = operator_rs::rbac::roles_from_yaml(&role).unwrap();
    let namespaced = file.role.unwrap();
    let cluster = file.cluster_role.unwrap_or_default();
    for entry in std::fs::read_dir(project.join("helm-charts")).unwrap() {
        let chart = operator_rs::chart::load_local(&entry.unwrap().path()).unwrap();
        for found in operator_rs::chart::kinds::scan(&chart).kinds {
            let Some(resource) = operator_rs::rbac::resolve(found.group(), &found.kind) else {
                continue;
            };
            if operator_rs::rbac::removed_apis::removed_since(&found.api_version, &found.kind)
                .is_some()
            {
                continue;
            }
            let rules = if resource.namespaced {
                &namespaced
            } else {
                &cluster
            };
            for verb in operator_rs::rbac::RELEASE_VERBS {
                assert!(
                    rules
                        .iter()
                        .any(|r| r.allows(&resource.group, &resource.plural, verb)),
                    "{}: {} lacks {verb}",
                    chart.name(),
                    found.kind
                );
            }
        }
    }
}

/// Runs `create api` expecting a refusal: the exit code, the message, and a project that is
/// byte-identical afterwards.
fn assert_refused(project: &Path, args: &[&str], code: i32, fragments: &[&str]) {
    let before = read_tree(project.parent().unwrap());
    let output = operator_rs(project)
        .args(["create", "api"])
        .args(args)
        .assert()
        .code(code);
    let stderr = String::from_utf8_lossy(&output.get_output().stderr).into_owned();
    for fragment in fragments {
        assert!(
            stderr.contains(fragment),
            "{args:?}: {fragment:?} not in:\n{stderr}"
        );
    }
    assert!(
        read_tree(project.parent().unwrap()) == before,
        "{args:?} changed the project"
    );
}

#[test]
fn refusals_change_nothing() {
    let work = tempfile::tempdir().unwrap();
    let project = new_project(work.path());
    let hello = shared_chart("hello-world");
    let hello = hello.to_str().unwrap();
    assert_refused(
        &project,
        &[
            "--api-version=demo.example.com/v1alpha1",
            "--kind=HelloWorld",
            "--helm-chart",
            hello,
        ],
        2,
        &["already has HelloWorld"],
    );
    assert_refused(
        &project,
        &[
            "--api-version=demo.example.com/v1beta1",
            "--kind=HelloWorld",
            "--helm-chart",
            hello,
        ],
        2,
        &["HelloWorld", "one version per kind"],
    );
    assert_refused(&project, &["--kind=lower"], 2, &["\"lower\""]);
    assert_refused(
        &project,
        &["--kind=Other", "--api-version=nodot/v1"],
        2,
        &["\"nodot\""],
    );
    assert_refused(
        &project,
        &["--kind=Other", "--helm-chart=./missing"],
        2,
        &["./missing"],
    );
    assert_refused(
        &project,
        &[
            "--kind=Other",
            "--plural=helloworlds",
            "--api-version=demo.example.com/v1alpha1",
        ],
        2,
        &["helloworlds", "already used"],
    );

    // A different chart under a name the project already has.
    let other = work.path().join("hello-world");
    std::fs::create_dir(&other).unwrap();
    std::fs::write(
        other.join("Chart.yaml"),
        "apiVersion: v2\nname: hello-world\nversion: 9.9.9\n",
    )
    .unwrap();
    assert_refused(
        &project,
        &["--kind=Other", "--helm-chart", other.to_str().unwrap()],
        2,
        &["helm-charts/hello-world", "different content"],
    );

    // A chart Helm cannot load (rancher's unreleased `version: %VERSION%`) would stop the
    // operator and every kind it already serves.
    let rancher = shared_chart("rancher");
    assert_refused(
        &project,
        &["--kind=Rancher", "--helm-chart", rancher.to_str().unwrap()],
        2,
        &[
            "rancher/Chart.yaml",
            "line 4",
            "version: %VERSION%",
            "crash-loop",
            "--set-chart-version=VERSION",
        ],
    );
}

#[test]
fn set_chart_version_stamps_the_copied_chart_only() {
    let work = tempfile::tempdir().unwrap();
    let project = new_project(work.path());
    let rancher = shared_chart("rancher");
    operator_rs(&project)
        .args([
            "create",
            "api",
            "--kind=Rancher",
            "--set-chart-version=2.13.0",
            "--helm-chart",
        ])
        .arg(&rancher)
        .assert()
        .success();
    let copied = std::fs::read_to_string(project.join("helm-charts/rancher/Chart.yaml")).unwrap();
    let original = std::fs::read_to_string(rancher.join("Chart.yaml")).unwrap();
    assert_eq!(
        copied,
        original
            .replace("version: %VERSION%", "version: 2.13.0")
            .replace("appVersion: %APP_VERSION%", "appVersion: 2.13.0")
    );
    if let Some(verdict) = support::helm::verdict(&project.join("helm-charts/rancher")) {
        assert!(verdict.clean(), "{verdict:?}");
    }
}

#[test]
fn outside_a_project_says_how_to_start_one() {
    let work = tempfile::tempdir().unwrap();
    let output = operator_rs(work.path())
        .args(["create", "api", "--kind=Thing"])
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&output.get_output().stderr).into_owned();
    assert!(
        stderr.contains("PROJECT") && stderr.contains("operator-rs new"),
        "{stderr}"
    );
    assert!(std::fs::read_dir(work.path()).unwrap().next().is_none());
}

#[test]
fn a_second_kind_keeps_the_operator_rs_runtime() {
    let work = tempfile::tempdir().unwrap();
    operator_rs(work.path())
        .args(["new", "demo", "--type=helm", "--runtime=operator-rs"])
        .arg("--helm-chart")
        .arg(shared_chart("hello-world"))
        .assert()
        .success();
    let project = work.path().join("demo");
    let dockerfile = std::fs::read(project.join("build/Dockerfile")).unwrap();
    operator_rs(&project)
        .args(["create", "api", "--kind=Alerts", "--helm-chart"])
        .arg(shared_chart("alertmanager"))
        .assert()
        .success();
    let project_file = std::fs::read_to_string(project.join("PROJECT")).unwrap();
    assert!(
        project_file.contains("\nruntime: operator-rs\n"),
        "{project_file}"
    );
    assert!(project_file.contains("kind: Alerts"), "{project_file}");
    // The image recipe is the runtime's still: the new chart goes in with helm-charts/.
    assert_eq!(
        std::fs::read(project.join("build/Dockerfile")).unwrap(),
        dockerfile
    );
    let watches = std::fs::read_to_string(project.join("watches.yaml")).unwrap();
    assert!(
        watches.contains("chart: helm-charts/alertmanager"),
        "{watches}"
    );
}

/// A chart whose defaults do not render (a `required` value) gets its sample from the chart's
/// `ci/` file named by `--sample-values`, as with `new`.
#[test]
fn sample_values_make_the_sample_of_a_chart_whose_defaults_do_not_render() {
    let work = tempfile::tempdir().unwrap();
    let project = new_project(work.path());
    let chart = work.path().join("greeter");
    support::project::copy_dir(&shared_chart("hello-world"), &chart);
    let chart_yaml = std::fs::read_to_string(chart.join("Chart.yaml")).unwrap();
    std::fs::write(
        chart.join("Chart.yaml"),
        chart_yaml.replace("name: hello-world", "name: greeter"),
    )
    .unwrap();
    std::fs::write(
        chart.join("templates/greeting.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: greeting\ndata:\n  greeting: {{ required \"greeting is required\" .Values.greeting | quote }}\n",
    )
    .unwrap();
    std::fs::create_dir_all(chart.join("ci")).unwrap();
    std::fs::write(chart.join("ci/greeting-values.yaml"), "greeting: hello\n").unwrap();
    let output = operator_rs(&project)
        .args([
            "create",
            "api",
            "--api-version=demo.example.com/v1alpha1",
            "--kind=Greeter",
            "--sample-values=ci/greeting-values.yaml",
            "--helm-chart",
        ])
        .arg(&chart)
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&output.get_output().stdout).into_owned();
    assert!(
        stdout.contains("values.yaml merged with its ci/greeting-values.yaml"),
        "{stdout}"
    );
    let sample = std::fs::read_to_string(
        project.join("deploy/crds/demo.example.com_v1alpha1_greeter_cr.yaml"),
    )
    .unwrap();
    let sample: serde_json::Value = serde_saphyr::from_str(&sample).unwrap();
    assert_eq!(sample["spec"]["greeting"], "hello");
    assert_eq!(sample["spec"]["replicaCount"], 1);
    let rendered = operator_rs(&project).arg("template").assert().success();
    let rendered = String::from_utf8_lossy(&rendered.get_output().stdout).into_owned();
    assert!(rendered.contains("greeting: \"hello\""), "{rendered}");
}
