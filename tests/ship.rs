//! `generate bundle` and `generate chart` end to end, judged by real parts: the bundle applied
//! by the real `kubectl` gives what `deploy` gives; real Helm 4 renders the chart (defaults,
//! every namespace watched, metrics with a ServiceMonitor, a project with webhooks from
//! `create webhook` with the operator's own certificates or cert-manager's, two releases side
//! by side), `operator-rs template` renders it the same, `kubernetes-validate --strict` and
//! `checkov` pass what it renders, and Helm installs, upgrades and uninstalls the chart of a
//! Rust project, a Helm project and a project with webhooks on the Kubernetes API test server.

mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::{Value, json};
use support::helm_oracle::{HelmOracle, HelmReleases, RenderRequest};
use support::kube_server::KubeServer;
use support::project::{list_entries, operator_rs};

const IMAGE: &str = "registry.local/team/demo-op:v0.3.1";
const RUST: &str = "demo-op";
const HELM: &str = "helm-op";
const NAMESPACE: &str = "team-a";

/// A project made by the real `operator-rs new`.
struct Project {
    _dir: tempfile::TempDir,
    root: PathBuf,
    name: &'static str,
}

fn rust_project() -> Project {
    make(
        RUST,
        &[
            "new",
            RUST,
            "--api-version=cache.example.com/v1alpha1",
            "--kind=Memcached",
        ],
    )
}

fn helm_project() -> Project {
    make(
        HELM,
        &[
            "new",
            HELM,
            "--type=helm",
            "--api-version=web.example.com/v1",
            "--kind=Nginx",
        ],
    )
}

/// A Helm project on the operator-framework helm-operator image (the other runtime).
fn helm_operator_project() -> Project {
    make(
        "helm-go-op",
        &[
            "new",
            "helm-go-op",
            "--type=helm",
            "--runtime=helm-operator",
            "--api-version=web.example.com/v1",
            "--kind=Nginx",
        ],
    )
}

/// A Helm project whose chart needs cluster scope: deploy/role.yaml holds a Role and a
/// ClusterRole of the same name, role_binding.yaml a RoleBinding and a ClusterRoleBinding.
fn cluster_scoped_helm_project() -> Project {
    let chart = support::project::shared_chart("prometheus-node-exporter");
    make(
        "node-exporter-operator",
        &[
            "new",
            "node-exporter-operator",
            "--type=helm",
            "--helm-chart",
            chart.to_str().unwrap(),
        ],
    )
}

/// A Rust project with webhooks, made by the real commands: a second version of the kind, and
/// defaulting, validation and conversion webhooks (`deploy/webhook.yaml`, the CRD converted
/// through the operator's Service, the container's `webhook` port).
fn webhook_project() -> Project {
    let project = rust_project();
    success(&project.run(&[
        "create",
        "api",
        "--api-version=cache.example.com/v1beta1",
        "--kind=Memcached",
    ]));
    success(&project.run(&[
        "create",
        "webhook",
        "--kind=Memcached",
        "--defaulting",
        "--validation",
        "--conversion",
    ]));
    project
}

fn make(name: &'static str, args: &[&str]) -> Project {
    let dir = tempfile::tempdir().unwrap();
    let output = operator_rs(dir.path())
        .args(args)
        .args(["--yes", "--quiet"])
        .output()
        .unwrap();
    success(&output);
    Project {
        root: dir.path().join(name),
        _dir: dir,
        name,
    }
}

impl Project {
    fn run(&self, args: &[&str]) -> Output {
        operator_rs(&self.root)
            .env("HOME", self.root.join("home"))
            .env_remove("KUBECONFIG")
            .args(args)
            .output()
            .unwrap()
    }

    fn chart(&self) -> PathBuf {
        self.root.join("dist/chart")
    }

    fn generate_chart(&self) -> String {
        success(&self.run(&["generate", "chart", "--image", IMAGE]))
    }
}

fn success(output: &Output) -> String {
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "expected success, got {:?}\nstdout:\n{stdout}\nstderr:\n{}",
        output.status.code(),
        String::from_utf8_lossy(&output.stderr)
    );
    format!("{stdout}{}", String::from_utf8_lossy(&output.stderr))
}

fn usage_failure(output: &Output) -> String {
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(
        output.status.code(),
        Some(2),
        "stdout:\n{}\nstderr:\n{stderr}",
        String::from_utf8_lossy(&output.stdout)
    );
    stderr
}

/// The documents of a multi-document YAML stream, parsed.
fn documents(text: &str) -> Vec<Value> {
    operator_rs::yaml::from_str_multi::<Value>(text)
        .unwrap()
        .into_iter()
        .filter(|v| !v.is_null())
        .collect()
}

fn key(object: &Value) -> (String, String, String) {
    (
        object["kind"].as_str().unwrap_or_default().to_string(),
        object["metadata"]["namespace"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
        object["metadata"]["name"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
    )
}

// ---------------------------------------------------------------- bundle

#[test]
fn the_bundle_applied_by_kubectl_gives_what_deploy_gives() {
    // A Rust operator also has its metrics Service and the cluster roles of /metrics
    // (deploy/metrics_*.yaml).
    let rust_kinds = [
        "Namespace",
        "CustomResourceDefinition",
        "ServiceAccount",
        "Role",
        "ClusterRole",
        "ClusterRole",
        "RoleBinding",
        "ClusterRoleBinding",
        "Deployment",
        "Service",
    ];
    let helm_kinds = [
        "Namespace",
        "CustomResourceDefinition",
        "ServiceAccount",
        "Role",
        "RoleBinding",
        "Deployment",
    ];
    // With webhooks: the certificate's Role and the CA's ClusterRole, the webhook Service, and
    // the configurations last, once the operator that answers them is there.
    let webhook_kinds = [
        "Namespace",
        "CustomResourceDefinition",
        "ServiceAccount",
        "Role",
        "Role",
        "ClusterRole",
        "ClusterRole",
        "ClusterRole",
        "RoleBinding",
        "RoleBinding",
        "ClusterRoleBinding",
        "ClusterRoleBinding",
        "Deployment",
        "Service",
        "Service",
        "MutatingWebhookConfiguration",
        "ValidatingWebhookConfiguration",
    ];
    for (project, expected) in [
        (rust_project(), &rust_kinds[..]),
        (helm_project(), &helm_kinds[..]),
        (webhook_project(), &webhook_kinds[..]),
    ] {
        let out = success(&project.run(&["generate", "bundle", "--image", IMAGE, "-n", NAMESPACE]));
        assert!(out.contains("dist/install.yaml"), "{out}");
        let text = std::fs::read_to_string(project.root.join("dist/install.yaml")).unwrap();
        assert!(!text.contains("REPLACE_"), "a placeholder is left:\n{text}");
        let objects = documents(&text);
        let kinds: Vec<&str> = objects
            .iter()
            .map(|o| o["kind"].as_str().unwrap())
            .collect();
        assert_eq!(kinds, expected, "deploy's order");
        assert_eq!(objects[0]["metadata"]["name"], NAMESPACE);
        let deployment = objects.iter().find(|o| o["kind"] == "Deployment").unwrap();
        assert_eq!(
            deployment["spec"]["template"]["spec"]["containers"][0]["image"],
            IMAGE
        );
        // Nothing outside dist/ changed.
        let mut entries = list_entries(&project.root.join("dist"));
        entries.sort();
        assert_eq!(entries, ["install.yaml"]);

        // One server gets `deploy`, another `kubectl apply --server-side` of the bundle.
        let deployed = KubeServer::start();
        let applied = KubeServer::start();
        let home = tempfile::tempdir().unwrap();
        // No operator runs on the test server to answer the webhooks `deploy` would wait for.
        let webhooks = project.root.join("deploy/webhook.yaml").is_file();
        let out = operator_rs(&project.root)
            .env("HOME", home.path())
            .env("KUBECONFIG", deployed.kubeconfig())
            .args(["deploy", "-n", NAMESPACE, "--image", IMAGE])
            .args(webhooks.then_some("--no-wait"))
            .output()
            .unwrap();
        success(&out);
        let out = applied
            .kubectl(&home.path().join("cache"))
            .args(["apply", "--server-side", "-f"])
            .arg(project.root.join("dist/install.yaml"))
            .output()
            .unwrap();
        success(&out);
        for object in &objects {
            let (kind, namespace, name) = key(object);
            let get = |server: &KubeServer| {
                let mut command = server.kubectl(&home.path().join("cache"));
                command.args(["get", &kind, &name, "-o", "json"]);
                if !namespace.is_empty() {
                    command.args(["-n", &namespace]);
                }
                let output = command.output().unwrap();
                normalized(serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
                    panic!(
                        "{kind}/{name}: {e}: {}",
                        String::from_utf8_lossy(&output.stderr)
                    )
                }))
            };
            assert_eq!(
                get(&deployed),
                get(&applied),
                "{kind}/{name} differs between deploy and the bundle"
            );
        }
    }
}

/// An object without what the server sets on its own (and the test server's rollout).
fn normalized(mut object: Value) -> Value {
    if let Some(metadata) = object["metadata"].as_object_mut() {
        for field in [
            "uid",
            "resourceVersion",
            "creationTimestamp",
            "managedFields",
            "generation",
        ] {
            metadata.remove(field);
        }
    }
    if let Some(map) = object.as_object_mut() {
        map.remove("status");
    }
    object
}

#[test]
fn crds_separately_go_to_crds_yaml_and_output_goes_where_asked() {
    let project = rust_project();
    let out_dir = project.root.join("elsewhere/ship");
    success(&project.run(&[
        "generate",
        "bundle",
        "--image",
        IMAGE,
        "--crds-separately",
        "--output",
        out_dir.to_str().unwrap(),
    ]));
    let install = documents(&std::fs::read_to_string(out_dir.join("install.yaml")).unwrap());
    let crds = documents(&std::fs::read_to_string(out_dir.join("crds.yaml")).unwrap());
    assert!(
        install
            .iter()
            .all(|o| o["kind"] != "CustomResourceDefinition")
    );
    assert_eq!(crds.len(), 1);
    assert_eq!(crds[0]["kind"], "CustomResourceDefinition");
    // The namespace defaults as deploy's does: here, with no kubeconfig, "default".
    assert_eq!(install[0]["metadata"]["name"], "default");
    assert!(!project.root.join("dist").exists());
}

// ---------------------------------------------------------------- chart rendering

/// One way to render a chart: values, release name and namespace.
struct Case {
    what: &'static str,
    values: Value,
    release: &'static str,
    namespace: &'static str,
}

fn case(what: &'static str, values: Value) -> Case {
    Case {
        what,
        values,
        release: "ops",
        namespace: NAMESPACE,
    }
}

/// Helm's rendering of `chart` for `case`, as (template, document) pairs, NOTES.txt aside.
fn helm_render(oracle: &mut HelmOracle, chart: &Path, case: &Case) -> Vec<(String, String)> {
    let rendered = oracle
        .render(
            &RenderRequest::new(chart)
                .values(case.values.clone())
                .release(case.release, case.namespace),
        )
        .unwrap_or_else(|e| panic!("Helm cannot render the chart ({}): {e}", case.what));
    let mut docs: Vec<(String, String)> = rendered
        .iter()
        .filter(|(k, _)| !k.ends_with("NOTES.txt"))
        .flat_map(|(k, v)| {
            operator_rs::render::manifests::split_documents(v)
                .into_iter()
                .filter(|d| !d.trim().is_empty())
                .map(move |d| (k.clone(), d.trim_end().to_string()))
        })
        .collect();
    docs.sort();
    docs
}

/// `operator-rs template` of the same, in the same form.
fn our_render(chart: &Path, case: &Case) -> Vec<(String, String)> {
    let dir = tempfile::tempdir().unwrap();
    let values = dir.path().join("values.json");
    std::fs::write(&values, case.values.to_string()).unwrap();
    let output = operator_rs(dir.path())
        .arg("template")
        .arg(chart)
        .args(["--name", case.release, "-n", case.namespace, "-f"])
        .arg(&values)
        .output()
        .unwrap();
    let text = success(&output);
    let mut docs: Vec<(String, String)> = operator_rs::render::manifests::split_documents(&text)
        .into_iter()
        .filter(|d| !d.trim().is_empty())
        .map(|d| {
            let (first, rest) = d.split_once('\n').unwrap_or((&d, ""));
            let source = first.strip_prefix("# Source: ").expect("a # Source line");
            (source.to_string(), rest.trim_end().to_string())
        })
        .collect();
    docs.sort();
    docs
}

/// Validates rendered documents with kubernetes-validate (built-in kinds: the judges know no
/// schema of the CRD-defined kinds ServiceMonitor, Issuer and Certificate) and checkov, once
/// for every case of a chart: `renders` are (case, documents).
fn judge(renders: &[(&str, Vec<(String, String)>)]) {
    let dir = tempfile::tempdir().unwrap();
    let mut validated = Vec::new();
    for (c, (what, docs)) in renders.iter().enumerate() {
        for (i, (_, doc)) in docs.iter().enumerate() {
            let path = dir.path().join(format!("case{c:02}-{i:02}.yaml"));
            std::fs::write(&path, format!("# {what}\n{doc}\n")).unwrap();
            let object: Value = operator_rs::yaml::from_str(doc)
                .unwrap_or_else(|e| panic!("{what}: not YAML: {e}\n{doc}"));
            assert_skips_documented(what, &object);
            let api_version = object["apiVersion"].as_str().unwrap_or_default();
            if !(api_version.starts_with("monitoring.coreos.com/")
                || api_version.starts_with("cert-manager.io/"))
            {
                validated.push(path);
            }
        }
    }
    support::tools::kubernetes_validate(&validated);
    support::tools::checkov(dir.path());
}

/// Every check `object` has checkov skip says why: `checkov.io/skipN: CHECK_ID=reason`.
fn assert_skips_documented(what: &str, object: &Value) {
    let annotations = object["metadata"]["annotations"].as_object();
    for (key, value) in annotations.into_iter().flatten() {
        if !key.starts_with("checkov.io/skip") {
            continue;
        }
        let value = value.as_str().unwrap_or_default();
        let (check, reason) = value.split_once('=').unwrap_or((value, ""));
        assert!(
            check.starts_with("CKV") && reason.split_whitespace().count() >= 3,
            "{what}: {} {} skips {check} without a reason: {key}: {value}",
            object["kind"],
            object["metadata"]["name"]
        );
    }
}

fn objects_of(docs: &[(String, String)]) -> Vec<Value> {
    docs.iter()
        .map(|(_, d)| operator_rs::yaml::from_str(d).unwrap())
        .collect()
}

fn cluster_scoped(objects: &[Value]) -> BTreeSet<(String, String)> {
    objects
        .iter()
        .filter(|o| o["metadata"]["namespace"].is_null())
        .map(|o| {
            (
                o["kind"].as_str().unwrap().to_string(),
                o["metadata"]["name"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn check_chart(oracle: &mut HelmOracle, project: &Project, webhooks: bool) {
    let chart = project.chart();
    let mut cases = vec![
        case("default values", json!({})),
        case("every namespace watched", json!({"watchNamespace": ""})),
        case(
            "another namespace watched",
            json!({"watchNamespace": "team-b"}),
        ),
        case(
            "metrics with a ServiceMonitor",
            json!({"metrics": {"serviceMonitor": {"enabled": true, "interval": "30s", "labels": {"release": "prom"}}}}),
        ),
        case(
            "scheduling and extra environment",
            json!({
                "replicaCount": 2,
                "leaderElection": {"enabled": true},
                "extraEnv": [{"name": "EXTRA", "value": "1"}],
                "nodeSelector": {"kubernetes.io/os": "linux"},
                "tolerations": [{"key": "dedicated", "operator": "Exists", "effect": "NoSchedule"}],
                "imagePullSecrets": [{"name": "regcred"}],
                "crds": {"keep": false},
            }),
        ),
    ];
    if webhooks {
        cases.extend([
            case(
                "webhook certificate from cert-manager",
                json!({"webhook": {"certManager": {"enabled": true}}}),
            ),
            case(
                "webhook certificate from a cert-manager ClusterIssuer",
                json!({"webhook": {"certManager": {"enabled": true,
                    "issuerRef": {"kind": "ClusterIssuer", "name": "company-ca"}}}}),
            ),
            case(
                "webhook port and certificate lifetime",
                json!({"webhook": {"port": 10443, "certLifetime": "30d"}, "watchNamespace": ""}),
            ),
        ]);
    }
    let mut renders = Vec::new();
    for case in &cases {
        let helm = helm_render(oracle, &chart, case);
        let ours = our_render(&chart, case);
        assert_eq!(
            ours, helm,
            "{}: operator-rs template differs from Helm ({})",
            project.name, case.what
        );
        let objects = objects_of(&helm);
        renders.push((case.what, helm));
        let deployment = objects
            .iter()
            .find(|o| o["kind"] == "Deployment")
            .expect("the operator's Deployment");
        let container = &deployment["spec"]["template"]["spec"]["containers"][0];
        assert_eq!(container["image"], IMAGE, "{}", case.what);
        let watch = container["env"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["name"] == "WATCH_NAMESPACE")
            .unwrap();
        match case.values.get("watchNamespace").and_then(Value::as_str) {
            Some(ns) => assert_eq!(watch["value"], ns),
            None => assert_eq!(
                watch["valueFrom"]["fieldRef"]["fieldPath"],
                "metadata.namespace"
            ),
        }
        let kinds: BTreeSet<&str> = objects.iter().filter_map(|o| o["kind"].as_str()).collect();
        if case.what == "every namespace watched" {
            // Only the Role of the operator's own webhook certificate Secret stays a Role.
            let roles: Vec<&Value> = objects.iter().filter(|o| o["kind"] == "Role").collect();
            assert!(
                roles.iter().all(|r| webhooks
                    && r["rules"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .all(|rule| rule["resources"] == json!(["secrets"]))),
                "{roles:?}"
            );
            assert!(kinds.contains("ClusterRole"), "{kinds:?}");
        }
        if case.what == "another namespace watched" {
            let role_namespaces: BTreeSet<&str> = objects
                .iter()
                .filter(|o| o["kind"] == "Role")
                .filter_map(|o| o["metadata"]["namespace"].as_str())
                .collect();
            assert!(role_namespaces.contains("team-b") && role_namespaces.contains(NAMESPACE));
        }
        if case.what == "metrics with a ServiceMonitor" {
            let monitor = objects
                .iter()
                .find(|o| o["kind"] == "ServiceMonitor")
                .unwrap();
            let service = objects
                .iter()
                .find(|o| {
                    o["kind"] == "Service"
                        && o["metadata"]["name"] == format!("ops-{}-metrics", project.name)
                })
                .expect("the metrics Service");
            let selector = monitor["spec"]["selector"]["matchLabels"]
                .as_object()
                .unwrap();
            for (k, v) in selector {
                assert_eq!(
                    &service["metadata"]["labels"][k], v,
                    "the ServiceMonitor selects the Service"
                );
            }
            assert_eq!(monitor["metadata"]["labels"]["release"], "prom");
            // A Rust operator serves HTTPS and asks the API server about each caller:
            // Prometheus scrapes with its token. Helm operators serve plain HTTP.
            let endpoint = &monitor["spec"]["endpoints"][0];
            let project_file = std::fs::read_to_string(project.root.join("PROJECT")).unwrap();
            if project_file.contains("type: rust") {
                assert_eq!(endpoint["scheme"], "https", "{endpoint}");
                assert_eq!(
                    endpoint["bearerTokenFile"],
                    "/var/run/secrets/kubernetes.io/serviceaccount/token"
                );
                assert_eq!(endpoint["tlsConfig"]["insecureSkipVerify"], true);
                assert_eq!(endpoint["port"], "https");
            } else {
                assert!(endpoint["scheme"].is_null(), "{endpoint}");
            }
        }
        if case.what.starts_with("scheduling") {
            assert_eq!(deployment["spec"]["replicas"], 2);
            assert_eq!(
                container["env"].as_array().unwrap().last().unwrap()["name"],
                "EXTRA"
            );
            let crd = objects
                .iter()
                .find(|o| o["kind"] == "CustomResourceDefinition")
                .unwrap();
            assert!(crd["metadata"]["annotations"]["helm.sh/resource-policy"].is_null());
        }
        if webhooks {
            let wiring = Wiring::of(&case.values);
            assert_webhook_wiring(case.what, &objects, case.namespace, &wiring);
        }
    }

    judge(&renders);

    // Two releases of the same name in two namespaces (the second without the CRDs, which
    // the first installed), every namespace watched so that the most is cluster-scoped; with
    // webhooks, in both certificate modes.
    let modes: &[Value] = if webhooks {
        &[
            json!({}),
            json!({"webhook": {"certManager": {"enabled": true}}}),
        ]
    } else {
        &[json!({})]
    };
    for mode in modes {
        let with = |mut values: Value| {
            for (k, v) in mode.as_object().unwrap() {
                values[k] = v.clone();
            }
            values
        };
        let mut first = case("first release", with(json!({"watchNamespace": ""})));
        first.namespace = "ns-one";
        let mut second = case(
            "second release",
            with(json!({"watchNamespace": "", "crds": {"install": false}})),
        );
        second.namespace = "ns-two";
        let one = objects_of(&helm_render(oracle, &chart, &first));
        let two = objects_of(&helm_render(oracle, &chart, &second));
        if webhooks {
            let wiring = Wiring::of(mode);
            assert_webhook_wiring("first release", &one, "ns-one", &wiring);
            assert_webhook_wiring("second release", &two, "ns-two", &wiring);
        }
        let (one, two) = (cluster_scoped(&one), cluster_scoped(&two));
        assert!(one.iter().any(|(k, _)| k == "ClusterRole"), "{one:?}");
        assert!(two.iter().all(|(k, _)| k != "CustomResourceDefinition"));
        if webhooks {
            for kind in [
                "MutatingWebhookConfiguration",
                "ValidatingWebhookConfiguration",
            ] {
                assert!(one.iter().any(|(k, _)| k == kind), "{kind}: {one:?}");
            }
        }
        let clash: Vec<_> = one.intersection(&two).collect();
        assert!(
            clash.is_empty(),
            "{} ({mode}): cluster-scoped names clash: {clash:?}",
            project.name
        );
    }
}

/// How a rendering's values set up the webhooks.
struct Wiring {
    cert_manager: bool,
    /// The issuer cert-manager's Certificate names, when the values give one.
    issuer: Option<Value>,
    port: u64,
    lifetime: String,
}

impl Wiring {
    fn of(values: &Value) -> Wiring {
        let webhook = &values["webhook"];
        Wiring {
            cert_manager: webhook["certManager"]["enabled"] == true,
            issuer: Some(webhook["certManager"]["issuerRef"].clone()).filter(|v| !v.is_null()),
            port: webhook["port"].as_u64().unwrap_or(9443),
            lifetime: webhook["certLifetime"]
                .as_str()
                .unwrap_or("90d")
                .to_string(),
        }
    }
}

/// The webhook objects of one rendering fit together: the operator serves on the port the
/// Service sends to; the configurations and the CRD call the release's Service; and either the
/// operator makes its own certificates for exactly the names the release gives its Service,
/// Secret and configurations, with RBAC for those and in its own namespace only, or it serves
/// cert-manager's Certificate, mounted from the Certificate's Secret, with cert-manager
/// injecting the CA and no RBAC for certificates left.
fn assert_webhook_wiring(what: &str, objects: &[Value], namespace: &str, wiring: &Wiring) {
    let find =
        |kind: &str| -> Vec<&Value> { objects.iter().filter(|o| o["kind"] == kind).collect() };
    let one = |kind: &str| -> &Value {
        let found = find(kind);
        assert_eq!(found.len(), 1, "{what}: one {kind}");
        found[0]
    };
    let deployment = one("Deployment");
    let pod = &deployment["spec"]["template"]["spec"];
    let container = &pod["containers"][0];
    let args: Vec<&str> = container["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    let flag = |name: &str| -> Option<String> {
        let prefix = format!("--{name}=");
        let values: Vec<&str> = args
            .iter()
            .filter_map(|a| a.strip_prefix(&prefix))
            .collect();
        assert!(values.len() <= 1, "{what}: --{name} twice: {args:?}");
        values.first().map(|v| v.to_string())
    };
    let name = |o: &Value| o["metadata"]["name"].as_str().unwrap().to_string();

    // The port.
    assert_eq!(
        flag("webhook-bind-address"),
        Some(format!(":{}", wiring.port)),
        "{what}"
    );
    let container_port = container["ports"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "webhook")
        .expect("the container's webhook port");
    assert_eq!(container_port["containerPort"], wiring.port, "{what}");
    let service = find("Service")
        .into_iter()
        .find(|s| {
            s["spec"]["ports"]
                .as_array()
                .unwrap()
                .iter()
                .any(|p| p["name"] == "webhook")
        })
        .expect("the webhook Service");
    assert_eq!(service["metadata"]["namespace"], namespace);
    let service_port = &service["spec"]["ports"][0];
    assert_eq!(service_port["port"], 443);
    assert_eq!(service_port["targetPort"], wiring.port, "{what}");
    for (k, v) in service["spec"]["selector"].as_object().unwrap() {
        assert_eq!(
            &pod_labels(deployment)[k],
            v,
            "{what}: the Service selects the pod"
        );
    }

    // What calls the Service.
    let mutating = one("MutatingWebhookConfiguration");
    let validating = one("ValidatingWebhookConfiguration");
    // Not in a release with crds.install false.
    let crd = find("CustomResourceDefinition").first().copied();
    let mut client_configs: Vec<&Value> = [mutating, validating]
        .iter()
        .flat_map(|c| c["webhooks"].as_array().unwrap())
        .map(|w| &w["clientConfig"])
        .collect();
    client_configs.extend(crd.map(|crd| &crd["spec"]["conversion"]["webhook"]["clientConfig"]));
    for config in client_configs {
        assert_eq!(config["service"]["name"], name(service), "{what}");
        assert_eq!(config["service"]["namespace"], namespace, "{what}");
        assert!(
            config["caBundle"].is_null(),
            "{what}: the CA is injected, not rendered"
        );
    }

    let secret_rules = |o: &&Value| {
        o["rules"].as_array().into_iter().flatten().any(|r| {
            r["resources"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|x| x == "secrets")
        })
    };
    let patches = |o: &&Value, resource: &str, object: &str| {
        o["rules"].as_array().into_iter().flatten().any(|r| {
            r["resources"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|x| x == resource)
                && r["resourceNames"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .any(|n| n == object)
                && r["verbs"].as_array().unwrap().iter().any(|v| v == "patch")
        })
    };
    let account = pod["serviceAccountName"].as_str().unwrap();
    let binds = |binding: &&Value, role: &Value| {
        binding["roleRef"]["kind"] == role["kind"]
            && binding["roleRef"]["name"] == role["metadata"]["name"]
            && binding["subjects"].as_array().unwrap().iter().any(|s| {
                s["kind"] == "ServiceAccount" && s["name"] == account && s["namespace"] == namespace
            })
    };
    let injected =
        |o: &Value| o["metadata"]["annotations"]["cert-manager.io/inject-ca-from"].clone();

    if wiring.cert_manager {
        let dir = flag("webhook-cert-dir").expect("--webhook-cert-dir");
        let mount = container["volumeMounts"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["mountPath"] == dir.as_str())
            .expect("the certificate's volume mounted at --webhook-cert-dir");
        let volume = pod["volumes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["name"] == mount["name"])
            .expect("the mounted volume");
        let certificate = one("Certificate");
        assert_eq!(certificate["metadata"]["namespace"], namespace);
        assert_eq!(
            volume["secret"]["secretName"], certificate["spec"]["secretName"],
            "{what}"
        );
        assert_eq!(
            certificate["spec"]["dnsNames"][0],
            format!("{}.{namespace}.svc", name(service))
        );
        match &wiring.issuer {
            Some(issuer) => {
                assert!(find("Issuer").is_empty(), "{what}");
                assert_eq!(&certificate["spec"]["issuerRef"], issuer);
            }
            None => {
                let issuer = one("Issuer");
                assert_eq!(certificate["spec"]["issuerRef"]["name"], name(issuer));
                assert_eq!(certificate["spec"]["issuerRef"]["kind"], "Issuer");
            }
        }
        for object in [Some(mutating), Some(validating), crd]
            .into_iter()
            .flatten()
        {
            assert_eq!(
                injected(object),
                format!("{namespace}/{}", name(certificate)),
                "{what}: {}",
                object["kind"]
            );
        }
        for own in [
            "webhook-service-name",
            "webhook-secret-name",
            "mutating-webhook-configuration-name",
            "validating-webhook-configuration-name",
            "webhook-cert-lifetime",
        ] {
            assert_eq!(flag(own), None, "{what}: --{own} with cert-manager");
        }
        let roles: Vec<&Value> = find("Role")
            .into_iter()
            .chain(find("ClusterRole"))
            .collect();
        assert!(
            !roles.iter().any(secret_rules),
            "{what}: no Secret rights with cert-manager"
        );
        assert!(
            !roles
                .iter()
                .any(|r| patches(r, "mutatingwebhookconfigurations", &name(mutating))),
            "{what}: no CA injection rights with cert-manager"
        );
    } else {
        assert_eq!(flag("webhook-cert-dir"), None, "{what}");
        assert!(
            !pod["volumes"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|v| !v["secret"].is_null()),
            "{what}: no Secret mounted"
        );
        assert!(
            find("Certificate").is_empty() && find("Issuer").is_empty(),
            "{what}"
        );
        for object in [Some(mutating), Some(validating), crd]
            .into_iter()
            .flatten()
        {
            assert!(injected(object).is_null(), "{what}: {}", object["kind"]);
        }
        assert_eq!(flag("webhook-cert-lifetime"), Some(wiring.lifetime.clone()));
        assert_eq!(flag("webhook-service-name"), Some(name(service)), "{what}");
        assert_eq!(
            flag("mutating-webhook-configuration-name"),
            Some(name(mutating)),
            "{what}"
        );
        assert_eq!(
            flag("validating-webhook-configuration-name"),
            Some(name(validating)),
            "{what}"
        );
        // Its Secret, in its own namespace whatever it watches.
        let secret = flag("webhook-secret-name").expect("--webhook-secret-name");
        let role = find("Role")
            .into_iter()
            .find(|r| {
                r["metadata"]["namespace"] == namespace
                    && r["rules"].as_array().unwrap().iter().any(|rule| {
                        rule["resourceNames"]
                            .as_array()
                            .into_iter()
                            .flatten()
                            .any(|n| *n == secret)
                    })
            })
            .unwrap_or_else(|| panic!("{what}: a Role in {namespace} for the Secret {secret}"));
        assert!(
            find("RoleBinding").iter().any(|b| binds(b, role)),
            "{what}: the Secret's Role is bound to {account}"
        );
        // Writing the CA into its own configurations and the CRD, by name.
        let crd_name = "memcacheds.cache.example.com";
        let cluster_role = find("ClusterRole")
            .into_iter()
            .find(|r| {
                patches(r, "mutatingwebhookconfigurations", &name(mutating))
                    && patches(r, "validatingwebhookconfigurations", &name(validating))
                    && patches(r, "customresourcedefinitions", crd_name)
            })
            .unwrap_or_else(|| panic!("{what}: a ClusterRole to inject the CA"));
        assert!(
            find("ClusterRoleBinding")
                .iter()
                .any(|b| binds(b, cluster_role)),
            "{what}: the CA injection's ClusterRole is bound to {account}"
        );
    }
}

fn pod_labels(deployment: &Value) -> &serde_json::Map<String, Value> {
    deployment["spec"]["template"]["metadata"]["labels"]
        .as_object()
        .unwrap()
}

#[test]
fn real_helm_renders_the_chart_as_operator_rs_does_and_the_judges_pass_it() {
    let Some(mut oracle) = HelmOracle::start() else {
        return;
    };
    for (project, webhooks) in [
        (rust_project(), false),
        (helm_project(), false),
        (helm_operator_project(), false),
        (cluster_scoped_helm_project(), false),
        (webhook_project(), true),
    ] {
        project.generate_chart();
        let values = std::fs::read_to_string(project.chart().join("values.yaml")).unwrap();
        assert_eq!(values.contains("webhook:"), webhooks, "{values}");
        for file in [
            "Chart.yaml",
            "values.schema.json",
            "README.md",
            "templates/NOTES.txt",
        ] {
            assert!(project.chart().join(file).is_file(), "{file}");
        }
        check_chart(&mut oracle, &project, webhooks);
    }
}

/// The chart's objects with default values are the bundle's, but for the release's names and
/// the chart's labels and annotations.
#[test]
fn the_rendered_chart_is_the_bundle_with_the_release_names() {
    let Some(mut oracle) = HelmOracle::start() else {
        return;
    };
    for project in [
        rust_project(),
        helm_project(),
        cluster_scoped_helm_project(),
        webhook_project(),
    ] {
        project.generate_chart();
        success(&project.run(&["generate", "bundle", "--image", IMAGE, "-n", NAMESPACE]));
        let bundle =
            documents(&std::fs::read_to_string(project.root.join("dist/install.yaml")).unwrap());
        let release = Case {
            what: "the project's name as release name",
            values: json!({}),
            release: project.name,
            namespace: NAMESPACE,
        };
        let chart = objects_of(&helm_render(&mut oracle, &project.chart(), &release));
        let cluster_prefix = format!("{NAMESPACE}-");
        // The chart passes the webhooks' port and certificate lifetime, and the release's
        // names of what the operator's certificates are for; with the project's name as the
        // release's, they are the operator's defaults, which deploy/ leaves it to.
        let name = project.name;
        let operator_defaults = [
            "--webhook-bind-address=:9443".to_string(),
            "--webhook-cert-lifetime=90d".to_string(),
            format!("--webhook-service-name={name}-webhook"),
            format!("--webhook-secret-name={name}-webhook-server-cert"),
            format!("--mutating-webhook-configuration-name={name}-mutating"),
            format!("--validating-webhook-configuration-name={name}-validating"),
        ];
        let strip = |mut o: Value| {
            if o["kind"] == "Deployment"
                && let Some(Value::Array(args)) =
                    o.pointer_mut("/spec/template/spec/containers/0/args")
            {
                args.retain(|arg| {
                    let arg = arg.as_str().unwrap().replacen(
                        &format!("-configuration-name={cluster_prefix}"),
                        "-configuration-name=",
                        1,
                    );
                    !operator_defaults.contains(&arg)
                });
            }
            for pointer in [
                "/metadata",
                "/spec/template/metadata",
                "/spec/selector/matchLabels",
            ] {
                if let Some(Value::Object(map)) = o.pointer_mut(pointer) {
                    map.remove("labels");
                    map.remove("annotations");
                    map.remove("app.kubernetes.io/instance");
                }
            }
            if let Some(Value::Object(selector)) = o.pointer_mut("/spec/selector") {
                selector.remove("app.kubernetes.io/instance");
            }
            let cluster =
                o["metadata"]["namespace"].is_null() && o["kind"] != "CustomResourceDefinition";
            if cluster && let Some(name) = o["metadata"]["name"].as_str() {
                o["metadata"]["name"] = json!(name.strip_prefix(&cluster_prefix).unwrap_or(name));
            }
            if o["roleRef"]["kind"] == "ClusterRole"
                && let Some(name) = o["roleRef"]["name"].as_str()
            {
                o["roleRef"]["name"] = json!(name.strip_prefix(&cluster_prefix).unwrap_or(name));
            }
            for rule in o["rules"].as_array_mut().into_iter().flatten() {
                for name in rule["resourceNames"].as_array_mut().into_iter().flatten() {
                    if let Some(text) = name.as_str() {
                        *name = json!(text.strip_prefix(&cluster_prefix).unwrap_or(text));
                    }
                }
            }
            o
        };
        let by_key = |objects: Vec<Value>| -> BTreeMap<(String, String, String), Value> {
            objects
                .into_iter()
                .filter(|o| o["kind"] != "Namespace")
                .map(|o| {
                    let o = strip(o);
                    (key(&o), o)
                })
                .collect()
        };
        let (chart, bundle) = (by_key(chart), by_key(bundle));
        assert_eq!(
            chart.keys().collect::<Vec<_>>(),
            bundle.keys().collect::<Vec<_>>(),
            "{}",
            project.name
        );
        for (k, expected) in &bundle {
            assert_eq!(&chart[k], expected, "{}: {k:?}", project.name);
        }
    }
}

// ---------------------------------------------------------------- install with Helm

#[test]
fn helm_installs_upgrades_and_uninstalls_the_chart_keeping_crds_and_custom_resources() {
    let Some(mut oracle) = HelmOracle::start() else {
        return;
    };
    for project in [
        rust_project(),
        helm_project(),
        helm_operator_project(),
        webhook_project(),
    ] {
        install_upgrade_uninstall(&mut oracle, &project);
    }
}

/// A pod that has volumes of its own keeps them, and cert-manager's certificate joins them.
#[test]
fn cert_manager_mode_adds_its_volume_to_the_pods_own() {
    let Some(mut oracle) = HelmOracle::start() else {
        return;
    };
    let project = webhook_project();
    let operator = project.root.join("deploy/operator.yaml");
    let text = std::fs::read_to_string(&operator).unwrap();
    let text = text
        .replace(
            "      terminationGracePeriodSeconds: 40\n",
            "      terminationGracePeriodSeconds: 40\n      volumes:\n        - name: scratch\n          emptyDir: {}\n",
        )
        .replace(
            "                - ALL\n",
            "                - ALL\n          volumeMounts:\n            - name: scratch\n              mountPath: /scratch\n",
        );
    std::fs::write(&operator, text).unwrap();
    project.generate_chart();
    for (values, expected) in [
        (json!({}), vec!["scratch"]),
        (
            json!({"webhook": {"certManager": {"enabled": true}}}),
            vec!["scratch", "webhook-certs"],
        ),
    ] {
        let case = case("a pod with a volume", values);
        let helm = helm_render(&mut oracle, &project.chart(), &case);
        assert_eq!(our_render(&project.chart(), &case), helm);
        let objects = objects_of(&helm);
        let deployment = objects.iter().find(|o| o["kind"] == "Deployment").unwrap();
        let pod = &deployment["spec"]["template"]["spec"];
        let names = |list: &Value| -> Vec<String> {
            list.as_array()
                .unwrap()
                .iter()
                .map(|v| v["name"].as_str().unwrap().to_string())
                .collect()
        };
        assert_eq!(names(&pod["volumes"]), expected);
        assert_eq!(names(&pod["containers"][0]["volumeMounts"]), expected);
        assert_webhook_wiring(case.what, &objects, NAMESPACE, &Wiring::of(&case.values));
    }
}

/// The project's one CRD file and its first sample custom resource.
fn crd_and_sample(project: &Project) -> (Value, PathBuf) {
    let crds = project.root.join("deploy/crds");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&crds)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let named = |suffix: &str| {
        files
            .iter()
            .find(|f| f.to_string_lossy().ends_with(suffix))
            .unwrap_or_else(|| panic!("no {suffix} in {}", crds.display()))
            .clone()
    };
    let crd =
        operator_rs::yaml::from_str(&std::fs::read_to_string(named("_crd.yaml")).unwrap()).unwrap();
    (crd, named("_cr.yaml"))
}

/// Real Helm installs the chart on the API test server, upgrades it to another tag and
/// uninstalls it; the CRD and a custom resource made meanwhile stay. A project with webhooks
/// gets no custom resource (its webhooks refuse every request while no operator runs) but
/// shows its release-scoped webhook configurations come and go with the release.
fn install_upgrade_uninstall(oracle: &mut HelmOracle, project: &Project) {
    project.generate_chart();
    let server = KubeServer::start();
    let home = tempfile::tempdir().unwrap();
    let kubectl = |args: &[&str]| {
        let output = server
            .kubectl(&home.path().join("cache"))
            .args(args)
            .output()
            .unwrap();
        success(&output)
    };
    let namespace = home.path().join("namespace.json");
    std::fs::write(
        &namespace,
        json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}})
            .to_string(),
    )
    .unwrap();
    kubectl(&["apply", "--server-side", "-f", namespace.to_str().unwrap()]);

    let mut helm = HelmReleases {
        oracle,
        kubeconfig: server.kubeconfig(),
        namespace: NAMESPACE.to_string(),
    };
    let chart = project.chart();
    let what = project.name;
    helm.install("ops", &chart, json!({"image": {"tag": "v1.0.0"}}))
        .unwrap_or_else(|e| panic!("{what}: helm install: {e}"));
    let deployment = format!("ops-{}", project.name);
    let image = |server: &KubeServer| {
        server
            .object("apps", "deployments", Some(NAMESPACE), &deployment)
            .unwrap_or_else(|| panic!("{what}: the operator's Deployment {deployment}"))["spec"]
            ["template"]["spec"]["containers"][0]["image"]
            .clone()
    };
    assert_eq!(
        image(&server),
        "registry.local/team/demo-op:v1.0.0",
        "{what}"
    );
    let (crd, sample) = crd_and_sample(project);
    let crd_name = crd["metadata"]["name"].as_str().unwrap();
    let group = crd["spec"]["group"].as_str().unwrap();
    let plural = crd["spec"]["names"]["plural"].as_str().unwrap();
    let webhooks = project.root.join("deploy/webhook.yaml").is_file();
    let configurations = [
        "mutatingwebhookconfigurations",
        "validatingwebhookconfigurations",
    ];
    let configuration = |server: &KubeServer, plural: &str| {
        let suffix = &plural[..plural.find("webhook").unwrap()];
        server.object(
            "admissionregistration.k8s.io",
            plural,
            None,
            &format!("{NAMESPACE}-ops-{}-{suffix}", project.name),
        )
    };
    if webhooks {
        for plural in configurations {
            assert!(configuration(&server, plural).is_some(), "{what}: {plural}");
        }
    } else {
        // The test server establishes a CRD when it is first read (a real one within
        // moments).
        kubectl(&["get", "crd", crd_name]);
        // A kubectl cache of its own: the one above was filled before the CRD existed.
        let output = server
            .kubectl(&home.path().join("cache-after-install"))
            .args(["apply", "--server-side", "-n", NAMESPACE, "-f"])
            .arg(&sample)
            .output()
            .unwrap();
        success(&output);
    }

    helm.upgrade("ops", &chart, json!({"image": {"tag": "v1.1.0"}}), None)
        .unwrap_or_else(|e| panic!("{what}: helm upgrade: {e}"));
    assert_eq!(
        image(&server),
        "registry.local/team/demo-op:v1.1.0",
        "{what}"
    );

    helm.uninstall("ops")
        .unwrap_or_else(|e| panic!("{what}: helm uninstall: {e}"));
    assert!(
        server
            .object("apps", "deployments", Some(NAMESPACE), &deployment)
            .is_none(),
        "{what}"
    );
    assert!(
        server
            .object(
                "apiextensions.k8s.io",
                "customresourcedefinitions",
                None,
                crd_name
            )
            .is_some(),
        "{what}: the CRD stays"
    );
    if webhooks {
        for plural in configurations {
            assert!(
                configuration(&server, plural).is_none(),
                "{what}: {plural} stays"
            );
        }
        // What Helm leaves behind of the operator's own, the chart's README says.
        let readme = std::fs::read_to_string(chart.join("README.md")).unwrap();
        assert!(
            readme.contains("`FULLNAME-webhook-server-cert`"),
            "{readme}"
        );
    } else {
        assert_eq!(
            server.objects(group, plural).len(),
            1,
            "{what}: the custom resource stays"
        );
    }
}

// ---------------------------------------------------------------- regeneration and bad input

/// The chart passes the operator the release's names of what its webhook certificates are
/// for; an operator made before it took them would exit at start-up, so the user is told.
#[test]
fn an_operator_older_than_the_webhook_name_flags_is_warned_about() {
    let project = webhook_project();
    let out = project.generate_chart();
    assert!(!out.contains("--webhook-service-name"), "{out}");
    let main = project.root.join("src/main.rs");
    let text = std::fs::read_to_string(&main).unwrap();
    std::fs::write(&main, text.replace("webhook_service_name", "service_name")).unwrap();
    let out = project.generate_chart();
    assert!(
        out.contains("src/main.rs has no --webhook-service-name"),
        "{out}"
    );
}

#[test]
fn regeneration_keeps_the_users_edits_and_names_the_values_they_lack() {
    let project = rust_project();
    project.generate_chart();
    let chart = project.chart();
    let values_path = chart.join("values.yaml");
    let values = std::fs::read_to_string(&values_path).unwrap();
    let cut = values.find("\nmetrics:").expect("a metrics section");
    let end = values[cut + 1..]
        .find("\n\n#")
        .map(|e| cut + 1 + e)
        .unwrap_or(values.len());
    let mine = format!("{}{}", &values[..cut], &values[end..])
        .replace("replicaCount: 1", "replicaCount: 3");
    std::fs::write(&values_path, &mine).unwrap();
    std::fs::write(chart.join("templates/NOTES.txt"), "Mine.\n").unwrap();

    // The project changes: a new rule in role.yaml.
    let role_path = project.root.join("deploy/role.yaml");
    let role = std::fs::read_to_string(&role_path).unwrap();
    std::fs::write(
        &role_path,
        format!("{role}  - apiGroups: [\"\"]\n    resources: [configmaps]\n    verbs: [get]\n"),
    )
    .unwrap();
    let out = project.generate_chart();
    assert!(out.contains("updated   templates/role.yaml"), "{out}");
    assert!(out.contains("kept      values.yaml"), "{out}");
    assert!(out.contains("kept      templates/NOTES.txt"), "{out}");
    assert!(out.contains("metrics.port"), "the values it lacks: {out}");
    assert_eq!(std::fs::read_to_string(&values_path).unwrap(), mine);
    assert!(
        std::fs::read_to_string(chart.join("templates/role.yaml"))
            .unwrap()
            .contains("configmaps")
    );

    // Again: still kept, nothing else to do.
    let out = project.generate_chart();
    assert!(out.contains("kept      values.yaml"), "{out}");
    assert!(!out.contains("updated"), "{out}");

    // An edit to a template is refused, and nothing is written.
    let role_template = chart.join("templates/role.yaml");
    std::fs::write(&role_template, "# mine\n").unwrap();
    std::fs::write(&role_path, role).unwrap();
    let before = support::project::read_tree(&chart);
    let err = usage_failure(&project.run(&["generate", "chart", "--image", IMAGE]));
    assert!(
        err.contains("templates/role.yaml") && err.contains("--force"),
        "{err}"
    );
    assert_eq!(support::project::read_tree(&chart), before);

    let out = success(&project.run(&["generate", "chart", "--image", IMAGE, "--force"]));
    assert!(out.contains("updated   values.yaml"), "{out}");
    assert!(
        !std::fs::read_to_string(&role_template)
            .unwrap()
            .contains("# mine")
    );
}

/// The project grows a second kind and webhooks after its chart was made: the next
/// generation adds their templates and values, and names the webhook values a kept
/// values.yaml lacks.
#[test]
fn regeneration_after_a_new_kind_and_webhooks_adds_their_templates() {
    let project = rust_project();
    project.generate_chart();
    let values_path = project.chart().join("values.yaml");
    let values = std::fs::read_to_string(&values_path).unwrap();
    let mine = values.replace("replicaCount: 1", "replicaCount: 2");
    std::fs::write(&values_path, &mine).unwrap();

    success(&project.run(&[
        "create",
        "api",
        "--api-version=cache.example.com/v1alpha1",
        "--kind=Valkey",
    ]));
    success(&project.run(&[
        "create",
        "webhook",
        "--kind=Valkey",
        "--defaulting",
        "--validation",
    ]));
    let out = project.generate_chart();
    for line in [
        "created   templates/crds/cache.example.com_valkeys_crd.yaml",
        "created   templates/webhook.yaml",
        "created   templates/webhook-certificate.yaml",
        "updated   templates/operator.yaml",
        "updated   templates/role.yaml",
        "kept      values.yaml",
    ] {
        assert!(out.contains(line), "{line}:\n{out}");
    }
    for value in [
        "webhook.port",
        "webhook.certLifetime",
        "webhook.certManager.enabled",
    ] {
        assert!(out.contains(value), "{value} lacking:\n{out}");
    }
    assert_eq!(std::fs::read_to_string(&values_path).unwrap(), mine);
    let operator =
        std::fs::read_to_string(project.chart().join("templates/operator.yaml")).unwrap();
    assert!(
        operator.contains("--mutating-webhook-configuration-name="),
        "{operator}"
    );
    let schema = std::fs::read_to_string(project.chart().join("values.schema.json")).unwrap();
    assert!(schema.contains("\"certManager\""), "{schema}");

    // With the webhook values added to the kept file, Helm renders the new chart.
    let Some(mut oracle) = HelmOracle::start() else {
        return;
    };
    let webhook_values = json!({"webhook": {"port": 9443, "certLifetime": "90d",
        "certManager": {"enabled": false, "issuerRef": {}}}});
    let objects = objects_of(&helm_render(
        &mut oracle,
        &project.chart(),
        &case("kept values and the webhook ones", webhook_values),
    ));
    let crds: BTreeSet<&str> = objects
        .iter()
        .filter(|o| o["kind"] == "CustomResourceDefinition")
        .map(|o| o["metadata"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        crds,
        BTreeSet::from(["memcacheds.cache.example.com", "valkeys.cache.example.com"])
    );
    assert!(
        objects
            .iter()
            .any(|o| o["kind"] == "ValidatingWebhookConfiguration"),
        "the webhooks"
    );
}

#[test]
fn bad_input_is_a_usage_error_and_writes_nothing() {
    let project = rust_project();
    let dist = project.root.join("dist");
    // No image: none given, and none recorded by a build.
    for command in ["bundle", "chart"] {
        let err = usage_failure(&project.run(&["generate", command]));
        assert!(
            err.contains("operator-rs build") && err.contains("--image"),
            "{err}"
        );
    }
    let err = usage_failure(&project.run(&["generate", "bundle", "--image", "Bad Image"]));
    assert!(err.contains("\"Bad Image\""), "{err}");
    let err = usage_failure(&project.run(&["generate", "chart", "--image", "registry/x:bad tag"]));
    assert!(err.contains("not a valid image reference"), "{err}");
    let err =
        usage_failure(&project.run(&["generate", "bundle", "--image", IMAGE, "-n", "Team_A"]));
    assert!(
        err.contains("\"Team_A\"") && err.contains("DNS-1123"),
        "{err}"
    );
    let err = usage_failure(&project.run(&[
        "generate",
        "chart",
        "--image",
        IMAGE,
        "--chart-version",
        "one",
    ]));
    assert!(err.contains("\"one\""), "{err}");
    assert!(!dist.exists());

    std::fs::write(&dist, "a file").unwrap();
    for command in ["bundle", "chart"] {
        let err = usage_failure(&project.run(&["generate", command, "--image", IMAGE]));
        assert!(err.contains("is a file"), "{err}");
    }
    std::fs::remove_file(&dist).unwrap();

    // A chart directory operator-rs did not write.
    std::fs::create_dir_all(project.chart()).unwrap();
    std::fs::write(project.chart().join("Chart.yaml"), "name: theirs\n").unwrap();
    let err = usage_failure(&project.run(&["generate", "chart", "--image", IMAGE]));
    assert!(err.contains("--force"), "{err}");
    assert_eq!(list_entries(project.chart().as_path()), ["Chart.yaml"]);
}
