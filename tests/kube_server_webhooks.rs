//! The Kubernetes API test server calls admission and conversion webhooks as the real API
//! server does. The webhooks are HTTPS servers in the test ([`support::webhook_server`]); the
//! clients are kube-rs and the real `kubectl`.

mod support;

use std::time::Duration;

use kube::api::{Api, ApiResource, DeleteParams, DynamicObject, Patch, PatchParams, PostParams};
use serde_json::{Value, json};
use support::closed_port::ClosedPort;
use support::kube_server::KubeServer;
use support::webhook_server::{self, Answer, WebhookServer, allow, deny, patch};

fn client(server: &KubeServer) -> kube::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let config = kube::Config::new(server.url().parse().unwrap());
    kube::Client::try_from(config).unwrap()
}

/// The real kubectl against the server, `stdin` on its standard input.
fn kubectl(server: &KubeServer, args: &[&str], stdin: &str) -> std::process::Output {
    let cache = tempfile::tempdir().unwrap();
    server.kubectl_with_input(cache.path(), args, stdin)
}

fn resource(group: &str, version: &str, kind: &str, plural: &str) -> ApiResource {
    ApiResource {
        group: group.into(),
        version: version.into(),
        api_version: if group.is_empty() {
            version.into()
        } else {
            format!("{group}/{version}")
        },
        kind: kind.into(),
        plural: plural.into(),
    }
}

fn config_maps(client: &kube::Client, namespace: &str) -> Api<DynamicObject> {
    Api::namespaced_with(
        client.clone(),
        namespace,
        &resource("", "v1", "ConfigMap", "configmaps"),
    )
}

fn object(value: Value) -> DynamicObject {
    serde_json::from_value(value).unwrap()
}

fn config_map(name: &str, labels: Value) -> DynamicObject {
    object(json!({"apiVersion": "v1", "kind": "ConfigMap",
                  "metadata": {"name": name, "labels": labels}, "data": {"a": "1"}}))
}

/// One webhook: `clientConfig` and `rules`, with the fields every v1 webhook needs.
fn hook(name: &str, client_config: Value, rules: Value) -> Value {
    json!({"name": name, "clientConfig": client_config, "rules": rules,
           "sideEffects": "None", "admissionReviewVersions": ["v1"]})
}

fn url_config(server: &WebhookServer, path: &str) -> Value {
    json!({"url": server.url(path), "caBundle": server.ca_bundle()})
}

fn rule(operations: &[&str], groups: &[&str], resources: &[&str]) -> Value {
    json!([{"operations": operations, "apiGroups": groups, "apiVersions": ["*"],
            "resources": resources}])
}

/// Creates a Mutating- or ValidatingWebhookConfiguration.
async fn configure(client: &kube::Client, kind: &str, name: &str, webhooks: Vec<Value>) {
    let plural = format!("{}s", kind.to_lowercase());
    let api: Api<DynamicObject> = Api::all_with(
        client.clone(),
        &resource("admissionregistration.k8s.io", "v1", kind, &plural),
    );
    api.create(
        &PostParams::default(),
        &object(
            json!({"apiVersion": "admissionregistration.k8s.io/v1", "kind": kind,
                       "metadata": {"name": name}, "webhooks": webhooks}),
        ),
    )
    .await
    .unwrap_or_else(|e| panic!("{kind} {name}: {e}"));
}

fn api_error(error: kube::Error) -> (u16, String) {
    match error {
        kube::Error::Api(status) => (status.code, status.message.clone()),
        other => panic!("not an API error: {other}"),
    }
}

fn label_of(object: &DynamicObject, key: &str) -> Option<String> {
    object.metadata.labels.as_ref()?.get(key).cloned()
}

#[tokio::test]
async fn mutating_webhooks_go_first_in_name_order_then_validating_ones_see_the_result() {
    let server = KubeServer::start();
    let client = client(&server);
    // Each mutating webhook adds a label naming itself, after checking what the one before
    // added; the validating webhook refuses an object that lacks either.
    let hooks = WebhookServer::start(&[], |path, review| {
        let object = &review["request"]["object"];
        match path {
            "/first" => patch(
                review,
                json!([{"op": "add", "path": "/metadata/labels/first", "value": "yes"}]),
            ),
            "/second" if object["metadata"]["labels"]["first"] == "yes" => patch(
                review,
                json!([{"op": "add", "path": "/metadata/labels/second", "value": "yes"}]),
            ),
            "/second" => deny(review, 400, "the first webhook did not run before me"),
            "/check" if object["metadata"]["labels"]["second"] == "yes" => allow(review),
            "/check" if review["request"]["operation"] == "DELETE" => allow(review),
            _ => deny(review, 422, "not mutated"),
        }
    });
    // A mutating webhook may not patch a DELETE (the API server fails the request), so
    // these two see writes only.
    let writes = rule(&["CREATE", "UPDATE"], &[""], &["configmaps"]);
    let all = rule(&["*"], &[""], &["configmaps"]);
    // Named so that name order and creation order differ.
    configure(
        &client,
        "MutatingWebhookConfiguration",
        "b-second",
        vec![hook(
            "second.example.com",
            url_config(&hooks, "/second"),
            writes.clone(),
        )],
    )
    .await;
    configure(
        &client,
        "MutatingWebhookConfiguration",
        "a-first",
        vec![hook(
            "first.example.com",
            url_config(&hooks, "/first"),
            writes,
        )],
    )
    .await;
    configure(
        &client,
        "ValidatingWebhookConfiguration",
        "check",
        vec![hook("check.example.com", url_config(&hooks, "/check"), all)],
    )
    .await;

    let api = config_maps(&client, "default");
    let created = api
        .create(&PostParams::default(), &config_map("settings", json!({})))
        .await
        .unwrap();
    assert_eq!(label_of(&created, "first").as_deref(), Some("yes"));
    assert_eq!(label_of(&created, "second").as_deref(), Some("yes"));
    let stored = server
        .object("", "configmaps", Some("default"), "settings")
        .unwrap();
    assert_eq!(stored["metadata"]["labels"]["second"], "yes");

    let reviews = hooks.reviews();
    let paths: Vec<&str> = reviews.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(paths, ["/first", "/second", "/check"]);
    let (_, review) = &reviews[0];
    assert_eq!(review["apiVersion"], "admission.k8s.io/v1");
    assert_eq!(review["kind"], "AdmissionReview");
    let request = &review["request"];
    assert!(!request["uid"].as_str().unwrap().is_empty());
    assert_ne!(request["uid"], reviews[1].1["request"]["uid"]);
    assert_eq!(
        request["kind"],
        json!({"group": "", "version": "v1", "kind": "ConfigMap"})
    );
    assert_eq!(
        request["resource"],
        json!({"group": "", "version": "v1", "resource": "configmaps"})
    );
    assert_eq!(request["requestKind"], request["kind"]);
    assert_eq!(request["requestResource"], request["resource"]);
    assert_eq!(request["name"], "settings");
    assert_eq!(request["namespace"], "default");
    assert_eq!(request["operation"], "CREATE");
    assert_eq!(request["userInfo"]["username"], "test-user");
    assert_eq!(request["dryRun"], false);
    assert_eq!(request["options"]["kind"], "CreateOptions");
    assert_eq!(request["oldObject"], Value::Null);
    assert_eq!(request["object"]["data"]["a"], "1");
    assert!(
        request["object"]["metadata"].get("uid").is_none(),
        "a new object has no uid yet: {request}"
    );
    // The validating webhook saw what both mutating webhooks made.
    assert_eq!(
        reviews[2].1["request"]["object"]["metadata"]["labels"],
        json!({"first": "yes", "second": "yes"})
    );

    // An update: UPDATE with the old object; the patch applies again.
    let mut changed = created.clone();
    changed.data["data"]["a"] = json!("2");
    let updated = api
        .replace("settings", &PostParams::default(), &changed)
        .await
        .unwrap();
    assert_eq!(updated.data["data"]["a"], "2");
    let reviews = hooks.reviews();
    let update = &reviews[3].1["request"];
    assert_eq!(update["operation"], "UPDATE");
    assert_eq!(update["options"]["kind"], "UpdateOptions");
    assert_eq!(update["oldObject"]["data"]["a"], "1");
    assert_eq!(update["object"]["data"]["a"], "2");

    // A delete: DELETE, the object gone from the review, the old one there.
    api.delete("settings", &DeleteParams::default())
        .await
        .unwrap();
    let reviews = hooks.reviews();
    let delete = &reviews.last().unwrap().1["request"];
    assert_eq!(delete["operation"], "DELETE");
    assert_eq!(delete["object"], Value::Null);
    assert_eq!(delete["oldObject"]["metadata"]["name"], "settings");
    assert_eq!(delete["options"]["kind"], "DeleteOptions");
    assert!(
        server
            .object("", "configmaps", Some("default"), "settings")
            .is_none()
    );
}

#[tokio::test]
async fn a_denial_reaches_both_clients_with_the_webhooks_message_and_code() {
    let server = KubeServer::start();
    let client = client(&server);
    let hooks = WebhookServer::start(&[], |_, review| {
        let size = &review["request"]["object"]["data"]["size"];
        if size == "1000" {
            admission(
                review,
                json!({"allowed": false,
                       "status": {"code": 422, "reason": "Invalid",
                                  "message": "data.size: 1000 is above the limit of 100"},
                       "warnings": ["size is checked"]}),
            )
        } else {
            admission(
                review,
                json!({"allowed": true, "warnings": ["size \"ok\" is checked"]}),
            )
        }
    });
    configure(
        &client,
        "ValidatingWebhookConfiguration",
        "sizes",
        vec![hook(
            "size.example.com",
            url_config(&hooks, "/validate"),
            rule(&["CREATE", "UPDATE"], &[""], &["configmaps"]),
        )],
    )
    .await;

    let api = config_maps(&client, "default");
    let mut big = config_map("big", json!({}));
    big.data["data"]["size"] = json!("1000");
    let (code, message) = api_error(api.create(&PostParams::default(), &big).await.unwrap_err());
    assert_eq!(code, 422);
    assert_eq!(
        message,
        "admission webhook \"size.example.com\" denied the request: data.size: 1000 is above the limit of 100"
    );
    assert!(
        server
            .object("", "configmaps", Some("default"), "big")
            .is_none()
    );

    let manifest =
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n  size: \"1000\"\n";
    let output = kubectl(&server, &["apply", "-f", "-"], manifest);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(
        stderr.contains(
            "admission webhook \"size.example.com\" denied the request: data.size: 1000 is above the limit of 100"
        ),
        "{stderr}"
    );
    assert!(stderr.contains("Warning: size is checked"), "{stderr}");

    // Allowed, with a warning kubectl prints.
    let small = manifest.replace("1000", "10").replace("big", "small");
    let output = kubectl(&server, &["create", "-f", "-"], &small);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains("Warning: size \"ok\" is checked"),
        "{stderr}"
    );
}

fn admission(review: &Value, response: Value) -> Answer {
    webhook_server::admission(review, response)
}

#[tokio::test]
async fn rules_and_selectors_choose_which_requests_a_webhook_sees() {
    let server = KubeServer::start();
    let client = client(&server);
    let hooks = WebhookServer::start(&[], |_, review| allow(review));
    let config = |path: &str| url_config(&hooks, path);
    configure(
        &client,
        "ValidatingWebhookConfiguration",
        "selective",
        vec![
            // Only the status of Deployments, and only updates.
            hook(
                "status.example.com",
                config("/status"),
                rule(&["UPDATE"], &["apps"], &["deployments/status"]),
            ),
            // Cluster-scoped objects of every resource.
            json!({"name": "cluster.example.com", "clientConfig": config("/cluster"),
                   "rules": [{"operations": ["CREATE"], "apiGroups": ["*"], "apiVersions": ["*"],
                              "resources": ["*"], "scope": "Cluster"}],
                   "sideEffects": "None", "admissionReviewVersions": ["v1"]}),
            // ConfigMaps in namespaces of team a that carry the label `watched`.
            json!({"name": "team.example.com", "clientConfig": config("/team"),
                   "rules": rule(&["CREATE"], &[""], &["configmaps"]),
                   "namespaceSelector": {"matchLabels": {"team": "a"}},
                   "objectSelector": {"matchExpressions": [{"key": "watched", "operator": "Exists"}]},
                   "sideEffects": "None", "admissionReviewVersions": ["v1"]}),
        ],
    )
    .await;
    let namespaces: Api<DynamicObject> = Api::all_with(
        client.clone(),
        &resource("", "v1", "Namespace", "namespaces"),
    );
    for (name, labels) in [("team-a", json!({"team": "a"})), ("team-b", json!({}))] {
        namespaces
            .create(
                &PostParams::default(),
                &object(json!({"apiVersion": "v1", "kind": "Namespace",
                               "metadata": {"name": name, "labels": labels}})),
            )
            .await
            .unwrap();
    }
    for (namespace, name, labels) in [
        ("team-a", "seen", json!({"watched": "yes"})),
        ("team-a", "unlabelled", json!({})),
        ("team-b", "other-team", json!({"watched": "yes"})),
    ] {
        config_maps(&client, namespace)
            .create(&PostParams::default(), &config_map(name, labels))
            .await
            .unwrap();
    }
    let deployments: Api<DynamicObject> = Api::namespaced_with(
        client.clone(),
        "default",
        &resource("apps", "v1", "Deployment", "deployments"),
    );
    let deployment = object(json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {"selector": {"matchLabels": {"app": "web"}},
                 "template": {"metadata": {"labels": {"app": "web"}},
                              "spec": {"containers": [{"name": "web", "image": "nginx"}]}}}}));
    deployments
        .create(&PostParams::default(), &deployment)
        .await
        .unwrap();
    let params = PatchParams::default();
    deployments
        .patch(
            "web",
            &params,
            &Patch::Merge(json!({"spec": {"replicas": 2}})),
        )
        .await
        .unwrap();
    deployments
        .patch_status(
            "web",
            &params,
            &Patch::Merge(json!({"status": {"observedGeneration": 7}})),
        )
        .await
        .unwrap();

    let seen: Vec<(String, String)> = hooks
        .reviews()
        .into_iter()
        .map(|(path, review)| {
            let request = &review["request"];
            let what = format!(
                "{} {}/{}",
                request["operation"].as_str().unwrap(),
                request["resource"]["resource"].as_str().unwrap(),
                request["name"].as_str().unwrap()
            );
            (path, what)
        })
        .collect();
    let expected: Vec<(String, String)> = [
        ("/cluster", "CREATE namespaces/team-a"),
        ("/cluster", "CREATE namespaces/team-b"),
        ("/team", "CREATE configmaps/seen"),
        ("/status", "UPDATE deployments/web"),
    ]
    .into_iter()
    .map(|(p, w)| (p.to_string(), w.to_string()))
    .collect();
    assert_eq!(seen, expected);
    let status_review = &hooks.reviews()[3].1["request"];
    assert_eq!(status_review["subResource"], "status");
    assert_eq!(status_review["requestSubResource"], "status");
    assert_eq!(status_review["options"]["kind"], "PatchOptions");
}

#[tokio::test]
async fn failed_calls_fail_the_request_or_are_skipped_by_the_failure_policy() {
    let server = KubeServer::start();
    let client = client(&server);
    let closed = ClosedPort::new();
    let slow = WebhookServer::start(&[], |_, review| {
        Answer::After(Duration::from_secs(3), Box::new(allow(review)))
    });
    let liar = WebhookServer::start(&[], |_, _| {
        Answer::Json(
            json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                            "response": {"uid": "not-the-request", "allowed": true}}),
        )
    });
    let broken = WebhookServer::start(&[], |_, _| Answer::Http(500, "oops".into()));
    let refused_url = format!("https://127.0.0.1:{}/validate", closed.port());
    let cases: Vec<(&str, Value, Option<u64>, String)> = vec![
        (
            "refused.example.com",
            json!({"url": refused_url, "caBundle": slow.ca_bundle()}),
            None,
            format!(
                "failed calling webhook \"refused.example.com\": failed to call webhook: Post \"{refused_url}?timeout=10s\": dial tcp 127.0.0.1:{}: connect: connection refused",
                closed.port()
            ),
        ),
        (
            "slow.example.com",
            url_config(&slow, "/validate"),
            Some(1),
            "Post \"https://127.0.0.1:PORT/validate?timeout=1s\": context deadline exceeded".into(),
        ),
        (
            "liar.example.com",
            url_config(&liar, "/validate"),
            None,
            "received invalid webhook response: expected response.uid=\"".into(),
        ),
        (
            "broken.example.com",
            url_config(&broken, "/validate"),
            None,
            "an error on the server (\"oops\") has prevented the request from succeeding".into(),
        ),
    ];
    for (name, client_config, timeout, expected) in cases {
        for policy in ["Fail", "Ignore"] {
            let mut webhook = hook(
                name,
                client_config.clone(),
                rule(&["CREATE"], &[""], &["configmaps"]),
            );
            webhook["failurePolicy"] = json!(policy);
            if let Some(seconds) = timeout {
                webhook["timeoutSeconds"] = json!(seconds);
            }
            let configuration = format!(
                "{}-{}",
                name.split('.').next().unwrap(),
                policy.to_lowercase()
            );
            configure(
                &client,
                "ValidatingWebhookConfiguration",
                &configuration,
                vec![webhook],
            )
            .await;
            let api = config_maps(&client, "default");
            let object_name = format!("{configuration}-object");
            let result = api
                .create(&PostParams::default(), &config_map(&object_name, json!({})))
                .await;
            match policy {
                "Fail" => {
                    let (code, message) = api_error(result.unwrap_err());
                    assert_eq!(code, 500, "{name}: {message}");
                    let expected = expected.replace("PORT", &slow.port().to_string());
                    assert!(
                        message.starts_with("Internal error occurred: failed calling webhook")
                            && message.contains(&expected),
                        "{name}: {message}\nexpected: {expected}"
                    );
                }
                _ => {
                    result.unwrap_or_else(|e| panic!("{name} with Ignore: {e}"));
                }
            }
            let api: Api<DynamicObject> = Api::all_with(
                client.clone(),
                &resource(
                    "admissionregistration.k8s.io",
                    "v1",
                    "ValidatingWebhookConfiguration",
                    "validatingwebhookconfigurations",
                ),
            );
            api.delete(&configuration, &DeleteParams::default())
                .await
                .unwrap();
        }
    }
}

/// A namespace for webhook Services, a Service `hooks` (443 -> 9443, port name `https`) and,
/// when `endpoint` is given, an EndpointSlice pointing at it.
async fn webhook_service(client: &kube::Client, endpoint: Option<u16>) {
    let namespaces: Api<DynamicObject> = Api::all_with(
        client.clone(),
        &resource("", "v1", "Namespace", "namespaces"),
    );
    let _ = namespaces
        .create(
            &PostParams::default(),
            &object(json!({"apiVersion": "v1", "kind": "Namespace",
                           "metadata": {"name": "webhooks"}})),
        )
        .await;
    let services: Api<DynamicObject> = Api::namespaced_with(
        client.clone(),
        "webhooks",
        &resource("", "v1", "Service", "services"),
    );
    let _ = services
        .create(
            &PostParams::default(),
            &object(json!({"apiVersion": "v1", "kind": "Service",
                           "metadata": {"name": "hooks"},
                           "spec": {"ports": [{"name": "https", "port": 443, "targetPort": 9443}],
                                    "selector": {"app": "hooks"}}})),
        )
        .await;
    if let Some(port) = endpoint {
        let slices: Api<DynamicObject> = Api::namespaced_with(
            client.clone(),
            "webhooks",
            &resource("discovery.k8s.io", "v1", "EndpointSlice", "endpointslices"),
        );
        slices
            .create(
                &PostParams::default(),
                &object(
                    json!({"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
                               "metadata": {"name": "hooks-abc12",
                                            "labels": {"kubernetes.io/service-name": "hooks"}},
                               "addressType": "IPv4",
                               "ports": [{"name": "https", "port": port, "protocol": "TCP"}],
                               "endpoints": [{"addresses": ["127.0.0.1"],
                                              "conditions": {"ready": true}}]}),
                ),
            )
            .await
            .unwrap();
    }
}

#[tokio::test]
async fn a_service_is_found_through_its_endpoints_and_its_certificate_must_name_it() {
    let server = KubeServer::start();
    let client = client(&server);
    let hooks = WebhookServer::start(&["hooks.webhooks.svc"], |_, review| {
        patch(
            review,
            json!([{"op": "add", "path": "/metadata/labels/via", "value": "service"}]),
        )
    });
    let service_config = |ca: Option<String>| {
        let mut config = json!({"service": {"namespace": "webhooks", "name": "hooks",
                                            "path": "/mutate"}});
        if let Some(ca) = ca {
            config["caBundle"] = json!(ca);
        }
        config
    };
    configure(
        &client,
        "MutatingWebhookConfiguration",
        "by-service",
        vec![hook(
            "service.example.com",
            service_config(Some(hooks.ca_bundle())),
            rule(&["CREATE"], &[""], &["configmaps"]),
        )],
    )
    .await;
    let api = config_maps(&client, "default");
    let create = |name: &str| {
        let api = api.clone();
        let name = name.to_string();
        async move {
            api.create(&PostParams::default(), &config_map(&name, json!({})))
                .await
        }
    };
    let url = "https://hooks.webhooks.svc:443/mutate?timeout=10s";
    let (_, message) = api_error(create("one").await.unwrap_err());
    assert!(
        message.ends_with(&format!("Post \"{url}\": service \"hooks\" not found")),
        "{message}"
    );
    webhook_service(&client, None).await;
    let (_, message) = api_error(create("two").await.unwrap_err());
    assert!(
        message.ends_with(&format!(
            "Post \"{url}\": no endpoints available for service \"hooks\""
        )),
        "{message}"
    );
    webhook_service(&client, Some(hooks.port())).await;
    let created = create("three").await.unwrap();
    assert_eq!(label_of(&created, "via").as_deref(), Some("service"));
    let (path, _) = hooks.reviews().pop().unwrap();
    assert_eq!(path, "/mutate");

    // A certificate for 127.0.0.1 only does not name the Service.
    let unnamed = WebhookServer::start(&[], |_, review| allow(review));
    let mut wrong_name = hook(
        "unnamed.example.com",
        service_config(Some(unnamed.ca_bundle())),
        rule(&["CREATE"], &[""], &["secrets"]),
    );
    wrong_name["clientConfig"]["service"]["name"] = json!("unnamed");
    // Without a caBundle, the system's roots do not know the test CA.
    let no_ca = hook(
        "no-ca.example.com",
        service_config(None),
        rule(&["CREATE"], &[""], &["serviceaccounts"]),
    );
    configure(
        &client,
        "ValidatingWebhookConfiguration",
        "tls",
        vec![wrong_name, no_ca],
    )
    .await;
    let services: Api<DynamicObject> = Api::namespaced_with(
        client.clone(),
        "webhooks",
        &resource("", "v1", "Service", "services"),
    );
    services
        .create(
            &PostParams::default(),
            &object(
                json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "unnamed"},
                           "spec": {"ports": [{"port": 443, "targetPort": 9443}]}}),
            ),
        )
        .await
        .unwrap();
    // This one through an Endpoints object, as clusters without EndpointSlices route.
    let endpoints: Api<DynamicObject> = Api::namespaced_with(
        client.clone(),
        "webhooks",
        &resource("", "v1", "Endpoints", "endpoints"),
    );
    endpoints
        .create(
            &PostParams::default(),
            &object(
                json!({"apiVersion": "v1", "kind": "Endpoints", "metadata": {"name": "unnamed"},
                           "subsets": [{"addresses": [{"ip": "127.0.0.1"}],
                                        "ports": [{"port": unnamed.port()}]}]}),
            ),
        )
        .await
        .unwrap();
    let secrets: Api<DynamicObject> = Api::namespaced_with(
        client.clone(),
        "default",
        &resource("", "v1", "Secret", "secrets"),
    );
    let (_, message) = api_error(
        secrets
            .create(
                &PostParams::default(),
                &object(json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}})),
            )
            .await
            .unwrap_err(),
    );
    assert!(
        message.ends_with(
            "tls: failed to verify certificate: x509: certificate is not valid for unnamed.webhooks.svc"
        ),
        "{message}"
    );
    assert!(unnamed.reviews().is_empty());
    let accounts: Api<DynamicObject> = Api::namespaced_with(
        client.clone(),
        "default",
        &resource("", "v1", "ServiceAccount", "serviceaccounts"),
    );
    let (_, message) = api_error(
        accounts
            .create(
                &PostParams::default(),
                &object(json!({"apiVersion": "v1", "kind": "ServiceAccount",
                               "metadata": {"name": "sa"}})),
            )
            .await
            .unwrap_err(),
    );
    assert!(
        message.ends_with("x509: certificate signed by unknown authority"),
        "{message}"
    );
}

#[tokio::test]
async fn dry_runs_reach_only_webhooks_without_side_effects() {
    let server = KubeServer::start();
    let client = client(&server);
    let hooks = WebhookServer::start(&[], |_, review| {
        patch(
            review,
            json!([{"op": "add", "path": "/metadata/labels", "value": {"seen": "yes"}}]),
        )
    });
    configure(
        &client,
        "MutatingWebhookConfiguration",
        "pure",
        vec![hook(
            "pure.example.com",
            url_config(&hooks, "/pure"),
            rule(&["CREATE"], &[""], &["configmaps"]),
        )],
    )
    .await;
    let output = kubectl(
        &server,
        &[
            "create",
            "configmap",
            "dry",
            "--dry-run=server",
            "-o",
            "json",
        ],
        "",
    );
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let printed: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(printed["metadata"]["labels"]["seen"], "yes");
    assert!(
        server
            .object("", "configmaps", Some("default"), "dry")
            .is_none()
    );
    let (_, review) = hooks.reviews().pop().unwrap();
    assert_eq!(review["request"]["dryRun"], true);
    assert_eq!(review["request"]["options"]["dryRun"], json!(["All"]));

    // A webhook with side effects, as v1beta1 could store one: dry runs are refused, and it
    // is never called for them; real writes still reach it.
    let effects = WebhookServer::start(&[], |_, review| allow(review));
    let mut with_effects = hook(
        "effects.example.com",
        url_config(&effects, "/effects"),
        rule(&["CREATE"], &[""], &["secrets"]),
    );
    with_effects["sideEffects"] = json!("Unknown");
    server.put_unchecked(
        "admissionregistration.k8s.io",
        "validatingwebhookconfigurations",
        json!({"apiVersion": "admissionregistration.k8s.io/v1",
               "kind": "ValidatingWebhookConfiguration",
               "metadata": {"name": "legacy"}, "webhooks": [with_effects]}),
    );
    let output = kubectl(
        &server,
        &["create", "secret", "generic", "s", "--dry-run=server"],
        "",
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(
        stderr.contains("admission webhook \"effects.example.com\" does not support dry run"),
        "{stderr}"
    );
    assert!(effects.reviews().is_empty());
    let output = kubectl(&server, &["create", "secret", "generic", "s"], "");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(effects.reviews().len(), 1);
}

#[tokio::test]
async fn webhook_configurations_are_checked_as_the_api_server_checks_them() {
    let server = KubeServer::start();
    let api: Api<DynamicObject> = Api::all_with(
        client(&server),
        &resource(
            "admissionregistration.k8s.io",
            "v1",
            "ValidatingWebhookConfiguration",
            "validatingwebhookconfigurations",
        ),
    );
    let invalid = |webhook: Value| {
        let api = api.clone();
        async move {
            let body = object(json!({"apiVersion": "admissionregistration.k8s.io/v1",
                                     "kind": "ValidatingWebhookConfiguration",
                                     "metadata": {"name": "bad"}, "webhooks": [webhook]}));
            api_error(api.create(&PostParams::default(), &body).await.unwrap_err())
        }
    };
    let rules = rule(&["CREATE"], &[""], &["configmaps"]);
    let (code, message) = invalid(hook(
        "plain.example.com",
        json!({"url": "http://127.0.0.1/x"}),
        rules.clone(),
    ))
    .await;
    assert_eq!(code, 422);
    assert!(
        message.contains("webhooks[0].clientConfig.url: Invalid value: \"http://127.0.0.1/x\": 'https' is the only allowed URL scheme"),
        "{message}"
    );
    let mut no_side_effects = hook(
        "quiet.example.com",
        json!({"url": "https://127.0.0.1/x"}),
        rules.clone(),
    );
    no_side_effects
        .as_object_mut()
        .unwrap()
        .remove("sideEffects");
    let (_, message) = invalid(no_side_effects).await;
    assert!(
        message.contains(
            "webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun"
        ),
        "{message}"
    );
    let (_, message) = invalid(hook(
        "short",
        json!({"url": "https://127.0.0.1/x"}),
        rules.clone(),
    ))
    .await;
    assert!(
        message.contains("should be a domain with at least three segments separated by dots"),
        "{message}"
    );
    let both = json!({"url": "https://127.0.0.1/x", "service": {"namespace": "a", "name": "b"}});
    let (_, message) = invalid(hook("both.example.com", both, rules)).await;
    assert!(
        message.contains("exactly one of url or service is required"),
        "{message}"
    );
}

const WIDGET_CRD: &str = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}
  scope: Namespaced
  versions:
    - name: v1alpha1
      served: true
      storage: true
      schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
    - name: v1beta1
      served: true
      storage: false
      schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
  conversion:
    strategy: Webhook
    webhook:
      conversionReviewVersions: [v1]
      clientConfig:
        url: URL
        caBundle: CA
";

/// v1alpha1 says `spec.size`, v1beta1 `spec.replicas`; anything else is copied.
fn convert_widget(mut object: Value, desired: &str) -> Value {
    let spec = object["spec"].as_object_mut().unwrap();
    if desired.ends_with("v1beta1") {
        if let Some(size) = spec.remove("size") {
            spec.insert("replicas".into(), size);
        }
    } else if let Some(replicas) = spec.remove("replicas") {
        spec.insert("size".into(), replicas);
    }
    object
}

fn widgets(client: &kube::Client, version: &str) -> Api<DynamicObject> {
    Api::namespaced_with(
        client.clone(),
        "default",
        &resource("example.com", version, "Widget", "widgets"),
    )
}

/// The Widget CRD converting through `converter`, Established.
fn with_widget_crd(server: &KubeServer, converter: &WebhookServer) {
    let crd = WIDGET_CRD
        .replace("URL", &converter.url("/convert"))
        .replace("CA", &converter.ca_bundle());
    let output = kubectl(server, &["apply", "--server-side", "-f", "-"], &crd);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let output = kubectl(
        server,
        &[
            "wait",
            "--for=condition=Established",
            "crd/widgets.example.com",
            "--timeout=10s",
        ],
        "",
    );
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[tokio::test]
async fn a_crd_converts_through_its_webhook_on_every_read_and_write_of_another_version() {
    let server = KubeServer::start();
    let client = client(&server);
    let converter = WebhookServer::start(&[], |_, review| {
        webhook_server::conversion(review, convert_widget)
    });
    with_widget_crd(&server, &converter);
    let beta = widgets(&client, "v1beta1");
    let alpha = widgets(&client, "v1alpha1");

    let mut watch = beta
        .watch(&kube::api::WatchParams::default(), "0")
        .await
        .unwrap()
        .boxed();

    // Written as v1beta1, stored as v1alpha1.
    let created = beta
        .create(
            &PostParams::default(),
            &object(
                json!({"apiVersion": "example.com/v1beta1", "kind": "Widget",
                           "metadata": {"name": "w", "labels": {"app": "w"}},
                           "spec": {"replicas": 3, "colour": "red"}}),
            ),
        )
        .await
        .unwrap();
    assert_eq!(
        created.data["spec"],
        json!({"replicas": 3, "colour": "red"})
    );
    let stored = server
        .object("example.com", "widgets", Some("default"), "w")
        .unwrap();
    assert_eq!(stored["apiVersion"], "example.com/v1alpha1");
    assert_eq!(stored["spec"], json!({"size": 3, "colour": "red"}));
    assert_eq!(stored["metadata"]["labels"], json!({"app": "w"}));
    let review = &converter.reviews()[0].1;
    assert_eq!(review["apiVersion"], "apiextensions.k8s.io/v1");
    assert_eq!(
        review["request"]["desiredAPIVersion"],
        "example.com/v1alpha1"
    );

    // The watch of v1beta1 saw it as v1beta1.
    use futures::StreamExt;
    let event = tokio::time::timeout(Duration::from_secs(10), watch.next())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    match event {
        kube::api::WatchEvent::Added(added) => {
            assert_eq!(added.data["spec"]["replicas"], 3);
            assert_eq!(added.types.unwrap().api_version, "example.com/v1beta1");
        }
        other => panic!("{other:?}"),
    }

    // Read through either version; the stored one needs no call.
    let calls = converter.reviews().len();
    let read = alpha.get("w").await.unwrap();
    assert_eq!(read.data["spec"]["size"], 3);
    assert_eq!(converter.reviews().len(), calls);
    let read = beta.get("w").await.unwrap();
    assert_eq!(read.data["spec"]["replicas"], 3);
    assert_eq!(read.metadata.uid, created.metadata.uid);
    assert_eq!(
        read.metadata.resource_version,
        created.metadata.resource_version
    );
    let list = beta.list(&Default::default()).await.unwrap();
    assert_eq!(list.items[0].data["spec"]["replicas"], 3);

    // Patches and applies through v1beta1 work on the v1beta1 shape.
    let patched = beta
        .patch(
            "w",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"replicas": 5}})),
        )
        .await
        .unwrap();
    assert_eq!(
        patched.data["spec"],
        json!({"replicas": 5, "colour": "red"})
    );
    let stored = server
        .object("example.com", "widgets", Some("default"), "w")
        .unwrap();
    assert_eq!(stored["spec"], json!({"size": 5, "colour": "red"}));
    let manifest = "apiVersion: example.com/v1beta1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  replicas: 7\n  colour: red\n";
    // The merge patch made kube-rs the owner of replicas: the apply takes it over.
    let output = kubectl(
        &server,
        &["apply", "--server-side", "--force-conflicts", "-f", "-"],
        manifest,
    );
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stored = server
        .object("example.com", "widgets", Some("default"), "w")
        .unwrap();
    assert_eq!(stored["spec"], json!({"size": 7, "colour": "red"}));
    let shown = kubectl(
        &server,
        &["get", "widgets.v1beta1.example.com", "w", "-o", "json"],
        "",
    );
    let shown: Value = serde_json::from_slice(&shown.stdout).unwrap();
    assert_eq!(shown["spec"]["replicas"], 7);

    // Deleted through v1beta1: the answer is in v1beta1 too.
    beta.delete("w", &DeleteParams::default()).await.unwrap();
    assert!(
        server
            .object("example.com", "widgets", Some("default"), "w")
            .is_none()
    );
}

#[tokio::test]
async fn a_conversion_webhook_must_answer_the_request_and_keep_the_objects_identity() {
    let server = KubeServer::start();
    let client = client(&server);
    // Breaks each rule of the API server in turn, by the object's name.
    let converter = WebhookServer::start(&[], |_, review| {
        let name = review["request"]["objects"][0]["metadata"]["name"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        match name.as_str() {
            "refused" => Answer::Json(json!({
                "apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
                "response": {"uid": webhook_server::uid(review),
                             "result": {"status": "Failure", "message": "replicas must be set"}}})),
            "stranger" => Answer::Json(json!({
                "apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
                "response": {"uid": "someone-else", "result": {"status": "Success"},
                             "convertedObjects": []}})),
            "renamed" => webhook_server::conversion(review, |mut o, d| {
                o["metadata"]["name"] = json!("other");
                convert_widget(o, d)
            }),
            _ => webhook_server::conversion(review, |mut o, d| {
                // Labels may change; anything else in metadata is put back.
                o["metadata"]["labels"] = json!({"converted": "yes"});
                o["metadata"]["resourceVersion"] = json!("1");
                convert_widget(o, d)
            }),
        }
    });
    with_widget_crd(&server, &converter);
    let beta = widgets(&client, "v1beta1");
    let widget = |name: &str| {
        object(
            json!({"apiVersion": "example.com/v1beta1", "kind": "Widget",
                      "metadata": {"name": name}, "spec": {"replicas": 1}}),
        )
    };
    let (code, message) = api_error(
        beta.create(&PostParams::default(), &widget("refused"))
            .await
            .unwrap_err(),
    );
    assert_eq!(code, 500);
    assert_eq!(
        message,
        "conversion webhook for example.com/v1beta1, Kind=Widget failed: replicas must be set"
    );
    let (_, message) = api_error(
        beta.create(&PostParams::default(), &widget("stranger"))
            .await
            .unwrap_err(),
    );
    assert!(
        message.contains("failed: expected response.uid=")
            && message.ends_with("got \"someone-else\""),
        "{message}"
    );
    let (_, message) = api_error(
        beta.create(&PostParams::default(), &widget("renamed"))
            .await
            .unwrap_err(),
    );
    assert!(
        message.ends_with(
            "returned invalid converted object: must have the same name: renamed != other"
        ),
        "{message}"
    );
    for name in ["refused", "stranger", "renamed"] {
        assert!(
            server
                .object("example.com", "widgets", Some("default"), name)
                .is_none()
        );
    }
    let created = beta
        .create(&PostParams::default(), &widget("kept"))
        .await
        .unwrap();
    assert_eq!(label_of(&created, "converted").as_deref(), Some("yes"));
    assert_ne!(created.metadata.resource_version.as_deref(), Some("1"));
    let stored = server
        .object("example.com", "widgets", Some("default"), "kept")
        .unwrap();
    assert_eq!(
        stored["metadata"]["resourceVersion"],
        json!(created.metadata.resource_version)
    );
    let output = kubectl(
        &server,
        &["get", "widgets.v1beta1.example.com", "refused"],
        "",
    );
    assert!(!output.status.success());
}

#[tokio::test]
async fn an_equivalent_version_gets_the_webhook_the_object_in_its_version() {
    let server = KubeServer::start();
    let client = client(&server);
    let converter = WebhookServer::start(&[], |_, review| {
        webhook_server::conversion(review, convert_widget)
    });
    with_widget_crd(&server, &converter);
    // Webhooks that know v1alpha1 only; one of them insists on the exact version.
    let hooks = WebhookServer::start(&[], |path, review| match path {
        "/default" => patch(
            review,
            json!([{"op": "add", "path": "/spec/size", "value": 2}]),
        ),
        _ => allow(review),
    });
    let alpha_rule = json!([{"operations": ["CREATE"], "apiGroups": ["example.com"],
                             "apiVersions": ["v1alpha1"], "resources": ["widgets"]}]);
    configure(
        &client,
        "MutatingWebhookConfiguration",
        "widgets",
        vec![hook(
            "default.widgets.example.com",
            url_config(&hooks, "/default"),
            alpha_rule.clone(),
        )],
    )
    .await;
    let mut exact = hook(
        "exact.widgets.example.com",
        url_config(&hooks, "/exact"),
        alpha_rule,
    );
    exact["matchPolicy"] = json!("Exact");
    configure(
        &client,
        "ValidatingWebhookConfiguration",
        "widgets",
        vec![exact],
    )
    .await;

    let created = widgets(&client, "v1beta1")
        .create(
            &PostParams::default(),
            &object(
                json!({"apiVersion": "example.com/v1beta1", "kind": "Widget",
                           "metadata": {"name": "w"}, "spec": {"colour": "blue"}}),
            ),
        )
        .await
        .unwrap();
    // Defaulted as v1alpha1's size, read back as v1beta1's replicas.
    assert_eq!(
        created.data["spec"],
        json!({"replicas": 2, "colour": "blue"})
    );
    let reviews = hooks.reviews();
    assert_eq!(
        reviews.len(),
        1,
        "the Exact webhook is not called: {reviews:?}"
    );
    let request = &reviews[0].1["request"];
    assert_eq!(request["kind"]["version"], "v1alpha1");
    assert_eq!(request["requestKind"]["version"], "v1beta1");
    assert_eq!(request["resource"]["version"], "v1alpha1");
    assert_eq!(request["requestResource"]["version"], "v1beta1");
    assert_eq!(request["object"]["apiVersion"], "example.com/v1alpha1");
}
