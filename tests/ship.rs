//! `generate bundle` and `generate chart` end to end, judged by real parts: the bundle applied
//! by the real `kubectl` gives what `deploy` gives; real Helm 4 renders the chart (defaults,
//! every namespace watched, metrics with a ServiceMonitor, cert-manager for webhooks, two
//! releases side by side), `operator-rs template` renders it the same, `kubernetes-validate
//! --strict` and `checkov` pass what it renders, and Helm installs, upgrades and uninstalls it
//! on the Kubernetes API test server.

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

/// A Rust project with the webhook objects of issue 35: deploy/webhook.yaml by hand, and its
/// CRD converted by the webhook.
fn webhook_project() -> Project {
    let project = rust_project();
    let deploy = project.root.join("deploy");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/webhook.yaml"),
        deploy.join("webhook.yaml"),
    )
    .unwrap();
    let kustomization = deploy.join("kustomization.yaml");
    let text = std::fs::read_to_string(&kustomization).unwrap();
    std::fs::write(&kustomization, format!("{text}  - webhook.yaml\n")).unwrap();
    let crd_path = deploy.join("crds/cache.example.com_memcacheds_crd.yaml");
    let mut crd: Value = serde_yaml_value(&std::fs::read_to_string(&crd_path).unwrap());
    crd["spec"]["conversion"] = json!({
        "strategy": "Webhook",
        "webhook": {
            "conversionReviewVersions": ["v1"],
            "clientConfig": {"service": {
                "name": "demo-op-webhook", "namespace": "REPLACE_NAMESPACE",
                "path": "/convert", "port": 443
            }}
        }
    });
    std::fs::write(&crd_path, serde_json::to_string_pretty(&crd).unwrap()).unwrap();
    project
}

fn serde_yaml_value(text: &str) -> Value {
    operator_rs::yaml::from_str(text).unwrap()
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
    for (project, expected) in [
        (rust_project(), &rust_kinds[..]),
        (helm_project(), &helm_kinds[..]),
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
        let out = operator_rs(&project.root)
            .env("HOME", home.path())
            .env("KUBECONFIG", deployed.kubeconfig())
            .args(["deploy", "-n", NAMESPACE, "--image", IMAGE])
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
        cases.push(case(
            "webhook certificate from cert-manager",
            json!({"webhook": {"certManager": {"enabled": true}}}),
        ));
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
            assert!(
                !kinds.contains("Role") && kinds.contains("ClusterRole"),
                "{kinds:?}"
            );
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
        if case.what.starts_with("webhook") {
            let certificate = objects.iter().find(|o| o["kind"] == "Certificate").unwrap();
            let dns = certificate["spec"]["dnsNames"][0].as_str().unwrap();
            assert_eq!(dns, format!("ops-demo-op-webhook.{NAMESPACE}.svc"));
            let service = objects
                .iter()
                .find(|o| o["kind"] == "Service" && o["metadata"]["name"] == "ops-demo-op-webhook")
                .expect("the webhook Service");
            assert_eq!(
                service["spec"]["selector"]["app.kubernetes.io/instance"],
                "ops"
            );
            for kind in [
                "MutatingWebhookConfiguration",
                "ValidatingWebhookConfiguration",
                "CustomResourceDefinition",
            ] {
                let object = objects.iter().find(|o| o["kind"] == kind).unwrap();
                assert_eq!(
                    object["metadata"]["annotations"]["cert-manager.io/inject-ca-from"],
                    format!("{NAMESPACE}/ops-demo-op-webhook"),
                    "{kind}"
                );
            }
            let mutating = objects
                .iter()
                .find(|o| o["kind"] == "MutatingWebhookConfiguration")
                .unwrap();
            assert_eq!(
                mutating["webhooks"][0]["clientConfig"]["service"]["name"],
                "ops-demo-op-webhook"
            );
            assert_eq!(
                mutating["webhooks"][0]["clientConfig"]["service"]["namespace"],
                NAMESPACE
            );
        }
    }

    judge(&renders);

    // Two releases of the same name in two namespaces (the second without the CRDs, which
    // the first installed), every namespace watched so that the most is cluster-scoped.
    let mut first = case("first release", json!({"watchNamespace": ""}));
    first.namespace = "ns-one";
    let mut second = case(
        "second release",
        json!({"watchNamespace": "", "crds": {"install": false}}),
    );
    second.namespace = "ns-two";
    let one = objects_of(&helm_render(oracle, &chart, &first));
    let two = objects_of(&helm_render(oracle, &chart, &second));
    let (one, two) = (cluster_scoped(&one), cluster_scoped(&two));
    assert!(one.iter().any(|(k, _)| k == "ClusterRole"), "{one:?}");
    assert!(two.iter().all(|(k, _)| k != "CustomResourceDefinition"));
    let clash: Vec<_> = one.intersection(&two).collect();
    assert!(
        clash.is_empty(),
        "{}: cluster-scoped names clash: {clash:?}",
        project.name
    );
}

#[test]
fn real_helm_renders_the_chart_as_operator_rs_does_and_the_judges_pass_it() {
    let Some(mut oracle) = HelmOracle::start() else {
        return;
    };
    for (project, webhooks) in [
        (rust_project(), false),
        (helm_project(), false),
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
        let strip = |mut o: Value| {
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
    let project = rust_project();
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
        oracle: &mut oracle,
        kubeconfig: server.kubeconfig(),
        namespace: NAMESPACE.to_string(),
    };
    let chart = project.chart();
    helm.install("ops", &chart, json!({"image": {"tag": "v1.0.0"}}))
        .unwrap_or_else(|e| panic!("helm install: {e}"));
    let image = |server: &KubeServer| {
        server
            .object("apps", "deployments", Some(NAMESPACE), "ops-demo-op")
            .expect("the operator's Deployment")["spec"]["template"]["spec"]["containers"][0]
            ["image"]
            .clone()
    };
    assert_eq!(image(&server), "registry.local/team/demo-op:v1.0.0");
    let sample = project
        .root
        .join("deploy/crds/cache.example.com_v1alpha1_memcached_cr.yaml");
    // The test server establishes a CRD when it is first read (a real one within moments).
    kubectl(&["get", "crd", "memcacheds.cache.example.com"]);
    // A kubectl cache of its own: the one above was filled before the CRD existed.
    let output = server
        .kubectl(&home.path().join("cache-after-install"))
        .args(["apply", "--server-side", "-n", NAMESPACE, "-f"])
        .arg(&sample)
        .output()
        .unwrap();
    success(&output);

    helm.upgrade("ops", &chart, json!({"image": {"tag": "v1.1.0"}}), None)
        .unwrap_or_else(|e| panic!("helm upgrade: {e}"));
    assert_eq!(image(&server), "registry.local/team/demo-op:v1.1.0");

    helm.uninstall("ops")
        .unwrap_or_else(|e| panic!("helm uninstall: {e}"));
    assert!(
        server
            .object("apps", "deployments", Some(NAMESPACE), "ops-demo-op")
            .is_none()
    );
    assert!(
        server
            .object(
                "apiextensions.k8s.io",
                "customresourcedefinitions",
                None,
                "memcacheds.cache.example.com"
            )
            .is_some(),
        "the CRD stays"
    );
    assert_eq!(
        server.objects("cache.example.com", "memcacheds").len(),
        1,
        "the custom resource stays"
    );
}

// ---------------------------------------------------------------- regeneration and bad input

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
