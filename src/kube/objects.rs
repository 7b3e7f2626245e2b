//! Plain reads, creates and replacements of one object. Helm creates its hooks rather than
//! applying them, so that a hook object left from an earlier run is an error unless a delete
//! policy removed it; it replaces objects whole on a forced upgrade.

use kube::api::{DynamicObject, PostParams};
use serde_json::Value;

use super::applied::Record;
use super::apply::{Applied, Outcome};
use super::cluster::{Cluster, FIELD_MANAGER};
use super::error::{KubeError, get_optional, is_not_found};
use crate::manifests::Manifest;

impl Cluster {
    /// Creates the object; it must not exist yet (409 is the API's AlreadyExists answer).
    pub async fn create(&self, manifest: &Manifest) -> Result<Value, KubeError> {
        let served = self.served(manifest)?;
        let (namespace, name) = (manifest.namespace(), manifest.name());
        let action = || Cluster::action("create", served, namespace, Some(name));
        let api = self.api_for(served, namespace);
        let object: DynamicObject =
            serde_json::from_value(manifest.object.clone()).map_err(|e| {
                KubeError::BadResponse {
                    endpoint: self.endpoint.clone(),
                    action: action(),
                    message: format!("the object is not a Kubernetes object: {e}"),
                }
            })?;
        let params = PostParams {
            dry_run: false,
            field_manager: Some(FIELD_MANAGER.to_string()),
        };
        match api.create(&params, &object).await {
            Ok(created) => serde_json::to_value(created).map_err(|e| KubeError::BadResponse {
                endpoint: self.endpoint.clone(),
                action: action(),
                message: e.to_string(),
            }),
            Err(e) => Err(self.fail(e, action()).await),
        }
    }

    /// Writes the object whole (PUT over the current resourceVersion), or creates it when it
    /// is not there: Helm's forced update. Unlike server-side apply, fields that others set
    /// and the manifest lacks are gone afterwards.
    pub async fn replace(&self, manifest: &Manifest) -> Result<Applied, KubeError> {
        let served = self.served(manifest)?;
        let (namespace, name) = (manifest.namespace(), manifest.name());
        let action = |verb| Cluster::action(verb, served, namespace, Some(name));
        let api = self.api_for(served, namespace);
        let current = match get_optional(&api, name).await {
            Ok(current) => current,
            Err(e) => return Err(self.fail(e, action("get")).await),
        };
        let Some(current) = current else {
            let object = self.create(manifest).await?;
            self.applied.set(manifest, Record::of(manifest, &object));
            return Ok(Applied {
                outcome: Outcome::Created,
                object,
            });
        };
        let mut object: DynamicObject =
            serde_json::from_value(manifest.object.clone()).map_err(|e| {
                KubeError::BadResponse {
                    endpoint: self.endpoint.clone(),
                    action: action("update"),
                    message: format!("the object is not a Kubernetes object: {e}"),
                }
            })?;
        object.metadata.resource_version = current.metadata.resource_version.clone();
        let params = PostParams {
            dry_run: false,
            field_manager: Some(FIELD_MANAGER.to_string()),
        };
        let replaced = match api.replace(name, &params, &object).await {
            Ok(replaced) => replaced,
            Err(e) => return Err(self.fail(e, action("update")).await),
        };
        let outcome = if replaced.metadata.resource_version == current.metadata.resource_version {
            Outcome::Unchanged
        } else {
            Outcome::Configured
        };
        let object = serde_json::to_value(replaced).map_err(|e| KubeError::BadResponse {
            endpoint: self.endpoint.clone(),
            action: action("update"),
            message: e.to_string(),
        })?;
        self.applied.set(manifest, Record::of(manifest, &object));
        Ok(Applied { outcome, object })
    }

    /// The object as the server has it; `None` when it is not there or its kind is not served.
    pub async fn get(&self, manifest: &Manifest) -> Result<Option<Value>, KubeError> {
        let Some(served) = self.lookup(manifest.group(), manifest.version(), manifest.kind())
        else {
            return Ok(None);
        };
        let (namespace, name) = (manifest.namespace(), manifest.name());
        let api = self.api_for(served, namespace);
        match get_optional(&api, name).await {
            Ok(found) => Ok(found.and_then(|o| serde_json::to_value(o).ok())),
            // The kind went away between discovery and now (its CRD was deleted).
            Err(e) if is_not_found(&e) => Ok(None),
            Err(e) => {
                let action = Cluster::action("get", served, namespace, Some(name));
                Err(self.fail(e, action).await)
            }
        }
    }
}
