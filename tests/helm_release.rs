//! Helm release storage judged by real Helm: releases our store writes are read by Helm 4's SDK
//! (`list`, `history`, `get values`, `status`) against the Kubernetes API test server, and
//! releases Helm installs there are read by our store with the right manifest, values and
//! revision.

mod support;

use std::path::{Path, PathBuf};

use k8s_openapi::jiff::Timestamp;
use operator_rs::helm_runtime::release_store::{ReleaseStore, secret_name};
use operator_rs::helm_runtime::stored_release::{
    self, Chart, File, Info, Metadata, Release, Status,
};
use serde_json::{Value as Json, json};
use support::helm_oracle::{HelmOracle, HelmReleases};
use support::kube_server::KubeServer;

fn client(server: &KubeServer) -> kube::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let config = kube::Config::new(server.url().parse().unwrap());
    kube::Client::try_from(config).unwrap()
}

fn hello_world() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/charts/hello-world")
}

fn object(value: Json) -> serde_json::Map<String, Json> {
    match value {
        Json::Object(m) => m,
        _ => panic!("not an object"),
    }
}

/// A release as our runtime would write it: the chart's metadata, templates and values, the
/// user's values, a manifest.
fn our_release(name: &str, version: i64, status: Status, config: Json) -> Release {
    let chart_dir = hello_world();
    let templates = ["deployment.yaml", "service.yaml"]
        .iter()
        .map(|f| File {
            name: format!("templates/{f}"),
            data: std::fs::read(chart_dir.join("templates").join(f)).unwrap(),
            ..File::default()
        })
        .collect();
    let now = Timestamp::now();
    Release {
        name: name.to_string(),
        info: Some(Info {
            first_deployed: Some(now),
            last_deployed: Some(now),
            description: if version == 1 {
                "Install complete"
            } else {
                "Upgrade complete"
            }
            .to_string(),
            status,
            notes: "Hello".to_string(),
            ..Info::default()
        }),
        chart: Some(Chart {
            metadata: Some(Metadata {
                name: "hello-world".to_string(),
                version: "0.1.0".to_string(),
                api_version: "v2".to_string(),
                app_version: "1.16.0".to_string(),
                ..Metadata::default()
            }),
            templates,
            values: object(json!({"replicaCount": 1, "service": {"port": 80}})),
            ..Chart::default()
        }),
        config: object(config),
        manifest: format!(
            "---\n# Source: hello-world/templates/service.yaml\napiVersion: v1\nkind: Service\nmetadata:\n  name: {name}\nspec:\n  ports:\n  - port: 80\n"
        ),
        version,
        namespace: "default".to_string(),
        ..Release::default()
    }
}

fn helm<'a>(oracle: &'a mut HelmOracle, server: &KubeServer) -> HelmReleases<'a> {
    HelmReleases {
        oracle,
        kubeconfig: server.kubeconfig(),
        namespace: "default".to_string(),
    }
}

#[tokio::test]
async fn helm_reads_the_releases_we_write() {
    let Some(mut oracle) = HelmOracle::start() else {
        return;
    };
    let server = KubeServer::start();
    let store = ReleaseStore::new(client(&server), "default");

    let first = our_release("web", 1, Status::Deployed, json!({"replicaCount": 2}));
    store.create(&first).await.unwrap();
    // An upgrade as Helm does it: the old revision superseded, the new one deployed.
    let mut superseded = first.clone();
    superseded.info.as_mut().unwrap().status = Status::Superseded;
    store.update(&superseded).await.unwrap();
    let second = our_release(
        "web",
        2,
        Status::Deployed,
        json!({"replicaCount": 3, "image": {"tag": "1.27"}}),
    );
    store.create(&second).await.unwrap();

    // The Secret is Helm's, to the labels.
    let secret = server
        .object("", "secrets", Some("default"), &secret_name("web", 2))
        .expect("the revision's Secret");
    assert_eq!(secret["type"], "helm.sh/release.v1");
    let labels = &secret["metadata"]["labels"];
    assert_eq!(labels["name"], "web");
    assert_eq!(labels["owner"], "helm");
    assert_eq!(labels["status"], "deployed");
    assert_eq!(labels["version"], "2");
    assert!(labels["createdAt"].as_str().unwrap().parse::<i64>().is_ok());
    let old = server
        .object("", "secrets", Some("default"), &secret_name("web", 1))
        .unwrap();
    assert_eq!(old["metadata"]["labels"]["status"], "superseded");
    assert!(old["metadata"]["labels"]["modifiedAt"].is_string());
    assert!(
        old["metadata"]["labels"]["createdAt"].is_string(),
        "update keeps createdAt"
    );

    let mut helm = helm(&mut oracle, &server);
    let list = helm.list(false).expect("helm list");
    eprintln!("helm list: {list}");
    let listed = list.as_array().expect("a list");
    assert_eq!(listed.len(), 1, "{list}");
    assert_eq!(listed[0]["name"], "web");
    assert_eq!(listed[0]["revision"], 2);
    assert_eq!(listed[0]["status"], "deployed");
    assert_eq!(listed[0]["chart_name"], "hello-world");
    assert_eq!(listed[0]["chart_version"], "0.1.0");
    assert_eq!(listed[0]["app_version"], "1.16.0");

    let history = helm.history("web").expect("helm history");
    eprintln!("helm history: {history}");
    let revisions: Vec<(i64, String)> = history
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["revision"].as_i64().unwrap(),
                r["status"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        revisions,
        [(1, "superseded".to_string()), (2, "deployed".to_string())]
    );

    let values = helm.get_values("web", false).expect("helm get values");
    assert_eq!(values, json!({"replicaCount": 3, "image": {"tag": "1.27"}}));
    let status = helm.status("web").expect("helm status");
    eprintln!("helm status: {status}");
    assert_eq!(status["manifest"], json!(second.manifest));
}

#[tokio::test]
async fn we_read_the_releases_helm_installs_and_upgrades() {
    let Some(mut oracle) = HelmOracle::start() else {
        return;
    };
    let server = KubeServer::start();
    let store = ReleaseStore::new(client(&server), "default");
    let mut helm = helm(&mut oracle, &server);

    let installed = helm
        .install("hello", &hello_world(), json!({"replicaCount": 2}))
        .expect("helm install against the test server");
    eprintln!("helm install: {installed}");
    let ours = store.get("hello", 1).await.unwrap().expect("revision 1");
    assert_eq!(ours.name, "hello");
    assert_eq!(ours.version, 1);
    assert_eq!(ours.namespace, "default");
    assert_eq!(ours.info.as_ref().unwrap().status, Status::Deployed);
    assert_eq!(
        Json::Object(ours.config.clone()),
        json!({"replicaCount": 2})
    );
    let status = helm.status("hello").unwrap();
    assert_eq!(ours.manifest, status["manifest"].as_str().unwrap());
    assert!(
        ours.manifest.contains("kind: Deployment"),
        "{}",
        ours.manifest
    );
    let chart = ours.chart.as_ref().unwrap();
    assert_eq!(chart.metadata.as_ref().unwrap().name, "hello-world");
    assert!(
        chart
            .templates
            .iter()
            .any(|t| t.name == "templates/deployment.yaml")
    );
    assert_eq!(chart.values["replicaCount"], json!(1));
    assert!(!ours.info.as_ref().unwrap().notes.is_empty());

    helm.upgrade("hello", &hello_world(), json!({"replicaCount": 4}), None)
        .expect("helm upgrade");
    let history = store.history("hello").await.unwrap();
    assert!(history.skipped.is_empty());
    let versions: Vec<(i64, Status)> = history
        .releases
        .iter()
        .map(|r| (r.version, r.info.as_ref().unwrap().status.clone()))
        .collect();
    assert_eq!(versions, [(1, Status::Superseded), (2, Status::Deployed)]);
    let deployed = store.deployed("hello").await.unwrap().unwrap();
    assert_eq!(deployed.version, 2);
    assert_eq!(deployed.config["replicaCount"], json!(4));
    assert_eq!(store.last("hello").await.unwrap().unwrap().version, 2);

    // A Helm-written release, decoded and written back by us, is still Helm's release.
    let before = helm.status("hello").unwrap();
    store.update(&deployed).await.unwrap();
    let after = helm.status("hello").unwrap();
    assert_eq!(after["manifest"], before["manifest"]);
    assert_eq!(
        helm.get_values("hello", false).unwrap(),
        json!({"replicaCount": 4})
    );
    assert_eq!(
        helm.get_values("hello", true).unwrap(),
        before_all_values(&mut helm)
    );

    // And Helm can still uninstall it: every revision's Secret goes.
    helm.uninstall("hello").expect("helm uninstall");
    assert!(store.history("hello").await.unwrap().releases.is_empty());
}

/// `helm get values --all` after our rewrite equals Helm's own coalescing of chart + user values.
fn before_all_values(helm: &mut HelmReleases<'_>) -> Json {
    let mut all = helm.get_values("hello", true).unwrap();
    // Coalescing is Helm's business; it must at least see the user's value over the chart's.
    assert_eq!(all["replicaCount"], json!(4));
    assert_eq!(all["service"]["port"], json!(80));
    std::mem::take(&mut all)
}

#[tokio::test]
async fn history_is_bounded_as_helm_bounds_it() {
    let Some(mut oracle) = HelmOracle::start() else {
        return;
    };
    let server = KubeServer::start();
    let store = ReleaseStore::new(client(&server), "default");

    // Helm's own pruning: install, then upgrades with --history-max 3.
    let mut helm = helm(&mut oracle, &server);
    helm.install("theirs", &hello_world(), json!({})).unwrap();
    for i in 0..4 {
        helm.upgrade(
            "theirs",
            &hello_world(),
            json!({"replicaCount": i}),
            Some(3),
        )
        .unwrap();
    }
    let theirs = revisions(&store, "theirs").await;

    // Ours, the same sequence of revisions.
    store
        .create(&our_release("ours", 1, Status::Deployed, json!({})))
        .await
        .unwrap();
    for version in 2..=5 {
        let mut previous = store.last("ours").await.unwrap().unwrap();
        previous.info.as_mut().unwrap().status = Status::Superseded;
        store.update(&previous).await.unwrap();
        store
            .create_bounded(
                &our_release("ours", version, Status::Deployed, json!({})),
                3,
            )
            .await
            .unwrap();
    }
    let ours = revisions(&store, "ours").await;
    assert_eq!(ours, theirs);
    assert_eq!(ours, [3, 4, 5]);

    // The newest deployed revision survives pruning even when failures came after it.
    for version in 6..=8 {
        store
            .create_bounded(&our_release("ours", version, Status::Failed, json!({})), 2)
            .await
            .unwrap();
    }
    let left: Vec<(i64, Status)> = store
        .history("ours")
        .await
        .unwrap()
        .releases
        .iter()
        .map(|r| (r.version, r.info.clone().unwrap().status))
        .collect();
    assert_eq!(left, [(5, Status::Deployed), (8, Status::Failed)]);
    let mut helm = HelmReleases {
        oracle: &mut oracle,
        kubeconfig: server.kubeconfig(),
        namespace: "default".to_string(),
    };
    let history = helm.history("ours").unwrap();
    assert_eq!(history.as_array().unwrap().len(), 2, "{history}");
}

#[tokio::test]
async fn damaged_release_secrets_are_skipped_and_reported() {
    let server = KubeServer::start();
    let client = client(&server);
    let store = ReleaseStore::new(client.clone(), "default");
    store
        .create(&our_release("web", 1, Status::Deployed, json!({})))
        .await
        .unwrap();
    let secrets: kube::Api<k8s_openapi::api::core::v1::Secret> =
        kube::Api::namespaced(client, "default");
    let bad = serde_json::from_value(json!({
        "metadata": {"name": secret_name("web", 2), "labels": {"name": "web", "owner": "helm", "status": "deployed", "version": "2"}},
        "type": "helm.sh/release.v1",
        "data": {"release": "bm90IGJhc2U2NCBvZiBnemlw"}
    }))
    .unwrap();
    secrets.create(&Default::default(), &bad).await.unwrap();
    let history = store.history("web").await.unwrap();
    assert_eq!(history.releases.len(), 1);
    assert_eq!(history.skipped.len(), 1);
    assert_eq!(history.skipped[0].secret, secret_name("web", 2));
    let err = store.get("web", 2).await.unwrap_err().to_string();
    assert!(
        err.contains("sh.helm.release.v1.web.v2")
            && err.contains("does not hold a readable Helm release"),
        "{err}"
    );
    let exists = store
        .create(&our_release("web", 1, Status::Deployed, json!({})))
        .await
        .unwrap_err()
        .to_string();
    assert!(exists.contains("already exists"), "{exists}");
    assert!(stored_release::decode(b"").is_err());
}

/// The revisions of `name` in the store, oldest first.
async fn revisions(store: &ReleaseStore, name: &str) -> Vec<i64> {
    store
        .history(name)
        .await
        .unwrap()
        .releases
        .iter()
        .map(|r| r.version)
        .collect()
}
