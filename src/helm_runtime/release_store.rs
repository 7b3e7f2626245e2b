//! Helm's Secret storage driver over the Kubernetes API: one Secret per revision, named
//! `sh.helm.release.v1.<release>.v<revision>`, of type `helm.sh/release.v1`, labelled so that
//! Helm finds it (`name`, `owner=helm`, `status`, `version`, `createdAt`/`modifiedAt`). The
//! operations mirror Helm's `pkg/storage` (get, create, update, history, last, deployed,
//! delete, `--history-max` pruning), so Helm and this runtime can share a release.

use std::collections::BTreeMap;

use k8s_openapi::ByteString;
use k8s_openapi::api::core::v1::Secret;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::Client;
use kube::api::{Api, DeleteParams, ListParams, PostParams};
use thiserror::Error;

use super::stored_release::{self, DecodeError, Release, Status};

/// The Secret type Helm gives release Secrets.
pub const SECRET_TYPE: &str = "helm.sh/release.v1";
/// Labels Helm sets itself and strips from a release's own labels.
pub const SYSTEM_LABELS: [&str; 6] = [
    "name",
    "owner",
    "status",
    "version",
    "createdAt",
    "modifiedAt",
];

/// The Secret name of a revision.
pub fn secret_name(release: &str, version: i64) -> String {
    format!("sh.helm.release.v1.{release}.v{version}")
}

#[derive(Debug, Error)]
pub enum StoreError {
    #[error("cannot {action} Secret \"{secret}\" in namespace \"{namespace}\": {source}")]
    Api {
        action: &'static str,
        secret: String,
        namespace: String,
        // Boxed: kube's error is large and these travel through every reconcile's Result.
        #[source]
        source: Box<kube::Error>,
    },
    #[error(
        "cannot list the Secrets of release \"{release}\" in namespace \"{namespace}\": {source}"
    )]
    List {
        release: String,
        namespace: String,
        // Boxed: kube's error is large and these travel through every reconcile's Result.
        #[source]
        source: Box<kube::Error>,
    },
    #[error(
        "Secret \"{secret}\" in namespace \"{namespace}\" does not hold a readable Helm release: {source}"
    )]
    Decode {
        secret: String,
        namespace: String,
        #[source]
        source: DecodeError,
    },
    #[error(
        "release \"{release}\" revision {version} already exists in namespace \"{namespace}\" (Secret \"{secret}\"): another writer got there first"
    )]
    Exists {
        release: String,
        version: i64,
        namespace: String,
        secret: String,
    },
    #[error(
        "a release to store needs a name and a revision of at least 1 (got name {name:?}, revision {version})"
    )]
    Incomplete { name: String, version: i64 },
}

/// A release Secret that could not be decoded while listing: skipped as Helm skips it.
#[derive(Debug)]
pub struct Skipped {
    pub secret: String,
    pub error: DecodeError,
}

/// The revisions of one release, oldest first.
#[derive(Debug, Default)]
pub struct History {
    pub releases: Vec<Release>,
    pub skipped: Vec<Skipped>,
}

/// Releases in one namespace.
#[derive(Clone)]
pub struct ReleaseStore {
    api: Api<Secret>,
    namespace: String,
}

impl ReleaseStore {
    pub fn new(client: Client, namespace: &str) -> ReleaseStore {
        ReleaseStore {
            api: Api::namespaced(client, namespace),
            namespace: namespace.to_string(),
        }
    }

    pub fn namespace(&self) -> &str {
        &self.namespace
    }

    fn api_error(&self, action: &'static str, secret: &str, source: kube::Error) -> StoreError {
        StoreError::Api {
            action,
            secret: secret.to_string(),
            namespace: self.namespace.clone(),
            source: Box::new(source),
        }
    }

    /// One revision; `None` when there is no such Secret.
    pub async fn get(&self, name: &str, version: i64) -> Result<Option<Release>, StoreError> {
        let key = secret_name(name, version);
        let secret = crate::kube::get_optional(&self.api, &key)
            .await
            .map_err(|e| self.api_error("get", &key, e))?;
        secret.map(|s| self.decode_secret(&s)).transpose()
    }

    /// Stores a new revision (Helm's `Create`): fails with [`StoreError::Exists`] when the
    /// revision is there already, which is how two writers of one release notice each other.
    pub async fn create(&self, release: &Release) -> Result<(), StoreError> {
        let key = checked_key(release)?;
        let secret = to_secret(&key, release, "createdAt");
        match self.api.create(&PostParams::default(), &secret).await {
            Ok(_) => Ok(()),
            // AlreadyExists; a 409 of a server whose reason is its own reads as Conflict.
            Err(e)
                if matches!(
                    crate::kube::Reason::of(&e),
                    crate::kube::Reason::AlreadyExists | crate::kube::Reason::Conflict
                ) =>
            {
                Err(StoreError::Exists {
                    release: release.name.clone(),
                    version: release.version,
                    namespace: self.namespace.clone(),
                    secret: key,
                })
            }
            Err(e) => Err(self.api_error("create", &key, e)),
        }
    }

    /// Helm's `Create` with `--history-max`: prunes to `max_history - 1` revisions first
    /// (0 keeps everything), then creates.
    pub async fn create_bounded(
        &self,
        release: &Release,
        max_history: usize,
    ) -> Result<Vec<i64>, StoreError> {
        let pruned = if max_history > 0 {
            self.prune(&release.name, max_history - 1).await?
        } else {
            Vec::new()
        };
        self.create(release).await?;
        Ok(pruned)
    }

    /// Rewrites an existing revision (a new status, say), keeping its `createdAt` label and
    /// guarding against a concurrent writer with the Secret's resourceVersion.
    pub async fn update(&self, release: &Release) -> Result<(), StoreError> {
        let key = checked_key(release)?;
        let current = self
            .api
            .get(&key)
            .await
            .map_err(|e| self.api_error("read for update", &key, e))?;
        let mut secret = to_secret(&key, release, "modifiedAt");
        let labels = secret.metadata.labels.get_or_insert_default();
        if let Some(created) = current
            .metadata
            .labels
            .as_ref()
            .and_then(|l| l.get("createdAt"))
        {
            labels.insert("createdAt".to_string(), created.clone());
        }
        secret.metadata.resource_version = current.metadata.resource_version;
        self.api
            .replace(&key, &PostParams::default(), &secret)
            .await
            .map_err(|e| self.api_error("update", &key, e))?;
        Ok(())
    }

    /// Every stored revision of a release, oldest first (Helm's `History`).
    pub async fn history(&self, name: &str) -> Result<History, StoreError> {
        self.query(name, &format!("name={name},owner=helm")).await
    }

    /// The newest revision, whatever its status (Helm's `Last`).
    pub async fn last(&self, name: &str) -> Result<Option<Release>, StoreError> {
        Ok(self.history(name).await?.releases.pop())
    }

    /// The newest revision whose status is `deployed` (Helm's `Deployed`).
    pub async fn deployed(&self, name: &str) -> Result<Option<Release>, StoreError> {
        let mut found = self
            .query(name, &format!("name={name},owner=helm,status=deployed"))
            .await?;
        Ok(found.releases.pop())
    }

    /// Deletes one revision; `None` when it was not there.
    pub async fn delete(&self, name: &str, version: i64) -> Result<Option<Release>, StoreError> {
        let Some(release) = self.get(name, version).await? else {
            return Ok(None);
        };
        let key = secret_name(name, version);
        match self.api.delete(&key, &DeleteParams::default()).await {
            Ok(_) => Ok(Some(release)),
            Err(e) if crate::kube::is_not_found(&e) => Ok(None),
            Err(e) => Err(self.api_error("delete", &key, e)),
        }
    }

    /// Deletes the oldest revisions until at most `keep` remain, never the newest deployed
    /// one (Helm's `removeLeastRecent`); returns the deleted revisions.
    pub async fn prune(&self, name: &str, keep: usize) -> Result<Vec<i64>, StoreError> {
        let history = self.history(name).await?.releases;
        if history.len() <= keep {
            return Ok(Vec::new());
        }
        let deployed = history
            .iter()
            .rev()
            .find(|r| {
                r.info
                    .as_ref()
                    .is_some_and(|i| i.status == Status::Deployed)
            })
            .map(|r| r.version);
        let excess = history.len() - keep;
        let doomed: Vec<i64> = history
            .iter()
            .map(|r| r.version)
            .filter(|v| Some(*v) != deployed)
            .take(excess)
            .collect();
        for version in &doomed {
            self.delete(name, *version).await?;
        }
        Ok(doomed)
    }

    async fn query(&self, name: &str, selector: &str) -> Result<History, StoreError> {
        let list = self
            .api
            .list(&ListParams::default().labels(selector))
            .await
            .map_err(|source| StoreError::List {
                release: name.to_string(),
                namespace: self.namespace.clone(),
                source: Box::new(source),
            })?;
        let mut history = History::default();
        for secret in &list.items {
            match self.decode_secret(secret) {
                Ok(release) => history.releases.push(release),
                Err(StoreError::Decode { secret, source, .. }) => history.skipped.push(Skipped {
                    secret,
                    error: source,
                }),
                Err(other) => return Err(other),
            }
        }
        history.releases.sort_by_key(|r| r.version);
        Ok(history)
    }

    fn decode_secret(&self, secret: &Secret) -> Result<Release, StoreError> {
        let key = secret.metadata.name.clone().unwrap_or_default();
        let body = secret
            .data
            .as_ref()
            .and_then(|d| d.get("release"))
            .map(|b| b.0.as_slice())
            .unwrap_or_default();
        let mut release = stored_release::decode(body).map_err(|source| StoreError::Decode {
            secret: key,
            namespace: self.namespace.clone(),
            source,
        })?;
        release.labels = secret
            .metadata
            .labels
            .iter()
            .flatten()
            .filter(|(k, _)| !SYSTEM_LABELS.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        Ok(release)
    }
}

fn checked_key(release: &Release) -> Result<String, StoreError> {
    if release.name.is_empty() || release.version < 1 {
        return Err(StoreError::Incomplete {
            name: release.name.clone(),
            version: release.version,
        });
    }
    Ok(secret_name(&release.name, release.version))
}

/// The Secret Helm's driver builds: the release's own labels, then Helm's, which win.
fn to_secret(key: &str, release: &Release, stamp_label: &str) -> Secret {
    let mut labels: BTreeMap<String, String> = release.labels.clone();
    let now = k8s_openapi::jiff::Timestamp::now().as_second();
    labels.insert(stamp_label.to_string(), now.to_string());
    labels.insert("name".to_string(), release.name.clone());
    labels.insert("owner".to_string(), "helm".to_string());
    let status = release
        .info
        .as_ref()
        .map(|i| i.status.as_str())
        .unwrap_or("");
    labels.insert("status".to_string(), status.to_string());
    labels.insert("version".to_string(), release.version.to_string());
    Secret {
        metadata: ObjectMeta {
            name: Some(key.to_string()),
            labels: Some(labels),
            ..ObjectMeta::default()
        },
        type_: Some(SECRET_TYPE.to_string()),
        data: Some(BTreeMap::from([(
            "release".to_string(),
            ByteString(stored_release::encode(release).into_bytes()),
        )])),
        ..Secret::default()
    }
}
