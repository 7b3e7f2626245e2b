//! Helm's `lookup` template function against a live cluster, for the renders of a real
//! install or upgrade: the object as the server has it, all objects of a kind (in a namespace,
//! or everywhere) as a list, or an empty map when the object or its kind is not there, so
//! that `if not (lookup ...)` works in templates as under Helm.
//!
//! Templates are rendered synchronously, so each lookup blocks its thread on the request: a
//! render that looks things up runs on a blocking thread (`tokio::task::spawn_blocking`),
//! never on the runtime's own.

use std::collections::HashMap;

use kube::Client;
use kube::api::{DynamicObject, GetParams, ListParams};
use serde_json::{Map, Value};

use super::cluster::{Cluster, Served};
use super::error::is_not_found;
use crate::manifests::{Scope, split_api_version};
use crate::render::funcs::Lookup;

pub struct ClusterLookup {
    client: Client,
    /// The kinds discovery knew when the render began, by (group, version, kind).
    served: HashMap<(String, String, String), Served>,
    runtime: tokio::runtime::Handle,
}

impl Cluster {
    /// A `lookup` for templates, answering from this cluster; `None` outside a tokio runtime.
    pub fn live_lookup(&self) -> Option<ClusterLookup> {
        let runtime = tokio::runtime::Handle::try_current().ok()?;
        let served = self
            .served_kinds()
            .map(|s| {
                let r = &s.resource;
                (
                    (r.group.clone(), r.version.clone(), r.kind.clone()),
                    s.clone(),
                )
            })
            .collect();
        Some(ClusterLookup {
            client: self.client.clone(),
            served,
            runtime,
        })
    }
}

impl Lookup for ClusterLookup {
    fn lookup(
        &self,
        api_version: &str,
        kind: &str,
        namespace: &str,
        name: &str,
    ) -> Result<Value, String> {
        let (group, version) = split_api_version(api_version);
        let key = (group.to_string(), version.to_string(), kind.to_string());
        // Helm finds nothing, rather than failing, for a kind the server does not serve.
        let Some(served) = self.served.get(&key) else {
            return Ok(Value::Object(Map::new()));
        };
        let namespace = match served.scope {
            Scope::Namespaced if !namespace.is_empty() => Some(namespace),
            _ => None,
        };
        let url = <DynamicObject as kube::Resource>::url_path(&served.resource, namespace);
        let request = kube::core::Request::new(url);
        let request = if name.is_empty() {
            request.list(&ListParams::default())
        } else {
            request.get(name, &GetParams::default())
        }
        .map_err(|e| e.to_string())?;
        let answer = self
            .runtime
            .block_on(super::raw::send(&self.client, request));
        match answer {
            Ok(answer) => {
                let mut found: Value =
                    serde_json::from_slice(&answer.body).map_err(|e| e.to_string())?;
                if name.is_empty() {
                    // Items of a list come without their type; Helm's client fills it in.
                    for item in found["items"].as_array_mut().into_iter().flatten() {
                        item["apiVersion"] = Value::String(api_version.to_string());
                        item["kind"] = Value::String(kind.to_string());
                    }
                }
                Ok(found)
            }
            Err(e) if is_not_found(&e) => Ok(Value::Object(Map::new())),
            Err(e) => Err(format!(
                "lookup of {kind} {name:?} ({api_version}) in the cluster failed: {e}"
            )),
        }
    }
}
