//! What every controller shares, written once: how a controller runs ([`run`]), its errors
//! ([`Error`]), the finalizer ([`finalize`]), children ([`apply_child`]) and the modules below.
//! `create api` never copies these into a kind's controller.

pub mod backoff;
pub mod rollout;
pub mod status;
#[cfg(test)]
pub mod testing;

use std::{fmt::Debug, sync::Arc, time::Instant};

use anyhow::Context as _;
use futures::{FutureExt, StreamExt};
use kube::api::{ListParams, Patch, PatchParams};
use kube::runtime::controller::{self, Action, Controller};
use kube::runtime::finalizer::{self, Event, finalizer};
use kube::{Api, Resource, ResourceExt, runtime::reflector::ObjectRef};
use serde::{Serialize, de::DeserializeOwned};
use tokio_util::sync::CancellationToken;
use tracing::{debug, info, warn};

use crate::context::{Context, MANAGER, Namespaced};

/// A reconciliation that failed. Its message is what a status condition shows, so it stays the
/// same from one attempt to the next (a status change triggers another reconciliation): the
/// server's own message is only in the logs, but for an invalid object.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A request failed; `action` is a verb ("apply"), `object` what it was about.
    #[error("cannot {action} {object}: {}", why(source))]
    Api {
        action: &'static str,
        object: String,
        source: kube::Error,
    },
    #[error(transparent)]
    Finalizer(Box<finalizer::Error<Error>>),
}

impl Error {
    /// The reason of the condition that reports it and the `error` label of the failure metric:
    /// a few fixed values, never the message.
    pub fn reason(&self) -> &'static str {
        match self {
            Error::Api { .. } => "ApplyFailed",
            Error::Finalizer(error) => match error.as_ref() {
                finalizer::Error::ApplyFailed(e) | finalizer::Error::CleanupFailed(e) => e.reason(),
                _ => "FinalizerFailed",
            },
        }
    }
}

fn why(error: &kube::Error) -> String {
    match error {
        kube::Error::Api(status) if status.code == 422 => status.message.clone(),
        kube::Error::Api(status) => format!("{} (HTTP {})", status.reason, status.code),
        kube::Error::HyperError(_) | kube::Error::Service(_) => {
            "the API server did not answer".into()
        }
        _ => "the request failed (see the operator's logs)".into(),
    }
}

/// Runs `controller` until `shutdown` is cancelled, then lets the reconciliations in flight
/// finish. `name` labels its logs and metrics; a failing object is retried with [`backoff`].
pub async fn run<K, F, Fut>(
    name: &'static str,
    controller: Controller<K>,
    reconcile: F,
    ctx: Arc<Context>,
    shutdown: CancellationToken,
) -> anyhow::Result<()>
where
    K: Namespaced + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
    F: Fn(Arc<K>, Arc<Context>) -> Fut + Send + 'static,
    Fut: Future<Output = Result<Action, Error>> + Send + 'static,
{
    // A missing CRD would otherwise show only as watch failures, retried for ever.
    let first = ListParams::default().limit(1);
    let listed = ctx.api::<K>(&ctx.client).list(&first).await;
    listed.with_context(|| format!("the {name} controller cannot list its objects: is its CRD installed? (kubectl apply -f deploy/crds/)"))?;
    info!(controller = name, concurrency = ctx.concurrency, "starting");
    let controller = controller
        .with_config(controller::Config::default().concurrency(ctx.concurrency))
        .graceful_shutdown_on(shutdown.clone().cancelled_owned());
    let store = controller.store();
    let timed = move |object: Arc<K>, ctx: Arc<Context>| {
        let (metrics, started) = (ctx.metrics.clone(), Instant::now());
        reconcile(object, ctx).inspect(move |_| metrics.reconciled(name, started.elapsed()))
    };
    let policy = move |object: Arc<K>, error: &Error, ctx: Arc<Context>| {
        let object_ref = ObjectRef::from_obj(object.as_ref());
        warn!(controller = name, object = %object_ref, ?error, "reconcile failed");
        ctx.metrics.reconcile_failure(name, error.reason());
        Action::requeue(ctx.backoff.next_delay(object_ref.erase()))
    };
    let results = controller.run(timed, policy, ctx.clone());
    let reconciling = results.for_each(async |result| match result {
        // The changes it made were logged where they were made.
        Ok((object, _)) => {
            debug!(controller = name, %object, "reconciled");
            ctx.backoff.reset(&object.erase());
        }
        // `policy` logged it, with the object.
        Err(controller::Error::ReconcilerFailed(..)) => {}
        Err(controller::Error::ObjectNotFound(object)) => ctx.backoff.reset(&object),
        // An unreachable API server, a missing permission...: kube's watcher backs off with jitter.
        Err(error) => warn!(controller = name, %error, "watch failed; retrying with backoff"),
    });
    // kube's graceful shutdown waits for the cache's first listing: for ever on a SIGTERM during
    // start-up or a missing permission failing every list. Once listed, `None` no longer matches.
    let listed = shutdown.run_until_cancelled(store.wait_until_ready());
    tokio::select! {
        () = reconciling => {}
        None = listed => {}
    }
    info!(controller = name, "stopped");
    Ok(())
}

/// Runs `reconcile` behind the finalizer `name` when `with_finalizer` is on: added first, and
/// removed once `Event::Cleanup` succeeded. When off, a deleted object still carrying it (added
/// while on) is still cleaned up and released, so neither it nor its namespace stays Terminating.
pub async fn finalize<K, Fut>(
    object: Arc<K>,
    ctx: &Context,
    name: &str,
    with_finalizer: bool,
    reconcile: impl FnOnce(Event<K>) -> Fut,
) -> Result<Action, Error>
where
    K: Namespaced + Clone + DeserializeOwned + Serialize + Debug,
    Fut: Future<Output = Result<Action, Error>>,
{
    let deleted = object.meta().deletion_timestamp.is_some();
    if with_finalizer || deleted && object.finalizers().iter().any(|f| f == name) {
        let finalized = finalizer(&ctx.namespaced(object.as_ref()), name, object, reconcile).await;
        return finalized.map_err(|e| Error::Finalizer(Box::new(e)));
    }
    if deleted {
        // Its children go by garbage collection once it is gone.
        return Ok(Action::await_change());
    }
    reconcile(Event::Apply(object)).await
}

/// Server-side applies `child` as the child of `owner`, forcing the fields it sets. An object of
/// its name that another owner controls is not taken over: the API server refuses an object a
/// second controller. One without a controller is adopted. Returns it as the API server stored it.
pub async fn apply_child<K, C>(owner: &K, api: &Api<C>, mut child: C) -> Result<C, Error>
where
    K: Resource<DynamicType = ()>,
    C: Resource<DynamicType = ()> + Clone + DeserializeOwned + Serialize + Debug,
{
    // As controller-runtime's (kube leaves it out), the reference blocks the owner's foreground
    // deletion until the child is gone: `deploy/role.yaml` grants `update` on its `finalizers`.
    child.meta_mut().owner_references = owner.controller_owner_ref(&()).map(|mut reference| {
        reference.block_owner_deletion = Some(true);
        vec![reference]
    });
    let (name, params) = (child.name_any(), PatchParams::apply(MANAGER).force());
    let applied = api.patch(&name, &params, &Patch::Apply(&child)).await;
    applied.map_err(|source| Error::Api {
        action: "apply",
        object: format!("the {} {name}", C::kind(&())),
        source,
    })
}

#[cfg(test)]
mod tests {
    //! The finalizer paths, on a ConfigMap: they are the same for every kind.

    use super::*;
    use std::time::Duration;

    use http::{Method, StatusCode};
    use k8s_openapi::api::core::v1::ConfigMap;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
    use k8s_openapi::jiff::Timestamp;
    use serde_json::json;
    use testing::{context, expect, run_with_timeout};

    const FINALIZER: &str = "example.com/finalizer";
    const OBJECT: &str = "/api/v1/namespaces/default/configmaps/test";

    fn object(finalizers: &[&str], deleted: bool) -> Arc<ConfigMap> {
        let mut object = ConfigMap::default();
        object.metadata.name = Some("test".to_string());
        object.metadata.namespace = Some("default".to_string());
        object.metadata.resource_version = Some("7".to_string());
        object.metadata.finalizers = Some(finalizers.iter().map(|f| f.to_string()).collect());
        object.metadata.deletion_timestamp = deleted.then(|| Time(Timestamp::now()));
        Arc::new(object)
    }

    async fn applied(event: Event<ConfigMap>) -> Result<Action, Error> {
        let seconds = match event {
            Event::Apply(_) => 1,
            Event::Cleanup(_) => 2,
        };
        Ok(Action::requeue(Duration::from_secs(seconds)))
    }

    #[test]
    fn summaries_are_stable() {
        let forbidden = |message: &str| Error::Api {
            action: "apply",
            object: "the Deployment d".to_string(),
            source: kube::Error::Api(
                kube::core::Status::failure(message, "Forbidden")
                    .with_code(403)
                    .boxed(),
            ),
        };
        let first = forbidden("request 1 was forbidden").to_string();
        assert_eq!(first, "cannot apply the Deployment d: Forbidden (HTTP 403)");
        assert_eq!(first, forbidden("request 2 was forbidden").to_string());
        assert_eq!(forbidden("").reason(), "ApplyFailed");
    }

    #[tokio::test]
    async fn with_the_finalizer_a_new_object_gets_it_first() {
        let (ctx, mut handle) = context();
        let server = tokio::spawn(async move {
            let patch = expect(
                &mut handle,
                Method::PATCH,
                OBJECT,
                StatusCode::OK,
                json!({"apiVersion": "v1", "kind": "ConfigMap"}),
            )
            .await;
            assert!(patch.to_string().contains(FINALIZER), "{patch}");
        });
        let action = finalize(object(&[], false), &ctx, FINALIZER, true, applied).await;
        assert_eq!(action.unwrap(), Action::await_change());
        run_with_timeout(server).await.unwrap();
    }

    /// Turned off after objects got it: a deleted one is cleaned up and released, keeping other
    /// finalizers.
    #[tokio::test]
    async fn without_the_finalizer_a_deleted_object_that_carries_it_is_released() {
        let (ctx, mut handle) = context();
        let server = tokio::spawn(async move {
            let patch = expect(
                &mut handle,
                Method::PATCH,
                OBJECT,
                StatusCode::OK,
                json!({"apiVersion": "v1", "kind": "ConfigMap"}),
            )
            .await;
            assert_eq!(
                patch,
                json!([
                    {"op": "test", "path": "/metadata/finalizers/1", "value": FINALIZER},
                    {"op": "remove", "path": "/metadata/finalizers/1"}
                ])
            );
        });
        let deleted = object(&["other/keep", FINALIZER], true);
        let action = finalize(deleted, &ctx, FINALIZER, false, applied).await;
        assert_eq!(action.unwrap(), Action::requeue(Duration::from_secs(2)));
        run_with_timeout(server).await.unwrap();
    }

    #[tokio::test]
    async fn without_the_finalizer_a_deleted_object_needs_nothing() {
        let (ctx, handle) = context();
        let action = finalize(
            object(&["other/keep"], true),
            &ctx,
            FINALIZER,
            false,
            applied,
        )
        .await;
        assert_eq!(action.unwrap(), Action::await_change());
        drop(handle);
    }

    #[tokio::test]
    async fn without_the_finalizer_a_live_object_is_applied() {
        let (ctx, handle) = context();
        let action = finalize(object(&[], false), &ctx, FINALIZER, false, applied).await;
        assert_eq!(action.unwrap(), Action::requeue(Duration::from_secs(1)));
        drop(handle);
    }
}
