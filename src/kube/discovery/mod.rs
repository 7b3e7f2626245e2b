//! API discovery the way kubectl does it, for any conforming API server: ask `/api` and
//! `/apis` for aggregated discovery, decide by each answer's media type (and kind) whether it
//! is aggregated or legacy, and for a legacy answer read the document of every group
//! version. An aggregated answer without groups is not believed; the legacy documents are
//! asked for instead. Everything is kept in kubectl's disk cache.

mod cache;
mod documents;

use std::time::SystemTime;

use futures::future::join_all;
use kube::Client;
use serde_json::Value;

pub use cache::{DiskCache, default_cache_dir, host_dir};
use documents::{ACCEPT, ACCEPT_LEGACY, CoreVersions, Group};
pub use documents::{GroupList, ResourceList, split_group_version};

/// Why discovery failed.
#[derive(Debug)]
pub enum Failure {
    Request(kube::Error),
    /// The server answered, but named no resource at all: not a truth to deploy on.
    Empty,
}

impl From<kube::Error> for Failure {
    fn from(error: kube::Error) -> Failure {
        Failure::Request(error)
    }
}

impl From<serde_json::Error> for Failure {
    fn from(error: serde_json::Error) -> Failure {
        Failure::Request(kube::Error::SerdeError(error))
    }
}

/// What the server serves: its groups and the resources of each group version.
#[derive(Debug, Clone)]
pub struct Discovered {
    pub groups: GroupList,
    /// When the group list came from the disk cache: the time it was written there.
    pub cached_at: Option<SystemTime>,
    pub lists: Vec<ResourceList>,
}

/// Discovery from the fresh files of `cache`, asking the server only for what they lack;
/// without them, from the server, and then written to `cache`.
pub async fn discover(client: &Client, cache: Option<&DiskCache>) -> Result<Discovered, Failure> {
    if let Some(cache) = cache
        && let Some(found) = from_cache(client, cache).await?
    {
        return Ok(found);
    }
    let found = from_server(client).await?;
    if let Some(cache) = cache {
        store(cache, &found);
    }
    Ok(found)
}

/// The resources of one group version, straight from the server (`None` when it does not
/// serve it), and kept in `cache`.
pub async fn group_version(
    client: &Client,
    cache: Option<&DiskCache>,
    group_version: &str,
) -> Result<Option<ResourceList>, kube::Error> {
    let list = fetch_list(client, group_version).await?;
    if let (Some(cache), Some(list)) = (cache, &list) {
        // The cache only saves requests; failing to write it is not the deploy's problem.
        let _ = cache.write_resources(list);
    }
    Ok(list)
}

fn store(cache: &DiskCache, found: &Discovered) {
    // Resource lists first: a reader that finds the group list finds them too.
    for list in &found.lists {
        let _ = cache.write_resources(list);
    }
    let _ = cache.write_groups(&found.groups, None);
}

async fn from_cache(client: &Client, cache: &DiskCache) -> Result<Option<Discovered>, Failure> {
    let Some((groups, written)) = cache.groups() else {
        return Ok(None);
    };
    let mut lists = Vec::new();
    let mut missing = Vec::new();
    for group_version in groups.group_versions() {
        match cache.resources(group_version) {
            Some(list) => lists.push(list),
            None => missing.push(group_version.to_string()),
        }
    }
    for list in fetch_lists(client, &missing).await? {
        let _ = cache.write_resources(&list);
        lists.push(list);
    }
    Ok(Some(Discovered {
        groups,
        cached_at: Some(written),
        lists,
    }))
}

async fn from_server(client: &Client) -> Result<Discovered, Failure> {
    let (core, apis) = futures::try_join!(root(client, Root::Core), root(client, Root::Apis))?;
    let mut groups = core.groups;
    groups.extend(apis.groups);
    let mut lists = core.lists;
    lists.extend(apis.lists);
    let unlisted: Vec<String> = core.unlisted.into_iter().chain(apis.unlisted).collect();
    lists.extend(fetch_lists(client, &unlisted).await?);
    if lists.iter().all(|l| l.resources.is_empty()) {
        return Err(Failure::Empty);
    }
    Ok(Discovered {
        groups: GroupList::new(groups),
        cached_at: None,
        lists,
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Root {
    /// `/api`: the core group.
    Core,
    /// `/apis`: every other group.
    Apis,
}

impl Root {
    fn path(self) -> &'static str {
        match self {
            Root::Core => "/api",
            Root::Apis => "/apis",
        }
    }
}

/// One root's answer: its groups, the resource lists an aggregated answer carried, and the
/// group versions whose lists a legacy answer leaves to be asked for.
#[derive(Debug, Default)]
struct RootAnswer {
    groups: Vec<Group>,
    lists: Vec<ResourceList>,
    unlisted: Vec<String>,
}

async fn root(client: &Client, root: Root) -> Result<RootAnswer, Failure> {
    let (content_type, body) = match get(client, root.path(), ACCEPT).await {
        Ok(answer) => answer,
        // Aggregated API servers answer 404 on /api; client-go tolerates that too.
        Err(e) if root == Root::Core && crate::kube::is_not_found(&e) => {
            return Ok(RootAnswer::default());
        }
        Err(e) => return Err(e.into()),
    };
    if documents::is_aggregated(&content_type, &body) {
        let (groups, lists) = documents::split_aggregated(body)?;
        if !groups.is_empty() {
            return Ok(RootAnswer {
                groups,
                lists,
                unlisted: Vec::new(),
            });
        }
        let (_, body) = get(client, root.path(), ACCEPT_LEGACY).await?;
        return legacy(root, body);
    }
    legacy(root, body)
}

fn legacy(root: Root, body: Value) -> Result<RootAnswer, Failure> {
    let groups: Vec<Group> = match root {
        Root::Core => documents::core_group(serde_json::from_value::<CoreVersions>(body)?)
            .into_iter()
            .collect(),
        Root::Apis => serde_json::from_value::<GroupList>(body)?.groups,
    };
    let unlisted = groups
        .iter()
        .flat_map(|g| g.versions.iter().map(|v| v.group_version.clone()))
        .collect();
    Ok(RootAnswer {
        groups,
        lists: Vec::new(),
        unlisted,
    })
}

/// The lists of `group_versions`, concurrently; a group version the server cannot answer
/// for is left out (an aggregated API that is down answers 503, and must not fail a deploy
/// that does not use it).
async fn fetch_lists(
    client: &Client,
    group_versions: &[String],
) -> Result<Vec<ResourceList>, kube::Error> {
    let answers = join_all(group_versions.iter().map(|gv| fetch_list(client, gv))).await;
    let mut lists = Vec::new();
    for answer in answers {
        if let Some(list) = answer? {
            lists.push(list);
        }
    }
    Ok(lists)
}

async fn fetch_list(
    client: &Client,
    group_version: &str,
) -> Result<Option<ResourceList>, kube::Error> {
    let path = match split_group_version(group_version) {
        ("", version) => format!("/api/{version}"),
        _ => format!("/apis/{group_version}"),
    };
    match get(client, &path, ACCEPT_LEGACY).await {
        Ok((_, body)) => {
            let mut list: ResourceList =
                serde_json::from_value(body).map_err(kube::Error::SerdeError)?;
            list.group_version = group_version.to_string();
            list.resources.retain(|r| !r.name.is_empty());
            Ok(Some(list))
        }
        Err(e @ kube::Error::Api(_))
            if !matches!(
                crate::kube::Reason::of(&e),
                crate::kube::Reason::Unauthorized | crate::kube::Reason::Forbidden
            ) =>
        {
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

/// A GET with `accept`: the answer's media type and its JSON, or the server's `Status`.
async fn get(client: &Client, path: &str, accept: &str) -> Result<(String, Value), kube::Error> {
    let request = http::Request::get(path)
        .header(http::header::ACCEPT, accept)
        .body(Vec::new())
        .map_err(kube::Error::HttpError)?;
    let answer = super::raw::send(client, request).await?;
    let content_type = answer
        .headers
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    let body = serde_json::from_slice(&answer.body).map_err(kube::Error::SerdeError)?;
    Ok((content_type, body))
}
