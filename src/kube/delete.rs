//! Deleting what deploy created, waiting until it is gone, and finding the custom resources a
//! CRD deletion would take with it.

use std::time::Duration;

use kube::api::{DeleteParams, ListParams, PropagationPolicy};
use kube::core::GroupVersionKind;
use tokio::time::Instant;

use super::cluster::{Cluster, Served};
use super::error::{KubeError, get_optional, is_not_found};
use crate::manifests::{Manifest, Scope};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Deleted {
    Deleted,
    /// Not there (or its kind is not served any more): nothing to do, not an error.
    NotFound,
}

impl Deleted {
    pub fn as_str(self) -> &'static str {
        match self {
            Deleted::Deleted => "deleted",
            Deleted::NotFound => "not found",
        }
    }
}

/// A custom resource found in the cluster: `namespace/name` or `name`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CustomResource {
    pub kind: String,
    pub namespace: Option<String>,
    pub name: String,
    /// What must finish before the object goes; usually the operator's uninstall finalizer.
    pub finalizers: Vec<String>,
}

impl CustomResource {
    /// `Kind/name (namespace)`, or `Kind/name` when cluster-scoped.
    pub fn display_name(&self) -> String {
        match &self.namespace {
            Some(ns) => format!("{}/{} ({ns})", self.kind, self.name),
            None => format!("{}/{}", self.kind, self.name),
        }
    }

    /// A manifest naming this object, so it can be deleted like the deploy files.
    pub fn as_manifest(&self, api_version: &str) -> Manifest {
        let mut metadata = serde_json::json!({ "name": self.name });
        if let Some(ns) = &self.namespace {
            metadata["namespace"] = serde_json::Value::String(ns.clone());
        }
        Manifest {
            origin: crate::manifests::Origin::Cluster,
            object: serde_json::json!({
                "apiVersion": api_version,
                "kind": self.kind,
                "metadata": metadata,
            }),
        }
    }
}

impl Cluster {
    /// Deletes one object in the background (its dependents are collected by the server).
    pub async fn delete(&self, manifest: &Manifest) -> Result<Deleted, KubeError> {
        let Some(served) = self
            .lookup(manifest.group(), manifest.version(), manifest.kind())
            .cloned()
        else {
            return Ok(Deleted::NotFound);
        };
        let (namespace, name) = (manifest.namespace(), manifest.name());
        let api = self.api_for(&served, namespace);
        let params = DeleteParams {
            propagation_policy: Some(PropagationPolicy::Background),
            ..DeleteParams::default()
        };
        match api.delete(name, &params).await {
            Ok(_) => Ok(Deleted::Deleted),
            Err(e) if is_not_found(&e) => Ok(Deleted::NotFound),
            Err(e) => {
                let action = Cluster::action("delete", &served, namespace, Some(name));
                Err(self.fail(e, action).await)
            }
        }
    }

    /// Polls until the object is gone (finalizers done), or `deadline`.
    pub async fn wait_gone(
        &self,
        manifest: &Manifest,
        deadline: Instant,
        waited: &str,
    ) -> Result<(), KubeError> {
        let Some(served) = self
            .lookup(manifest.group(), manifest.version(), manifest.kind())
            .cloned()
        else {
            return Ok(());
        };
        let (namespace, name) = (manifest.namespace(), manifest.name());
        let api = self.api_for(&served, namespace);
        let mut pause = Duration::from_millis(100);
        let mut failures = super::wait::failure_backoff();
        loop {
            match get_optional(&api, name).await {
                Ok(None) => return Ok(()),
                Ok(Some(_)) => failures.reset(),
                // The kind itself went away (its CRD was deleted): so did the object.
                Err(e) if is_not_found(&e) => return Ok(()),
                Err(e)
                    if super::wait::ride_out(
                        &mut failures,
                        super::error::Reason::of(&e).is_transient(),
                        deadline,
                    )
                    .await =>
                {
                    continue;
                }
                Err(e) => {
                    let action = Cluster::action("get", &served, namespace, Some(name));
                    return Err(self.fail(e, action).await);
                }
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(KubeError::Timeout {
                    what: format!(
                        "{} is still there (a finalizer may be waiting for a controller that is gone)",
                        manifest.display_name()
                    ),
                    waited: waited.to_string(),
                });
            }
            tokio::time::sleep(pause.min(deadline - now)).await;
            pause = (pause * 2).min(Duration::from_secs(2));
        }
    }

    /// Every custom resource of the kind a CRD manifest defines, in all namespaces; empty when
    /// the CRD is not installed.
    pub async fn custom_resources(
        &mut self,
        crd: &Manifest,
    ) -> Result<Vec<CustomResource>, KubeError> {
        let spec = &crd.object["spec"];
        let group = spec["group"].as_str().unwrap_or_default();
        let kind = spec["names"]["kind"].as_str().unwrap_or_default();
        let versions: Vec<&str> = spec["versions"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|v| v["name"].as_str())
            .collect();
        let mut found = Vec::new();
        // One served version is enough: every version lists the same objects.
        let Some(served) = self.served_version(group, &versions, kind).await? else {
            return Ok(found);
        };
        let api = self.api_for(&served, None);
        let list = match api.list(&ListParams::default()).await {
            Ok(list) => list,
            Err(e) if is_not_found(&e) => return Ok(found),
            Err(e) => {
                let action = Cluster::action("list", &served, None, None);
                return Err(self.fail(e, action).await);
            }
        };
        for object in list.items {
            found.push(CustomResource {
                kind: kind.to_string(),
                namespace: match served.scope {
                    Scope::Namespaced => object.metadata.namespace.clone(),
                    Scope::Cluster => None,
                },
                name: object.metadata.name.clone().unwrap_or_default(),
                finalizers: object.metadata.finalizers.clone().unwrap_or_default(),
            });
        }
        Ok(found)
    }

    async fn served_version(
        &mut self,
        group: &str,
        versions: &[&str],
        kind: &str,
    ) -> Result<Option<Served>, KubeError> {
        for version in versions {
            if let Some(served) = self.lookup(group, version, kind) {
                return Ok(Some(served.clone()));
            }
        }
        let Some(first) = versions.first() else {
            return Ok(None);
        };
        let probe = Manifest {
            origin: crate::manifests::Origin::Cluster,
            object: serde_json::json!({
                "apiVersion": GroupVersionKind::gvk(group, first, kind).api_version(),
                "kind": kind,
                "metadata": {"name": "-"},
            }),
        };
        self.discover_missing(&[&probe]).await?;
        Ok(self.lookup(group, first, kind).cloned())
    }
}
