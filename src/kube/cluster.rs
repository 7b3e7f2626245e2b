//! A connected cluster: the client, what discovery found, and the translation of every failed
//! request into a [`KubeError`] that names the request.

use std::collections::HashMap;

use k8s_openapi::api::authentication::v1::SelfSubjectReview;
use kube::api::PostParams;
use kube::core::GroupVersionKind;
use kube::discovery::{ApiCapabilities, ApiResource, Discovery};
use kube::{Api, Client};

use super::connect::{ConnectOptions, Target};
use super::error::{Action, Endpoint, KubeError};
use crate::manifests::{Manifest, Scope};

pub const FIELD_MANAGER: &str = "operator-rs";

/// What a kind is on the server: where to send requests for it and whether it is namespaced.
#[derive(Debug, Clone)]
pub struct Served {
    pub resource: ApiResource,
    pub scope: Scope,
}

pub struct Cluster {
    pub(super) client: Client,
    pub endpoint: Endpoint,
    /// The namespace of the kubeconfig context, if it names one.
    pub context_namespace: Option<String>,
    user: Option<String>,
    /// Served kinds by (group, version, kind).
    served: HashMap<(String, String, String), Served>,
}

impl Cluster {
    /// Builds the client and runs discovery once (two requests with aggregated discovery).
    pub async fn connect(options: &ConnectOptions) -> Result<Cluster, KubeError> {
        let Target {
            config,
            endpoint,
            user,
            namespace,
        } = super::connect::target(options).await?;
        let client = Client::try_from(config).map_err(|e| KubeError::Config {
            endpoint: endpoint.clone(),
            message: e.to_string(),
        })?;
        let mut cluster = Cluster {
            client,
            endpoint,
            context_namespace: namespace,
            user,
            served: HashMap::new(),
        };
        cluster.discover().await?;
        Ok(cluster)
    }

    async fn discover(&mut self) -> Result<(), KubeError> {
        let discovery = match Discovery::new(self.client.clone()).run_aggregated().await {
            Ok(discovery) => discovery,
            // Servers older than 1.26 answer aggregated discovery with the legacy documents.
            Err(kube::Error::SerdeError(_)) | Err(kube::Error::Discovery(_)) => {
                match Discovery::new(self.client.clone()).run().await {
                    Ok(discovery) => discovery,
                    Err(e) => return Err(self.fail(e, discovery_action()).await),
                }
            }
            Err(e) => return Err(self.fail(e, discovery_action()).await),
        };
        self.served.clear();
        for group in discovery.groups() {
            for version in group.versions() {
                for (resource, caps) in group.versioned_resources(version) {
                    self.remember(resource, &caps);
                }
            }
        }
        Ok(())
    }

    fn remember(&mut self, resource: ApiResource, caps: &ApiCapabilities) {
        let scope = match caps.scope {
            kube::discovery::Scope::Cluster => Scope::Cluster,
            kube::discovery::Scope::Namespaced => Scope::Namespaced,
        };
        let key = (
            resource.group.clone(),
            resource.version.clone(),
            resource.kind.clone(),
        );
        self.served.insert(key, Served { resource, scope });
    }

    /// What discovery knows about a kind, without asking the server again.
    pub fn lookup(&self, group: &str, version: &str, kind: &str) -> Option<&Served> {
        self.served
            .get(&(group.to_string(), version.to_string(), kind.to_string()))
    }

    /// The served kind of a manifest, or an error saying it is not served.
    pub fn served(&self, manifest: &Manifest) -> Result<&Served, KubeError> {
        self.lookup(manifest.group(), manifest.version(), manifest.kind())
            .ok_or_else(|| KubeError::NotServed {
                endpoint: self.endpoint.clone(),
                api_version: manifest.api_version().to_string(),
                kind: manifest.kind().to_string(),
            })
    }

    /// Discovers the kinds of `manifests` that are not known yet, one request per group
    /// version: used after CRDs are created, instead of a full discovery.
    pub async fn discover_missing(&mut self, manifests: &[&Manifest]) -> Result<(), KubeError> {
        let mut asked = std::collections::HashSet::new();
        for manifest in manifests {
            let (group, version, kind) = (manifest.group(), manifest.version(), manifest.kind());
            if self.lookup(group, version, kind).is_some()
                || !asked.insert((group.to_string(), version.to_string(), kind.to_string()))
            {
                continue;
            }
            let gvk = GroupVersionKind::gvk(group, version, kind);
            match kube::discovery::pinned_kind(&self.client, &gvk).await {
                Ok((resource, caps)) => self.remember(resource, &caps),
                // Not served: reported by `served` when the object is used.
                Err(kube::Error::Discovery(_)) => {}
                Err(kube::Error::Api(status)) if status.code == 404 => {}
                Err(e) => return Err(self.unreachable_or(e, discovery_action())),
            }
        }
        Ok(())
    }

    /// A dynamic API handle for a manifest's kind, in its namespace when namespaced.
    pub(super) fn api_for(
        &self,
        served: &Served,
        namespace: Option<&str>,
    ) -> Api<kube::api::DynamicObject> {
        match (served.scope, namespace) {
            (Scope::Namespaced, Some(ns)) => {
                Api::namespaced_with(self.client.clone(), ns, &served.resource)
            }
            _ => Api::all_with(self.client.clone(), &served.resource),
        }
    }

    /// The action a request on a served kind stands for, for error messages.
    pub(super) fn action(
        verb: &'static str,
        served: &Served,
        namespace: Option<&str>,
        name: Option<&str>,
    ) -> Action {
        let namespace = match served.scope {
            Scope::Namespaced => namespace,
            Scope::Cluster => None,
        };
        Action::new(verb, &resource_name(&served.resource), namespace, name)
    }

    /// Turns a failed request into an error that names it; on 401/403 it asks the server who
    /// we are (SelfSubjectReview), since the kubeconfig's user name may not be what RBAC sees.
    pub(super) async fn fail(&self, error: kube::Error, action: Action) -> KubeError {
        match error {
            kube::Error::Api(status) if status.code == 401 || status.code == 403 => {
                let identity = self.identity().await;
                let message = status.message.clone();
                let endpoint = self.endpoint.clone();
                if status.code == 401 {
                    KubeError::Unauthorized {
                        endpoint,
                        action,
                        identity,
                        message,
                    }
                } else {
                    KubeError::Forbidden {
                        endpoint,
                        action,
                        identity,
                        message,
                    }
                }
            }
            other => self.unreachable_or(other, action),
        }
    }

    /// The same as [`Cluster::fail`] for errors that cannot be about permissions.
    pub(super) fn unreachable_or(&self, error: kube::Error, action: Action) -> KubeError {
        let endpoint = self.endpoint.clone();
        match error {
            kube::Error::Api(status) => {
                let hint = match (status.code, status.reason.as_str()) {
                    (404, _) if status.message.starts_with("namespaces ") => {
                        "\n  the namespace does not exist: drop --create-namespace=false or create it"
                            .to_string()
                    }
                    (409, "Conflict") => "\n  another field manager owns these fields; change them with the tool that set them, or remove them from the deploy file"
                        .to_string(),
                    _ => String::new(),
                };
                KubeError::Api {
                    endpoint,
                    action,
                    message: status.message,
                    hint,
                }
            }
            kube::Error::Auth(e) => KubeError::Unauthorized {
                identity: self.kubeconfig_identity(),
                endpoint,
                action,
                message: e.to_string(),
            },
            kube::Error::SerdeError(e) => KubeError::BadResponse {
                endpoint,
                action,
                message: e.to_string(),
            },
            other => KubeError::Unreachable {
                endpoint,
                message: error_chain(&other),
            },
        }
    }

    fn kubeconfig_identity(&self) -> String {
        match &self.user {
            Some(user) => format!("kubeconfig user \"{user}\""),
            None => "the pod's service account".to_string(),
        }
    }

    /// Who the server says we are, falling back to the kubeconfig's user name.
    async fn identity(&self) -> String {
        let reviews: Api<SelfSubjectReview> = Api::all(self.client.clone());
        let answer = reviews
            .create(&PostParams::default(), &SelfSubjectReview::default())
            .await
            .ok();
        match answer
            .and_then(|review| review.status)
            .and_then(|status| status.user_info)
            .and_then(|user| user.username)
        {
            Some(name) => format!("user \"{name}\""),
            None => self.kubeconfig_identity(),
        }
    }
}

/// `deployments.apps`, `secrets`: how RBAC and kubectl name a resource.
pub fn resource_name(resource: &ApiResource) -> String {
    if resource.group.is_empty() {
        resource.plural.clone()
    } else {
        format!("{}.{}", resource.plural, resource.group)
    }
}

fn discovery_action() -> Action {
    Action::other("read the API discovery documents (/api, /apis)")
}

/// An error and its causes on one line: connection errors hide the useful part
/// ("Connection refused") several levels down.
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut parts = vec![error.to_string()];
    let mut source = error.source();
    while let Some(cause) = source {
        let text = cause.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        source = cause.source();
    }
    parts.join(": ")
}
