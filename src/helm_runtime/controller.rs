//! The controller: one kube-runtime controller per watches.yaml entry (and watched namespace)
//! reconciling each custom resource into its Helm release as the helm-operator's reconciler
//! (operator-sdk v1.42) does: the uninstall finalizer, install / upgrade (rolled back when it
//! fails) / re-apply of an unchanged release, uninstall on deletion, the status conditions
//! and `deployedRelease`, the `OverrideValuesInUse` events, and the periodic reconcile.
//!
//! Every release manager needs the one connected [`Cluster`] (its discovery cache grows as
//! charts bring CRDs), so reconciles take turns on it: `maxConcurrentReconciles` bounds the
//! queue's workers, and the cluster lock serialises their work.

use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use futures::future::{BoxFuture, FutureExt, Shared};
use kube::api::{Api, DynamicObject, Patch, PatchParams};
use kube::discovery::ApiResource;
use kube::runtime::controller::{Action, Config as ControllerConfig, Controller};
use kube::runtime::events::{Event, EventType, Recorder, Reporter};
use kube::runtime::reflector::ObjectRef;
use kube::runtime::watcher;
use kube::{Resource, ResourceExt};
use serde_json::{Value, json};
use thiserror::Error;
use tokio::sync::Mutex;
use tokio::sync::mpsc;

use super::dependents::Dependents;
use super::metrics::{self, Metrics};
use super::release_manager::{ManagerError, Plan, ReleaseManager, Settings};
use super::release_objects::{self, Owner, Unserved};
use super::status::{self, Status};
use super::stored_release::Release;
use super::values;
use super::watches::Watch;
use crate::kube::{Cluster, CustomResource, Deleted, Served};
use crate::manifests::Manifest;
use crate::render::capabilities::Capabilities;
use crate::render::tree::ChartNode;

pub const FINALIZER: &str = "helm.sdk.operatorframework.io/uninstall-release";
/// The finalizer of helm-operators before v1.0, still honoured (and removed) on deletion.
pub const LEGACY_FINALIZER: &str = "uninstall-helm-release";
pub const UPGRADE_FORCE_ANNOTATION: &str = "helm.sdk.operatorframework.io/upgrade-force";
pub const UNINSTALL_WAIT_ANNOTATION: &str = "helm.sdk.operatorframework.io/uninstall-wait";
pub const RECONCILE_PERIOD_ANNOTATION: &str = "helm.sdk.operatorframework.io/reconcile-period";
/// The label every object of a release carries, as the helm-operator's client injects it.
pub const CHART_LABEL: &str = "helm.sdk.operatorframework.io/chart";

pub use super::log::Log;

/// What the runtime runs with.
pub struct Options {
    pub watches: Vec<Watch>,
    /// The namespaces watched (`WATCH_NAMESPACE`); empty: all.
    pub namespaces: Vec<String>,
    /// `--reconcile-period`, for entries that set none.
    pub reconcile_period: Duration,
    /// `--max-concurrent-reconciles`, for entries that set none.
    pub max_concurrent_reconciles: usize,
    pub log: Log,
    /// Where reconciles are counted and timed.
    pub metrics: Arc<Metrics>,
    /// `--suppress-override-values`: no OverrideValuesInUse events.
    pub suppress_override_values: bool,
}

#[derive(Debug, Error)]
pub enum ControllerError {
    #[error(
        "watches.yaml entry {group}/{version} {kind}: the cluster serves no such kind; apply its CRD first (deploy/crds)"
    )]
    NotServed {
        group: String,
        version: String,
        kind: String,
    },
    #[error("cannot load chart {chart} of {kind}: {message}")]
    Chart {
        kind: String,
        chart: String,
        message: String,
    },
    #[error("{kind} {object}: {message}")]
    Resource {
        kind: String,
        object: String,
        message: String,
    },
    #[error("{kind} {object}: {source}")]
    Release {
        kind: String,
        object: String,
        #[source]
        source: Box<ManagerError>,
    },
    /// The reconcile panicked; as controller-runtime does, the panic is recovered, counted and
    /// retried like any failure instead of stopping every controller of the process.
    #[error("{kind} {object}: the reconcile panicked: {message}")]
    Panicked {
        kind: String,
        object: String,
        message: String,
    },
    /// The resource went while it was reconciled: nothing is left to do.
    #[error("{kind} {object} was deleted during its reconcile")]
    Gone { kind: String, object: String },
    #[error("{kind} {object}: cannot {action}: {answer}")]
    Api {
        kind: String,
        object: String,
        action: &'static str,
        /// The API's answer, or why there was none.
        answer: String,
        reason: crate::kube::Reason,
    },
}

impl ControllerError {
    /// False when retrying soon cannot help: the API server's answer will not change until
    /// someone acts (see [`ManagerError::is_lasting_refusal`]).
    fn is_transient(&self) -> bool {
        match self {
            ControllerError::Release { source, .. } => !source.is_lasting_refusal(),
            ControllerError::Api { reason, .. } => reason.is_transient(),
            _ => true,
        }
    }
}

/// What every reconcile of one watches.yaml entry shares.
struct Context {
    cluster: Arc<Mutex<Cluster>>,
    client: kube::Client,
    watch: Watch,
    resource: ApiResource,
    chart: Arc<ChartNode>,
    capabilities: Capabilities,
    reconcile_period: Duration,
    recorder: Recorder,
    dependents: Option<Arc<Dependents>>,
    /// Consecutive failures per object, for the retry backoff.
    failures: std::sync::Mutex<HashMap<ObjectRef<DynamicObject>, u32>>,
    log: Log,
    /// The helm-operator's name of the controller, `<kind lowercased>-controller`: the
    /// `controller` label of its metrics and the reporter of its events.
    name: String,
    metrics: Arc<Metrics>,
    suppress_override_values: bool,
}

/// Completes when `shutdown` does before `store` has listed its objects once, else never.
///
/// kube's controller holds its reconciliations until its cache has listed the objects once,
/// and its graceful shutdown waits for that: a shutdown before the first listing (SIGTERM
/// while the operator starts, or while a missing permission fails the list) would wait
/// forever.
async fn shutdown_before_listing<K>(
    store: kube::runtime::reflector::Store<K>,
    shutdown: impl Future<Output = ()>,
) where
    K: kube::Resource + Clone + 'static,
    K::DynamicType: Eq + std::hash::Hash + Clone,
{
    tokio::select! {
        biased;
        _ = store.wait_until_ready() => std::future::pending::<()>().await,
        () = shutdown => {}
    }
}

/// Runs a controller for every entry until `shutdown` completes, then lets the reconciles in
/// flight finish.
pub async fn run(
    mut cluster: Cluster,
    options: Options,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ControllerError> {
    let capabilities = cluster
        .capabilities()
        .await
        .map_err(|e| ControllerError::Resource {
            kind: "cluster".into(),
            object: cluster.endpoint.server.clone(),
            message: e.to_string(),
        })?;
    let client = cluster.client().clone();
    // The CRDs may have been created a moment ago, after discovery ran.
    let kinds: Vec<Manifest> = options
        .watches
        .iter()
        .map(|w| {
            CustomResource {
                kind: w.kind.clone(),
                namespace: None,
                name: "any".into(),
                finalizers: Vec::new(),
            }
            .as_manifest(&w.api_version())
        })
        .collect();
    cluster
        .discover_missing(&kinds.iter().collect::<Vec<_>>())
        .await
        .map_err(|e| ControllerError::Resource {
            kind: "cluster".into(),
            object: cluster.endpoint.server.clone(),
            message: e.to_string(),
        })?;
    let mut contexts = Vec::new();
    for watch in &options.watches {
        let served = cluster
            .lookup(&watch.group, &watch.version, &watch.kind)
            .ok_or_else(|| ControllerError::NotServed {
                group: watch.group.clone(),
                version: watch.version.clone(),
                kind: watch.kind.clone(),
            })?;
        let chart = crate::chart::load_local(&watch.chart_dir)
            .map_err(|e| e.to_string())
            .and_then(|c| ChartNode::load(&c, true).map_err(|e| e.to_string()))
            .map_err(|message| ControllerError::Chart {
                kind: watch.kind.clone(),
                chart: watch.chart_dir.display().to_string(),
                message,
            })?;
        contexts.push((watch.clone(), served.resource.clone(), Arc::new(chart)));
    }
    let cluster = Arc::new(Mutex::new(cluster));
    let shutdown: Shared<BoxFuture<'static, ()>> = shutdown.boxed().shared();
    let mut controllers = Vec::new();
    for (watch, resource, chart) in contexts {
        let apis: Vec<Api<DynamicObject>> = if options.namespaces.is_empty() {
            vec![Api::all_with(client.clone(), &resource)]
        } else {
            options
                .namespaces
                .iter()
                .map(|ns| Api::namespaced_with(client.clone(), ns, &resource))
                .collect()
        };
        // A trigger per controller: drift reaches each of them, and the one whose namespace
        // holds the owner reconciles it (the others do not know it).
        let (triggers, triggered): (Vec<_>, Vec<_>) =
            apis.iter().map(|_| mpsc::unbounded_channel()).unzip();
        let dependents = watch.watch_dependent_resources.then(|| {
            Arc::new(Dependents::new(
                client.clone(),
                resource.clone(),
                format!("{CHART_LABEL}={}", chart.name()),
                options.namespaces.clone(),
                triggers,
                options.log.clone(),
            ))
        });
        let controller_name = format!("{}-controller", watch.kind.to_lowercase());
        let workers = watch
            .max_concurrent_reconciles
            .map_or(options.max_concurrent_reconciles, |n| n.get());
        options
            .metrics
            .register_controller(&controller_name, workers);
        let context = Arc::new(Context {
            cluster: cluster.clone(),
            client: client.clone(),
            reconcile_period: watch.reconcile_period.unwrap_or(options.reconcile_period),
            recorder: Recorder::new(
                client.clone(),
                Reporter {
                    controller: controller_name.clone(),
                    instance: std::env::var("POD_NAME").ok(),
                },
            ),
            watch: watch.clone(),
            resource: resource.clone(),
            chart,
            capabilities: capabilities.clone(),
            dependents,
            failures: std::sync::Mutex::new(HashMap::new()),
            log: options.log.clone(),
            name: controller_name,
            metrics: options.metrics.clone(),
            suppress_override_values: options.suppress_override_values,
        });
        options.log.info(&format!(
            "Watching resource {} {} (reconcile period {})",
            resource.api_version,
            resource.kind,
            crate::duration::display(context.reconcile_period)
        ));
        let selector = watch.selector.to_query();
        for (api, triggered) in apis.into_iter().zip(triggered) {
            let mut config = watcher::Config::default();
            if !selector.is_empty() {
                config = config.labels(&selector);
            }
            let controller = Controller::new_with(api, config, resource.clone())
                .with_config(
                    ControllerConfig::default()
                        .concurrency(u16::try_from(workers.max(1)).unwrap_or(u16::MAX)),
                )
                .graceful_shutdown_on(shutdown.clone())
                .reconcile_on({
                    let resource = resource.clone();
                    futures::stream::unfold(triggered, move |mut rx| {
                        let resource = resource.clone();
                        async move {
                            let owner = rx.recv().await?;
                            Some((ObjectRef::from_obj_with(&owner, resource), rx))
                        }
                    })
                });
            let log = options.log.clone();
            let kind = watch.kind.clone();
            let store = controller.store();
            // The primary watch backs off as client-go's reflector does (kube-runtime's
            // default trigger backoff); a queue error (the watch failing) is logged with how
            // many came in a row. A failed reconcile is logged by `error_policy`.
            let mut queue_failures = 0u32;
            let running = controller
                .run(reconcile, error_policy, context.clone())
                .for_each(move |result| {
                    match result {
                        Err(kube::runtime::controller::Error::ReconcilerFailed(..)) => {}
                        Err(kube::runtime::controller::Error::QueueError(e)) => {
                            queue_failures = queue_failures.saturating_add(1);
                            log.error(&format!(
                                "watch of {kind}: {e} (failed {queue_failures} times in a row; retrying with backoff)"
                            ));
                        }
                        Err(e) => log.error(&format!("{kind}: {e}")),
                        Ok(_) => {
                            if queue_failures > 0 {
                                log.info(&format!(
                                    "watch of {kind} works again after {queue_failures} failed attempts"
                                ));
                            }
                            queue_failures = 0;
                        }
                    }
                    futures::future::ready(())
                });
            controllers.push(
                futures::future::select(
                    running.boxed(),
                    shutdown_before_listing(store, shutdown.clone()).boxed(),
                )
                .map(|_| ())
                .boxed(),
            );
        }
    }
    futures::future::join_all(controllers).await;
    Ok(())
}

/// A failed reconcile is tried again after a jittered exponential backoff; one whose cause
/// will not change by itself (the API refused the request as forbidden, invalid or bad, or
/// the kind is gone: its message is in the status) waits the longest step at once, so it
/// is not retried in a loop. One line per failure, with how many came in a row.
fn error_policy(
    object: Arc<DynamicObject>,
    error: &ControllerError,
    context: Arc<Context>,
) -> Action {
    let key = ObjectRef::from_obj_with(object.as_ref(), context.resource.clone());
    let count = {
        let mut failures = context.failures.lock().unwrap_or_else(|e| e.into_inner());
        let count = failures.entry(key).or_insert(0);
        *count = count.saturating_add(1);
        *count
    };
    let lasting = !error.is_transient();
    let delay = if lasting {
        crate::kube::jittered(RETRY_CAP)
    } else {
        retry_delay(count)
    };
    context.log.error(&format!(
        "Reconcile failed ({count} in a row; retrying in {}{}): {error}",
        crate::duration::display(Duration::from_secs(delay.as_secs().max(1))),
        if lasting {
            ", the API's answer will not change until someone acts"
        } else {
            ""
        }
    ));
    Action::requeue(delay)
}

/// The longest pause between retries of a failed reconcile.
const RETRY_CAP: Duration = Duration::from_secs(300);

/// Exponential backoff from 1 s, doubling up to 5 minutes, jittered, as a failed install or
/// upgrade is retried (controller-runtime's limiter grows from 5 ms to 1000 s; a second is
/// kinder to the API server and to the log).
fn retry_delay(failures: u32) -> Duration {
    let seconds = 1u64 << failures.saturating_sub(1).min(9);
    crate::kube::jittered(Duration::from_secs(seconds)).min(RETRY_CAP)
}

/// The outcome of one reconcile of a live custom resource.
type Outcome = Result<Action, ControllerError>;

/// One reconcile, counted and timed as controller-runtime counts its reconciler's calls.
async fn reconcile(object: Arc<DynamicObject>, context: Arc<Context>) -> Outcome {
    let recording = context.metrics.reconcile_started(&context.name);
    // The reconcile's state is its own and the shared locks recover from poisoning, so
    // nothing half-updated is observed after a panic.
    let caught = AssertUnwindSafe(reconcile_once(&object, &context))
        .catch_unwind()
        .await;
    let panicked = caught.is_err();
    let result = caught.unwrap_or_else(|panic| {
        let message = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "(no message)".to_string());
        Err(ControllerError::Panicked {
            kind: context.watch.kind.clone(),
            object: match object.namespace() {
                Some(namespace) => format!("{namespace}/{}", object.name_any()),
                None => object.name_any(),
            },
            message,
        })
    });
    let outcome = match &result {
        Err(_) => metrics::Outcome::Error,
        Ok(action) if *action == Action::await_change() => metrics::Outcome::Success,
        Ok(_) => metrics::Outcome::RequeueAfter,
    };
    recording.finish(outcome, panicked);
    result
}

async fn reconcile_once(object: &Arc<DynamicObject>, context: &Arc<Context>) -> Outcome {
    let result = match Reconcile::new(object, context)?.run().await {
        // A stale event of a resource already gone (its finalizer just removed).
        Err(ControllerError::Gone { .. }) => Ok(Action::await_change()),
        other => other,
    };
    if result.is_ok() {
        let key = ObjectRef::from_obj_with(object.as_ref(), context.resource.clone());
        context
            .failures
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&key);
    }
    result
}

/// One reconcile of one custom resource.
struct Reconcile<'a> {
    object: &'a DynamicObject,
    context: &'a Context,
    api: Api<DynamicObject>,
    namespace: String,
    name: String,
}

impl<'a> Reconcile<'a> {
    fn new(object: &'a DynamicObject, context: &'a Context) -> Result<Self, ControllerError> {
        let name = object.name_any();
        let namespace = object.namespace().unwrap_or_default();
        let client = context.client.clone();
        let api = if namespace.is_empty() {
            Api::all_with(client, &context.resource)
        } else {
            Api::namespaced_with(client, &namespace, &context.resource)
        };
        Ok(Reconcile {
            object,
            context,
            api,
            namespace,
            name,
        })
    }

    fn display(&self) -> String {
        if self.namespace.is_empty() {
            self.name.clone()
        } else {
            format!("{}/{}", self.namespace, self.name)
        }
    }

    fn fail(&self, message: String) -> ControllerError {
        ControllerError::Resource {
            kind: self.context.watch.kind.clone(),
            object: self.display(),
            message,
        }
    }

    fn release_error(&self, source: ManagerError) -> ControllerError {
        ControllerError::Release {
            kind: self.context.watch.kind.clone(),
            object: self.display(),
            source: Box::new(source),
        }
    }

    fn api_error(&self, action: &'static str, source: kube::Error) -> ControllerError {
        if crate::kube::is_not_found(&source) {
            return ControllerError::Gone {
                kind: self.context.watch.kind.clone(),
                object: self.display(),
            };
        }
        ControllerError::Api {
            kind: self.context.watch.kind.clone(),
            object: self.display(),
            action,
            reason: crate::kube::Reason::of(&source),
            answer: match source {
                kube::Error::Api(status) => format!(
                    "the API answered {} {}: {}",
                    status.code, status.reason, status.message
                ),
                other => other.to_string(),
            },
        }
    }

    fn log(&self, message: &str) {
        self.context.log.info(&self.about(message));
    }

    fn log_error(&self, message: &str) {
        self.context.log.error(&self.about(message));
    }

    /// `message` prefixed with the resource it is about.
    fn about(&self, message: &str) -> String {
        format!("{} {}: {message}", self.context.watch.kind, self.display())
    }

    fn annotation(&self, key: &str) -> Option<&str> {
        self.object
            .metadata
            .annotations
            .as_ref()
            .and_then(|a| a.get(key))
            .map(String::as_str)
    }

    /// The period after which an unchanged resource is reconciled again; `None`: never.
    fn requeue(&self) -> Result<Action, ControllerError> {
        let period = match self.annotation(RECONCILE_PERIOD_ANNOTATION) {
            Some(text) => {
                let nanos = crate::duration::parse_go(text).map_err(|e| {
                    self.fail(format!(
                        "annotation {RECONCILE_PERIOD_ANNOTATION}: {e} (a Go duration, for example 30s or 5m)"
                    ))
                })?;
                Duration::from_nanos(u64::try_from(nanos).unwrap_or(0))
            }
            None => self.context.reconcile_period,
        };
        Ok(if period.is_zero() {
            Action::await_change()
        } else {
            Action::requeue(period)
        })
    }

    fn manager(&self) -> Result<ReleaseManager, ControllerError> {
        let mut settings = Settings::new(self.context.capabilities.clone());
        settings.dry_run = self.context.watch.dry_run;
        settings.force_upgrade = self
            .annotation(UPGRADE_FORCE_ANNOTATION)
            .is_some_and(go_bool);
        settings.labels = BTreeMap::from([(
            CHART_LABEL.to_string(),
            self.context.chart.name().to_string(),
        )]);
        settings.owner = Some(Owner {
            api_version: self.context.resource.api_version.clone(),
            kind: self.context.resource.kind.clone(),
            name: self.name.clone(),
            uid: self.object.metadata.uid.clone().unwrap_or_default(),
            namespace: (!self.namespace.is_empty()).then(|| self.namespace.clone()),
        });
        ReleaseManager::new(
            self.context.chart.clone(),
            &self.name,
            manager_namespace(&self.namespace),
            settings,
        )
        .map_err(|e| self.release_error(e))
    }

    async fn run(&self) -> Outcome {
        let requeue = self.requeue()?;
        let mut status = Status::of(&self.object.data);
        let manager = self.manager()?;
        if self.object.metadata.deletion_timestamp.is_some() {
            return self.finalize(&manager, status).await;
        }
        status.set(status::INITIALIZED, true, "", "");
        let values = values::for_resource(&self.object.data, &self.context.watch.override_values)
            .map_err(|e| self.fail(e))?;
        let mut cluster = self.context.cluster.lock().await;
        let plan = match manager.sync(&mut cluster, &values).await {
            Ok(plan) => plan,
            Err(e) => return Err(self.irreconcilable(&mut status, e).await),
        };
        status.remove(status::IRRECONCILABLE);
        match plan {
            Plan::Install => {
                self.override_events().await;
                let release = match manager.install(&mut cluster, &values).await {
                    Ok(release) => release,
                    Err(e) => {
                        self.failed(&mut status, status::INSTALL_ERROR, &e).await;
                        return Err(self.release_error(e));
                    }
                };
                status.remove(status::RELEASE_FAILED);
                self.add_finalizer().await?;
                self.watch_dependents(&cluster, &release);
                self.log(&format!("Installed release {}", release.name));
                self.deployed(&mut status, status::INSTALL_SUCCESSFUL, &release);
                self.update_status(&status).await?;
            }
            Plan::Upgrade { deployed } => {
                self.add_finalizer().await?;
                self.override_events().await;
                let release = match manager.upgrade(&mut cluster, &deployed, &values).await {
                    Ok(release) => release,
                    Err(e) => {
                        if matches!(e, ManagerError::UpgradeFailed { .. })
                            && let Err(back) = manager.rollback(&mut cluster).await
                        {
                            self.log_error(&format!("Error rolling back release: {back}"));
                        }
                        self.failed(&mut status, status::UPGRADE_ERROR, &e).await;
                        return Err(self.release_error(e));
                    }
                };
                status.remove(status::RELEASE_FAILED);
                self.watch_dependents(&cluster, &release);
                self.log(&format!(
                    "Upgraded release {} to revision {}",
                    release.name, release.version
                ));
                self.deployed(&mut status, status::UPGRADE_SUCCESSFUL, &release);
                self.update_status(&status).await?;
            }
            Plan::Reconcile { deployed } => {
                self.add_finalizer().await?;
                // A spec whose release failed and was then reverted reconciles again: the
                // failure is no longer being attempted.
                status.remove(status::RELEASE_FAILED);
                if let Err(e) = manager.reconcile(&mut cluster, &deployed).await {
                    return Err(self.irreconcilable(&mut status, e).await);
                }
                self.watch_dependents(&cluster, &deployed);
                self.log(&format!("Reconciled release {}", deployed.name));
                let reason = if deployed.version == 1 {
                    status::INSTALL_SUCCESSFUL
                } else {
                    status::UPGRADE_SUCCESSFUL
                };
                self.deployed(&mut status, reason, &deployed);
                if status != Status::of(&self.object.data) {
                    self.update_status(&status).await?;
                }
            }
        }
        Ok(requeue)
    }

    /// Deletion: uninstall the release, say so in the status, then let the resource go.
    async fn finalize(&self, manager: &ReleaseManager, mut status: Status) -> Outcome {
        let finalizers = self.object.finalizers();
        if !finalizers
            .iter()
            .any(|f| f == FINALIZER || f == LEGACY_FINALIZER)
        {
            return Ok(Action::await_change());
        }
        let mut cluster = self.context.cluster.lock().await;
        let uninstalled = manager.uninstall(&mut cluster).await;
        let wait = self
            .annotation(UNINSTALL_WAIT_ANNOTATION)
            .is_some_and(go_bool);
        match uninstalled {
            Err(e) => {
                self.failed(&mut status, status::UNINSTALL_ERROR, &e).await;
                return Err(self.release_error(e));
            }
            Ok(None) => self.log("Release not found"),
            Ok(Some(release)) => {
                self.log(&format!("Uninstalled release {}", release.name));
                if !wait {
                    status.set(status::DEPLOYED, false, status::UNINSTALL_SUCCESSFUL, "");
                    status.deployed_release = None;
                }
            }
        }
        status.remove(status::RELEASE_FAILED);
        if wait {
            // The manifest stays in the status until every object of it is gone.
            status.set(
                status::DEPLOYED,
                false,
                status::UNINSTALL_SUCCESSFUL,
                "Waiting until all resources are deleted.",
            );
        }
        let mut version = self.update_status(&status).await?;
        if wait
            && let Some(manifest) = status
                .deployed_release
                .as_ref()
                .map(|r| r.manifest.clone())
                .filter(|m| !m.is_empty())
        {
            match self.delete_remaining(&mut cluster, &manifest).await {
                Err(e) => {
                    status.set(
                        status::RELEASE_FAILED,
                        true,
                        status::UNINSTALL_ERROR,
                        &e.to_string(),
                    );
                    self.write_status(&status).await;
                    return Err(e);
                }
                Ok(false) => {
                    self.log("Waiting until all resources are deleted");
                    return self.requeue();
                }
                Ok(true) => {}
            }
            status.remove(status::RELEASE_FAILED);
            version = self.update_status(&status).await?;
        }
        drop(cluster);
        let kept: Vec<&String> = finalizers
            .iter()
            .filter(|f| *f != FINALIZER && *f != LEGACY_FINALIZER)
            .collect();
        self.patch_finalizers(json!(kept), version).await?;
        self.log("Removed finalizer");
        Ok(Action::await_change())
    }

    /// Deletes what is left of the uninstalled release's `manifest` (objects kept by policy
    /// stay); true once none of it exists any more, finalizers and garbage collection done.
    async fn delete_remaining(
        &self,
        cluster: &mut Cluster,
        manifest: &str,
    ) -> Result<bool, ControllerError> {
        let mut objects =
            release_objects::parse_manifest(manifest).map_err(|e| self.fail(e.to_string()))?;
        objects.retain(|o| !release_objects::is_kept(o));
        release_objects::place(
            cluster,
            &mut objects,
            manager_namespace(&self.namespace),
            Unserved::Skip,
        )
        .await
        .map_err(|e| self.fail(e.to_string()))?;
        let mut all_gone = true;
        for object in &objects {
            let deleted = cluster
                .delete(object)
                .await
                .map_err(|e| self.fail(e.to_string()))?;
            all_gone &= deleted == Deleted::NotFound;
        }
        Ok(all_gone)
    }

    fn deployed(&self, status: &mut Status, reason: &str, release: &Release) {
        let notes = release.info.as_ref().map_or("", |i| i.notes.as_str());
        status.set(status::DEPLOYED, true, reason, notes);
        status.deployed_release = Some(status::DeployedRelease {
            name: release.name.clone(),
            manifest: release.manifest.clone(),
        });
    }

    /// The release cannot be reconciled (its sync or its re-apply failed): `Irreconcilable`
    /// is written, and the error returned.
    async fn irreconcilable(&self, status: &mut Status, error: ManagerError) -> ControllerError {
        status.set(
            status::IRRECONCILABLE,
            true,
            status::RECONCILE_ERROR,
            &error.to_string(),
        );
        self.write_status(status).await;
        self.release_error(error)
    }

    async fn failed(&self, status: &mut Status, reason: &str, error: &ManagerError) {
        // A failure that repeats is logged by `error_policy`, once per retry with its count.
        if !self.failing_already() {
            self.log_error(&format!("Release failed: {error}"));
        }
        status.set(status::RELEASE_FAILED, true, reason, &error.to_string());
        self.write_status(status).await;
    }

    /// Writes the status on a path that already fails: a failure to write it is logged,
    /// the first error is the one returned.
    async fn write_status(&self, status: &Status) {
        if let Err(e) = self.update_status(status).await
            && !self.failing_already()
        {
            self.log_error(&format!("Failed to update status: {e}"));
        }
    }

    /// Whether the reconciles of this resource failed already, the last one included: its
    /// failure is being retried, and logged once per retry.
    fn failing_already(&self) -> bool {
        let key = ObjectRef::from_obj_with(self.object, self.context.resource.clone());
        self.context
            .failures
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&key)
            .is_some_and(|count| *count > 0)
    }

    /// Writes the status; returns the resource's new resourceVersion.
    async fn update_status(&self, status: &Status) -> Result<Option<String>, ControllerError> {
        let mut value = status.to_value();
        // A merge patch keeps fields it does not name: an absent release must be a null.
        if status.deployed_release.is_none()
            && let Value::Object(map) = &mut value
        {
            map.insert("deployedRelease".into(), Value::Null);
        }
        self.api
            .patch_status(
                &self.name,
                &PatchParams::default(),
                &Patch::Merge(json!({ "status": value })),
            )
            .await
            .map(|updated| updated.metadata.resource_version)
            .map_err(|e| self.api_error("update its status", e))
    }

    async fn add_finalizer(&self) -> Result<(), ControllerError> {
        let finalizers = self.object.finalizers();
        if finalizers
            .iter()
            .any(|f| f == FINALIZER || f == LEGACY_FINALIZER)
        {
            return Ok(());
        }
        let mut all = finalizers.to_vec();
        all.push(FINALIZER.to_string());
        self.patch_finalizers(json!(all), self.object.metadata.resource_version.clone())
            .await
    }

    /// Replaces the finalizers, only if the resource is still at `version` (the one whose
    /// list this reconcile read, or its own status write's), so no one else's is lost.
    async fn patch_finalizers(
        &self,
        finalizers: Value,
        version: Option<String>,
    ) -> Result<(), ControllerError> {
        let patch = json!({"metadata": {
            "finalizers": finalizers,
            "resourceVersion": version,
        }});
        self.api
            .patch(&self.name, &PatchParams::default(), &Patch::Merge(patch))
            .await
            .map(|_| ())
            .map_err(|e| self.api_error("update its finalizers", e))
    }

    /// The helm-operator warns on every install and upgrade that watches.yaml overrides values.
    async fn override_events(&self) {
        if self.context.suppress_override_values {
            return;
        }
        for (key, value) in &self.context.watch.override_values {
            let event = Event {
                type_: EventType::Warning,
                reason: "OverrideValuesInUse".into(),
                note: Some(format!(
                    "Chart value {key:?} overridden to {value:?} by operator's watches.yaml"
                )),
                action: "Reconcile".into(),
                secondary: None,
            };
            let reference = self.object.object_ref(&self.context.resource);
            if let Err(e) = self.context.recorder.publish(&event, &reference).await {
                self.log_error(&format!("Failed to record an event: {e}"));
            }
        }
    }

    /// Starts the drift watches of the kinds `release` renders.
    fn watch_dependents(&self, cluster: &Cluster, release: &Release) {
        let Some(dependents) = &self.context.dependents else {
            return;
        };
        let objects = match release_objects::parse_manifest(&release.manifest) {
            Ok(objects) => objects,
            Err(e) => {
                self.log_error(&format!("cannot watch the release's objects: {e}"));
                return;
            }
        };
        let mut kinds: Vec<Served> = Vec::new();
        for object in &objects {
            if let Ok(served) = cluster.served(object)
                && !kinds.iter().any(|k| k.resource == served.resource)
            {
                kinds.push(served.clone());
            }
        }
        dependents.watch(&kinds);
    }
}

/// The release namespace of a resource in `namespace`: a cluster-scoped resource's release
/// lives in the default namespace, where Helm puts a release that names none.
fn manager_namespace(namespace: &str) -> &str {
    if namespace.is_empty() {
        "default"
    } else {
        namespace
    }
}

/// Go's `strconv.ParseBool`, which the helm-operator reads its boolean annotations with.
fn go_bool(text: &str) -> bool {
    matches!(text, "1" | "t" | "T" | "TRUE" | "true" | "True")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retries_back_off_up_to_five_minutes() {
        let within = |failures, seconds: f64| {
            let delay = retry_delay(failures).as_secs_f64();
            assert!(
                delay >= seconds.min(300.0) && delay <= (seconds * 1.5).min(300.0),
                "{failures}: {delay}"
            );
        };
        within(1, 1.0);
        within(2, 2.0);
        within(5, 16.0);
        within(40, 300.0);
    }

    #[test]
    fn booleans_read_as_go_reads_them() {
        assert!(go_bool("true") && go_bool("1") && go_bool("T"));
        assert!(!go_bool("yes") && !go_bool("") && !go_bool("tRUE"));
    }
}
