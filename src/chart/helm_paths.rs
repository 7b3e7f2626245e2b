//! Where Helm keeps the files this tool reads, so that `helm repo add` and `helm registry login`
//! are the only set-up a user needs.
//!
//! Helm's rules: an explicit variable for each file (`HELM_REPOSITORY_CONFIG`,
//! `HELM_REPOSITORY_CACHE`, `HELM_REGISTRY_CONFIG`), else `HELM_CONFIG_HOME` / `HELM_CACHE_HOME`,
//! else the platform's base directory (XDG on Linux, `~/Library/...` on macOS, `%APPDATA%` and
//! `%TEMP%` on Windows).

use std::path::PathBuf;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HelmPaths {
    /// `repositories.yaml`: the repositories added with `helm repo add`.
    pub repository_config: PathBuf,
    /// The directory holding `<repo>-index.yaml` and downloaded `.tgz` files.
    pub repository_cache: PathBuf,
    /// `registry/config.json`: credentials from `helm registry login`.
    pub registry_config: PathBuf,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Platform {
    Linux,
    MacOs,
    Windows,
}

impl Platform {
    pub fn current() -> Platform {
        if cfg!(target_os = "macos") {
            Platform::MacOs
        } else if cfg!(windows) {
            Platform::Windows
        } else {
            Platform::Linux
        }
    }
}

impl HelmPaths {
    /// The paths for this process's environment.
    pub fn from_env() -> HelmPaths {
        let home = std::env::home_dir().unwrap_or_default();
        HelmPaths::from_vars(
            |name| {
                std::env::var_os(name)
                    .filter(|v| !v.is_empty())
                    .map(PathBuf::from)
            },
            home,
            Platform::current(),
        )
    }

    /// The paths for the given variables, home directory and platform.
    pub fn from_vars(
        var: impl Fn(&str) -> Option<PathBuf>,
        home: PathBuf,
        platform: Platform,
    ) -> HelmPaths {
        let config_home = var("HELM_CONFIG_HOME").unwrap_or_else(|| match platform {
            Platform::Linux => var("XDG_CONFIG_HOME")
                .unwrap_or_else(|| home.join(".config"))
                .join("helm"),
            Platform::MacOs => home.join("Library/Preferences/helm"),
            Platform::Windows => var("APPDATA")
                .unwrap_or_else(|| home.join("AppData").join("Roaming"))
                .join("helm"),
        });
        let cache_home = var("HELM_CACHE_HOME").unwrap_or_else(|| match platform {
            Platform::Linux => var("XDG_CACHE_HOME")
                .unwrap_or_else(|| home.join(".cache"))
                .join("helm"),
            Platform::MacOs => home.join("Library/Caches/helm"),
            Platform::Windows => var("TEMP")
                .unwrap_or_else(|| home.join("AppData").join("Local").join("Temp"))
                .join("helm"),
        });
        HelmPaths {
            repository_config: var("HELM_REPOSITORY_CONFIG")
                .unwrap_or_else(|| config_home.join("repositories.yaml")),
            repository_cache: var("HELM_REPOSITORY_CACHE")
                .unwrap_or_else(|| cache_home.join("repository")),
            registry_config: var("HELM_REGISTRY_CONFIG")
                .unwrap_or_else(|| config_home.join("registry").join("config.json")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<PathBuf> {
        let pairs: Vec<(String, PathBuf)> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), PathBuf::from(v)))
            .collect();
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
        }
    }

    #[test]
    fn platform_defaults() {
        let home = PathBuf::from("/home/u");
        let linux = HelmPaths::from_vars(vars(&[]), home.clone(), Platform::Linux);
        assert_eq!(
            linux.repository_config,
            PathBuf::from("/home/u/.config/helm/repositories.yaml")
        );
        assert_eq!(
            linux.repository_cache,
            PathBuf::from("/home/u/.cache/helm/repository")
        );
        assert_eq!(
            linux.registry_config,
            PathBuf::from("/home/u/.config/helm/registry/config.json")
        );
        let mac = HelmPaths::from_vars(vars(&[]), home.clone(), Platform::MacOs);
        assert_eq!(
            mac.repository_config,
            PathBuf::from("/home/u/Library/Preferences/helm/repositories.yaml")
        );
        let windows = HelmPaths::from_vars(
            vars(&[("APPDATA", "C:/Users/u/AppData/Roaming")]),
            home,
            Platform::Windows,
        );
        assert_eq!(
            windows.repository_config,
            PathBuf::from("C:/Users/u/AppData/Roaming/helm/repositories.yaml")
        );
    }

    #[test]
    fn variables_win() {
        let paths = HelmPaths::from_vars(
            vars(&[
                ("XDG_CONFIG_HOME", "/xdg"),
                ("HELM_CACHE_HOME", "/cache"),
                ("HELM_REPOSITORY_CONFIG", "/etc/repos.yaml"),
            ]),
            PathBuf::from("/home/u"),
            Platform::Linux,
        );
        assert_eq!(paths.repository_config, PathBuf::from("/etc/repos.yaml"));
        assert_eq!(paths.repository_cache, PathBuf::from("/cache/repository"));
        assert_eq!(
            paths.registry_config,
            PathBuf::from("/xdg/helm/registry/config.json")
        );
    }
}
