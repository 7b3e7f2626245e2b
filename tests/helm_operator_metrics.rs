//! The Helm operator runtime's `/metrics`, scraped while it reconciles: a Helm project made by
//! the real `operator-rs new --type=helm` from the shared hello-world chart, `operator-rs run`
//! in it as a real process against the Kubernetes API test server, custom resources created
//! with the real `kubectl`, and the counters read back as Prometheus reads them.
//!
//! Waits poll with generous deadlines, which bound a failure and measure nothing; counts are
//! compared with each other and with what happened, never with the clock.

mod support;

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::process::Command;
use std::time::Duration;

use support::operator::wait_for;
use support::project_on_server::{NAMESPACE, ProjectOnServer};

const GROUP: &str = "charts.example.com";
const PLURAL: &str = "helloworlds";
const CONTROLLER: &str = "helloworld-controller";
/// The Lease `run` elects with when no --leader-election-id is given: the project's name.
const LEASE: &str = "hello-world-operator";
const DEADLINE: Duration = Duration::from_secs(60);

/// The hello-world project on the test server, with this test's helpers.
type Setup = ProjectOnServer;

impl Setup {
    fn new() -> Setup {
        ProjectOnServer::start("hello-world", &[])
    }

    /// A HelloWorld named `name`, with `annotations` (a JSON object).
    fn create_cr(&self, name: &str, annotations: &str) {
        self.apply_file(
            &format!("{name}.json"),
            &format!(
                r#"{{"apiVersion":"{GROUP}/v1alpha1","kind":"HelloWorld","metadata":{{"name":"{name}","namespace":"{NAMESPACE}","annotations":{annotations}}},"spec":{{}}}}"#
            ),
            &["--server-side"],
        );
    }

    fn condition(&self, name: &str, type_: &str) -> Option<serde_json::Value> {
        let cr = self.server.object(GROUP, PLURAL, Some(NAMESPACE), name)?;
        cr["status"]["conditions"]
            .as_array()?
            .iter()
            .find(|c| c["type"] == type_)
            .cloned()
    }
}

/// The status line, the headers (lower-cased names) and the body of `GET path`.
fn get(address: &str, path: &str) -> (String, BTreeMap<String, String>, String) {
    let mut stream = std::net::TcpStream::connect(address).unwrap();
    stream
        .write_all(format!("GET {path} HTTP/1.1\r\nHost: {address}\r\n\r\n").as_bytes())
        .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap();
    let mut lines = head.lines();
    let status = lines.next().unwrap().to_string();
    let headers = lines
        .filter_map(|l| l.split_once(": "))
        .map(|(k, v)| (k.to_ascii_lowercase(), v.to_string()))
        .collect();
    (status, headers, body.to_string())
}

/// A scrape: every sample by its series (`name{labels}`), checked line by line against the
/// text format's grammar on the way.
struct Scrape {
    samples: BTreeMap<String, f64>,
    types: BTreeMap<String, String>,
}

impl Scrape {
    fn parse(text: &str) -> Scrape {
        let mut samples = BTreeMap::new();
        let mut types = BTreeMap::new();
        for line in text.lines() {
            if let Some(rest) = line.strip_prefix("# TYPE ") {
                let (name, kind) = rest.split_once(' ').unwrap();
                assert!(
                    types.insert(name.to_string(), kind.to_string()).is_none(),
                    "family {name} twice"
                );
                continue;
            }
            if line.starts_with("# HELP ") {
                continue;
            }
            let (series, value) = line.rsplit_once(' ').unwrap_or_else(|| panic!("{line:?}"));
            let value: f64 = match value {
                "+Inf" => f64::INFINITY,
                "-Inf" => f64::NEG_INFINITY,
                v => v.parse().unwrap_or_else(|_| panic!("value of {line:?}")),
            };
            let name = series.split('{').next().unwrap();
            assert!(
                name.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':'),
                "{line:?}"
            );
            assert!(
                samples.insert(series.to_string(), value).is_none(),
                "series {series} twice"
            );
        }
        Scrape { samples, types }
    }

    fn get(&self, series: &str) -> f64 {
        *self
            .samples
            .get(series)
            .unwrap_or_else(|| panic!("no series {series} in {:#?}", self.samples.keys()))
    }

    fn controller(&self, family: &str) -> f64 {
        self.get(&format!("{family}{{controller=\"{CONTROLLER}\"}}"))
    }

    fn reconciles(&self, result: &str) -> f64 {
        self.get(&format!(
            "controller_runtime_reconcile_total{{controller=\"{CONTROLLER}\",result=\"{result}\"}}"
        ))
    }

    fn all_reconciles(&self) -> f64 {
        ["success", "error", "requeue", "requeue_after"]
            .iter()
            .map(|r| self.reconciles(r))
            .sum()
    }

    /// The reconcile-time histogram is consistent: cumulative buckets that end at the count.
    fn check_histogram(&self) {
        let prefix = format!(
            "controller_runtime_reconcile_time_seconds_bucket{{controller=\"{CONTROLLER}\",le=\""
        );
        let buckets: Vec<(f64, f64)> = self
            .samples
            .iter()
            .filter_map(|(series, value)| {
                let le = series.strip_prefix(&prefix)?.strip_suffix("\"}")?;
                let le = if le == "+Inf" {
                    f64::INFINITY
                } else {
                    le.parse().unwrap()
                };
                Some((le, *value))
            })
            .collect();
        let mut sorted = buckets.clone();
        sorted.sort_by(|a, b| a.0.total_cmp(&b.0));
        // controller-runtime's 40 bounds, from 5 ms to a minute, and +Inf.
        assert_eq!(sorted.len(), 41, "{sorted:?}");
        assert_eq!(sorted[0].0, 0.005);
        assert_eq!(sorted[39].0, 60.0);
        assert!(sorted.windows(2).all(|w| w[0].1 <= w[1].1), "{sorted:?}");
        let count = self.controller("controller_runtime_reconcile_time_seconds_count");
        assert_eq!(sorted[40].1, count);
        assert!(self.controller("controller_runtime_reconcile_time_seconds_sum") >= 0.0);
    }
}

#[test]
fn metrics_count_the_reconciles_and_the_leadership() {
    let setup = Setup::new();
    let run = setup.run(
        &[
            "--health-probe-bind-address=0",
            "--metrics-bind-address=127.0.0.1:0",
            "--reconcile-period=0",
            "--max-concurrent-reconciles=2",
            "--leader-elect",
        ],
        &[],
    );
    let logs = || run.logs();
    let address = wait_for(
        "the metrics address",
        DEADLINE,
        || {
            run.assert_running();
            run.printed_address("/metrics")
        },
        logs,
    );
    wait_for(
        "the runtime to lead and watch HelloWorld",
        DEADLINE,
        || {
            let stderr = run.stderr();
            (stderr.contains("Became the leader") && stderr.contains("Watching resource"))
                .then_some(())
        },
        logs,
    );
    let scrape = || {
        let (status, headers, body) = get(&address, "/metrics");
        assert_eq!(status, "HTTP/1.1 200 OK", "{body}");
        assert_eq!(
            headers["content-type"],
            "text/plain; version=0.0.4; charset=utf-8"
        );
        Scrape::parse(&body)
    };

    // Before any resource: the helm-operator's families, its controller's at zero.
    let first = scrape();
    assert_eq!(
        first.get(&format!(
            "leader_election_master_status{{name=\"{LEASE}\"}}"
        )),
        1.0
    );
    assert_eq!(
        first.controller("controller_runtime_max_concurrent_reconciles"),
        2.0
    );
    assert_eq!(first.all_reconciles(), 0.0);
    assert_eq!(
        first.controller("controller_runtime_reconcile_errors_total"),
        0.0
    );
    assert_eq!(
        first.controller("controller_runtime_terminal_reconcile_errors_total"),
        0.0
    );
    first.check_histogram();
    for (family, kind) in [
        ("controller_runtime_reconcile_total", "counter"),
        ("controller_runtime_reconcile_time_seconds", "histogram"),
        ("controller_runtime_active_workers", "gauge"),
        ("helm_operator_build_info", "gauge"),
        ("process_cpu_seconds_total", "counter"),
        ("process_resident_memory_bytes", "gauge"),
        ("process_virtual_memory_bytes", "gauge"),
        ("process_open_fds", "gauge"),
        ("process_max_fds", "gauge"),
        ("process_start_time_seconds", "gauge"),
    ] {
        assert_eq!(
            first.types.get(family).map(String::as_str),
            Some(kind),
            "{family}"
        );
    }
    assert!(first.get("process_resident_memory_bytes") > 1e6);
    assert!(first.get("process_open_fds") >= 3.0);
    assert!(first.get("process_max_fds") >= first.get("process_open_fds"));
    // Nothing this runtime cannot honestly fill in.
    for absent in ["workqueue_", "go_", "rest_client_"] {
        assert!(
            !first.types.keys().any(|f| f.starts_with(absent)),
            "{absent}: {:?}",
            first.types.keys()
        );
    }
    let (status, _, _) = get(&address, "/healthz");
    assert!(status.starts_with("HTTP/1.1 404"), "{status}");

    // Two resources reconciled once (no period): successes. One with a period of its own is
    // queued again after each reconcile: requeue_after.
    setup.create_cr("first", "{}");
    setup.create_cr("second", "{}");
    setup.create_cr(
        "periodic",
        r#"{"helm.sdk.operatorframework.io/reconcile-period":"1s"}"#,
    );
    for name in ["first", "second", "periodic"] {
        wait_for(
            &format!("{name} Deployed"),
            DEADLINE,
            || {
                setup
                    .condition(name, "Deployed")
                    .filter(|c| c["status"] == "True")
            },
            logs,
        );
    }
    let after = wait_for(
        "successes of both and a requeue of the periodic one",
        DEADLINE,
        || {
            let s = scrape();
            (s.reconciles("success") >= 2.0 && s.reconciles("requeue_after") >= 2.0).then_some(s)
        },
        logs,
    );
    after.check_histogram();
    assert_eq!(
        after.controller("controller_runtime_reconcile_time_seconds_count"),
        after.all_reconciles()
    );
    assert_eq!(
        after.controller("controller_runtime_reconcile_errors_total"),
        after.reconciles("error")
    );
    let active = after.controller("controller_runtime_active_workers");
    assert!((0.0..=2.0).contains(&active), "{active}");
    assert!(after.get("process_cpu_seconds_total") >= first.get("process_cpu_seconds_total"));

    // A release the API refuses: its reconcile fails, is counted as an error, and retried.
    setup.server.refuse("patch", "services", Some(NAMESPACE));
    let errors_before = after.reconciles("error");
    setup.create_cr("refused", "{}");
    let failed = wait_for(
        "a failed reconcile",
        DEADLINE,
        || {
            let s = scrape();
            (s.reconciles("error") > errors_before).then_some(s)
        },
        logs,
    );
    failed.check_histogram();
    assert_eq!(
        failed.controller("controller_runtime_reconcile_errors_total"),
        failed.reconciles("error")
    );
    assert_eq!(
        failed.controller("controller_runtime_reconcile_time_seconds_count"),
        failed.all_reconciles()
    );
    assert_eq!(
        failed.controller("controller_runtime_terminal_reconcile_errors_total"),
        0.0
    );
    assert!(failed.reconciles("success") >= after.reconciles("success"));

    run.signal("TERM");
    let status = run.wait_exit(DEADLINE);
    assert!(status.success(), "{status}\n{}", run.logs());
}

#[test]
fn unsupported_metrics_security_is_refused_before_anything_runs() {
    let home = tempfile::tempdir().unwrap();
    let runtime = |args: &[&str]| {
        Command::new(assert_cmd::cargo::cargo_bin("operator-rs"))
            .current_dir(home.path())
            .arg("helm-operator-runtime")
            .args(args)
            .env_clear()
            .env("HOME", home.path())
            .output()
            .unwrap()
    };
    // The helm-operator's HTTPS and RBAC protection of /metrics: refused by name, before
    // anything runs, instead of serving plain HTTP to anyone.
    for (args, fragment) in [
        (&["--metrics-secure"][..], "--metrics-secure: "),
        (&["--metrics-secure=true"][..], "plain HTTP only"),
        (
            &["--metrics-secure", "--metrics-require-rbac"][..],
            "--metrics-require-rbac: ",
        ),
        (
            &["--metrics-bind-address=nowhere"][..],
            "--metrics-bind-address",
        ),
        (&["--metrics-secure=maybe"][..], "not a boolean"),
    ] {
        let output = runtime(args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(fragment), "{args:?}: {stderr}");
    }
    // Their defaults, spelled out, are fine: it goes on to look for watches.yaml.
    let output = runtime(&["--metrics-secure=false", "--metrics-require-rbac=false"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("watches.yaml"), "{stderr}");
}
