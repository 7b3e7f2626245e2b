//! The Kubernetes API test server itself, checked with two real clients (kube-rs and the real
//! `kubectl`) so that deploy tests can trust it.

mod support;

use std::process::Output;

use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, Patch, PatchParams, PostParams, WatchEvent, WatchParams};
use support::kube_server::KubeServer;

struct Kubectl<'a> {
    server: &'a KubeServer,
    cache: tempfile::TempDir,
}

impl<'a> Kubectl<'a> {
    fn new(server: &'a KubeServer) -> Self {
        Kubectl {
            server,
            cache: tempfile::tempdir().unwrap(),
        }
    }

    fn run(&self, args: &[&str], stdin: Option<&str>) -> Output {
        use std::io::Write;
        let mut child = std::process::Command::new("/usr/bin/kubectl")
            .arg("--kubeconfig")
            .arg(self.server.kubeconfig())
            .arg("--cache-dir")
            .arg(self.cache.path())
            .args(args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("kubectl runs");
        let mut input = child.stdin.take().unwrap();
        input
            .write_all(stdin.unwrap_or_default().as_bytes())
            .unwrap();
        drop(input);
        child.wait_with_output().unwrap()
    }

    fn ok(&self, args: &[&str], stdin: Option<&str>) -> String {
        let output = self.run(args, stdin);
        assert!(
            output.status.success(),
            "kubectl {args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout).to_string()
    }

    fn json(&self, args: &[&str]) -> serde_json::Value {
        let mut all = args.to_vec();
        all.extend(["-o", "json"]);
        serde_json::from_str(&self.ok(&all, None)).unwrap()
    }
}

const CONFIG_MAP: &str = "apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: default
data:
  colour: blue
";

fn client(server: &KubeServer) -> kube::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let config = kube::Config::new(server.url().parse().unwrap());
    kube::Client::try_from(config).unwrap()
}

#[test]
fn kubectl_server_side_apply_owns_fields_and_reports_conflicts() {
    let server = KubeServer::start();
    let kubectl = Kubectl::new(&server);
    let out = kubectl.ok(
        &["apply", "--server-side", "--field-manager=alice", "-f", "-"],
        Some(CONFIG_MAP),
    );
    assert!(
        out.contains("configmap/settings serverside-applied"),
        "{out}"
    );
    let version = server
        .object("", "configmaps", Some("default"), "settings")
        .unwrap()["metadata"]["resourceVersion"]
        .clone();
    kubectl.ok(
        &["apply", "--server-side", "--field-manager=alice", "-f", "-"],
        Some(CONFIG_MAP),
    );
    let again = server
        .object("", "configmaps", Some("default"), "settings")
        .unwrap();
    assert_eq!(
        again["metadata"]["resourceVersion"], version,
        "a no-op apply writes nothing"
    );

    let red = CONFIG_MAP.replace("blue", "red");
    let output = kubectl.run(
        &["apply", "--server-side", "--field-manager=bob", "-f", "-"],
        Some(&red),
    );
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("conflict with \"alice\""), "{stderr}");
    assert!(stderr.contains(".data.colour"), "{stderr}");

    kubectl.ok(
        &[
            "apply",
            "--server-side",
            "--field-manager=bob",
            "--force-conflicts",
            "-f",
            "-",
        ],
        Some(&red),
    );
    let live = kubectl.json(&["get", "configmap", "settings", "--show-managed-fields"]);
    assert_eq!(live["data"]["colour"], "red");
    let managers: Vec<&str> = live["metadata"]["managedFields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["manager"].as_str().unwrap())
        .collect();
    assert!(managers.contains(&"bob"), "{managers:?}");
}

#[test]
fn kubectl_patch_dry_run_and_delete() {
    let server = KubeServer::start();
    let kubectl = Kubectl::new(&server);
    kubectl.ok(&["create", "-f", "-"], Some(CONFIG_MAP));
    kubectl.ok(
        &[
            "patch",
            "configmap",
            "settings",
            "--type=merge",
            "-p",
            r#"{"data":{"size":"L","colour":null}}"#,
        ],
        None,
    );
    let live = kubectl.json(&["get", "configmap", "settings"]);
    assert_eq!(live["data"], serde_json::json!({"size": "L"}));

    let out = kubectl.ok(
        &["apply", "--server-side", "--dry-run=server", "-f", "-"],
        Some(&CONFIG_MAP.replace("settings", "other")),
    );
    assert!(out.contains("(server dry run)"), "{out}");
    assert!(
        server
            .object("", "configmaps", Some("default"), "other")
            .is_none()
    );

    kubectl.ok(&["delete", "configmap", "settings"], None);
    let output = kubectl.run(&["get", "configmap", "settings"], None);
    assert!(String::from_utf8_lossy(&output.stderr).contains("configmaps \"settings\" not found"));
}

#[test]
fn crds_become_servable_once_established() {
    let server = KubeServer::start();
    let kubectl = Kubectl::new(&server);
    let crd = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/helm-project/deploy/crds/charts.example.com_helloworlds_crd.yaml"
    ))
    .unwrap();
    kubectl.ok(&["apply", "--server-side", "-f", "-"], Some(&crd));
    kubectl.ok(
        &[
            "wait",
            "--for=condition=Established",
            "crd/helloworlds.charts.example.com",
            "--timeout=10s",
        ],
        None,
    );
    let sample = "apiVersion: charts.example.com/v1alpha1\nkind: HelloWorld\nmetadata:\n  name: hi\n  namespace: default\nspec:\n  replicaCount: 2\n";
    kubectl.ok(&["apply", "--server-side", "-f", "-"], Some(sample));
    let listed = kubectl.json(&["get", "helloworlds", "-A"]);
    assert_eq!(listed["items"][0]["spec"]["replicaCount"], 2);

    // Deleting the CRD deletes its objects.
    kubectl.ok(&["delete", "crd", "helloworlds.charts.example.com"], None);
    assert!(
        server
            .objects("charts.example.com", "helloworlds")
            .is_empty()
    );
}

#[test]
fn refused_verbs_answer_403_with_a_status() {
    let server = KubeServer::start();
    server.refuse("list", "secrets", None);
    let kubectl = Kubectl::new(&server);
    let output = kubectl.run(&["get", "secrets", "-n", "default"], None);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("User \"test-user\" cannot list resource \"secrets\" in API group \"\" in the namespace \"default\""),
        "{stderr}"
    );
}

#[tokio::test]
async fn kube_rs_watches_and_gets_conflicts_on_stale_updates() {
    let server = KubeServer::start();
    let client = client(&server);
    let api: Api<ConfigMap> = Api::namespaced(client, "default");
    let stream = api
        .watch(&WatchParams::default().timeout(10), "0")
        .await
        .unwrap();
    let mut stream = stream.boxed();

    let created = api
        .patch(
            "settings",
            &PatchParams::apply("test").force(),
            &Patch::Apply(serde_json::json!({
                "apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": "settings"}, "data": {"colour": "blue"}
            })),
        )
        .await
        .unwrap();
    match stream.try_next().await.unwrap() {
        Some(WatchEvent::Added(cm)) => assert_eq!(cm.metadata.name.as_deref(), Some("settings")),
        other => panic!("expected ADDED, got {other:?}"),
    }

    let mut stale = created.clone();
    let mut fresh = created;
    fresh.data = Some([("colour".to_string(), "red".to_string())].into());
    api.replace("settings", &PostParams::default(), &fresh)
        .await
        .unwrap();
    match stream.try_next().await.unwrap() {
        Some(WatchEvent::Modified(cm)) => {
            assert_eq!(cm.data.unwrap()["colour"], "red");
        }
        other => panic!("expected MODIFIED, got {other:?}"),
    }

    stale.data = Some([("colour".to_string(), "green".to_string())].into());
    match api
        .replace("settings", &PostParams::default(), &stale)
        .await
    {
        Err(kube::Error::Api(status)) => {
            assert_eq!(status.code, 409);
            assert!(status.message.contains("the object has been modified"));
        }
        other => panic!("expected a conflict, got {other:?}"),
    }
}
