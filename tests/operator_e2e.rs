//! The generated Rust operator, seen reconciling: a project made by the real `operator-rs new`
//! is built once per test run (in the shared generated-projects target directory), and its real
//! binary runs as a process against the Kubernetes API test server. The tests drive custom
//! resources through create, drift, update, a stuck rollout and delete, hand the leader
//! election Lease over when the leader is cut off, and stop the operator with SIGTERM; the real
//! `kubectl` reads every result back from the same server.
//!
//! Waits poll with generous deadlines, which bound a failure and measure nothing, except where
//! the operator promises a time (the lease duration, the grace period): there the deadline is
//! the promise.

mod support;

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::kube_server::{KubeServer, LeaseFault, Rollout};
use support::operator::{Running, generated_build_env, generated_target_dir, wait_for};

const NAME: &str = "memcached-e2e-operator";
const GROUP: &str = "cache.example.com";
const PLURAL: &str = "memcacheds";
const CRD: &str = "memcacheds.cache.example.com";
const NAMESPACE: &str = "demo";

/// Bounds every wait for the operator: a few requests to a server on this machine.
const DEADLINE: Duration = Duration::from_secs(60);
/// `terminationGracePeriodSeconds` of deploy/operator.yaml: SIGTERM must end it within this.
const GRACE_PERIOD: Duration = Duration::from_secs(10);

/// The generated operator's binary and CRD, built once for every test of this file.
struct Built {
    binary: PathBuf,
    crd: String,
    /// deploy/metrics_reader_role.yaml: the ClusterRole that lets a caller read /metrics.
    metrics_reader_role: String,
}

fn built() -> &'static Built {
    static BUILT: OnceLock<Built> = OnceLock::new();
    BUILT.get_or_init(|| {
        // Outside the repository, which is a cargo workspace the project is no member of; the
        // binary stays in the shared target directory when the project is gone.
        let parent = tempfile::tempdir().unwrap();
        let project = support::project::new_memcached_operator(parent.path(), NAME);
        let started = Instant::now();
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let output = Command::new(cargo)
            .args(["build", "--locked", "--bin", NAME])
            .current_dir(&project)
            .envs(generated_build_env())
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "cargo build of the generated operator failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        eprintln!("built the generated operator in {:?}", started.elapsed());
        let binary = generated_target_dir().join("debug").join(NAME);
        assert!(binary.is_file(), "{} is missing", binary.display());
        let crd = std::fs::read_to_string(
            project.join("deploy/crds/cache.example.com_memcacheds_crd.yaml"),
        )
        .unwrap();
        let metrics_reader_role =
            std::fs::read_to_string(project.join("deploy/metrics_reader_role.yaml")).unwrap();
        Built {
            binary,
            crd,
            metrics_reader_role,
        }
    })
}

/// A test server with the CRD applied and the namespace created, and a kubectl for it.
struct Cluster {
    server: KubeServer,
    kubectl_cache: tempfile::TempDir,
    home: tempfile::TempDir,
}

impl Cluster {
    fn start() -> Cluster {
        let cluster = Cluster {
            server: KubeServer::start(),
            kubectl_cache: tempfile::tempdir().unwrap(),
            home: tempfile::tempdir().unwrap(),
        };
        let crd = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(crd.path(), &built().crd).unwrap();
        cluster.kubectl(&["apply", "--server-side", "-f", crd.path().to_str().unwrap()]);
        cluster.kubectl(&["wait", "--for=condition=Established", &format!("crd/{CRD}")]);
        // kubectl create sends a protobuf Namespace, which the test server does not decode (it reads
        // protobuf Secrets, ConfigMaps and DeleteOptions only); apply sends JSON.
        let namespace = tempfile::NamedTempFile::new().unwrap();
        let object =
            json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}});
        std::fs::write(namespace.path(), object.to_string()).unwrap();
        cluster.kubectl(&[
            "apply",
            "--server-side",
            "-f",
            namespace.path().to_str().unwrap(),
        ]);
        cluster
    }

    /// The real kubectl against the server; must succeed; its output as text.
    fn kubectl(&self, args: &[&str]) -> String {
        let output = self
            .server
            .kubectl(self.kubectl_cache.path())
            .args(args)
            .output()
            .expect("kubectl runs");
        assert!(
            output.status.success(),
            "kubectl {args:?} failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    /// `kubectl get ... -o json` in the test namespace; `None` when it is not found.
    fn get(&self, resource: &str, name: &str) -> Option<Value> {
        let output = self
            .server
            .kubectl(self.kubectl_cache.path())
            .args(["get", "-n", NAMESPACE, resource, name, "-o", "json"])
            .output()
            .expect("kubectl runs");
        if !output.status.success() {
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert!(stderr.contains("NotFound"), "kubectl get failed: {stderr}");
            return None;
        }
        Some(serde_json::from_slice(&output.stdout).expect("kubectl prints JSON"))
    }

    /// `kubectl apply --server-side` of a custom resource of the sample's shape.
    fn apply_memcached(&self, name: &str, size: i64, image: &str) {
        let object = json!({
            "apiVersion": "cache.example.com/v1alpha1",
            "kind": "Memcached",
            "metadata": {"name": name, "namespace": NAMESPACE},
            "spec": {"size": size, "image": image},
        });
        let file = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(file.path(), object.to_string()).unwrap();
        self.kubectl(&[
            "apply",
            "--server-side",
            "--field-manager=e2e",
            "-f",
            file.path().to_str().unwrap(),
        ]);
    }

    /// The Deployment the custom resource `owner` controls, read from the server.
    fn child_of(&self, owner: &str) -> Option<Value> {
        self.server
            .objects("apps", "deployments")
            .into_iter()
            .filter(|d| d["metadata"]["namespace"] == NAMESPACE)
            .find(|d| {
                d["metadata"]["ownerReferences"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .any(|r| {
                        r["kind"] == "Memcached" && r["name"] == owner && r["controller"] == true
                    })
            })
    }

    fn memcached(&self, name: &str) -> Option<Value> {
        self.server.object(GROUP, PLURAL, Some(NAMESPACE), name)
    }

    /// Starts the operator binary against this server with `args`. Its metrics and probes
    /// listen on ports the system picks (port 0): a port a test found free and let go can be
    /// taken by a parallel test before the operator binds it. Metrics are plain HTTP
    /// (`--metrics-secure=false`, as for a local run) unless `args` say otherwise.
    fn operator(&self, label: &str, args: &[&str]) -> Running {
        let mut command = Command::new(&built().binary);
        if !args.iter().any(|a| a.starts_with("--metrics-secure")) {
            command.arg("--metrics-secure=false");
        }
        command
            .args(["--metrics-bind-address", "127.0.0.1:0"])
            .args(["--health-probe-bind-address", "127.0.0.1:0"])
            .args(args)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.home.path())
            .env("KUBECONFIG", self.server.kubeconfig())
            .env("WATCH_NAMESPACE", NAMESPACE)
            .env("POD_NAMESPACE", NAMESPACE)
            .env("RUST_LOG", "info")
            .env("NO_COLOR", "1");
        Running::spawn(label, &mut command)
    }
}

/// Where `operator` serves /metrics: the address it logs once bound.
fn metrics_address(operator: &Running) -> String {
    wait_for(
        "the operator to log where it serves /metrics",
        DEADLINE,
        || {
            operator.assert_running();
            operator.printed_address("/metrics")
        },
        || operator.logs(),
    )
}

/// The condition `type_` of an object's status.
fn condition<'a>(object: &'a Value, type_: &str) -> Option<&'a Value> {
    object["status"]["conditions"]
        .as_array()?
        .iter()
        .find(|c| c["type"] == type_)
}

/// True when `type_` has `status` at the object's current generation.
fn condition_is(object: &Value, type_: &str, status: &str) -> bool {
    condition(object, type_).is_some_and(|c| {
        c["status"] == status
            && c.get("observedGeneration")
                .is_none_or(|g| *g == object["metadata"]["generation"])
    })
}

/// What the operator's /metrics says: `(name, value)` for every sample line.
fn metrics(address: &str) -> Vec<(String, f64)> {
    let Ok(mut stream) = std::net::TcpStream::connect(address) else {
        return Vec::new();
    };
    let request = format!("GET /metrics HTTP/1.0\r\nHost: {address}\r\n\r\n");
    if stream.write_all(request.as_bytes()).is_err() {
        return Vec::new();
    }
    let mut text = String::new();
    let _ = stream.read_to_string(&mut text);
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| {
            let (name, value) = l.rsplit_once(' ')?;
            Some((name.to_string(), value.parse().ok()?))
        })
        .collect()
}

#[test]
fn a_custom_resource_is_reconciled_through_its_life() {
    let cluster = Cluster::start();
    let server = &cluster.server;
    server.set_rollout(Rollout::Manual);
    let operator = cluster.operator("operator", &[]);

    // Create: a Deployment owned by the custom resource, Progressing until it rolls out.
    cluster.apply_memcached("cache", 2, "memcached:1.6-alpine");
    let deployment = wait_for(
        "the Deployment of the custom resource",
        DEADLINE,
        || {
            operator.assert_running();
            cluster.child_of("cache")
        },
        || operator.logs(),
    );
    let child = deployment["metadata"]["name"].as_str().unwrap().to_string();
    let read = cluster.get("deployment", &child).unwrap();
    assert_eq!(read["spec"]["replicas"], 2, "{read}");
    assert_eq!(
        read["metadata"]["ownerReferences"][0]["kind"], "Memcached",
        "{read}"
    );
    wait_for(
        "Progressing=True while the rollout runs",
        DEADLINE,
        || {
            let cr = cluster.get("memcached", "cache")?;
            (condition_is(&cr, "Progressing", "True") && condition_is(&cr, "Ready", "False"))
                .then_some(())
        },
        || format!("{:?}\n{}", cluster.memcached("cache"), operator.logs()),
    );
    server.complete_rollout(NAMESPACE, &child);
    let ready = wait_for(
        "Ready=True once the rollout completed",
        DEADLINE,
        || {
            let cr = cluster.get("memcached", "cache")?;
            condition_is(&cr, "Ready", "True").then_some(cr)
        },
        || format!("{:?}\n{}", cluster.memcached("cache"), operator.logs()),
    );
    assert_eq!(
        ready["status"]["observedGeneration"], ready["metadata"]["generation"],
        "{ready}"
    );
    assert!(!condition_is(&ready, "Degraded", "True"), "{ready}");
    let events: Value = serde_json::from_str(&cluster.kubectl(&[
        "get",
        "events.v1.events.k8s.io",
        "-n",
        NAMESPACE,
        "-o",
        "json",
    ]))
    .unwrap();
    let about_cache: Vec<&Value> = events["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["regarding"]["kind"] == "Memcached" && e["regarding"]["name"] == "cache")
        .collect();
    assert!(
        !about_cache.is_empty(),
        "no events about the custom resource: {events}"
    );

    // Drift: scaled by hand, put back; deleted, recreated.
    cluster.kubectl(&[
        "patch",
        "deployment",
        &child,
        "-n",
        NAMESPACE,
        "--type=merge",
        "-p",
        r#"{"spec":{"replicas":5}}"#,
    ]);
    wait_for(
        "the hand-scaled Deployment to be put back to 2 replicas",
        DEADLINE,
        || {
            let d = cluster.get("deployment", &child)?;
            (d["spec"]["replicas"] == 2).then_some(())
        },
        || operator.logs(),
    );
    let uid = cluster.get("deployment", &child).unwrap()["metadata"]["uid"].clone();
    cluster.kubectl(&["delete", "deployment", &child, "-n", NAMESPACE]);
    wait_for(
        "the deleted Deployment to be recreated",
        DEADLINE,
        || {
            let d = cluster.get("deployment", &child)?;
            (d["metadata"]["uid"] != uid).then_some(())
        },
        || operator.logs(),
    );

    // Update: spec.size becomes the replicas; Ready again at the new generation.
    cluster.apply_memcached("cache", 3, "memcached:1.6-alpine");
    wait_for(
        "spec.size 3 to reach the Deployment",
        DEADLINE,
        || {
            let d = cluster.get("deployment", &child)?;
            (d["spec"]["replicas"] == 3).then_some(())
        },
        || operator.logs(),
    );
    server.complete_rollout(NAMESPACE, &child);
    wait_for(
        "Ready=True at generation 2",
        DEADLINE,
        || {
            let cr = cluster.get("memcached", "cache")?;
            (cr["metadata"]["generation"] == 2
                && cr["status"]["observedGeneration"] == 2
                && condition_is(&cr, "Ready", "True"))
            .then_some(())
        },
        || format!("{:?}\n{}", cluster.memcached("cache"), operator.logs()),
    );

    // A rollout that never completes: Degraded, with the Deployment's reason.
    server.set_rollout_for(NAMESPACE, &child, Rollout::DeadlineExceeded);
    cluster.apply_memcached("cache", 3, "memcached:1.6-does-not-exist");
    let degraded = wait_for(
        "Degraded=True for the stuck rollout",
        DEADLINE,
        || {
            let cr = cluster.get("memcached", "cache")?;
            condition_is(&cr, "Degraded", "True").then_some(cr)
        },
        || format!("{:?}\n{}", cluster.memcached("cache"), operator.logs()),
    );
    let reason = &condition(&degraded, "Degraded").unwrap()["reason"];
    assert_eq!(reason, "ProgressDeadlineExceeded", "{degraded}");
    assert!(condition_is(&degraded, "Ready", "False"), "{degraded}");

    // Delete: the custom resource goes (no finalizer holds it), its Deployment with it.
    cluster.kubectl(&[
        "delete",
        "memcached",
        "cache",
        "-n",
        NAMESPACE,
        "--wait=false",
    ]);
    wait_for(
        "the custom resource and its Deployment to be gone",
        DEADLINE,
        || {
            (cluster.get("memcached", "cache").is_none()
                && cluster.get("deployment", &child).is_none())
            .then_some(())
        },
        || format!("{:?}\n{}", cluster.memcached("cache"), operator.logs()),
    );

    // SIGTERM: a clean stop within the grace period.
    operator.assert_running();
    operator.signal("TERM");
    let status = operator.wait_exit(GRACE_PERIOD);
    assert!(status.success(), "{status}\n{}", operator.logs());
}

/// The value of the first metric whose name ends with `suffix` (labels stripped), summed over
/// its label sets.
fn metric(samples: &[(String, f64)], suffix: &str) -> Option<f64> {
    let matching: Vec<f64> = samples
        .iter()
        .filter(|(name, _)| name.split('{').next().is_some_and(|n| n.ends_with(suffix)))
        .map(|(_, v)| *v)
        .collect();
    (!matching.is_empty()).then(|| matching.iter().sum())
}

/// One replica of the operator with leader election, and where its metrics are served.
struct Replica {
    identity: &'static str,
    process: Running,
    metrics: String,
}

impl Replica {
    fn start(cluster: &Cluster, identity: &'static str) -> Replica {
        let process = cluster.operator(
            identity,
            &[
                "--leader-elect",
                "--leader-election-id=e2e-leader",
                "--leader-election-identity",
                identity,
            ],
        );
        let metrics = metrics_address(&process);
        Replica {
            identity,
            process,
            metrics,
        }
    }

    fn sample(&self, suffix: &str) -> Option<f64> {
        metric(&metrics(&self.metrics), suffix)
    }

    fn reconciliations(&self) -> f64 {
        self.sample("_reconciliations_total").unwrap_or(0.0)
    }
}

fn holder(cluster: &Cluster) -> Option<String> {
    let lease = cluster.server.object(
        "coordination.k8s.io",
        "leases",
        Some(NAMESPACE),
        "e2e-leader",
    )?;
    lease["spec"]["holderIdentity"]
        .as_str()
        .filter(|h| !h.is_empty())
        .map(String::from)
}

#[test]
fn leader_election_hands_over_when_the_leader_cannot_renew() {
    let cluster = Cluster::start();
    let replicas = [
        Replica::start(&cluster, "replica-a"),
        Replica::start(&cluster, "replica-b"),
    ];
    let logs = |replicas: &[Replica]| {
        replicas
            .iter()
            .map(|r| r.process.logs())
            .collect::<Vec<_>>()
            .join("\n")
    };
    let leader_identity = wait_for(
        "one replica to hold the Lease",
        DEADLINE,
        || holder(&cluster),
        || logs(&replicas),
    );
    let (leader, standby) = if leader_identity == replicas[0].identity {
        (0, 1)
    } else {
        (1, 0)
    };

    // Only the leader reconciles.
    cluster.apply_memcached("first", 1, "memcached:1.6-alpine");
    wait_for(
        "the leader to reconcile the first custom resource",
        DEADLINE,
        || cluster.child_of("first"),
        || logs(&replicas),
    );
    wait_for(
        "both replicas to serve metrics",
        DEADLINE,
        || {
            (replicas[leader].reconciliations() > 0.0
                && replicas[standby].sample("_leader").is_some())
            .then_some(())
        },
        || logs(&replicas),
    );
    assert_eq!(replicas[leader].sample("_leader"), Some(1.0));
    assert_eq!(replicas[standby].sample("_leader"), Some(0.0));
    assert_eq!(
        replicas[standby].reconciliations(),
        0.0,
        "the standby reconciled\n{}",
        logs(&replicas)
    );

    // Cut the leader off: its renewals hang. It stops within the lease duration...
    let lease = cluster
        .server
        .object(
            "coordination.k8s.io",
            "leases",
            Some(NAMESPACE),
            "e2e-leader",
        )
        .unwrap();
    let lease_duration =
        Duration::from_secs(lease["spec"]["leaseDurationSeconds"].as_u64().unwrap());
    cluster
        .server
        .partition_lease(NAMESPACE, "e2e-leader", &leader_identity, LeaseFault::Hang);
    let status = replicas[leader].process.wait_exit(lease_duration);
    assert!(!status.success(), "the cut-off leader exited with {status}");

    // ...and the other takes over and reconciles.
    let standby_identity = replicas[standby].identity;
    wait_for(
        "the standby to take the Lease",
        DEADLINE,
        || (holder(&cluster).as_deref() == Some(standby_identity)).then_some(()),
        || logs(&replicas),
    );
    cluster.apply_memcached("second", 1, "memcached:1.6-alpine");
    wait_for(
        "the new leader to reconcile the second custom resource",
        DEADLINE,
        || {
            replicas[standby].process.assert_running();
            cluster.child_of("second")
        },
        || logs(&replicas),
    );
    assert_eq!(replicas[standby].sample("_leader"), Some(1.0));

    // SIGTERM: the new leader stops within the grace period and gives the Lease up.
    replicas[standby].process.signal("TERM");
    let status = replicas[standby].process.wait_exit(GRACE_PERIOD);
    assert!(status.success(), "{status}\n{}", logs(&replicas));
    assert_eq!(holder(&cluster), None, "the Lease was not released");
}

/// `/metrics` as deployed: over HTTPS (here with the certificate of `--metrics-cert-dir`, which
/// curl verifies), and only for callers the API server authenticates (TokenReview) and allows
/// to get `/metrics` (SubjectAccessReview against the project's own metrics-reader ClusterRole,
/// bound to one service account): that one's token gets 200, no token 401, a valid token of
/// another service account 403. curl is the independent client.
#[test]
fn metrics_are_served_over_https_to_the_callers_the_api_server_allows() {
    let cluster = Cluster::start();
    let role = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(role.path(), &built().metrics_reader_role).unwrap();
    cluster.kubectl(&[
        "apply",
        "--server-side",
        "-f",
        role.path().to_str().unwrap(),
    ]);
    let role_name = format!("{NAME}-metrics-reader");
    let binding = json!({
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRoleBinding",
        "metadata": {"name": "prometheus-reads-metrics"},
        "subjects": [{"kind": "ServiceAccount", "name": "prometheus", "namespace": NAMESPACE}],
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": role_name},
    });
    let binding_file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(binding_file.path(), binding.to_string()).unwrap();
    cluster.kubectl(&[
        "apply",
        "--server-side",
        "-f",
        binding_file.path().to_str().unwrap(),
    ]);
    let service_account_groups = ["system:serviceaccounts", "system:serviceaccounts:demo"];
    cluster.server.add_token(
        "prometheus-token",
        &format!("system:serviceaccount:{NAMESPACE}:prometheus"),
        &service_account_groups,
    );
    cluster.server.add_token(
        "other-token",
        &format!("system:serviceaccount:{NAMESPACE}:other"),
        &service_account_groups,
    );

    let ca = support::certs::TestCa::new();
    let cert_dir = tempfile::tempdir().unwrap();
    std::fs::copy(ca.path("server.pem"), cert_dir.path().join("tls.crt")).unwrap();
    std::fs::copy(ca.path("server.key"), cert_dir.path().join("tls.key")).unwrap();
    let operator = cluster.operator(
        "operator",
        &[
            "--metrics-secure=true",
            "--metrics-cert-dir",
            cert_dir.path().to_str().unwrap(),
        ],
    );
    let address = wait_for(
        "the operator to log where it serves /metrics over HTTPS",
        DEADLINE,
        || {
            operator.assert_running();
            let stdout = operator.stdout();
            let line = stdout.lines().find(|l| l.contains("https://"))?;
            Some(
                line.split("https://")
                    .nth(1)?
                    .split('/')
                    .next()?
                    .to_string(),
            )
        },
        || operator.logs(),
    );
    let scrape = |token: Option<&str>| -> (String, String) {
        let mut command = Command::new("curl");
        command
            .args(["--silent", "--show-error", "--max-time", "30"])
            .arg("--cacert")
            .arg(ca.path("ca.pem"))
            .args(["--write-out", "\n%{http_code}"])
            .arg(format!("https://{address}/metrics"));
        if let Some(token) = token {
            command.args(["--header", &format!("Authorization: Bearer {token}")]);
        }
        let output = command.output().expect("curl runs");
        assert!(
            output.status.success(),
            "curl failed: {}\n{}",
            String::from_utf8_lossy(&output.stderr),
            operator.logs()
        );
        let text = String::from_utf8_lossy(&output.stdout).into_owned();
        let (body, code) = text.rsplit_once('\n').unwrap();
        (code.to_string(), body.to_string())
    };
    let (code, body) = scrape(Some("prometheus-token"));
    assert_eq!(code, "200", "{body}\n{}", operator.logs());
    assert!(body.contains("_operator_leader 1"), "{body}");
    assert_eq!(scrape(None).0, "401");
    assert_eq!(scrape(Some("not-a-token")).0, "401");
    assert_eq!(scrape(Some("other-token")).0, "403");
    // Plain HTTP to the HTTPS port gets no metrics.
    let plain = Command::new("curl")
        .args(["--silent", "--max-time", "30"])
        .arg(format!("http://{address}/metrics"))
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&plain.stdout).contains("_operator_leader"));
    let reviews: Vec<String> = cluster
        .server
        .requests()
        .iter()
        .filter(|r| r.method == "POST" && r.path.ends_with("reviews"))
        .map(|r| r.path.clone())
        .collect();
    assert!(
        reviews.contains(&"/apis/authorization.k8s.io/v1/subjectaccessreviews".to_string()),
        "{reviews:?}"
    );
    operator.signal("TERM");
    operator.wait_exit(GRACE_PERIOD);
}

/// Figures for the note (run by benches/operator.sh): the operator's idle RSS, its RSS after
/// reconciling 100 custom resources, and the latency from creating a custom resource to its
/// Deployment being created (median of 100, one at a time).
#[test]
#[ignore = "a measurement, not a check: run by benches/operator.sh"]
fn figures() {
    let cluster = Cluster::start();
    let operator = cluster.operator("operator", &[]);
    // Idle: connected, watching, nothing to do.
    wait_for(
        "the operator to start watching",
        DEADLINE,
        || {
            operator.assert_running();
            operator
                .logs()
                .contains("connected to Kubernetes")
                .then_some(())
        },
        || operator.logs(),
    );
    std::thread::sleep(Duration::from_secs(2));
    let idle = rss_kib(operator.pid());

    let mut latencies = Vec::new();
    for i in 0..100 {
        let name = format!("cache-{i:03}");
        let started = Instant::now();
        create_memcached(&cluster.server, &name);
        wait_until_child(&cluster, &name, &operator);
        latencies.push(started.elapsed());
    }
    std::thread::sleep(Duration::from_secs(2));
    let loaded = rss_kib(operator.pid());
    latencies.sort();
    let median = latencies[latencies.len() / 2];
    let p99 = latencies[latencies.len() * 99 / 100];
    println!("operator idle RSS: {idle} KiB");
    println!("operator RSS after reconciling 100 custom resources: {loaded} KiB");
    println!("create -> Deployment latency: median {median:?}, p99 {p99:?} (100, one at a time)");
    operator.signal("TERM");
    operator.wait_exit(GRACE_PERIOD);
}

/// VmRSS of a process, in KiB, from /proc.
fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap()
}

/// Creates a custom resource with one POST, so the latency is not kubectl's start-up.
fn create_memcached(server: &KubeServer, name: &str) {
    let body = json!({
        "apiVersion": "cache.example.com/v1alpha1",
        "kind": "Memcached",
        "metadata": {"name": name, "namespace": NAMESPACE},
        "spec": {"size": 1, "image": "memcached:1.6-alpine"},
    })
    .to_string();
    let address = server.url().trim_start_matches("http://").to_string();
    let token = std::fs::read_to_string(server.kubeconfig())
        .unwrap()
        .lines()
        .find_map(|l| l.trim().strip_prefix("token: ").map(String::from))
        .unwrap();
    let mut stream = std::net::TcpStream::connect(&address).unwrap();
    let request = format!(
        "POST /apis/cache.example.com/v1alpha1/namespaces/{NAMESPACE}/memcacheds HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 201"), "{answer}");
}

fn wait_until_child(cluster: &Cluster, owner: &str, operator: &Running) {
    let until = Instant::now() + DEADLINE;
    while cluster.child_of(owner).is_none() {
        assert!(
            Instant::now() < until,
            "no Deployment for {owner}\n{}",
            operator.logs()
        );
        std::thread::sleep(Duration::from_millis(1));
    }
}
