//! Webhooks in a generated Rust project's deploy/, as a project with webhooks has them (issue
//! 35): the operator's Service (port 443, named `webhook`, to the pod's 9443), a mutating and a
//! validating configuration for the Memcached kind of cache.example.com/v1alpha1 calling it,
//! and a CRD whose second version (v1beta1) is converted by the operator. Both name the
//! Service in `REPLACE_NAMESPACE`, which deploy and run fill in.

use std::path::Path;

use serde_json::{Value, json};

pub const SERVICE: &str = "memcached-operator-webhook";
pub const MUTATING: &str = "memcached-operator-mutating";
pub const VALIDATING: &str = "memcached-operator-validating";

fn hook(name: &str, path: &str, ca_bundle: Option<&str>) -> Value {
    let mut client_config = json!({"service": {"name": SERVICE, "namespace": "REPLACE_NAMESPACE",
                                               "path": path}});
    if let Some(ca) = ca_bundle {
        client_config["caBundle"] = json!(ca);
    }
    json!({
        "name": name,
        "clientConfig": client_config,
        "rules": [{"operations": ["CREATE", "UPDATE"], "apiGroups": ["cache.example.com"],
                   "apiVersions": ["v1alpha1"], "resources": ["memcacheds"]}],
        "failurePolicy": "Fail", "sideEffects": "None", "admissionReviewVersions": ["v1"],
    })
}

/// Writes `deploy/webhook.yaml` (trusting `ca_bundle`, as after cert-manager or the operator
/// injected it) and lists it in `deploy/kustomization.yaml`.
pub fn add_webhooks(root: &Path, ca_bundle: Option<&str>) {
    let documents = [
        json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": SERVICE},
               "spec": {"ports": [{"name": "webhook", "port": 443, "targetPort": 9443}],
                        "selector": {"app": "memcached-operator"}}}),
        json!({"apiVersion": "admissionregistration.k8s.io/v1",
               "kind": "MutatingWebhookConfiguration", "metadata": {"name": MUTATING},
               "webhooks": [hook("mmemcached-v1alpha1.cache.example.com",
                                 "/mutate-cache-example-com-v1alpha1-memcached", ca_bundle)]}),
        json!({"apiVersion": "admissionregistration.k8s.io/v1",
               "kind": "ValidatingWebhookConfiguration", "metadata": {"name": VALIDATING},
               "webhooks": [hook("vmemcached-v1alpha1.cache.example.com",
                                 "/validate-cache-example-com-v1alpha1-memcached", ca_bundle)]}),
    ];
    let deploy = root.join("deploy");
    let text: String = documents.iter().map(|d| format!("---\n{d}\n")).collect();
    std::fs::write(deploy.join("webhook.yaml"), text).unwrap();
    let kustomization = deploy.join("kustomization.yaml");
    let text = std::fs::read_to_string(&kustomization).unwrap();
    std::fs::write(
        kustomization,
        text.replacen("resources:\n", "resources:\n  - webhook.yaml\n", 1),
    )
    .unwrap();
}

/// One document of `deploy/webhook.yaml`, by kind, with the namespace filled in.
pub fn deployed(root: &Path, kind: &str, namespace: &str) -> String {
    std::fs::read_to_string(root.join("deploy/webhook.yaml"))
        .unwrap()
        .split("---\n")
        .find(|d| d.contains(&format!("\"kind\":\"{kind}\"")))
        .unwrap_or_else(|| panic!("no {kind} in deploy/webhook.yaml"))
        .replace("REPLACE_NAMESPACE", namespace)
}

/// Adds v1beta1 to the CRD file (the same schema, not stored) and conversion by webhook
/// through the Service at `/convert`.
pub fn convert_by_webhook(root: &Path) {
    let crd_file = root.join("deploy/crds/cache.example.com_memcacheds_crd.yaml");
    let mut crd: Value =
        serde_saphyr::from_str(&std::fs::read_to_string(&crd_file).unwrap()).unwrap();
    let mut beta = crd["spec"]["versions"][0].clone();
    beta["name"] = "v1beta1".into();
    beta["storage"] = false.into();
    crd["spec"]["versions"].as_array_mut().unwrap().push(beta);
    crd["spec"]["conversion"] = json!({"strategy": "Webhook", "webhook": {
        "conversionReviewVersions": ["v1"],
        "clientConfig": {"service": {"name": SERVICE, "namespace": "REPLACE_NAMESPACE",
                                     "path": "/convert"}}}});
    std::fs::write(&crd_file, crd.to_string()).unwrap();
}
