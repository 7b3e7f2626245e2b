//! Charts in OCI registries (`oci://host/path/name`), through the distribution API: the tag list
//! when a version must be chosen, the manifest, then the chart layer, verified against its digest.
//!
//! Authentication follows the registry's challenge: anonymous first; on 401 a bearer token from
//! the `WWW-Authenticate` realm (with the user's credentials when Helm's `registry/config.json`
//! has them), or basic auth when the registry asks for it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use reqwest::header::{HeaderMap, HeaderValue, WWW_AUTHENTICATE};
use reqwest::{StatusCode, Url};
use serde::Deserialize;
use thiserror::Error;

use super::MAX_CHART_BYTES;
use super::download::{self, Auth, DownloadError, Http, Progress};
use super::version::{self, VersionSpec};

/// The media type of the layer holding the chart's `.tgz`.
pub const CHART_LAYER_MEDIA_TYPE: &str = "application/vnd.cncf.helm.chart.content.v1.tar+gzip";
/// The chart layer's media type before Helm 3.8; such charts are still in registries.
const LEGACY_CHART_LAYER_MEDIA_TYPE: &str = "application/tar+gzip";
/// The media type of a Helm chart's config blob (Chart.yaml as JSON).
pub const CHART_CONFIG_MEDIA_TYPE: &str = "application/vnd.cncf.helm.config.v1+json";
const MANIFEST_MEDIA_TYPE: &str = "application/vnd.oci.image.manifest.v1+json";
/// Manifests and tag lists are small; anything bigger is not a registry answering.
const MAX_MANIFEST_BYTES: u64 = 4 * 1024 * 1024;
/// Registries page tag lists; this many pages is more than any chart has versions.
const MAX_TAG_PAGES: usize = 50;

#[derive(Debug, Error)]
pub enum OciError {
    #[error(
        "\"{reference}\" is not a valid OCI chart reference: {why} (expected oci://HOST[:PORT]/PATH/NAME[:VERSION])"
    )]
    BadReference { reference: String, why: String },
    #[error(transparent)]
    Download(#[from] DownloadError),
    #[error("{}", no_such_version(reference, spec, newest))]
    NoSuchVersion {
        reference: String,
        spec: String,
        newest: Vec<String>,
    },
    #[error("{reference} is not a Helm chart: {why}")]
    NotAChart { reference: String, why: String },
    #[error("{url}: the registry's answer is not what the distribution API describes: {why}")]
    BadAnswer { url: String, why: String },
    #[error(
        "{registry} refused access to {repository}: {why}; log in with `helm registry login {registry}` (credentials are read from {config})"
    )]
    Denied {
        registry: String,
        repository: String,
        why: String,
        config: String,
    },
    #[error("cannot read Helm's registry credentials {path}: {detail}")]
    BadCredentials { path: PathBuf, detail: String },
}

impl OciError {
    pub fn is_usage(&self) -> bool {
        matches!(
            self,
            OciError::BadReference { .. } | OciError::NoSuchVersion { .. }
        )
    }
}

fn no_such_version(reference: &str, spec: &str, newest: &[String]) -> String {
    if newest.is_empty() {
        format!("{reference} has no {spec}, and no tags that are chart versions")
    } else {
        format!(
            "{reference} has no {spec}; the newest versions are {}",
            newest.join(", ")
        )
    }
}

/// `oci://host[:port]/path/name[:tag][@sha256:...]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OciReference {
    /// `host[:port]`.
    pub registry: String,
    /// `path/name`, the repository in the registry.
    pub repository: String,
    pub tag: Option<String>,
    pub digest: Option<String>,
}

impl OciReference {
    pub fn parse(text: &str) -> Result<OciReference, OciError> {
        let bad = |why: &str| OciError::BadReference {
            reference: text.to_string(),
            why: why.to_string(),
        };
        let rest = text
            .strip_prefix("oci://")
            .ok_or_else(|| bad("it does not start with oci://"))?;
        let (rest, digest) = match rest.split_once('@') {
            Some((rest, digest)) => {
                let hex = digest
                    .strip_prefix("sha256:")
                    .ok_or_else(|| bad("only sha256 digests are supported"))?;
                if hex.len() != 64 || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
                    return Err(bad("the digest is not 64 hex digits"));
                }
                (rest, Some(digest.to_ascii_lowercase()))
            }
            None => (rest, None),
        };
        let (registry, path) = rest
            .split_once('/')
            .ok_or_else(|| bad("it names a registry but no chart"))?;
        if registry.is_empty() || registry.contains(|c: char| c.is_whitespace()) {
            return Err(bad("the registry host is empty"));
        }
        // A tag is after the last `/`: the host part may hold a `:port`.
        let (repository, tag) = match path.rsplit_once('/') {
            Some((dir, last)) => match last.split_once(':') {
                Some((name, tag)) => (format!("{dir}/{name}"), Some(tag.to_string())),
                None => (path.to_string(), None),
            },
            None => match path.split_once(':') {
                Some((name, tag)) => (name.to_string(), Some(tag.to_string())),
                None => (path.to_string(), None),
            },
        };
        let valid_component = |c: &str| {
            !c.is_empty()
                && c.chars()
                    .all(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit() || "._-".contains(ch))
        };
        if !repository.split('/').all(valid_component) {
            return Err(bad(
                "the repository path must be lower-case letters, digits, `.`, `_`, `-` between single slashes",
            ));
        }
        if tag.as_deref().is_some_and(str::is_empty) {
            return Err(bad("the tag after `:` is empty"));
        }
        Ok(OciReference {
            registry: registry.to_string(),
            repository,
            tag,
            digest,
        })
    }

    /// The chart name: the last path component.
    pub fn chart_name(&self) -> &str {
        self.repository
            .rsplit('/')
            .next()
            .unwrap_or(&self.repository)
    }

    /// The reference without tag or digest.
    pub fn base(&self) -> String {
        format!("oci://{}/{}", self.registry, self.repository)
    }

    /// A child reference: `<this>/<name>`, for dependencies whose repository is `oci://...`.
    pub fn child(&self, name: &str) -> OciReference {
        OciReference {
            registry: self.registry.clone(),
            repository: format!("{}/{name}", self.repository),
            tag: None,
            digest: None,
        }
    }
}

/// Helm writes `+` (semver build metadata) as `_` in tags, which cannot hold `+`.
pub fn version_to_tag(version: &str) -> String {
    version.replace('+', "_")
}

fn tag_to_version(tag: &str) -> String {
    tag.replace('_', "+")
}

/// Credentials from Helm's `registry/config.json` (Docker's format), by registry host.
#[derive(Debug, Clone, Default)]
pub struct RegistryCredentials {
    path: PathBuf,
    by_host: BTreeMap<String, (String, String)>,
}

#[derive(Deserialize)]
struct DockerConfig {
    #[serde(default)]
    auths: BTreeMap<String, DockerAuth>,
}

#[derive(Deserialize)]
struct DockerAuth {
    #[serde(default)]
    auth: Option<String>,
    #[serde(default)]
    username: Option<String>,
    #[serde(default)]
    password: Option<String>,
}

impl RegistryCredentials {
    /// Reads the file; a missing file means no credentials.
    pub fn load(path: &Path) -> Result<RegistryCredentials, OciError> {
        let bad = |detail: String| OciError::BadCredentials {
            path: path.to_path_buf(),
            detail,
        };
        let bytes = match std::fs::read(path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(RegistryCredentials {
                    path: path.to_path_buf(),
                    by_host: BTreeMap::new(),
                });
            }
            Err(e) => return Err(bad(e.to_string())),
        };
        let config: DockerConfig =
            serde_json::from_slice(&bytes).map_err(|e| bad(e.to_string()))?;
        let mut by_host = BTreeMap::new();
        for (key, entry) in config.auths {
            let pair = match (entry.auth, entry.username, entry.password) {
                (Some(auth), _, _) if !auth.is_empty() => {
                    use base64::Engine as _;
                    let decoded = base64::engine::general_purpose::STANDARD
                        .decode(auth.trim())
                        .map_err(|e| bad(format!("`auth` of {key} is not base64: {e}")))?;
                    let text = String::from_utf8(decoded)
                        .map_err(|_| bad(format!("`auth` of {key} is not UTF-8")))?;
                    let (user, password) = text
                        .split_once(':')
                        .ok_or_else(|| bad(format!("`auth` of {key} is not user:password")))?;
                    (user.to_string(), password.to_string())
                }
                (_, Some(user), Some(password)) => (user, password),
                _ => continue,
            };
            by_host.insert(host_of(&key), pair);
        }
        Ok(RegistryCredentials {
            path: path.to_path_buf(),
            by_host,
        })
    }

    pub fn for_registry(&self, registry: &str) -> Option<(String, String)> {
        self.by_host.get(registry).cloned()
    }
}

/// `https://host:port/v1/` and `host:port` both name `host:port`.
fn host_of(key: &str) -> String {
    let key = key.split_once("://").map_or(key, |(_, rest)| rest);
    key.split('/').next().unwrap_or(key).to_string()
}

/// A chart pulled from a registry, its digest already verified.
#[derive(Debug, Clone)]
pub struct Pulled {
    pub bytes: Vec<u8>,
    /// `oci://host/path/name:version`, for messages and `Chart::origin`.
    pub origin: String,
    pub version: String,
}

/// Pulls the chart `reference` names, choosing a tag with `spec` when the reference has none.
pub async fn pull(
    http: &Http,
    reference: &OciReference,
    spec: &VersionSpec,
    plain_http: bool,
    credentials: &RegistryCredentials,
    progress: Progress<'_>,
) -> Result<Pulled, OciError> {
    let scheme = if plain_http { "http" } else { "https" };
    let base = Url::parse(&format!("{scheme}://{}/v2/", reference.registry)).map_err(|e| {
        OciError::BadReference {
            reference: reference.base(),
            why: format!("the registry address is not valid: {e}"),
        }
    })?;
    let mut session = Session {
        http,
        base,
        reference,
        credentials,
        auth: Auth::None,
        authenticated: false,
    };

    let (manifest_ref, version) = match (&reference.digest, &reference.tag) {
        (Some(digest), tag) => (
            digest.clone(),
            tag.clone().unwrap_or_else(|| digest.clone()),
        ),
        (None, Some(tag)) => (tag.clone(), tag_to_version(tag)),
        (None, None) => match spec {
            VersionSpec::Exact(v) => (version_to_tag(v), v.clone()),
            _ => {
                let tags = session.tags().await?;
                let versions: Vec<String> = tags.iter().map(|t| tag_to_version(t)).collect();
                let chosen = spec
                    .select(versions.iter().map(String::as_str))
                    .map_err(|no| OciError::NoSuchVersion {
                        reference: reference.base(),
                        spec: spec.to_string(),
                        newest: no
                            .newest
                            .into_iter()
                            .filter(|v| version::parse_version(v).is_some())
                            .collect(),
                    })?
                    .to_string();
                (version_to_tag(&chosen), chosen)
            }
        },
    };
    let origin = format!("{}:{}", reference.base(), version);

    let manifest_url = session.url(&format!("manifests/{manifest_ref}"))?;
    let response = match session
        .get(
            &format!("manifests/{manifest_ref}"),
            Some(MANIFEST_MEDIA_TYPE),
        )
        .await
    {
        Ok(response) => response,
        // A version the user named that has no manifest reads best as "no such version",
        // with the versions that do exist.
        Err(OciError::Download(DownloadError::Status { status: 404, .. }))
            if reference.digest.is_none() =>
        {
            let tags = session.tags().await.unwrap_or_default();
            let mut versions: Vec<String> = tags
                .iter()
                .map(|t| tag_to_version(t))
                .filter(|v| version::parse_version(v).is_some())
                .collect();
            versions.sort_by(|a, b| version::compare(b, a));
            versions.truncate(8);
            return Err(OciError::NoSuchVersion {
                reference: reference.base(),
                spec: format!("version {version}"),
                newest: versions,
            });
        }
        Err(other) => return Err(other),
    };
    let body = http
        .read_body(&manifest_url, response, MAX_MANIFEST_BYTES, &|_, _| {})
        .await?;
    if let Some(digest) = &reference.digest {
        download::verify_sha256(&manifest_url, &body, digest, "reference")?;
    }
    let manifest: Manifest = serde_json::from_slice(&body).map_err(|e| OciError::BadAnswer {
        url: manifest_url.to_string(),
        why: format!("the manifest is not valid JSON: {e}"),
    })?;
    let layer = chart_layer(&manifest).ok_or_else(|| OciError::NotAChart {
        reference: origin.clone(),
        why: format!(
            "its manifest (config media type \"{}\") has no layer of media type {CHART_LAYER_MEDIA_TYPE}",
            manifest
                .config
                .as_ref()
                .map(|c| c.media_type.as_str())
                .unwrap_or("none")
        ),
    })?;
    if layer.size.is_some_and(|size| size > MAX_CHART_BYTES) {
        return Err(DownloadError::TooLarge {
            url: origin,
            limit: MAX_CHART_BYTES,
        }
        .into());
    }
    let blob_path = format!("blobs/{}", layer.digest);
    let blob_url = session.url(&blob_path)?;
    let response = session.get(&blob_path, None).await?;
    let bytes = http
        .read_body(&blob_url, response, MAX_CHART_BYTES, progress)
        .await?;
    // Verified before anything reads the archive.
    download::verify_sha256(&blob_url, &bytes, &layer.digest, "registry manifest")?;
    Ok(Pulled {
        bytes,
        origin,
        version,
    })
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Manifest {
    #[serde(default)]
    config: Option<Descriptor>,
    #[serde(default)]
    layers: Vec<Descriptor>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Descriptor {
    #[serde(default)]
    media_type: String,
    digest: String,
    #[serde(default)]
    size: Option<u64>,
}

fn chart_layer(manifest: &Manifest) -> Option<&Descriptor> {
    manifest
        .layers
        .iter()
        .find(|l| l.media_type == CHART_LAYER_MEDIA_TYPE)
        .or_else(|| {
            manifest
                .layers
                .iter()
                .find(|l| l.media_type == LEGACY_CHART_LAYER_MEDIA_TYPE)
        })
}

struct Session<'a> {
    http: &'a Http,
    base: Url,
    reference: &'a OciReference,
    credentials: &'a RegistryCredentials,
    auth: Auth,
    authenticated: bool,
}

impl Session<'_> {
    fn url(&self, path: &str) -> Result<Url, OciError> {
        self.base
            .join(&format!("{}/{path}", self.reference.repository))
            .map_err(|e| OciError::BadReference {
                reference: self.reference.base(),
                why: e.to_string(),
            })
    }

    /// GETs a path under `/v2/<repository>/`, answering one auth challenge on the way.
    async fn get(
        &mut self,
        path: &str,
        accept: Option<&str>,
    ) -> Result<reqwest::Response, OciError> {
        let url = self.url(path)?;
        let mut headers = HeaderMap::new();
        if let Some(accept) = accept.and_then(|a| HeaderValue::from_str(a).ok()) {
            headers.insert(reqwest::header::ACCEPT, accept);
        }
        let mut response = self.http.send(&url, &self.auth, headers.clone()).await?;
        if response.status() == StatusCode::UNAUTHORIZED && !self.authenticated {
            let challenge = response
                .headers()
                .get(WWW_AUTHENTICATE)
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default()
                .to_string();
            self.auth = self.authenticate(&url, &challenge).await?;
            self.authenticated = true;
            response = self.http.send(&url, &self.auth, headers).await?;
        }
        if matches!(
            response.status(),
            StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN
        ) {
            return Err(self.denied(format!("HTTP {} for {url}", response.status().as_u16())));
        }
        Ok(download::check_status(&url, response)?)
    }

    async fn authenticate(&self, url: &Url, challenge: &str) -> Result<Auth, OciError> {
        let login = self.credentials.for_registry(&self.reference.registry);
        let (scheme, params) = parse_challenge(challenge);
        match scheme.to_ascii_lowercase().as_str() {
            "bearer" => {
                let realm = params.get("realm").ok_or_else(|| OciError::BadAnswer {
                    url: url.to_string(),
                    why: "the bearer challenge names no realm".to_string(),
                })?;
                let mut token_url = Url::parse(realm).map_err(|e| OciError::BadAnswer {
                    url: url.to_string(),
                    why: format!("the token realm \"{realm}\" is not a URL: {e}"),
                })?;
                {
                    let mut query = token_url.query_pairs_mut();
                    if let Some(service) = params.get("service") {
                        query.append_pair("service", service);
                    }
                    let scope = params.get("scope").cloned().unwrap_or_else(|| {
                        format!("repository:{}:pull", self.reference.repository)
                    });
                    query.append_pair("scope", &scope);
                }
                let auth = match &login {
                    Some((username, password)) => Auth::Basic {
                        username: username.clone(),
                        password: password.clone(),
                    },
                    None => Auth::None,
                };
                let response = self.http.send(&token_url, &auth, HeaderMap::new()).await?;
                if matches!(
                    response.status(),
                    StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN
                ) {
                    return Err(self.denied(format!(
                        "the token service {} answered HTTP {}{}",
                        token_url.origin().ascii_serialization(),
                        response.status().as_u16(),
                        if login.is_some() {
                            " to the stored credentials"
                        } else {
                            " without credentials"
                        }
                    )));
                }
                let response = download::check_status(&token_url, response)?;
                let body = self
                    .http
                    .read_body(&token_url, response, MAX_MANIFEST_BYTES, &|_, _| {})
                    .await?;
                #[derive(Deserialize)]
                struct Token {
                    #[serde(default)]
                    token: Option<String>,
                    #[serde(default)]
                    access_token: Option<String>,
                }
                let token: Token =
                    serde_json::from_slice(&body).map_err(|e| OciError::BadAnswer {
                        url: token_url.to_string(),
                        why: format!("the token answer is not JSON: {e}"),
                    })?;
                token
                    .token
                    .or(token.access_token)
                    .filter(|t| !t.is_empty())
                    .map(Auth::Bearer)
                    .ok_or_else(|| OciError::BadAnswer {
                        url: token_url.to_string(),
                        why: "the token answer holds no token".to_string(),
                    })
            }
            "basic" => match login {
                Some((username, password)) => Ok(Auth::Basic { username, password }),
                None => Err(self.denied("it wants a user name and password".to_string())),
            },
            _ => Err(self.denied(format!(
                "it answered 401 with an authentication scheme this tool does not know (\"{challenge}\")"
            ))),
        }
    }

    fn denied(&self, why: String) -> OciError {
        OciError::Denied {
            registry: self.reference.registry.clone(),
            repository: self.reference.repository.clone(),
            why,
            config: self.credentials.path.display().to_string(),
        }
    }

    /// Every tag of the repository, following `Link` headers across pages.
    async fn tags(&mut self) -> Result<Vec<String>, OciError> {
        #[derive(Deserialize)]
        struct TagList {
            #[serde(default)]
            tags: Option<Vec<String>>,
        }
        let mut tags = Vec::new();
        let mut path = "tags/list?n=1000".to_string();
        for _ in 0..MAX_TAG_PAGES {
            let url = self.url(&path)?;
            let response = self.get(&path, None).await?;
            let next = response
                .headers()
                .get(reqwest::header::LINK)
                .and_then(|v| v.to_str().ok())
                .and_then(next_link);
            let body = self
                .http
                .read_body(&url, response, MAX_MANIFEST_BYTES, &|_, _| {})
                .await?;
            let list: TagList = serde_json::from_slice(&body).map_err(|e| OciError::BadAnswer {
                url: url.to_string(),
                why: format!("the tag list is not JSON: {e}"),
            })?;
            tags.extend(list.tags.unwrap_or_default());
            match next {
                // `Link: </v2/<repo>/tags/list?n=..&last=..>; rel="next"`: keep the query.
                Some(link) => match link.split_once('?') {
                    Some((_, query)) => path = format!("tags/list?{query}"),
                    None => break,
                },
                None => break,
            }
        }
        Ok(tags)
    }
}

fn next_link(header: &str) -> Option<String> {
    header.split(',').find_map(|part| {
        let (target, params) = part.split_once(';')?;
        params.contains("rel=\"next\"").then(|| {
            target
                .trim()
                .trim_start_matches('<')
                .trim_end_matches('>')
                .to_string()
        })
    })
}

/// `Bearer realm="...",service="...",scope="..."` -> ("Bearer", {realm, service, scope}).
fn parse_challenge(header: &str) -> (String, BTreeMap<String, String>) {
    let header = header.trim();
    let (scheme, rest) = header.split_once(' ').unwrap_or((header, ""));
    let mut params = BTreeMap::new();
    let mut chars = rest.chars().peekable();
    loop {
        while chars.peek().is_some_and(|c| *c == ',' || c.is_whitespace()) {
            chars.next();
        }
        let key: String = chars.by_ref().take_while(|c| *c != '=').collect();
        if key.is_empty() {
            break;
        }
        let mut value = String::new();
        if chars.peek() == Some(&'"') {
            chars.next();
            while let Some(c) = chars.next() {
                match c {
                    '\\' => {
                        if let Some(escaped) = chars.next() {
                            value.push(escaped);
                        }
                    }
                    '"' => break,
                    c => value.push(c),
                }
            }
        } else {
            while let Some(c) = chars.peek() {
                if *c == ',' {
                    break;
                }
                value.push(*c);
                chars.next();
            }
        }
        params.insert(key.trim().to_ascii_lowercase(), value.trim().to_string());
    }
    (scheme.to_string(), params)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_references() {
        let r = OciReference::parse("oci://127.0.0.1:5000/charts/rancher").unwrap();
        assert_eq!(r.registry, "127.0.0.1:5000");
        assert_eq!(r.repository, "charts/rancher");
        assert_eq!(r.chart_name(), "rancher");
        assert_eq!(r.tag, None);
        let r = OciReference::parse("oci://registry.example.com/a/b/rancher:2.9.1").unwrap();
        assert_eq!(r.repository, "a/b/rancher");
        assert_eq!(r.tag.as_deref(), Some("2.9.1"));
        let r = OciReference::parse("oci://host/rancher:1.0.0").unwrap();
        assert_eq!(
            (r.repository.as_str(), r.tag.as_deref()),
            ("rancher", Some("1.0.0"))
        );
        let digest = format!("sha256:{}", "a".repeat(64));
        let r = OciReference::parse(&format!("oci://host/x/y@{digest}")).unwrap();
        assert_eq!(r.digest, Some(digest));
        assert_eq!(r.child("dep").repository, "x/y/dep");
        for bad in [
            "oci://",
            "oci://host",
            "oci://host/",
            "oci://host/Upper",
            "oci://host/a//b",
            "oci://host/a:",
            "oci://host/a@md5:00",
            "https://host/a",
        ] {
            assert!(OciReference::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn tags_carry_build_metadata_as_underscores() {
        assert_eq!(version_to_tag("1.2.3+build.4"), "1.2.3_build.4");
        assert_eq!(tag_to_version("1.2.3_build.4"), "1.2.3+build.4");
    }

    #[test]
    fn parses_auth_challenges() {
        let (scheme, params) = parse_challenge(
            r#"Bearer realm="https://auth.example.com/token",service="registry.example.com",scope="repository:charts/x:pull""#,
        );
        assert_eq!(scheme, "Bearer");
        assert_eq!(params["realm"], "https://auth.example.com/token");
        assert_eq!(params["service"], "registry.example.com");
        assert_eq!(params["scope"], "repository:charts/x:pull");
        let (scheme, params) = parse_challenge(r#"Basic realm="test registry""#);
        assert_eq!(scheme, "Basic");
        assert_eq!(params["realm"], "test registry");
    }

    #[test]
    fn follows_next_links() {
        assert_eq!(
            next_link(r#"</v2/charts/x/tags/list?n=2&last=b>; rel="next""#).as_deref(),
            Some("/v2/charts/x/tags/list?n=2&last=b")
        );
        assert_eq!(next_link(r#"</x>; rel="prev""#), None);
    }

    #[test]
    fn reads_docker_style_credentials() {
        use base64::Engine as _;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.json");
        let auth = base64::engine::general_purpose::STANDARD.encode("me:secret");
        std::fs::write(
            &path,
            format!(
                r#"{{"auths":{{"https://127.0.0.1:5000/v2/":{{"auth":"{auth}"}},"other.example":{{"username":"u","password":"p"}}}}}}"#
            ),
        )
        .unwrap();
        let creds = RegistryCredentials::load(&path).unwrap();
        assert_eq!(
            creds.for_registry("127.0.0.1:5000"),
            Some(("me".to_string(), "secret".to_string()))
        );
        assert_eq!(
            creds.for_registry("other.example"),
            Some(("u".to_string(), "p".to_string()))
        );
        assert_eq!(creds.for_registry("elsewhere"), None);
        let missing = RegistryCredentials::load(&dir.path().join("none.json")).unwrap();
        assert_eq!(missing.for_registry("127.0.0.1:5000"), None);
    }
}
