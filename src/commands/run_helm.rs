//! `operator-rs run` in a Helm project: the project's CRDs are applied, then operator-rs's own
//! Helm operator runtime runs in this process against the cluster, with the helm-operator's
//! flags after `--`, its log lines streaming to stderr, until Ctrl-C or SIGTERM, which let the
//! reconciles in flight finish (a second Ctrl-C stops at once).

use std::net::SocketAddr;
use std::path::Path;

use clap::Parser;
use futures::FutureExt;

use super::cluster::check_namespace;
use super::run_cluster::{Target, apply_crds, connect, fill_namespace};
use crate::cli::{HelmRuntimeArgs, HelmRuntimeFlags, RunArgs};
use crate::error::usage;
use crate::helm_runtime::controller::{self, Log, Options};
use crate::helm_runtime::http::{self, Routes};
use crate::helm_runtime::leader::{self, Candidate};
use crate::helm_runtime::log::Format;
use crate::helm_runtime::metrics::Metrics;
use crate::helm_runtime::watches::Watch;
use crate::helm_runtime::{probes, watches};
use crate::kube::Cluster;
use crate::manifests;
use crate::project::Project;
use crate::ui::Ui;

pub fn run(ui: &Ui, args: &RunArgs, root: &Path, project: &Project) -> anyhow::Result<()> {
    if args.release {
        return Err(usage(format!(
            "--release builds a Rust operator with cargo's release profile, but {} is a Helm project: its operator is operator-rs itself and nothing is built; drop --release",
            root.display()
        )));
    }
    let flags = HelmRuntimeFlags::try_parse_from(&args.operator_args)
        .map_err(|e| {
            usage(format!(
                "the Helm operator runtime's arguments (after `--`): {}",
                e.render().to_string().trim_end()
            ))
        })?
        .flags;
    let endpoints = endpoints(&flags)?;
    multi_thread_runtime()?.block_on(run_in_project(ui, args, &flags, endpoints, root, project))
}

/// Where the runtime's own HTTP endpoints listen; `None` turns one off.
pub(super) struct Endpoints {
    pub probes: Option<SocketAddr>,
    pub metrics: Option<SocketAddr>,
}

/// The endpoints' flags, checked before anything runs.
pub(super) fn endpoints(flags: &HelmRuntimeArgs) -> anyhow::Result<Endpoints> {
    // The helm-operator serves metrics over HTTPS with a self-signed certificate and checks
    // each request with a TokenReview and a SubjectAccessReview; accepting the flags while
    // serving plain HTTP to anyone would be a silent downgrade.
    if flags.metrics_require_rbac {
        return Err(usage(
            "--metrics-require-rbac: operator-rs's Helm runtime does not authenticate or authorize metrics requests (it serves /metrics over plain HTTP); drop --metrics-require-rbac and --metrics-secure and restrict who reaches the metrics port otherwise (a NetworkPolicy), or use the helm-operator image, which supports it (`runtime: helm-operator` in PROJECT)",
        ));
    }
    if flags.enable_http2 {
        return Err(usage(
            "--enable-http2: operator-rs's Helm runtime serves /metrics over HTTP/1.1 only (the helm-operator's default is off too); drop --enable-http2",
        ));
    }
    if flags.metrics_secure {
        return Err(usage(
            "--metrics-secure: operator-rs's Helm runtime serves /metrics over plain HTTP only; drop --metrics-secure (the helm-operator's default is off too), or use the helm-operator image, which supports it (`runtime: helm-operator` in PROJECT)",
        ));
    }
    Ok(Endpoints {
        probes: http::parse_address(&flags.health_probe_bind_address)
            .map_err(|e| usage(format!("--health-probe-bind-address: {e}")))?,
        metrics: http::parse_address(&flags.metrics_bind_address)
            .map_err(|e| usage(format!("--metrics-bind-address: {e}")))?,
    })
}

/// Reconciles render charts on blocking threads and talk to the API server meanwhile.
pub(super) fn multi_thread_runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    Ok(tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?)
}

async fn run_in_project(
    ui: &Ui,
    args: &RunArgs,
    flags: &HelmRuntimeArgs,
    endpoints: Endpoints,
    root: &Path,
    project: &Project,
) -> anyhow::Result<()> {
    let watches_file = root.join(&flags.watches_file);
    // The helm-operator resolves charts against its working directory, the project root here.
    let loaded = watches::load(&watches_file, root)?;

    let Target {
        cluster,
        namespace,
        watched,
    } = connect(
        ui,
        args,
        project,
        &format!("the Helm operator {}", project.project_name),
    )
    .await?;
    for warning in &loaded.warnings {
        ui.warn(warning);
    }

    let bundle = manifests::load(root, project, false)?;
    apply_crds(
        ui,
        &cluster,
        args,
        &fill_namespace(&cluster, &bundle, &namespace),
    )
    .await?;

    let lease = flags.leader_elect.then(|| Lease {
        namespace: flags
            .leader_election_namespace
            .clone()
            .unwrap_or_else(|| namespace.clone()),
        name: flags
            .leader_election_id
            .clone()
            .unwrap_or_else(|| project.project_name.clone()),
    });
    operate(
        ui,
        Operator {
            cluster,
            flags,
            endpoints,
            watches: loaded.entries,
            namespaces: split_namespaces(&watched),
            lease,
        },
    )
    .await
}

/// The Lease of leader election.
pub(super) struct Lease {
    pub namespace: String,
    pub name: String,
}

/// Everything the runtime needs once the cluster is reached and the watches are read, the
/// same for `operator-rs run` and for an image's `operator-rs helm-operator-runtime`.
pub(super) struct Operator<'a> {
    pub cluster: Cluster,
    pub flags: &'a HelmRuntimeArgs,
    pub endpoints: Endpoints,
    pub watches: Vec<Watch>,
    /// `WATCH_NAMESPACE` split; empty for every namespace.
    pub namespaces: Vec<String>,
    /// `Some` with `--leader-elect`.
    pub lease: Option<Lease>,
}

/// Runs the controllers of every watch until a stop signal (or a lost Lease): probes and
/// metrics first, then leadership when asked for, then the reconciles.
pub(super) async fn operate(ui: &Ui, operator: Operator<'_>) -> anyhow::Result<()> {
    let Operator {
        cluster,
        flags,
        endpoints,
        watches,
        namespaces,
        lease,
    } = operator;
    if let Some(lease) = &lease {
        check_namespace(&lease.namespace)?;
    }
    let metrics = Metrics::new();
    // Dropped on every way out, which stops both servers.
    let mut servers = Servers::default();
    if let Some(address) = endpoints.probes {
        let bound = servers
            .start(address, probes::routes())
            .await
            .map_err(|e| {
                anyhow::anyhow!(
                    "cannot listen on {address} for /healthz and /readyz: {e} (choose another with --health-probe-bind-address=127.0.0.1:PORT, or 0 to turn it off)"
                )
            })?;
        ui.info(format!(
            "Health probes on http://{bound}/healthz and /readyz"
        ));
    }
    if let Some(address) = endpoints.metrics {
        let bound = servers
            .start(address, metrics.routes())
            .await
            .map_err(|e| {
                anyhow::anyhow!(
                    "cannot listen on {address} for /metrics: {e} (choose another with --metrics-bind-address=127.0.0.1:PORT, or 0 to turn it off)"
                )
            })?;
        ui.info(format!("Metrics on http://{bound}/metrics"));
    }

    let log = Log::to_stderr(Format::from_flags(
        flags.zap_devel,
        flags.zap_encoder,
        flags.zap_log_level,
        flags.zap_time_encoding,
    ));
    let options = Options {
        watches,
        namespaces,
        reconcile_period: flags.reconcile_period,
        max_concurrent_reconciles: flags.max_concurrent_reconciles.map_or_else(
            || std::thread::available_parallelism().map_or(1, |n| n.get()),
            usize::from,
        ),
        log: log.clone(),
        metrics: metrics.clone(),
        suppress_override_values: flags.suppress_override_values,
    };
    ui.info("The operator runs (Ctrl-C stops it)");
    let stop = stop_signal(log.clone()).boxed().shared();
    let mut leadership = None;
    if let Some(lease) = &lease {
        let identity = identity();
        log.info(&format!(
            "Waiting for leadership: Lease {}/{} as {identity}",
            lease.namespace, lease.name
        ));
        leader::log_election_to(log.clone());
        let candidate = Candidate::new(
            cluster.client().clone(),
            &lease.namespace,
            &lease.name,
            &identity,
        );
        // As client-go's elector: 0 from the start of the election, 1 while leading.
        metrics.set_leader(&lease.name, false);
        leadership = tokio::select! {
            acquired = candidate.acquire() => Some(acquired?),
            () = stop.clone() => return Ok(()),
        };
        metrics.set_leader(&lease.name, true);
        log.info("Became the leader");
    }
    let controllers = controller::run(cluster, options, stop);
    tokio::pin!(controllers);
    let result = match leadership.as_mut() {
        Some(leadership) => tokio::select! {
            result = &mut controllers => result,
            lost = leadership.lost() => {
                if let Some(lease) = &lease {
                    metrics.set_leader(&lease.name, false);
                }
                // Another replica may be reconciling already: not one more request from here.
                log.error(&format!("Lost leadership ({lost}); stopping at once, without finishing the reconciles in flight"));
                return Err(anyhow::anyhow!("lost leadership: {lost}"));
            }
        },
        None => controllers.await,
    };
    drop(servers);
    result?;
    if let Some(leadership) = leadership {
        leadership.release().await;
    }
    ui.info("The operator stopped.");
    Ok(())
}

/// The runtime's HTTP servers, stopped when dropped.
#[derive(Default)]
struct Servers(Vec<tokio::task::JoinHandle<()>>);

impl Servers {
    /// Binds `address` and serves `routes` on it; returns the bound address (port 0 picks one).
    async fn start(&mut self, address: SocketAddr, routes: Routes) -> std::io::Result<SocketAddr> {
        let listener = http::bind(address).await?;
        let bound = listener.local_addr()?;
        self.0.push(tokio::spawn(http::serve(listener, routes)));
        Ok(bound)
    }
}

impl Drop for Servers {
    fn drop(&mut self) {
        for server in &self.0 {
            server.abort();
        }
    }
}

/// Who this process is in the election: the pod's or host's name, made unique per process
/// as controller-runtime does (two processes of one host must not share an identity).
fn identity() -> String {
    let host = std::env::var("POD_NAME")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .or_else(|| {
            std::fs::read_to_string("/proc/sys/kernel/hostname")
                .ok()
                .map(|h| h.trim().to_string())
        })
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "operator-rs".to_string());
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    format!("{host}_{}-{nanos:x}", std::process::id())
}

/// `WATCH_NAMESPACE`'s form: comma-separated names, empty for every namespace.
pub(super) fn split_namespaces(text: &str) -> Vec<String> {
    text.split(',')
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .map(str::to_string)
        .collect()
}

/// Completes at the first Ctrl-C or SIGTERM; a second one exits at once.
async fn stop_signal(log: Log) {
    let name = first_signal().await;
    log.info(&format!(
        "{name}: stopping once the reconciles in flight finish (Ctrl-C again stops at once)"
    ));
    tokio::spawn(async {
        let name = first_signal().await;
        eprintln!("{name} again: stopping now");
        std::process::exit(130);
    });
}

async fn first_signal() -> &'static str {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let Ok(mut term) = signal(SignalKind::terminate()) else {
            let _ = tokio::signal::ctrl_c().await;
            return "Ctrl-C";
        };
        tokio::select! {
            _ = tokio::signal::ctrl_c() => "Ctrl-C",
            _ = term.recv() => "SIGTERM",
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
        "Ctrl-C"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn watch_namespace_is_a_comma_separated_list() {
        assert_eq!(split_namespaces("a, b,,c"), ["a", "b", "c"]);
        assert!(split_namespaces("").is_empty());
    }

    #[test]
    fn runtime_flags_are_the_helm_operators() {
        let flags = HelmRuntimeFlags::try_parse_from([
            "--watches-file=w.yaml",
            "--reconcile-period=30s",
            "--max-concurrent-reconciles",
            "4",
            "--metrics-bind-address=:8080",
        ])
        .unwrap()
        .flags;
        assert_eq!(flags.watches_file, Path::new("w.yaml"));
        assert_eq!(flags.reconcile_period, std::time::Duration::from_secs(30));
        assert_eq!(flags.max_concurrent_reconciles, Some(4));
        assert_eq!(flags.health_probe_bind_address, ":8081");
        assert_eq!(flags.metrics_bind_address, ":8080");
        assert!(HelmRuntimeFlags::try_parse_from(["--reconcile-period=5"]).is_err());
    }

    fn flags(args: &[&str]) -> HelmRuntimeArgs {
        HelmRuntimeFlags::try_parse_from(args).unwrap().flags
    }

    #[test]
    fn metrics_are_off_unless_asked_for_and_never_secure() {
        let off = endpoints(&flags(&[])).unwrap();
        assert_eq!(off.metrics, None);
        assert_eq!(off.probes, Some("0.0.0.0:8081".parse().unwrap()));
        let on = endpoints(&flags(&["--metrics-bind-address=127.0.0.1:0"])).unwrap();
        assert_eq!(on.metrics, Some("127.0.0.1:0".parse().unwrap()));
        // Go's boolean flags: bare, or with =VALUE as strconv.ParseBool reads it.
        assert!(flags(&["--metrics-secure"]).metrics_secure);
        assert!(flags(&["--metrics-secure=T"]).metrics_secure);
        assert!(!flags(&["--metrics-secure=false"]).metrics_secure);
        assert!(HelmRuntimeFlags::try_parse_from(["--metrics-secure=yes"]).is_err());
        let refused = |args: &[&str]| endpoints(&flags(args)).err().unwrap().to_string();
        assert!(refused(&["--metrics-secure"]).contains("plain HTTP only"));
        assert!(
            refused(&["--metrics-secure", "--metrics-require-rbac"])
                .starts_with("--metrics-require-rbac:")
        );
        assert!(refused(&["--metrics-bind-address=8080"]).contains("--metrics-bind-address"));
        assert!(endpoints(&flags(&["--metrics-secure=0", "--metrics-require-rbac=f"])).is_ok());
        assert!(refused(&["--enable-http2"]).starts_with("--enable-http2:"));
        assert!(endpoints(&flags(&["--enable-http2=false"])).is_ok());
        // The helm-operator's deprecated spellings.
        assert_eq!(
            flags(&["--metrics-addr=:9090"]).metrics_bind_address,
            ":9090"
        );
        assert!(flags(&["--enable-leader-election"]).leader_elect);
        assert!(flags(&["--suppress-override-values"]).suppress_override_values);
    }
}
