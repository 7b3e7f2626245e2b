//! Where a chart comes from, read from what the user typed: `--helm-chart` with
//! `--helm-chart-version` and `--helm-chart-repo`, the same arguments `helm install` takes.

use std::path::{Path, PathBuf};

use thiserror::Error;

use super::oci::{OciError, OciReference};
use super::version::{BadVersion, VersionSpec};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChartSource {
    /// A chart directory or `.tgz` on disk.
    Local(PathBuf),
    /// `repo/name`, with `repo` a name from Helm's `repositories.yaml`.
    Repo {
        repo: String,
        chart: String,
        version: VersionSpec,
    },
    /// A chart name in the repository at `url` (`--helm-chart-repo`).
    RepoUrl {
        url: String,
        chart: String,
        version: VersionSpec,
    },
    /// An http(s) URL of a chart archive.
    Url(String),
    /// A chart in an OCI registry.
    Oci {
        reference: OciReference,
        version: VersionSpec,
    },
}

#[derive(Debug, Error)]
pub enum SourceError {
    #[error("--helm-chart is empty; give a chart directory, a .tgz, repo/name, a URL or oci://...")]
    Empty,
    #[error(transparent)]
    Version(#[from] BadVersion),
    #[error(transparent)]
    Oci(#[from] OciError),
    #[error(
        "--helm-chart-version does not apply to {what} \"{chart}\", which is one version already; drop --helm-chart-version"
    )]
    VersionNotApplicable { what: &'static str, chart: String },
    #[error(
        "--helm-chart \"{chart}\" has tag {tag}, but --helm-chart-version says \"{version}\"; give the version once"
    )]
    TwoVersions {
        chart: String,
        tag: String,
        version: String,
    },
    #[error(
        "with --helm-chart-repo, --helm-chart is a chart name in that repository, not \"{chart}\"; give the name alone (for example --helm-chart=rancher)"
    )]
    NameExpected { chart: String },
    #[error(
        "--helm-chart-repo \"{repo}\" must be an http:// or https:// URL; for a registry, give --helm-chart=oci://HOST/PATH/NAME instead"
    )]
    BadRepoUrl { repo: String },
    #[error(
        "--helm-chart: chart {chart} does not exist (there is no chart directory or .tgz at {path}){hint}"
    )]
    NotFound {
        chart: String,
        path: String,
        hint: &'static str,
    },
}

impl ChartSource {
    /// Reads the flags. A path that exists is a local chart; anything else is remote.
    pub fn parse(
        chart: &str,
        version: Option<&str>,
        repo: Option<&str>,
    ) -> Result<ChartSource, SourceError> {
        // An empty base keeps relative paths as typed, for messages.
        ChartSource::parse_in(Path::new(""), chart, version, repo)
    }

    /// As [`ChartSource::parse`], with relative paths taken from `dir`.
    pub fn parse_in(
        dir: &Path,
        chart: &str,
        version: Option<&str>,
        repo: Option<&str>,
    ) -> Result<ChartSource, SourceError> {
        let chart = chart.trim();
        if chart.is_empty() {
            return Err(SourceError::Empty);
        }
        let spec = VersionSpec::parse(version)?;
        let one_version = |what: &'static str| -> Result<(), SourceError> {
            if spec.is_latest() {
                Ok(())
            } else {
                Err(SourceError::VersionNotApplicable {
                    what,
                    chart: chart.to_string(),
                })
            }
        };

        if let Some(repo) = repo.map(str::trim).filter(|r| !r.is_empty()) {
            if !(repo.starts_with("http://") || repo.starts_with("https://")) {
                return Err(SourceError::BadRepoUrl {
                    repo: repo.to_string(),
                });
            }
            if chart.contains('/') || chart.contains(':') {
                return Err(SourceError::NameExpected {
                    chart: chart.to_string(),
                });
            }
            return Ok(ChartSource::RepoUrl {
                url: repo.to_string(),
                chart: chart.to_string(),
                version: spec,
            });
        }

        if chart.starts_with("oci://") {
            let reference = OciReference::parse(chart)?;
            if let (Some(tag), false) = (&reference.tag, spec.is_latest())
                && !spec.matches(tag)
                && !spec.matches(&tag.replace('_', "+"))
            {
                return Err(SourceError::TwoVersions {
                    chart: chart.to_string(),
                    tag: tag.clone(),
                    version: version.unwrap_or_default().to_string(),
                });
            }
            return Ok(ChartSource::Oci {
                reference,
                version: spec,
            });
        }

        if chart.starts_with("http://") || chart.starts_with("https://") {
            one_version("the URL")?;
            return Ok(ChartSource::Url(chart.to_string()));
        }

        let path = dir.join(chart);
        if path.exists() {
            one_version("the local chart")?;
            return Ok(ChartSource::Local(path));
        }

        let looks_like_path = chart.starts_with('.')
            || chart.starts_with('/')
            || chart.starts_with('~')
            || chart.ends_with(".tgz")
            || chart.ends_with(".tar.gz")
            || chart.contains('\\');
        match chart.split('/').collect::<Vec<_>>().as_slice() {
            [repo, name] if !looks_like_path && is_name(repo) && is_name(name) => {
                Ok(ChartSource::Repo {
                    repo: repo.to_string(),
                    chart: name.to_string(),
                    version: spec,
                })
            }
            _ => Err(SourceError::NotFound {
                chart: chart.to_string(),
                path: path.display().to_string(),
                hint: if looks_like_path || chart.contains('/') {
                    ""
                } else {
                    "; for a chart from a repository give repo/name (after `helm repo add`), or the repository URL with --helm-chart-repo"
                },
            }),
        }
    }

    /// The chart's name as far as the source tells (the archive may still say otherwise).
    pub fn describe(&self) -> String {
        match self {
            ChartSource::Local(path) => path.display().to_string(),
            ChartSource::Repo {
                repo,
                chart,
                version,
            } => with_version(format!("{repo}/{chart}"), version),
            ChartSource::RepoUrl {
                url,
                chart,
                version,
            } => with_version(format!("{chart} from {url}"), version),
            ChartSource::Url(url) => url.clone(),
            ChartSource::Oci { reference, version } => {
                let mut text = reference.base();
                if let Some(tag) = &reference.tag {
                    text = format!("{text}:{tag}");
                }
                with_version(text, version)
            }
        }
    }

    pub fn is_remote(&self) -> bool {
        !matches!(self, ChartSource::Local(_))
    }
}

fn with_version(text: String, version: &VersionSpec) -> String {
    match version {
        VersionSpec::Latest => text,
        other => format!("{text} ({other})"),
    }
}

/// A repository or chart name as Helm allows them.
fn is_name(text: &str) -> bool {
    !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
        && text != "."
        && text != ".."
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(
        chart: &str,
        version: Option<&str>,
        repo: Option<&str>,
    ) -> Result<ChartSource, SourceError> {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("mychart")).unwrap();
        std::fs::create_dir_all(dir.path().join("charts/rancher")).unwrap();
        std::fs::write(dir.path().join("x-1.0.0.tgz"), b"").unwrap();
        ChartSource::parse_in(dir.path(), chart, version, repo).map(|s| match s {
            // Make local paths comparable across temporary directories.
            ChartSource::Local(p) => {
                ChartSource::Local(p.strip_prefix(dir.path()).unwrap().to_path_buf())
            }
            other => other,
        })
    }

    #[test]
    fn existing_paths_are_local_even_with_a_slash() {
        assert_eq!(
            parse("mychart", None, None).unwrap(),
            ChartSource::Local("mychart".into())
        );
        assert_eq!(
            parse("charts/rancher", None, None).unwrap(),
            ChartSource::Local("charts/rancher".into())
        );
        assert_eq!(
            parse("x-1.0.0.tgz", None, None).unwrap(),
            ChartSource::Local("x-1.0.0.tgz".into())
        );
        let err = parse("mychart", Some("1.0.0"), None).unwrap_err();
        assert!(
            err.to_string().contains("drop --helm-chart-version"),
            "{err}"
        );
    }

    #[test]
    fn repo_slash_name() {
        assert_eq!(
            parse("rancher-stable/rancher", Some("~2.9"), None).unwrap(),
            ChartSource::Repo {
                repo: "rancher-stable".into(),
                chart: "rancher".into(),
                version: VersionSpec::parse(Some("~2.9")).unwrap(),
            }
        );
        assert!(matches!(
            parse("stable/x", Some("=>1"), None),
            Err(SourceError::Version(_))
        ));
    }

    #[test]
    fn missing_paths_are_errors_with_a_hint() {
        let err = parse("./missing", None, None).unwrap_err();
        assert!(
            matches!(err, SourceError::NotFound { hint: "", .. }),
            "{err}"
        );
        let err = parse("missing-1.0.0.tgz", None, None).unwrap_err();
        assert!(matches!(err, SourceError::NotFound { .. }), "{err}");
        let err = parse("a/b/c", None, None).unwrap_err();
        assert!(matches!(err, SourceError::NotFound { .. }), "{err}");
        let err = parse("rancher", None, None).unwrap_err();
        assert!(err.to_string().contains("--helm-chart-repo"), "{err}");
    }

    #[test]
    fn urls_and_repository_urls() {
        assert_eq!(
            parse("https://charts.example.com/rancher-2.9.1.tgz", None, None).unwrap(),
            ChartSource::Url("https://charts.example.com/rancher-2.9.1.tgz".into())
        );
        assert!(matches!(
            parse(
                "https://charts.example.com/rancher-2.9.1.tgz",
                Some("2.9.1"),
                None
            ),
            Err(SourceError::VersionNotApplicable { .. })
        ));
        assert_eq!(
            parse("rancher", None, Some("https://charts.example.com/stable")).unwrap(),
            ChartSource::RepoUrl {
                url: "https://charts.example.com/stable".into(),
                chart: "rancher".into(),
                version: VersionSpec::Latest,
            }
        );
        // With --helm-chart-repo the name wins over a directory of the same name, as in Helm.
        assert!(matches!(
            parse("mychart", None, Some("http://127.0.0.1:1/")).unwrap(),
            ChartSource::RepoUrl { .. }
        ));
        assert!(matches!(
            parse("stable/rancher", None, Some("https://x")),
            Err(SourceError::NameExpected { .. })
        ));
        assert!(matches!(
            parse("rancher", None, Some("oci://x/y")),
            Err(SourceError::BadRepoUrl { .. })
        ));
    }

    #[test]
    fn oci_references() {
        let source = parse("oci://127.0.0.1:5000/charts/rancher", Some("2.9.1"), None).unwrap();
        assert_eq!(
            source.describe(),
            "oci://127.0.0.1:5000/charts/rancher (version 2.9.1)"
        );
        assert!(parse("oci://host/charts/rancher:2.9.1", Some("2.9.1"), None).is_ok());
        assert!(parse("oci://host/charts/rancher:2.9.1", Some("~2.9"), None).is_ok());
        assert!(matches!(
            parse("oci://host/charts/rancher:2.9.1", Some("2.8.0"), None),
            Err(SourceError::TwoVersions { .. })
        ));
        assert!(matches!(
            parse("oci://host", None, None),
            Err(SourceError::Oci(_))
        ));
    }
}
