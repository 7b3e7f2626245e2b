//! `operator-rs run` for a Rust operator with webhooks: the operator serves them on this
//! machine, with a certificate made for the run, and the cluster calls them there while it
//! runs.
//!
//! THE CONTRACT between `run` and the operator, defined here and nowhere else (README,
//! "operator-rs run" with webhooks, says the same for users). When `deploy/` holds a
//! MutatingWebhookConfiguration, a ValidatingWebhookConfiguration or a CRD with
//! `spec.conversion.strategy: Webhook`, `run` starts the operator with two more arguments,
//! before those given after `--`:
//!
//! - `--webhook-bind-address=ADDRESS:PORT`: where the operator's HTTPS webhook server
//!   listens (`HOST:PORT` of `--webhook-host` and `--webhook-port`, `0.0.0.0:PORT` when the
//!   host is a name); the paths it serves are those of `deploy/`'s `clientConfig.service.path`.
//! - `--webhook-cert-dir=DIR`: a private directory holding `tls.crt` (the serving
//!   certificate, for HOST), `tls.key` (its key) and `ca.crt` (the CA that signed it), all PEM.
//!   An operator given this directory serves these files and manages no certificate of its
//!   own: no Secret, no CA injection into webhook configurations or CRDs.
//!
//! `run` waits until `https://HOST:PORT/` answers over TLS with that certificate (any HTTP
//! status will do), then registers, under the same names, copies of `deploy/`'s webhook
//! configurations whose `clientConfig` is `url: https://HOST:PORT/PATH` and `caBundle`, and
//! sets each converting CRD's `spec.conversion.webhook.clientConfig` the same way. When the
//! operator has stopped (by itself, Ctrl-C or SIGTERM), configurations that existed before
//! are put back as they were, the others deleted, and each CRD's `spec.conversion` restored.

use std::net::IpAddr;
use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;
use tokio::time::Instant;

use crate::certs::{self, ServingCertificate};
use crate::cli::RunArgs;
use crate::error::usage;
use crate::kube::{Cluster, Deleted};
use crate::manifests::{Manifest, Origin};
use crate::ui::Ui;
use crate::webhooks;

/// The operator's arguments of the contract above.
pub const BIND_ADDRESS_FLAG: &str = "--webhook-bind-address";
pub const CERT_DIR_FLAG: &str = "--webhook-cert-dir";

/// How long a certificate made for one run is valid.
const VALIDITY: Duration = Duration::from_secs(365 * 24 * 3600);
/// How long putting back what `run` changed may take, so that a cluster gone away does not
/// keep `run` from ending.
const RESTORE_TIMEOUT: Duration = Duration::from_secs(30);

/// Refuses operator arguments that the contract sets, before anything runs.
pub fn check_operator_args(operator_args: &[String]) -> anyhow::Result<()> {
    for flag in [BIND_ADDRESS_FLAG, CERT_DIR_FLAG] {
        if let Some(given) = operator_args
            .iter()
            .find(|a| *a == flag || a.starts_with(&format!("{flag}=")))
        {
            return Err(usage(format!(
                "\"{given}\" after -- is set by operator-rs run itself when deploy/ has webhooks: choose the address with --webhook-host and --webhook-port instead"
            )));
        }
    }
    Ok(())
}

/// The address of this machine that the API server calls webhooks at: `--webhook-host`,
/// else loopback when the API server is on this machine's loopback and not in a container.
pub fn choose_host(
    flag: Option<&str>,
    server: &str,
    context: Option<&str>,
) -> anyhow::Result<String> {
    if let Some(host) = flag {
        // Checked by [`check`] before anything ran.
        return Ok(host.to_string());
    }
    let server_host = reqwest::Url::parse(server)
        .ok()
        .and_then(|url| url.host_str().map(String::from))
        .unwrap_or_default();
    let server_host = server_host.trim_start_matches('[').trim_end_matches(']');
    let loopback = server_host == "localhost"
        || server_host
            .parse::<IpAddr>()
            .is_ok_and(|ip| ip.is_loopback());
    if !loopback {
        return Err(usage(format!(
            "the API server at {server} is not on this machine's loopback, so it cannot call webhooks served at 127.0.0.1: pass --webhook-host ADDRESS, an address of this machine that the API server can reach"
        )));
    }
    let in_container =
        context.is_some_and(|c| c.starts_with("kind-") || c.starts_with("k3d-") || c == "minikube");
    if let Some(context) = context.filter(|_| in_container) {
        return Err(usage(format!(
            "the API server of context \"{context}\" runs in a container, where 127.0.0.1 is not this machine, so it cannot call webhooks served here: pass --webhook-host with this machine's address on the cluster's Docker network, its gateway (for kind: docker network inspect kind -f '{{{{(index .IPAM.Config 0).Gateway}}}}'; for k3d: the same on the network k3d-NAME)"
        )));
    }
    Ok(
        if server_host.parse::<IpAddr>().is_ok_and(|ip| ip.is_ipv6()) {
            "::1".to_string()
        } else {
            "127.0.0.1".to_string()
        },
    )
}

/// The operator's webhook server under `run`: where it listens and with which certificate.
pub struct LocalWebhooks {
    host: String,
    port: u16,
    certificate: ServingCertificate,
    /// Holds `tls.crt`, `tls.key` and `ca.crt`; removed when `run` ends.
    dir: tempfile::TempDir,
}

impl LocalWebhooks {
    /// A certificate for `host` in a private directory, and the port (`0`: a free one).
    pub fn prepare(host: String, port: u16) -> anyhow::Result<LocalWebhooks> {
        let certificate = certs::issue(std::slice::from_ref(&host), VALIDITY)?;
        let dir = tempfile::Builder::new()
            .prefix("operator-rs-run-webhooks-")
            .tempdir()?;
        certificate.write_to(dir.path())?;
        let port = match port {
            // A port found free is let go for the operator to bind; another process could
            // take it in between, and the operator would then say so.
            0 => std::net::TcpListener::bind((bind_ip(&host), 0))?
                .local_addr()?
                .port(),
            port => port,
        };
        Ok(LocalWebhooks {
            host,
            port,
            certificate,
            dir,
        })
    }

    /// `https://HOST:PORT`.
    pub fn base_url(&self) -> String {
        match self.host.parse::<IpAddr>() {
            Ok(IpAddr::V6(ip)) => format!("https://[{ip}]:{}", self.port),
            _ => format!("https://{}:{}", self.host, self.port),
        }
    }

    /// The operator's arguments of the contract.
    pub fn operator_args(&self) -> [String; 2] {
        let bind = match bind_ip(&self.host) {
            IpAddr::V6(ip) => format!("[{ip}]:{}", self.port),
            ip => format!("{ip}:{}", self.port),
        };
        [
            format!("{BIND_ADDRESS_FLAG}={bind}"),
            format!("{CERT_DIR_FLAG}={}", self.cert_dir().display()),
        ]
    }

    pub fn cert_dir(&self) -> PathBuf {
        self.dir.path().to_path_buf()
    }

    /// Polls until the operator answers over TLS at the base URL, backing off, until
    /// `deadline`; the error says what the last attempt met.
    pub async fn wait_serving(&self, deadline: Instant) -> anyhow::Result<()> {
        let roots = reqwest::Certificate::from_pem_bundle(self.certificate.ca_pem.as_bytes())?;
        let client = reqwest::Client::builder()
            .tls_certs_only(roots)
            .no_proxy()
            .timeout(Duration::from_secs(2))
            .build()?;
        let url = format!("{}/", self.base_url());
        let mut pause = Duration::from_millis(100);
        loop {
            let error = match client.get(&url).send().await {
                Ok(_) => return Ok(()),
                Err(e) => crate::chart::download::chain(&e),
            };
            let now = Instant::now();
            if now >= deadline {
                anyhow::bail!(
                    "the operator did not serve its webhooks at {url}: {error}\n  it must take {BIND_ADDRESS_FLAG} and {CERT_DIR_FLAG} and serve HTTPS there with the certificate of that directory"
                );
            }
            tokio::time::sleep(pause.min(deadline - now)).await;
            pause = (pause * 2).min(Duration::from_secs(2));
        }
    }
}

/// The address to bind for `host`: itself, or every IPv4 address for a name.
fn bind_ip(host: &str) -> IpAddr {
    host.parse()
        .unwrap_or(IpAddr::V4(std::net::Ipv4Addr::UNSPECIFIED))
}

/// What `run` changed in the cluster, to put back.
#[derive(Default)]
pub struct Registered {
    /// Each configuration `run` wrote, and the object that was there before (`None`: none).
    configurations: Vec<(Manifest, Option<Value>)>,
    /// Each CRD whose conversion `run` changed, and its `spec.conversion` before.
    conversions: Vec<(Manifest, Value)>,
}

impl Registered {
    pub fn is_empty(&self) -> bool {
        self.configurations.is_empty() && self.conversions.is_empty()
    }
}

/// A live object as a manifest to write back: without what the server owns.
fn writable(mut object: Value) -> Manifest {
    if let Some(metadata) = object["metadata"].as_object_mut() {
        for field in [
            "resourceVersion",
            "uid",
            "creationTimestamp",
            "generation",
            "managedFields",
        ] {
            metadata.remove(field);
        }
    }
    Manifest {
        origin: Origin::Cluster,
        object,
    }
}

/// Registers the local copies of `manifests`' webhook configurations and conversions,
/// recording in `registered` each change as it is made, so that a failure half way leaves
/// nothing that cannot be put back.
pub async fn register(
    ui: &Ui,
    cluster: &Cluster,
    manifests: &[Manifest],
    local: &LocalWebhooks,
    registered: &mut Registered,
) -> anyhow::Result<()> {
    let base = local.base_url();
    let ca = &local.certificate.ca_pem;
    for configuration in manifests.iter().filter(|m| webhooks::is_configuration(m)) {
        let before = cluster.get(configuration).await?;
        let copy = webhooks::local_configuration(configuration, &base, ca);
        registered.configurations.push((copy.clone(), before));
        cluster.replace(&copy).await?;
        ui.info(format!(
            "{}: calls {base} while the operator runs",
            copy.display_name()
        ));
    }
    for crd in manifests
        .iter()
        .filter(|m| webhooks::converts_by_webhook(m))
    {
        let Some(live) = cluster.get(crd).await? else {
            anyhow::bail!(
                "{} is not in the cluster any more, so its conversion cannot call the operator",
                crd.display_name()
            );
        };
        registered
            .conversions
            .push((crd.clone(), live["spec"]["conversion"].clone()));
        let mut changed = live;
        changed["spec"]["conversion"] = webhooks::local_conversion(crd, &base, ca);
        cluster.replace(&writable(changed)).await?;
        ui.info(format!(
            "{}: converts through {base} while the operator runs",
            crd.display_name()
        ));
    }
    Ok(())
}

/// Puts back what [`register`] changed. Every step is tried; the error lists those that
/// failed, with what to run instead.
pub async fn restore(ui: &Ui, cluster: &Cluster, registered: Registered) -> anyhow::Result<()> {
    let mut failed = Vec::new();
    for (copy, before) in registered.configurations {
        let kind = copy.kind().to_lowercase();
        let outcome = match before {
            Some(original) => {
                tokio::time::timeout(RESTORE_TIMEOUT, cluster.replace(&writable(original)))
                    .await
                    .map(|r| r.map(|_| "put back as it was"))
            }
            None => tokio::time::timeout(RESTORE_TIMEOUT, cluster.delete(&copy))
                .await
                .map(|r| {
                    r.map(|d| match d {
                        Deleted::Deleted => "deleted",
                        Deleted::NotFound => "already gone",
                    })
                }),
        };
        match outcome {
            Ok(Ok(what)) => ui.info(format!("{}: {what}", copy.display_name())),
            Ok(Err(e)) => failed.push(format!(
                "{}: {e}\n    fix it with `kubectl delete {kind} {}` (and `operator-rs deploy` to put the deployed one back)",
                copy.display_name(),
                copy.name()
            )),
            Err(_) => failed.push(format!(
                "{}: no answer within {}s\n    fix it with `kubectl delete {kind} {}`",
                copy.display_name(),
                RESTORE_TIMEOUT.as_secs(),
                copy.name()
            )),
        }
    }
    for (crd, before) in registered.conversions {
        let outcome = tokio::time::timeout(RESTORE_TIMEOUT, async {
            let Some(mut live) = cluster.get(&crd).await? else {
                return Ok::<_, crate::kube::KubeError>(());
            };
            match &before {
                Value::Null => {
                    if let Some(spec) = live["spec"].as_object_mut() {
                        spec.remove("conversion");
                    }
                }
                conversion => live["spec"]["conversion"] = conversion.clone(),
            }
            cluster.replace(&writable(live)).await.map(|_| ())
        })
        .await;
        match outcome {
            Ok(Ok(())) => ui.info(format!(
                "{}: its conversion is put back as it was",
                crd.display_name()
            )),
            Ok(Err(e)) => failed.push(format!(
                "{}: {e}\n    fix it with `operator-rs generate crds` and `kubectl apply --server-side -f` of its file",
                crd.display_name()
            )),
            Err(_) => failed.push(format!(
                "{}: no answer within {}s",
                crd.display_name(),
                RESTORE_TIMEOUT.as_secs()
            )),
        }
    }
    if failed.is_empty() {
        return Ok(());
    }
    anyhow::bail!(
        "some webhooks that operator-rs run registered could not be put back; until they are, the API server calls a webhook that no longer runs:\n  {}",
        failed.join("\n  ")
    )
}

/// The webhook configurations and converting CRDs of the filled deploy files.
pub fn webhook_manifests(manifests: &[Manifest]) -> Vec<Manifest> {
    manifests
        .iter()
        .filter(|m| webhooks::is_configuration(m) || webhooks::converts_by_webhook(m))
        .cloned()
        .collect()
}

/// Settings of `run` that concern webhooks, checked before anything runs.
pub fn check(args: &RunArgs) -> anyhow::Result<()> {
    check_operator_args(&args.operator_args)?;
    validate_host(args.webhook_host.as_deref())
}

fn validate_host(host: Option<&str>) -> anyhow::Result<()> {
    match host {
        Some(host) if !certs::is_certificate_name(host) => Err(usage(format!(
            "--webhook-host \"{host}\" must be an IP address or a DNS name (for example 172.18.0.1)"
        ))),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_servers_get_loopback_and_others_need_the_flag() {
        assert_eq!(
            choose_host(None, "https://127.0.0.1:6443", Some("dev")).unwrap(),
            "127.0.0.1"
        );
        assert_eq!(
            choose_host(None, "http://localhost:8080", None).unwrap(),
            "127.0.0.1"
        );
        assert_eq!(
            choose_host(None, "https://[::1]:6443", None).unwrap(),
            "::1"
        );
        let remote = choose_host(None, "https://10.1.2.3:6443", Some("prod")).unwrap_err();
        assert!(crate::error::is_usage(&remote));
        assert!(remote.to_string().contains("--webhook-host"), "{remote}");
        assert_eq!(
            choose_host(Some("10.9.8.7"), "https://10.1.2.3:6443", Some("prod")).unwrap(),
            "10.9.8.7"
        );
    }

    #[test]
    fn a_cluster_in_docker_needs_the_gateway() {
        for context in ["kind-dev", "k3d-test", "minikube"] {
            let err = choose_host(None, "https://127.0.0.1:41234", Some(context)).unwrap_err();
            assert!(crate::error::is_usage(&err));
            let text = err.to_string();
            assert!(text.contains(context) && text.contains("gateway"), "{text}");
        }
        assert_eq!(
            choose_host(
                Some("172.18.0.1"),
                "https://127.0.0.1:41234",
                Some("kind-dev")
            )
            .unwrap(),
            "172.18.0.1"
        );
    }

    #[test]
    fn the_contracts_flags_are_runs_own_and_the_host_must_be_an_address() {
        assert!(check_operator_args(&["--leader-elect".into()]).is_ok());
        let bad = check_operator_args(&[])
            .and_then(|()| validate_host(Some("not a host")))
            .unwrap_err();
        assert!(crate::error::is_usage(&bad));
        assert!(bad.to_string().contains("\"not a host\""), "{bad}");
        for given in ["--webhook-bind-address=:9443", "--webhook-cert-dir"] {
            let err = check_operator_args(&[given.into()]).unwrap_err();
            assert!(crate::error::is_usage(&err));
            assert!(err.to_string().contains(given), "{err}");
        }
    }

    #[test]
    fn the_operator_binds_the_host_and_reads_the_certificate_directory() {
        let local = LocalWebhooks::prepare("127.0.0.1".into(), 19443).unwrap();
        assert_eq!(local.base_url(), "https://127.0.0.1:19443");
        let [bind, dir] = local.operator_args();
        assert_eq!(bind, "--webhook-bind-address=127.0.0.1:19443");
        assert!(dir.starts_with("--webhook-cert-dir=/"), "{dir}");
        for file in [certs::CERT_FILE, certs::KEY_FILE, certs::CA_FILE] {
            assert!(local.cert_dir().join(file).is_file(), "{file}");
        }
        let ipv6 = LocalWebhooks::prepare("::1".into(), 9443).unwrap();
        assert_eq!(ipv6.base_url(), "https://[::1]:9443");
        assert_eq!(ipv6.operator_args()[0], "--webhook-bind-address=[::1]:9443");
        let named = LocalWebhooks::prepare("host.docker.internal".into(), 9443).unwrap();
        assert_eq!(
            named.operator_args()[0],
            "--webhook-bind-address=0.0.0.0:9443"
        );
    }
}
