//! A connected cluster: the client, what discovery found, and the translation of every failed
//! request into a [`KubeError`] that names the request.

use std::collections::{HashMap, HashSet};
use std::time::SystemTime;

use k8s_openapi::api::authentication::v1::SelfSubjectReview;
use kube::api::PostParams;
use kube::discovery::ApiResource;
use kube::{Api, Client};

use super::applied::Records;
use super::connect::{ConnectOptions, Target};
use super::discovery::{self, DiskCache, Failure, GroupList, ResourceList};
use super::error::{Action, Endpoint, KubeError, Reason};
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
    /// kubectl's discovery cache of this server, when there is a place for it.
    cache: Option<DiskCache>,
    /// The group list discovery found, and when the disk cache got it if it came from there.
    groups: GroupList,
    groups_written: Option<SystemTime>,
    /// What the last deploy applied, so that an unchanged file needs no read first.
    pub(super) applied: Records,
}

impl Cluster {
    /// Builds the client and runs discovery once: no request with a fresh disk cache, two
    /// with aggregated discovery, one per group version more with the legacy documents.
    pub async fn connect(options: &ConnectOptions) -> Result<Cluster, KubeError> {
        let Target {
            config,
            endpoint,
            host,
            user,
            namespace,
        } = super::connect::target(options).await?;
        let cache_dir = options
            .cache_dir
            .clone()
            .or_else(discovery::default_cache_dir);
        let cache = cache_dir.as_ref().map(|dir| DiskCache::new(dir, &host));
        let applied = Records::load(cache_dir.map(|dir| {
            dir.join("operator-rs")
                .join(discovery::host_dir(&host))
                .join("applied.json")
        }));
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
            cache,
            groups: GroupList::default(),
            groups_written: None,
            applied,
        };
        cluster.discover().await?;
        Ok(cluster)
    }

    async fn discover(&mut self) -> Result<(), KubeError> {
        let found = match discovery::discover(&self.client, self.cache.as_ref()).await {
            Ok(found) => found,
            Err(Failure::Request(e)) => return Err(self.fail(e, discovery_action()).await),
            Err(Failure::Empty) => {
                return Err(KubeError::BadResponse {
                    endpoint: self.endpoint.clone(),
                    action: discovery_action(),
                    message: "it lists no API resources at all, not even the core group (v1), which every Kubernetes API server serves; check that the kubeconfig points at the API server itself and not at a proxy that hides its discovery".to_string(),
                });
            }
        };
        self.served.clear();
        for list in &found.lists {
            self.remember(list);
        }
        self.groups = found.groups;
        self.groups_written = found.cached_at;
        Ok(())
    }

    /// Every kind of a resource list (subresources are not kinds of their own).
    fn remember(&mut self, list: &ResourceList) {
        let (group, version) = discovery::split_group_version(&list.group_version);
        for resource in &list.resources {
            if resource.name.contains('/') || resource.kind.is_empty() {
                continue;
            }
            let key = (
                group.to_string(),
                version.to_string(),
                resource.kind.clone(),
            );
            let served = Served {
                resource: ApiResource {
                    group: group.to_string(),
                    version: version.to_string(),
                    api_version: list.group_version.clone(),
                    kind: resource.kind.clone(),
                    plural: resource.name.clone(),
                },
                scope: if resource.namespaced {
                    Scope::Namespaced
                } else {
                    Scope::Cluster
                },
            };
            self.served.insert(key, served);
        }
    }

    /// The client, for typed APIs of its own (Helm's release Secrets).
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// What discovery knows about a kind, without asking the server again.
    pub fn lookup(&self, group: &str, version: &str, kind: &str) -> Option<&Served> {
        self.served
            .get(&(group.to_string(), version.to_string(), kind.to_string()))
    }

    /// Every kind discovery found.
    pub fn served_kinds(&self) -> impl Iterator<Item = &Served> {
        self.served.values()
    }

    /// Every group version discovery listed.
    pub fn group_versions(&self) -> impl Iterator<Item = &str> {
        self.groups.group_versions()
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

    /// Asks the server again for the group version of every kind of `manifests` that
    /// discovery does not know, once per group version: after CRDs are created, or when the
    /// disk cache predates a kind. What it finds goes into the disk cache too.
    pub async fn discover_missing(&mut self, manifests: &[&Manifest]) -> Result<(), KubeError> {
        let mut asked = HashSet::new();
        for manifest in manifests {
            let (group, version, kind) = (manifest.group(), manifest.version(), manifest.kind());
            let group_version = manifest.api_version().to_string();
            if self.lookup(group, version, kind).is_some() || !asked.insert(group_version.clone()) {
                continue;
            }
            let list = discovery::group_version(&self.client, self.cache.as_ref(), &group_version)
                .await
                .map_err(|e| self.unreachable_or(e, discovery_action()))?;
            // Not served: reported by `served` when the object is used.
            let Some(list) = list else { continue };
            self.remember(&list);
            if !self.groups.group_versions().any(|gv| gv == group_version) {
                self.groups.insert(&group_version);
                if let Some(cache) = &self.cache {
                    let _ = cache.write_groups(&self.groups, self.groups_written);
                }
            }
        }
        Ok(())
    }

    /// Drops the cached resources of `group_versions` (their CRDs were deleted), so the next
    /// command asks the server instead of trusting the cache.
    pub fn forget_cached(&self, group_versions: &[String]) {
        if let Some(cache) = &self.cache {
            for group_version in group_versions {
                cache.remove_resources(group_version);
            }
        }
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
            kube::Error::Api(status)
                if matches!(
                    Reason::of_status(&status),
                    Reason::Unauthorized | Reason::Forbidden
                ) =>
            {
                let identity = self.identity().await;
                let message = status.message.clone();
                let endpoint = self.endpoint.clone();
                if Reason::of_status(&status) == Reason::Unauthorized {
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
                let reason = Reason::of_status(&status);
                let hint = match reason {
                    Reason::NotFound if status.message.starts_with("namespaces ") => {
                        "\n  the namespace does not exist: drop --create-namespace=false or create it"
                            .to_string()
                    }
                    Reason::Conflict => "\n  another field manager owns these fields; change them with the tool that set them, or remove them from the deploy file"
                        .to_string(),
                    _ => String::new(),
                };
                KubeError::Api {
                    endpoint,
                    action,
                    message: status.message,
                    hint,
                    reason,
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
