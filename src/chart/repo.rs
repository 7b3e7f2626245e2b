//! Helm chart repositories: the entries of `repositories.yaml`, the repository's `index.yaml`,
//! choosing a version from it, and where a chart's archive lives.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use reqwest::Url;
use serde::Deserialize;
use thiserror::Error;

use super::download::{Auth, TlsSettings};
use super::version::VersionSpec;

/// How many similar chart names a "no such chart" error suggests.
const SUGGESTED_NAMES: usize = 5;

#[derive(Debug, Error)]
pub enum RepoError {
    #[error("cannot read Helm's repository list {path}: {detail}")]
    Unreadable { path: PathBuf, detail: String },
    #[error("Helm's repository list {path} is not valid: {detail}")]
    BadRepositories { path: PathBuf, detail: String },
    #[error("{}", unknown_repository(name, path, known))]
    UnknownRepository {
        name: String,
        path: PathBuf,
        known: Vec<String>,
    },
    #[error("the index of repository {repo} ({url}) is not valid: {detail}")]
    BadIndex {
        repo: String,
        url: String,
        detail: String,
    },
    #[error("{}", no_such_chart(chart, repo, similar))]
    NoSuchChart {
        chart: String,
        repo: String,
        similar: Vec<String>,
    },
    #[error("{}", no_such_version(chart, repo, spec, newest, *only_prereleases))]
    NoSuchVersion {
        chart: String,
        repo: String,
        spec: String,
        newest: Vec<String>,
        only_prereleases: bool,
    },
    #[error("chart {chart} {version} in repository {repo} lists no download URL")]
    NoUrl {
        chart: String,
        version: String,
        repo: String,
    },
    #[error("chart {chart} {version} in repository {repo} has a bad URL \"{url}\": {detail}")]
    BadUrl {
        chart: String,
        version: String,
        repo: String,
        url: String,
        detail: String,
    },
    #[error("repository URL \"{url}\" is not an http(s) URL: {detail}")]
    BadRepositoryUrl { url: String, detail: String },
}

impl RepoError {
    /// Errors in what the user typed (a name, a version), rather than failures.
    pub fn is_usage(&self) -> bool {
        matches!(
            self,
            RepoError::UnknownRepository { .. }
                | RepoError::NoSuchChart { .. }
                | RepoError::NoSuchVersion { .. }
                | RepoError::BadRepositoryUrl { .. }
        )
    }
}

fn unknown_repository(name: &str, path: &Path, known: &[String]) -> String {
    let known = if known.is_empty() {
        "it lists no repositories".to_string()
    } else {
        format!("it lists {}", known.join(", "))
    };
    format!(
        "repository \"{name}\" is not in Helm's repository list {} ({known}); add it with `helm repo add {name} <URL>`, or give the URL with --helm-chart-repo",
        path.display()
    )
}

fn no_such_chart(chart: &str, repo: &str, similar: &[String]) -> String {
    let mut text = format!("repository {repo} has no chart named \"{chart}\"");
    if !similar.is_empty() {
        text.push_str(&format!("; did you mean {}?", similar.join(", ")));
    }
    text
}

fn no_such_version(
    chart: &str,
    repo: &str,
    spec: &str,
    newest: &[String],
    only_prereleases: bool,
) -> String {
    if only_prereleases {
        return format!(
            "chart {chart} in repository {repo} has only prereleases ({}); pick one with --helm-chart-version",
            newest.join(", ")
        );
    }
    format!(
        "chart {chart} in repository {repo} has no {spec}; the newest versions are {}",
        newest.join(", ")
    )
}

/// One entry of `repositories.yaml`, as `helm repo add` writes it.
#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct RepositoryEntry {
    pub name: String,
    pub url: String,
    #[serde(default)]
    pub username: Option<String>,
    #[serde(default)]
    pub password: Option<String>,
    #[serde(default)]
    pub cert_file: Option<PathBuf>,
    #[serde(default)]
    pub key_file: Option<PathBuf>,
    #[serde(default)]
    pub ca_file: Option<PathBuf>,
    #[serde(default, rename = "insecure_skip_tls_verify")]
    pub insecure_skip_tls_verify: bool,
    #[serde(default, rename = "pass_credentials_all")]
    pub pass_credentials_all: bool,
}

impl RepositoryEntry {
    /// An entry for a bare URL (`--helm-chart-repo`, a dependency's `repository`).
    pub fn for_url(url: &str) -> RepositoryEntry {
        RepositoryEntry {
            name: url.to_string(),
            url: url.to_string(),
            ..RepositoryEntry::default()
        }
    }

    pub fn tls(&self) -> TlsSettings {
        // Empty strings are what `helm repo add` writes for flags not given.
        let path = |p: &Option<PathBuf>| p.clone().filter(|p| !p.as_os_str().is_empty());
        TlsSettings {
            ca_file: path(&self.ca_file),
            cert_file: path(&self.cert_file),
            key_file: path(&self.key_file),
            insecure_skip_tls_verify: self.insecure_skip_tls_verify,
        }
    }

    pub fn auth(&self) -> Auth {
        match (&self.username, &self.password) {
            (Some(username), password) if !username.is_empty() => Auth::Basic {
                username: username.clone(),
                password: password.clone().unwrap_or_default(),
            },
            _ => Auth::None,
        }
    }

    /// The credentials to send with a chart download: Helm sends them only to the repository's
    /// own scheme, host and port, unless the entry says `pass_credentials_all`, so that an index
    /// pointing elsewhere cannot collect them.
    pub fn auth_for(&self, chart_url: &Url) -> Auth {
        let same_origin = Url::parse(&self.url).is_ok_and(|repo| {
            repo.scheme() == chart_url.scheme()
                && repo.host_str() == chart_url.host_str()
                && repo.port_or_known_default() == chart_url.port_or_known_default()
        });
        if same_origin || self.pass_credentials_all {
            self.auth()
        } else {
            Auth::None
        }
    }

    /// `<url>/index.yaml`.
    pub fn index_url(&self) -> Result<Url, RepoError> {
        let base = base_url(&self.url)?;
        base.join("index.yaml")
            .map_err(|e| RepoError::BadRepositoryUrl {
                url: self.url.clone(),
                detail: e.to_string(),
            })
    }
}

/// The repository URL as a base that relative references resolve under (a trailing `/` added,
/// as Helm does, so `charts/x.tgz` lands below the repository path, not beside it).
pub fn base_url(url: &str) -> Result<Url, RepoError> {
    let mut parsed = Url::parse(url).map_err(|e| RepoError::BadRepositoryUrl {
        url: url.to_string(),
        detail: e.to_string(),
    })?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(RepoError::BadRepositoryUrl {
            url: url.to_string(),
            detail: format!("the scheme is \"{}\"", parsed.scheme()),
        });
    }
    if !parsed.path().ends_with('/') {
        let path = format!("{}/", parsed.path());
        parsed.set_path(&path);
    }
    Ok(parsed)
}

#[derive(Debug, Default, Deserialize)]
struct RepositoryFile {
    #[serde(default)]
    repositories: Option<Vec<RepositoryEntry>>,
}

/// The entries of `repositories.yaml`; a missing file is an empty list (no `helm repo add` yet).
pub fn load_repositories(path: &Path) -> Result<Vec<RepositoryEntry>, RepoError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => {
            return Err(RepoError::Unreadable {
                path: path.to_path_buf(),
                detail: e.to_string(),
            });
        }
    };
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    let file: RepositoryFile =
        crate::yaml::from_str(&text).map_err(|e| RepoError::BadRepositories {
            path: path.to_path_buf(),
            detail: e.to_string(),
        })?;
    Ok(file.repositories.unwrap_or_default())
}

/// The entry named `name`.
pub fn find_by_name(
    entries: &[RepositoryEntry],
    name: &str,
    path: &Path,
) -> Result<RepositoryEntry, RepoError> {
    entries
        .iter()
        .find(|e| e.name == name)
        .cloned()
        .ok_or_else(|| RepoError::UnknownRepository {
            name: name.to_string(),
            path: path.to_path_buf(),
            known: entries.iter().map(|e| e.name.clone()).collect(),
        })
}

/// The entry whose URL `url` lives under, so that a URL given directly still gets the
/// credentials and TLS settings the user configured for that repository.
pub fn find_by_url(entries: &[RepositoryEntry], url: &str) -> Option<RepositoryEntry> {
    let wanted = url.trim_end_matches('/');
    entries
        .iter()
        .filter(|e| {
            let base = e.url.trim_end_matches('/');
            !base.is_empty() && (wanted == base || wanted.starts_with(&format!("{base}/")))
        })
        // The longest (most specific) URL; among equals the first, as Helm would.
        .fold(None::<&RepositoryEntry>, |best, e| match best {
            Some(b) if b.url.len() >= e.url.len() => Some(b),
            _ => Some(e),
        })
        .cloned()
}

/// One chart version in `index.yaml`.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
pub struct IndexEntry {
    pub name: String,
    #[serde(deserialize_with = "text")]
    pub version: String,
    #[serde(default)]
    pub urls: Vec<String>,
    #[serde(default)]
    pub digest: Option<String>,
    #[serde(default)]
    pub deprecated: bool,
}

/// `index.yaml`: chart name -> its versions.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Index {
    #[serde(default)]
    pub entries: BTreeMap<String, Vec<IndexEntry>>,
}

fn text<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    let value = serde_json::Value::deserialize(d)?;
    Ok(match value {
        serde_json::Value::String(s) => s,
        other => other.to_string(),
    })
}

/// Parses `index.yaml` text; `repo` and `url` name it in errors.
pub fn parse_index(repo: &str, url: &str, text: &str) -> Result<Index, RepoError> {
    crate::yaml::from_str_large(text).map_err(|e| RepoError::BadIndex {
        repo: repo.to_string(),
        url: url.to_string(),
        detail: e.to_string(),
    })
}

impl Index {
    /// The version of `chart` that `spec` selects.
    pub fn select(
        &self,
        repo: &str,
        chart: &str,
        spec: &VersionSpec,
    ) -> Result<&IndexEntry, RepoError> {
        let versions = self
            .entries
            .get(chart)
            .filter(|v| !v.is_empty())
            .ok_or_else(|| RepoError::NoSuchChart {
                chart: chart.to_string(),
                repo: repo.to_string(),
                similar: self.similar_names(chart),
            })?;
        let chosen = spec
            .select(versions.iter().map(|e| e.version.as_str()))
            .map_err(|no| RepoError::NoSuchVersion {
                chart: chart.to_string(),
                repo: repo.to_string(),
                spec: spec.to_string(),
                newest: no.newest,
                only_prereleases: no.only_prereleases,
            })?;
        versions
            .iter()
            .find(|e| e.version == chosen)
            .ok_or_else(|| RepoError::NoSuchChart {
                chart: chart.to_string(),
                repo: repo.to_string(),
                similar: Vec::new(),
            })
    }

    fn similar_names(&self, chart: &str) -> Vec<String> {
        let wanted = chart.to_ascii_lowercase();
        self.entries
            .keys()
            .filter(|name| {
                let name = name.to_ascii_lowercase();
                name.contains(&wanted)
                    || wanted.contains(&name)
                    || edit_distance(&name, &wanted) <= 2
            })
            .take(SUGGESTED_NAMES)
            .cloned()
            .collect()
    }
}

/// Levenshtein distance, for "did you mean" suggestions.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut current = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != *cb);
            current.push(substitution.min(previous[j + 1] + 1).min(current[j] + 1));
        }
        previous = current;
    }
    previous[b.len()]
}

/// Where the archive of `entry` is: its first URL, resolved against the repository URL when it
/// is relative.
pub fn chart_url(repo: &RepositoryEntry, entry: &IndexEntry) -> Result<Url, RepoError> {
    let first = entry.urls.first().ok_or_else(|| RepoError::NoUrl {
        chart: entry.name.clone(),
        version: entry.version.clone(),
        repo: repo.name.clone(),
    })?;
    let base = base_url(&repo.url)?;
    base.join(first).map_err(|e| RepoError::BadUrl {
        chart: entry.name.clone(),
        version: entry.version.clone(),
        repo: repo.name.clone(),
        url: first.clone(),
        detail: e.to_string(),
    })
}

/// Helm's cached copy of a repository's index, used only when the network fails.
pub fn cached_index_path(cache: &Path, repo_name: &str) -> PathBuf {
    cache.join(format!("{repo_name}-index.yaml"))
}

/// Helm's cached copy of a downloaded chart (`helm install` and `helm pull` put them there).
pub fn cached_chart_path(cache: &Path, chart: &str, version: &str) -> PathBuf {
    cache.join(format!("{chart}-{version}.tgz"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const INDEX: &str = r#"
apiVersion: v1
entries:
  rancher:
    - name: rancher
      version: 2.9.3
      urls: [rancher-2.9.3.tgz]
      digest: abc
    - name: rancher
      version: 2.10.0-rc1
      urls: [https://cdn.example.org/rancher-2.10.0-rc1.tgz]
    - name: rancher
      version: 2.9.1
      urls: [charts/rancher-2.9.1.tgz]
  rancher-turtles:
    - name: rancher-turtles
      version: 0.1.0
      urls: [rancher-turtles-0.1.0.tgz]
generated: "2024-01-01T00:00:00Z"
"#;

    fn repo(url: &str) -> RepositoryEntry {
        RepositoryEntry {
            name: "stable".into(),
            url: url.into(),
            username: Some("u".into()),
            password: Some("p".into()),
            ..RepositoryEntry::default()
        }
    }

    #[test]
    fn selects_versions_from_an_index() {
        let index = parse_index("stable", "x", INDEX).unwrap();
        let latest = index
            .select("stable", "rancher", &VersionSpec::Latest)
            .unwrap();
        assert_eq!(latest.version, "2.9.3");
        let spec = VersionSpec::parse(Some("2.10.0-rc1")).unwrap();
        assert_eq!(
            index.select("stable", "rancher", &spec).unwrap().version,
            "2.10.0-rc1"
        );
        let spec = VersionSpec::parse(Some("~2.8")).unwrap();
        let err = index.select("stable", "rancher", &spec).unwrap_err();
        assert_eq!(
            err.to_string(),
            "chart rancher in repository stable has no version matching \"~2.8\"; the newest versions are 2.10.0-rc1, 2.9.3, 2.9.1"
        );
        let err = index
            .select("stable", "ranch", &VersionSpec::Latest)
            .unwrap_err();
        assert!(
            err.to_string()
                .contains("did you mean rancher, rancher-turtles"),
            "{err}"
        );
        assert!(err.is_usage());
    }

    #[test]
    fn chart_urls_resolve_against_the_repository() {
        let index = parse_index("stable", "x", INDEX).unwrap();
        let versions = &index.entries["rancher"];
        let under_path = repo("https://charts.example.org/stable");
        assert_eq!(
            chart_url(&under_path, &versions[0]).unwrap().as_str(),
            "https://charts.example.org/stable/rancher-2.9.3.tgz"
        );
        assert_eq!(
            chart_url(&under_path, &versions[2]).unwrap().as_str(),
            "https://charts.example.org/stable/charts/rancher-2.9.1.tgz"
        );
        assert_eq!(
            chart_url(&under_path, &versions[1]).unwrap().as_str(),
            "https://cdn.example.org/rancher-2.10.0-rc1.tgz"
        );
        assert_eq!(
            under_path.index_url().unwrap().as_str(),
            "https://charts.example.org/stable/index.yaml"
        );
        assert_eq!(
            repo("https://charts.example.org/stable/")
                .index_url()
                .unwrap()
                .as_str(),
            "https://charts.example.org/stable/index.yaml"
        );
    }

    #[test]
    fn credentials_go_only_to_the_repository_origin() {
        let entry = repo("https://charts.example.org/stable");
        let same = Url::parse("https://charts.example.org:443/stable/x.tgz").unwrap();
        let other = Url::parse("https://cdn.example.org/x.tgz").unwrap();
        assert!(matches!(entry.auth_for(&same), Auth::Basic { .. }));
        assert_eq!(entry.auth_for(&other), Auth::None);
        let all = RepositoryEntry {
            pass_credentials_all: true,
            ..entry
        };
        assert!(matches!(all.auth_for(&other), Auth::Basic { .. }));
    }

    #[test]
    fn reads_repositories_yaml_as_helm_writes_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("repositories.yaml");
        assert!(load_repositories(&path).unwrap().is_empty());
        std::fs::write(
            &path,
            "apiVersion: \"\"\ngenerated: \"0001-01-01T00:00:00Z\"\nrepositories:\n- caFile: \"\"\n  certFile: \"\"\n  insecure_skip_tls_verify: true\n  keyFile: \"\"\n  name: rancher-stable\n  pass_credentials_all: false\n  password: \"\"\n  url: https://releases.example.org/server-charts/stable\n  username: \"\"\n",
        )
        .unwrap();
        let entries = load_repositories(&path).unwrap();
        let entry = find_by_name(&entries, "rancher-stable", &path).unwrap();
        assert_eq!(entry.auth(), Auth::None);
        assert_eq!(
            entry.tls(),
            TlsSettings {
                insecure_skip_tls_verify: true,
                ..TlsSettings::default()
            }
        );
        let err = find_by_name(&entries, "bitnami", &path).unwrap_err();
        assert!(err.to_string().contains("helm repo add bitnami"), "{err}");
        assert!(err.to_string().contains("it lists rancher-stable"), "{err}");
        assert_eq!(
            find_by_url(
                &entries,
                "https://releases.example.org/server-charts/stable/x-1.tgz"
            )
            .map(|e| e.name),
            Some("rancher-stable".to_string())
        );
        assert!(
            find_by_url(
                &entries,
                "https://releases.example.org/server-charts/stablex"
            )
            .is_none()
        );
    }
}
