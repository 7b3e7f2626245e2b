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
        let mut child = support::kube_server::kubectl()
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
    let crd = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: helloworlds.charts.example.com
spec:
  group: charts.example.com
  names: {kind: HelloWorld, plural: helloworlds, singular: helloworld}
  scope: Namespaced
  versions:
    - name: v1alpha1
      served: true
      storage: true
      schema:
        openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
";
    kubectl.ok(&["apply", "--server-side", "-f", "-"], Some(crd));
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

/// The field-ownership logic of server-side apply, without HTTP.
mod field_ownership {
    use super::support::kube_server::fields::*;
    use serde_json::{Value, json};

    fn deployment(image: &str, replicas: u32) -> Value {
        json!({
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "op", "labels": {"app": "op"}},
            "spec": {
                "replicas": replicas,
                "template": {"spec": {"containers": [{"name": "op", "image": image}]}}
            }
        })
    }

    fn owners(object: &Value) -> Vec<(String, String)> {
        entries_of(object)
            .into_iter()
            .map(|e| (e.manager, e.operation))
            .collect()
    }

    #[test]
    fn field_sets_use_the_fieldsv1_encoding() {
        let fields = Fields::of_object(&deployment("a", 1));
        let json = fields.to_json();
        assert_eq!(json["f:metadata"]["f:labels"]["f:app"], json!({}));
        let container =
            &json["f:spec"]["f:template"]["f:spec"]["f:containers"]["k:{\"name\":\"op\"}"];
        assert_eq!(container["."], json!({}));
        assert_eq!(container["f:image"], json!({}));
        assert_eq!(Fields::from_json(&json), fields);
        assert!(json.get("f:apiVersion").is_none());
    }

    #[test]
    fn first_apply_creates_and_owns_everything() {
        let object = apply(None, &deployment("a", 1), "operator-rs", false, "t1").unwrap();
        assert_eq!(owners(&object), [("operator-rs".into(), "Apply".into())]);
    }

    #[test]
    fn reapplying_the_same_config_changes_nothing() {
        let first = apply(None, &deployment("a", 1), "operator-rs", false, "t1").unwrap();
        let second = apply(
            Some(&first),
            &deployment("a", 1),
            "operator-rs",
            false,
            "t2",
        )
        .unwrap();
        assert_eq!(first, second, "the time of a no-op apply stays");
    }

    #[test]
    fn changed_config_updates_value_and_time() {
        let first = apply(None, &deployment("a", 1), "operator-rs", false, "t1").unwrap();
        let second = apply(
            Some(&first),
            &deployment("b", 1),
            "operator-rs",
            false,
            "t2",
        )
        .unwrap();
        assert_eq!(
            second["spec"]["template"]["spec"]["containers"][0]["image"],
            "b"
        );
        assert_eq!(entries_of(&second)[0].time, "t2");
    }

    #[test]
    fn another_managers_field_conflicts_unless_forced() {
        let first = apply(None, &deployment("a", 1), "operator-rs", false, "t1").unwrap();
        let mut scaled = merge_patch(&first, &json!({"spec": {"replicas": 3}}));
        record_update(Some(&first), &mut scaled, "kubectl-scale", "t2");
        assert!(owners(&scaled).contains(&("kubectl-scale".into(), "Update".into())));

        let conflicts = apply(
            Some(&scaled),
            &deployment("a", 1),
            "operator-rs",
            false,
            "t3",
        )
        .unwrap_err();
        assert_eq!(
            conflicts,
            [Conflict {
                manager: "kubectl-scale".into(),
                field: ".spec.replicas".into()
            }]
        );

        let forced = apply(
            Some(&scaled),
            &deployment("a", 1),
            "operator-rs",
            true,
            "t3",
        )
        .unwrap();
        assert_eq!(forced["spec"]["replicas"], 1);
        assert_eq!(owners(&forced), [("operator-rs".into(), "Apply".into())]);
    }

    #[test]
    fn same_value_is_shared_without_conflict() {
        let first = apply(None, &deployment("a", 1), "kubectl", false, "t1").unwrap();
        let second = apply(
            Some(&first),
            &deployment("a", 1),
            "operator-rs",
            false,
            "t2",
        )
        .unwrap();
        assert_eq!(owners(&second).len(), 2);
    }

    #[test]
    fn fields_dropped_from_the_config_are_removed_unless_owned_elsewhere() {
        let mut config = deployment("a", 1);
        config["metadata"]["labels"]["tier"] = json!("backend");
        config["metadata"]["annotations"] = json!({"note": "x"});
        let first = apply(None, &config, "operator-rs", false, "t1").unwrap();
        // Another applier sets the same annotation: it now shares ownership.
        let shared = apply(
            Some(&first),
            &json!({"apiVersion": "apps/v1", "kind": "Deployment",
                    "metadata": {"name": "op", "annotations": {"note": "x"}}}),
            "helm",
            false,
            "t2",
        )
        .unwrap();

        let second = apply(
            Some(&shared),
            &deployment("a", 1),
            "operator-rs",
            false,
            "t3",
        )
        .unwrap();
        assert_eq!(second["metadata"]["labels"], json!({"app": "op"}));
        assert_eq!(second["metadata"]["annotations"], json!({"note": "x"}));
    }

    #[test]
    fn associative_lists_merge_by_name() {
        let live = json!([{"name": "a", "image": "1"}, {"name": "sidecar", "image": "s"}]);
        let config = json!([{"name": "a", "image": "2"}]);
        assert_eq!(
            merge(&live, &config),
            json!([{"name": "a", "image": "2"}, {"name": "sidecar", "image": "s"}])
        );
        // Lists without distinct names are atomic.
        assert_eq!(merge(&json!([1, 2]), &json!([3])), json!([3]));
    }

    #[test]
    fn dropping_a_list_item_removes_it() {
        let mut two = deployment("a", 1);
        two["spec"]["template"]["spec"]["containers"]
            .as_array_mut()
            .unwrap()
            .push(json!({"name": "sidecar", "image": "s"}));
        let first = apply(None, &two, "operator-rs", false, "t1").unwrap();
        let second = apply(
            Some(&first),
            &deployment("a", 1),
            "operator-rs",
            false,
            "t2",
        )
        .unwrap();
        assert_eq!(
            second["spec"]["template"]["spec"]["containers"],
            json!([{"name": "op", "image": "a"}])
        );
    }

    #[test]
    fn merge_patch_follows_rfc_7386() {
        let target = json!({"a": "b", "c": {"d": "e", "f": "g"}});
        let patch = json!({"a": "z", "c": {"f": null}});
        assert_eq!(
            merge_patch(&target, &patch),
            json!({"a": "z", "c": {"d": "e"}})
        );
    }

    #[test]
    fn updates_take_ownership_of_what_they_change() {
        let first = apply(None, &deployment("a", 1), "operator-rs", false, "t1").unwrap();
        let mut edited = merge_patch(&first, &json!({"metadata": {"labels": {"app": "x"}}}));
        record_update(Some(&first), &mut edited, "kubectl-edit", "t2");
        let entries = entries_of(&edited);
        let edit = entries
            .iter()
            .find(|e| e.manager == "kubectl-edit")
            .unwrap();
        assert!(
            edit.fields
                .contains(&["f:metadata".into(), "f:labels".into(), "f:app".into()])
        );
        let ours = entries.iter().find(|e| e.manager == "operator-rs").unwrap();
        assert!(
            !ours
                .fields
                .contains(&["f:metadata".into(), "f:labels".into(), "f:app".into()])
        );
    }
}

/// The store's semantics of writes, reads and selectors, without HTTP.
mod store_semantics {
    use super::support::kube_server::store::*;
    use serde_json::json;

    #[test]
    fn selectors() {
        let pod = json!({"metadata": {"name": "p", "labels": {"app": "op", "tier": "x"}},
                         "involvedObject": {"kind": "Pod"}});
        assert!(selects(&pod, Some("app=op"), None));
        assert!(selects(&pod, Some("app==op,tier"), None));
        assert!(!selects(&pod, Some("app!=op"), None));
        assert!(selects(&pod, Some("!missing"), Some("metadata.name=p")));
        assert!(selects(&pod, None, Some("involvedObject.kind=Pod")));
        assert!(!selects(&pod, None, Some("involvedObject.kind!=Pod")));
    }

    #[test]
    fn timestamps_are_rfc3339() {
        let t = now();
        assert_eq!(t.len(), 20, "{t}");
        assert!(t.starts_with("20") && t.ends_with('Z'), "{t}");
    }

    #[test]
    fn a_noop_write_keeps_the_resource_version() {
        let mut state = State::new("127.0.0.1:1".into());
        let t = state.builtin("", "configmaps");
        let cm = json!({"apiVersion": "v1", "kind": "ConfigMap",
                        "metadata": {"name": "c", "namespace": "default"}, "data": {"a": "1"}});
        let (code, first) = state
            .patch(
                &t,
                Some("default"),
                "c",
                cm.clone(),
                PatchKind::Apply { force: false },
                Writer::new("m"),
            )
            .unwrap();
        assert_eq!(code, 201);
        let (code, second) = state
            .patch(
                &t,
                Some("default"),
                "c",
                cm,
                PatchKind::Apply { force: false },
                Writer::new("m"),
            )
            .unwrap();
        assert_eq!(code, 200);
        assert_eq!(
            first["metadata"]["resourceVersion"],
            second["metadata"]["resourceVersion"]
        );
    }

    #[test]
    fn namespaced_writes_need_the_namespace() {
        let mut state = State::new("127.0.0.1:1".into());
        let t = state.builtin("", "configmaps");
        let cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}});
        let err = state
            .create(&t, Some("nope"), cm, Writer::new("m"))
            .unwrap_err();
        assert_eq!(
            (err.code, err.message.as_str()),
            (404, "namespaces \"nope\" not found")
        );
    }

    #[test]
    fn deployments_roll_out_after_the_scripted_polls() {
        let mut state = State::new("127.0.0.1:1".into());
        let t = state.builtin("apps", "deployments");
        let d = json!({"apiVersion": "apps/v1", "kind": "Deployment",
                       "metadata": {"name": "d", "namespace": "default"},
                       "spec": {"replicas": 1, "template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}}});
        state
            .create(&t, Some("default"), d, Writer::new("m"))
            .unwrap();
        let (_, first) = state.get(&t, Some("default"), "d").unwrap();
        assert_eq!(first["status"]["unavailableReplicas"], 1);
        let (_, second) = state.get(&t, Some("default"), "d").unwrap();
        assert_eq!(second["status"]["availableReplicas"], 1);
    }
}
