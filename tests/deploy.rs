//! `operator-rs deploy` and `undeploy` end to end, against the in-process Kubernetes API test
//! server; after each deploy the real `kubectl` reads the same server and must see what was
//! applied: two independent clients agree.

mod support;

use std::path::PathBuf;
use std::process::Output;

use serde_json::Value;
use support::kube_server::{Establish, KubeServer, RequestRecord, Rollout};
use support::terminal::Session;

const IMAGE: &str = "registry.local/hello-world-operator:v0.1.0";
const NAME: &str = "hello-world-operator";
const RUST_NAME: &str = "memcached-operator";
const CRD: &str = "helloworlds.charts.example.com";

/// A project, a test server, and a HOME of their own (so no real kubeconfig is ever read).
struct Env {
    server: KubeServer,
    project: tempfile::TempDir,
    home: tempfile::TempDir,
    name: String,
}

impl Env {
    /// A Helm project made by the real `operator-rs new` from the shared hello-world chart.
    fn new() -> Env {
        let chart = support::project::shared_chart("hello-world");
        Env::made_by(
            &[
                "new",
                "--type=helm",
                "--yes",
                "--helm-chart",
                chart.to_str().unwrap(),
            ],
            NAME,
        )
    }

    /// A Rust project, [`RUST_NAME`], for the Memcached kind of cache.example.com/v1alpha1.
    fn rust() -> Env {
        Env::made_by(
            &[
                "new",
                RUST_NAME,
                "--api-version=cache.example.com/v1alpha1",
                "--kind=Memcached",
                "--yes",
            ],
            RUST_NAME,
        )
    }

    /// A project made by the real `operator-rs` with `new_args`, in directory `name`.
    fn made_by(new_args: &[&str], name: &str) -> Env {
        let dir = tempfile::tempdir().unwrap();
        let output = support::project::operator_rs(dir.path())
            .args(new_args)
            .output()
            .unwrap();
        success(output);
        Env {
            server: KubeServer::start(),
            project: dir,
            home: tempfile::tempdir().unwrap(),
            name: name.to_string(),
        }
    }

    fn root(&self) -> PathBuf {
        self.project.path().join(&self.name)
    }

    /// `operator-rs ARGS` in the project, with the server's kubeconfig in $KUBECONFIG.
    fn command(&self, args: &[&str]) -> std::process::Command {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_operator-rs"));
        command
            .current_dir(self.root())
            .env("HOME", self.home.path())
            .env("KUBECONFIG", self.server.kubeconfig())
            // The discovery cache goes to the temporary HOME unless a test names one.
            .env_remove("KUBECACHEDIR")
            .env("NO_COLOR", "1")
            .args(args);
        command
    }

    fn run(&self, args: &[&str]) -> Output {
        self.command(args).output().unwrap()
    }

    /// [`Env::run`] on a terminal: `keys` are typed once `question` is shown.
    fn run_on_terminal(&self, args: &[&str], question: &str, keys: &str) -> Session {
        support::terminal::answer(&self.command(args), question, keys)
    }

    fn deploy(&self, extra: &[&str]) -> String {
        let mut args = vec!["deploy", "-n", "demo", "--image", IMAGE];
        args.extend_from_slice(extra);
        success(self.run(&args))
    }

    /// The real kubectl against the same server, `-o json`.
    fn kubectl(&self, args: &[&str]) -> Value {
        let cache = self.home.path().join("kubectl-cache");
        let output = self
            .server
            .kubectl(&cache)
            .args(args)
            .args(["-o", "json"])
            .output()
            .expect("kubectl runs");
        assert!(
            output.status.success(),
            "kubectl {args:?} failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        serde_json::from_slice(&output.stdout).unwrap()
    }

    fn project_file(&self) -> String {
        std::fs::read_to_string(self.root().join("PROJECT")).unwrap()
    }
}

fn success(output: Output) -> String {
    let stdout = String::from_utf8_lossy(&output.stdout).to_string();
    assert!(
        output.status.success(),
        "expected success, got {:?}\nstdout:\n{stdout}\nstderr:\n{}",
        output.status.code(),
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

fn failure(output: Output, code: i32) -> String {
    let stderr = String::from_utf8_lossy(&output.stderr).to_string();
    assert_eq!(
        output.status.code(),
        Some(code),
        "stdout:\n{}\nstderr:\n{stderr}",
        String::from_utf8_lossy(&output.stdout)
    );
    stderr
}

/// Every field of `expected` is in `actual` with the same value (lists item by item).
fn assert_subset(expected: &Value, actual: &Value, at: &str) {
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => {
            for (k, v) in e {
                let inner = a
                    .get(k)
                    .unwrap_or_else(|| panic!("{at}.{k} is missing in {actual}"));
                assert_subset(v, inner, &format!("{at}.{k}"));
            }
        }
        (Value::Array(e), Value::Array(a)) => {
            assert_eq!(e.len(), a.len(), "{at}: list lengths differ");
            for (i, (e, a)) in e.iter().zip(a).enumerate() {
                assert_subset(e, a, &format!("{at}[{i}]"));
            }
        }
        _ => assert_eq!(expected, actual, "at {at}"),
    }
}

fn lines_with<'a>(stdout: &'a str, word: &str) -> Vec<&'a str> {
    stdout.lines().filter(|l| l.ends_with(word)).collect()
}

#[test]
fn deploy_fills_in_namespace_and_image_and_kubectl_sees_it() {
    let env = Env::new();
    let stdout = env.deploy(&[]);
    for object in [
        "Namespace/demo: created",
        &format!("CustomResourceDefinition/{CRD}: created"),
        &format!("ServiceAccount/{NAME} (demo): created"),
        &format!("Role/{NAME} (demo): created"),
        &format!("RoleBinding/{NAME} (demo): created"),
        &format!("Deployment/{NAME} (demo): created"),
        &format!("Deployment/{NAME} (demo): rolled out (1/1 ready)"),
    ] {
        assert!(stdout.contains(object), "{object} missing in:\n{stdout}");
    }

    let deployment = env.kubectl(&["-n", "demo", "get", "deployment", NAME]);
    assert_eq!(deployment["metadata"]["namespace"], "demo");
    assert_eq!(
        deployment["spec"]["template"]["spec"]["containers"][0]["image"],
        IMAGE
    );
    assert_eq!(deployment["status"]["availableReplicas"], 1);
    let binding = env.kubectl(&["-n", "demo", "get", "rolebinding", NAME]);
    assert_eq!(binding["subjects"][0]["namespace"], "demo");
    for kind in ["serviceaccount", "role"] {
        let object = env.kubectl(&["-n", "demo", "get", kind, NAME]);
        assert_eq!(object["metadata"]["namespace"], "demo");
    }
    let crd = env.kubectl(&["get", "crd", CRD]);
    assert!(crd["metadata"].get("namespace").is_none());
    assert!(
        crd["status"]["conditions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["type"] == "Established" && c["status"] == "True")
    );
    // Everything was applied by our field manager, with server-side apply.
    let stored = env
        .server
        .object("apps", "deployments", Some("demo"), NAME)
        .unwrap();
    let managers: Vec<String> = stored["metadata"]["managedFields"]
        .as_array()
        .map(|m| {
            m.iter()
                .map(|e| format!("{}/{}", e["manager"], e["operation"]))
                .collect()
        })
        .unwrap_or_default();
    assert!(
        managers.contains(&"\"operator-rs\"/\"Apply\"".to_string()),
        "{managers:?}"
    );

    assert!(
        env.project_file().contains("namespace: demo"),
        "{}",
        env.project_file()
    );
}

#[test]
fn a_second_deploy_changes_nothing_and_says_so() {
    let env = Env::new();
    env.deploy(&[]);
    let before: Vec<Value> = ["serviceaccounts", "roles", "rolebindings"]
        .iter()
        .map(|r| {
            env.server
                .object(
                    if *r == "serviceaccounts" {
                        ""
                    } else {
                        "rbac.authorization.k8s.io"
                    },
                    r,
                    Some("demo"),
                    NAME,
                )
                .unwrap()
        })
        .collect();
    let crd_before = env
        .server
        .object(
            "apiextensions.k8s.io",
            "customresourcedefinitions",
            None,
            CRD,
        )
        .unwrap();

    let stdout = env.deploy(&[]);
    let reported: Vec<&str> = stdout.lines().filter(|l| l.contains(": ")).collect();
    assert_eq!(lines_with(&stdout, ": unchanged").len(), 6, "{stdout}");
    assert!(lines_with(&stdout, ": created").is_empty(), "{reported:?}");
    assert!(
        lines_with(&stdout, ": configured").is_empty(),
        "{reported:?}"
    );

    let after: Vec<Value> = ["serviceaccounts", "roles", "rolebindings"]
        .iter()
        .map(|r| {
            env.server
                .object(
                    if *r == "serviceaccounts" {
                        ""
                    } else {
                        "rbac.authorization.k8s.io"
                    },
                    r,
                    Some("demo"),
                    NAME,
                )
                .unwrap()
        })
        .collect();
    assert_eq!(before, after, "a no-op deploy must not write");
    assert_eq!(
        crd_before["metadata"]["resourceVersion"],
        env.server
            .object(
                "apiextensions.k8s.io",
                "customresourcedefinitions",
                None,
                CRD
            )
            .unwrap()["metadata"]["resourceVersion"]
    );
}

#[test]
fn a_changed_file_is_configured_and_the_rest_unchanged() {
    let env = Env::new();
    env.deploy(&[]);
    let operator = env.root().join("deploy/operator.yaml");
    let text = std::fs::read_to_string(&operator)
        .unwrap()
        .replace("replicas: 1", "replicas: 2");
    std::fs::write(&operator, text).unwrap();

    let stdout = env.deploy(&[]);
    assert_eq!(
        lines_with(&stdout, ": configured"),
        [format!("Deployment/{NAME} (demo): configured")],
        "{stdout}"
    );
    assert_eq!(lines_with(&stdout, ": unchanged").len(), 5, "{stdout}");
    assert!(stdout.contains("rolled out (2/2 ready)"), "{stdout}");
    let deployment = env.kubectl(&["-n", "demo", "get", "deployment", NAME]);
    assert_eq!(deployment["spec"]["replicas"], 2);
    assert_eq!(deployment["metadata"]["generation"], 2);

    // A new image is a change too.
    let stdout = success(env.run(&["deploy", "-n", "demo", "--image", "registry.local/hw:v2"]));
    assert_eq!(lines_with(&stdout, ": configured").len(), 1, "{stdout}");
    let deployment = env.kubectl(&["-n", "demo", "get", "deployment", NAME]);
    assert_eq!(
        deployment["spec"]["template"]["spec"]["containers"][0]["image"],
        "registry.local/hw:v2"
    );
}

#[test]
fn with_sample_applies_the_custom_resource_after_its_crd() {
    let env = Env::new();
    let stdout = env.deploy(&["--with-sample"]);
    assert!(
        stdout.contains("HelloWorld/hello-world-sample (demo): created"),
        "{stdout}"
    );
    let crd_line = stdout.find("CustomResourceDefinition/").unwrap();
    let sample_line = stdout.find("HelloWorld/hello-world-sample").unwrap();
    assert!(crd_line < sample_line);

    let samples = env.kubectl(&["-n", "demo", "get", "helloworlds"]);
    let items = samples["items"].as_array().unwrap();
    assert_eq!(items.len(), 1);
    assert_eq!(items[0]["spec"]["service"]["port"], 80);

    // A user changes the sample in the cluster: a later deploy leaves their change alone.
    env.kubectl(&[
        "-n",
        "demo",
        "patch",
        "helloworld",
        "hello-world-sample",
        "--type=merge",
        "-p",
        r#"{"spec":{"service":{"port":8080}}}"#,
    ]);
    let stdout = env.deploy(&["--with-sample"]);
    assert!(
        stdout.contains("HelloWorld/hello-world-sample (demo): kept (changed in the cluster since; not overwritten)"),
        "{stdout}"
    );
    let sample = env.kubectl(&["-n", "demo", "get", "helloworld", "hello-world-sample"]);
    assert_eq!(sample["spec"]["service"]["port"], 8080);
}

#[test]
fn dry_run_prints_exactly_what_a_deploy_applies_and_contacts_nobody() {
    let env = Env::new();
    let rendered = success(env.run(&["deploy", "--dry-run", "-n", "demo", "--image", IMAGE]));
    assert_eq!(
        env.server.request_count(),
        0,
        "--dry-run must not contact the cluster"
    );
    let documents: Vec<Value> = serde_saphyr::from_multiple(&rendered).unwrap();
    let kinds: Vec<&str> = documents
        .iter()
        .map(|d| d["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "Namespace",
            "CustomResourceDefinition",
            "ServiceAccount",
            "Role",
            "RoleBinding",
            "Deployment"
        ]
    );
    assert!(!rendered.contains(": REPLACE_"), "{rendered}");

    env.deploy(&[]);
    for document in &documents {
        let kind = document["kind"].as_str().unwrap().to_lowercase();
        let name = document["metadata"]["name"].as_str().unwrap();
        let live = match document["metadata"]["namespace"].as_str() {
            Some(ns) => env.kubectl(&["-n", ns, "get", &kind, name]),
            None => env.kubectl(&["get", &kind, name]),
        };
        assert_subset(document, &live, &format!("{kind}/{name}"));
    }
}

#[test]
fn server_dry_run_checks_everything_and_persists_nothing() {
    let env = Env::new();
    // In an existing namespace the server checks every namespaced object.
    let stdout = success(env.run(&[
        "deploy",
        "-n",
        "default",
        "--image",
        IMAGE,
        "--dry-run=server",
        "--with-sample",
    ]));
    assert!(stdout.contains("Namespace/default: unchanged"), "{stdout}");
    assert!(
        stdout.contains(&format!("Deployment/{NAME} (default): created")),
        "{stdout}"
    );
    assert!(stdout.contains("HelloWorld/hello-world-sample (default): skipped (its CustomResourceDefinition exists only in this dry run)"), "{stdout}");
    assert!(stdout.contains("nothing was changed"), "{stdout}");

    // In a new namespace only what lives outside it can be checked.
    let stdout = env.deploy(&["--dry-run=server"]);
    assert!(stdout.contains("Namespace/demo: created"), "{stdout}");
    assert!(
        stdout.contains(&format!("CustomResourceDefinition/{CRD}: created")),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!(
            "Deployment/{NAME} (demo): skipped (its namespace exists only in this dry run)"
        )),
        "{stdout}"
    );

    assert!(
        env.server
            .object("apps", "deployments", Some("default"), NAME)
            .is_none()
    );
    assert!(env.server.object("", "namespaces", None, "demo").is_none());
    assert!(
        env.server
            .object(
                "apiextensions.k8s.io",
                "customresourcedefinitions",
                None,
                CRD
            )
            .is_none()
    );
    let writes: Vec<_> = env
        .server
        .requests()
        .into_iter()
        .filter(|r| r.method != "GET")
        .collect();
    assert!(!writes.is_empty());
    assert!(
        writes.iter().all(|r| r.query.contains("dryRun=All")),
        "{writes:#?}"
    );
    assert!(!env.project_file().contains("namespace:"));
}

#[test]
fn a_rollout_that_never_finishes_shows_conditions_and_pod_events() {
    let env = Env::new();
    env.server.set_rollout(Rollout::Never);
    let stderr = failure(
        env.run(&["deploy", "-n", "demo", "--image", IMAGE, "--timeout", "2s"]),
        1,
    );
    assert!(
        stderr.contains(&format!(
            "Deployment/{NAME} (demo) did not roll out within 2s"
        )),
        "{stderr}"
    );
    assert!(
        stderr.contains("Available=False MinimumReplicasUnavailable"),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("Failed to pull image \"{IMAGE}\"")),
        "{stderr}"
    );
    assert!(stderr.contains("BackOff"), "{stderr}");
}

#[test]
fn a_refused_verb_names_verb_resource_namespace_and_identity() {
    let env = Env::new();
    env.server.refuse("patch", "roles", Some("demo"));
    let stderr = failure(env.run(&["deploy", "-n", "demo", "--image", IMAGE]), 1);
    assert!(stderr.contains("user \"test-user\""), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "patch roles.rbac.authorization.k8s.io \"{NAME}\" in namespace \"demo\""
        )),
        "{stderr}"
    );
    assert!(stderr.contains("ask a cluster administrator"), "{stderr}");
    // Stages after the refused one were not applied.
    assert!(
        env.server
            .object("apps", "deployments", Some("demo"), NAME)
            .is_none()
    );
}

#[test]
fn an_unreachable_server_is_named_with_its_context() {
    let env = Env::new();
    let closed = support::closed_port::ClosedPort::new();
    let port = closed.port();
    let config = env.home.path().join("closed");
    let text = std::fs::read_to_string(env.server.kubeconfig())
        .unwrap()
        .replace(&env.server.url(), &format!("http://127.0.0.1:{port}"));
    std::fs::write(&config, text).unwrap();
    let stderr = failure(
        env.run(&[
            "deploy",
            "-n",
            "demo",
            "--image",
            IMAGE,
            "--kubeconfig",
            config.to_str().unwrap(),
        ]),
        1,
    );
    assert!(
        stderr.contains(&format!("http://127.0.0.1:{port}")),
        "{stderr}"
    );
    assert!(stderr.contains("context \"test\""), "{stderr}");
    assert!(stderr.contains("cannot reach"), "{stderr}");
}

#[test]
fn rejected_credentials_are_reported_as_such() {
    let env = Env::new();
    let config = env.home.path().join("wrong-token");
    env.server.write_kubeconfig(&config, "not-the-token", None);
    let stderr = failure(
        env.run(&[
            "deploy",
            "-n",
            "demo",
            "--image",
            IMAGE,
            "--kubeconfig",
            config.to_str().unwrap(),
        ]),
        1,
    );
    assert!(
        stderr.contains("did not accept the credentials"),
        "{stderr}"
    );
    assert!(stderr.contains("log in again"), "{stderr}");
}

#[test]
fn an_unknown_context_lists_the_known_ones() {
    let env = Env::new();
    let stderr = failure(
        env.run(&[
            "deploy",
            "-n",
            "demo",
            "--image",
            IMAGE,
            "--context",
            "prod",
        ]),
        1,
    );
    assert!(stderr.contains("no context \"prod\""), "{stderr}");
    assert!(stderr.contains("\"test\""), "{stderr}");
}

#[test]
fn the_namespace_comes_from_the_context_then_project_then_flag() {
    let env = Env::new();
    let config = env.home.path().join("with-namespace");
    env.server
        .write_kubeconfig(&config, "test-token", Some("from-context"));
    // KUBECONFIG may list several files; a missing one is skipped like kubectl does.
    let list = format!(
        "{}:{}",
        env.home.path().join("absent").display(),
        config.display()
    );
    let output = assert_cmd::Command::cargo_bin("operator-rs")
        .unwrap()
        .current_dir(env.root())
        .env("HOME", env.home.path())
        .env("KUBECONFIG", list)
        .args(["deploy", "--image", IMAGE, "--no-wait"])
        .output()
        .unwrap();
    let stdout = success(output);
    assert!(
        stdout.contains("Namespace/from-context: created"),
        "{stdout}"
    );
    assert!(env.project_file().contains("namespace: from-context"));
    // The recorded namespace now wins over the context's.
    let stdout = success(env.run(&["deploy", "--image", IMAGE, "--no-wait"]));
    assert!(
        stdout.contains(&format!("Deployment/{NAME} (from-context): unchanged")),
        "{stdout}"
    );
}

#[test]
fn a_missing_namespace_is_an_error_without_create_namespace() {
    let env = Env::new();
    let stderr = failure(
        env.run(&[
            "deploy",
            "-n",
            "demo",
            "--image",
            IMAGE,
            "--create-namespace=false",
        ]),
        1,
    );
    assert!(stderr.contains("namespaces \"demo\" not found"), "{stderr}");
    assert!(stderr.contains("--create-namespace"), "{stderr}");
}

#[test]
fn no_image_is_a_usage_error_before_any_request() {
    let env = Env::new();
    let stderr = failure(env.run(&["deploy", "-n", "demo"]), 2);
    assert!(stderr.contains("operator-rs build"), "{stderr}");
    assert!(stderr.contains("--image"), "{stderr}");
    assert!(
        stderr.contains("deploy/operator.yaml (document 1)"),
        "{stderr}"
    );
    assert_eq!(env.server.request_count(), 0);

    // The image recorded by `build` is used when --image is absent.
    let project = env.project_file() + "image: registry.local/built:v9\n";
    std::fs::write(env.root().join("PROJECT"), project).unwrap();
    success(env.run(&["deploy", "-n", "demo", "--no-wait"]));
    let deployment = env.kubectl(&["-n", "demo", "get", "deployment", NAME]);
    assert_eq!(
        deployment["spec"]["template"]["spec"]["containers"][0]["image"],
        "registry.local/built:v9"
    );
}

#[test]
fn a_placeholder_left_or_an_invalid_document_stops_before_any_request() {
    let env = Env::new();
    let account = env.root().join("deploy/service_account.yaml");
    std::fs::write(
        &account,
        "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: hello-world-operator\n  annotations:\n    owner: REPLACE_OWNER\n",
    )
    .unwrap();
    let stderr = failure(env.run(&["deploy", "-n", "demo", "--image", IMAGE]), 1);
    assert!(
        stderr.contains("deploy/service_account.yaml (document 1)"),
        "{stderr}"
    );
    assert!(
        stderr.contains("REPLACE_OWNER at metadata.annotations.owner"),
        "{stderr}"
    );

    std::fs::write(
        &account,
        "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: a\n---\nkind: ServiceAccount\nmetadata:\n  name: b\n",
    )
    .unwrap();
    let stderr = failure(env.run(&["deploy", "-n", "demo", "--image", IMAGE]), 1);
    assert!(
        stderr.contains("deploy/service_account.yaml (document 2)"),
        "{stderr}"
    );
    assert!(stderr.contains("apiVersion is missing"), "{stderr}");
    assert_eq!(env.server.request_count(), 0);
}

#[test]
fn a_crd_that_never_becomes_established_shows_its_conditions() {
    let env = Env::new();
    env.server.set_establish(Establish::Never);
    let stderr = failure(
        env.run(&["deploy", "-n", "demo", "--image", IMAGE, "--timeout", "1s"]),
        1,
    );
    assert!(
        stderr.contains(&format!(
            "CustomResourceDefinition {CRD} did not become Established within 1s"
        )),
        "{stderr}"
    );
    assert!(stderr.contains("Established=False Installing"), "{stderr}");
}

#[test]
fn bad_flags_are_usage_errors() {
    let env = Env::new();
    let stderr = failure(env.run(&["deploy", "-n", "Demo"]), 2);
    assert!(stderr.contains("DNS-1123"), "{stderr}");
    let stderr = failure(env.run(&["deploy", "--timeout", "90"]), 2);
    assert!(stderr.contains("90s"), "{stderr}");
    let stderr = failure(env.run(&["undeploy", "--force"]), 2);
    assert!(stderr.contains("--include-crds"), "{stderr}");
}

#[test]
fn undeploy_removes_everything_but_the_crds_and_is_idempotent() {
    let env = Env::new();
    env.deploy(&[]);
    let stdout = success(env.run(&["undeploy"]));
    for object in [
        format!("Deployment/{NAME} (demo): deleted"),
        format!("RoleBinding/{NAME} (demo): deleted"),
        format!("Role/{NAME} (demo): deleted"),
        format!("ServiceAccount/{NAME} (demo): deleted"),
    ] {
        assert!(stdout.contains(&object), "{object} missing in:\n{stdout}");
    }
    let order: Vec<usize> = ["Deployment/", "RoleBinding/", "Role/", "ServiceAccount/"]
        .iter()
        .map(|k| stdout.find(k).unwrap())
        .collect();
    assert!(
        order.windows(2).all(|w| w[0] < w[1]),
        "reverse order:\n{stdout}"
    );
    assert!(stdout.contains("--include-crds"), "{stdout}");
    assert!(
        env.server
            .object("apps", "deployments", Some("demo"), NAME)
            .is_none()
    );
    assert!(
        env.server
            .object(
                "apiextensions.k8s.io",
                "customresourcedefinitions",
                None,
                CRD
            )
            .is_some()
    );
    let listed = env.kubectl(&[
        "-n",
        "demo",
        "get",
        "deployments,serviceaccounts,roles,rolebindings",
    ]);
    assert_eq!(listed["items"].as_array().unwrap().len(), 0, "{listed}");

    let stdout = success(env.run(&["undeploy"]));
    assert_eq!(lines_with(&stdout, ": not found").len(), 4, "{stdout}");

    let stdout = success(env.run(&["undeploy", "--include-crds"]));
    assert!(
        stdout.contains(&format!("CustomResourceDefinition/{CRD}: deleted")),
        "{stdout}"
    );
    assert!(
        env.server
            .object(
                "apiextensions.k8s.io",
                "customresourcedefinitions",
                None,
                CRD
            )
            .is_none()
    );
}

#[test]
fn undeploy_never_deletes_custom_resources_without_force() {
    let env = Env::new();
    env.deploy(&["--with-sample"]);
    let stderr = failure(env.run(&["undeploy", "--include-crds"]), 2);
    assert!(
        stderr.contains("refusing to delete the CustomResourceDefinitions"),
        "{stderr}"
    );
    assert!(
        stderr.contains("HelloWorld/hello-world-sample (demo)"),
        "{stderr}"
    );
    assert!(stderr.contains("--force"), "{stderr}");
    // Nothing at all was deleted.
    assert!(
        env.server
            .object("apps", "deployments", Some("demo"), NAME)
            .is_some()
    );
    assert!(
        env.server
            .object(
                "charts.example.com",
                "helloworlds",
                Some("demo"),
                "hello-world-sample"
            )
            .is_some()
    );

    // Without --include-crds the custom resources stay, and so does the CRD.
    success(env.run(&["undeploy"]));
    assert!(
        env.server
            .object(
                "charts.example.com",
                "helloworlds",
                Some("demo"),
                "hello-world-sample"
            )
            .is_some()
    );

    let stdout = success(env.run(&["undeploy", "--include-crds", "--force"]));
    assert!(
        stdout.contains("HelloWorld/hello-world-sample (demo): deleted"),
        "{stdout}"
    );
    let cr = stdout.find("HelloWorld/hello-world-sample").unwrap();
    let crd = stdout.find("CustomResourceDefinition/").unwrap();
    assert!(cr < crd, "custom resources go before their CRD:\n{stdout}");
    assert!(
        env.server
            .objects("charts.example.com", "helloworlds")
            .is_empty()
    );
    assert!(
        env.server
            .object(
                "apiextensions.k8s.io",
                "customresourcedefinitions",
                None,
                CRD
            )
            .is_none()
    );
}

#[test]
fn a_deploy_uses_few_requests() {
    let env = Env::new();
    env.deploy(&["--no-wait"]);
    let first = env.server.request_count();
    env.server.reset_requests();
    env.deploy(&["--no-wait"]);
    let second = env.server.requests();
    // A re-run: discovery from the disk cache (0), the namespace (1), and one apply per
    // unchanged object (5), told apart by the answer.
    assert_eq!(second.len(), 6, "{second:#?}");
    assert!(
        second
            .iter()
            .all(|r| r.method == "PATCH" || r.path == "/api/v1/namespaces"),
        "{second:#?}"
    );
    // A first run: aggregated discovery (2) + namespace (1) + a read and an apply per object
    // (5 x 2) + a read of the CRD until it is Established (1).
    assert!(first <= 14, "a first deploy took {first} requests");
}

/// A Rust project deploys the same way: its CRD, RBAC and operator land with namespace and
/// image filled in, and its sample is applied after the CRD.
#[test]
fn a_rust_project_deploys_with_its_sample() {
    let name = RUST_NAME;
    let env = Env::rust();
    let stdout = env.deploy(&["--with-sample"]);
    for object in [
        "CustomResourceDefinition/memcacheds.cache.example.com: created",
        &format!("Role/{name} (demo): created"),
        &format!("Deployment/{name} (demo): created"),
        "Memcached/memcached-sample (demo): created",
        // /metrics: its Service, the role that may read it, and what the operator needs
        // to ask the API server about callers.
        &format!("Service/{name}-metrics (demo): created"),
        &format!("ClusterRole/{name}-metrics-reader: created"),
        &format!("ClusterRoleBinding/{name}-metrics-auth: created"),
    ] {
        assert!(stdout.contains(object), "{object} missing in:\n{stdout}");
    }
    let metrics_auth = env.kubectl(&["get", "clusterrolebinding", &format!("{name}-metrics-auth")]);
    assert_eq!(metrics_auth["subjects"][0]["namespace"], "demo");
    let deployment = env.kubectl(&["-n", "demo", "get", "deployment", name]);
    assert_eq!(
        deployment["spec"]["template"]["spec"]["containers"][0]["image"],
        IMAGE
    );
    let binding = env.kubectl(&["-n", "demo", "get", "rolebinding", name]);
    assert_eq!(binding["subjects"][0]["namespace"], "demo");
    let sample = env.kubectl(&[
        "-n",
        "demo",
        "get",
        "memcacheds.cache.example.com",
        "memcached-sample",
    ]);
    assert_eq!(sample["kind"], "Memcached");
}

/// A kind with two versions deploys as one CRD serving both, with a single storage version; the
/// samples of both versions name the same object, which reads back through either version.
#[test]
fn a_rust_kind_with_two_versions_deploys_as_one_crd() {
    let env = Env::rust();
    success(env.run(&[
        "create",
        "api",
        "--api-version=cache.example.com/v1",
        "--kind=Memcached",
    ]));
    let stdout = env.deploy(&["--with-sample"]);
    assert_eq!(
        stdout.matches("CustomResourceDefinition/").count(),
        1,
        "{stdout}"
    );
    let crd = env.kubectl(&["get", "crd", "memcacheds.cache.example.com"]);
    assert_eq!(
        support::crds::versions(&crd),
        [("v1alpha1", true, true), ("v1", true, false)]
    );
    for version in ["v1alpha1", "v1"] {
        let sample = env.kubectl(&[
            "-n",
            "demo",
            "get",
            &format!("memcacheds.{version}.cache.example.com"),
            "memcached-sample",
        ]);
        assert_eq!(
            sample["apiVersion"],
            format!("cache.example.com/{version}"),
            "{sample:#}"
        );
    }
}

#[test]
fn a_chart_with_cluster_scoped_kinds_deploys_a_role_and_a_cluster_role() {
    let chart = support::project::shared_chart("prometheus-node-exporter");
    let name = "node-exporter-operator";
    let env = Env::made_by(
        &[
            "new",
            name,
            "--type=helm",
            "--yes",
            "--helm-chart",
            chart.to_str().unwrap(),
        ],
        name,
    );
    let stdout = env.deploy(&[]);
    for object in [
        format!("Role/{name} (demo): created"),
        format!("RoleBinding/{name} (demo): created"),
        format!("ClusterRole/{name}: created"),
        format!("ClusterRoleBinding/{name}: created"),
    ] {
        assert!(stdout.contains(&object), "{object} missing in:\n{stdout}");
    }

    // kubectl, the second client, reads both roles back.
    let role = env.kubectl(&["-n", "demo", "get", "role", name]);
    let cluster_role = env.kubectl(&["get", "clusterrole", name]);
    assert!(cluster_role["metadata"].get("namespace").is_none());
    let resources = |role: &Value| -> Vec<String> {
        role["rules"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|r| r["resources"].as_array().unwrap().clone())
            .map(|r| r.as_str().unwrap().to_string())
            .collect()
    };
    let cluster_resources = resources(&cluster_role);
    for resource in &cluster_resources {
        assert!(
            ["clusterroles", "clusterrolebindings"].contains(&resource.as_str()),
            "the ClusterRole holds only cluster-scoped resources, not {resource}"
        );
    }
    assert!(cluster_resources.contains(&"clusterroles".to_string()));
    let namespaced = resources(&role);
    for resource in ["secrets", "daemonsets", "services", "leases", "events"] {
        assert!(
            namespaced.contains(&resource.to_string()),
            "{resource} missing in the Role: {namespaced:?}"
        );
    }
    // Both bindings name the service account in the namespace deploy was given.
    for binding in [
        env.kubectl(&["-n", "demo", "get", "rolebinding", name]),
        env.kubectl(&["get", "clusterrolebinding", name]),
    ] {
        assert_eq!(binding["subjects"][0]["namespace"], "demo", "{binding}");
        assert_eq!(binding["subjects"][0]["name"], name);
    }
    let binding = env.kubectl(&["get", "clusterrolebinding", name]);
    assert_eq!(binding["roleRef"]["kind"], "ClusterRole");

    let stdout = success(env.run(&["undeploy"]));
    for object in [
        format!("ClusterRoleBinding/{name}: deleted"),
        format!("ClusterRole/{name}: deleted"),
        format!("RoleBinding/{name} (demo): deleted"),
        format!("Role/{name} (demo): deleted"),
    ] {
        assert!(stdout.contains(&object), "{object} missing in:\n{stdout}");
    }
    assert!(
        env.server
            .object("rbac.authorization.k8s.io", "clusterroles", None, name)
            .is_none()
    );
}

/// Discovery documents: `/api`, `/apis`, and one group version's `/api/v1`, `/apis/G/V`.
fn is_discovery(request: &RequestRecord) -> bool {
    let segments: Vec<&str> = request.path.split('/').filter(|s| !s.is_empty()).collect();
    request.method == "GET"
        && matches!(
            segments.as_slice(),
            ["api"] | ["apis"] | ["api", _] | ["apis", _, _]
        )
}

fn discovery_paths(requests: &[RequestRecord]) -> Vec<String> {
    requests
        .iter()
        .filter(|r| is_discovery(r))
        .map(|r| r.path.clone())
        .collect()
}

/// Where kubectl keeps the discovery of the test server under `cache_dir`.
fn discovery_dir(env: &Env, cache_dir: &std::path::Path) -> PathBuf {
    let host = env.server.url().replace("http://", "").replace(':', "_");
    cache_dir.join("discovery").join(host)
}

/// kubectl with its own `--cache-dir`, reporting the requests it sent.
fn kubectl_with_cache(env: &Env, cache_dir: &std::path::Path, args: &[&str]) -> Vec<RequestRecord> {
    env.server.reset_requests();
    let output = env
        .server
        .kubectl(cache_dir)
        .args(args)
        .output()
        .expect("kubectl runs");
    assert!(
        output.status.success(),
        "kubectl {args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    env.server.requests()
}

/// Kubernetes before 1.26 (and proxies, emulators) answer an aggregated-discovery request with
/// the legacy documents; deploy reads them instead of taking an empty discovery for the truth.
#[test]
fn deploy_works_against_a_server_that_serves_only_legacy_discovery() {
    let env = Env::new();
    env.server.serve_only_legacy_discovery();
    let stdout = env.deploy(&["--with-sample"]);
    for object in [
        "Namespace/demo: created",
        &format!("CustomResourceDefinition/{CRD}: created"),
        &format!("Deployment/{NAME} (demo): created"),
        "HelloWorld/hello-world-sample (demo): created",
    ] {
        assert!(stdout.contains(object), "{object} missing in:\n{stdout}");
    }
    let asked = discovery_paths(&env.server.requests());
    for path in ["/api", "/apis", "/api/v1", "/apis/apps/v1"] {
        assert!(
            asked.iter().any(|p| p == path),
            "{path} not read: {asked:?}"
        );
    }
    let deployment = env.kubectl(&["-n", "demo", "get", "deployment", NAME]);
    assert_eq!(
        deployment["spec"]["template"]["spec"]["containers"][0]["image"],
        IMAGE
    );
    let sample = env.kubectl(&["-n", "demo", "get", "helloworlds", "hello-world-sample"]);
    assert_eq!(sample["kind"], "HelloWorld");

    // What was read the legacy way is cached like the rest: a re-deploy asks for nothing.
    env.server.reset_requests();
    let stdout = env.deploy(&["--with-sample", "--no-wait"]);
    assert_eq!(
        discovery_paths(&env.server.requests()),
        Vec::<String>::new()
    );
    assert!(
        stdout.contains(&format!("Deployment/{NAME} (demo): unchanged")),
        "{stdout}"
    );
}

/// The discovery cache is kubectl's, file for file: `--cache-dir` is honoured (HOME is not
/// touched), kubectl itself trusts what deploy wrote, a kind the cache lacks is asked for once
/// and added, and a stale cache is read again.
#[test]
fn discovery_is_cached_where_kubectl_keeps_it_and_kubectl_trusts_it() {
    let env = Env::new();
    let cache = env.home.path().join("elsewhere");
    let cache_flag = cache.to_str().unwrap().to_string();
    env.deploy(&["--no-wait", "--with-sample", "--cache-dir", &cache_flag]);
    assert!(
        !env.home.path().join(".kube").exists(),
        "--cache-dir must be used instead of ~/.kube/cache"
    );
    let dir = discovery_dir(&env, &cache);
    for file in [
        "servergroups.json",
        "v1/serverresources.json",
        "apps/v1/serverresources.json",
        "apiextensions.k8s.io/v1/serverresources.json",
        // The sample's kind, served once its CRD was created, is cached as well.
        "charts.example.com/v1alpha1/serverresources.json",
    ] {
        assert!(
            dir.join(file).is_file(),
            "{file} missing in {}",
            dir.display()
        );
    }
    let groups: Value =
        serde_json::from_slice(&std::fs::read(dir.join("servergroups.json")).unwrap()).unwrap();
    assert_eq!(groups["kind"], "APIGroupList");
    assert!(
        groups["groups"]
            .as_array()
            .unwrap()
            .iter()
            .any(|g| g["name"] == "charts.example.com"),
        "{groups}"
    );

    // A warm cache: no discovery request at all.
    env.server.reset_requests();
    env.deploy(&["--no-wait", "--with-sample", "--cache-dir", &cache_flag]);
    assert_eq!(
        discovery_paths(&env.server.requests()),
        Vec::<String>::new()
    );

    // kubectl reads the same files and needs no discovery either, custom kind included.
    let asked = kubectl_with_cache(
        &env,
        &cache,
        // (kubectl itself rediscovers for `helloworlds.charts.example.com`, even with its own
        // cache: the plain plural is what shows whether it trusts the files.)
        &["-n", "demo", "get", "helloworlds,deployments", "-o", "name"],
    );
    assert_eq!(discovery_paths(&asked), Vec::<String>::new(), "{asked:#?}");

    // Older than kubectl's six hours: read from the server again, and rewritten.
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(7 * 3600);
    std::fs::File::options()
        .write(true)
        .open(dir.join("servergroups.json"))
        .unwrap()
        .set_modified(old)
        .unwrap();
    env.server.reset_requests();
    env.deploy(&["--no-wait", "--cache-dir", &cache_flag]);
    assert_eq!(discovery_paths(&env.server.requests()), ["/api", "/apis"]);
    let written = std::fs::metadata(dir.join("servergroups.json"))
        .unwrap()
        .modified()
        .unwrap();
    assert!(written > old);
}

/// A cache kubectl filled before the project's CRD existed lacks its kind: deploy uses the
/// rest of the cache and asks the server for that one group version, once.
#[test]
fn a_kind_missing_from_a_kubectl_cache_is_asked_for_once() {
    let env = Env::new();
    let cache = env.home.path().join(".kube").join("cache");
    kubectl_with_cache(&env, &cache, &["get", "namespaces", "-o", "name"]);
    assert!(
        discovery_dir(&env, &cache)
            .join("servergroups.json")
            .is_file()
    );

    env.server.reset_requests();
    let stdout = env.deploy(&["--no-wait", "--with-sample"]);
    assert!(
        stdout.contains("HelloWorld/hello-world-sample (demo): created"),
        "{stdout}"
    );
    assert_eq!(
        discovery_paths(&env.server.requests()),
        ["/apis/charts.example.com/v1alpha1"]
    );
    env.server.reset_requests();
    env.deploy(&["--no-wait", "--with-sample"]);
    assert_eq!(
        discovery_paths(&env.server.requests()),
        Vec::<String>::new()
    );
}

/// The steady state of a deploy loop costs no more requests than `kubectl apply
/// --server-side` of the same manifests with a warm cache.
#[test]
fn a_redeploy_sends_no_more_requests_than_kubectl_apply_with_a_warm_cache() {
    let env = Env::new();
    let rendered = success(env.run(&["deploy", "--dry-run", "-n", "demo", "--image", IMAGE]));
    let file = env.home.path().join("rendered.yaml");
    std::fs::write(&file, rendered).unwrap();
    let kubectl_cache = env.home.path().join("kubectl-cache");
    let apply = ["apply", "--server-side", "-f", file.to_str().unwrap()];

    env.deploy(&["--no-wait"]);
    let cold_kubectl = kubectl_with_cache(&env, &kubectl_cache, &apply).len();
    let warm_kubectl = kubectl_with_cache(&env, &kubectl_cache, &apply).len();
    env.server.reset_requests();
    env.deploy(&["--no-wait"]);
    let ours = env.server.requests();
    assert!(
        ours.len() <= warm_kubectl,
        "operator-rs sent {} requests, kubectl {warm_kubectl} (cold {cold_kubectl}): {ours:#?}",
        ours.len()
    );
}

const UNINSTALL_FINALIZER: &str = "helm.sdk.operatorframework.io/uninstall-release";

/// What the helm-operator does to a custom resource it reconciles: it adds its finalizer.
fn add_uninstall_finalizer(env: &Env) {
    let output = env
        .server
        .kubectl(&env.home.path().join("kubectl-cache"))
        .args(["-n", "demo", "patch", "helloworlds", "hello-world-sample"])
        .args(["--type=merge", "-p"])
        .arg(format!(
            r#"{{"metadata":{{"finalizers":["{UNINSTALL_FINALIZER}"]}}}}"#
        ))
        .output()
        .expect("kubectl runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

fn sample_exists(env: &Env) -> bool {
    env.server
        .object(
            "charts.example.com",
            "helloworlds",
            Some("demo"),
            "hello-world-sample",
        )
        .is_some()
}

fn operator_exists(env: &Env) -> bool {
    env.server
        .object("apps", "deployments", Some("demo"), NAME)
        .is_some()
}

/// A custom resource that waits for the operator's finalizer would be stranded by removing
/// the operator first: without a terminal or a flag, undeploy says so and deletes nothing;
/// `--keep-custom-resources` removes the operator and keeps it, with a warning.
#[test]
fn undeploy_never_strands_custom_resources_that_wait_for_the_operator() {
    let env = Env::new();
    env.deploy(&["--with-sample", "--no-wait"]);
    add_uninstall_finalizer(&env);

    let stderr = failure(env.run(&["undeploy"]), 2);
    for words in [
        "refusing to remove the operator",
        "HelloWorld/hello-world-sample (demo)",
        UNINSTALL_FINALIZER,
        "undeletable",
        "--delete-custom-resources",
        "--keep-custom-resources",
        "nothing was deleted",
    ] {
        assert!(stderr.contains(words), "{words} missing in:\n{stderr}");
    }
    assert!(operator_exists(&env) && sample_exists(&env));

    let output = env.run(&["undeploy", "--keep-custom-resources"]);
    let stderr = String::from_utf8_lossy(&output.stderr).to_string();
    success(output);
    assert!(stderr.contains("kept as asked"), "{stderr}");
    assert!(!operator_exists(&env));
    assert!(sample_exists(&env));

    // The two choices exclude each other, and keeping them excludes deleting their CRDs.
    for args in [
        [
            "undeploy",
            "--keep-custom-resources",
            "--delete-custom-resources",
        ],
        ["undeploy", "--keep-custom-resources", "--include-crds"],
    ] {
        let stderr = failure(env.run(&args), 2);
        assert!(stderr.contains("cannot be used with"), "{stderr}");
    }
}

/// Plays the operator while `undeploy` runs: when the sample is being deleted, it removes the
/// finalizer, as the helm-operator does once it has uninstalled the release. Returns what
/// `undeploy` returned and, for each time the sample was seen waiting for its finalizer,
/// whether the operator still existed then.
fn with_the_operator_finishing_the_sample<R>(
    env: &Env,
    undeploy: impl FnOnce() -> R,
) -> (R, Vec<bool>) {
    let (seen, sightings) = std::sync::mpsc::channel();
    let result = std::thread::scope(|scope| {
        scope.spawn(move || {
            while let Some(sample) = env.server.object(
                "charts.example.com",
                "helloworlds",
                Some("demo"),
                "hello-world-sample",
            ) {
                if sample["metadata"]["deletionTimestamp"].is_string() {
                    seen.send(operator_exists(env)).unwrap();
                    let output = support::kube_server::kubectl()
                        .arg("--kubeconfig")
                        .arg(env.server.kubeconfig())
                        .args(["-n", "demo", "patch", "helloworlds", "hello-world-sample"])
                        .args(["--type=merge", "-p", r#"{"metadata":{"finalizers":null}}"#])
                        .output()
                        .unwrap();
                    assert!(output.status.success() || !sample_exists(env));
                }
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
        });
        undeploy()
    });
    (result, sightings.try_iter().collect())
}

/// The custom resource went first and the operator only once it was gone; the CRD stays.
fn assert_deleted_in_the_safe_order(env: &Env, output: &str, sightings: &[bool]) {
    let cr = output
        .find("HelloWorld/hello-world-sample (demo): deleted")
        .unwrap_or_else(|| panic!("the sample is not deleted:\n{output}"));
    let operator = output
        .find(&format!("Deployment/{NAME} (demo): deleted"))
        .unwrap_or_else(|| panic!("the operator is not deleted:\n{output}"));
    assert!(cr < operator, "custom resources go first:\n{output}");
    // The server kept the custom resource, deleted but finalized, until the "operator"
    // removed the finalizer; all that time the operator was still there.
    assert!(
        !sightings.is_empty(),
        "the custom resource was never seen waiting for its finalizer"
    );
    assert!(
        sightings
            .iter()
            .all(|operator_was_there| *operator_was_there),
        "the operator was deleted while a custom resource still waited for it"
    );
    assert!(!sample_exists(env) && !operator_exists(env));
    assert!(
        env.server
            .object(
                "apiextensions.k8s.io",
                "customresourcedefinitions",
                None,
                CRD
            )
            .is_some()
    );
}

/// `--delete-custom-resources` takes the safe order: the custom resources go first, the
/// operator (played here by a thread that removes the finalizer of a custom resource being
/// deleted, as the helm-operator does once it has uninstalled the release) finishes them while
/// it still exists, and only then is it removed; the CRD stays.
#[test]
fn undeploy_deletes_custom_resources_before_the_operator_when_asked() {
    let env = Env::new();
    env.deploy(&["--with-sample", "--no-wait"]);
    add_uninstall_finalizer(&env);
    let (stdout, sightings) = with_the_operator_finishing_the_sample(&env, || {
        success(env.run(&["undeploy", "--delete-custom-resources", "--no-wait"]))
    });
    assert_deleted_in_the_safe_order(&env, &stdout, &sightings);
}

/// The question undeploy asks on a terminal about custom resources that wait for the operator.
const SAFE_ORDER_QUESTION: &str =
    "Delete them first, and remove the operator once it has finished them?";

/// On a terminal (stdin and stderr both are one), undeploy asks instead of refusing: no deletes
/// nothing and fails, yes takes the safe order that `--delete-custom-resources` takes.
#[test]
fn undeploy_on_a_terminal_asks_before_deleting_custom_resources_first() {
    let env = Env::new();
    env.deploy(&["--with-sample", "--no-wait"]);
    add_uninstall_finalizer(&env);

    let no = env.run_on_terminal(&["undeploy", "--no-wait"], SAFE_ORDER_QUESTION, "n");
    assert_eq!(no.code, Some(1), "the screen:\n{}", no.screen);
    for words in [
        "HelloWorld/hello-world-sample (demo)",
        UNINSTALL_FINALIZER,
        "undeletable",
        "nothing was deleted",
        "--keep-custom-resources",
    ] {
        assert!(
            no.screen.contains(words),
            "{words} missing in:\n{}",
            no.screen
        );
    }
    assert!(
        !no.screen.contains(": deleted"),
        "no means nothing is deleted:\n{}",
        no.screen
    );
    assert!(operator_exists(&env) && sample_exists(&env));

    let (yes, sightings) = with_the_operator_finishing_the_sample(&env, || {
        env.run_on_terminal(&["undeploy", "--no-wait"], SAFE_ORDER_QUESTION, "y")
    });
    assert_eq!(yes.code, Some(0), "the screen:\n{}", yes.screen);
    assert_deleted_in_the_safe_order(&env, &yes.screen, &sightings);
}

fn is_sample_write(r: &RequestRecord) -> bool {
    r.path.ends_with("/memcacheds/memcached-sample") && r.method == "PATCH"
}

fn is_sample_probe(r: &RequestRecord) -> bool {
    r.path.ends_with("/namespaces/demo/memcacheds")
        && r.method == "POST"
        && r.query.contains("dryRun=All")
}

/// deploy waits until the webhooks answer before it applies the sample: the Service has no
/// endpoint at first, so the API server refuses the sample's dry run, until an endpoint
/// pointing at a webhook server appears. undeploy then removes the configurations before the
/// operator, so no write waits for a webhook that is gone.
#[test]
fn deploy_waits_for_the_webhooks_before_the_sample_and_undeploy_removes_them_first() {
    use support::webhook_server::{WebhookServer, allow, patch};
    let env = Env::rust();
    let hooks = WebhookServer::start(&["memcached-operator-webhook.demo.svc"], |path, review| {
        if path.starts_with("/mutate") {
            patch(
                review,
                serde_json::json!([{"op": "add", "path": "/metadata/labels",
                                    "value": {"defaulted": "yes"}}]),
            )
        } else {
            allow(review)
        }
    });
    support::webhook_project::add_webhooks(&env.root(), Some(&hooks.ca_bundle()));
    let mut deploy = env
        .command(&[
            "deploy",
            "-n",
            "demo",
            "--image",
            IMAGE,
            "--with-sample",
            "--timeout=2m",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let refused = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while !env.server.requests().iter().any(is_sample_probe) {
        assert!(
            std::time::Instant::now() < refused,
            "deploy never tried the sample: {:?}",
            deploy.try_wait()
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(
        !env.server.requests().iter().any(is_sample_write),
        "the sample went in while no webhook answered"
    );
    let before_endpoint = env.server.request_count();
    let slice = serde_json::json!({
        "apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
        "metadata": {"name": "memcached-operator-webhook-x1", "namespace": "demo",
                     "labels": {"kubernetes.io/service-name": "memcached-operator-webhook"}},
        "addressType": "IPv4",
        "ports": [{"name": "webhook", "port": hooks.port()}],
        "endpoints": [{"addresses": ["127.0.0.1"], "conditions": {"ready": true}}]});
    let slice_file = env.home.path().join("slice.json");
    std::fs::write(&slice_file, slice.to_string()).unwrap();
    env.kubectl(&["apply", "--server-side", "-f", slice_file.to_str().unwrap()]);
    let output = deploy.wait_with_output().unwrap();
    let stdout = success(output);
    assert!(stdout.contains("Webhooks: answering"), "{stdout}");
    let requests = env.server.requests();
    let first_write = requests.iter().position(is_sample_write).unwrap();
    assert!(first_write >= before_endpoint, "{requests:#?}");
    let order: Vec<usize> = [
        "Deployment/memcached-operator (demo): created",
        "MutatingWebhookConfiguration/memcached-operator-mutating: created",
        "Webhooks: answering",
        "Memcached/memcached-sample (demo): created",
    ]
    .iter()
    .map(|line| {
        stdout
            .find(line)
            .unwrap_or_else(|| panic!("{line} missing in:\n{stdout}"))
    })
    .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{stdout}");
    let sample = env.kubectl(&[
        "-n",
        "demo",
        "get",
        "memcacheds.cache.example.com",
        "memcached-sample",
    ]);
    assert_eq!(
        sample["metadata"]["labels"]["defaulted"], "yes",
        "{sample:#}"
    );
    let validated = hooks
        .reviews()
        .iter()
        .filter(|(path, review)| {
            path.starts_with("/validate") && review["request"]["dryRun"] == false
        })
        .count();
    assert_eq!(validated, 1);

    env.server.reset_requests();
    let stdout = success(env.run(&["undeploy", "-n", "demo"]));
    let deletes: Vec<String> = env
        .server
        .requests()
        .into_iter()
        .filter(|r| r.method == "DELETE")
        .map(|r| r.path)
        .collect();
    let position = |resource: &str| {
        deletes
            .iter()
            .position(|p| p.contains(resource))
            .unwrap_or_else(|| panic!("no DELETE of {resource}: {deletes:#?}\n{stdout}"))
    };
    let operator = position("/deployments/memcached-operator");
    for configuration in [
        "/mutatingwebhookconfigurations/memcached-operator-mutating",
        "/validatingwebhookconfigurations/memcached-operator-validating",
    ] {
        assert!(position(configuration) < operator, "{deletes:#?}");
    }
    assert!(
        stdout.contains("MutatingWebhookConfiguration/memcached-operator-mutating: deleted"),
        "{stdout}"
    );
    assert!(
        env.server
            .objects(
                "admissionregistration.k8s.io",
                "validatingwebhookconfigurations"
            )
            .is_empty()
    );
}

#[test]
fn a_not_found_with_a_reason_of_its_own_still_means_not_found() {
    // Some API servers, proxies and emulators answer a missing object with 404 and a reason
    // Kubernetes does not define; client-go reads that by its code, and so must deploy.
    let env = Env::new();
    env.server.answer_not_found_with("Object Not Found");
    let stdout = env.deploy(&[]);
    assert!(
        stdout.contains(&format!("CustomResourceDefinition/{CRD}: created")),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!("Deployment/{NAME} (demo): rolled out")),
        "{stdout}"
    );
    let stdout = success(env.run(&["undeploy"]));
    assert!(
        stdout.contains(&format!("Deployment/{NAME} (demo): deleted")),
        "{stdout}"
    );
    // Gone now: each 404 (with the server's own reason) reads as not found.
    let stdout = success(env.run(&["undeploy"]));
    assert_eq!(lines_with(&stdout, ": not found").len(), 4, "{stdout}");
}

#[test]
fn the_rollout_wait_outlasts_a_cut_of_the_api_server() {
    let env = Env::new();
    env.server.set_rollout(Rollout::Manual);
    let deploy = env
        .command(&[
            "deploy",
            "-n",
            "demo",
            "--image",
            IMAGE,
            "--timeout",
            "120s",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let until = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while env
        .server
        .object("apps", "deployments", Some("demo"), NAME)
        .is_none()
    {
        assert!(std::time::Instant::now() < until, "no Deployment applied");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    // The API server goes away while deploy waits for the rollout, then comes back with the
    // rollout done: deploy rides the cut out instead of failing on the first refused poll.
    env.server
        .cut_connections(std::time::Duration::from_secs(4));
    std::thread::sleep(std::time::Duration::from_secs(4));
    env.server.complete_rollout("demo", NAME);
    let output = deploy.wait_with_output().unwrap();
    let stdout = success(output);
    assert!(
        stdout.contains(&format!("Deployment/{NAME} (demo): rolled out (1/1 ready)")),
        "{stdout}"
    );
}
