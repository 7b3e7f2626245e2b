//! The Kubernetes API test server itself, checked with two real clients (kube-rs and the real
//! `kubectl`) so that deploy tests can trust it.

mod support;

use std::process::Output;

use std::sync::Arc;
use std::time::Duration;

use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::Resource;
use kube::api::{
    Api, ApiResource, DeleteParams, DynamicObject, ListParams, Patch, PatchParams, PostParams,
    WatchEvent, WatchParams,
};
use kube::core::PartialObjectMeta;
use kube::runtime::controller::Action;
use kube::runtime::events::{Event, EventType, Recorder, Reporter};
use kube::runtime::finalizer::finalizer;
use kube::runtime::watcher;
use serde_json::json;
use support::kube_server::{KubeServer, LeaseFault, Rollout};

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
        let mut child = self
            .server
            .kubectl(self.cache.path())
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
fn priority_classes_are_served_cluster_scoped() {
    let server = KubeServer::start();
    let kubectl = Kubectl::new(&server);
    let class = "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata:\n  name: critical\nvalue: 1000000000\n";
    kubectl.ok(&["apply", "--server-side", "-f", "-"], Some(class));
    let live = kubectl.json(&["get", "pc", "critical"]);
    assert_eq!(live["value"], 1_000_000_000, "{live:#}");
    assert!(
        server
            .object("scheduling.k8s.io", "priorityclasses", None, "critical")
            .is_some()
    );
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

/// TokenReviews know the tokens a test added, and SubjectAccessReviews follow the RBAC objects
/// stored: ClusterRoleBindings for non-resource URLs and every namespace, RoleBindings (to a
/// Role or a ClusterRole) in their own namespace, resourceNames and subresources. kubectl
/// (`create --raw`, JSON) and kube-rs ask.
#[tokio::test]
async fn reviews_answer_from_known_tokens_and_stored_rbac() {
    use k8s_openapi::api::authorization::v1::{
        ResourceAttributes, SubjectAccessReview, SubjectAccessReviewSpec,
    };
    let server = KubeServer::start();
    server.add_token(
        "reader-token",
        "system:serviceaccount:demo:reader",
        &["system:serviceaccounts"],
    );
    let kubectl = Kubectl::new(&server);
    let rbac = [
        json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "demo"}}),
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
               "metadata": {"name": "metrics-reader"},
               "rules": [{"nonResourceURLs": ["/metrics"], "verbs": ["get"]}]}),
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
               "metadata": {"name": "reader-reads-metrics"},
               "subjects": [{"kind": "ServiceAccount", "name": "reader", "namespace": "demo"}],
               "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                           "name": "metrics-reader"}}),
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
               "metadata": {"name": "lease-holder", "namespace": "demo"},
               "rules": [{"apiGroups": ["coordination.k8s.io"], "resources": ["leases"],
                          "resourceNames": ["mine"], "verbs": ["get", "update"]},
                         {"apiGroups": ["apps"], "resources": ["deployments/status"],
                          "verbs": ["patch"]}]}),
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
               "metadata": {"name": "ops-hold-leases", "namespace": "demo"},
               "subjects": [{"kind": "Group", "name": "ops"}],
               "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role",
                           "name": "lease-holder"}}),
    ]
    .map(|object| object.to_string())
    .join("\n---\n");
    kubectl.ok(&["apply", "--server-side", "-f", "-"], Some(&rbac));

    let review = |token: &str| -> serde_json::Value {
        let body = json!({"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview",
                          "spec": {"token": token}});
        let out = kubectl.ok(
            &[
                "create",
                "--raw",
                "/apis/authentication.k8s.io/v1/tokenreviews",
                "-f",
                "-",
            ],
            Some(&body.to_string()),
        );
        serde_json::from_str(&out).unwrap()
    };
    let known = review("reader-token");
    assert_eq!(known["status"]["authenticated"], true, "{known}");
    assert_eq!(
        known["status"]["user"]["username"],
        "system:serviceaccount:demo:reader"
    );
    let groups = known["status"]["user"]["groups"].as_array().unwrap();
    assert!(groups.contains(&json!("system:authenticated")), "{known}");
    let unknown = review("who-knows");
    assert!(unknown["status"]["authenticated"].is_null(), "{unknown}");

    let access = |user: &str, path: &str| -> bool {
        let body = json!({"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview",
                          "spec": {"user": user, "groups": ["system:authenticated"],
                                   "nonResourceAttributes": {"path": path, "verb": "get"}}});
        let out = kubectl.ok(
            &[
                "create",
                "--raw",
                "/apis/authorization.k8s.io/v1/subjectaccessreviews",
                "-f",
                "-",
            ],
            Some(&body.to_string()),
        );
        let answer: serde_json::Value = serde_json::from_str(&out).unwrap();
        answer["status"]["allowed"] == true
    };
    assert!(access("system:serviceaccount:demo:reader", "/metrics"));
    assert!(!access("system:serviceaccount:demo:other", "/metrics"));
    assert!(!access("system:serviceaccount:demo:reader", "/healthz"));

    let api: Api<SubjectAccessReview> = Api::all(client(&server));
    let ask = |namespace: &str,
               resource: &str,
               subresource: Option<&str>,
               name: Option<&str>,
               verb: &str| {
        let review = SubjectAccessReview {
            spec: SubjectAccessReviewSpec {
                user: Some("alice".into()),
                groups: Some(vec!["ops".into()]),
                resource_attributes: Some(ResourceAttributes {
                    namespace: Some(namespace.into()),
                    group: Some(
                        if resource == "leases" {
                            "coordination.k8s.io"
                        } else {
                            "apps"
                        }
                        .into(),
                    ),
                    resource: Some(resource.into()),
                    subresource: subresource.map(String::from),
                    name: name.map(String::from),
                    verb: Some(verb.into()),
                    ..Default::default()
                }),
                ..Default::default()
            },
            ..Default::default()
        };
        let api = api.clone();
        async move {
            let answered = api.create(&PostParams::default(), &review).await.unwrap();
            answered.status.unwrap().allowed
        }
    };
    assert!(ask("demo", "leases", None, Some("mine"), "update").await);
    assert!(!ask("demo", "leases", None, Some("theirs"), "update").await);
    assert!(!ask("demo", "leases", None, None, "create").await);
    assert!(!ask("other", "leases", None, Some("mine"), "get").await);
    assert!(ask("demo", "deployments", Some("status"), Some("web"), "patch").await);
    assert!(!ask("demo", "deployments", None, Some("web"), "patch").await);
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

const CRD: &str = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: memcacheds.cache.example.com
spec:
  group: cache.example.com
  names: {kind: Memcached, plural: memcacheds, singular: memcached}
  scope: Namespaced
  versions:
    - name: v1alpha1
      served: true
      storage: true
      subresources: {status: {}}
      schema:
        openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
";

fn memcacheds(client: kube::Client) -> Api<DynamicObject> {
    let resource = ApiResource {
        group: "cache.example.com".into(),
        version: "v1alpha1".into(),
        api_version: "cache.example.com/v1alpha1".into(),
        kind: "Memcached".into(),
        plural: "memcacheds".into(),
    };
    Api::namespaced_with(client, "default", &resource)
}

/// The CRD above, Established.
fn with_crd(kubectl: &Kubectl) {
    kubectl.ok(&["apply", "--server-side", "-f", "-"], Some(CRD));
    kubectl.ok(
        &[
            "wait",
            "--for=condition=Established",
            "crd/memcacheds.cache.example.com",
            "--timeout=10s",
        ],
        None,
    );
}

fn memcached(name: &str, size: i64) -> serde_json::Value {
    json!({"apiVersion": "cache.example.com/v1alpha1", "kind": "Memcached",
           "metadata": {"name": name, "namespace": "default"}, "spec": {"size": size}})
}

fn config_map(name: &str, labels: serde_json::Value) -> ConfigMap {
    serde_json::from_value(json!({
        "apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": "default", "labels": labels},
    }))
    .unwrap()
}

/// The next event of a raw watch, skipping bookmarks.
async fn next_change<K>(
    stream: &mut (impl futures::Stream<Item = kube::Result<WatchEvent<K>>> + Unpin),
) -> WatchEvent<K> {
    loop {
        match stream.try_next().await.unwrap() {
            Some(WatchEvent::Bookmark(_)) => continue,
            Some(event) => return event,
            None => panic!("the watch ended"),
        }
    }
}

fn not_found(kubectl: &Kubectl, args: &[&str]) -> bool {
    let output = kubectl.run(args, None);
    !output.status.success() && String::from_utf8_lossy(&output.stderr).contains("not found")
}

#[tokio::test]
async fn finalizers_hold_deletion_until_the_last_one_is_removed() {
    let server = KubeServer::start();
    let kubectl = Kubectl::new(&server);
    let api: Api<ConfigMap> = Api::namespaced(client(&server), "default");
    let created = api
        .create(&PostParams::default(), &config_map("held", json!({})))
        .await
        .unwrap();
    let version = created.metadata.resource_version.clone().unwrap();
    let mut stream = api
        .watch(&WatchParams::default().timeout(20), &version)
        .await
        .unwrap()
        .boxed();

    // kube-runtime's finalizer helper adds its finalizer with a JSON patch (test, then add).
    let added = finalizer(&api, "example.com/cleanup", Arc::new(created), |_| async {
        Ok::<_, std::convert::Infallible>(Action::await_change())
    })
    .await;
    assert!(added.is_ok(), "{added:?}");
    assert!(matches!(
        next_change(&mut stream).await,
        WatchEvent::Modified(_)
    ));

    let deleted = api.delete("held", &DeleteParams::default()).await.unwrap();
    let pending = deleted
        .left()
        .expect("the object stays while a finalizer holds it");
    assert!(pending.metadata.deletion_timestamp.is_some());
    match next_change(&mut stream).await {
        WatchEvent::Modified(cm) => assert!(cm.metadata.deletion_timestamp.is_some()),
        other => panic!("expected MODIFIED with deletionTimestamp, got {other:?}"),
    }
    let live = kubectl.json(&["get", "configmap", "held", "-n", "default"]);
    assert!(live["metadata"]["deletionTimestamp"].is_string(), "{live}");
    assert_eq!(live["metadata"]["deletionGracePeriodSeconds"], 0);

    // No finalizer can be added once deleting.
    let output = kubectl.run(
        &[
            "patch",
            "configmap",
            "held",
            "-n",
            "default",
            "--type=merge",
            "-p",
            r#"{"metadata":{"finalizers":["example.com/cleanup","example.com/late"]}}"#,
        ],
        None,
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("no new finalizers can be added"),
        "{stderr}"
    );

    // The helper's cleanup removes the finalizer (test, then remove): the object goes.
    let current = api.get("held").await.unwrap();
    let cleaned = finalizer(&api, "example.com/cleanup", Arc::new(current), |_| async {
        Ok::<_, std::convert::Infallible>(Action::await_change())
    })
    .await;
    assert!(cleaned.is_ok(), "{cleaned:?}");
    match next_change(&mut stream).await {
        WatchEvent::Deleted(cm) => {
            assert!(cm.metadata.finalizers.unwrap_or_default().is_empty());
            assert!(cm.metadata.deletion_timestamp.is_some());
        }
        other => panic!("expected DELETED, got {other:?}"),
    }
    assert!(not_found(
        &kubectl,
        &["get", "configmap", "held", "-n", "default"]
    ));
}

#[tokio::test]
async fn a_deleted_crd_and_namespace_wait_for_their_content() {
    let server = KubeServer::start();
    let kubectl = Kubectl::new(&server);
    with_crd(&kubectl);
    let api = memcacheds(client(&server));
    let mut held = memcached("held", 1);
    held["metadata"]["finalizers"] = json!(["cache.example.com/finalizer"]);
    api.create(
        &PostParams::default(),
        &serde_json::from_value(held).unwrap(),
    )
    .await
    .unwrap();
    api.create(
        &PostParams::default(),
        &serde_json::from_value(memcached("free", 1)).unwrap(),
    )
    .await
    .unwrap();

    kubectl.ok(
        &[
            "delete",
            "crd",
            "memcacheds.cache.example.com",
            "--wait=false",
        ],
        None,
    );
    let crd = kubectl.json(&["get", "crd", "memcacheds.cache.example.com"]);
    assert!(crd["metadata"]["deletionTimestamp"].is_string(), "{crd}");
    assert_eq!(
        crd["metadata"]["finalizers"],
        json!(["customresourcecleanup.apiextensions.k8s.io"])
    );
    let left = kubectl.json(&["get", "memcacheds", "-n", "default"]);
    let names: Vec<&str> = left["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["metadata"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["held"], "the free one went, the held one waits");
    assert!(left["items"][0]["metadata"]["deletionTimestamp"].is_string());
    let refused = api
        .create(
            &PostParams::default(),
            &serde_json::from_value(memcached("new", 1)).unwrap(),
        )
        .await
        .unwrap_err();
    assert!(refused.to_string().contains("terminating"), "{refused}");

    api.patch(
        "held",
        &PatchParams::default(),
        &Patch::Merge(json!({"metadata": {"finalizers": null}})),
    )
    .await
    .unwrap();
    assert!(not_found(
        &kubectl,
        &["get", "crd", "memcacheds.cache.example.com"]
    ));

    // A namespace terminates once everything in it is gone, and takes nothing new meanwhile.
    kubectl.ok(
        &["create", "-f", "-"],
        Some("apiVersion: v1\nkind: Namespace\nmetadata: {name: doomed}\n"),
    );
    let cms: Api<ConfigMap> = Api::namespaced(client(&server), "doomed");
    let mut cm = config_map("held", json!({}));
    cm.metadata.namespace = Some("doomed".into());
    cm.metadata.finalizers = Some(vec!["example.com/hold".into()]);
    cms.create(&PostParams::default(), &cm).await.unwrap();
    kubectl.ok(&["delete", "namespace", "doomed", "--wait=false"], None);
    let namespace = kubectl.json(&["get", "namespace", "doomed"]);
    assert_eq!(namespace["status"]["phase"], "Terminating");
    let output = kubectl.run(
        &["create", "-f", "-"],
        Some("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: late, namespace: doomed}\n"),
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("because it is being terminated"),
        "{stderr}"
    );
    cms.patch(
        "held",
        &PatchParams::default(),
        &Patch::Merge(json!({"metadata": {"finalizers": null}})),
    )
    .await
    .unwrap();
    assert!(not_found(&kubectl, &["get", "namespace", "doomed"]));
}

#[tokio::test]
async fn dependents_are_collected_when_their_owners_are_gone() {
    let server = KubeServer::start();
    let kubectl = Kubectl::new(&server);
    let api: Api<ConfigMap> = Api::namespaced(client(&server), "default");
    let mut uids = Vec::new();
    for name in ["owner-a", "owner-b", "owner-c", "owner-d"] {
        let owner = api
            .create(&PostParams::default(), &config_map(name, json!({})))
            .await
            .unwrap();
        uids.push(owner.metadata.uid.unwrap());
    }
    let reference = |name: &str, uid: &str, block: bool| {
        json!({"apiVersion": "v1", "kind": "ConfigMap", "name": name, "uid": uid,
               "blockOwnerDeletion": block})
    };
    let dependent = |name: &str, owners: Vec<serde_json::Value>, finalizers: Vec<&str>| {
        let mut cm = config_map(name, json!({}));
        cm.metadata.owner_references = Some(serde_json::from_value(json!(owners)).unwrap());
        cm.metadata.finalizers = Some(finalizers.into_iter().map(String::from).collect());
        cm
    };
    let pp = PostParams::default();
    api.create(
        &pp,
        &dependent("of-a", vec![reference("owner-a", &uids[0], false)], vec![]),
    )
    .await
    .unwrap();
    api.create(
        &pp,
        &dependent(
            "of-a-and-b",
            vec![
                reference("owner-a", &uids[0], false),
                reference("owner-b", &uids[1], false),
            ],
            vec![],
        ),
    )
    .await
    .unwrap();
    api.create(
        &pp,
        &dependent(
            "of-c",
            vec![reference("owner-c", &uids[2], true)],
            vec!["example.com/hold"],
        ),
    )
    .await
    .unwrap();
    api.create(
        &pp,
        &dependent("of-d", vec![reference("owner-d", &uids[3], false)], vec![]),
    )
    .await
    .unwrap();

    // Background: the dependent goes with its only owner; a second owner keeps the other.
    kubectl.ok(&["delete", "configmap", "owner-a", "-n", "default"], None);
    assert!(not_found(
        &kubectl,
        &["get", "configmap", "of-a", "-n", "default"]
    ));
    let kept = kubectl.json(&["get", "configmap", "of-a-and-b", "-n", "default"]);
    let owners: Vec<&str> = kept["metadata"]["ownerReferences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(owners, ["owner-b"]);

    // Foreground: the owner waits, marked, for its blocking dependent.
    api.delete("owner-c", &DeleteParams::foreground())
        .await
        .unwrap();
    let owner = kubectl.json(&["get", "configmap", "owner-c", "-n", "default"]);
    assert_eq!(
        owner["metadata"]["finalizers"],
        json!(["foregroundDeletion"])
    );
    let blocking = kubectl.json(&["get", "configmap", "of-c", "-n", "default"]);
    assert!(blocking["metadata"]["deletionTimestamp"].is_string());
    api.patch(
        "of-c",
        &PatchParams::default(),
        &Patch::Merge(json!({"metadata": {"finalizers": null}})),
    )
    .await
    .unwrap();
    assert!(not_found(
        &kubectl,
        &["get", "configmap", "owner-c", "-n", "default"]
    ));
    assert!(not_found(
        &kubectl,
        &["get", "configmap", "of-c", "-n", "default"]
    ));

    // Orphan: the dependent stays, without the reference.
    kubectl.ok(
        &[
            "delete",
            "configmap",
            "owner-d",
            "-n",
            "default",
            "--cascade=orphan",
        ],
        None,
    );
    let orphan = kubectl.json(&["get", "configmap", "of-d", "-n", "default"]);
    assert!(
        orphan["metadata"].get("ownerReferences").is_none(),
        "{orphan}"
    );
    assert!(not_found(
        &kubectl,
        &["get", "configmap", "owner-d", "-n", "default"]
    ));
}

#[tokio::test]
async fn the_status_subresource_keeps_spec_and_status_apart() {
    let server = KubeServer::start();
    let kubectl = Kubectl::new(&server);
    with_crd(&kubectl);
    let api = memcacheds(client(&server));
    let mut body = memcached("m", 1);
    body["status"] = json!({"readyReplicas": 9});
    let created = api
        .create(
            &PostParams::default(),
            &serde_json::from_value(body).unwrap(),
        )
        .await
        .unwrap();
    assert!(
        created.data.get("status").is_none(),
        "a create sets no status"
    );
    assert_eq!(created.metadata.generation, Some(1));

    let status = json!({"apiVersion": "cache.example.com/v1alpha1", "kind": "Memcached",
                        "status": {"readyReplicas": 1, "observedGeneration": 1}});
    let patched = api
        .patch_status(
            "m",
            &PatchParams::apply("operator").force(),
            &Patch::Apply(status),
        )
        .await
        .unwrap();
    assert_eq!(patched.data["status"]["readyReplicas"], 1);
    assert_eq!(patched.metadata.generation, Some(1), "status is not spec");
    let entry = patched
        .metadata
        .managed_fields
        .unwrap()
        .into_iter()
        .find(|e| e.subresource.as_deref() == Some("status"))
        .expect("a managedFields entry for the status subresource");
    assert_eq!(entry.manager.as_deref(), Some("operator"));

    // The main resource changes spec, never status; generation counts spec changes only.
    let mut main = memcached("m", 3);
    main["status"] = json!({"readyReplicas": 7});
    let applied = api
        .patch(
            "m",
            &PatchParams::apply("user").force(),
            &Patch::Apply(main),
        )
        .await
        .unwrap();
    assert_eq!(applied.data["spec"]["size"], 3);
    assert_eq!(applied.data["status"]["readyReplicas"], 1);
    assert_eq!(applied.metadata.generation, Some(2));
    let labelled = api
        .patch(
            "m",
            &PatchParams::default(),
            &Patch::Merge(json!({"metadata": {"labels": {"tier": "cache"}}})),
        )
        .await
        .unwrap();
    assert_eq!(
        labelled.metadata.generation,
        Some(2),
        "metadata is not spec"
    );

    // kubectl writes status through the subresource too; spec changes there are ignored.
    kubectl.ok(
        &[
            "patch",
            "memcached",
            "m",
            "-n",
            "default",
            "--subresource=status",
            "--type=merge",
            "-p",
            r#"{"status":{"readyReplicas":3},"spec":{"size":5}}"#,
        ],
        None,
    );
    let live = kubectl.json(&["get", "memcached", "m", "-n", "default"]);
    assert_eq!(live["status"]["readyReplicas"], 3);
    assert_eq!(live["spec"]["size"], 3);
    assert_eq!(live["metadata"]["generation"], 2);

    // Status writes are optimistic too.
    let mut stale = api.get_status("m").await.unwrap();
    stale.metadata.resource_version = Some("1".into());
    stale.data["status"]["readyReplicas"] = json!(0);
    let conflict = api
        .replace_status("m", &PostParams::default(), &stale)
        .await
        .unwrap_err();
    assert!(
        matches!(conflict, kube::Error::Api(ref s) if s.code == 409),
        "{conflict}"
    );

    // A Deployment's status is a subresource as well.
    let deployments: Api<Deployment> = Api::namespaced(client(&server), "default");
    let deployment: Deployment = serde_json::from_value(json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "d", "namespace": "default"},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "d"}},
                 "template": {"metadata": {"labels": {"app": "d"}},
                              "spec": {"containers": [{"name": "c", "image": "i"}]}}},
        "status": {"replicas": 5}}))
    .unwrap();
    deployments
        .create(&PostParams::default(), &deployment)
        .await
        .unwrap();
    let live = deployments
        .patch_status(
            "d",
            &PatchParams::default(),
            &Patch::Merge(json!({"status": {"replicas": 1}})),
        )
        .await
        .unwrap();
    assert_eq!(live.status.unwrap().replicas, Some(1));
    assert_eq!(live.metadata.generation, Some(1));
}

#[tokio::test]
async fn metadata_only_lists_and_watches() {
    let server = KubeServer::start();
    let api: Api<ConfigMap> = Api::namespaced(client(&server), "default");
    let mut cm = config_map("a", json!({"app": "x"}));
    cm.data = Some([("secret".to_string(), "value".to_string())].into());
    api.create(&PostParams::default(), &cm).await.unwrap();
    api.create(
        &PostParams::default(),
        &config_map("b", json!({"app": "y"})),
    )
    .await
    .unwrap();

    let list = api
        .list_metadata(&ListParams::default().labels("app=x"))
        .await
        .unwrap();
    assert_eq!(list.items.len(), 1);
    assert_eq!(list.items[0].metadata.name.as_deref(), Some("a"));
    let one = api.get_metadata("a").await.unwrap();
    assert_eq!(one.types.unwrap().kind, "PartialObjectMetadata");

    // The raw answers carry metadata only.
    let request = hyper::http::Request::get("/api/v1/namespaces/default/configmaps/a")
        .header(
            "Accept",
            "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1",
        )
        .body(Vec::new())
        .unwrap();
    let raw: serde_json::Value = client(&server).request(request).await.unwrap();
    assert!(raw.get("data").is_none(), "{raw}");
    assert_eq!(raw["apiVersion"], "meta.k8s.io/v1");

    // kube-runtime's metadata watcher, narrowed by a label selector.
    let config = watcher::Config::default().labels("app in (x, z)");
    let metadata: Api<PartialObjectMeta<ConfigMap>> = Api::namespaced(client(&server), "default");
    let mut events = watcher(metadata, config).boxed();
    let mut seen = Vec::new();
    loop {
        match events.try_next().await.unwrap().unwrap() {
            watcher::Event::InitApply(meta) => seen.push(meta.metadata.name.unwrap()),
            watcher::Event::InitDone => break,
            _ => {}
        }
    }
    assert_eq!(seen, ["a"]);
    api.create(
        &PostParams::default(),
        &config_map("c", json!({"app": "z"})),
    )
    .await
    .unwrap();
    api.create(
        &PostParams::default(),
        &config_map("d", json!({"app": "y"})),
    )
    .await
    .unwrap();
    match events.try_next().await.unwrap().unwrap() {
        watcher::Event::Apply(meta) => assert_eq!(meta.metadata.name.as_deref(), Some("c")),
        other => panic!("expected the new matching object, got {other:?}"),
    }
}

#[tokio::test]
async fn label_and_field_selectors_select_as_kubernetes_does() {
    let server = KubeServer::start();
    let kubectl = Kubectl::new(&server);
    let api: Api<ConfigMap> = Api::namespaced(client(&server), "default");
    for (name, labels) in [
        ("prod", json!({"env": "prod", "tier": "web"})),
        ("qa", json!({"env": "qa"})),
        ("bare", json!({})),
    ] {
        api.create(&PostParams::default(), &config_map(name, labels))
            .await
            .unwrap();
    }
    let names = |list: kube::core::ObjectList<ConfigMap>| -> Vec<String> {
        list.items
            .into_iter()
            .map(|c| c.metadata.name.unwrap())
            .collect()
    };
    for (selector, expected) in [
        ("env=prod", vec!["prod"]),
        ("env!=prod", vec!["bare", "qa"]),
        ("env in (prod,qa)", vec!["prod", "qa"]),
        ("env notin (prod)", vec!["bare", "qa"]),
        ("env", vec!["prod", "qa"]),
        ("!env", vec!["bare"]),
        ("env,!tier", vec!["qa"]),
    ] {
        let listed = api
            .list(&ListParams::default().labels(selector))
            .await
            .unwrap();
        assert_eq!(names(listed), expected, "{selector}");
    }
    let by_name = api
        .list(&ListParams::default().fields("metadata.name=qa"))
        .await
        .unwrap();
    assert_eq!(names(by_name), ["qa"]);
    let by_namespace = api
        .list(&ListParams::default().fields("metadata.namespace!=default"))
        .await
        .unwrap();
    assert!(by_namespace.items.is_empty());
    let bad = api
        .list(&ListParams::default().labels("env in prod"))
        .await
        .unwrap_err();
    assert!(
        matches!(bad, kube::Error::Api(ref s) if s.code == 400),
        "{bad}"
    );

    let listed = kubectl.json(&[
        "get",
        "configmaps",
        "-n",
        "default",
        "-l",
        "env notin (qa),env",
    ]);
    assert_eq!(listed["items"].as_array().unwrap().len(), 1);
    assert_eq!(listed["items"][0]["metadata"]["name"], "prod");

    // Watches select the same way: a change to an unselected object is not sent.
    let mut stream = api
        .watch(
            &WatchParams::default().labels("env in (qa)").timeout(20),
            "0",
        )
        .await
        .unwrap()
        .boxed();
    match next_change(&mut stream).await {
        WatchEvent::Added(cm) => assert_eq!(cm.metadata.name.as_deref(), Some("qa")),
        other => panic!("expected ADDED qa, got {other:?}"),
    }
    for name in ["prod", "qa"] {
        api.patch(
            name,
            &PatchParams::default(),
            &Patch::Merge(json!({"data": {"touched": "yes"}})),
        )
        .await
        .unwrap();
    }
    match next_change(&mut stream).await {
        WatchEvent::Modified(cm) => assert_eq!(cm.metadata.name.as_deref(), Some("qa")),
        other => panic!("expected MODIFIED qa, got {other:?}"),
    }
}

#[tokio::test]
async fn watches_bookmark_stream_initial_events_and_expire() {
    let server = KubeServer::start();
    let api: Api<ConfigMap> = Api::namespaced(client(&server), "default");
    let first = api
        .create(&PostParams::default(), &config_map("first", json!({})))
        .await
        .unwrap();
    let old_version = first.metadata.resource_version.unwrap();

    // Streaming lists: the current objects, then the bookmark that ends them.
    let mut stream = api
        .watch(&WatchParams::streaming_lists().timeout(20), "")
        .await
        .unwrap()
        .boxed();
    match stream.try_next().await.unwrap() {
        Some(WatchEvent::Added(cm)) => assert_eq!(cm.metadata.name.as_deref(), Some("first")),
        other => panic!("expected ADDED, got {other:?}"),
    }
    match stream.try_next().await.unwrap() {
        Some(WatchEvent::Bookmark(b)) => {
            assert_eq!(b.metadata.annotations["k8s.io/initial-events-end"], "true");
            assert_eq!(
                b.metadata.resource_version,
                server.resource_version().to_string()
            );
        }
        other => panic!("expected the initial-events-end bookmark, got {other:?}"),
    }
    api.create(&PostParams::default(), &config_map("second", json!({})))
        .await
        .unwrap();
    let second = match stream.try_next().await.unwrap() {
        Some(WatchEvent::Added(cm)) => cm.metadata.resource_version.unwrap(),
        other => panic!("expected ADDED second, got {other:?}"),
    };
    server.send_bookmarks();
    match stream.try_next().await.unwrap() {
        Some(WatchEvent::Bookmark(b)) => assert_eq!(b.metadata.resource_version, second),
        other => panic!("expected a bookmark, got {other:?}"),
    }

    // A streaming list without resourceVersionMatch is refused, as by the API server.
    let request = hyper::http::Request::get(
        "/api/v1/namespaces/default/configmaps?watch=true&sendInitialEvents=true&allowWatchBookmarks=true",
    )
    .body(Vec::new())
    .unwrap();
    let refused = client(&server)
        .request::<serde_json::Value>(request)
        .await
        .unwrap_err();
    assert!(
        matches!(refused, kube::Error::Api(ref s) if s.code == 422),
        "{refused}"
    );

    // kube-runtime's watcher in streaming-list mode gets its initial state.
    let mut events = watcher(api.clone(), watcher::Config::default().streaming_lists()).boxed();
    let mut initial = Vec::new();
    loop {
        match events.try_next().await.unwrap().unwrap() {
            watcher::Event::InitApply(cm) => initial.push(cm.metadata.name.unwrap()),
            watcher::Event::InitDone => break,
            _ => {}
        }
    }
    assert_eq!(initial, ["first", "second"]);

    // After compaction a watch from an old resourceVersion is told 410 Gone.
    server.compact();
    let mut expired = api
        .watch(&WatchParams::default().timeout(20), &old_version)
        .await
        .unwrap()
        .boxed();
    match expired.try_next().await.unwrap() {
        Some(WatchEvent::Error(status)) => assert_eq!(status.code, 410),
        other => panic!("expected 410 Gone, got {other:?}"),
    }
    assert!(
        expired.try_next().await.unwrap().is_none(),
        "the stream ends"
    );

    // A watch with a timeout ends on its own, with a last bookmark.
    let mut short = api
        .watch(
            &WatchParams::default().timeout(1),
            &server.resource_version().to_string(),
        )
        .await
        .unwrap()
        .boxed();
    assert!(matches!(
        short.try_next().await.unwrap(),
        Some(WatchEvent::Bookmark(_))
    ));
    assert!(short.try_next().await.unwrap().is_none());
}

fn lease(holder: &str) -> serde_json::Value {
    json!({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
           "metadata": {"name": "leader", "namespace": "default"},
           "spec": {"holderIdentity": holder, "leaseDurationSeconds": 15}})
}

#[tokio::test]
async fn leases_are_optimistic_and_a_holder_can_be_partitioned() {
    let server = KubeServer::start();
    let kubectl = Kubectl::new(&server);
    let api: Api<Lease> = Api::namespaced(client(&server), "default");
    let manager = |identity: &str| PatchParams::apply(&format!("kube-lease-manager-{identity}"));
    let taken = api
        .patch("leader", &manager("a"), &Patch::Apply(lease("a")))
        .await
        .unwrap();
    // Another applier cannot take a field that a holds without forcing.
    let conflict = api
        .patch("leader", &manager("b"), &Patch::Apply(lease("b")))
        .await
        .unwrap_err();
    assert!(
        matches!(conflict, kube::Error::Api(ref s) if s.code == 409),
        "{conflict}"
    );
    // A stale update conflicts.
    let renewed = api
        .patch(
            "leader",
            &PatchParams {
                field_manager: Some("kube-lease-manager-a".into()),
                ..PatchParams::default()
            },
            &Patch::Strategic(json!({"spec": {"renewTime": "2026-01-01T00:00:00.000000Z"}})),
        )
        .await
        .unwrap();
    assert_ne!(
        renewed.metadata.resource_version,
        taken.metadata.resource_version
    );
    let stale = api
        .replace("leader", &PostParams::default(), &taken)
        .await
        .unwrap_err();
    assert!(
        matches!(stale, kube::Error::Api(ref s) if s.code == 409),
        "{stale}"
    );

    // a's renewals fail; b's writes and everyone's reads go through.
    server.partition_lease("default", "leader", "a", LeaseFault::Fail);
    let renewal = Patch::Strategic(json!({"spec": {"renewTime": "2026-01-01T00:00:01.000000Z"}}));
    let refused = api
        .patch(
            "leader",
            &PatchParams {
                field_manager: Some("kube-lease-manager-a".into()),
                ..PatchParams::default()
            },
            &renewal,
        )
        .await
        .unwrap_err();
    assert!(
        matches!(refused, kube::Error::Api(ref s) if s.code == 500),
        "{refused}"
    );
    api.get("leader").await.unwrap();
    api.patch(
        "leader",
        &PatchParams {
            field_manager: Some("kube-lease-manager-b".into()),
            ..PatchParams::default()
        },
        &Patch::Strategic(json!({"spec": {"holderIdentity": "b"}})),
    )
    .await
    .unwrap();

    // A hanging partition holds the write until it is healed.
    server.heal_lease("default", "leader", "a");
    server.partition_lease("default", "leader", "a", LeaseFault::Hang);
    let hung = {
        let api = api.clone();
        tokio::spawn(async move {
            api.patch(
                "leader",
                &PatchParams {
                    field_manager: Some("kube-lease-manager-a".into()),
                    ..PatchParams::default()
                },
                &Patch::Strategic(json!({"spec": {"holderIdentity": "a"}})),
            )
            .await
        })
    };
    // The write is held: it was counted, and the lease is still b's.
    while server.held_requests() == 0 {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let live = kubectl.json(&["get", "lease", "leader", "-n", "default"]);
    assert_eq!(live["spec"]["holderIdentity"], "b");
    server.heal_lease("default", "leader", "a");
    let answer = hung.await.unwrap().unwrap_err();
    assert!(
        matches!(answer, kube::Error::Api(ref s) if s.code == 500),
        "{answer}"
    );
}

#[tokio::test]
async fn events_of_both_apis_with_series() {
    let server = KubeServer::start();
    let kubectl = Kubectl::new(&server);
    let client = client(&server);
    let cms: Api<ConfigMap> = Api::namespaced(client.clone(), "default");
    let cm = cms
        .create(&PostParams::default(), &config_map("subject", json!({})))
        .await
        .unwrap();
    let recorder = Recorder::new(
        client.clone(),
        Reporter {
            controller: "test-controller".into(),
            instance: Some("pod-1".into()),
        },
    );
    let event = Event {
        type_: EventType::Normal,
        reason: "Reconciled".into(),
        note: Some("all good".into()),
        action: "Reconcile".into(),
        secondary: None,
    };
    let reference = cm.object_ref(&());
    recorder.publish(&event, &reference).await.unwrap();
    recorder.publish(&event, &reference).await.unwrap();
    let events = kubectl.json(&["get", "events.events.k8s.io", "-n", "default"]);
    let items = events["items"].as_array().unwrap();
    assert_eq!(items.len(), 1, "{events}");
    assert_eq!(items[0]["reason"], "Reconciled");
    assert_eq!(items[0]["regarding"]["name"], "subject");
    assert_eq!(items[0]["series"]["count"], 2);

    let core = "apiVersion: v1
kind: Event
metadata: {name: subject.1, namespace: default}
involvedObject: {kind: ConfigMap, name: subject, namespace: default}
reason: Tested
message: core event
type: Normal
";
    kubectl.ok(&["create", "-f", "-"], Some(core));
    let listed = kubectl.json(&[
        "get",
        "events",
        "-n",
        "default",
        "--field-selector",
        "involvedObject.name=subject",
    ]);
    assert_eq!(listed["items"][0]["reason"], "Tested");
}

#[tokio::test]
async fn deployments_follow_their_scripted_rollout() {
    let server = KubeServer::start();
    let kubectl = Kubectl::new(&server);
    let api: Api<Deployment> = Api::namespaced(client(&server), "default");
    let deployment = |name: &str, replicas: i32| -> Deployment {
        serde_json::from_value(json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"containers": [{"name": "c", "image": "i"}]}}}}))
        .unwrap()
    };
    server.set_rollout(Rollout::Manual);
    server.set_rollout_for("default", "stuck", Rollout::DeadlineExceeded);
    server.set_rollout_for("default", "failing", Rollout::ReplicaFailure);
    server.set_rollout_for("default", "quick", Rollout::AfterDelay(Duration::ZERO));
    let version = server.resource_version().to_string();
    let mut stream = api
        .watch(&WatchParams::default().timeout(30), &version)
        .await
        .unwrap()
        .boxed();
    for (name, replicas) in [("manual", 2), ("stuck", 1), ("failing", 1), ("quick", 3)] {
        api.create(&PostParams::default(), &deployment(name, replicas))
            .await
            .unwrap();
    }
    let condition = |d: &serde_json::Value, type_: &str| -> (String, String) {
        let c = d["status"]["conditions"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|c| c["type"] == type_)
            .cloned()
            .unwrap_or_default();
        (
            c["status"].as_str().unwrap_or_default().to_string(),
            c["reason"].as_str().unwrap_or_default().to_string(),
        )
    };
    // The clock-driven ones move without anyone reading them: a watcher sees "quick" done.
    loop {
        if let WatchEvent::Modified(d) = next_change(&mut stream).await
            && d.metadata.name.as_deref() == Some("quick")
            && d.status.as_ref().and_then(|s| s.available_replicas) == Some(3)
        {
            break;
        }
    }
    let stuck = kubectl.json(&["get", "deployment", "stuck", "-n", "default"]);
    assert_eq!(
        condition(&stuck, "Progressing"),
        ("False".into(), "ProgressDeadlineExceeded".into())
    );
    let failing = kubectl.json(&["get", "deployment", "failing", "-n", "default"]);
    assert_eq!(
        condition(&failing, "ReplicaFailure"),
        ("True".into(), "FailedCreate".into())
    );

    let manual = kubectl.json(&["get", "deployment", "manual", "-n", "default"]);
    assert_eq!(condition(&manual, "Available").0, "False");
    assert!(manual["status"].get("readyReplicas").is_none());
    server.complete_rollout("default", "manual");
    let manual = kubectl.json(&["get", "deployment", "manual", "-n", "default"]);
    assert_eq!(manual["status"]["readyReplicas"], 2);
    assert_eq!(manual["status"]["observedGeneration"], 1);

    // Scaling is a new generation: rolling out again until completed, with the new count.
    kubectl.ok(
        &[
            "patch",
            "deployment",
            "manual",
            "-n",
            "default",
            "--type=merge",
            "-p",
            r#"{"spec":{"replicas":4}}"#,
        ],
        None,
    );
    let scaled = kubectl.json(&["get", "deployment", "manual", "-n", "default"]);
    assert_eq!(scaled["metadata"]["generation"], 2);
    assert_eq!(scaled["status"]["observedGeneration"], 2);
    assert_eq!(scaled["status"]["replicas"], 4);
    assert!(scaled["status"].get("readyReplicas").is_none());
    server.complete_rollout("default", "manual");
    let done = kubectl.json(&["get", "deployment", "manual", "-n", "default"]);
    for field in [
        "replicas",
        "readyReplicas",
        "updatedReplicas",
        "availableReplicas",
    ] {
        assert_eq!(done["status"][field], 4, "{field}");
    }
    kubectl.ok(
        &[
            "rollout",
            "status",
            "deployment/manual",
            "-n",
            "default",
            "--timeout=10s",
        ],
        None,
    );
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

    /// Conditions (a list map keyed by `type` in CRDs): each applier owns its own types, and a
    /// type it stops applying goes while another's stays.
    #[test]
    fn conditions_merge_by_type_per_manager() {
        let object = |conditions: Value| {
            json!({"apiVersion": "x.io/v1", "kind": "X", "metadata": {"name": "x"},
                   "status": {"conditions": conditions}})
        };
        let ready = json!({"type": "Ready", "status": "True"});
        let stale = json!({"type": "Stale", "status": "True"});
        let backup = json!({"type": "BackupDone", "status": "True"});
        let first = apply(
            None,
            &object(json!([ready, stale])),
            "operator",
            false,
            "t1",
        )
        .unwrap();
        let other = apply(
            Some(&first),
            &object(json!([backup])),
            "backup",
            false,
            "t2",
        )
        .unwrap();
        let again = apply(
            Some(&other),
            &object(json!([ready])),
            "operator",
            false,
            "t3",
        )
        .unwrap();
        assert_eq!(again["status"]["conditions"], json!([ready, backup]));
        let json = Fields::of_object(&again).to_json();
        assert!(json["f:status"]["f:conditions"]["k:{\"type\":\"Ready\"}"].is_object());
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
