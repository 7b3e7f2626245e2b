//! The generated Rust operator, seen reconciling: a project made by the real `operator-rs new`
//! is built once per test run (in the shared generated-projects target directory), and its real
//! binary runs as a process against the Kubernetes API test server. The tests drive custom
//! resources through create, drift, update, a stuck rollout and delete, hand the leader
//! election Lease over when the leader is cut off, ride out the API server going away, throttling
//! (429 with `Retry-After`), 500 and 503 answers and expired watches (410 Gone), and stop
//! the operator with SIGTERM; the real `kubectl` reads every result back from the same server.
//! The finalizer is seen switched off (objects that still carry it are released) and on (from a
//! second build with `CLEANUP_WITH_FINALIZER = true`), and every request the operator makes is
//! checked against the rules of its `deploy/role.yaml`.
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
use support::cut_proxy::CutProxy;
use support::kube_server::{KubeServer, LeaseFault, RequestFault, RequestRecord, Rollout};
use support::operator::{Running, generated_build_env, generated_target_dir, rss_kib, wait_for};

const NAME: &str = "memcached-e2e-operator";
const GROUP: &str = "cache.example.com";
const PLURAL: &str = "memcacheds";
const CRD: &str = "memcacheds.cache.example.com";
const NAMESPACE: &str = "demo";

/// Bounds every wait for the operator: a few requests to a server on this machine.
const DEADLINE: Duration = Duration::from_secs(60);
/// `terminationGracePeriodSeconds` of deploy/operator.yaml: SIGTERM must end it within this.
const GRACE_PERIOD: Duration = Duration::from_secs(40);
/// The finalizer of the generated controller.
const FINALIZER: &str = "memcacheds.cache.example.com/finalizer";

/// A generated operator's binary, CRD and role, built once for every test of this file.
struct Built {
    binary: PathBuf,
    crd: String,
    role: Value,
    /// deploy/metrics_reader_role.yaml: the ClusterRole that lets a caller read /metrics.
    metrics_reader_role: String,
}

/// The project as `new` makes it: the finalizer off.
fn built() -> &'static Built {
    static BUILT: OnceLock<Built> = OnceLock::new();
    BUILT.get_or_init(|| build(NAME, false))
}

/// The same project with `CLEANUP_WITH_FINALIZER` turned on, as a user would.
fn built_with_finalizer() -> &'static Built {
    static BUILT: OnceLock<Built> = OnceLock::new();
    BUILT.get_or_init(|| build("memcached-finalizer-operator", true))
}

fn build(name: &str, with_finalizer: bool) -> Built {
    // Outside the repository, which is a cargo workspace the project is no member of; the
    // binary stays in the shared target directory when the project is gone.
    let parent = tempfile::tempdir().unwrap();
    let project = support::project::new_memcached_operator(parent.path(), name);
    if with_finalizer {
        let controller = project.join("src/controllers/memcached.rs");
        let text = std::fs::read_to_string(&controller).unwrap();
        let off = "pub const CLEANUP_WITH_FINALIZER: bool = false;";
        assert!(text.contains(off), "{text}");
        let on = text.replace(off, "pub const CLEANUP_WITH_FINALIZER: bool = true;");
        std::fs::write(&controller, on).unwrap();
    }
    let started = Instant::now();
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        // Every target, as the project's own tests build it: one build of tokio (with the
        // "test-util" of [dev-dependencies]) serves both.
        .args(["build", "--locked", "--all-targets"])
        .current_dir(&project)
        .envs(generated_build_env())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "cargo build of the generated operator failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    eprintln!(
        "built the generated operator {name} in {:?}",
        started.elapsed()
    );
    let binary = generated_target_dir().join("debug").join(name);
    assert!(binary.is_file(), "{} is missing", binary.display());
    let read = |path: &str| std::fs::read_to_string(project.join(path)).unwrap();
    Built {
        binary,
        crd: read("deploy/crds/cache.example.com_memcacheds_crd.yaml"),
        role: operator_rs::yaml::from_str(&read("deploy/role.yaml")).unwrap(),
        metrics_reader_role: read("deploy/metrics_reader_role.yaml"),
    }
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
        // Deployments roll out on the server's clock, as kube-controller-manager moves them: the
        // operator only watches its Deployments and applies them, it never polls them.
        cluster
            .server
            .set_rollout(Rollout::AfterDelay(Duration::from_millis(300)));
        cluster.apply(&built().crd);
        cluster.kubectl(&["wait", "--for=condition=Established", &format!("crd/{CRD}")]);
        // kubectl create sends a protobuf Namespace, which the test server does not decode (it reads
        // protobuf Secrets, ConfigMaps and DeleteOptions only); apply sends JSON.
        let namespace =
            json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}});
        cluster.apply(&namespace.to_string());
        cluster
    }

    /// `kubectl apply --server-side` of `manifest` (YAML or JSON), as the field manager `e2e`.
    fn apply(&self, manifest: &str) {
        let file = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(file.path(), manifest).unwrap();
        let path = file.path().to_str().unwrap();
        self.kubectl(&["apply", "--server-side", "--field-manager=e2e", "-f", path]);
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
        self.apply_memcached_with(name, size, image, &[]);
    }

    /// [`Cluster::apply_memcached`] with `finalizers`.
    fn apply_memcached_with(&self, name: &str, size: i64, image: &str, finalizers: &[&str]) {
        let mut object = json!({
            "apiVersion": "cache.example.com/v1alpha1",
            "kind": "Memcached",
            "metadata": {"name": name, "namespace": NAMESPACE},
            "spec": {"size": size, "image": image},
        });
        // Only when asked: an applied empty list would be this manager's, and remove the
        // operator's finalizer at the next apply.
        if !finalizers.is_empty() {
            object["metadata"]["finalizers"] = json!(finalizers);
        }
        self.apply(&object.to_string());
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

    /// The Deployment of the custom resource `owner`, once `operator` (still running) made it.
    fn wait_for_child(&self, owner: &str, operator: &Running) -> Value {
        wait_for(
            &format!("the Deployment of {owner}"),
            DEADLINE,
            || {
                operator.assert_running();
                self.child_of(owner)
            },
            || operator.logs(),
        )
    }

    fn memcached(&self, name: &str) -> Option<Value> {
        self.server.object(GROUP, PLURAL, Some(NAMESPACE), name)
    }

    /// Starts the operator binary against this server with `args`. Its metrics and probes
    /// listen on ports the system picks (port 0): a port a test found free and let go can be
    /// taken by a parallel test before the operator binds it. Metrics are plain HTTP
    /// (`--metrics-secure=false`, as for a local run) unless `args` say otherwise.
    fn operator(&self, label: &str, args: &[&str]) -> Running {
        self.operator_of(built(), &self.server.kubeconfig(), label, args)
    }

    /// [`Cluster::operator`] of another build, or through another kubeconfig.
    fn operator_of(
        &self,
        built: &Built,
        kubeconfig: &std::path::Path,
        label: &str,
        args: &[&str],
    ) -> Running {
        let mut command = Command::new(&built.binary);
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
            .env("KUBECONFIG", kubeconfig)
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
    let deployment = cluster.wait_for_child("cache", &operator);
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

    // A condition another tool writes on the status, under its own field manager, stays
    // through the operator's reconciliations: it applies only its own condition types.
    apply_status_condition(server, "cache", "backup-tool", "BackupDone");

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
    let reconciled = wait_for(
        "Ready=True at generation 2",
        DEADLINE,
        || {
            let cr = cluster.get("memcached", "cache")?;
            (cr["metadata"]["generation"] == 2
                && cr["status"]["observedGeneration"] == 2
                && condition_is(&cr, "Ready", "True"))
            .then_some(cr)
        },
        || format!("{:?}\n{}", cluster.memcached("cache"), operator.logs()),
    );
    let backup = condition(&reconciled, "BackupDone");
    assert_eq!(
        backup.map(|c| &c["status"]),
        Some(&json!("True")),
        "{reconciled}"
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
    assert_eq!(denied(server, &built().role), Vec::<String>::new());
    // Success is logged at debug: no line per reconciliation at info.
    assert!(
        !operator.logs().contains("reconciled"),
        "{}",
        operator.logs()
    );
}

/// Applies a condition of `type_` to the status of `name` as `manager`, with one raw request
/// (kubectl applies no subresource here).
fn apply_status_condition(server: &KubeServer, name: &str, manager: &str, type_: &str) {
    let body = json!({
        "apiVersion": "cache.example.com/v1alpha1",
        "kind": "Memcached",
        "metadata": {"name": name, "namespace": NAMESPACE},
        "status": {"conditions": [{
            "type": type_, "status": "True", "reason": "Done", "message": "by another tool",
            "lastTransitionTime": "2026-01-01T00:00:00Z"
        }]},
    })
    .to_string();
    let path = format!(
        "/apis/{GROUP}/v1alpha1/namespaces/{NAMESPACE}/{PLURAL}/{name}/status?fieldManager={manager}&force=true"
    );
    let answer = raw_request(
        server,
        "PATCH",
        &path,
        "application/apply-patch+yaml",
        &body,
    );
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
}

/// One HTTP request to the test server with its token; the whole answer.
fn raw_request(
    server: &KubeServer,
    method: &str,
    path: &str,
    content_type: &str,
    body: &str,
) -> String {
    let address = server.url().trim_start_matches("http://").to_string();
    let mut stream = std::net::TcpStream::connect(&address).unwrap();
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {address}\r\nUser-Agent: e2e-test\r\nAuthorization: Bearer {}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        server.token(),
        body.len()
    );
    stream.write_all(request.as_bytes()).unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    answer
}

/// The requests the operator made (everything but kubectl's and this test's own) that the
/// rules of `role` do not allow, read as the API server's RBAC authorizer reads them: the
/// verb from the method (and `watch` in the query), the group, resource, subresource and name
/// from the path. Discovery (`/version`, `/api`, `/apis/...` without a resource) is allowed to
/// every authenticated user.
fn denied(server: &KubeServer, role: &Value) -> Vec<String> {
    let mut denied: Vec<String> = server
        .requests()
        .into_iter()
        .filter(|r| !r.user_agent.starts_with("kubectl") && !r.user_agent.starts_with("e2e"))
        .filter(|r| !allowed(role, &r.method, &r.path, &r.query))
        .map(|r| format!("{} {}?{}", r.method, r.path, r.query))
        .collect();
    denied.dedup();
    denied
}

fn allowed(role: &Value, method: &str, path: &str, query: &str) -> bool {
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let (group, rest) = match segments.as_slice() {
        ["api", _version, rest @ ..] => ("", rest),
        ["apis", group, _version, rest @ ..] => (*group, rest),
        _ => return true,
    };
    let rest = match rest {
        ["namespaces", _, rest @ ..] if !rest.is_empty() => rest,
        rest => rest,
    };
    let Some((resource, rest)) = rest.split_first() else {
        return true;
    };
    let name = rest.first().copied();
    let resource = match rest.get(1) {
        Some(subresource) => format!("{resource}/{subresource}"),
        None => resource.to_string(),
    };
    let watch = query
        .split('&')
        .any(|p| p == "watch=true" || p == "watch=1");
    let verb = match (method, name) {
        ("GET", _) if watch => "watch",
        ("GET", Some(_)) => "get",
        ("GET", None) => "list",
        ("POST", _) => "create",
        ("PUT", _) => "update",
        ("PATCH", _) => "patch",
        ("DELETE", Some(_)) => "delete",
        _ => "deletecollection",
    };
    let has = |rule: &Value, field: &str, value: &str| {
        rule[field]
            .as_array()
            .is_some_and(|a| a.iter().any(|v| v == value))
    };
    role["rules"].as_array().unwrap().iter().any(|rule| {
        has(rule, "apiGroups", group)
            && has(rule, "resources", &resource)
            && has(rule, "verbs", verb)
            && (rule.get("resourceNames").is_none()
                || name.is_some_and(|n| has(rule, "resourceNames", n)))
    })
}

/// With the finalizer switched off (the default), an object that still carries it, added while
/// it was on, is released when deleted instead of staying Terminating with its namespace.
#[test]
fn the_finalizer_switched_off_releases_objects_that_still_carry_it() {
    let cluster = Cluster::start();
    let operator = cluster.operator("operator", &[]);
    cluster.apply_memcached_with("kept", 1, "memcached:1.6-alpine", &[FINALIZER]);
    cluster.wait_for_child("kept", &operator);
    cluster.kubectl(&[
        "delete",
        "memcached",
        "kept",
        "-n",
        NAMESPACE,
        "--wait=false",
    ]);
    wait_for(
        "the custom resource that carried the finalizer to be gone",
        DEADLINE,
        || cluster.get("memcached", "kept").is_none().then_some(()),
        || format!("{:?}\n{}", cluster.memcached("kept"), operator.logs()),
    );
    assert_eq!(denied(&cluster.server, &built().role), Vec::<String>::new());
}

/// A Deployment of the child's name that another object controls is not taken over: the API
/// server refuses the operator's apply, which would give it a second controller, and the custom
/// resource's status says why.
#[test]
fn a_deployment_another_object_controls_is_left_alone() {
    let cluster = Cluster::start();
    let operator = cluster.operator("operator", &[]);
    let config_map = json!({
        "apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "someone-else", "namespace": NAMESPACE},
    });
    cluster.apply(&config_map.to_string());
    let owner = cluster.get("configmap", "someone-else").unwrap();
    let foreign = json!({
        "apiVersion": "v1", "kind": "ConfigMap", "name": "someone-else",
        "uid": owner["metadata"]["uid"], "controller": true,
    });
    let taken = json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "taken-memcached", "namespace": NAMESPACE, "ownerReferences": [foreign]},
        "spec": {
            "selector": {"matchLabels": {"app": "other"}},
            "template": {
                "metadata": {"labels": {"app": "other"}},
                "spec": {"containers": [{"name": "other", "image": "busybox"}]},
            },
        },
    });
    cluster.apply(&taken.to_string());
    cluster.apply_memcached("taken", 1, "memcached:1.6-alpine");
    let degraded = wait_for(
        "the custom resource to be Degraded",
        DEADLINE,
        || {
            operator.assert_running();
            let object = cluster.get("memcached", "taken")?;
            condition_is(&object, "Degraded", "True").then_some(object)
        },
        || operator.logs(),
    );
    let message = condition(&degraded, "Degraded").unwrap()["message"].to_string();
    assert!(
        message.contains("cannot apply the Deployment taken-memcached")
            && message.contains("Only one reference can have Controller set to true"),
        "{message}"
    );
    let deployment = cluster.get("deployment", "taken-memcached").unwrap();
    assert_eq!(
        deployment["metadata"]["ownerReferences"],
        json!([foreign]),
        "{deployment}"
    );
    assert_eq!(
        deployment["spec"]["template"]["spec"]["containers"][0]["image"],
        "busybox"
    );
}

/// With the finalizer switched on, the operator adds it, runs its cleanup at deletion and
/// removes it, with no request its deploy/role.yaml does not allow (no 403 in a cluster).
#[test]
fn the_finalizer_switched_on_needs_no_other_rules() {
    let cluster = Cluster::start();
    let built = built_with_finalizer();
    let operator = cluster.operator_of(built, &cluster.server.kubeconfig(), "operator", &[]);
    cluster.apply_memcached("held", 1, "memcached:1.6-alpine");
    wait_for(
        "the finalizer and the Deployment",
        DEADLINE,
        || {
            operator.assert_running();
            let cr = cluster.get("memcached", "held")?;
            let finalizers = cr["metadata"]["finalizers"].as_array()?.clone();
            (finalizers.contains(&json!(FINALIZER)) && cluster.child_of("held").is_some())
                .then_some(())
        },
        || format!("{:?}\n{}", cluster.memcached("held"), operator.logs()),
    );
    cluster.kubectl(&[
        "delete",
        "memcached",
        "held",
        "-n",
        NAMESPACE,
        "--wait=false",
    ]);
    wait_for(
        "the custom resource to be cleaned up and gone",
        DEADLINE,
        || cluster.get("memcached", "held").is_none().then_some(()),
        || format!("{:?}\n{}", cluster.memcached("held"), operator.logs()),
    );
    let events = cluster.kubectl(&[
        "get",
        "events.v1.events.k8s.io",
        "-n",
        NAMESPACE,
        "-o",
        "json",
    ]);
    assert!(
        events.contains("\"Deleting\""),
        "no cleanup event: {events}"
    );
    assert_eq!(denied(&cluster.server, &built.role), Vec::<String>::new());
}

/// `text` without terminal colour sequences (`ESC [ ... m`), which tracing puts around field
/// names.
fn without_colours(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            chars.by_ref().find(|c| *c == 'm');
        } else {
            out.push(c);
        }
    }
    out
}

/// CPU time (user and system) of a process so far, in clock ticks, from /proc.
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // Fields after the command name, which is in parentheses and may hold spaces.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .unwrap()
        .1
        .split_whitespace()
        .collect();
    fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap()
}

/// The API server goes away (every connection closed, new ones refused, as in a restart or a
/// partition) and comes back. Meanwhile the operator backs off: a handful of log lines, each
/// repeat counted, and no CPU burnt in a loop; the leader keeps its Lease across a cut shorter
/// than the renew deadline. Afterwards it carries on without a restart: an object created
/// during the cut gets its Deployment, and one deleted during it comes back.
#[test]
fn the_operator_rides_out_the_api_server_going_away() {
    let cluster = Cluster::start();
    let proxy = CutProxy::start(cluster.server.url().trim_start_matches("http://"));
    let kubeconfig = through(&cluster, &proxy.url());
    let operator = cluster.operator_of(
        built(),
        &kubeconfig,
        "operator",
        &[
            "--leader-elect",
            "--leader-election-id=e2e-leader",
            "--leader-election-identity=solo",
        ],
    );
    cluster.apply_memcached("before", 1, "memcached:1.6-alpine");
    let child = cluster.wait_for_child("before", &operator)["metadata"]["name"]
        .as_str()
        .unwrap()
        .to_string();

    // Shorter than the renew deadline (10 s) less a retry period (2 s) and the time since the
    // last renewal (up to 2 s): the leader must keep its Lease.
    let cut = Duration::from_secs(4);
    let lines_before = operator.stdout().lines().count();
    let cpu_before = cpu_ticks(operator.pid());
    proxy.cut();
    cluster.apply_memcached("during", 1, "memcached:1.6-alpine");
    cluster.kubectl(&["delete", "deployment", &child, "-n", NAMESPACE]);
    std::thread::sleep(cut);
    let cpu = cpu_ticks(operator.pid()) - cpu_before;
    let logs = without_colours(&operator.stdout());
    let during: Vec<&str> = logs.lines().skip(lines_before).collect();
    proxy.heal();

    // A loop would burn a core for the whole cut; backing off costs next to nothing.
    let ticks_per_second = 100; // USER_HZ on Linux
    assert!(
        cpu < ticks_per_second / 2,
        "{cpu} ticks of CPU during the cut\n{logs}"
    );
    assert!(
        during.len() <= 20,
        "{} lines during the cut:\n{}",
        during.len(),
        during.join("\n")
    );
    assert!(
        during.iter().any(|l| l.contains("failures=2")),
        "no repeated failure counted:\n{}",
        during.join("\n")
    );

    cluster.wait_for_child("during", &operator);
    wait_for(
        "the Deployment deleted during the cut to come back",
        DEADLINE,
        || cluster.get("deployment", &child),
        || operator.logs(),
    );
    assert_eq!(holder(&cluster).as_deref(), Some("solo"));
    operator.signal("TERM");
    let status = operator.wait_exit(GRACE_PERIOD);
    assert!(status.success(), "{status}\n{}", operator.logs());
}

/// The lines `operator` printed after the first `from`, without colours.
fn lines_since(operator: &Running, from: usize) -> Vec<String> {
    without_colours(&operator.stdout())
        .lines()
        .skip(from)
        .map(String::from)
        .collect()
}

/// The API server throttles (429 with `Retry-After`), fails (500, 503) and expires every watch
/// (410 Gone, then lists that fail): the operator retries each with backoff, logs a line per
/// failed attempt and not per retry loop, and converges afterwards without a restart, as
/// kubectl reads back. The same faults as `tests/helm_runtime_faults.rs` puts the Helm runtime
/// through.
#[test]
fn the_operator_rides_out_throttling_server_errors_and_expired_watches() {
    let cluster = Cluster::start();
    let server = &cluster.server;
    let operator = cluster.operator("operator", &[]);
    cluster.apply_memcached("before", 1, "memcached:1.6-alpine");
    cluster.wait_for_child("before", &operator);

    // Writes: the first apply of each of three Deployments is throttled, refused with 503, or
    // refused with 500. Each fault names its object, so that a late reconciliation of the one
    // above cannot take it.
    let is_apply = |r: &&RequestRecord| r.method == "PATCH" && r.path.contains("/deployments/");
    let requests_before = server.request_count();
    let from = operator.stdout().lines().count();
    for (name, fault) in [
        (
            "throttled",
            RequestFault::new(
                429,
                "TooManyRequests",
                "the server has received too many requests",
            )
            .retry_after(1),
        ),
        (
            "unavailable",
            RequestFault::new(
                503,
                "ServiceUnavailable",
                "the server is currently unable to handle the request",
            ),
        ),
        (
            "failing",
            RequestFault::new(
                500,
                "InternalError",
                "Internal error occurred: etcdserver: leader changed",
            ),
        ),
    ] {
        let child = format!("{name}-memcached");
        server.fail_requests(
            fault
                .verb("patch")
                .resource("deployments")
                .name(&child)
                .times(1),
        );
    }
    let names = ["throttled", "unavailable", "failing"];
    for name in names {
        cluster.apply_memcached(name, 2, "memcached:1.6-alpine");
    }
    for name in names {
        wait_for(
            &format!("the Deployment of {name} after the failed applies"),
            DEADLINE,
            || {
                operator.assert_running();
                cluster.get("deployment", &format!("{name}-memcached"))
            },
            || operator.logs(),
        );
    }
    // Every fault was used up and each refused apply asked again; the throttled one's retry
    // waited for Retry-After (kube's client retries 429 and 503 itself; a 500 fails the
    // reconciliation).
    let requests = server.requests();
    let applies: Vec<&RequestRecord> = requests[requests_before..]
        .iter()
        .filter(is_apply)
        .filter(|r| r.path.ends_with("/throttled-memcached"))
        .collect();
    let [throttled, retried, ..] = applies[..] else {
        panic!("the throttled apply is not asked again: {applies:#?}");
    };
    assert!(
        retried.at - throttled.at >= Duration::from_millis(950),
        "retried {:?} after a 429 with Retry-After: 1",
        retried.at - throttled.at
    );
    let during = lines_since(&operator, from);
    let failed = during
        .iter()
        .filter(|l| l.contains("reconcile failed"))
        .count();
    // Only the 500 reached the reconciliation, which failed once, said so once, and was retried.
    assert_eq!(failed, 1, "{}", during.join("\n"));
    assert!(
        during.len() <= 30,
        "{} lines for three refused applies:\n{}",
        during.len(),
        during.join("\n")
    );
    for name in names {
        wait_for(
            &format!("{name} to be Ready again"),
            DEADLINE,
            || {
                let object = cluster.get("memcached", name)?;
                condition_is(&object, "Ready", "True").then_some(())
            },
            || operator.logs(),
        );
    }

    // Watches: every open watch ends with 410 Gone and its resourceVersion is forgotten; the
    // lists that follow are refused twice (503, then 500) and the next watch is throttled.
    let from = operator.stdout().lines().count();
    let cpu_before = cpu_ticks(operator.pid());
    let requests_before = server.request_count();
    for fault in [
        RequestFault::new(
            503,
            "ServiceUnavailable",
            "the server is currently unable to handle the request",
        )
        .verb("list"),
        RequestFault::new(
            500,
            "InternalError",
            "Internal error occurred: etcdserver: request timed out",
        )
        .verb("list"),
        RequestFault::new(
            429,
            "TooManyRequests",
            "the server has received too many requests",
        )
        .retry_after(1)
        .verb("watch"),
    ] {
        server.fail_requests(fault.times(1));
    }
    server.expire_watches();
    // Both watches (memcacheds, deployments) list again past the refused lists (four lists in
    // all) and watch on.
    let since_expiry = |watch: bool| -> Vec<RequestRecord> {
        server.requests()[requests_before..]
            .iter()
            .filter(|r| {
                r.method == "GET"
                    && r.query.contains("watch=") == watch
                    && (r.path.ends_with("/memcacheds") || r.path.ends_with("/deployments"))
            })
            .cloned()
            .collect()
    };
    let watches = wait_for(
        "both watches to list and watch again",
        DEADLINE,
        || {
            let watches = since_expiry(true);
            let paths: std::collections::HashSet<&str> =
                watches.iter().map(|r| r.path.as_str()).collect();
            // The first watch was throttled; its retry is the same watch again.
            let retried = watches
                .iter()
                .skip(1)
                .any(|r| watches.first().is_some_and(|first| first.path == r.path));
            (since_expiry(false).len() >= 4 && paths.len() == 2 && retried).then_some(watches)
        },
        || operator.logs(),
    );
    let throttled = &watches[0];
    let retried = watches[1..]
        .iter()
        .find(|r| r.path == throttled.path)
        .expect("the throttled watch is asked again");
    assert!(
        retried.at - throttled.at >= Duration::from_millis(950),
        "watch retried {:?} after a 429 with Retry-After: 1",
        retried.at - throttled.at
    );
    // A change to either kind is seen without a restart.
    cluster.kubectl(&["delete", "deployment", "before-memcached", "-n", NAMESPACE]);
    wait_for(
        "the Deployment deleted after the expiry to come back",
        DEADLINE,
        || {
            operator.assert_running();
            cluster.get("deployment", "before-memcached")
        },
        || operator.logs(),
    );
    cluster.apply_memcached("before", 3, "memcached:1.6-alpine");
    wait_for(
        "the change of the custom resource after the expiry to reach its Deployment",
        DEADLINE,
        || {
            let deployment = cluster.get("deployment", "before-memcached")?;
            (deployment["spec"]["replicas"] == 3).then_some(())
        },
        || operator.logs(),
    );
    let during = lines_since(&operator, from);
    let watch_failures = during.iter().filter(|l| l.contains("watch failed")).count();
    // A line for each watch's expiry and one for the list refused with 500 (kube's client
    // retries the 503 and the 429 itself): a handful, never a line per retry in a loop.
    assert!(
        (2..=6).contains(&watch_failures),
        "{watch_failures} watch failures logged:\n{}",
        during.join("\n")
    );
    assert!(
        during.len() <= 30,
        "{} lines around the expiry:\n{}",
        during.len(),
        during.join("\n")
    );
    let cpu = cpu_ticks(operator.pid()) - cpu_before;
    assert!(
        cpu < 200,
        "{cpu} ticks of CPU around the expiry\n{}",
        during.join("\n")
    );
    operator.assert_running();
    operator.signal("TERM");
    let status = operator.wait_exit(GRACE_PERIOD);
    assert!(status.success(), "{status}\n{}", operator.logs());
}

/// A signal while the operator starts is honoured at once: here its API server accepts the
/// connection and never answers, which the start-up would otherwise wait out (30 s) and fail.
#[test]
fn a_signal_during_start_up_stops_it() {
    let cluster = Cluster::start();
    // Bound and listening but never accepting: connections open, and nothing answers.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let kubeconfig = through(
        &cluster,
        &format!("http://{}", silent.local_addr().unwrap()),
    );
    let operator = cluster.operator_of(built(), &kubeconfig, "operator", &[]);
    // The probes are served before connecting (/metrics only once connected: it asks the API
    // server about its callers).
    wait_for(
        "the operator to serve its probes",
        DEADLINE,
        || {
            operator.assert_running();
            operator.printed_address("/healthz")
        },
        || operator.logs(),
    );
    operator.signal("TERM");
    let status = operator.wait_exit(GRACE_PERIOD);
    assert!(status.success(), "{status}\n{}", operator.logs());
    assert!(
        !operator.logs().contains("connected to Kubernetes"),
        "{}",
        operator.logs()
    );
}

/// A second SIGTERM ends the operator at once while the first one's shutdown still waits: here
/// on the release of its Lease, with the API server behind a partition that answers nothing.
#[test]
fn a_second_signal_exits_at_once() {
    let cluster = Cluster::start();
    let proxy = CutProxy::start(cluster.server.url().trim_start_matches("http://"));
    let kubeconfig = through(&cluster, &proxy.url());
    let operator = cluster.operator_of(
        built(),
        &kubeconfig,
        "operator",
        &[
            "--leader-elect",
            "--leader-election-id=e2e-leader",
            "--leader-election-identity=solo",
        ],
    );
    wait_for(
        "the operator to lead",
        DEADLINE,
        || (holder(&cluster).as_deref() == Some("solo")).then_some(()),
        || operator.logs(),
    );
    proxy.hold();
    operator.signal("TERM");
    wait_for(
        "the first signal to start the shutdown",
        DEADLINE,
        || operator.logs().contains("shutting down").then_some(()),
        || operator.logs(),
    );
    operator.signal("TERM");
    let status = operator.wait_exit(GRACE_PERIOD);
    assert_eq!(status.code(), Some(1), "{}", operator.logs());
    assert!(
        operator.logs().contains("second signal"),
        "{}",
        operator.logs()
    );
}

/// A kubeconfig of the cluster's that points at `url` instead of the server.
fn through(cluster: &Cluster, url: &str) -> PathBuf {
    let kubeconfig = cluster
        .home
        .path()
        .join(format!("{}.kubeconfig", url.replace([':', '/'], "_")));
    let direct = std::fs::read_to_string(cluster.server.kubeconfig()).unwrap();
    std::fs::write(&kubeconfig, direct.replace(&cluster.server.url(), url)).unwrap();
    kubeconfig
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
        self.sample("_reconcile_duration_seconds_count")
            .unwrap_or(0.0)
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
    cluster.apply(&built().metrics_reader_role);
    let role_name = format!("{NAME}-metrics-reader");
    let binding = json!({
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRoleBinding",
        "metadata": {"name": "prometheus-reads-metrics"},
        "subjects": [{"kind": "ServiceAccount", "name": "prometheus", "namespace": NAMESPACE}],
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": role_name},
    });
    cluster.apply(&binding.to_string());
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
