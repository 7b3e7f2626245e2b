//! What a project's deploy files say about webhooks, and the copies of them that
//! `operator-rs run` registers while the operator runs on this machine.
//!
//! In the cluster, webhook configurations and a CRD's conversion reach the operator through
//! its Service (`clientConfig.service`). Under `run` the operator serves on this machine, so
//! `run` registers copies whose `clientConfig` is `url: https://HOST:PORT/PATH` (PATH the
//! Service's `path`) and whose `caBundle` is the CA of `run`'s local certificate. The copies
//! keep the names of the originals, so that an operator deployed in the cluster is not called
//! beside the local one.

use base64::Engine;
use serde_json::{Value, json};

use crate::manifests::Manifest;

pub const GROUP: &str = "admissionregistration.k8s.io";

/// A MutatingWebhookConfiguration or ValidatingWebhookConfiguration.
pub fn is_configuration(manifest: &Manifest) -> bool {
    manifest.group() == GROUP
        && matches!(
            manifest.kind(),
            "MutatingWebhookConfiguration" | "ValidatingWebhookConfiguration"
        )
}

/// A CRD whose versions are converted by a webhook.
pub fn converts_by_webhook(manifest: &Manifest) -> bool {
    manifest.is_crd() && manifest.object["spec"]["conversion"]["strategy"] == "Webhook"
}

/// Whether the operator of these deploy files serves webhooks.
pub fn any<'a>(manifests: impl IntoIterator<Item = &'a Manifest>) -> bool {
    manifests
        .into_iter()
        .any(|m| is_configuration(m) || converts_by_webhook(m))
}

/// The path a `clientConfig` sends reviews to: the Service's `path` (default `/`), or the
/// path of its `url`.
fn path_of(client_config: &Value) -> String {
    if let Some(path) = client_config["service"]["path"].as_str() {
        return path.to_string();
    }
    client_config["url"]
        .as_str()
        .and_then(|url| reqwest::Url::parse(url).ok())
        .map(|url| url.path().to_string())
        .unwrap_or_else(|| "/".to_string())
}

/// `clientConfig` pointing at `base` (`https://HOST:PORT`), trusting `ca_pem`.
fn local_client_config(client_config: &Value, base: &str, ca_pem: &str) -> Value {
    json!({
        "url": format!("{base}{}", path_of(client_config)),
        "caBundle": base64::engine::general_purpose::STANDARD.encode(ca_pem),
    })
}

/// The copy of a webhook configuration that `run` registers: every webhook calling `base`.
pub fn local_configuration(configuration: &Manifest, base: &str, ca_pem: &str) -> Manifest {
    let mut copy = configuration.clone();
    if let Some(webhooks) = copy.object["webhooks"].as_array_mut() {
        for webhook in webhooks {
            webhook["clientConfig"] = local_client_config(&webhook["clientConfig"], base, ca_pem);
        }
    }
    copy
}

/// The `spec.conversion` of a CRD under `run`: its webhook called at `base`.
pub fn local_conversion(crd: &Manifest, base: &str, ca_pem: &str) -> Value {
    let mut conversion = crd.object["spec"]["conversion"].clone();
    let client_config = &conversion["webhook"]["clientConfig"];
    conversion["webhook"]["clientConfig"] = local_client_config(client_config, base, ca_pem);
    conversion
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifests::Origin;

    fn manifest(object: Value) -> Manifest {
        Manifest {
            origin: Origin::File {
                path: "deploy/webhook.yaml".into(),
                index: 1,
            },
            object,
        }
    }

    #[test]
    fn copies_call_this_machine_at_the_services_paths_and_trust_the_local_ca() {
        let configuration = manifest(json!({
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingWebhookConfiguration",
            "metadata": {"name": "demo-validating"},
            "webhooks": [
                {"name": "vmemcached-v1alpha1.cache.example.com",
                 "clientConfig": {"service": {"name": "demo-webhook", "namespace": "demo",
                                              "path": "/validate-cache-example-com-v1alpha1-memcached"}},
                 "sideEffects": "None"},
                {"name": "root.cache.example.com",
                 "clientConfig": {"service": {"name": "demo-webhook", "namespace": "demo"},
                                  "caBundle": "b2xk"}},
            ]
        }));
        assert!(is_configuration(&configuration));
        let copy = local_configuration(&configuration, "https://127.0.0.1:9443", "PEM");
        assert_eq!(copy.name(), "demo-validating");
        assert_eq!(
            copy.object["webhooks"][0]["clientConfig"],
            json!({"url": "https://127.0.0.1:9443/validate-cache-example-com-v1alpha1-memcached",
                   "caBundle": "UEVN"})
        );
        assert_eq!(
            copy.object["webhooks"][1]["clientConfig"]["url"],
            "https://127.0.0.1:9443/"
        );
        assert_eq!(copy.object["webhooks"][0]["sideEffects"], "None");
    }

    #[test]
    fn a_crds_conversion_calls_this_machine_and_keeps_its_review_versions() {
        let crd = manifest(json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": "memcacheds.cache.example.com"},
            "spec": {"conversion": {"strategy": "Webhook", "webhook": {
                "conversionReviewVersions": ["v1"],
                "clientConfig": {"service": {"name": "demo-webhook", "namespace": "demo",
                                             "path": "/convert", "port": 443}}}}}
        }));
        assert!(converts_by_webhook(&crd));
        assert!(any([&crd]));
        assert_eq!(
            local_conversion(&crd, "https://10.0.0.1:9443", "PEM"),
            json!({"strategy": "Webhook", "webhook": {
                "conversionReviewVersions": ["v1"],
                "clientConfig": {"url": "https://10.0.0.1:9443/convert", "caBundle": "UEVN"}}})
        );
        let plain = manifest(json!({"apiVersion": "apiextensions.k8s.io/v1",
                                    "kind": "CustomResourceDefinition",
                                    "metadata": {"name": "x.example.com"}, "spec": {}}));
        assert!(!converts_by_webhook(&plain));
        assert!(!any([&plain]));
    }
}
