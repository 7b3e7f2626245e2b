//! The Helm operator runtime under API server faults, each switched on in the Kubernetes API
//! test server while `operator-rs run` reconciles the shared hello-world chart: every
//! connection cut for a while (an API server restart, a partition), 429 with `Retry-After`,
//! 500 and 503, every watch expired (410), a 404 whose reason is the server's own, and
//! answers that will not change (403, 422). The runtime must ride each out without a hot
//! loop (few log lines, little CPU, read from /proc), carry on without a restart (seen with
//! the real `kubectl`), and report what will not change in the custom resource's status.
//!
//! Waits poll with generous deadlines, which bound a failure and measure nothing.

mod support;

use std::time::Duration;

use serde_json::{Value, json};
use support::kube_server::RequestFault;
use support::operator::{Running, cpu_time, wait_for};
use support::project_on_server::{NAMESPACE, ProjectOnServer};

const GROUP: &str = "charts.example.com";
const PLURAL: &str = "helloworlds";
const DEADLINE: Duration = Duration::from_secs(90);

fn start() -> (ProjectOnServer, Running) {
    let setup = ProjectOnServer::start("hello-world", &[]);
    let run = setup.run(
        &["--health-probe-bind-address=0", "--reconcile-period=0"],
        &[],
    );
    wait_for(
        "the runtime to watch HelloWorld",
        DEADLINE,
        || {
            run.assert_running();
            run.stderr()
                .contains(&format!("Watching resource {GROUP}/v1alpha1 HelloWorld"))
                .then_some(())
        },
        || run.logs(),
    );
    (setup, run)
}

fn apply_cr(setup: &ProjectOnServer, name: &str, spec: Value) {
    let object = json!({
        "apiVersion": format!("{GROUP}/v1alpha1"),
        "kind": "HelloWorld",
        "metadata": {"name": name, "namespace": NAMESPACE},
        "spec": spec,
    });
    setup.apply_file(&format!("{name}.json"), &object.to_string(), &[]);
}

/// The custom resource as `kubectl get` shows it.
fn kubectl_cr(setup: &ProjectOnServer, name: &str) -> Option<Value> {
    let output = setup.kubectl(&["get", "-n", NAMESPACE, PLURAL, name, "-o", "json"]);
    output
        .status
        .success()
        .then(|| serde_json::from_slice(&output.stdout).ok())
        .flatten()
}

fn condition<'a>(object: &'a Value, type_: &str) -> Option<&'a Value> {
    object["status"]["conditions"]
        .as_array()?
        .iter()
        .find(|c| c["type"] == type_)
}

fn wait_deployed(setup: &ProjectOnServer, run: &Running, name: &str) -> Value {
    wait_for(
        &format!("{name} Deployed"),
        DEADLINE,
        || {
            run.assert_running();
            kubectl_cr(setup, name)
                .filter(|cr| condition(cr, "Deployed").is_some_and(|c| c["status"] == "True"))
        },
        || run.logs(),
    )
}

/// True when `kubectl get` finds the object.
fn exists(setup: &ProjectOnServer, kind: &str, name: &str) -> bool {
    setup
        .kubectl(&["get", "-n", NAMESPACE, kind, name, "-o", "name"])
        .status
        .success()
}

/// How many requests of `method` on a path ending with `suffix` the server got.
fn requests(setup: &ProjectOnServer, method: &str, contains: &str) -> usize {
    setup
        .server
        .requests()
        .iter()
        .filter(|r| r.method == method && r.path.contains(contains))
        .count()
}

/// How many dependent watches the runtime started (one per kind the release renders).
fn dependent_watches(run: &Running) -> usize {
    run.stderr().matches("Watching dependent resource").count()
}

#[test]
fn a_cut_of_the_api_server_is_ridden_out_without_a_hot_loop() {
    let (setup, run) = start();
    apply_cr(&setup, "before", json!({}));
    wait_deployed(&setup, &run, "before");
    let watches = 1 + dependent_watches(&run);
    assert!(watches >= 3, "{}", run.logs());

    let cut = Duration::from_secs(15);
    let lines_before = run.stderr().lines().count();
    let cpu_before = cpu_time(run.pid());
    setup.server.cut_connections(cut);
    // Another client deletes one of the release's objects meanwhile: no watch sees it.
    std::thread::sleep(Duration::from_secs(1));
    assert!(
        setup
            .server
            .remove_unchecked("", "services", Some(NAMESPACE), "before-hello-world")
    );
    std::thread::sleep(cut - Duration::from_secs(1));
    let cpu_during = cpu_time(run.pid()) - cpu_before;
    let logged: Vec<String> = run
        .stderr()
        .lines()
        .skip(lines_before)
        .map(String::from)
        .collect();
    run.assert_running();

    // The cut was seen, and each failure is one line that counts the failures in a row.
    assert!(
        logged.iter().any(|l| l.contains("times in a row")),
        "{logged:#?}"
    );
    // A handful of lines per watch: backoff from 800 ms doubling (jittered) gives about five
    // attempts in 15 s; a hot loop logs thousands.
    assert!(
        logged.len() <= 8 * watches,
        "{} lines for {watches} watches in {cut:?}:\n{}",
        logged.len(),
        logged.join("\n")
    );
    // Waiting costs next to nothing; a hot loop burns a core for the whole cut.
    assert!(
        cpu_during < cut / 10,
        "{cpu_during:?} of CPU during a cut of {cut:?}\n{}",
        logged.join("\n")
    );

    // Carries on without a restart: the object deleted during the cut comes back (its
    // watch's relist misses it), a resource created now is installed, an object deleted now
    // comes back too.
    wait_for(
        "the Service deleted during the cut to come back",
        DEADLINE,
        || exists(&setup, "service", "before-hello-world").then_some(()),
        || run.logs(),
    );
    apply_cr(&setup, "after", json!({}));
    wait_deployed(&setup, &run, "after");
    setup.kubectl_ok(&[
        "delete",
        "-n",
        NAMESPACE,
        "deployment",
        "before-hello-world",
    ]);
    wait_for(
        "the deleted Deployment to come back",
        DEADLINE,
        || exists(&setup, "deployment", "before-hello-world").then_some(()),
        || run.logs(),
    );
    assert!(run.stderr().contains("works again after"), "{}", run.logs());
    run.assert_running();
}

#[test]
fn throttling_and_server_errors_are_retried_with_backoff() {
    let (setup, run) = start();
    // The first writes of the release Secret are throttled, then fail with 503 and 500.
    setup.server.fail_requests(
        RequestFault::new(
            429,
            "TooManyRequests",
            "the server has received too many requests",
        )
        .retry_after(1)
        .verb("create")
        .resource("secrets")
        .times(2),
    );
    setup.server.fail_requests(
        RequestFault::new(
            503,
            "ServiceUnavailable",
            "the server is currently unable to handle the request",
        )
        .verb("create")
        .resource("secrets")
        .times(1),
    );
    setup.server.fail_requests(
        RequestFault::new(
            500,
            "InternalError",
            "Internal error occurred: etcdserver: leader changed",
        )
        .verb("create")
        .resource("secrets")
        .times(1),
    );
    apply_cr(&setup, "busy", json!({}));
    wait_deployed(&setup, &run, "busy");
    // Every fault was used up: each failed request was asked again.
    assert!(
        requests(&setup, "POST", "/secrets") >= 5,
        "{:#?}",
        setup.server.requests()
    );
    assert!(
        run.stderr().contains("Reconcile failed (1 in a row"),
        "{}",
        run.logs()
    );
    assert!(exists(&setup, "deployment", "busy-hello-world"));
}

#[test]
fn expired_watches_list_again_and_carry_on() {
    let (setup, run) = start();
    apply_cr(&setup, "expiring", json!({}));
    wait_deployed(&setup, &run, "expiring");
    let watches = 1 + dependent_watches(&run);
    setup.server.expire_watches();
    // Every watch lists again (410 on resuming from its resourceVersion too) and goes on.
    wait_for(
        "every watch to list again",
        DEADLINE,
        || (run.stderr().matches("works again after").count() >= watches).then_some(()),
        || run.logs(),
    );
    setup.kubectl_ok(&["delete", "-n", NAMESPACE, "service", "expiring-hello-world"]);
    wait_for(
        "the deleted Service to come back",
        DEADLINE,
        || exists(&setup, "service", "expiring-hello-world").then_some(()),
        || run.logs(),
    );
    // And so is a change of the resource: the primary watch listed again too.
    setup.kubectl_ok(&[
        "patch",
        "-n",
        NAMESPACE,
        "helloworld",
        "expiring",
        "--type=merge",
        "-p",
        r#"{"spec":{"replicaCount":3}}"#,
    ]);
    wait_for(
        "the upgrade to 3 replicas",
        DEADLINE,
        || {
            let deployment = setup.server.object(
                "apps",
                "deployments",
                Some(NAMESPACE),
                "expiring-hello-world",
            )?;
            (deployment["spec"]["replicas"] == 3).then_some(())
        },
        || run.logs(),
    );
    run.assert_running();
}

#[test]
fn a_not_found_with_a_reason_of_its_own_is_still_not_found() {
    let (setup, run) = start();
    setup.server.answer_not_found_with("Object Not Found");
    apply_cr(&setup, "emulated", json!({}));
    wait_deployed(&setup, &run, "emulated");
    assert!(exists(&setup, "deployment", "emulated-hello-world"));
}

/// A refusal that will not change is in the status with the server's words, and the
/// request is not asked again and again.
fn a_lasting_refusal_is_reported_once(refuse: impl Fn(&ProjectOnServer), words: &str) {
    let (setup, run) = start();
    refuse(&setup);
    apply_cr(&setup, "refused", json!({}));
    let failed = wait_for(
        "status ReleaseFailed",
        DEADLINE,
        || {
            run.assert_running();
            let cr = kubectl_cr(&setup, "refused")?;
            condition(&cr, "ReleaseFailed").cloned()
        },
        || run.logs(),
    );
    let message = failed["message"].as_str().unwrap_or_default();
    assert!(message.contains(words), "{failed:#}");
    let attempts = || requests(&setup, "PATCH", "/deployments/refused-hello-world");
    let first = attempts();
    assert!(first >= 1, "{:#?}", setup.server.requests());
    // A hot loop would ask dozens of times meanwhile; a retry of what will not change waits
    // minutes.
    std::thread::sleep(Duration::from_secs(8));
    assert_eq!(attempts(), first, "{}", run.logs());
    assert!(
        run.stderr().contains("will not change until someone acts"),
        "{}",
        run.logs()
    );
    run.assert_running();
}

#[test]
fn an_invalid_answer_is_reported_in_the_status_and_not_retried_in_a_loop() {
    a_lasting_refusal_is_reported_once(
        |setup| {
            setup.server.fail_requests(
                RequestFault::new(
                    422,
                    "Invalid",
                    "Deployment.apps \"refused-hello-world\" is invalid: spec.template.spec.containers[0].image: Required value",
                )
                .verb("patch")
                .resource("deployments"),
            )
        },
        "spec.template.spec.containers[0].image: Required value",
    );
}

#[test]
fn a_forbidden_answer_is_reported_in_the_status_and_not_retried_in_a_loop() {
    a_lasting_refusal_is_reported_once(
        |setup| setup.server.refuse("patch", "deployments", Some(NAMESPACE)),
        "cannot patch resource \"deployments\"",
    );
}

/// The statuses of the stored revisions of release `name`, oldest first.
fn revisions(setup: &ProjectOnServer, name: &str) -> Vec<String> {
    let mut found: Vec<(i64, String)> = setup
        .server
        .objects("", "secrets")
        .into_iter()
        .filter(|s| s["type"] == "helm.sh/release.v1" && s["metadata"]["labels"]["name"] == name)
        .map(|s| {
            let labels = &s["metadata"]["labels"];
            (
                labels["version"]
                    .as_str()
                    .unwrap_or("0")
                    .parse()
                    .unwrap_or(0),
                labels["status"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    found.sort();
    found.into_iter().map(|(_, status)| status).collect()
}

fn replicas(setup: &ProjectOnServer, name: &str) -> Option<Value> {
    setup
        .server
        .object(
            "apps",
            "deployments",
            Some(NAMESPACE),
            &format!("{name}-hello-world"),
        )
        .map(|d| d["spec"]["replicas"].clone())
}

/// Kills the runtime with SIGKILL while it applies the release's Deployment (held by the
/// server), once the revision is stored as `pending`.
fn kill_while_applying(setup: &ProjectOnServer, run: Running, name: &str, pending: &str) {
    wait_for(
        &format!("a {pending} revision and its Deployment's apply held"),
        DEADLINE,
        || {
            run.assert_running();
            (revisions(setup, name).last().map(String::as_str) == Some(pending)
                && setup.server.held_requests() > 0)
                .then_some(())
        },
        || run.logs(),
    );
    run.signal("KILL");
    run.wait_exit(DEADLINE);
    setup.server.clear_request_faults();
}

#[test]
fn killed_mid_install_and_mid_upgrade_it_ends_deployed_with_the_latest_values() {
    let (setup, run) = start();
    let hold = || {
        setup.server.fail_requests(
            RequestFault::new(500, "InternalError", "held by the test")
                .verb("patch")
                .resource("deployments")
                .hang(),
        )
    };
    hold();
    apply_cr(&setup, "crash", json!({"replicaCount": 2}));
    kill_while_applying(&setup, run, "crash", "pending-install");
    let run = setup.run(
        &["--health-probe-bind-address=0", "--reconcile-period=0"],
        &[],
    );
    wait_deployed(&setup, &run, "crash");
    wait_for(
        "2 replicas",
        DEADLINE,
        || (replicas(&setup, "crash")? == 2).then_some(()),
        || run.logs(),
    );

    hold();
    setup.kubectl_ok(&[
        "patch",
        "-n",
        NAMESPACE,
        "helloworld",
        "crash",
        "--type=merge",
        "-p",
        r#"{"spec":{"replicaCount":3}}"#,
    ]);
    kill_while_applying(&setup, run, "crash", "pending-upgrade");
    // Changed again while no runtime runs: the latest values win.
    setup.kubectl_ok(&[
        "patch",
        "-n",
        NAMESPACE,
        "helloworld",
        "crash",
        "--type=merge",
        "-p",
        r#"{"spec":{"replicaCount":4}}"#,
    ]);
    let run = setup.run(
        &["--health-probe-bind-address=0", "--reconcile-period=0"],
        &[],
    );
    wait_for(
        "4 replicas, deployed",
        DEADLINE,
        || {
            run.assert_running();
            (replicas(&setup, "crash")? == 4
                && revisions(&setup, "crash").last().map(String::as_str) == Some("deployed"))
            .then_some(())
        },
        || run.logs(),
    );
    let statuses = revisions(&setup, "crash");
    assert!(
        !statuses.iter().any(|s| s.starts_with("pending")),
        "{statuses:?}\n{}",
        run.logs()
    );
    let cr = wait_deployed(&setup, &run, "crash");
    assert!(condition(&cr, "ReleaseFailed").is_none(), "{cr:#}");
}

#[test]
fn a_release_over_the_secret_limit_fails_before_anything_is_applied() {
    let setup = ProjectOnServer::start("hello-world", &[]);
    // Incompressible bytes in the chart, which the stored release carries: over 1 MiB once
    // gzipped and base64-encoded, as Helm stores it.
    let mut noise = vec![0u8; 1536 * 1024];
    let mut state = 0x2545_f491_4f6c_dd1du64;
    for byte in &mut noise {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        *byte = state as u8;
    }
    let chart = setup.project.join("helm-charts/hello-world");
    std::fs::create_dir_all(chart.join("files")).unwrap();
    std::fs::write(chart.join("files/noise.bin"), &noise).unwrap();
    let run = setup.run(
        &["--health-probe-bind-address=0", "--reconcile-period=0"],
        &[],
    );
    wait_for(
        "the runtime to watch HelloWorld",
        DEADLINE,
        || {
            run.assert_running();
            run.stderr().contains("Watching resource").then_some(())
        },
        || run.logs(),
    );
    apply_cr(&setup, "huge", json!({}));
    let failed = wait_for(
        "status ReleaseFailed",
        DEADLINE,
        || {
            run.assert_running();
            let cr = kubectl_cr(&setup, "huge")?;
            condition(&cr, "ReleaseFailed").cloned()
        },
        || run.logs(),
    );
    let message = failed["message"].as_str().unwrap_or_default();
    for words in [
        "over Kubernetes' limit of 1048576 bytes",
        "MiB",
        "nothing was applied",
        "move large files out of the chart",
    ] {
        assert!(message.contains(words), "{words}: {failed:#}");
    }
    assert!(revisions(&setup, "huge").is_empty());
    assert!(!exists(&setup, "deployment", "huge-hello-world"));
    assert!(!exists(&setup, "service", "huge-hello-world"));
}
