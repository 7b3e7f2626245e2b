//! Which cluster to talk to, chosen the way kubectl chooses: `--kubeconfig`, else every file
//! of `$KUBECONFIG` merged, else `~/.kube/config`, else the in-cluster service account;
//! `--context` picks a context, otherwise the current one.

use std::path::PathBuf;

use kube::config::{KubeConfigOptions, Kubeconfig};

use super::error::{Endpoint, KubeError};

/// The connection flags shared by every command that talks to a cluster.
#[derive(Debug, Clone, Default)]
pub struct ConnectOptions {
    pub kubeconfig: Option<PathBuf>,
    pub context: Option<String>,
    /// kubectl's `--cache-dir`; `None` means kubectl's default (`$KUBECACHEDIR`, else
    /// `~/.kube/cache`).
    pub cache_dir: Option<PathBuf>,
}

/// A resolved cluster configuration, with what messages need to name it.
pub struct Target {
    pub config: kube::Config,
    pub endpoint: Endpoint,
    /// The server as the kubeconfig spells it: kubectl names its discovery cache after it.
    pub host: String,
    /// The kubeconfig user of the context, the identity named when nothing better is known.
    pub user: Option<String>,
    /// The namespace the context (or the in-cluster service account) names, if any.
    pub namespace: Option<String>,
}

/// Where the kubeconfig comes from, for messages.
fn describe_source(options: &ConnectOptions) -> String {
    match (&options.kubeconfig, std::env::var_os("KUBECONFIG")) {
        (Some(path), _) => path.display().to_string(),
        (None, Some(value)) if !value.is_empty() => {
            format!("$KUBECONFIG ({})", value.to_string_lossy())
        }
        _ => "~/.kube/config".to_string(),
    }
}

/// Reads the kubeconfig the options point at; `Ok(None)` when there is none at all.
fn read_kubeconfig(options: &ConnectOptions) -> Result<Option<Kubeconfig>, KubeError> {
    let failed = |e: kube::config::KubeconfigError| KubeError::Kubeconfig {
        path: describe_source(options),
        message: e.to_string(),
    };
    if let Some(path) = &options.kubeconfig {
        return Kubeconfig::read_from(path).map(Some).map_err(failed);
    }
    if let Some(value) = std::env::var_os("KUBECONFIG").filter(|v| !v.is_empty()) {
        // Like kubectl: merge the files in order, first one wins per entry, and skip files
        // that do not exist; `~/.kube/config` is not read when KUBECONFIG is set.
        let mut merged: Option<Kubeconfig> = None;
        for path in std::env::split_paths(&value).filter(|p| p.is_file()) {
            let next = Kubeconfig::read_from(&path).map_err(failed)?;
            merged = Some(match merged {
                Some(m) => m.merge(next).map_err(failed)?,
                None => next,
            });
        }
        return Ok(merged);
    }
    let home = std::env::var_os("HOME").map(PathBuf::from);
    match home.map(|h| h.join(".kube").join("config")) {
        Some(path) if path.is_file() => Kubeconfig::read_from(&path).map(Some).map_err(failed),
        _ => Ok(None),
    }
}

/// The name of the context that will be used, checked against the kubeconfig.
fn context_name(kubeconfig: &Kubeconfig, options: &ConnectOptions) -> Result<String, KubeError> {
    let known = || {
        let names: Vec<String> = kubeconfig
            .contexts
            .iter()
            .map(|c| format!("\"{}\"", c.name))
            .collect();
        if names.is_empty() {
            "(none: the kubeconfig defines no context)".to_string()
        } else {
            names.join(", ")
        }
    };
    let name = match options
        .context
        .clone()
        .or_else(|| kubeconfig.current_context.clone())
    {
        Some(name) if !name.is_empty() => name,
        _ => return Err(KubeError::NoContext { known: known() }),
    };
    if kubeconfig.contexts.iter().any(|c| c.name == name) {
        Ok(name)
    } else {
        Err(KubeError::UnknownContext {
            name,
            known: known(),
        })
    }
}

/// Resolves the target cluster without contacting it.
pub async fn target(options: &ConnectOptions) -> Result<Target, KubeError> {
    let Some(kubeconfig) = read_kubeconfig(options)? else {
        // kubectl falls back to the pod's service account; so do we.
        let config = kube::Config::incluster().map_err(|_| KubeError::NoConfig)?;
        let namespace =
            std::fs::read_to_string("/var/run/secrets/kubernetes.io/serviceaccount/namespace")
                .ok()
                .map(|ns| ns.trim().to_string());
        let server = config.cluster_url.to_string();
        return Ok(Target {
            host: server.trim_end_matches('/').to_string(),
            endpoint: Endpoint {
                server,
                context: None,
            },
            config,
            user: None,
            namespace,
        });
    };
    let context = context_name(&kubeconfig, options)?;
    let details = kubeconfig
        .contexts
        .iter()
        .find(|c| c.name == context)
        .and_then(|c| c.context.clone());
    let server = details
        .as_ref()
        .and_then(|d| kubeconfig.clusters.iter().find(|c| c.name == d.cluster))
        .and_then(|c| c.cluster.as_ref())
        .and_then(|c| c.server.clone())
        .unwrap_or_else(|| "(no server in the kubeconfig)".to_string());
    let endpoint = Endpoint {
        server: server.clone(),
        context: Some(context.clone()),
    };
    let config = kube::Config::from_custom_kubeconfig(
        kubeconfig,
        &KubeConfigOptions {
            context: Some(context),
            ..KubeConfigOptions::default()
        },
    )
    .await
    .map_err(|e| KubeError::Config {
        endpoint: endpoint.clone(),
        message: e.to_string(),
    })?;
    Ok(Target {
        host: server,
        endpoint: Endpoint {
            server: config
                .cluster_url
                .to_string()
                .trim_end_matches('/')
                .to_string(),
            ..endpoint
        },
        config,
        user: details.as_ref().and_then(|d| d.user.clone()),
        namespace: details.and_then(|d| d.namespace),
    })
}

/// The namespace of the selected context, read locally: `--dry-run` needs it and must not
/// contact a cluster, nor fail when there is no kubeconfig at all.
pub fn context_namespace(options: &ConnectOptions) -> Result<Option<String>, KubeError> {
    let Some(kubeconfig) = read_kubeconfig(options)? else {
        return Ok(None);
    };
    if options.context.is_none() && kubeconfig.current_context.is_none() {
        return Ok(None);
    }
    let context = context_name(&kubeconfig, options)?;
    Ok(kubeconfig
        .contexts
        .into_iter()
        .find(|c| c.name == context)
        .and_then(|c| c.context)
        .and_then(|c| c.namespace))
}

/// The kubeconfig a program started by operator-rs (`run`'s operator) should use to reach the
/// same cluster: every file merged as above, with the selected context made current, so that a
/// plain `Config::infer()` in that program picks what `--kubeconfig` and `--context` chose.
/// `Ok(None)` when there is no kubeconfig (in a pod): the program finds the service account
/// as we did.
pub fn kubeconfig_for_child(options: &ConnectOptions) -> Result<Option<Kubeconfig>, KubeError> {
    let Some(mut kubeconfig) = read_kubeconfig(options)? else {
        return Ok(None);
    };
    let context = context_name(&kubeconfig, options)?;
    kubeconfig.current_context = Some(context);
    Ok(Some(kubeconfig))
}

#[cfg(test)]
mod tests {
    use super::*;

    const KUBECONFIG: &str = "apiVersion: v1
kind: Config
current-context: dev
clusters:
  - name: local
    cluster: { server: 'http://127.0.0.1:1' }
users:
  - name: jane
    user: { token: abc }
contexts:
  - name: dev
    context: { cluster: local, user: jane, namespace: team-a }
  - name: prod
    context: { cluster: local, user: jane }
";

    fn options(context: Option<&str>) -> (tempfile::TempDir, ConnectOptions) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config");
        std::fs::write(&path, KUBECONFIG).unwrap();
        let options = ConnectOptions {
            kubeconfig: Some(path),
            context: context.map(String::from),
            cache_dir: None,
        };
        (dir, options)
    }

    #[tokio::test]
    async fn resolves_the_current_context() {
        let (_dir, options) = options(None);
        let target = target(&options).await.unwrap();
        assert_eq!(target.endpoint.server, "http://127.0.0.1:1");
        assert_eq!(target.endpoint.context.as_deref(), Some("dev"));
        assert_eq!(target.user.as_deref(), Some("jane"));
        assert_eq!(target.namespace.as_deref(), Some("team-a"));
        assert_eq!(
            context_namespace(&options).unwrap().as_deref(),
            Some("team-a")
        );
    }

    #[tokio::test]
    async fn context_flag_wins_and_unknown_contexts_are_named() {
        let (_dir, options) = options(Some("prod"));
        let target = target(&options).await.unwrap();
        assert_eq!(target.namespace, None);

        let (_dir, options) = self::options(Some("staging"));
        let err = target_err(&options).await;
        assert!(err.contains("\"staging\""), "{err}");
        assert!(err.contains("\"dev\", \"prod\""), "{err}");
    }

    #[test]
    fn a_childs_kubeconfig_has_the_chosen_context_current() {
        let (_dir, options) = options(Some("prod"));
        let child = kubeconfig_for_child(&options).unwrap().unwrap();
        assert_eq!(child.current_context.as_deref(), Some("prod"));
        assert_eq!(child.contexts.len(), 2);
        let (_dir, options) = self::options(Some("staging"));
        assert!(kubeconfig_for_child(&options).is_err());
    }

    async fn target_err(options: &ConnectOptions) -> String {
        match target(options).await {
            Ok(_) => panic!("expected an error"),
            Err(e) => e.to_string(),
        }
    }
}
