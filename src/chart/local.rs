//! Charts on the local disk: a chart directory or a `.tgz` archive.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

use super::loadable::JudgedValues;
use super::{Chart, ChartError, MAX_CHART_BYTES, MAX_FILE_BYTES, archive};

pub fn load(path: &Path) -> Result<Chart, ChartError> {
    let origin = path.display().to_string();
    let meta = std::fs::metadata(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => ChartError::Missing(origin.clone()),
        _ => ChartError::Unreadable(origin.clone(), e.to_string()),
    })?;
    if meta.is_dir() {
        load_dir(&origin, path)
    } else {
        if meta.len() > MAX_CHART_BYTES {
            return Err(ChartError::TooLarge(origin.clone(), origin));
        }
        let bytes = std::fs::read(path)
            .map_err(|e| ChartError::Unreadable(origin.clone(), e.to_string()))?;
        archive::read_tgz(&origin, &bytes)
    }
}

/// [`load`], with a chart directory's own `values.yaml` judged loadable on another thread while
/// the chart's files are read: the check's parse of it (~1.4 ms for redis) and the read
/// (~1.4 ms) each kept the other core idle. The file is read once ahead for the judge and
/// again by the load, whose bytes the verdict must match to count.
pub fn load_judging_values(path: &Path) -> Result<(Chart, Option<JudgedValues>), ChartError> {
    std::thread::scope(|scope| {
        let judging = read_top_file(path, "values.yaml")
            .map(|bytes| scope.spawn(|| JudgedValues::judge(bytes)));
        let chart = load(path);
        let judged = judging.map(|judging| {
            judging
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        });
        Ok((chart?, judged))
    })
}

/// The bytes of the file `name` of the chart directory `dir` (the top chart's own, not a
/// subchart's) when it is a plain file within the size limit; `None` otherwise (or for an
/// archive), when the load reads and checks it in its turn. For work started before the load
/// ends: the load reads the file again, and what was done ahead counts only for the same bytes.
fn read_top_file(dir: &Path, name: &str) -> Option<Vec<u8>> {
    let path = dir.join(name);
    let meta = std::fs::symlink_metadata(&path).ok()?;
    if !meta.is_file() || meta.len() > MAX_FILE_BYTES {
        return None;
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    std::fs::File::open(&path)
        .ok()?
        .take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .ok()?;
    Some(bytes)
}

fn load_dir(origin: &str, root: &Path) -> Result<Chart, ChartError> {
    let unreadable =
        |e: &dyn std::fmt::Display| ChartError::Unreadable(origin.to_string(), e.to_string());
    if !root.join("Chart.yaml").is_file() {
        return Err(ChartError::NoChartYaml(origin.to_string()));
    }
    let canonical_root = root.canonicalize().map_err(|e| unreadable(&e))?;
    let mut files = BTreeMap::new();
    let mut total = 0u64;
    for entry in walkdir::WalkDir::new(root).sort_by_file_name() {
        let entry = entry.map_err(|e| unreadable(&e))?;
        let file_type = entry.file_type();
        if file_type.is_dir() {
            continue;
        }
        let relative = entry
            .path()
            .strip_prefix(root)
            .map_err(|e| unreadable(&e))?
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join("/");
        if file_type.is_symlink() {
            // A link is copied as the file it points to, but only when that file is inside the
            // chart: following a link out would copy arbitrary files into the project.
            let target = entry.path().canonicalize().map_err(|e| unreadable(&e))?;
            if !target.starts_with(&canonical_root) || !target.is_file() {
                return Err(ChartError::UnsafeEntry(
                    origin.to_string(),
                    relative,
                    format!(
                        "it is a link to {}, outside the chart or not a file",
                        target.display()
                    ),
                ));
            }
        } else if !file_type.is_file() {
            return Err(ChartError::UnsafeEntry(
                origin.to_string(),
                relative,
                "it is a device, FIFO or socket".to_string(),
            ));
        }
        // The size comes from the open file, so each file is looked up by path once.
        let mut file = std::fs::File::open(entry.path()).map_err(|e| unreadable(&e))?;
        let size = file.metadata().map_err(|e| unreadable(&e))?.len();
        if size > MAX_FILE_BYTES {
            return Err(ChartError::FileTooLarge(origin.to_string(), relative));
        }
        total += size;
        if total > MAX_CHART_BYTES {
            return Err(ChartError::TooLarge(origin.to_string(), relative));
        }
        let mut bytes = Vec::with_capacity(size as usize);
        file.read_to_end(&mut bytes).map_err(|e| unreadable(&e))?;
        files.insert(relative, bytes);
    }
    Chart::from_files(origin, files)
}
