//! kubectl's discovery cache on disk, shared with it: `<cache dir>/discovery/<host_port>/`
//! holds `servergroups.json` (an `APIGroupList`) and `<group>/<version>/serverresources.json`
//! (an `APIResourceList`, `v1/serverresources.json` for the core group). A file is used for
//! six hours after it was written, as kubectl does. What kubectl wrote serves us and what we
//! write serves kubectl.
//!
//! The cache only ever saves requests: a file that is missing, stale or unreadable is a miss,
//! and a file that cannot be written is skipped, so a read-only home never fails a deploy.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::documents::{GroupList, ResourceList};

/// How long kubectl trusts a discovery file.
pub const TTL: Duration = Duration::from_secs(6 * 60 * 60);

const GROUPS_FILE: &str = "servergroups.json";
const RESOURCES_FILE: &str = "serverresources.json";

#[derive(Debug, Clone)]
pub struct DiskCache {
    dir: PathBuf,
    ttl: Duration,
}

/// kubectl's default cache directory: `$KUBECACHEDIR`, else `~/.kube/cache`; `None` without
/// a home directory.
pub fn default_cache_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("KUBECACHEDIR").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(|home| PathBuf::from(home).join(".kube").join("cache"))
}

impl DiskCache {
    /// The discovery cache of the server at `host` (the kubeconfig's `server`) under
    /// `cache_dir`, kubectl's `--cache-dir`.
    pub fn new(cache_dir: &Path, host: &str) -> DiskCache {
        DiskCache {
            dir: cache_dir.join("discovery").join(host_dir(host)),
            ttl: TTL,
        }
    }

    #[cfg(test)]
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The cached group list while fresh, with the time it was written.
    pub fn groups(&self) -> Option<(GroupList, SystemTime)> {
        let (groups, written): (GroupList, SystemTime) = self.read(&self.dir.join(GROUPS_FILE))?;
        (groups.kind == "APIGroupList" && !groups.groups.is_empty()).then_some((groups, written))
    }

    /// The cached resources of `group_version` while fresh.
    pub fn resources(&self, group_version: &str) -> Option<ResourceList> {
        let path = self.resources_path(group_version)?;
        let (list, _): (ResourceList, _) = self.read(&path)?;
        (list.kind == "APIResourceList" && list.group_version == group_version).then_some(list)
    }

    /// Writes the group list; `written` keeps the age of a list that came from this cache
    /// and only gained a group version, so that adding one never makes old data look new.
    pub fn write_groups(
        &self,
        groups: &GroupList,
        written: Option<SystemTime>,
    ) -> std::io::Result<()> {
        write(&self.dir.join(GROUPS_FILE), groups, written)
    }

    /// Writes the resources of one group version; empty lists are not kept (kubectl neither).
    pub fn write_resources(&self, list: &ResourceList) -> std::io::Result<()> {
        if list.resources.is_empty() {
            return Ok(());
        }
        match self.resources_path(&list.group_version) {
            Some(path) => write(&path, list, None),
            None => Ok(()),
        }
    }

    /// Removes the cached resources of one group version, if any.
    pub fn remove_resources(&self, group_version: &str) {
        if let Some(path) = self.resources_path(group_version) {
            let _ = std::fs::remove_file(path);
        }
    }

    /// `<dir>/<group>/<version>/serverresources.json`; `None` for a group version that is
    /// not a safe relative path (a server cannot make us write outside the cache).
    fn resources_path(&self, group_version: &str) -> Option<PathBuf> {
        let segments: Vec<&str> = group_version.split('/').collect();
        let safe = segments.len() <= 2
            && segments.iter().all(|s| {
                !s.is_empty()
                    && *s != "."
                    && *s != ".."
                    && s.bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.')
            });
        safe.then(|| {
            let mut path = self.dir.clone();
            path.extend(segments);
            path.join(RESOURCES_FILE)
        })
    }

    fn read<T: DeserializeOwned>(&self, path: &Path) -> Option<(T, SystemTime)> {
        let bytes = std::fs::read(path).ok()?;
        let written = std::fs::metadata(path).ok()?.modified().ok()?;
        // A clock that went backwards makes a file look new, as it does for kubectl.
        let age = SystemTime::now()
            .duration_since(written)
            .unwrap_or_default();
        if age > self.ttl {
            return None;
        }
        serde_json::from_slice(&bytes).ok().map(|v| (v, written))
    }
}

/// kubectl's directory name for a server: the URL without its scheme, every character but
/// ASCII letters, digits, `_`, `/`, `.`, `(` and `)` replaced by `_`
/// (`https://10.0.0.1:6443` -> `10.0.0.1_6443`); a path in the URL becomes directories.
/// Unlike kubectl, `.` and `..` segments are dropped so the name stays inside the cache.
pub fn host_dir(host: &str) -> PathBuf {
    let schemeless = host.replacen("https://", "", 1).replacen("http://", "", 1);
    let safe: String = schemeless
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "_/.()".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    let mut dir = PathBuf::new();
    for segment in safe.split('/') {
        if !segment.is_empty() && segment != "." && segment != ".." {
            dir.push(segment);
        }
    }
    if dir.as_os_str().is_empty() {
        dir.push("_");
    }
    dir
}

/// Written beside its place and renamed into it, so a reader (kubectl included) never sees
/// half a file; mode 0660 in a 0750 directory, as kubectl writes them.
fn write<T: Serialize>(
    path: &Path,
    value: &T,
    modified: Option<SystemTime>,
) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    create_dir(dir)?;
    let bytes = serde_json::to_vec(value).map_err(std::io::Error::other)?;
    let mut file = tempfile::Builder::new()
        .prefix(&format!(
            "{}.",
            path.file_name().and_then(|n| n.to_str()).unwrap_or("cache")
        ))
        .tempfile_in(dir)?;
    file.write_all(&bytes)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        file.as_file()
            .set_permissions(std::fs::Permissions::from_mode(0o660))?;
    }
    if let Some(modified) = modified {
        file.as_file().set_modified(modified)?;
    }
    file.persist(path).map_err(|e| e.error)?;
    Ok(())
}

fn create_dir(dir: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o750)
            .create(dir)
    }
    #[cfg(not(unix))]
    {
        std::fs::create_dir_all(dir)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kube::discovery::documents::Resource;

    #[test]
    fn directories_are_named_like_kubectl_names_them() {
        let root = Path::new("/c");
        let dir = |host| DiskCache::new(root, host).dir().to_path_buf();
        assert_eq!(
            dir("https://10.0.0.1:6443"),
            Path::new("/c/discovery/10.0.0.1_6443")
        );
        assert_eq!(
            dir("http://127.0.0.1:8080"),
            Path::new("/c/discovery/127.0.0.1_8080")
        );
        assert_eq!(
            dir("https://rancher.example.com/k8s/clusters/c-m-4x"),
            Path::new("/c/discovery/rancher.example.com/k8s/clusters/c_m_4x")
        );
        assert_eq!(
            dir("https://[::1]:6443"),
            Path::new("/c/discovery/___1__6443")
        );
        assert_eq!(dir("https://h/../../etc"), Path::new("/c/discovery/h/etc"));
    }

    fn list(group_version: &str) -> ResourceList {
        ResourceList::new(
            group_version,
            vec![Resource {
                name: "widgets".into(),
                kind: "Widget".into(),
                namespaced: true,
                ..Resource::default()
            }],
        )
    }

    #[test]
    fn files_round_trip_until_they_are_stale() {
        let root = tempfile::tempdir().unwrap();
        let cache = DiskCache::new(root.path(), "https://k:6443");
        assert!(cache.groups().is_none());
        let mut groups = GroupList::new(vec![]);
        groups.insert("v1");
        groups.insert("example.com/v1");
        cache.write_groups(&groups, None).unwrap();
        cache.write_resources(&list("example.com/v1")).unwrap();
        cache.write_resources(&list("v1")).unwrap();
        assert_eq!(cache.groups().unwrap().0, groups);
        assert_eq!(
            cache.resources("example.com/v1").unwrap(),
            list("example.com/v1")
        );
        assert!(cache.dir().join("v1/serverresources.json").is_file());
        assert!(
            cache
                .dir()
                .join("example.com/v1/serverresources.json")
                .is_file()
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(cache.dir().join("servergroups.json"))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o660);
        }

        // Seven hours old: stale, as for kubectl.
        let old = SystemTime::now() - Duration::from_secs(7 * 60 * 60);
        cache.write_groups(&groups, Some(old)).unwrap();
        assert!(cache.groups().is_none());
        // Five hours old: still used, and its age is kept.
        let recent = SystemTime::now() - Duration::from_secs(5 * 60 * 60);
        cache.write_groups(&groups, Some(recent)).unwrap();
        let (_, written) = cache.groups().unwrap();
        assert_eq!(written, recent);
    }

    #[test]
    fn unreadable_or_unsafe_entries_are_misses() {
        let root = tempfile::tempdir().unwrap();
        let cache = DiskCache::new(root.path(), "https://k:6443");
        std::fs::create_dir_all(cache.dir()).unwrap();
        std::fs::write(cache.dir().join("servergroups.json"), "{not json").unwrap();
        assert!(cache.groups().is_none());
        cache.write_resources(&list("../x/v1")).unwrap();
        assert!(!root.path().join("discovery/x").exists());
        assert!(cache.resources("../x/v1").is_none());
        // Empty lists are not kept.
        cache
            .write_resources(&ResourceList::new("empty.example.com/v1", vec![]))
            .unwrap();
        assert!(!cache.dir().join("empty.example.com").exists());
    }
}
