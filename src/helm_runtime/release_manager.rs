//! What the helm-operator's reconciler does with one release, without the controller around
//! it: decide (install, upgrade, or re-apply), then install, upgrade, reconcile or uninstall,
//! with Helm's storage, hooks, kind orders and ownership marks, so that real Helm and the Go
//! helm-operator can read, upgrade and uninstall what this writes, and the other way round.
//!
//! The flows follow operator-sdk v1.42's `internal/helm/release` manager over Helm's actions:
//! - `sync` deletes every stored revision that is not `deployed` (a failed or interrupted
//!   install is then retried, and history stays bounded: the deployed revision, plus the one it
//!   superseded until the next sync), and plans an upgrade only when the candidate manifest or
//!   the values differ from the deployed release;
//! - a failed install is marked failed and then uninstalled (hooks, objects, release records);
//! - a failed upgrade is marked failed and rolled back to the deployed revision (a new revision,
//!   as `helm rollback` makes it);
//! - a reconcile of an unchanged release re-applies its manifest, putting back what was edited
//!   or deleted by hand, without a new revision;
//! - every object and hook gets the operator's labels and is tied to the custom resource (an
//!   owner reference where the garbage collector honours one, annotations elsewhere).
//!
//! Unlike Helm, objects are written by server-side apply (field manager `operator-rs`, forcing
//! conflicts), so the cluster's defaults and other managers' fields stay while the release's
//! own fields are put back. Hooks are created, as Helm creates them.
//!
//! Templates of an install or upgrade `lookup` live objects; the render that decides whether
//! to upgrade does so only with watches.yaml's `dryRunOption: server`, as in Helm's dry run (so
//! a chart that generates what it does not find upgrades on every sync, there as here).

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::jiff::Timestamp;
use serde_json::{Map, Value};
use thiserror::Error;
use tokio::time::Instant;

use super::hooks::{self, HookContext, HookError};
use super::release_objects::{self, ObjectError, Owner, Unserved};
use super::release_store::{ReleaseStore, StoreError};
use super::stored_release::{self, Hook, Info, Release, Status};
use super::watches::DryRun;
use crate::kube::{Cluster, KubeError, Outcome, Ownership, WriteMode};
use crate::manifests::Manifest;
use crate::render::capabilities::Capabilities;
use crate::render::engine;
use crate::render::funcs::{Lookup, NoCluster};
use crate::render::manifests::{UNINSTALL_ORDER, kind_order_in};
use crate::render::release::{self as render_release, Options, Rendered};
use crate::render::tree::ChartNode;
use crate::render::values::Values;

/// Helm's default `--timeout`, for each hook and each wait of one.
pub const DEFAULT_HOOK_TIMEOUT: Duration = Duration::from_secs(300);
/// How long Helm waits for the CRDs of `crds/` to become Established.
pub const CRD_TIMEOUT: Duration = Duration::from_secs(60);
/// Helm refuses longer release names: object names made from them would not fit.
pub const MAX_RELEASE_NAME: usize = 53;

#[derive(Debug, Error)]
pub enum ManagerError {
    #[error("release name \"{name}\" is invalid: {rule} (Helm's rule; for example \"my-release\")")]
    InvalidName { name: String, rule: &'static str },
    #[error("cannot render chart {chart} for release \"{release}\": {source}")]
    Render {
        chart: String,
        release: String,
        #[source]
        source: Box<render_release::ReleaseError>,
    },
    #[error("rendering release \"{release}\" was interrupted: the runtime is shutting down")]
    Interrupted { release: String },
    #[error(transparent)]
    Object(#[from] ObjectError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Hook(#[from] HookError),
    #[error("release \"{release}\": {source}")]
    Kube {
        release: String,
        // Boxed: kube's errors are large. The error names the request and the API's answer.
        #[source]
        source: Box<KubeError>,
    },
    #[error(
        "cannot put {object} into release \"{release}\": it exists and belongs to no release of that name ({problem}); delete it, or give it Helm's label and annotations for this release"
    )]
    Foreign {
        release: String,
        object: String,
        problem: String,
    },
    #[error(
        "release \"{release}\" revision {version} is {status}: another install, upgrade or rollback is in progress"
    )]
    InProgress {
        release: String,
        version: i64,
        status: String,
    },
    #[error(
        "release \"{release}\" in namespace \"{namespace}\" belongs to chart \"{found}\", not \"{chart}\": two charts cannot share a release name (rename the custom resource)"
    )]
    OtherChart {
        release: String,
        namespace: String,
        found: String,
        chart: String,
    },
    #[error("install of release \"{release}\" failed: {cause}{cleanup}")]
    InstallFailed {
        release: String,
        cause: Box<ManagerError>,
        /// Empty when the failed install was cleaned up.
        cleanup: String,
    },
    #[error("upgrade of release \"{release}\" to revision {version} failed: {cause}{rollback}")]
    UpgradeFailed {
        release: String,
        version: i64,
        cause: Box<ManagerError>,
        /// What the rollback after it did, when [`ReleaseManager::ensure`] rolled back.
        rollback: String,
    },
    #[error("rollback of release \"{release}\" to revision {version} failed: {cause}")]
    RollbackFailed {
        release: String,
        version: i64,
        cause: Box<ManagerError>,
    },
    #[error(
        "release \"{release}\" has no revision {version} to roll back to (revisions stored: {stored})"
    )]
    NoRevision {
        release: String,
        version: i64,
        stored: String,
    },
    #[error(
        "release \"{release}\" revision {version} would be stored in a Secret of {size} bytes ({size_mib:.2} MiB), over Kubernetes' limit of {limit} bytes (1 MiB) for a Secret's data; nothing was applied. Make the chart's stored form smaller: move large files out of the chart (into an image, or a ConfigMap the chart does not carry), drop files the templates do not use (.helmignore), or shorten the values of the custom resource"
    )]
    TooLarge {
        release: String,
        version: i64,
        size: usize,
        size_mib: f64,
        limit: usize,
    },
    #[error("uninstall of release \"{release}\" finished with errors: {}", errors.join("; "))]
    UninstallIncomplete {
        release: String,
        errors: Vec<String>,
    },
}

impl ManagerError {
    /// True when the failure is an API server's answer that will not change until someone
    /// acts (a refusal, an invalid object, a kind that is gone); anything else, the server
    /// being away or busy included, may pass by itself.
    pub fn is_lasting_refusal(&self) -> bool {
        match self {
            ManagerError::Kube { source, .. } => !source.is_transient(),
            ManagerError::Store(
                StoreError::Api { source, .. } | StoreError::List { source, .. },
            ) => {
                !crate::kube::Reason::of(source).is_transient()
                    && !matches!(crate::kube::Reason::of(source), crate::kube::Reason::Other)
            }
            ManagerError::Hook(HookError::Api { source, .. }) => !source.is_transient(),
            // The same chart and values make the same release: only a change helps.
            ManagerError::TooLarge { .. } => true,
            ManagerError::InstallFailed { cause, .. }
            | ManagerError::UpgradeFailed { cause, .. }
            | ManagerError::RollbackFailed { cause, .. } => cause.is_lasting_refusal(),
            _ => false,
        }
    }
}

/// The most a Secret's data may hold (the API server's `MaxSecretSize`): a release Helm's
/// way stores in one Secret must fit, or its write is refused after objects were applied.
pub const SECRET_DATA_LIMIT: usize = 1024 * 1024;

/// Refuses a release whose Secret would pass [`SECRET_DATA_LIMIT`], before it is stored and
/// before any of its objects is applied.
fn check_size(release: &Release) -> Result<(), ManagerError> {
    let size = stored_release::encode(release).len();
    if size <= SECRET_DATA_LIMIT {
        return Ok(());
    }
    Err(ManagerError::TooLarge {
        release: release.name.clone(),
        version: release.version,
        size,
        size_mib: size as f64 / SECRET_DATA_LIMIT as f64,
        limit: SECRET_DATA_LIMIT,
    })
}

/// How a manager renders and waits.
#[derive(Debug, Clone)]
pub struct Settings {
    /// `.Capabilities` for rendering.
    pub capabilities: Capabilities,
    pub hook_timeout: Duration,
    /// Labels put on every object and hook (the helm-operator's
    /// `helm.sdk.operatorframework.io/chart`).
    pub labels: BTreeMap<String, String>,
    /// The custom resource every object and hook is tied to (owner reference or annotations).
    pub owner: Option<Owner>,
    /// How the render that decides on an upgrade sees the cluster (watches.yaml's
    /// `dryRunOption`); installs and upgrades themselves always see it.
    pub dry_run: DryRun,
    /// Helm's `--force` on upgrades (the helm-operator's `upgrade-force` annotation): the
    /// objects are replaced whole instead of applied, so fields others added are dropped.
    pub force_upgrade: bool,
}

impl Settings {
    pub fn new(capabilities: Capabilities) -> Settings {
        Settings {
            capabilities,
            hook_timeout: DEFAULT_HOOK_TIMEOUT,
            labels: BTreeMap::new(),
            owner: None,
            force_upgrade: false,
            dry_run: DryRun::Client,
        }
    }
}

/// What a sync found the release needs.
#[derive(Debug)]
pub enum Plan {
    Install,
    Upgrade {
        deployed: Box<Release>,
    },
    /// Nothing changed: re-apply the deployed manifest.
    Reconcile {
        deployed: Box<Release>,
    },
}

/// What [`ReleaseManager::ensure`] did.
#[derive(Debug)]
pub enum Ensured {
    Installed(Box<Release>),
    Upgraded {
        previous: Box<Release>,
        release: Box<Release>,
    },
    Reconciled {
        release: Box<Release>,
        /// Each object of the manifest and what the apply did to it.
        applied: Vec<(String, Outcome)>,
    },
}

/// One release of one chart in one namespace.
pub struct ReleaseManager {
    chart: Arc<ChartNode>,
    name: String,
    namespace: String,
    settings: Settings,
}

impl ReleaseManager {
    pub fn new(
        chart: Arc<ChartNode>,
        name: &str,
        namespace: &str,
        settings: Settings,
    ) -> Result<ReleaseManager, ManagerError> {
        if let Some(rule) = release_name_problem(name) {
            return Err(ManagerError::InvalidName {
                name: name.to_string(),
                rule,
            });
        }
        Ok(ReleaseManager {
            chart,
            name: name.to_string(),
            namespace: namespace.to_string(),
            settings,
        })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    fn store(&self, cluster: &Cluster) -> ReleaseStore {
        ReleaseStore::new(cluster.client().clone(), &self.namespace)
    }

    fn kube(&self, source: KubeError) -> ManagerError {
        ManagerError::Kube {
            release: self.name.clone(),
            source: Box::new(source),
        }
    }

    /// Syncs, then installs, upgrades or re-applies, as the helm-operator's reconcile does.
    pub async fn ensure(
        &self,
        cluster: &mut Cluster,
        values: &Values,
    ) -> Result<Ensured, ManagerError> {
        match self.sync(cluster, values).await? {
            Plan::Install => Ok(Ensured::Installed(Box::new(
                self.install(cluster, values).await?,
            ))),
            Plan::Upgrade { deployed } => match self.upgrade(cluster, &deployed, values).await {
                Ok(release) => Ok(Ensured::Upgraded {
                    previous: deployed,
                    release: Box::new(release),
                }),
                // A recorded, failed upgrade is rolled back, as the helm-operator does; the
                // error is still the upgrade's.
                Err(ManagerError::UpgradeFailed {
                    release,
                    version,
                    cause,
                    ..
                }) => {
                    let rollback = match self.rollback(cluster).await {
                        Ok(back) => format!(
                            "; rolled back to revision {} as revision {}",
                            deployed.version, back.version
                        ),
                        Err(e) => format!("; rolling back failed too: {e}"),
                    };
                    Err(ManagerError::UpgradeFailed {
                        release,
                        version,
                        cause,
                        rollback,
                    })
                }
                Err(other) => Err(other),
            },
            Plan::Reconcile { deployed } => {
                let applied = self.reconcile(cluster, &deployed).await?;
                Ok(Ensured::Reconciled {
                    release: deployed,
                    applied,
                })
            }
        }
    }

    /// Removes every revision that is not deployed, then says what the release needs.
    pub async fn sync(&self, cluster: &mut Cluster, values: &Values) -> Result<Plan, ManagerError> {
        let store = self.store(cluster);
        let history = store.history(&self.name).await?;
        if let Some(found) = history
            .releases
            .first()
            .and_then(|r| r.chart.as_ref())
            .and_then(|c| c.metadata.as_ref())
            .map(|m| m.name.clone())
            .filter(|found| found != self.chart.name())
        {
            return Err(ManagerError::OtherChart {
                release: self.name.clone(),
                namespace: self.namespace.clone(),
                found,
                chart: self.chart.name().to_string(),
            });
        }
        for release in &history.releases {
            if release
                .info
                .as_ref()
                .is_some_and(|i| i.status != Status::Deployed)
            {
                store.delete(&self.name, release.version).await?;
            }
        }
        let Some(deployed) = store.deployed(&self.name).await? else {
            return Ok(Plan::Install);
        };
        let live = self.settings.dry_run == DryRun::Server;
        let candidate = self
            .render(
                cluster,
                values,
                deployed.version + 1,
                false,
                live,
                self.capabilities(cluster)?,
            )
            .await?;
        let deployed = Box::new(deployed);
        if manifest_text(&candidate) != deployed.manifest || deployed.config != *values {
            Ok(Plan::Upgrade { deployed })
        } else {
            Ok(Plan::Reconcile { deployed })
        }
    }

    /// Renders on a blocking thread: templates are CPU work, and with `live` their `lookup`s
    /// wait on the cluster. `live` off, lookups find nothing (Helm's client-side dry run).
    async fn render(
        &self,
        cluster: &Cluster,
        values: &Values,
        revision: i64,
        is_install: bool,
        live: bool,
        capabilities: Capabilities,
    ) -> Result<Rendered, ManagerError> {
        let lookup: Arc<dyn Lookup> = match cluster.live_lookup() {
            Some(lookup) if live => Arc::new(lookup),
            _ => Arc::new(NoCluster),
        };
        let options = Options {
            release: engine::Release {
                name: self.name.clone(),
                namespace: self.namespace.clone(),
                revision,
                is_install,
                is_upgrade: !is_install,
            },
            capabilities,
            lookup,
        };
        let (chart, values) = (self.chart.clone(), values.clone());
        let rendered =
            tokio::task::spawn_blocking(move || render_release::render(&chart, &values, &options))
                .await;
        match rendered {
            Ok(result) => result.map_err(|source| ManagerError::Render {
                chart: self.chart.name().to_string(),
                release: self.name.clone(),
                source: Box::new(source),
            }),
            // A panic in the engine is a bug: let it surface as one.
            Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
            Err(_) => Err(ManagerError::Interrupted {
                release: self.name.clone(),
            }),
        }
    }

    fn hook_context<'a>(&'a self, store: &'a ReleaseStore) -> HookContext<'a> {
        HookContext {
            store,
            namespace: &self.namespace,
            labels: &self.settings.labels,
            owner: self.settings.owner.as_ref(),
            timeout: self.settings.hook_timeout,
        }
    }

    /// Installs revision 1. A failure once the release is stored marks it failed, then
    /// uninstalls it, so that nothing is left and the next sync installs afresh.
    pub async fn install(
        &self,
        cluster: &mut Cluster,
        values: &Values,
    ) -> Result<Release, ManagerError> {
        let store = self.store(cluster);
        self.install_crds(cluster).await?;
        let capabilities = self.capabilities(cluster)?;
        let rendered = self
            .render(cluster, values, 1, true, true, capabilities)
            .await?;
        let objects = self
            .release_objects(cluster, &manifest_text(&rendered))
            .await?;
        self.refuse_foreign(cluster, &objects, &HashSet::new())
            .await?;

        let now = Timestamp::now();
        let mut release = self.record(&rendered, values, 1);
        release.info = Some(Info {
            first_deployed: Some(now),
            last_deployed: Some(now),
            status: Status::PendingInstall,
            description: "Initial install underway".to_string(),
            notes: rendered.notes.clone(),
            ..Info::default()
        });
        check_size(&release)?;
        store.create(&release).await?;

        match self
            .perform(cluster, &store, &mut release, &objects, "install", &[])
            .await
        {
            Ok(()) => {
                set_status(&mut release, Status::Deployed, "Install complete");
                store.update(&release).await?;
                Ok(release)
            }
            Err(cause) => {
                let description = format!("Release \"{}\" failed: {cause}", self.name);
                set_status(&mut release, Status::Failed, &description);
                // The release is uninstalled next: a failure to record the failure changes
                // nothing that matters.
                let _ = store.update(&release).await;
                let cleanup = match self.uninstall(cluster).await {
                    Ok(_) => String::new(),
                    Err(e) => format!("; cleaning up after it failed too: {e}"),
                };
                Err(ManagerError::InstallFailed {
                    release: self.name.clone(),
                    cause: Box::new(cause),
                    cleanup,
                })
            }
        }
    }

    /// Hooks before, the objects, hooks after; `obsolete` objects are deleted after the new
    /// ones are applied (what an upgrade no longer renders).
    async fn perform(
        &self,
        cluster: &mut Cluster,
        store: &ReleaseStore,
        release: &mut Release,
        objects: &[Manifest],
        operation: &str,
        obsolete: &[Manifest],
    ) -> Result<(), ManagerError> {
        let context = self.hook_context(store);
        hooks::run(cluster, &context, release, &format!("pre-{operation}")).await?;
        let replace = operation == "upgrade" && self.settings.force_upgrade;
        self.write_all(cluster, objects, replace).await?;
        for object in obsolete {
            cluster.delete(object).await.map_err(|e| self.kube(e))?;
        }
        hooks::run(cluster, &context, release, &format!("post-{operation}")).await?;
        Ok(())
    }

    /// The CRDs of `crds/` (the chart's and its subcharts').
    fn chart_crds(&self) -> Result<Vec<Manifest>, ManagerError> {
        let mut crds = Vec::new();
        for (path, data) in self.chart.crd_files() {
            crds.extend(release_objects::parse(
                &path,
                &String::from_utf8_lossy(data),
            )?);
        }
        Ok(crds)
    }

    /// `.Capabilities` for a render: the settings', plus the kinds of the chart's `crds/` that
    /// the cluster serves, since Helm reads capabilities after installing those CRDs.
    fn capabilities(&self, cluster: &Cluster) -> Result<Capabilities, ManagerError> {
        let mut capabilities = self.settings.capabilities.clone();
        for crd in self.chart_crds()? {
            for (api_version, kind) in served_kinds(&crd) {
                let (group, version) = crate::manifests::split_api_version(&api_version);
                if cluster.lookup(group, version, &kind).is_none() {
                    continue;
                }
                for entry in [api_version.clone(), format!("{api_version}/{kind}")] {
                    if !capabilities.has(&entry) {
                        capabilities.api_versions.push(entry);
                    }
                }
            }
        }
        Ok(capabilities)
    }

    /// The CRDs of `crds/`, created unless they exist, then waited for until Established and
    /// their kinds discovered, as Helm installs them: never updated, never deleted.
    async fn install_crds(&self, cluster: &mut Cluster) -> Result<(), ManagerError> {
        let mut crds = self.chart_crds()?;
        if crds.is_empty() {
            return Ok(());
        }
        release_objects::place(cluster, &mut crds, &self.namespace, Unserved::Refuse)
            .await
            .map_err(|e| self.kube(e))?;
        let mut created = Vec::new();
        for crd in &mut crds {
            self.tie(crd);
            match cluster.create(crd).await {
                Ok(_) => created.push(crd.name().to_string()),
                Err(KubeError::Api { message, .. }) if message.contains("already exists") => {}
                Err(e) => return Err(self.kube(e)),
            }
        }
        let deadline = Instant::now() + CRD_TIMEOUT;
        let waited = crate::duration::display(CRD_TIMEOUT);
        for name in &created {
            cluster
                .wait_established(name, deadline, &waited)
                .await
                .map_err(|e| self.kube(e))?;
        }
        // One probe per kind and version, for discovery to learn what the CRDs serve.
        let probes: Vec<Manifest> = crds
            .iter()
            .flat_map(served_kinds)
            .map(|(api_version, kind)| Manifest {
                origin: crate::manifests::Origin::Cluster,
                object: serde_json::json!({
                    "apiVersion": api_version, "kind": kind, "metadata": {"name": "-"}
                }),
            })
            .collect();
        let probes: Vec<&Manifest> = probes.iter().collect();
        cluster
            .discover_missing(&probes)
            .await
            .map_err(|e| self.kube(e))
    }

    /// A manifest's objects, placed in the namespace and marked as the release's.
    async fn release_objects(
        &self,
        cluster: &mut Cluster,
        manifest: &str,
    ) -> Result<Vec<Manifest>, ManagerError> {
        let mut objects = release_objects::parse_manifest(manifest)?;
        release_objects::place(cluster, &mut objects, &self.namespace, Unserved::Refuse)
            .await
            .map_err(|e| self.kube(e))?;
        for object in &mut objects {
            release_objects::mark_owned(object, &self.name, &self.namespace);
            self.tie(object);
        }
        Ok(objects)
    }

    /// The labels and owner of every object the release writes.
    fn tie(&self, object: &mut Manifest) {
        release_objects::add_labels(object, &self.settings.labels);
        if let Some(owner) = &self.settings.owner {
            release_objects::set_owner(object, owner);
        }
    }

    /// Refuses to take over objects that exist without this release's marks, as Helm does
    /// (objects in `known`, already part of the deployed release, are not asked about).
    async fn refuse_foreign(
        &self,
        cluster: &Cluster,
        objects: &[Manifest],
        known: &HashSet<(String, String, Option<String>, String)>,
    ) -> Result<(), ManagerError> {
        for object in objects {
            if known.contains(&release_objects::identity(object)) {
                continue;
            }
            let Some(existing) = cluster.get(object).await.map_err(|e| self.kube(e))? else {
                continue;
            };
            if let Some(problem) =
                release_objects::foreign_ownership(&existing, &self.name, &self.namespace)
            {
                return Err(ManagerError::Foreign {
                    release: self.name.clone(),
                    object: object.display_name(),
                    problem,
                });
            }
        }
        Ok(())
    }

    /// Applies each object (server-side, taking over conflicting fields), or with `replace`
    /// writes it whole, as Helm's forced update does.
    async fn write_all(
        &self,
        cluster: &Cluster,
        objects: &[Manifest],
        replace: bool,
    ) -> Result<Vec<(String, Outcome)>, ManagerError> {
        let mut applied = Vec::with_capacity(objects.len());
        for object in objects {
            let result = if replace {
                cluster.replace(object).await
            } else {
                cluster
                    .apply(object, WriteMode::Persist, Ownership::Force)
                    .await
            }
            .map_err(|e| self.kube(e))?;
            applied.push((object.display_name(), result.outcome));
        }
        Ok(applied)
    }

    /// The release as stored: chart, values, manifest and hooks of a render.
    fn record(&self, rendered: &Rendered, values: &Values, version: i64) -> Release {
        Release {
            name: self.name.clone(),
            info: None,
            chart: Some(chart_record(&self.chart)),
            config: values.clone(),
            manifest: manifest_text(rendered),
            hooks: rendered.hooks.iter().map(hook_record).collect(),
            version,
            namespace: self.namespace.clone(),
            ..Release::default()
        }
    }

    /// Upgrades `deployed` to a new revision of the current chart and values: the old one
    /// superseded, objects it had and the new one lacks deleted (unless kept by policy).
    pub async fn upgrade(
        &self,
        cluster: &mut Cluster,
        deployed: &Release,
        values: &Values,
    ) -> Result<Release, ManagerError> {
        let store = self.store(cluster);
        let last = store.last(&self.name).await?;
        let version = last.as_ref().map_or(deployed.version, |l| l.version) + 1;
        if let Some(info) = last.as_ref().and_then(|l| l.info.as_ref())
            && info.status.is_pending()
        {
            return Err(ManagerError::InProgress {
                release: self.name.clone(),
                version: version - 1,
                status: info.status.as_str().to_string(),
            });
        }
        let rendered = self
            .render(
                cluster,
                values,
                version,
                false,
                true,
                self.capabilities(cluster)?,
            )
            .await?;
        let objects = self
            .release_objects(cluster, &manifest_text(&rendered))
            .await?;
        let mut release = self.record(&rendered, values, version);
        release.info = Some(Info {
            first_deployed: deployed.info.as_ref().and_then(|i| i.first_deployed),
            last_deployed: Some(Timestamp::now()),
            status: Status::PendingUpgrade,
            description: "Preparing upgrade".to_string(),
            notes: rendered.notes.clone(),
            ..Info::default()
        });
        check_size(&release)?;
        let obsolete = self
            .replace_objects(cluster, &deployed.manifest, &objects)
            .await?;
        store.create(&release).await?;

        let performed = self
            .perform(
                cluster,
                &store,
                &mut release,
                &objects,
                "upgrade",
                &obsolete,
            )
            .await;
        if let Err(cause) = performed {
            let description = format!("Upgrade \"{}\" failed: {cause}", self.name);
            set_status(&mut release, Status::Failed, &description);
            // The error below says what failed; the record is for `helm history`.
            let _ = store.update(&release).await;
            return Err(ManagerError::UpgradeFailed {
                release: self.name.clone(),
                version,
                cause: Box::new(cause),
                rollback: String::new(),
            });
        }
        // Helm keeps the old description ("Install complete") on a superseded revision.
        let mut superseded = deployed.clone();
        set_status(&mut superseded, Status::Superseded, "");
        store.update(&superseded).await?;
        set_status(&mut release, Status::Deployed, "Upgrade complete");
        store.update(&release).await?;
        Ok(release)
    }

    /// Going from the objects of `current_manifest` to `objects`: refuses to take over
    /// foreign objects among the new ones, and returns the old ones to delete afterwards (those
    /// not rendered any more, unless kept by policy).
    async fn replace_objects(
        &self,
        cluster: &mut Cluster,
        current_manifest: &str,
        objects: &[Manifest],
    ) -> Result<Vec<Manifest>, ManagerError> {
        let mut current = release_objects::parse_manifest(current_manifest)?;
        release_objects::place(cluster, &mut current, &self.namespace, Unserved::Skip)
            .await
            .map_err(|e| self.kube(e))?;
        let known: HashSet<_> = current.iter().map(release_objects::identity).collect();
        self.refuse_foreign(cluster, objects, &known).await?;
        let wanted: HashSet<_> = objects.iter().map(release_objects::identity).collect();
        Ok(current
            .into_iter()
            .filter(|o| !wanted.contains(&release_objects::identity(o)))
            .filter(|o| !release_objects::is_kept(o))
            .collect())
    }

    /// Helm's rollback to the revision before the newest: a new revision with that one's
    /// chart, values, manifest and hooks, its objects applied (what only the newest had is
    /// deleted), every deployed revision superseded.
    pub async fn rollback(&self, cluster: &mut Cluster) -> Result<Release, ManagerError> {
        let store = self.store(cluster);
        let history = store.history(&self.name).await?.releases;
        let stored = || {
            let versions: Vec<String> = history.iter().map(|r| r.version.to_string()).collect();
            if versions.is_empty() {
                "none".to_string()
            } else {
                versions.join(", ")
            }
        };
        let current = history.last().cloned();
        let version = current.as_ref().map_or(0, |c| c.version - 1);
        let (Some(mut current), Some(previous)) =
            (current, history.iter().find(|r| r.version == version))
        else {
            return Err(ManagerError::NoRevision {
                release: self.name.clone(),
                version,
                stored: stored(),
            });
        };
        let previous_info = previous.info.clone().unwrap_or_default();
        let mut target = Release {
            name: self.name.clone(),
            namespace: self.namespace.clone(),
            chart: previous.chart.clone(),
            config: previous.config.clone(),
            info: Some(Info {
                first_deployed: current.info.as_ref().and_then(|i| i.first_deployed),
                last_deployed: Some(Timestamp::now()),
                status: Status::PendingRollback,
                notes: previous_info.notes,
                description: format!("Rollback to {version}"),
                ..Info::default()
            }),
            version: current.version + 1,
            labels: previous.labels.clone(),
            manifest: previous.manifest.clone(),
            hooks: previous.hooks.clone(),
            ..Release::default()
        };
        let objects = self.release_objects(cluster, &target.manifest).await?;
        let obsolete = self
            .replace_objects(cluster, &current.manifest, &objects)
            .await?;
        store.create(&target).await?;

        let performed = self
            .perform(
                cluster,
                &store,
                &mut target,
                &objects,
                "rollback",
                &obsolete,
            )
            .await;
        if let Err(cause) = performed {
            // Helm's records of a failed rollback; the error says what went wrong.
            set_status(&mut current, Status::Superseded, "");
            let _ = store.update(&current).await;
            let description = format!("Rollback \"{}\" failed: {cause}", self.name);
            set_status(&mut target, Status::Failed, &description);
            let _ = store.update(&target).await;
            return Err(ManagerError::RollbackFailed {
                release: self.name.clone(),
                version,
                cause: Box::new(cause),
            });
        }
        for revision in &history {
            if revision
                .info
                .as_ref()
                .is_some_and(|i| i.status == Status::Deployed)
            {
                let mut superseded = revision.clone();
                set_status(&mut superseded, Status::Superseded, "");
                store.update(&superseded).await?;
            }
        }
        set_status(&mut target, Status::Deployed, "");
        store.update(&target).await?;
        Ok(target)
    }

    /// Re-applies the deployed manifest: objects deleted by hand come back, fields edited by
    /// hand are put back; no new revision.
    pub async fn reconcile(
        &self,
        cluster: &mut Cluster,
        deployed: &Release,
    ) -> Result<Vec<(String, Outcome)>, ManagerError> {
        let objects = self.release_objects(cluster, &deployed.manifest).await?;
        self.write_all(cluster, &objects, false).await
    }

    /// Uninstalls the release: pre-delete hooks, its objects in Helm's uninstall order (those
    /// kept by policy stay), post-delete hooks, then every stored revision. `None` when there
    /// is no such release.
    pub async fn uninstall(&self, cluster: &mut Cluster) -> Result<Option<Release>, ManagerError> {
        let store = self.store(cluster);
        let history = store.history(&self.name).await?.releases;
        let Some(mut release) = history.last().cloned() else {
            return Ok(None);
        };
        let already = release
            .info
            .as_ref()
            .is_some_and(|i| i.status == Status::Uninstalled);
        if !already {
            if let Some(info) = release.info.as_mut() {
                info.status = Status::Uninstalling;
                info.deleted = Some(Timestamp::now());
                info.description = "Deletion in progress (or silently failed)".to_string();
            }
            let context = self.hook_context(&store);
            hooks::run(cluster, &context, &mut release, "pre-delete").await?;
            // Helm goes on when this record fails: the deletions below matter more.
            let _ = store.update(&release).await;

            let mut errors = Vec::new();
            if let Err(e) = self.delete_objects(cluster, &release.manifest).await {
                errors.push(e.to_string());
            }
            if let Err(e) = hooks::run(cluster, &context, &mut release, "post-delete").await {
                errors.push(e.to_string());
            }
            set_status(&mut release, Status::Uninstalled, "Uninstallation complete");
            for revision in &history {
                if let Err(e) = store.delete(&self.name, revision.version).await {
                    errors.push(e.to_string());
                }
            }
            if !errors.is_empty() {
                return Err(ManagerError::UninstallIncomplete {
                    release: self.name.clone(),
                    errors,
                });
            }
            return Ok(Some(release));
        }
        for revision in &history {
            store.delete(&self.name, revision.version).await?;
        }
        Ok(Some(release))
    }

    async fn delete_objects(
        &self,
        cluster: &mut Cluster,
        manifest: &str,
    ) -> Result<(), ManagerError> {
        let mut objects = release_objects::parse_manifest(manifest)?;
        release_objects::place(cluster, &mut objects, &self.namespace, Unserved::Skip)
            .await
            .map_err(|e| self.kube(e))?;
        objects.retain(|o| !release_objects::is_kept(o));
        objects.sort_by(|a, b| kind_order_in(UNINSTALL_ORDER, a.kind(), b.kind()));
        for object in &objects {
            cluster.delete(object).await.map_err(|e| self.kube(e))?;
        }
        Ok(())
    }
}

/// `(group/version, Kind)` of every version a CRD serves.
fn served_kinds(crd: &Manifest) -> Vec<(String, String)> {
    let spec = &crd.object["spec"];
    let group = spec["group"].as_str().unwrap_or_default();
    let kind = spec
        .pointer("/names/kind")
        .and_then(Value::as_str)
        .unwrap_or_default();
    spec["versions"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|v| v["served"] != Value::Bool(false))
        .map(|v| {
            let version = v["name"].as_str().unwrap_or_default();
            (format!("{group}/{version}"), kind.to_string())
        })
        .collect()
}

fn set_status(release: &mut Release, status: Status, description: &str) {
    let info = release.info.get_or_insert_with(Info::default);
    info.status = status;
    if !description.is_empty() {
        info.description = description.to_string();
    }
}

/// The manifest Helm stores: each object under a `# Source:` line, in install order.
pub fn manifest_text(rendered: &Rendered) -> String {
    let mut out = String::new();
    for m in &rendered.manifests {
        out.push_str(&format!("---\n# Source: {}\n{}\n", m.template, m.content));
    }
    out
}

fn hook_record(hook: &crate::render::manifests::Hook) -> Hook {
    let mut extra = Map::new();
    if !hook.output_log_policies.is_empty() {
        extra.insert(
            "output_log_policies".into(),
            Value::from(hook.output_log_policies.clone()),
        );
    }
    Hook {
        name: hook.name.clone(),
        kind: hook.kind.clone(),
        path: hook.template.clone(),
        manifest: hook.content.clone(),
        events: hook.events.clone(),
        weight: hook.weight,
        delete_policies: hook.delete_policies.clone(),
        extra,
        ..Hook::default()
    }
}

/// The chart as Helm stores it with a release: Chart.yaml, the top chart's templates, values,
/// schema and other files (subcharts are not part of Helm's stored chart).
fn chart_record(chart: &ChartNode) -> stored_release::Chart {
    let m = &chart.metadata;
    let mut extra = Map::new();
    let mut put = |key: &str, value: Value| {
        let empty = match &value {
            Value::String(s) => s.is_empty(),
            Value::Array(a) => a.is_empty(),
            Value::Bool(b) => !b,
            Value::Null => true,
            _ => false,
        };
        if !empty {
            extra.insert(key.to_string(), value);
        }
    };
    put("home", Value::from(m.home.clone()));
    put("sources", Value::from(m.sources.clone()));
    put("keywords", Value::from(m.keywords.clone()));
    put("icon", Value::from(m.icon.clone()));
    put("condition", Value::from(m.condition.clone()));
    put("tags", Value::from(m.tags.clone()));
    put("deprecated", Value::from(m.deprecated));
    put("kubeVersion", Value::from(m.kube_version.clone()));
    put("type", Value::from(m.chart_type.clone()));
    if let Some(annotations) = &m.annotations {
        put(
            "annotations",
            serde_json::to_value(annotations).unwrap_or(Value::Null),
        );
    }
    let maintainers: Vec<Value> = m
        .maintainers
        .iter()
        .map(|x| {
            let mut o = Map::new();
            for (k, v) in [("name", &x.name), ("email", &x.email), ("url", &x.url)] {
                if !v.is_empty() {
                    o.insert(k.into(), Value::from(v.clone()));
                }
            }
            Value::Object(o)
        })
        .collect();
    put("maintainers", Value::Array(maintainers));
    let file = |f: &crate::render::tree::File| stored_release::File {
        name: f.name.clone(),
        data: f.data.to_vec(),
        ..stored_release::File::default()
    };
    stored_release::Chart {
        metadata: Some(stored_release::Metadata {
            name: m.name.clone(),
            version: m.version.clone(),
            description: m.description.clone(),
            api_version: m.api_version.clone(),
            app_version: m.app_version.clone(),
            extra,
        }),
        templates: chart.templates.iter().map(file).collect(),
        values: chart.values.clone(),
        schema: chart.schema.as_ref().map(|s| s.bytes().to_vec()),
        files: chart.files.iter().map(file).collect(),
        extra: Map::new(),
    }
}

/// Helm's release name rule, or `None` when `name` follows it.
fn release_name_problem(name: &str) -> Option<&'static str> {
    if name.is_empty() {
        return Some("it is empty");
    }
    if name.len() > MAX_RELEASE_NAME {
        return Some("it is longer than 53 characters");
    }
    for label in name.split('.') {
        let bytes = label.as_bytes();
        let allowed = |b: &u8| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'-';
        let edge = |b: Option<&u8>| b.is_some_and(|b| b.is_ascii_lowercase() || b.is_ascii_digit());
        if bytes.is_empty()
            || !bytes.iter().all(allowed)
            || !edge(bytes.first())
            || !edge(bytes.last())
        {
            return Some(
                "it must be lower-case letters, digits and '-', in dot-separated parts that start and end with a letter or digit",
            );
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn release_names_follow_helms_rule() {
        assert_eq!(release_name_problem("web-1.prod"), None);
        for bad in ["", "Web", "-web", "web-", "a..b", &"a".repeat(54)] {
            assert!(release_name_problem(bad).is_some(), "{bad}");
        }
    }
}
