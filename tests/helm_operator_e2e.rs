//! The Helm operator runtime, seen reconciling: a Helm project made by the real
//! `operator-rs new --type=helm` from the shared hello-world chart, and `operator-rs run` in it
//! as a real process against the Kubernetes API test server. The real `kubectl` drives a custom
//! resource through create, update, drift and delete, and the runtime is stopped with SIGTERM.
//!
//! Waits poll with generous deadlines, which bound a failure and measure nothing.

mod support;

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::Value;
use support::helm_oracle::{HelmOracle, HelmReleases};
use support::kube_server::KubeServer;
use support::operator::{Running, wait_for};

const NAMESPACE: &str = "demo";
const GROUP: &str = "charts.example.com";
const PLURAL: &str = "helloworlds";
const CR: &str = "hello-world-sample";
/// Bounds every wait: a few requests to a server on this machine and one chart render.
const DEADLINE: Duration = Duration::from_secs(60);

struct Setup {
    server: KubeServer,
    home: tempfile::TempDir,
    _work: tempfile::TempDir,
    project: PathBuf,
}

impl Setup {
    fn new() -> Setup {
        let server = KubeServer::start();
        let work = tempfile::tempdir().unwrap();
        let home = tempfile::tempdir().unwrap();
        let project = support::build_projects::generated_helm_project(work.path());
        let setup = Setup {
            server,
            home,
            _work: work,
            project,
        };
        // kubectl create sends a protobuf Namespace, which the test server does not decode;
        // apply sends JSON.
        let namespace = setup.home.path().join("namespace.json");
        let object = format!(
            r#"{{"apiVersion":"v1","kind":"Namespace","metadata":{{"name":"{NAMESPACE}"}}}}"#
        );
        std::fs::write(&namespace, object).unwrap();
        setup.kubectl_ok(&["apply", "--server-side", "-f", namespace.to_str().unwrap()]);
        setup
    }

    fn kubectl(&self, args: &[&str]) -> std::process::Output {
        self.server
            .kubectl(&self.home.path().join("kubectl-cache"))
            .args(args)
            .current_dir(&self.project)
            .output()
            .unwrap()
    }

    fn kubectl_ok(&self, args: &[&str]) -> String {
        let output = self.kubectl(args);
        assert!(
            output.status.success(),
            "kubectl {args:?} failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    /// `operator-rs run` in the project against the test server.
    fn run(&self, runtime_args: &[&str]) -> Running {
        self.run_with_env(runtime_args, &[])
    }

    fn run_with_env(&self, runtime_args: &[&str], env: &[(&str, &str)]) -> Running {
        let mut command = Command::new(assert_cmd::cargo::cargo_bin("operator-rs"));
        command
            .current_dir(&self.project)
            .args(["run", "-n", NAMESPACE, "--kubeconfig"])
            .arg(self.server.kubeconfig())
            .arg("--")
            .args(runtime_args)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.home.path())
            .env("NO_COLOR", "1")
            .envs(env.iter().copied());
        Running::spawn("operator-rs run", &mut command)
    }

    fn object(&self, group: &str, plural: &str, name: &str) -> Option<Value> {
        self.server.object(group, plural, Some(NAMESPACE), name)
    }

    fn custom_resource(&self) -> Option<Value> {
        self.object(GROUP, PLURAL, CR)
    }

    fn release_secret(&self, revision: u32) -> Option<Value> {
        self.object(
            "",
            "secrets",
            &format!("sh.helm.release.v1.{CR}.v{revision}"),
        )
    }

    fn releases(&self) -> Vec<Value> {
        self.server
            .objects("", "secrets")
            .into_iter()
            .filter(|s| s["type"] == "helm.sh/release.v1")
            .collect()
    }
}

fn condition<'a>(object: &'a Value, type_: &str) -> Option<&'a Value> {
    object["status"]["conditions"]
        .as_array()?
        .iter()
        .find(|c| c["type"] == type_)
}

/// The address the runtime printed for its probes.
fn probe_address(run: &Running) -> Option<String> {
    let stdout = run.stdout();
    let line = stdout.lines().find(|l| l.contains("/healthz"))?;
    let address = line.split("http://").nth(1)?.split('/').next()?;
    Some(address.to_string())
}

fn get(address: &str, path: &str) -> String {
    let mut stream = std::net::TcpStream::connect(address).unwrap();
    stream
        .write_all(format!("GET {path} HTTP/1.1\r\nHost: {address}\r\n\r\n").as_bytes())
        .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    response
}

/// Waits until the custom resource's status says Deployed, and returns it.
fn wait_deployed(setup: &Setup, logs: impl Fn() -> String) -> Value {
    wait_for(
        "status Deployed",
        DEADLINE,
        || {
            setup
                .custom_resource()
                .filter(|cr| condition(cr, "Deployed").is_some_and(|c| c["status"] == "True"))
        },
        logs,
    )
}

fn sample_cr(project: &Path) -> PathBuf {
    project.join("deploy/crds/charts.example.com_v1alpha1_helloworld_cr.yaml")
}

#[test]
fn a_custom_resource_becomes_a_release_that_follows_it_and_goes_with_it() {
    let setup = Setup::new();
    // watches.yaml forces the image tag, from the runtime's environment.
    let watches = setup.project.join("watches.yaml");
    let text = std::fs::read_to_string(&watches).unwrap().replace(
        "  chart: helm-charts/hello-world\n",
        "  chart: helm-charts/hello-world\n  overrideValues:\n    image.tag: $IMAGE_TAG\n",
    );
    std::fs::write(&watches, text).unwrap();
    let run = setup.run_with_env(
        &[
            "--health-probe-bind-address=127.0.0.1:0",
            "--reconcile-period=0",
        ],
        &[("IMAGE_TAG", "1.27")],
    );
    let logs = || run.logs();

    // The CRD is applied by `run`, then the runtime watches its kind.
    wait_for(
        "the runtime to watch HelloWorld",
        DEADLINE,
        || {
            run.assert_running();
            run.stderr()
                .contains("Watching resource charts.example.com/v1alpha1 HelloWorld")
                .then_some(())
        },
        logs,
    );
    let probes = wait_for("the probe address", DEADLINE, || probe_address(&run), logs);
    assert!(get(&probes, "/healthz").starts_with("HTTP/1.1 200"));
    assert!(get(&probes, "/readyz").ends_with("ok"));

    // Create: revision 1, the chart's objects, status Deployed with the NOTES, the finalizer.
    let cr_file = sample_cr(&setup.project);
    setup.kubectl_ok(&["apply", "-n", NAMESPACE, "-f", cr_file.to_str().unwrap()]);
    let cr = wait_deployed(&setup, logs);
    let deployed = condition(&cr, "Deployed").unwrap();
    assert_eq!(deployed["reason"], "InstallSuccessful", "{cr:#}");
    assert!(
        deployed["message"]
            .as_str()
            .unwrap()
            .contains("Get the application URL"),
        "{cr:#}"
    );
    assert_eq!(
        condition(&cr, "Initialized").unwrap()["status"],
        "True",
        "{cr:#}"
    );
    assert_eq!(cr["status"]["deployedRelease"]["name"], CR, "{cr:#}");
    assert!(
        cr["status"]["deployedRelease"]["manifest"]
            .as_str()
            .unwrap()
            .contains("kind: Deployment"),
        "{cr:#}"
    );
    assert!(
        cr["metadata"]["finalizers"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f == "helm.sdk.operatorframework.io/uninstall-release"),
        "{cr:#}"
    );
    let secret = setup.release_secret(1).expect("release revision 1");
    assert_eq!(secret["metadata"]["labels"]["status"], "deployed");
    let deployment = setup
        .object("apps", "deployments", CR)
        .expect("the chart's Deployment");
    assert_eq!(deployment["spec"]["replicas"], 1);
    assert_eq!(
        deployment["spec"]["template"]["spec"]["containers"][0]["image"], "nginx:1.27",
        "{deployment:#}"
    );
    // Both Event APIs share one storage, as in the real API server.
    let warned = setup
        .server
        .objects("", "events")
        .into_iter()
        .find(|e| e["reason"] == "OverrideValuesInUse")
        .unwrap_or_else(|| panic!("no OverrideValuesInUse event\n{}", run.logs()));
    assert_eq!(warned["type"], "Warning", "{warned:#}");
    // The server keeps it in the core form (involvedObject, message), as etcd does.
    assert_eq!(warned["involvedObject"]["name"], CR, "{warned:#}");
    assert_eq!(
        warned["message"],
        r#"Chart value "image.tag" overridden to "1.27" by operator's watches.yaml"#,
        "{warned:#}"
    );
    assert_eq!(
        deployment["metadata"]["ownerReferences"][0]["kind"], "HelloWorld",
        "{deployment:#}"
    );
    assert!(setup.object("", "services", CR).is_some());
    assert!(setup.object("", "serviceaccounts", CR).is_some());

    // A spec change: revision 2 with the new values.
    setup.kubectl_ok(&[
        "patch",
        "-n",
        NAMESPACE,
        "helloworld",
        CR,
        "--type=merge",
        "-p",
        r#"{"spec":{"replicaCount":2}}"#,
    ]);
    wait_for(
        "revision 2 with two replicas",
        DEADLINE,
        || {
            let replicas = setup.object("apps", "deployments", CR)?["spec"]["replicas"].clone();
            (setup.release_secret(2).is_some() && replicas == 2).then_some(())
        },
        logs,
    );
    let cr = wait_for(
        "status UpgradeSuccessful",
        DEADLINE,
        || {
            setup.custom_resource().filter(|cr| {
                condition(cr, "Deployed").is_some_and(|c| c["reason"] == "UpgradeSuccessful")
            })
        },
        logs,
    );
    assert!(condition(&cr, "ReleaseFailed").is_none(), "{cr:#}");

    // Real Helm reads the release the runtime wrote: revision 2, the user's values.
    if let Some(mut oracle) = HelmOracle::start() {
        let mut helm = HelmReleases {
            oracle: &mut oracle,
            kubeconfig: setup.server.kubeconfig(),
            namespace: NAMESPACE.to_string(),
        };
        let listed = helm.list(false).expect("helm list");
        assert_eq!(listed[0]["name"], CR, "{listed}");
        assert_eq!(listed[0]["revision"], 2, "{listed}");
        assert_eq!(listed[0]["status"], "deployed", "{listed}");
        // The superseded revision 1 is gone after the next sync, as with the helm-operator.
        let history = helm.history(CR).expect("helm history");
        let last = history
            .as_array()
            .and_then(|h| h.last())
            .expect("a revision");
        assert_eq!(last["revision"], 2, "{history}");
        let values = helm.get_values(CR, false).expect("helm get values");
        assert_eq!(values["replicaCount"], 2, "{values}");
    }

    // Drift: replicas edited by hand are put back, without a new revision.
    // (A patch: the test server has no scale subresource.)
    let patched = setup.kubectl_ok(&[
        "patch",
        "-n",
        NAMESPACE,
        "deployment",
        CR,
        "--type=merge",
        "-p",
        r#"{"spec":{"replicas":5}}"#,
    ]);
    assert!(
        patched.contains("patched") && !patched.contains("no change"),
        "{patched}"
    );
    wait_for(
        "the replicas to be put back to 2",
        DEADLINE,
        || {
            let replicas = setup.object("apps", "deployments", CR)?["spec"]["replicas"].clone();
            (replicas == 2).then_some(())
        },
        logs,
    );

    // Drift: the Service deleted by hand comes back, without a new revision.
    setup.kubectl_ok(&["delete", "-n", NAMESPACE, "service", CR]);
    wait_for(
        "the Service to be put back",
        DEADLINE,
        || setup.object("", "services", CR),
        logs,
    );
    assert!(setup.release_secret(3).is_none(), "drift made a revision");

    // Delete: the release and its objects go, then the finalizer lets the resource go.
    setup.kubectl_ok(&["delete", "-n", NAMESPACE, "helloworld", CR, "--wait=false"]);
    wait_for(
        "the custom resource, its release and objects to be gone",
        DEADLINE,
        || {
            (setup.custom_resource().is_none()
                && setup.releases().is_empty()
                && setup.object("apps", "deployments", CR).is_none()
                && setup.object("", "services", CR).is_none()
                && setup.object("", "serviceaccounts", CR).is_none())
            .then_some(())
        },
        || format!("{}\nreleases: {:?}", logs(), setup.releases()),
    );

    run.assert_running();
    run.signal("TERM");
    let status = run.wait_exit(DEADLINE);
    assert!(status.success(), "{status}\n{}", run.logs());
    assert!(run.stderr().contains("SIGTERM"), "{}", run.logs());
}

#[test]
fn a_release_that_cannot_install_is_reported_and_retried_until_the_spec_is_fixed() {
    let setup = Setup::new();
    let run = setup.run(&["--health-probe-bind-address=0", "--reconcile-period=0"]);
    let logs = || run.logs();
    wait_for(
        "the runtime to watch HelloWorld",
        DEADLINE,
        || {
            run.assert_running();
            run.stderr().contains("Watching resource").then_some(())
        },
        logs,
    );

    // `service` must be a map for the chart's templates: the render fails.
    let broken = setup.home.path().join("broken.json");
    let object = format!(
        r#"{{"apiVersion":"{GROUP}/v1alpha1","kind":"HelloWorld","metadata":{{"name":"{CR}","namespace":"{NAMESPACE}"}},"spec":{{"service":"oops"}}}}"#
    );
    std::fs::write(&broken, object).unwrap();
    setup.kubectl_ok(&["apply", "-f", broken.to_str().unwrap()]);
    let cr = wait_for(
        "status ReleaseFailed",
        DEADLINE,
        || {
            setup
                .custom_resource()
                .filter(|cr| condition(cr, "ReleaseFailed").is_some())
        },
        logs,
    );
    let failed = condition(&cr, "ReleaseFailed").unwrap();
    assert_eq!(failed["status"], "True", "{cr:#}");
    assert_eq!(failed["reason"], "InstallError", "{cr:#}");
    assert!(
        failed["message"].as_str().unwrap().contains("hello-world"),
        "{cr:#}"
    );
    assert!(condition(&cr, "Deployed").is_none(), "{cr:#}");
    // Nothing is left behind.
    assert!(setup.releases().is_empty(), "{:?}", setup.releases());
    assert!(setup.object("apps", "deployments", CR).is_none());

    // The spec fixed, the install succeeds and the failure is gone from the status.
    setup.kubectl_ok(&[
        "patch",
        "-n",
        NAMESPACE,
        "helloworld",
        CR,
        "--type=merge",
        "-p",
        r#"{"spec":{"service":{"type":"ClusterIP","port":80}}}"#,
    ]);
    let cr = wait_deployed(&setup, logs);
    assert!(condition(&cr, "ReleaseFailed").is_none(), "{cr:#}");
    assert!(setup.release_secret(1).is_some());

    run.signal("TERM");
    assert!(run.wait_exit(DEADLINE).success(), "{}", run.logs());
}

#[test]
fn a_leader_that_cannot_renew_its_lease_stops_at_once() {
    let setup = Setup::new();
    let run = setup.run(&[
        "--health-probe-bind-address=0",
        "--leader-elect",
        "--leader-election-id=hello-leader",
    ]);
    let logs = || run.logs();
    let holder = wait_for(
        "the runtime to hold the Lease",
        DEADLINE,
        || {
            run.assert_running();
            let lease = setup.object("coordination.k8s.io", "leases", "hello-leader")?;
            lease["spec"]["holderIdentity"].as_str().map(str::to_string)
        },
        logs,
    );
    wait_for(
        "the leader to reconcile",
        DEADLINE,
        || run.stderr().contains("Became the leader").then_some(()),
        logs,
    );
    let cr_file = sample_cr(&setup.project);
    setup.kubectl_ok(&["apply", "-n", NAMESPACE, "-f", cr_file.to_str().unwrap()]);
    wait_for(
        "the leader to install the release",
        DEADLINE,
        || setup.release_secret(1),
        logs,
    );

    // Cut off from the Lease, the leader stops before another replica could take over.
    setup.server.partition_lease(
        NAMESPACE,
        "hello-leader",
        &holder,
        support::kube_server::LeaseFault::Hang,
    );
    let status = run.wait_exit(DEADLINE);
    assert!(!status.success(), "the cut-off leader exited with {status}");
    assert!(run.stderr().contains("Lost leadership"), "{}", run.logs());
}

#[test]
fn uninstall_wait_keeps_the_resource_until_the_releases_objects_are_gone() {
    let setup = Setup::new();
    let run = setup.run(&["--health-probe-bind-address=0", "--reconcile-period=1s"]);
    let logs = || run.logs();
    let file = setup.home.path().join("waiting.json");
    let object = format!(
        r#"{{"apiVersion":"{GROUP}/v1alpha1","kind":"HelloWorld","metadata":{{"name":"{CR}","namespace":"{NAMESPACE}","annotations":{{"helm.sdk.operatorframework.io/uninstall-wait":"true"}}}},"spec":{{}}}}"#
    );
    std::fs::write(&file, object).unwrap();
    wait_for(
        "the runtime to watch HelloWorld",
        DEADLINE,
        || run.stderr().contains("Watching resource").then_some(()),
        logs,
    );
    setup.kubectl_ok(&["apply", "-f", file.to_str().unwrap()]);
    wait_for("the release", DEADLINE, || setup.release_secret(1), logs);
    // Something else holds the Deployment for a while.
    setup.kubectl_ok(&[
        "patch",
        "-n",
        NAMESPACE,
        "deployment",
        CR,
        "--type=merge",
        "-p",
        r#"{"metadata":{"finalizers":["example.com/hold"]}}"#,
    ]);
    setup.kubectl_ok(&["delete", "-n", NAMESPACE, "helloworld", CR, "--wait=false"]);
    let cr = wait_for(
        "the resource to wait for its objects",
        DEADLINE,
        || {
            setup.custom_resource().filter(|cr| {
                condition(cr, "Deployed").is_some_and(|c| {
                    c["status"] == "False"
                        && c["message"] == "Waiting until all resources are deleted."
                })
            })
        },
        logs,
    );
    assert_eq!(
        condition(&cr, "Deployed").unwrap()["reason"],
        "UninstallSuccessful"
    );
    assert!(setup.releases().is_empty(), "{:?}", setup.releases());
    assert!(setup.custom_resource().is_some());

    setup.kubectl_ok(&[
        "patch",
        "-n",
        NAMESPACE,
        "deployment",
        CR,
        "--type=merge",
        "-p",
        r#"{"metadata":{"finalizers":null}}"#,
    ]);
    wait_for(
        "the resource to go once its objects are gone",
        DEADLINE,
        || {
            (setup.custom_resource().is_none() && setup.object("apps", "deployments", CR).is_none())
                .then_some(())
        },
        logs,
    );
    run.signal("TERM");
    assert!(run.wait_exit(DEADLINE).success(), "{}", run.logs());
}

/// The figures of issue 14, printed as `FIGURE name value` lines, asserting nothing about
/// time: the runtime's idle RSS, its RSS with 100 releases of hello-world, the time from a
/// custom resource's creation to its Deployed status (median and p99, one resource at a time,
/// `kubectl apply` included), and the reconciles as the runtime's own
/// `controller_runtime_reconcile_time_seconds` histogram saw them (count, exact mean, and
/// median and p99 estimated within its buckets as Prometheus's `histogram_quantile` does).
/// `benches/helm_operator.sh` runs it with a release build; by hand:
/// `cargo test --release --test helm_operator_e2e -- --ignored --exact figures --nocapture`
#[test]
#[ignore = "a benchmark: run it by name"]
fn figures() {
    /// `name{labels} value` lines of a scrape of `/metrics`.
    fn scrape(address: &str) -> Vec<(String, f64)> {
        let response = get(address, "/metrics");
        let (_, body) = response.split_once("\r\n\r\n").unwrap();
        body.lines()
            .filter(|l| !l.starts_with('#'))
            .filter_map(|l| l.rsplit_once(' '))
            .map(|(series, value)| {
                let value = if value == "+Inf" {
                    f64::INFINITY
                } else {
                    value.parse().unwrap()
                };
                (series.to_string(), value)
            })
            .collect()
    }
    fn value(samples: &[(String, f64)], series: &str) -> f64 {
        samples
            .iter()
            .find(|(s, _)| s == series)
            .map_or(0.0, |(_, v)| *v)
    }
    /// The `q` quantile of the histogram's cumulative `(le, count)` buckets, interpolated
    /// linearly within the bucket it falls in (as `histogram_quantile`).
    fn quantile(buckets: &[(f64, f64)], q: f64) -> f64 {
        let total = buckets.last().map_or(0.0, |b| b.1);
        let rank = q * total;
        let mut lower = (0.0, 0.0);
        for &(le, count) in buckets {
            if count >= rank {
                if le.is_infinite() {
                    return lower.0;
                }
                let within = count - lower.1;
                let fraction = if within > 0.0 {
                    (rank - lower.1) / within
                } else {
                    1.0
                };
                return lower.0 + (le - lower.0) * fraction;
            }
            lower = (le, count);
        }
        lower.0
    }
    fn metrics_address(run: &Running) -> Option<String> {
        let stdout = run.stdout();
        let line = stdout.lines().find(|l| l.contains("/metrics"))?;
        Some(line.split("http://").nth(1)?.split('/').next()?.to_string())
    }

    let setup = Setup::new();
    let run = setup.run(&[
        "--health-probe-bind-address=0",
        "--metrics-bind-address=127.0.0.1:0",
        "--reconcile-period=0",
    ]);
    let logs = || run.logs();
    wait_for(
        "the runtime to watch HelloWorld",
        DEADLINE,
        || run.stderr().contains("Watching resource").then_some(()),
        logs,
    );
    let address = wait_for(
        "the metrics address",
        DEADLINE,
        || metrics_address(&run),
        logs,
    );
    std::thread::sleep(Duration::from_secs(2));
    let idle = rss_kib(run.pid());
    let idle_cpu = value(&scrape(&address), "process_cpu_seconds_total");
    let mut times = Vec::new();
    for i in 0..100 {
        let name = format!("bench-{i}");
        let file = setup.home.path().join(format!("{name}.json"));
        let object = format!(
            r#"{{"apiVersion":"{GROUP}/v1alpha1","kind":"HelloWorld","metadata":{{"name":"{name}","namespace":"{NAMESPACE}"}},"spec":{{}}}}"#
        );
        std::fs::write(&file, object).unwrap();
        let started = std::time::Instant::now();
        setup.kubectl_ok(&["apply", "-f", file.to_str().unwrap()]);
        wait_for(
            "status Deployed",
            DEADLINE,
            || {
                setup
                    .object(GROUP, PLURAL, &name)
                    .filter(|cr| condition(cr, "Deployed").is_some_and(|c| c["status"] == "True"))
            },
            logs,
        );
        times.push(started.elapsed());
    }
    std::thread::sleep(Duration::from_secs(2));
    let loaded = rss_kib(run.pid());
    let samples = scrape(&address);
    times.sort();
    let histogram = "controller_runtime_reconcile_time_seconds";
    let controller = "controller=\"helloworld-controller\"";
    let prefix = format!("{histogram}_bucket{{{controller},le=\"");
    let mut buckets: Vec<(f64, f64)> = samples
        .iter()
        .filter_map(|(series, count)| {
            let le = series.strip_prefix(&prefix)?.strip_suffix("\"}")?;
            let le = if le == "+Inf" {
                f64::INFINITY
            } else {
                le.parse().ok()?
            };
            Some((le, *count))
        })
        .collect();
    buckets.sort_by(|a, b| a.0.total_cmp(&b.0));
    let count = value(&samples, &format!("{histogram}_count{{{controller}}}"));
    let sum = value(&samples, &format!("{histogram}_sum{{{controller}}}"));
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let profile = if cfg!(debug_assertions) {
        "debug"
    } else {
        "release"
    };
    for (name, value) in [
        ("build_profile", profile.to_string()),
        ("idle_rss_kib", idle.to_string()),
        ("rss_100_crs_kib", loaded.to_string()),
        (
            "create_to_deployed_median_ms",
            format!("{:.1}", ms(times[times.len() / 2])),
        ),
        (
            "create_to_deployed_p99_ms",
            format!("{:.1}", ms(times[times.len() * 99 / 100])),
        ),
        ("reconciles_100_crs", count.to_string()),
        (
            "reconcile_time_mean_ms",
            format!("{:.1}", sum / count.max(1.0) * 1000.0),
        ),
        // Every reconcile of a resource (its install, then the one its status write causes).
        (
            "reconcile_time_per_cr_ms",
            format!("{:.1}", sum / 100.0 * 1000.0),
        ),
        (
            "reconcile_time_median_ms_histogram",
            format!("{:.1}", quantile(&buckets, 0.5) * 1000.0),
        ),
        (
            "reconcile_time_p99_ms_histogram",
            format!("{:.1}", quantile(&buckets, 0.99) * 1000.0),
        ),
        (
            "cpu_seconds_100_crs",
            format!(
                "{:.2}",
                value(&samples, "process_cpu_seconds_total") - idle_cpu
            ),
        ),
    ] {
        println!("FIGURE {name} {value}");
    }
    run.signal("TERM");
    assert!(run.wait_exit(DEADLINE).success(), "{}", run.logs());
}

/// VmRSS of `pid`, in KiB.
fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap()
}

/// The image's entrypoint, `operator-rs helm-operator-runtime`, as a real process outside any
/// project: the arguments of deploy/operator.yaml, WATCH_NAMESPACE, and a kubeconfig in place
/// of the pod's service account (whose namespace the context's stands in for). No CRD is
/// applied by it (`deploy` does that), so kubectl applies it first.
#[test]
fn the_image_entrypoint_reconciles_without_a_project() {
    let setup = Setup::new();
    let crd = setup
        .project
        .join("deploy/crds/charts.example.com_helloworlds_crd.yaml");
    setup.kubectl_ok(&["apply", "--server-side", "-f", crd.to_str().unwrap()]);
    setup.kubectl_ok(&[
        "wait",
        "--for=condition=Established",
        "--timeout=60s",
        "crd/helloworlds.charts.example.com",
    ]);
    // Charts resolve against the working directory, as in the helm-operator's image; here the
    // process runs elsewhere, so the project's watches.yaml names its chart absolutely.
    let watches = setup.project.join("watches.yaml");
    let chart = setup.project.join("helm-charts/hello-world");
    let text = std::fs::read_to_string(&watches).unwrap().replace(
        "  chart: helm-charts/hello-world\n",
        &format!("  chart: {}\n", chart.display()),
    );
    std::fs::write(&watches, text).unwrap();
    let kubeconfig = setup.home.path().join("pod-kubeconfig");
    let token = std::fs::read_to_string(setup.server.kubeconfig()).unwrap();
    let token = token
        .lines()
        .find_map(|l| l.trim().strip_prefix("token: "))
        .expect("the server's kubeconfig has a token")
        .to_string();
    setup
        .server
        .write_kubeconfig(&kubeconfig, &token, Some(NAMESPACE));
    let elsewhere = tempfile::tempdir().unwrap();

    let operator_yaml =
        std::fs::read_to_string(setup.project.join("deploy/operator.yaml")).unwrap();
    let mut command = Command::new(assert_cmd::cargo::cargo_bin("operator-rs"));
    command
        .current_dir(elsewhere.path())
        .arg("helm-operator-runtime")
        .arg("--watches-file")
        .arg(&watches)
        .args([
            // deploy/operator.yaml's arguments, the probe port aside (tests share the machine).
            "--leader-elect",
            "--leader-election-id=hello-world-operator",
            "--health-probe-bind-address=127.0.0.1:0",
            "--metrics-bind-address=:8080",
            "--reconcile-period=0",
        ])
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", setup.home.path())
        .env("NO_COLOR", "1")
        .env("KUBECONFIG", &kubeconfig)
        .env("WATCH_NAMESPACE", NAMESPACE);
    for argument in [
        "--leader-elect",
        "--leader-election-id=hello-world-operator",
        "--metrics-bind-address=:8080",
    ] {
        assert!(operator_yaml.contains(argument), "{operator_yaml}");
    }
    let run = Running::spawn("operator-rs helm-operator-runtime", &mut command);
    let logs = || run.logs();
    wait_for(
        "the runtime to lead and watch HelloWorld",
        DEADLINE,
        || {
            run.assert_running();
            let stderr = run.stderr();
            (stderr.contains("Became the leader")
                && stderr.contains("Watching resource charts.example.com/v1alpha1 HelloWorld"))
            .then_some(())
        },
        logs,
    );
    // The Lease is in the operator's own namespace (in a pod: its service account's).
    let lease = setup
        .object("coordination.k8s.io", "leases", "hello-world-operator")
        .expect("the Lease in the operator's namespace");
    assert!(lease["spec"]["holderIdentity"].is_string(), "{lease:#}");
    assert!(
        run.stdout().contains("watching namespace(s) demo"),
        "{}",
        run.logs()
    );
    assert!(
        run.stderr().contains("serves no metrics yet"),
        "{}",
        run.logs()
    );
    let probes = wait_for("the probe address", DEADLINE, || probe_address(&run), logs);
    assert!(get(&probes, "/readyz").ends_with("ok"));

    let cr_file = sample_cr(&setup.project);
    setup.kubectl_ok(&["apply", "-n", NAMESPACE, "-f", cr_file.to_str().unwrap()]);
    let cr = wait_deployed(&setup, logs);
    assert_eq!(
        condition(&cr, "Deployed").unwrap()["reason"],
        "InstallSuccessful",
        "{cr:#}"
    );
    let secret = setup.release_secret(1).expect("release revision 1");
    assert_eq!(secret["metadata"]["labels"]["status"], "deployed");
    assert!(setup.object("apps", "deployments", CR).is_some());
    // Nothing was written where it ran.
    assert_eq!(std::fs::read_dir(elsewhere.path()).unwrap().count(), 0);

    run.signal("TERM");
    let status = run.wait_exit(DEADLINE);
    assert!(status.success(), "{status}\n{}", run.logs());
}

#[test]
fn the_image_entrypoint_refuses_what_it_cannot_run_before_connecting() {
    let home = tempfile::tempdir().unwrap();
    for (args, env, fragment) in [
        (&["--leader-elect"][..], "", "--leader-election-id"),
        (&["--reconcile-period=5"][..], "", "missing unit"),
        (&[][..], "Not_A_Namespace", "DNS-1123"),
    ] {
        let output = Command::new(assert_cmd::cargo::cargo_bin("operator-rs"))
            .current_dir(home.path())
            .arg("helm-operator-runtime")
            .args(args)
            .env_clear()
            .env("HOME", home.path())
            .env("WATCH_NAMESPACE", env)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(fragment), "{args:?}: {stderr}");
    }
    // No watches file where it runs: named, before any cluster is looked for.
    let output = Command::new(assert_cmd::cargo::cargo_bin("operator-rs"))
        .current_dir(home.path())
        .arg("helm-operator-runtime")
        .env_clear()
        .env("HOME", home.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("watches.yaml"), "{stderr}");
    assert!(!stderr.contains("kubeconfig"), "{stderr}");
}
