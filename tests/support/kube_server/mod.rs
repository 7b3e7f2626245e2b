//! A stateful Kubernetes API server for tests, in process, on 127.0.0.1 over plain HTTP.
//!
//! It speaks enough of the real protocol for kube-rs (its client, kube-runtime's watcher,
//! controller, finalizer helper and event recorder, kube-lease-manager) and for the real
//! `kubectl`: discovery (legacy and aggregated), get/list/watch/create/update/patch/delete and
//! deletecollection, server-side apply with field ownership, JSON merge and JSON patches,
//! `dryRun=All`, resource versions and conflicts, CRDs that become served once Established,
//! finalizers and garbage collection ([`lifecycle`]), status subresources, metadata-only views
//! ([`metadata`]), label and field selectors ([`selectors`]), watches with bookmarks, streaming
//! lists and expiry ([`watch`]), Leases and events of both APIs ([`events`]), scripted
//! Deployment rollouts and Job completions ([`rollout`]), refused verbs (403), Lease faults ([`faults`]), protobuf bodies of
//! Secrets and ConfigMaps ([`protobuf`]) and request counting.
//!
//! Webhooks are called as the API server calls them, over verified TLS
//! ([`webhook_client`]): admission webhooks of `MutatingWebhookConfiguration` and
//! `ValidatingWebhookConfiguration` objects on create, update, patch, apply and delete
//! ([`admission`], matched by [`webhook_config`], which also checks configurations as they are
//! written), and the conversion webhook of a CRD with `strategy: Webhook` on every read,
//! write and watch event through a version other than the stored one ([`conversion`]). A
//! request that needs either takes the path of [`intercept`]; every other request is answered
//! at once under the store's lock. A webhook's Service is found through the EndpointSlices
//! (or Endpoints) in the store, so a test points one at 127.0.0.1:PORT.
//!
//! It is an approximation; each module says where. Across all of them: no admission plugins
//! but the webhooks (and no CONNECT operations, since nothing that takes them is served), no
//! schema validation or defaulting of objects (a CRD's CEL rules included), no protobuf
//! responses (request bodies only of the kinds [`protobuf`] names), no table output, strategic
//! merge patches read as JSON merge patches, and a status subresource that ignores every
//! change but `status` (metadata included). `metadata.generation` counts changes of `spec` for
//! built-in kinds and of everything but metadata (and status, with a status subresource) for
//! custom resources.
//!
//! The test API: [`KubeServer::start`], [`KubeServer::kubeconfig`], scripts for CRDs
//! ([`KubeServer::set_establish`]), Deployments ([`KubeServer::set_rollout`],
//! [`KubeServer::set_rollout_for`], [`KubeServer::complete_rollout`]) and Jobs
//! ([`KubeServer::fail_job`]), tokens for TokenReviews ([`KubeServer::add_token`], answered with
//! SubjectAccessReviews from the RBAC objects stored, [`reviews`]), objects stored without the checks of a write
//! ([`KubeServer::put_unchecked`]), faults
//! ([`KubeServer::refuse`], [`KubeServer::partition_lease`], [`KubeServer::heal_lease`],
//! [`KubeServer::cut_connections`], [`KubeServer::fail_requests`],
//! [`KubeServer::answer_not_found_with`], [`KubeServer::expire_watches`]), watch
//! controls ([`KubeServer::compact`], [`KubeServer::send_bookmarks`]), and what happened
//! ([`KubeServer::requests`], [`KubeServer::object`], [`KubeServer::objects`],
//! [`KubeServer::all_objects`],
//! [`KubeServer::resource_version`], [`KubeServer::held_requests`]).

pub mod admission;
pub mod conversion;
pub mod events;
pub mod faults;
pub mod fields;
mod http;
pub mod intercept;
pub mod json_patch;
pub mod lifecycle;
pub mod metadata;
pub mod operation;
pub mod protobuf;
pub mod resources;
pub mod reviews;
pub mod rollout;
pub mod selectors;
pub mod store;
pub mod watch;
pub mod webhook_client;
pub mod webhook_config;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde_json::Value;

pub use faults::{LeaseFault, RequestFault};
pub use store::{Establish, Refusal, RequestRecord, Rollout};
use store::{Key, State};

pub struct KubeServer {
    address: String,
    state: http::Shared,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
    dir: tempfile::TempDir,
}

impl KubeServer {
    /// Starts a server on a free port of 127.0.0.1 and writes a kubeconfig for it.
    pub fn start() -> KubeServer {
        let listener =
            std::net::TcpListener::bind("127.0.0.1:0").expect("a free port on 127.0.0.1");
        listener
            .set_nonblocking(true)
            .expect("a non-blocking listener");
        let address = listener.local_addr().expect("a bound address").to_string();
        let state = Arc::new(Mutex::new(State::new(address.clone())));
        let (shutdown, stop) = tokio::sync::oneshot::channel();
        let served = state.clone();
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("a tokio runtime for the test server");
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener)
                    .expect("the listener on the runtime");
                http::serve(listener, served, stop).await;
            });
            // Open watches end with the runtime.
            runtime.shutdown_timeout(std::time::Duration::from_millis(100));
        });
        let server = KubeServer {
            address,
            state,
            shutdown: Some(shutdown),
            thread: Some(thread),
            dir: tempfile::tempdir().expect("a temporary directory"),
        };
        server.write_kubeconfig(&server.kubeconfig(), &server.token(), None);
        server
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.address)
    }

    /// The kubeconfig with context `test` for user `test-user`, no namespace.
    pub fn kubeconfig(&self) -> PathBuf {
        self.dir.path().join("kubeconfig")
    }

    /// The bearer token the server accepts (also in [`KubeServer::kubeconfig`]).
    pub fn token(&self) -> String {
        self.lock().scripts.token.clone()
    }

    /// Makes `token` known to TokenReviews as the user `username` in `groups` (the server adds
    /// `system:authenticated`). It does not authenticate requests to this server.
    pub fn add_token(&self, token: &str, username: &str, groups: &[&str]) {
        let user = reviews::UserInfo {
            username: username.into(),
            uid: format!("uid-{username}"),
            groups: groups.iter().map(|g| g.to_string()).collect(),
        };
        self.lock().scripts.tokens.insert(token.into(), user);
    }

    /// Writes a kubeconfig for this server with the given token and context namespace.
    pub fn write_kubeconfig(&self, path: &Path, token: &str, namespace: Option<&str>) {
        let namespace = namespace
            .map(|ns| format!("\n      namespace: {ns}"))
            .unwrap_or_default();
        let text = format!(
            "apiVersion: v1
kind: Config
current-context: test
clusters:
  - name: test
    cluster:
      server: {url}
contexts:
  - name: test
    context:
      cluster: test
      user: test-user{namespace}
users:
  - name: test-user
    user:
      token: {token}
",
            url = self.url()
        );
        std::fs::write(path, text).expect("the kubeconfig is written");
    }

    /// How Deployments roll out from now on (default: available after one poll).
    pub fn set_rollout(&self, rollout: Rollout) {
        self.lock().scripts.rollout = rollout;
    }

    /// How the Deployment `namespace/name` rolls out from now on, whatever `set_rollout` says.
    pub fn set_rollout_for(&self, namespace: &str, name: &str, rollout: Rollout) {
        self.lock()
            .scripts
            .rollout_for
            .insert((namespace.into(), name.into()), rollout);
    }

    /// Completes the current rollout of a Deployment scripted with `Rollout::Manual`.
    pub fn complete_rollout(&self, namespace: &str, name: &str) {
        self.lock().complete_rollout(namespace, name);
    }

    /// Makes writes of the Lease `namespace/lease` by `holder` fail or hang (see
    /// [`faults`]), until [`KubeServer::heal_lease`].
    pub fn partition_lease(&self, namespace: &str, lease: &str, holder: &str, fault: LeaseFault) {
        let partition = faults::LeasePartition {
            namespace: namespace.into(),
            lease: lease.into(),
            holder: holder.into(),
            fault,
        };
        self.lock().scripts.lease_faults.push(partition);
    }

    /// Lifts every fault of `partition_lease` for this Lease and holder; hung writes then
    /// get 500.
    pub fn heal_lease(&self, namespace: &str, lease: &str, holder: &str) {
        self.lock()
            .scripts
            .lease_faults
            .retain(|p| !(p.namespace == namespace && p.lease == lease && p.holder == holder));
    }

    /// Closes the port and drops every open connection (watches included) for `duration`,
    /// then listens again on the same port: an API server restart, or a partition.
    pub fn cut_connections(&self, duration: std::time::Duration) {
        let until = std::time::Instant::now() + duration;
        self.lock().cuts.send_replace(Some(until));
    }

    /// Answers requests that `fault` matches with its error, until it is used up or
    /// [`KubeServer::clear_request_faults`].
    pub fn fail_requests(&self, fault: RequestFault) {
        self.lock().scripts.request_faults.push(fault);
    }

    pub fn clear_request_faults(&self) {
        self.lock().scripts.request_faults.clear();
    }

    /// Answers every 404 with this Status reason instead of `NotFound`, as some servers,
    /// proxies and emulators do ("Object Not Found").
    pub fn answer_not_found_with(&self, reason: &str) {
        self.lock().scripts.not_found_reason = Some(reason.into());
    }

    /// Ends every open watch with a 410 Expired ERROR event and forgets the change history, so
    /// resuming from the last resourceVersion is refused too and watchers must list again.
    pub fn expire_watches(&self) {
        let mut state = self.lock();
        state.compact();
        state.expiries.send_modify(|n| *n += 1);
    }

    /// How many requests a fault holds unanswered right now.
    pub fn held_requests(&self) -> usize {
        self.lock().held
    }

    /// Forgets the change history, as etcd's compaction does: a watch from any older
    /// resourceVersion now gets 410 Gone.
    pub fn compact(&self) {
        self.lock().compact();
    }

    /// Sends a BOOKMARK now on every open watch that allows them.
    pub fn send_bookmarks(&self) {
        self.lock().bookmark_requests.send_modify(|n| *n += 1);
    }

    /// How CRDs become Established from now on (default: at the first read).
    pub fn set_establish(&self, establish: Establish) {
        self.lock().scripts.establish = establish;
    }

    /// Jobs named `name` (in any namespace) fail instead of completing.
    pub fn fail_job(&self, name: &str) {
        self.lock().scripts.failing_jobs.push(name.into());
    }

    /// From now on answers discovery only with the legacy documents (`APIVersions`,
    /// `APIGroupList`, `APIResourceList` as `application/json`), ignoring an `Accept` that
    /// asks for aggregated discovery, as Kubernetes before 1.26 and many proxies do.
    pub fn serve_only_legacy_discovery(&self) {
        self.lock().scripts.legacy_discovery = true;
    }

    /// Answers `verb` on `resource` (a plural) with 403, in `namespace` or everywhere.
    pub fn refuse(&self, verb: &str, resource: &str, namespace: Option<&str>) {
        self.lock().scripts.refusals.push(Refusal {
            verb: verb.into(),
            resource: resource.into(),
            namespace: namespace.map(String::from),
        });
    }

    pub fn requests(&self) -> Vec<RequestRecord> {
        self.lock().requests.clone()
    }

    pub fn request_count(&self) -> usize {
        self.lock().requests.len()
    }

    /// Every webhook call answered so far: its path and how long it took on this server's side.
    pub fn webhook_calls(&self) -> Vec<(String, std::time::Duration)> {
        self.lock().webhook_calls.clone()
    }

    pub fn reset_requests(&self) {
        self.lock().requests.clear();
    }

    /// The stored object, as etcd holds it (no read side effects).
    pub fn object(
        &self,
        group: &str,
        plural: &str,
        namespace: Option<&str>,
        name: &str,
    ) -> Option<Value> {
        let key = Key {
            group: group.into(),
            plural: plural.into(),
            namespace: namespace.unwrap_or_default().into(),
            name: name.into(),
        };
        self.lock().object(&key).cloned()
    }

    /// Every stored object of a resource, in any namespace.
    pub fn objects(&self, group: &str, plural: &str) -> Vec<Value> {
        self.lock()
            .objects()
            .filter(|(k, _)| k.group == group && k.plural == plural)
            .map(|(_, v)| v.clone())
            .collect()
    }

    /// Stores `object` under `group`/`plural` as it is, without the checks of a write: for
    /// objects the API refuses today but a cluster may still hold from an older release.
    pub fn put_unchecked(&self, group: &str, plural: &str, object: Value) {
        let key = Key {
            group: group.into(),
            plural: plural.into(),
            namespace: object["metadata"]["namespace"]
                .as_str()
                .unwrap_or_default()
                .into(),
            name: object["metadata"]["name"]
                .as_str()
                .unwrap_or_default()
                .into(),
        };
        self.lock().put_unchecked(key, object);
    }

    /// Deletes a stored object at once, without the checks of a request: what another
    /// client did while a test had cut every connection ([`KubeServer::cut_connections`]).
    pub fn remove_unchecked(
        &self,
        group: &str,
        plural: &str,
        namespace: Option<&str>,
        name: &str,
    ) -> bool {
        let key = Key {
            group: group.into(),
            plural: plural.into(),
            namespace: namespace.unwrap_or_default().into(),
            name: name.into(),
        };
        self.lock().remove_unchecked(key)
    }

    /// Every stored object of every resource, for "nothing is left" checks.
    pub fn all_objects(&self) -> Vec<Value> {
        self.lock().objects().map(|(_, v)| v.clone()).collect()
    }

    /// The real `kubectl` pointed at this server, with its discovery cache in `cache_dir` (never
    /// the user's `~/.kube/cache`).
    pub fn kubectl(&self, cache_dir: &Path) -> std::process::Command {
        let mut command = kubectl();
        command
            .arg("--kubeconfig")
            .arg(self.kubeconfig())
            .arg("--cache-dir")
            .arg(cache_dir);
        command
    }

    /// [`KubeServer::kubectl`] with `args`, `input` on its standard input: its output.
    pub fn kubectl_with_input(
        &self,
        cache_dir: &Path,
        args: &[&str],
        input: &str,
    ) -> std::process::Output {
        use std::io::Write;
        let mut child = self
            .kubectl(cache_dir)
            .args(args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("kubectl runs");
        if let Some(mut stdin) = child.stdin.take() {
            // kubectl may exit before reading it all; its output says why.
            let _ = stdin.write_all(input.as_bytes());
        }
        child.wait_with_output().expect("kubectl's output")
    }

    /// The current resourceVersion of the whole store: unchanged means nothing was written.
    pub fn resource_version(&self) -> u64 {
        self.lock().resource_version()
    }
}

impl Drop for KubeServer {
    fn drop(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The real `kubectl` from PATH: the second, independent client of the deploy tests. Without
/// it the tests cannot cross-check anything, so they fail rather than skip.
pub fn kubectl() -> std::process::Command {
    let found = std::env::var_os("PATH")
        .map(|paths| std::env::split_paths(&paths).any(|dir| dir.join("kubectl").is_file()))
        .unwrap_or(false);
    assert!(
        found,
        "kubectl is required on PATH: the deploy tests cross-check every deploy with it"
    );
    std::process::Command::new("kubectl")
}
