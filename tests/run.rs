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
