//! `operator-rs run`, end to end: in a Rust project made by the real `new`, it applies the CRD
//! to the Kubernetes API test server, builds the operator and runs it against the server; the
//! operator reconciles the sample custom resource into a Deployment, which the real `kubectl`
//! reads back; SIGTERM to `run` stops the operator and `run` exits with its status.

mod support;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use serde_json::Value;
use support::kube_server::KubeServer;
use support::operator::{Running, generated_build_env, is_alive, wait_for};

const NAME: &str = "memcached-operator";
const CRD: &str = "memcacheds.cache.example.com";
const SAMPLE: &str = "deploy/crds/cache.example.com_v1alpha1_memcached_cr.yaml";

/// The first build of a generated project compiles its whole dependency tree.
const BUILD_DEADLINE: Duration = Duration::from_secs(30 * 60);
/// Everything after the build: the operator's requests to a server on this machine.
const DEADLINE: Duration = Duration::from_secs(60);

/// `operator-rs ARGS` in `project`, building in the shared target directory, with a HOME of
/// its own so that no real kubeconfig is read.
fn operator_rs_in(project: &Path, home: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(assert_cmd::cargo::cargo_bin("operator-rs"));
    command
        .current_dir(project)
        .env("HOME", home)
        .env_remove("KUBECONFIG")
        .env("NO_COLOR", "1")
        .envs(generated_build_env())
        .env("RUST_LOG", "info")
        .args(args);
    command
}

/// The real kubectl against the test server, `-o json`.
fn kubectl(server: &KubeServer, cache: &Path, args: &[&str]) -> Value {
    let output = server
        .kubectl(cache)
        .args(args)
        .args(["-o", "json"])
        .output()
        .expect("kubectl runs");
    assert!(
        output.status.success(),
        "kubectl {args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("kubectl prints JSON")
}

/// The Deployments in `namespace` that the custom resource `owner` owns.
fn owned_deployments(server: &KubeServer, namespace: &str, owner: &str) -> Vec<Value> {
    server
        .objects("apps", "deployments")
        .into_iter()
        .filter(|d| d["metadata"]["namespace"] == namespace)
        .filter(|d| {
            d["metadata"]["ownerReferences"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|r| r["kind"] == "Memcached" && r["name"] == owner)
        })
        .collect()
}

#[test]
fn run_applies_the_crd_runs_the_operator_and_stops_it_on_sigterm() {
    run_flow(false);
}

#[test]
fn run_applies_the_crd_and_the_operator_reconciles_the_sample_until_sigterm() {
    run_flow(true);
}

/// `run` in a new project against the test server, then SIGTERM; with `reconcile` the sample
/// goes in between and must become a Deployment.
fn run_flow(reconcile: bool) {
    let work = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let project = support::project::new_memcached_operator(work.path(), NAME);
    let server = KubeServer::start();
    let kubeconfig = server.kubeconfig();
    let kubeconfig = kubeconfig.to_str().unwrap();

    let run = Running::spawn(
        "operator-rs run",
        &mut operator_rs_in(
            &project,
            home.path(),
            &[
                "run",
                "-n",
                "demo",
                "--kubeconfig",
                kubeconfig,
                "--",
                "--metrics-bind-address=127.0.0.1:0",
                "--health-probe-bind-address=127.0.0.1:0",
            ],
        ),
    );

    // The CRD is applied before the build starts.
    wait_for(
        "the CRD to be applied",
        DEADLINE,
        || {
            server.object(
                "apiextensions.k8s.io",
                "customresourcedefinitions",
                None,
                CRD,
            )
        },
        || run.logs(),
    );
    let crd = kubectl(&server, cache.path(), &["get", "crd", CRD]);
    assert!(
        crd["status"]["conditions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["type"] == "Established" && c["status"] == "True"),
        "{crd}"
    );

    // The operator runs once built; then the sample goes in with kubectl.
    let operator = wait_for(
        "the operator to start",
        BUILD_DEADLINE,
        || {
            run.assert_running();
            run.stdout()
                .contains("Starting ")
                .then(|| run.children())
                .and_then(|c| c.first().copied())
        },
        || run.logs(),
    );
    wait_for(
        "the operator to connect to the server",
        DEADLINE,
        || {
            run.assert_running();
            run.stdout()
                .contains("connected to Kubernetes")
                .then_some(())
        },
        || run.logs(),
    );
    // A local run serves /metrics over plain HTTP (METRICS_SECURE=false from run).
    assert!(
        run.printed_address("/metrics").is_some(),
        "no http:// /metrics URL in the output:\n{}",
        run.logs()
    );
    if reconcile {
        reconcile_the_sample(&server, cache.path(), work.path(), &project, &run);
    }
    stop_and_rerun(&project, home.path(), &run, operator, kubeconfig);
}

fn reconcile_the_sample(
    server: &KubeServer,
    cache: &Path,
    work: &Path,
    project: &Path,
    run: &Running,
) {
    // kubectl create sends protobuf, which the test server does not speak; apply sends JSON.
    let namespace = work.join("namespace.json");
    std::fs::write(
        &namespace,
        r#"{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "demo"}}"#,
    )
    .unwrap();
    kubectl(
        server,
        cache,
        &["apply", "--server-side", "-f", namespace.to_str().unwrap()],
    );
    let sample = project.join(SAMPLE);
    let created = kubectl(
        server,
        cache,
        &[
            "apply",
            "--server-side",
            "-n",
            "demo",
            "-f",
            sample.to_str().unwrap(),
        ],
    );
    let owner = created["metadata"]["name"].as_str().unwrap().to_string();

    let deployment = wait_for(
        "the operator to create the sample's Deployment",
        DEADLINE,
        || {
            run.assert_running();
            owned_deployments(server, "demo", &owner).into_iter().next()
        },
        || run.logs(),
    );
    let name = deployment["metadata"]["name"].as_str().unwrap();
    let read = kubectl(server, cache, &["get", "deployment", "-n", "demo", name]);
    let sample_spec: Value =
        operator_rs::yaml::from_str(&std::fs::read_to_string(&sample).unwrap()).unwrap();
    assert_eq!(
        read["spec"]["replicas"], sample_spec["spec"]["size"],
        "{read}"
    );
    assert_eq!(
        read["metadata"]["ownerReferences"][0]["name"], owner,
        "{read}"
    );
}

fn stop_and_rerun(project: &Path, home: &Path, run: &Running, operator: u32, kubeconfig: &str) {
    // SIGTERM to `run` reaches the operator, which stops; `run` passes on its status.
    run.signal("TERM");
    let status = run.wait_exit(DEADLINE);
    assert!(status.success(), "{status}\n{}", run.logs());
    assert!(!is_alive(operator), "the operator is still running");
    let stdout = run.stdout();
    assert!(
        stdout.contains("SIGTERM: stopping the operator"),
        "{stdout}"
    );
    assert!(
        stdout.contains("CustomResourceDefinition/memcacheds.cache.example.com: created"),
        "{stdout}"
    );

    // A second run with the CRD in place: unchanged; the operator's own exit status (a flag it
    // does not know: clap's 2) becomes run's.
    let output = operator_rs_in(
        project,
        home,
        &[
            "run",
            "-n",
            "demo",
            "--kubeconfig",
            kubeconfig,
            "--",
            "--no-such-flag",
        ],
    )
    .output()
    .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("CustomResourceDefinition/memcacheds.cache.example.com: unchanged"),
        "{stdout}"
    );
    assert!(stderr.contains("the operator exited with"), "{stderr}");
}

#[test]
fn a_helm_projects_runtime_flags_are_checked_before_any_connection() {
    let work = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let project = support::build_projects::generated_helm_project(work.path());
    // No cluster is named: the refusals come before any connection.
    for (args, fragment) in [
        (&["run", "--", "--reconcile-period=5"][..], "missing unit"),
        (&["run", "--release"][..], "drop --release"),
        (&["run", "--", "--no-such-flag"][..], "--no-such-flag"),
        (
            &["run", "--", "--health-probe-bind-address=here"][..],
            "HOST:PORT",
        ),
    ] {
        let output = operator_rs_in(&project, home.path(), args)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(fragment), "{args:?}: {stderr}");
    }
}

#[test]
fn usage_errors_exit_2_before_anything_runs() {
    let work = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    for (args, fragment) in [
        (&["run", "-n", "demo", "-A"][..], "cannot be used with"),
        (&["run", "-n", "Not_A_Namespace"][..], "DNS-1123"),
    ] {
        let output = operator_rs_in(work.path(), home.path(), args)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(fragment), "{args:?}: {stderr}");
    }
    // Outside a project.
    let output = operator_rs_in(work.path(), home.path(), &["run"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("operator-rs new"), "{stderr}");
}

/// A project whose deploy/ has webhooks as phase 2 of issue 35 will generate them: a Service,
/// a mutating and a validating configuration for Memcached, and a CRD with a second version
/// (v1beta1, `spec.replicas` for v1alpha1's `spec.size`) converted by the operator. The
/// operator is a stand-in ([`STANDIN`]) that takes run's contract (`--webhook-bind-address`,
/// `--webhook-cert-dir`), "built" by a cargo that names it.
struct WebhookProject {
    _work: tempfile::TempDir,
    project: std::path::PathBuf,
    /// The stand-in operator and the cargo that "builds" it.
    tools: tempfile::TempDir,
}

const STANDIN: &str = include_str!("support/webhook_standin.py");

impl WebhookProject {
    fn new() -> WebhookProject {
        use std::os::unix::fs::PermissionsExt;
        let work = tempfile::tempdir().unwrap();
        let project = support::project::new_memcached_operator(work.path(), NAME);
        support::webhook_project::add_webhooks(&project, None);
        support::webhook_project::convert_by_webhook(&project);

        let tools = tempfile::tempdir().unwrap();
        let standin = tools.path().join(NAME);
        std::fs::write(&standin, STANDIN).unwrap();
        let cargo = tools.path().join("cargo");
        std::fs::write(
            &cargo,
            format!(
                "#!/bin/sh\necho 'Compiling {NAME} (a stand-in)' >&2\necho '{{\"reason\":\"compiler-artifact\",\"executable\":\"{}\"}}'\n",
                standin.display()
            ),
        )
        .unwrap();
        for file in [&standin, &cargo] {
            std::fs::set_permissions(file, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        WebhookProject {
            _work: work,
            project,
            tools,
        }
    }

    /// `operator-rs ARGS` in the project, with the stand-in's cargo.
    fn operator_rs(&self, home: &Path, args: &[&str]) -> Command {
        let mut command = operator_rs_in(&self.project, home, args);
        command.env("CARGO", self.tools.path().join("cargo"));
        command
    }
}

fn memcached(name: &str, spec: &str) -> String {
    format!(
        "apiVersion: cache.example.com/v1alpha1\nkind: Memcached\nmetadata:\n  name: {name}\n  namespace: demo\nspec: {spec}\n"
    )
}

/// `run` in a project with webhooks: the operator gets a certificate and an address, the
/// cluster calls it there (defaulting, validation, conversion, seen through kubectl), and
/// when it stops everything run changed is as it was: the configuration that existed before
/// is put back, the one that did not is deleted, the CRD's conversion names the Service again.
#[test]
fn run_registers_the_webhooks_at_the_local_operator_and_puts_everything_back() {
    let project = WebhookProject::new();
    let home = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let server = KubeServer::start();
    let kubeconfig = server.kubeconfig();
    let kubeconfig = kubeconfig.to_str().unwrap();
    let namespace = server.kubectl_with_input(
        cache.path(),
        &["apply", "--server-side", "-f", "-"],
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: demo\n",
    );
    assert!(namespace.status.success());
    // As deployed earlier: the validating configuration, calling the Service.
    let deployed = support::webhook_project::deployed(
        &project.project,
        "ValidatingWebhookConfiguration",
        "demo",
    );
    let applied = server.kubectl_with_input(
        cache.path(),
        &["apply", "--server-side", "-f", "-"],
        &deployed,
    );
    assert!(
        applied.status.success(),
        "{}",
        String::from_utf8_lossy(&applied.stderr)
    );
    let before = server
        .object(
            "admissionregistration.k8s.io",
            "validatingwebhookconfigurations",
            None,
            "memcached-operator-validating",
        )
        .unwrap();

    let run = Running::spawn(
        "operator-rs run",
        &mut project.operator_rs(
            home.path(),
            &[
                "run",
                "-n",
                "demo",
                "--kubeconfig",
                kubeconfig,
                "--webhook-port",
                "0",
                "--",
                "--leader-elect",
            ],
        ),
    );
    wait_for(
        "the webhooks to be registered",
        DEADLINE,
        || {
            run.assert_running();
            run.stdout()
                .contains("memcacheds.cache.example.com: converts through")
                .then_some(())
        },
        || run.logs(),
    );
    let stdout = run.stdout();
    assert!(
        stdout.contains("arguments: ['--webhook-bind-address=127.0.0.1:"),
        "{stdout}"
    );
    assert!(stdout.contains("'--leader-elect']"), "{stdout}");
    let mutating = server
        .object(
            "admissionregistration.k8s.io",
            "mutatingwebhookconfigurations",
            None,
            "memcached-operator-mutating",
        )
        .unwrap();
    let url = mutating["webhooks"][0]["clientConfig"]["url"]
        .as_str()
        .unwrap();
    assert!(
        url.starts_with("https://127.0.0.1:")
            && url.ends_with("/mutate-cache-example-com-v1alpha1-memcached"),
        "{mutating}"
    );

    // Defaulted, validated and converted by the operator on this machine.
    let created = server.kubectl_with_input(
        cache.path(),
        &["apply", "-f", "-"],
        &memcached("plain", "{size: 3}"),
    );
    assert!(
        created.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&created.stderr),
        run.logs()
    );
    let stored = server
        .object("cache.example.com", "memcacheds", Some("demo"), "plain")
        .unwrap();
    assert_eq!(stored["spec"]["image"], "memcached:1.6", "{stored}");
    let refused = server.kubectl_with_input(
        cache.path(),
        &["apply", "-f", "-"],
        &memcached("big", "{size: 1000}"),
    );
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success());
    assert!(
        stderr.contains("admission webhook \"vmemcached-v1alpha1.cache.example.com\" denied the request: spec.size: Invalid value: 1000: must be at most 100"),
        "{stderr}"
    );
    let beta = kubectl(
        &server,
        cache.path(),
        &[
            "-n",
            "demo",
            "get",
            "memcacheds.v1beta1.cache.example.com",
            "plain",
        ],
    );
    assert_eq!(beta["spec"]["replicas"], 3, "{beta}");
    assert!(beta["spec"].get("size").is_none(), "{beta}");

    run.signal("TERM");
    let status = run.wait_exit(DEADLINE);
    assert!(status.success(), "{status}\n{}", run.logs());
    let stdout = run.stdout();
    assert!(
        stdout.contains("memcached-operator-mutating: deleted"),
        "{stdout}"
    );
    assert!(
        stdout.contains("memcached-operator-validating: put back as it was"),
        "{stdout}"
    );
    assert!(
        server
            .object(
                "admissionregistration.k8s.io",
                "mutatingwebhookconfigurations",
                None,
                "memcached-operator-mutating"
            )
            .is_none()
    );
    let after = server
        .object(
            "admissionregistration.k8s.io",
            "validatingwebhookconfigurations",
            None,
            "memcached-operator-validating",
        )
        .unwrap();
    assert_eq!(after["webhooks"], before["webhooks"]);
    let crd = kubectl(&server, cache.path(), &["get", "crd", CRD]);
    assert_eq!(
        crd["spec"]["conversion"]["webhook"]["clientConfig"],
        serde_json::json!({"service": {"name": support::webhook_project::SERVICE,
                                       "namespace": "demo", "path": "/convert"}}),
        "{crd:#}"
    );
}

/// A cluster in Docker (kind, k3d) cannot reach this machine's loopback: without
/// --webhook-host, run says what to pass, and changes nothing.
#[test]
fn run_with_webhooks_against_a_cluster_in_docker_asks_for_the_gateway() {
    let project = WebhookProject::new();
    let home = tempfile::tempdir().unwrap();
    let server = KubeServer::start();
    let kubeconfig = home.path().join("kind-kubeconfig");
    let text = std::fs::read_to_string(server.kubeconfig())
        .unwrap()
        .replace("current-context: test", "current-context: kind-dev")
        .replace(
            "  - name: test\n    context:",
            "  - name: kind-dev\n    context:",
        );
    std::fs::write(&kubeconfig, text).unwrap();
    let output = project
        .operator_rs(
            home.path(),
            &[
                "run",
                "-n",
                "demo",
                "--kubeconfig",
                kubeconfig.to_str().unwrap(),
            ],
        )
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("context \"kind-dev\" runs in a container")
            && stderr.contains("--webhook-host"),
        "{stderr}"
    );
    assert!(
        server
            .object(
                "apiextensions.k8s.io",
                "customresourcedefinitions",
                None,
                CRD
            )
            .is_none()
    );
    for (args, fragment) in [
        (
            &["run", "--webhook-host", "not a host"][..],
            "\"not a host\"",
        ),
        (
            &["run", "--", "--webhook-cert-dir=/tmp"][..],
            "--webhook-cert-dir=/tmp",
        ),
    ] {
        let output = project.operator_rs(home.path(), args).output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(fragment), "{args:?}: {stderr}");
    }
}
