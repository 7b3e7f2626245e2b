//! From a [`ChartSource`] to a [`Chart`] in memory with its dependencies in `charts/`: the one
//! entry point `new` and `create api` call.
//!
//! The API is synchronous; inside, one current-thread tokio runtime drives reqwest for the
//! duration of the call. Callers must not be inside a tokio runtime themselves.

use std::collections::HashMap;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::rc::Rc;
use std::time::Duration;

use reqwest::Url;
use thiserror::Error;

use super::dependencies::{self, DependencyError, Origin};
use super::download::{self, DownloadError, Http, Progress, TlsSettings};
use super::helm_paths::HelmPaths;
use super::oci::{self, OciError, OciReference, RegistryCredentials};
use super::repo::{self, Index, RepoError, RepositoryEntry};
use super::source::{ChartSource, SourceError};
use super::version::VersionSpec;
use super::{Chart, ChartError, MAX_CHART_BYTES, archive};

/// How long to wait to connect, and for each piece of an answer.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

#[derive(Debug, Clone)]
pub struct ResolveOptions {
    /// Talk plain HTTP to OCI registries (Helm's `--plain-http`).
    pub plain_http: bool,
    pub timeout: Duration,
    pub helm: HelmPaths,
}

impl ResolveOptions {
    /// Helm's files from the environment, the default timeout.
    pub fn from_env(plain_http: bool) -> ResolveOptions {
        ResolveOptions {
            plain_http,
            timeout: DEFAULT_TIMEOUT,
            helm: HelmPaths::from_env(),
        }
    }
}

/// A chart ready to copy, and what the user should hear about how it was found.
#[derive(Debug, Clone)]
pub struct Resolved {
    pub chart: Chart,
    /// The version chosen from a repository or registry.
    pub version: Option<String>,
    /// Cached copies used, deprecated charts, downloads without a digest to check.
    pub warnings: Vec<String>,
    /// Dependencies fetched into `charts/`, as "name version from where".
    pub fetched_dependencies: Vec<String>,
    /// The keys of `Chart.yaml` that `set_version` was written to.
    pub stamped: Vec<&'static str>,
}

#[derive(Debug, Error)]
pub enum ResolveError {
    #[error(transparent)]
    Source(#[from] SourceError),
    #[error(transparent)]
    Repo(#[from] RepoError),
    #[error(transparent)]
    Download(#[from] DownloadError),
    #[error(transparent)]
    Oci(#[from] OciError),
    #[error(transparent)]
    Chart(#[from] ChartError),
    #[error(transparent)]
    Dependency(#[from] DependencyError),
    #[error("dependency {name} of chart {chart}: {error}")]
    InDependency {
        chart: String,
        name: String,
        error: Box<ResolveError>,
    },
    /// Always inside [`ResolveError::InDependency`], which names the chart and dependency.
    #[error("{path} has version {found}, but Chart.yaml asks for {wanted}")]
    FileVersion {
        path: PathBuf,
        found: String,
        wanted: String,
    },
    #[error("cannot start the network runtime: {0}")]
    Runtime(String),
}

impl ResolveError {
    /// True for mistakes in what the user typed (exit code 2); false for failures (exit code 1).
    pub fn is_usage(&self) -> bool {
        match self {
            ResolveError::Source(_) => true,
            ResolveError::Repo(e) => e.is_usage(),
            ResolveError::Oci(e) => e.is_usage(),
            ResolveError::Chart(
                ChartError::Missing(_) | ChartError::NoChartYaml(_) | ChartError::Unloadable { .. },
            ) => true,
            _ => false,
        }
    }
}

/// Finds, downloads, verifies and loads the chart `source` names, then fetches its missing
/// dependencies. `progress` hears (bytes so far, total if known) for each download.
pub fn resolve(
    source: &ChartSource,
    options: &ResolveOptions,
    progress: &dyn Fn(u64, Option<u64>),
) -> Result<Resolved, ResolveError> {
    resolve_with(source, options, None, progress)
}

/// As [`resolve`], and first writes `set_version` into the chart's `Chart.yaml` (see
/// [`super::make_loadable`]); a chart Helm could not load is refused before any dependency is
/// fetched.
pub fn resolve_with(
    source: &ChartSource,
    options: &ResolveOptions,
    set_version: Option<&str>,
    progress: &dyn Fn(u64, Option<u64>),
) -> Result<Resolved, ResolveError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| ResolveError::Runtime(e.to_string()))?;
    let mut resolver = Resolver {
        options,
        progress,
        repositories: None,
        credentials: None,
        clients: HashMap::new(),
        indexes: HashMap::new(),
        warnings: Vec::new(),
        fetched: Vec::new(),
        set_version,
        stamped: Vec::new(),
    };
    let (chart, version) = runtime.block_on(resolver.resolve(source))?;
    Ok(Resolved {
        chart,
        version,
        stamped: resolver.stamped,
        warnings: resolver.warnings,
        fetched_dependencies: resolver.fetched,
    })
}

/// An archive fetched and verified, not yet read.
struct Fetched {
    bytes: Vec<u8>,
    origin: String,
    version: String,
}

struct Resolver<'a> {
    options: &'a ResolveOptions,
    progress: Progress<'a>,
    repositories: Option<Vec<RepositoryEntry>>,
    credentials: Option<RegistryCredentials>,
    clients: HashMap<TlsSettings, Http>,
    /// Indexes by URL, so dependencies from the same repository fetch it once.
    indexes: HashMap<String, Rc<Index>>,
    warnings: Vec<String>,
    fetched: Vec<String>,
    set_version: Option<&'a str>,
    stamped: Vec<&'static str>,
}

type Boxed<'f, T> = Pin<Box<dyn Future<Output = Result<T, ResolveError>> + 'f>>;

impl Resolver<'_> {
    async fn resolve(
        &mut self,
        source: &ChartSource,
    ) -> Result<(Chart, Option<String>), ResolveError> {
        let mut judged = None;
        let (chart, base_dir, version) = match source {
            ChartSource::Local(path) => {
                let (chart, judged_values) = super::local::load_judging_values(path)?;
                judged = judged_values;
                let base = path.is_dir().then(|| path.clone());
                (chart, base, None)
            }
            ChartSource::Repo {
                repo,
                chart,
                version,
            } => {
                let path = self.options.helm.repository_config.clone();
                let entry = repo::find_by_name(self.repositories()?, repo, &path)?;
                let fetched = self
                    .fetch_from_repository(&entry, chart, version, true)
                    .await?;
                let version = fetched.version.clone();
                (self.read(fetched)?, None, Some(version))
            }
            ChartSource::RepoUrl {
                url,
                chart,
                version,
            } => {
                let (entry, cached) = self.entry_for_url(url)?;
                let fetched = self
                    .fetch_from_repository(&entry, chart, version, cached)
                    .await?;
                let version = fetched.version.clone();
                (self.read(fetched)?, None, Some(version))
            }
            ChartSource::Url(url) => {
                let fetched = self.fetch_url(url).await?;
                let chart = self.read(fetched)?;
                let version = chart.metadata.version.clone();
                (chart, None, version)
            }
            ChartSource::Oci { reference, version } => {
                let fetched = self.fetch_from_registry(reference, version).await?;
                let version = fetched.version.clone();
                (self.read(fetched)?, None, Some(version))
            }
        };
        let (mut chart, stamped) = super::make_loadable(chart, self.set_version, judged.as_ref())?;
        self.stamped = stamped;
        self.vendor(&mut chart, base_dir, 0).await?;
        Ok((chart, version))
    }

    fn read(&self, fetched: Fetched) -> Result<Chart, ResolveError> {
        Ok(archive::read_tgz(&fetched.origin, &fetched.bytes)?)
    }

    fn repositories(&mut self) -> Result<&[RepositoryEntry], ResolveError> {
        if self.repositories.is_none() {
            self.repositories = Some(repo::load_repositories(
                &self.options.helm.repository_config,
            )?);
        }
        Ok(self.repositories.as_deref().unwrap_or_default())
    }

    /// The configured entry a URL lives under (for its credentials and TLS settings), with the
    /// URL itself; and whether the entry is exactly that repository, so its cache applies.
    fn entry_for_url(&mut self, url: &str) -> Result<(RepositoryEntry, bool), ResolveError> {
        Ok(match repo::find_by_url(self.repositories()?, url) {
            Some(mut entry) => {
                let same = entry.url.trim_end_matches('/') == url.trim_end_matches('/');
                entry.url = url.to_string();
                (entry, same)
            }
            None => (RepositoryEntry::for_url(url), false),
        })
    }

    fn http(&mut self, tls: &TlsSettings) -> Result<Http, ResolveError> {
        if let Some(http) = self.clients.get(tls) {
            return Ok(http.clone());
        }
        let http = Http::new(tls, self.options.timeout)?;
        self.clients.insert(tls.clone(), http.clone());
        Ok(http)
    }

    /// The repository's index: fetched fresh; Helm's cached copy only when the network fails.
    async fn index(
        &mut self,
        entry: &RepositoryEntry,
        use_cache: bool,
    ) -> Result<Rc<Index>, ResolveError> {
        let url = entry.index_url()?;
        if let Some(index) = self.indexes.get(url.as_str()) {
            return Ok(index.clone());
        }
        let http = self.http(&entry.tls())?;
        let text = match http
            .get_bytes(
                &url,
                &entry.auth(),
                None,
                download::MAX_INDEX_BYTES,
                self.progress,
            )
            .await
        {
            Ok(bytes) => crate::text::lossy(&bytes).into_owned(),
            Err(error) if use_cache && error.is_network() => {
                let cached =
                    repo::cached_index_path(&self.options.helm.repository_cache, &entry.name);
                match std::fs::read_to_string(&cached) {
                    Ok(text) => {
                        self.warnings.push(format!(
                            "{error}; using Helm's cached index {}, which may be out of date",
                            cached.display()
                        ));
                        text
                    }
                    Err(_) => return Err(error.into()),
                }
            }
            Err(error) => return Err(error.into()),
        };
        let index = Rc::new(repo::parse_index(&entry.name, url.as_str(), &text)?);
        self.indexes.insert(url.to_string(), index.clone());
        Ok(index)
    }

    /// Chooses a version of `chart` in the repository and downloads it, verified.
    async fn fetch_from_repository(
        &mut self,
        entry: &RepositoryEntry,
        chart: &str,
        spec: &VersionSpec,
        use_cache: bool,
    ) -> Result<Fetched, ResolveError> {
        let index = self.index(entry, use_cache).await?;
        let chosen = index.select(&entry.name, chart, spec)?;
        let url = repo::chart_url(entry, chosen)?;
        if chosen.deprecated {
            self.warnings.push(format!(
                "chart {chart} {} in repository {} is deprecated",
                chosen.version, entry.name
            ));
        }
        let http = self.http(&entry.tls())?;
        let bytes = match http
            .get_bytes(
                &url,
                &entry.auth_for(&url),
                None,
                MAX_CHART_BYTES,
                self.progress,
            )
            .await
        {
            Ok(bytes) => bytes,
            Err(error) if use_cache && error.is_network() => {
                let cached = repo::cached_chart_path(
                    &self.options.helm.repository_cache,
                    chart,
                    &chosen.version,
                );
                match std::fs::read(&cached) {
                    Ok(bytes) => {
                        self.warnings.push(format!(
                            "{error}; using Helm's cached copy {}",
                            cached.display()
                        ));
                        bytes
                    }
                    Err(_) => return Err(error.into()),
                }
            }
            Err(error) => return Err(error.into()),
        };
        match chosen.digest.as_deref().filter(|d| !d.trim().is_empty()) {
            Some(digest) => download::verify_sha256(&url, &bytes, digest, "repository index")?,
            None => self.warnings.push(format!(
                "the index of repository {} gives no digest for {chart} {}, so {url} was not verified",
                entry.name, chosen.version
            )),
        }
        Ok(Fetched {
            bytes,
            origin: url.to_string(),
            version: chosen.version.clone(),
        })
    }

    /// A chart archive by URL; the repository it lives under, if configured, lends its
    /// credentials and TLS settings.
    async fn fetch_url(&mut self, url: &str) -> Result<Fetched, ResolveError> {
        let parsed = Url::parse(url).map_err(|e| RepoError::BadRepositoryUrl {
            url: url.to_string(),
            detail: e.to_string(),
        })?;
        let entry = repo::find_by_url(self.repositories()?, url);
        let (tls, auth) = match &entry {
            Some(entry) => (entry.tls(), entry.auth_for(&parsed)),
            None => (TlsSettings::default(), download::Auth::None),
        };
        let http = self.http(&tls)?;
        let bytes = http
            .get_bytes(&parsed, &auth, None, MAX_CHART_BYTES, self.progress)
            .await?;
        Ok(Fetched {
            bytes,
            origin: url.to_string(),
            version: String::new(),
        })
    }

    async fn fetch_from_registry(
        &mut self,
        reference: &OciReference,
        spec: &VersionSpec,
    ) -> Result<Fetched, ResolveError> {
        if self.credentials.is_none() {
            self.credentials = Some(RegistryCredentials::load(
                &self.options.helm.registry_config,
            )?);
        }
        let credentials = self.credentials.clone().unwrap_or_default();
        let http = self.http(&TlsSettings::default())?;
        let pulled = oci::pull(
            &http,
            reference,
            spec,
            self.options.plain_http,
            &credentials,
            self.progress,
        )
        .await?;
        Ok(Fetched {
            bytes: pulled.bytes,
            origin: pulled.origin,
            version: pulled.version,
        })
    }

    /// Fetches the dependencies `charts/` lacks into `charts/`.
    fn vendor<'f>(
        &'f mut self,
        chart: &'f mut Chart,
        base_dir: Option<PathBuf>,
        depth: usize,
    ) -> Boxed<'f, ()> {
        Box::pin(async move {
            if depth >= dependencies::MAX_DEPTH {
                return Err(DependencyError::TooDeep {
                    chart: chart.name().to_string(),
                    limit: dependencies::MAX_DEPTH,
                }
                .into());
            }
            let chart_name = chart.name().to_string();
            let plan = dependencies::plan(chart)?;
            let mut fetched = Vec::new();
            for missing in plan.missing {
                let in_dependency = |error: ResolveError| ResolveError::InDependency {
                    chart: chart_name.clone(),
                    name: missing.name.clone(),
                    error: Box::new(error),
                };
                let (version, bytes, from) = match &missing.origin {
                    Origin::File(relative) => {
                        let Some(base) = &base_dir else {
                            return Err(DependencyError::FileWithoutDirectory {
                                chart: chart_name.clone(),
                                name: missing.name.clone(),
                                repository: missing.repository.clone(),
                                origin: chart.origin.clone(),
                            }
                            .into());
                        };
                        let path = base.join(relative);
                        let (version, bytes) = self
                            .pack_directory(&path, &missing.spec, depth)
                            .await
                            .map_err(in_dependency)?;
                        (version, bytes, path.display().to_string())
                    }
                    other => {
                        let fetched = self
                            .fetch_dependency(other, &missing.name, &missing.spec)
                            .await
                            .map_err(in_dependency)?;
                        // The archive is read once so a hostile subchart is refused here too.
                        archive::read_tgz(&fetched.origin, &fetched.bytes)
                            .map_err(|e| in_dependency(e.into()))?;
                        (fetched.version, fetched.bytes, fetched.origin)
                    }
                };
                self.fetched
                    .push(format!("{} {version} from {from}", missing.name));
                fetched.push((missing.name, version, bytes));
            }
            // Only once everything arrived, so a failure leaves the chart as it was.
            dependencies::remove(chart, &plan.stale);
            for (name, version, bytes) in fetched {
                dependencies::place(chart, &name, &version, bytes);
            }
            Ok(())
        })
    }

    async fn fetch_dependency(
        &mut self,
        origin: &Origin,
        name: &str,
        spec: &VersionSpec,
    ) -> Result<Fetched, ResolveError> {
        match origin {
            Origin::Named(repo_name) => {
                let path = self.options.helm.repository_config.clone();
                let entry = repo::find_by_name(self.repositories()?, repo_name, &path)?;
                self.fetch_from_repository(&entry, name, spec, true).await
            }
            Origin::Url(url) => {
                let (entry, cached) = self.entry_for_url(url)?;
                self.fetch_from_repository(&entry, name, spec, cached).await
            }
            Origin::Oci(reference) => self.fetch_from_registry(reference, spec).await,
            Origin::File(_) => unreachable_file(),
        }
    }

    /// A `file://` dependency: the directory, its own dependencies vendored, packed as Helm
    /// packs it.
    async fn pack_directory(
        &mut self,
        path: &Path,
        spec: &VersionSpec,
        depth: usize,
    ) -> Result<(String, Vec<u8>), ResolveError> {
        let mut sub = super::load_local(path)?;
        let version = sub.metadata.version.clone().unwrap_or_default();
        if !spec.is_latest() && !spec.matches(&version) {
            return Err(ResolveError::FileVersion {
                path: path.to_path_buf(),
                found: version,
                wanted: spec.to_string(),
            });
        }
        let base = path.is_dir().then(|| path.to_path_buf());
        self.vendor(&mut sub, base, depth + 1).await?;
        let bytes = archive::write_tgz(sub.name(), &sub.files)
            .map_err(|e| ChartError::Unreadable(path.display().to_string(), e.to_string()))?;
        Ok((version, bytes))
    }
}

/// `fetch_dependency` is only called for origins other than `file://`, which
/// `Resolver::vendor` handles itself; reaching this is a programming error.
fn unreachable_file() -> Result<Fetched, ResolveError> {
    Err(ResolveError::Runtime(
        "internal error: file:// dependency sent to the network fetcher".to_string(),
    ))
}
