//! Chart dependencies (`dependencies` in Chart.yaml, or `requirements.yaml` for apiVersion v1
//! charts): which are already vendored under `charts/`, which must be fetched and from where, and
//! how a fetched subchart is placed, as `helm dependency update` places it
//! (`charts/<name>-<version>.tgz`). Chart.yaml itself is never rewritten, so aliases, conditions,
//! tags and import-values stay exactly as the author wrote them.

use std::collections::BTreeMap;

use serde::Deserialize;
use thiserror::Error;

use super::oci::{OciError, OciReference};
use super::version::{BadVersion, VersionSpec};
use super::{Chart, ChartError, archive};

#[derive(Debug, Error)]
pub enum DependencyError {
    #[error("the dependencies of chart {chart} in {file} are not valid: {detail}")]
    BadList {
        chart: String,
        file: &'static str,
        detail: String,
    },
    #[error("dependency {name} of chart {chart}: {error}")]
    BadVersion {
        chart: String,
        name: String,
        error: BadVersion,
    },
    #[error("dependency {name} of chart {chart}: {error}")]
    BadOci {
        chart: String,
        name: String,
        error: Box<OciError>,
    },
    #[error(
        "dependency {name} of chart {chart} has no `repository` and is not vendored under charts/; add the repository to Chart.yaml or the chart to charts/"
    )]
    NoRepository { chart: String, name: String },
    #[error(
        "dependency {name} of chart {chart} comes from {repository}, a path on the chart author's disk, and is not vendored under charts/ of {origin}; only a chart directory can bring file:// dependencies"
    )]
    FileWithoutDirectory {
        chart: String,
        name: String,
        repository: String,
        origin: String,
    },
    #[error(
        "dependency {name} of chart {chart} has repository \"{repository}\", which is neither http(s)://, oci://, file://, nor @name / alias:name of a Helm repository"
    )]
    UnknownRepository {
        chart: String,
        name: String,
        repository: String,
    },
    #[error("dependencies of chart {chart} nest deeper than {limit} levels (a file:// cycle?)")]
    TooDeep { chart: String, limit: usize },
    #[error(transparent)]
    Chart(#[from] ChartError),
}

/// One entry of `dependencies`.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
pub struct Dependency {
    pub name: String,
    #[serde(default, deserialize_with = "optional_text")]
    pub version: Option<String>,
    #[serde(default)]
    pub repository: Option<String>,
    #[serde(default)]
    pub alias: Option<String>,
    #[serde(default)]
    pub condition: Option<String>,
}

#[derive(Debug, Deserialize)]
struct DependencyList {
    #[serde(default)]
    dependencies: Option<Vec<Dependency>>,
}

#[derive(Debug, Clone, Deserialize)]
struct Locked {
    name: String,
    #[serde(deserialize_with = "text")]
    version: String,
    #[serde(default)]
    repository: Option<String>,
}

#[derive(Debug, Deserialize)]
struct LockFile {
    #[serde(default)]
    dependencies: Option<Vec<Locked>>,
}

fn optional_text<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    let value = Option::<serde_json::Value>::deserialize(d)?;
    Ok(value.map(|v| match v {
        serde_json::Value::String(s) => s,
        other => other.to_string(),
    }))
}

fn text<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    Ok(optional_text(d)?.unwrap_or_default())
}

/// Where a dependency comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// `file://path`, relative to the chart directory.
    File(String),
    /// `@name` or `alias:name`: a repository from Helm's `repositories.yaml`.
    Named(String),
    /// An http(s) repository URL.
    Url(String),
    /// `oci://host/path`: the chart is `<path>/<name>` in that registry.
    Oci(OciReference),
}

/// A dependency that must be fetched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Missing {
    pub name: String,
    pub spec: VersionSpec,
    pub origin: Origin,
    /// As written in Chart.yaml, for messages.
    pub repository: String,
}

/// A subchart already under `charts/`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Vendored {
    /// `charts/x-1.0.0.tgz`, or `charts/x` for a directory.
    pub path: String,
    pub name: String,
    pub version: Option<String>,
}

/// The declared dependencies of a chart (Chart.yaml, else requirements.yaml).
pub fn declared(chart: &Chart) -> Result<Vec<Dependency>, DependencyError> {
    for file in ["Chart.yaml", "requirements.yaml"] {
        let Some(bytes) = chart.files.get(file) else {
            continue;
        };
        let text = crate::text::lossy(bytes);
        let list: DependencyList = crate::yaml::from_str_last_key_wins(&text)
            .or_else(|first_error| {
                // As for the metadata: unreleased charts carry `version: %VERSION%`.
                crate::yaml::from_str_last_key_wins(&super::quote_placeholders(&text))
                    .map_err(|_| first_error)
            })
            .map_err(|e| DependencyError::BadList {
                chart: chart.name().to_string(),
                file,
                detail: e.to_string(),
            })?;
        if let Some(dependencies) = list.dependencies.filter(|d| !d.is_empty()) {
            return Ok(dependencies);
        }
    }
    Ok(Vec::new())
}

fn locked(chart: &Chart) -> Result<Option<Vec<Locked>>, DependencyError> {
    for file in ["Chart.lock", "requirements.lock"] {
        let Some(bytes) = chart.files.get(file) else {
            continue;
        };
        let lock: LockFile = crate::yaml::from_str_last_key_wins(&crate::text::lossy(bytes))
            .map_err(|e| DependencyError::BadList {
                chart: chart.name().to_string(),
                file,
                detail: e.to_string(),
            })?;
        return Ok(Some(lock.dependencies.unwrap_or_default()));
    }
    Ok(None)
}

/// The subcharts directly under `charts/`.
pub fn vendored(chart: &Chart) -> Result<Vec<Vendored>, DependencyError> {
    let mut found = Vec::new();
    let mut directories = BTreeMap::new();
    for (path, bytes) in &chart.files {
        let Some(rest) = path.strip_prefix("charts/") else {
            continue;
        };
        match rest.split_once('/') {
            None if rest.ends_with(".tgz") => {
                let sub = archive::read_tgz(&format!("{} {path}", chart.origin), bytes)?;
                found.push(Vendored {
                    path: path.clone(),
                    name: sub.metadata.name,
                    version: sub.metadata.version,
                });
            }
            Some((dir, "Chart.yaml")) => {
                directories.insert(dir.to_string(), bytes.clone());
            }
            _ => {}
        }
    }
    for (dir, bytes) in directories {
        let mut files = BTreeMap::new();
        files.insert("Chart.yaml".to_string(), bytes);
        let sub = Chart::from_files(&format!("{} charts/{dir}", chart.origin), files)?;
        found.push(Vendored {
            path: format!("charts/{dir}"),
            name: sub.metadata.name,
            version: sub.metadata.version,
        });
    }
    Ok(found)
}

/// What to change under `charts/`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Plan {
    /// Dependencies to fetch.
    pub missing: Vec<Missing>,
    /// Vendored copies of declared dependencies that no declaration accepts any more (Helm
    /// would load both them and the fetched version, and fail on the duplicate).
    pub stale: Vec<String>,
}

/// The dependencies that `charts/` does not already satisfy. Nothing is missing when
/// `charts/` holds exactly what `Chart.lock` pins, or a version each dependency accepts.
pub fn plan(chart: &Chart) -> Result<Plan, DependencyError> {
    let declared = declared(chart)?;
    if declared.is_empty() {
        return Ok(Plan::default());
    }
    let vendored = vendored(chart)?;
    let fits = |v: &Vendored, spec: &VersionSpec| match (spec, &v.version) {
        // No version asked for: any copy of the chart will do.
        (VersionSpec::Latest, _) => true,
        (spec, Some(version)) => spec.matches(version),
        (_, None) => false,
    };
    let has =
        |name: &str, spec: &VersionSpec| vendored.iter().any(|v| v.name == name && fits(v, spec));
    let lock = locked(chart)?;
    if let Some(lock) = &lock
        && !lock.is_empty()
        && lock
            .iter()
            .all(|l| has(&l.name, &VersionSpec::Exact(l.version.clone())))
    {
        return Ok(Plan::default());
    }

    let chart_name = chart.name().to_string();
    let mut specs: Vec<(String, VersionSpec)> = Vec::new();
    let mut missing: Vec<Missing> = Vec::new();
    for dependency in declared {
        let declared_spec = VersionSpec::parse(dependency.version.as_deref()).map_err(|error| {
            DependencyError::BadVersion {
                chart: chart_name.clone(),
                name: dependency.name.clone(),
                error,
            }
        })?;
        specs.push((dependency.name.clone(), declared_spec.clone()));
        if has(&dependency.name, &declared_spec) {
            continue;
        }
        // A lock pins what `helm dependency build` would fetch, when it still fits Chart.yaml.
        let pinned = lock.as_ref().and_then(|lock| {
            lock.iter()
                .find(|l| l.name == dependency.name && l.repository == dependency.repository)
                .filter(|l| declared_spec.is_latest() || declared_spec.matches(&l.version))
                .map(|l| VersionSpec::Exact(l.version.clone()))
        });
        let spec = pinned.unwrap_or(declared_spec);
        let repository = dependency.repository.clone().unwrap_or_default();
        let origin = parse_origin(&chart_name, &dependency.name, &repository)?;
        let duplicate = missing
            .iter()
            .any(|m| m.name == dependency.name && m.spec == spec && m.origin == origin);
        if !duplicate {
            missing.push(Missing {
                name: dependency.name,
                spec,
                origin,
                repository,
            });
        }
    }
    let stale = if missing.is_empty() {
        Vec::new()
    } else {
        vendored
            .iter()
            .filter(|v| {
                let mut wanted = specs.iter().filter(|(name, _)| *name == v.name).peekable();
                wanted.peek().is_some() && wanted.all(|(_, spec)| !fits(v, spec))
            })
            .map(|v| v.path.clone())
            .collect()
    };
    Ok(Plan { missing, stale })
}

/// Just the dependencies to fetch.
pub fn missing(chart: &Chart) -> Result<Vec<Missing>, DependencyError> {
    Ok(plan(chart)?.missing)
}

/// Removes vendored subcharts (archives, or directories and everything in them).
pub fn remove(chart: &mut Chart, paths: &[String]) {
    chart.files.retain(|path, _| {
        !paths
            .iter()
            .any(|p| path == p || path.starts_with(&format!("{p}/")))
    });
}

fn parse_origin(chart: &str, name: &str, repository: &str) -> Result<Origin, DependencyError> {
    let repository = repository.trim();
    if repository.is_empty() {
        return Err(DependencyError::NoRepository {
            chart: chart.to_string(),
            name: name.to_string(),
        });
    }
    if let Some(path) = repository.strip_prefix("file://") {
        return Ok(Origin::File(path.to_string()));
    }
    if let Some(repo) = repository
        .strip_prefix('@')
        .or_else(|| repository.strip_prefix("alias:"))
    {
        return Ok(Origin::Named(repo.to_string()));
    }
    if repository.starts_with("http://") || repository.starts_with("https://") {
        return Ok(Origin::Url(repository.to_string()));
    }
    if repository.starts_with("oci://") {
        let reference = OciReference::parse(repository.trim_end_matches('/')).map_err(|error| {
            DependencyError::BadOci {
                chart: chart.to_string(),
                name: name.to_string(),
                error: Box::new(error),
            }
        })?;
        return Ok(Origin::Oci(reference.child(name)));
    }
    Err(DependencyError::UnknownRepository {
        chart: chart.to_string(),
        name: name.to_string(),
        repository: repository.to_string(),
    })
}

/// Puts a fetched subchart archive at `charts/<name>-<version>.tgz`, where Helm puts it.
pub fn place(chart: &mut Chart, name: &str, version: &str, archive: Vec<u8>) {
    chart
        .files
        .insert(format!("charts/{name}-{version}.tgz"), archive);
}

/// Every subchart, at any depth, read from `charts/` (archives and directories): what the RBAC
/// scan needs, since a dependency's templates create objects too.
pub fn subcharts(chart: &Chart) -> Result<Vec<Chart>, ChartError> {
    let mut result = Vec::new();
    collect_subcharts(chart, &mut result, 0)?;
    Ok(result)
}

/// Vendored charts nested deeper than this are refused: real charts nest two or three levels.
pub const MAX_DEPTH: usize = 10;

fn collect_subcharts(chart: &Chart, into: &mut Vec<Chart>, depth: usize) -> Result<(), ChartError> {
    if depth >= MAX_DEPTH {
        return Err(ChartError::BadChartYaml(
            chart.origin.clone(),
            format!("subcharts nest deeper than {MAX_DEPTH} levels"),
        ));
    }
    let mut directories: BTreeMap<String, BTreeMap<String, Vec<u8>>> = BTreeMap::new();
    let mut children = Vec::new();
    for (path, bytes) in &chart.files {
        let Some(rest) = path.strip_prefix("charts/") else {
            continue;
        };
        match rest.split_once('/') {
            None if rest.ends_with(".tgz") => {
                children.push(archive::read_tgz(
                    &format!("{} {path}", chart.origin),
                    bytes,
                )?);
            }
            Some((dir, inner)) => {
                directories
                    .entry(dir.to_string())
                    .or_default()
                    .insert(inner.to_string(), bytes.clone());
            }
            None => {}
        }
    }
    for (dir, files) in directories {
        if files.contains_key("Chart.yaml") {
            children.push(Chart::from_files(
                &format!("{} charts/{dir}", chart.origin),
                files,
            )?);
        }
    }
    for child in children {
        collect_subcharts(&child, into, depth + 1)?;
        into.push(child);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chart_yaml(deps: &str) -> Vec<u8> {
        format!("apiVersion: v2\nname: parent\nversion: 1.0.0\n{deps}").into_bytes()
    }

    fn sub(name: &str, version: &str) -> Vec<u8> {
        let mut files = BTreeMap::new();
        files.insert(
            "Chart.yaml".to_string(),
            format!("apiVersion: v2\nname: {name}\nversion: {version}\n").into_bytes(),
        );
        files.insert(
            "templates/cm.yaml".to_string(),
            b"kind: ConfigMap\n".to_vec(),
        );
        archive::write_tgz(name, &files).unwrap()
    }

    fn chart(files: &[(&str, Vec<u8>)]) -> Chart {
        let files = files
            .iter()
            .map(|(p, b)| (p.to_string(), b.clone()))
            .collect();
        Chart::from_files("parent", files).unwrap()
    }

    const DEPS: &str = "dependencies:\n- name: redis\n  version: ~17.3.0\n  repository: https://charts.example.org/\n  alias: cache\n  condition: cache.enabled\n- name: common\n  version: 2.x.x\n  repository: \"@bitnami\"\n- name: local\n  repository: file://../local\n- name: reg\n  version: 1.0.0\n  repository: oci://registry.example.org/charts/\n";

    #[test]
    fn lists_what_is_missing_and_from_where() {
        let c = chart(&[("Chart.yaml", chart_yaml(DEPS))]);
        let missing = missing(&c).unwrap();
        assert_eq!(missing.len(), 4);
        assert_eq!(
            missing[0].origin,
            Origin::Url("https://charts.example.org/".into())
        );
        assert_eq!(
            missing[0].spec,
            VersionSpec::parse(Some("~17.3.0")).unwrap()
        );
        assert_eq!(missing[1].origin, Origin::Named("bitnami".into()));
        assert_eq!(missing[2].origin, Origin::File("../local".into()));
        assert_eq!(missing[2].spec, VersionSpec::Latest);
        match &missing[3].origin {
            Origin::Oci(r) => assert_eq!(r.repository, "charts/reg"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn vendored_charts_that_fit_are_kept() {
        let c = chart(&[
            ("Chart.yaml", chart_yaml(DEPS)),
            ("charts/redis-17.3.14.tgz", sub("redis", "17.3.14")),
            (
                "charts/common/Chart.yaml",
                b"name: common\nversion: 2.2.0\n".to_vec(),
            ),
            ("charts/local-0.1.0.tgz", sub("local", "0.1.0")),
        ]);
        let missing = missing(&c).unwrap();
        assert_eq!(missing.len(), 1, "{missing:?}");
        assert_eq!(missing[0].name, "reg");
    }

    #[test]
    fn a_lock_satisfied_by_charts_means_nothing_to_do() {
        let lock = b"dependencies:\n- name: redis\n  repository: https://charts.example.org/\n  version: 17.3.14\n".to_vec();
        let deps = "dependencies:\n- name: redis\n  version: ~17.3.0\n  repository: https://charts.example.org/\n";
        let with_lock = chart(&[
            ("Chart.yaml", chart_yaml(deps)),
            ("Chart.lock", lock.clone()),
            ("charts/redis-17.3.14.tgz", sub("redis", "17.3.14")),
        ]);
        assert!(missing(&with_lock).unwrap().is_empty());
        // A stale vendored copy is fetched again, at the version the lock pins.
        let stale = chart(&[
            ("Chart.yaml", chart_yaml(deps)),
            ("Chart.lock", lock),
            ("charts/redis-16.0.0.tgz", sub("redis", "16.0.0")),
        ]);
        let plan = plan(&stale).unwrap();
        assert_eq!(plan.missing[0].spec, VersionSpec::Exact("17.3.14".into()));
        assert_eq!(plan.stale, vec!["charts/redis-16.0.0.tgz".to_string()]);
        let mut stale = stale;
        remove(&mut stale, &plan.stale);
        place(&mut stale, "redis", "17.3.14", sub("redis", "17.3.14"));
        assert!(!stale.files.contains_key("charts/redis-16.0.0.tgz"));
        assert!(stale.files.contains_key("charts/redis-17.3.14.tgz"));
        assert!(super::missing(&stale).unwrap().is_empty());
    }

    #[test]
    fn unreleased_placeholders_do_not_hide_dependencies() {
        let c = chart(&[(
            "Chart.yaml",
            b"apiVersion: v2\nname: parent\nversion: %VERSION%\ndependencies:\n- name: x\n  version: 1.0.0\n  repository: https://charts.example.org\n".to_vec(),
        )]);
        assert_eq!(missing(&c).unwrap().len(), 1);
    }

    #[test]
    fn bad_repositories_are_named() {
        let c = chart(&[(
            "Chart.yaml",
            chart_yaml("dependencies:\n- name: x\n  version: 1.0.0\n  repository: ftp://x\n"),
        )]);
        let err = missing(&c).unwrap_err();
        assert!(err.to_string().contains("ftp://x"), "{err}");
        let c = chart(&[(
            "Chart.yaml",
            chart_yaml("dependencies:\n- name: x\n  version: 1.0.0\n"),
        )]);
        assert!(matches!(
            missing(&c),
            Err(DependencyError::NoRepository { .. })
        ));
    }

    #[test]
    fn subcharts_are_read_at_every_depth() {
        let mut inner_files = BTreeMap::new();
        inner_files.insert(
            "Chart.yaml".to_string(),
            b"apiVersion: v2\nname: mid\nversion: 1.0.0\n".to_vec(),
        );
        inner_files.insert("charts/leaf-1.0.0.tgz".to_string(), sub("leaf", "1.0.0"));
        let mid = archive::write_tgz("mid", &inner_files).unwrap();
        let c = chart(&[
            ("Chart.yaml", chart_yaml("")),
            ("charts/mid-1.0.0.tgz", mid),
            (
                "charts/dir/Chart.yaml",
                b"name: dir\nversion: 0.1.0\n".to_vec(),
            ),
            ("charts/dir/templates/x.yaml", b"kind: Secret\n".to_vec()),
        ]);
        let names: Vec<String> = subcharts(&c)
            .unwrap()
            .into_iter()
            .map(|c| c.metadata.name)
            .collect();
        assert_eq!(names, vec!["leaf", "mid", "dir"]);
    }
}
