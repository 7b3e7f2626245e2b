//! Remote charts against real servers on 127.0.0.1: a chart repository served over HTTP(S) from
//! a temporary directory, and a real OCI registry (Debian's docker-registry).

mod support;

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use operator_rs::chart::download::{DownloadError, sha256_hex};
use operator_rs::chart::helm_paths::HelmPaths;
use operator_rs::chart::oci::OciError;
use operator_rs::chart::repo::RepoError;
use operator_rs::chart::{
    ChartError, ChartSource, ResolveError, ResolveOptions, Resolved, resolve,
};
use support::chart_repo::{
    RepoDir, chart_files, with_chart_yaml_tail, with_version, write_repositories,
};
use support::http_server::{HttpServer, Mode, Response, static_files};

const CHART: &str = "hello-world";

fn init() {
    // main installs the provider; in-process callers must do the same.
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// A temporary home for Helm's files and the served repository.
struct Fixture {
    dir: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Fixture {
        init();
        Fixture {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    fn path(&self, relative: &str) -> std::path::PathBuf {
        self.dir.path().join(relative)
    }

    fn options(&self) -> ResolveOptions {
        ResolveOptions {
            plain_http: false,
            timeout: Duration::from_secs(5),
            helm: HelmPaths {
                repository_config: self.path("helm/repositories.yaml"),
                repository_cache: self.path("helm/cache"),
                registry_config: self.path("helm/registry/config.json"),
            },
        }
    }

    fn repositories(&self, entries: &[(&str, &str, &str)]) {
        std::fs::create_dir_all(self.path("helm")).unwrap();
        write_repositories(&self.path("helm/repositories.yaml"), entries);
    }

    fn resolve(&self, chart: &str, version: Option<&str>) -> Result<Resolved, ResolveError> {
        self.resolve_with(chart, version, None, &self.options())
    }

    fn resolve_with(
        &self,
        chart: &str,
        version: Option<&str>,
        repo: Option<&str>,
        options: &ResolveOptions,
    ) -> Result<Resolved, ResolveError> {
        let source = ChartSource::parse_in(self.dir.path(), chart, version, repo)?;
        resolve(&source, options, &|_, _| {})
    }
}

/// The standard repository: hello-world at several versions, one prerelease, under `/stable/`
/// with relative URLs, one version under an absolute URL.
struct StandardRepo {
    fixture: Fixture,
    server: HttpServer,
    archives: BTreeMap<String, Vec<u8>>,
}

fn standard_repo() -> StandardRepo {
    let fixture = Fixture::new();
    let root = fixture.path("served");
    let server = HttpServer::start(static_files(root.clone(), None));
    let mut repo = RepoDir::new(&root.join("stable"));
    let files = chart_files(CHART);
    let mut archives = BTreeMap::new();
    for version in ["0.1.0", "0.2.0", "1.1.0", "2.0.0-rc.1"] {
        archives.insert(
            version.to_string(),
            repo.add(CHART, version, "charts", &files),
        );
    }
    // 1.0.0 lives elsewhere on the server, under an absolute URL.
    let absolute =
        operator_rs::chart::archive::write_tgz(CHART, &with_version(&files, "1.0.0")).unwrap();
    repo.add_raw(
        CHART,
        "1.0.0",
        "../elsewhere/hello-world-1.0.0.tgz",
        &format!("{}/elsewhere/hello-world-1.0.0.tgz", server.url()),
        &absolute,
        Some(&absolute),
    );
    archives.insert("1.0.0".to_string(), absolute);
    repo.write_index();
    // No trailing slash: relative URLs must still land under /stable/.
    fixture.repositories(&[("local", &format!("{}/stable", server.url()), "")]);
    StandardRepo {
        fixture,
        server,
        archives,
    }
}

fn assert_version(resolved: &Resolved, version: &str) {
    assert_eq!(resolved.version.as_deref(), Some(version));
    assert_eq!(resolved.chart.metadata.version.as_deref(), Some(version));
    assert_eq!(
        resolved.chart.files,
        with_version(&chart_files(CHART), version)
    );
}

#[test]
fn repo_alias_gives_the_newest_release_not_the_prerelease() {
    let repo = standard_repo();
    let resolved = repo.fixture.resolve("local/hello-world", None).unwrap();
    assert_version(&resolved, "1.1.0");
    assert!(resolved.warnings.is_empty(), "{:?}", resolved.warnings);
    assert!(
        resolved
            .chart
            .origin
            .ends_with("/stable/charts/hello-world-1.1.0.tgz")
    );
    let progress_seen = std::cell::Cell::new(0u64);
    let source = ChartSource::parse("local/hello-world", None, None).unwrap();
    resolve(&source, &repo.fixture.options(), &|bytes, _| {
        progress_seen.set(progress_seen.get().max(bytes))
    })
    .unwrap();
    assert!(progress_seen.get() >= repo.archives["1.1.0"].len() as u64);
}

#[test]
fn exact_versions_including_a_prerelease() {
    let repo = standard_repo();
    assert_version(
        &repo
            .fixture
            .resolve("local/hello-world", Some("0.2.0"))
            .unwrap(),
        "0.2.0",
    );
    assert_version(
        &repo
            .fixture
            .resolve("local/hello-world", Some("2.0.0-rc.1"))
            .unwrap(),
        "2.0.0-rc.1",
    );
}

#[test]
fn constraints_pick_the_newest_match_with_relative_and_absolute_urls() {
    let repo = standard_repo();
    let resolved = repo
        .fixture
        .resolve("local/hello-world", Some("~0.1"))
        .unwrap();
    assert_version(&resolved, "0.1.0");
    assert!(
        resolved
            .chart
            .origin
            .ends_with("/stable/charts/hello-world-0.1.0.tgz")
    );
    let resolved = repo
        .fixture
        .resolve("local/hello-world", Some(">=0.2 <1.1"))
        .unwrap();
    assert_version(&resolved, "1.0.0");
    assert_eq!(
        resolved.chart.origin,
        format!("{}/elsewhere/hello-world-1.0.0.tgz", repo.server.url())
    );
    assert_version(
        &repo
            .fixture
            .resolve("local/hello-world", Some("^1"))
            .unwrap(),
        "1.1.0",
    );
}

#[test]
fn no_such_version_lists_the_newest_that_exist() {
    let repo = standard_repo();
    let err = repo
        .fixture
        .resolve("local/hello-world", Some("9.9.9"))
        .unwrap_err();
    assert!(err.is_usage());
    assert_eq!(
        err.to_string(),
        "chart hello-world in repository local has no version 9.9.9; the newest versions are 2.0.0-rc.1, 1.1.0, 1.0.0, 0.2.0, 0.1.0"
    );
    let err = repo.fixture.resolve("local/hello-wrld", None).unwrap_err();
    assert!(
        matches!(err, ResolveError::Repo(RepoError::NoSuchChart { .. })),
        "{err}"
    );
    assert!(
        err.to_string().ends_with("did you mean hello-world?"),
        "{err}"
    );
    let err = repo
        .fixture
        .resolve("nowhere/hello-world", None)
        .unwrap_err();
    assert!(err.to_string().contains("helm repo add nowhere"), "{err}");
    assert!(err.is_usage());
}

#[test]
fn repository_url_and_direct_url() {
    let repo = standard_repo();
    let options = repo.fixture.options();
    let url = format!("{}/stable/", repo.server.url());
    let resolved = repo
        .fixture
        .resolve_with(CHART, Some("0.2.0"), Some(&url), &options)
        .unwrap();
    assert_version(&resolved, "0.2.0");
    let direct = format!("{}/stable/charts/hello-world-0.1.0.tgz", repo.server.url());
    let resolved = repo.fixture.resolve(&direct, None).unwrap();
    assert_version(&resolved, "0.1.0");
}

#[test]
fn missing_archive_is_a_404_naming_the_url() {
    let repo = standard_repo();
    std::fs::remove_file(
        repo.fixture
            .path("served/stable/charts/hello-world-0.2.0.tgz"),
    )
    .unwrap();
    let err = repo
        .fixture
        .resolve("local/hello-world", Some("0.2.0"))
        .unwrap_err();
    assert!(
        matches!(
            err,
            ResolveError::Download(DownloadError::Status { status: 404, .. })
        ),
        "{err}"
    );
    let text = err.to_string();
    assert!(
        text.contains(&format!(
            "{}/stable/charts/hello-world-0.2.0.tgz",
            repo.server.url()
        )) && text.contains("404"),
        "{text}"
    );
    assert!(!err.is_usage());
}

/// A repository with one odd version of hello-world: the archive bytes served, and the bytes
/// whose digest the index gives.
fn odd_repo(served: &[u8], digest_of: &[u8]) -> (Fixture, HttpServer) {
    let fixture = Fixture::new();
    let root = fixture.path("served");
    let server = HttpServer::start(static_files(root.clone(), None));
    let mut repo = RepoDir::new(&root);
    repo.add_raw(
        CHART,
        "0.1.0",
        "hello-world-0.1.0.tgz",
        "hello-world-0.1.0.tgz",
        served,
        Some(digest_of),
    );
    repo.write_index();
    fixture.repositories(&[("odd", &server.url(), "")]);
    (fixture, server)
}

#[test]
fn digest_mismatch_shows_both_digests_and_extracts_nothing() {
    let good = operator_rs::chart::archive::write_tgz(CHART, &chart_files(CHART)).unwrap();
    let mut tampered = good.clone();
    tampered.extend_from_slice(b"tampered");
    let (fixture, _server) = odd_repo(&tampered, &good);
    let err = fixture.resolve("odd/hello-world", None).unwrap_err();
    let text = err.to_string();
    assert!(
        matches!(
            err,
            ResolveError::Download(DownloadError::DigestMismatch { .. })
        ),
        "{text}"
    );
    assert!(text.contains(&sha256_hex(&good)), "{text}");
    assert!(text.contains(&sha256_hex(&tampered)), "{text}");
    assert!(text.contains("hello-world-0.1.0.tgz"), "{text}");
}

#[test]
fn truncated_gzip_is_refused_naming_the_url() {
    let good = operator_rs::chart::archive::write_tgz(CHART, &chart_files(CHART)).unwrap();
    let truncated = &good[..good.len() / 2];
    // The index agrees with the truncated bytes: the archive itself must be found broken.
    let (fixture, server) = odd_repo(truncated, truncated);
    let err = fixture.resolve("odd/hello-world", None).unwrap_err();
    assert!(
        matches!(err, ResolveError::Chart(ChartError::CorruptArchive(..))),
        "{err}"
    );
    assert!(
        err.to_string()
            .contains(&format!("{}/hello-world-0.1.0.tgz", server.url())),
        "{err}"
    );
}

#[test]
fn a_connection_cut_short_is_a_truncated_download() {
    let fixture = Fixture::new();
    let good = operator_rs::chart::archive::write_tgz(CHART, &chart_files(CHART)).unwrap();
    let archive = good.clone();
    let server = HttpServer::start(move |request| {
        if request.route() == "/hello-world-0.1.0.tgz" {
            Response::ok(archive.clone()).mode(Mode::Truncate)
        } else {
            Response::not_found()
        }
    });
    let err = fixture
        .resolve(&format!("{}/hello-world-0.1.0.tgz", server.url()), None)
        .unwrap_err();
    assert!(
        matches!(err, ResolveError::Download(DownloadError::Truncated { expected: Some(n), .. }) if n == good.len() as u64),
        "{err}"
    );
    assert!(err.to_string().contains("cut off"), "{err}");
}

#[test]
fn an_archive_entry_with_dot_dot_is_refused() {
    // Built by hand: tar writers refuse `..`, which is the point.
    let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let mut builder = tar::Builder::new(gz);
    for (name, data) in [
        (
            "hello-world/Chart.yaml",
            &b"apiVersion: v2\nname: hello-world\nversion: 0.1.0\n"[..],
        ),
        ("hello-world/../../evil.sh", &b"#!/bin/sh\n"[..]),
    ] {
        let mut header = tar::Header::new_gnu();
        header.set_size(data.len() as u64);
        header.set_mode(0o644);
        header.as_old_mut().name[..name.len()].copy_from_slice(name.as_bytes());
        header.set_cksum();
        builder.append(&header, data).unwrap();
    }
    let hostile = builder.into_inner().unwrap().finish().unwrap();
    let (fixture, _server) = odd_repo(&hostile, &hostile);
    let err = fixture.resolve("odd/hello-world", None).unwrap_err();
    assert!(
        matches!(err, ResolveError::Chart(ChartError::UnsafeEntry(..))),
        "{err}"
    );
    assert!(err.to_string().contains(".."), "{err}");
    assert!(!fixture.path("evil.sh").exists() && !fixture.path("served/evil.sh").exists());
}

#[test]
fn basic_auth_required_then_given_and_kept_from_other_hosts() {
    let fixture = Fixture::new();
    let files = chart_files(CHART);
    // The archive of 1.0.0 is on a second server, by absolute URL: it must not get the password.
    let other_root = fixture.path("other");
    let other = HttpServer::start(static_files(other_root.clone(), None));
    let root = fixture.path("private");
    let server = HttpServer::start(static_files(root.clone(), Some(("alice", "s3cret"))));
    let mut repo = RepoDir::new(&root);
    repo.add(CHART, "0.1.0", "", &files);
    let elsewhere =
        operator_rs::chart::archive::write_tgz(CHART, &with_version(&files, "1.0.0")).unwrap();
    std::fs::create_dir_all(&other_root).unwrap();
    std::fs::write(other_root.join("hello-world-1.0.0.tgz"), &elsewhere).unwrap();
    repo.add_raw(
        CHART,
        "1.0.0",
        "unused/hello-world-1.0.0.tgz",
        &format!("{}/hello-world-1.0.0.tgz", other.url()),
        &elsewhere,
        Some(&elsewhere),
    );
    repo.write_index();
    fixture.repositories(&[
        ("anonymous", &server.url(), ""),
        (
            "private",
            &server.url(),
            "username: alice\npassword: s3cret",
        ),
        ("wrong", &server.url(), "username: alice\npassword: nope"),
    ]);

    let err = fixture.resolve("anonymous/hello-world", None).unwrap_err();
    assert!(
        matches!(
            err,
            ResolveError::Download(DownloadError::Status { status: 401, .. })
        ),
        "{err}"
    );
    assert!(
        err.to_string()
            .contains(&format!("{}/index.yaml", server.url())),
        "{err}"
    );
    assert!(
        err.to_string().contains("helm repo add --username"),
        "{err}"
    );
    let err = fixture.resolve("wrong/hello-world", None).unwrap_err();
    assert!(
        matches!(
            err,
            ResolveError::Download(DownloadError::Status { status: 401, .. })
        ),
        "{err}"
    );

    let resolved = fixture
        .resolve("private/hello-world", Some("0.1.0"))
        .unwrap();
    assert_version(&resolved, "0.1.0");
    let resolved = fixture.resolve("private/hello-world", None).unwrap();
    assert_version(&resolved, "1.0.0");
    assert!(
        other
            .requests()
            .iter()
            .all(|r| r.header("authorization").is_none()),
        "credentials leaked to another host"
    );
    // A direct URL under a configured repository borrows its credentials.
    fixture.repositories(&[(
        "private",
        &server.url(),
        "username: alice\npassword: s3cret",
    )]);
    let direct = format!("{}/hello-world-0.1.0.tgz", server.url());
    assert_version(&fixture.resolve(&direct, None).unwrap(), "0.1.0");
}

#[test]
fn a_repository_dependency_is_fetched_from_the_same_server_with_alias_and_condition_kept() {
    let repo = standard_repo();
    let deps = format!(
        "dependencies:\n- name: hello-world\n  version: \"~1.0\"\n  repository: {}/stable\n  alias: greeter\n  condition: greeter.enabled\n- name: hello-world\n  version: 0.2.0\n  repository: \"@local\"\n  alias: second\n",
        repo.server.url()
    );
    let parent = with_chart_yaml_tail(&chart_files(CHART), &deps);
    let mut parent = with_version(&parent, "3.0.0");
    let chart_yaml = String::from_utf8(parent["Chart.yaml"].clone()).unwrap();
    parent.insert(
        "Chart.yaml".into(),
        chart_yaml
            .replacen("name: hello-world", "name: parent", 1)
            .into_bytes(),
    );
    let mut served = RepoDir::new(&repo.fixture.path("served/parents"));
    let parent_tgz = served.add("parent", "3.0.0", "", &parent);
    served.write_index();
    let options = repo.fixture.options();
    let resolved = repo
        .fixture
        .resolve_with(
            "parent",
            None,
            Some(&format!("{}/parents", repo.server.url())),
            &options,
        )
        .unwrap();
    let chart = &resolved.chart;
    assert_eq!(chart.name(), "parent");
    // Chart.yaml is untouched: alias and condition are as the author wrote them.
    assert_eq!(chart.files["Chart.yaml"], parent["Chart.yaml"]);
    assert_eq!(
        chart.files["charts/hello-world-1.0.0.tgz"],
        repo.archives["1.0.0"]
    );
    assert_eq!(
        chart.files["charts/hello-world-0.2.0.tgz"],
        repo.archives["0.2.0"]
    );
    assert_eq!(
        resolved.fetched_dependencies.len(),
        2,
        "{:?}",
        resolved.fetched_dependencies
    );
    let subcharts = operator_rs::chart::dependencies::subcharts(chart).unwrap();
    assert_eq!(subcharts.len(), 2);
    assert!(
        subcharts
            .iter()
            .all(|s| s.files.contains_key("templates/deployment.yaml"))
    );

    // The same parent with charts/ vendored and a Chart.lock that it satisfies: nothing is
    // fetched, so a repository that no longer exists does not matter.
    let mut vendored = parent.clone();
    let chart_yaml = String::from_utf8(vendored["Chart.yaml"].clone()).unwrap();
    vendored.insert(
        "Chart.yaml".into(),
        chart_yaml
            .replace(&repo.server.url(), "http://127.0.0.1:9")
            .into_bytes(),
    );
    vendored.insert(
        "charts/hello-world-1.0.0.tgz".into(),
        repo.archives["1.0.0"].clone(),
    );
    vendored.insert(
        "charts/hello-world-0.2.0.tgz".into(),
        repo.archives["0.2.0"].clone(),
    );
    vendored.insert(
        "Chart.lock".into(),
        b"dependencies:\n- name: hello-world\n  repository: http://127.0.0.1:9/stable\n  version: 1.0.0\n- name: hello-world\n  repository: '@local'\n  version: 0.2.0\ndigest: sha256:0\ngenerated: \"2026-01-01T00:00:00Z\"\n".to_vec(),
    );
    let dir = repo.fixture.path("vendored");
    write_dir(&dir, &vendored);
    let before = repo.server.requests().len();
    let resolved = repo.fixture.resolve("vendored", None).unwrap();
    assert_eq!(resolved.chart.files, vendored);
    assert!(resolved.fetched_dependencies.is_empty());
    assert_eq!(
        repo.server.requests().len(),
        before,
        "nothing should be downloaded"
    );
    drop(parent_tgz);
}

#[test]
fn file_dependencies_are_copied_from_a_chart_directory() {
    let fixture = Fixture::new();
    let sub = with_version(&chart_files(CHART), "0.3.0");
    write_dir(&fixture.path("work/sub"), &sub);
    let parent = with_chart_yaml_tail(
        &chart_files(CHART),
        "dependencies:\n- name: hello-world\n  version: \">=0.3\"\n  repository: file://../sub\n  alias: inner\n",
    );
    write_dir(&fixture.path("work/parent"), &parent);
    let resolved = fixture.resolve("work/parent", None).unwrap();
    let archive = &resolved.chart.files["charts/hello-world-0.3.0.tgz"];
    let inner = operator_rs::chart::archive::read_tgz("inner", archive).unwrap();
    assert_eq!(inner.files, sub);
    // A version that the directory does not have is an error naming both.
    let parent = with_chart_yaml_tail(
        &chart_files(CHART),
        "dependencies:\n- name: hello-world\n  version: \"^1\"\n  repository: file://../sub\n",
    );
    write_dir(&fixture.path("work/parent2"), &parent);
    let err = fixture.resolve("work/parent2", None).unwrap_err();
    assert!(err.to_string().contains("has version 0.3.0"), "{err}");
}

#[test]
fn unreachable_repository_falls_back_to_helms_cache_only_then() {
    let repo = standard_repo();
    let fixture = &repo.fixture;
    let closed = support::closed_port::ClosedPort::new();
    let dead = format!("http://127.0.0.1:{}", closed.port());
    fixture.repositories(&[("gone", &dead, "")]);
    let err = fixture.resolve("gone/hello-world", None).unwrap_err();
    assert!(
        matches!(err, ResolveError::Download(DownloadError::Connect { .. })),
        "{err}"
    );
    assert!(
        err.to_string().contains(&format!("{dead}/index.yaml")),
        "{err}"
    );

    // With Helm's cached index and chart (as `helm repo update` and `helm pull` leave them).
    let cache = fixture.path("helm/cache");
    std::fs::create_dir_all(&cache).unwrap();
    let index = std::fs::read_to_string(fixture.path("served/stable/index.yaml")).unwrap();
    std::fs::write(cache.join("gone-index.yaml"), index).unwrap();
    std::fs::write(cache.join("hello-world-1.1.0.tgz"), &repo.archives["1.1.0"]).unwrap();
    let resolved = fixture.resolve("gone/hello-world", None).unwrap();
    assert_version(&resolved, "1.1.0");
    assert_eq!(resolved.warnings.len(), 2, "{:?}", resolved.warnings);
    assert!(
        resolved.warnings[0].contains("cached index"),
        "{:?}",
        resolved.warnings
    );

    // A cached chart is still checked against the index's digest.
    std::fs::write(cache.join("hello-world-1.1.0.tgz"), &repo.archives["0.1.0"]).unwrap();
    let err = fixture.resolve("gone/hello-world", None).unwrap_err();
    assert!(
        matches!(
            err,
            ResolveError::Download(DownloadError::DigestMismatch { .. })
        ),
        "{err}"
    );
}

#[test]
fn a_server_that_never_answers_is_a_timeout() {
    let fixture = Fixture::new();
    let server = HttpServer::start(|_| Response::ok("").mode(Mode::Hang));
    let mut options = fixture.options();
    options.timeout = Duration::from_secs(1);
    let url = format!("{}/hello-world-0.1.0.tgz", server.url());
    let err = fixture
        .resolve_with(&url, None, None, &options)
        .unwrap_err();
    assert!(
        matches!(err, ResolveError::Download(DownloadError::Timeout { .. })),
        "{err}"
    );
    assert!(err.to_string().contains(&url), "{err}");
}

#[test]
fn tls_with_ca_file_client_certificates_and_insecure_skip() {
    let ca = support::certs::TestCa::new();
    let fixture = Fixture::new();
    let root = fixture.path("served");
    let mut repo = RepoDir::new(&root);
    repo.add(CHART, "0.1.0", "", &chart_files(CHART));
    repo.write_index();
    let server = HttpServer::start_tls(static_files(root.clone(), None), ca.server_config(false));
    let mtls = HttpServer::start_tls(static_files(root.clone(), None), ca.server_config(true));
    let ca_file = format!("caFile: {}", ca.path("ca.pem").display());
    let client = format!(
        "{ca_file}\ncertFile: {}\nkeyFile: {}",
        ca.path("client.pem").display(),
        ca.path("client.key").display()
    );
    fixture.repositories(&[
        ("untrusted", &server.url(), ""),
        ("trusted", &server.url(), &ca_file),
        ("mtls-without-cert", &mtls.url(), &ca_file),
        ("mtls", &mtls.url(), &client),
    ]);
    let err = fixture.resolve("untrusted/hello-world", None).unwrap_err();
    assert!(
        matches!(err, ResolveError::Download(DownloadError::Tls { .. })),
        "{err}"
    );
    assert!(err.to_string().contains("caFile"), "{err}");
    assert_version(
        &fixture.resolve("trusted/hello-world", None).unwrap(),
        "0.1.0",
    );
    assert!(
        fixture
            .resolve("mtls-without-cert/hello-world", None)
            .is_err()
    );
    assert_version(&fixture.resolve("mtls/hello-world", None).unwrap(), "0.1.0");
    let insecure = fixture.path("helm/insecure.yaml");
    write_repositories(
        &insecure,
        &[("skip", &server.url(), "insecure_skip_tls_verify: true")],
    );
    let mut options = fixture.options();
    options.helm.repository_config = insecure;
    assert_version(
        &fixture
            .resolve_with("skip/hello-world", None, None, &options)
            .unwrap(),
        "0.1.0",
    );
}

fn write_dir(dir: &Path, files: &BTreeMap<String, Vec<u8>>) {
    for (path, bytes) in files {
        let target = dir.join(path);
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::write(target, bytes).unwrap();
    }
}

// ---- OCI ----

fn config_json(files: &BTreeMap<String, Vec<u8>>) -> String {
    let metadata: serde_json::Value =
        operator_rs::yaml::from_str(&String::from_utf8_lossy(&files["Chart.yaml"])).unwrap();
    serde_json::to_string(&metadata).unwrap()
}

#[test]
fn oci_chart_from_a_real_registry_matches_the_local_chart() {
    init();
    let registry = support::registry::Registry::start();
    let fixture = Fixture::new();
    let local = operator_rs::chart::load_local(&support::chart_repo::shared_chart(CHART)).unwrap();
    let mut digests = BTreeMap::new();
    for version in ["0.1.0", "1.1.0", "2.0.0-rc.1"] {
        let files = if version == "0.1.0" {
            local.files.clone()
        } else {
            with_version(&local.files, version)
        };
        let tgz = operator_rs::chart::archive::write_tgz(CHART, &files).unwrap();
        let digest = support::oci_push::push_chart(
            &registry.url(),
            "charts/hello-world",
            version,
            &tgz,
            &config_json(&files),
        );
        digests.insert(version, digest);
    }
    let mut options = fixture.options();
    options.plain_http = true;
    let reference = format!("oci://{}/charts/hello-world", registry.host());

    let resolved = fixture
        .resolve_with(&reference, Some("0.1.0"), None, &options)
        .unwrap();
    assert_eq!(resolved.chart.files, local.files, "{}", registry.log());
    assert_eq!(resolved.chart.origin, format!("{reference}:0.1.0"));

    let newest = fixture
        .resolve_with(&reference, None, None, &options)
        .unwrap();
    assert_version(&newest, "1.1.0");
    let tagged = fixture
        .resolve_with(&format!("{reference}:2.0.0-rc.1"), None, None, &options)
        .unwrap();
    assert_version(&tagged, "2.0.0-rc.1");
    let by_digest = format!("{reference}@{}", digests["0.1.0"]);
    assert_eq!(
        fixture
            .resolve_with(&by_digest, None, None, &options)
            .unwrap()
            .chart
            .files,
        local.files
    );

    let err = fixture
        .resolve_with(&reference, Some("0.9.0"), None, &options)
        .unwrap_err();
    assert!(
        matches!(err, ResolveError::Oci(OciError::NoSuchVersion { .. })),
        "{err}"
    );
    assert!(
        err.to_string().contains("2.0.0-rc.1, 1.1.0, 0.1.0"),
        "{err}"
    );
    let err = fixture
        .resolve_with(&reference, Some("~3"), None, &options)
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("the newest versions are 2.0.0-rc.1, 1.1.0, 0.1.0"),
        "{err}"
    );

    // Without --plain-http the client speaks TLS to a plain-HTTP registry.
    let err = fixture
        .resolve_with(&reference, Some("0.1.0"), None, &fixture.options())
        .unwrap_err();
    assert!(err.to_string().contains("--plain-http"), "{err}");
}

#[test]
fn oci_bearer_token_from_the_challenge_with_helm_registry_credentials() {
    init();
    let fixture = Fixture::new();
    let files = chart_files(CHART);
    let tgz = operator_rs::chart::archive::write_tgz(CHART, &files).unwrap();
    let layer = format!("sha256:{}", sha256_hex(&tgz));
    let manifest = serde_json::json!({
        "schemaVersion": 2,
        "config": {"mediaType": "application/vnd.cncf.helm.config.v1+json", "digest": "sha256:00", "size": 2},
        "layers": [{"mediaType": "application/vnd.cncf.helm.chart.content.v1.tar+gzip", "digest": layer, "size": tgz.len()}],
    })
    .to_string();
    let port = std::sync::Arc::new(std::sync::OnceLock::<u16>::new());
    let server_port = port.clone();
    let server = HttpServer::start(move |request| {
        let realm = format!("http://127.0.0.1:{}/token", server_port.get().unwrap());
        match request.route() {
            "/token" => match request.basic_auth() {
                Some((user, password)) if user == "bob" && password == "hunter2" => {
                    assert!(
                        request
                            .path
                            .contains("scope=repository%3Acharts%2Fhello-world%3Apull")
                    );
                    Response::ok(r#"{"token":"t0ken"}"#)
                }
                _ => Response::new(401, "{}"),
            },
            route if request.header("authorization") != Some("Bearer t0ken") => {
                let _ = route;
                Response::new(401, "{}").header(
                    "WWW-Authenticate",
                    &format!(r#"Bearer realm="{realm}",service="test",scope="repository:charts/hello-world:pull""#),
                )
            }
            "/v2/charts/hello-world/manifests/0.1.0" => Response::ok(manifest.clone())
                .header("Content-Type", "application/vnd.oci.image.manifest.v1+json"),
            route if route == format!("/v2/charts/hello-world/blobs/{layer}") => {
                Response::ok(tgz.clone())
            }
            _ => Response::not_found(),
        }
    });
    port.set(server.port()).unwrap();
    let mut options = fixture.options();
    options.plain_http = true;
    let reference = format!("oci://127.0.0.1:{}/charts/hello-world", server.port());

    let err = fixture
        .resolve_with(&reference, Some("0.1.0"), None, &options)
        .unwrap_err();
    assert!(
        matches!(err, ResolveError::Oci(OciError::Denied { .. })),
        "{err}"
    );
    assert!(err.to_string().contains("helm registry login"), "{err}");

    std::fs::create_dir_all(fixture.path("helm/registry")).unwrap();
    use base64::Engine as _;
    let auth = base64::engine::general_purpose::STANDARD.encode("bob:hunter2");
    std::fs::write(
        fixture.path("helm/registry/config.json"),
        format!(
            r#"{{"auths":{{"127.0.0.1:{}":{{"auth":"{auth}"}}}}}}"#,
            server.port()
        ),
    )
    .unwrap();
    let resolved = fixture
        .resolve_with(&reference, Some("0.1.0"), None, &options)
        .unwrap();
    assert_eq!(resolved.chart.files, files);
}

#[test]
fn oci_layer_digest_mismatch_is_refused() {
    init();
    let fixture = Fixture::new();
    let files = chart_files(CHART);
    let tgz = operator_rs::chart::archive::write_tgz(CHART, &files).unwrap();
    let claimed = format!("sha256:{}", sha256_hex(b"something else"));
    let manifest = serde_json::json!({
        "schemaVersion": 2,
        "layers": [{"mediaType": "application/vnd.cncf.helm.chart.content.v1.tar+gzip", "digest": claimed, "size": tgz.len()}],
    })
    .to_string();
    let server = HttpServer::start(move |request| match request.route() {
        "/v2/charts/hello-world/manifests/0.1.0" => Response::ok(manifest.clone()),
        route if route.starts_with("/v2/charts/hello-world/blobs/") => Response::ok(tgz.clone()),
        _ => Response::not_found(),
    });
    let mut options = fixture.options();
    options.plain_http = true;
    let reference = format!("oci://127.0.0.1:{}/charts/hello-world:0.1.0", server.port());
    let err = fixture
        .resolve_with(&reference, None, None, &options)
        .unwrap_err();
    let text = err.to_string();
    assert!(
        matches!(
            err,
            ResolveError::Download(DownloadError::DigestMismatch { .. })
                | ResolveError::Oci(OciError::Download(DownloadError::DigestMismatch { .. }))
        ),
        "{text}"
    );
    assert!(text.contains(&claimed), "{text}");
}

// ---- through the binary: `new` with remote charts ----

/// `operator-rs` with Helm's files pointed into the fixture, never at the user's own.
fn operator_rs(fixture: &Fixture, cwd: &Path) -> assert_cmd::Command {
    let mut command = support::project::operator_rs(cwd);
    let options = fixture.options();
    command
        .env("HELM_REPOSITORY_CONFIG", &options.helm.repository_config)
        .env("HELM_REPOSITORY_CACHE", &options.helm.repository_cache)
        .env("HELM_REGISTRY_CONFIG", &options.helm.registry_config);
    command
}

#[test]
fn new_from_an_oci_chart_makes_the_same_project_as_the_local_chart() {
    init();
    let registry = support::registry::Registry::start();
    let fixture = Fixture::new();
    let local = support::chart_repo::shared_chart(CHART);
    let files = chart_files(CHART);
    let tgz = operator_rs::chart::archive::write_tgz(CHART, &files).unwrap();
    support::oci_push::push_chart(
        &registry.url(),
        "charts/hello-world",
        "0.1.0",
        &tgz,
        &config_json(&files),
    );

    let from_local = fixture.path("from-local");
    let from_oci = fixture.path("from-oci");
    for dir in [&from_local, &from_oci] {
        std::fs::create_dir_all(dir).unwrap();
    }
    operator_rs(&fixture, &from_local)
        .args(["new", "demo", "--type=helm", "--helm-chart"])
        .arg(&local)
        .assert()
        .success();
    let output = operator_rs(&fixture, &from_oci)
        .args([
            "new",
            "demo",
            "--type=helm",
            "--plain-http",
            "--helm-chart-version=0.1.0",
        ])
        .arg(format!(
            "--helm-chart=oci://{}/charts/hello-world",
            registry.host()
        ))
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&output.get_output().stdout).into_owned();
    assert!(
        stdout.contains("Fetched chart hello-world 0.1.0 from oci://"),
        "{stdout}"
    );
    let local_tree = support::project::read_tree(&from_local.join("demo"));
    let oci_tree = support::project::read_tree(&from_oci.join("demo"));
    assert_eq!(
        local_tree.keys().collect::<Vec<_>>(),
        oci_tree.keys().collect::<Vec<_>>()
    );
    for (path, bytes) in &local_tree {
        assert!(oci_tree[path] == *bytes, "{path} differs");
    }
}

#[test]
fn new_from_repo_slash_name_and_failures_that_leave_nothing() {
    let repo = standard_repo();
    let fixture = &repo.fixture;
    let work = fixture.path("work");
    std::fs::create_dir_all(&work).unwrap();
    let output = operator_rs(fixture, &work)
        .args([
            "new",
            "--type=helm",
            "--helm-chart=local/hello-world",
            "--helm-chart-version=~0.2",
        ])
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&output.get_output().stdout).into_owned();
    assert!(
        stdout.contains("Fetched chart hello-world 0.2.0"),
        "{stdout}"
    );
    let copied =
        support::project::read_tree(&work.join("hello-world-operator/helm-charts/hello-world"));
    assert_eq!(copied, with_version(&chart_files(CHART), "0.2.0"));

    let empty = fixture.path("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let output = operator_rs(fixture, &empty)
        .args([
            "new",
            "--type=helm",
            "--helm-chart=local/hello-world",
            "--helm-chart-version=9.9.9",
        ])
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&output.get_output().stderr).into_owned();
    assert!(
        stderr.contains("the newest versions are 2.0.0-rc.1, 1.1.0"),
        "{stderr}"
    );
    std::fs::remove_file(fixture.path("served/stable/charts/hello-world-1.1.0.tgz")).unwrap();
    let output = operator_rs(fixture, &empty)
        .args(["new", "--type=helm", "--helm-chart=local/hello-world"])
        .assert()
        .code(1);
    let stderr = String::from_utf8_lossy(&output.get_output().stderr).into_owned();
    assert!(
        stderr.contains("hello-world-1.1.0.tgz") && stderr.contains("404"),
        "{stderr}"
    );
    operator_rs(fixture, &empty)
        .args([
            "new",
            "--type=helm",
            "--helm-chart=hello-world",
            "--helm-chart-version=1.0.0",
        ])
        .arg(format!("--helm-chart-repo={}/stable", repo.server.url()))
        .assert()
        .success();
    // Only the successful run left a project; the failures left nothing, not even staging.
    assert_eq!(
        support::project::list_entries(&empty)
            .iter()
            .filter(|e| !e.contains('/'))
            .count(),
        1
    );
}

#[test]
fn templates_of_fetched_dependencies_count_for_rbac() {
    let fixture = Fixture::new();
    let root = fixture.path("served");
    let server = HttpServer::start(static_files(root.clone(), None));
    let mut repo = RepoDir::new(&root);
    repo.add(
        "kube-state-metrics",
        "8.4.0",
        "",
        &chart_files("kube-state-metrics"),
    );
    repo.write_index();
    let parent = with_chart_yaml_tail(
        &chart_files(CHART),
        &format!(
            "dependencies:\n- name: kube-state-metrics\n  version: \"^8\"\n  repository: {}\n  condition: metrics.enabled\n",
            server.url()
        ),
    );
    write_dir(&fixture.path("work/parent"), &parent);
    let work = fixture.path("work");
    let output = operator_rs(&fixture, &work)
        .args(["new", "demo", "--type=helm", "--helm-chart=parent"])
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&output.get_output().stdout).into_owned();
    assert!(
        stdout.contains("Fetched dependency kube-state-metrics 8.4.0"),
        "{stdout}"
    );
    let project = work.join("demo");
    assert!(
        project
            .join("helm-charts/hello-world/charts/kube-state-metrics-8.4.0.tgz")
            .is_file()
    );
    // hello-world alone needs only a Role; the subchart's ClusterRole makes it cluster-wide.
    let role = std::fs::read_to_string(project.join("deploy/role.yaml")).unwrap();
    assert!(role.contains("kind: ClusterRole"), "{role}");
    assert!(role.contains("clusterrolebindings"), "{role}");
}
