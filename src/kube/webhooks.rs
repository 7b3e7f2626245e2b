//! Whether the cluster can call the operator's webhooks: a dry-run create of an object the
//! webhooks concern (a sample custom resource) goes through every admission webhook and, for
//! a version the CRD does not store, its conversion webhook, and stores nothing. The API
//! server refuses it with 500 while a webhook cannot be called (no endpoint yet, a certificate
//! not yet injected, a server not yet listening); any other answer, a denial included, means
//! the webhooks answer.

use std::time::Duration;

use kube::api::{DynamicObject, PostParams};
use tokio::time::Instant;

use super::backoff::Backoff;
use super::cluster::{Cluster, FIELD_MANAGER};
use super::error::KubeError;
use crate::manifests::Manifest;

/// What a probe found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Probe {
    Answered,
    /// A webhook could not be called; the API server's words.
    Unavailable(String),
}

/// The API server's messages for a webhook it could not call: an admission webhook
/// (`failed calling webhook "NAME": ...`) or a CRD's conversion webhook
/// (`conversion webhook for GROUP/VERSION, Kind=KIND failed: ...`).
fn unavailable(status: &kube::core::Status) -> bool {
    status.code >= 500
        && (status.message.contains("failed calling webhook")
            || (status.message.contains("conversion webhook for")
                && status.message.contains(" failed: ")))
}

impl Cluster {
    /// Creates `manifest` as a dry run, under a generated name so that an object of that name
    /// in the cluster does not stop it before the webhooks.
    pub async fn probe_webhooks(&self, manifest: &Manifest) -> Result<Probe, KubeError> {
        let served = self.served(manifest)?;
        let namespace = manifest.namespace();
        let api = self.api_for(served, namespace);
        let mut object = manifest.object.clone();
        if let Some(metadata) = object["metadata"].as_object_mut() {
            metadata.remove("name");
            metadata.insert(
                "generateName".into(),
                format!("{}-", manifest.name()).into(),
            );
        }
        let action = || Cluster::action("create", served, namespace, None);
        let object: DynamicObject =
            serde_json::from_value(object).map_err(|e| KubeError::BadResponse {
                endpoint: self.endpoint.clone(),
                action: action(),
                message: format!("the object is not a Kubernetes object: {e}"),
            })?;
        let params = PostParams {
            dry_run: true,
            field_manager: Some(FIELD_MANAGER.to_string()),
        };
        match api.create(&params, &object).await {
            Ok(_) => Ok(Probe::Answered),
            Err(kube::Error::Api(status)) if unavailable(&status) => {
                Ok(Probe::Unavailable(status.message.clone()))
            }
            // A denial, or a refusal that applying the object will report in full.
            Err(kube::Error::Api(_)) => Ok(Probe::Answered),
            Err(e) => Err(self.fail(e, action()).await),
        }
    }

    /// Probes with each of `manifests` until every probe is answered, backing off between
    /// rounds; `progress` hears why the last round waits. The error of a timeout says the
    /// API server's last words.
    pub async fn wait_webhooks(
        &self,
        manifests: &[&Manifest],
        deadline: Instant,
        waited: &str,
        mut progress: impl FnMut(&str),
    ) -> Result<(), KubeError> {
        let mut backoff = Backoff::new(Duration::from_millis(250), Duration::from_secs(5));
        let mut failures = super::wait::failure_backoff();
        'rounds: loop {
            let mut waiting = None;
            for manifest in manifests {
                match self.probe_webhooks(manifest).await {
                    Ok(Probe::Unavailable(reason)) => {
                        waiting = Some(reason);
                        break;
                    }
                    Ok(Probe::Answered) => failures.reset(),
                    Err(e)
                        if super::wait::ride_out(&mut failures, e.is_transient(), deadline)
                            .await =>
                    {
                        continue 'rounds;
                    }
                    Err(e) => return Err(e),
                }
            }
            let Some(reason) = waiting else {
                return Ok(());
            };
            progress(&reason);
            if !backoff.sleep(deadline).await {
                return Err(KubeError::Timeout {
                    what: format!("the operator's webhooks did not answer ({reason})"),
                    waited: waited.to_string(),
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(code: u16, message: &str) -> kube::core::Status {
        let mut status = kube::core::Status::failure(message, "InternalError");
        status.code = code;
        status
    }

    #[test]
    fn only_a_webhook_that_cannot_be_called_is_unavailable() {
        assert!(unavailable(&status(
            500,
            "Internal error occurred: failed calling webhook \"m.example.com\": failed to call webhook: Post \"https://op-webhook.demo.svc:443/mutate?timeout=10s\": no endpoints available for service \"op-webhook\""
        )));
        assert!(unavailable(&status(
            500,
            "conversion webhook for example.com/v1beta1, Kind=Widget failed: Post \"https://op-webhook.demo.svc:443/convert?timeout=30s\": service \"op-webhook\" not found"
        )));
        assert!(!unavailable(&status(
            400,
            "admission webhook \"v.example.com\" denied the request: spec.size: must be at most 100"
        )));
        assert!(!unavailable(&status(500, "etcdserver: request timed out")));
    }
}
