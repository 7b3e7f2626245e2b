//! Safe reading of chart archives (`.tgz`): every entry is checked before its bytes are kept,
//! so a hostile archive can neither write outside the chart nor exhaust memory.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Component, Path};

use super::{Chart, ChartError, MAX_CHART_BYTES, MAX_FILE_BYTES};

/// Reads a gzip-compressed tar of one chart (`<name>/Chart.yaml`, ...) into a [`Chart`].
/// `origin` names the archive in messages.
pub fn read_tgz(origin: &str, bytes: &[u8]) -> Result<Chart, ChartError> {
    let files = read_entries(origin, bytes)?;
    Chart::from_files(origin, files)
}

/// The files of an archive, with the single top-level directory stripped.
pub fn read_entries(origin: &str, bytes: &[u8]) -> Result<BTreeMap<String, Vec<u8>>, ChartError> {
    let corrupt =
        |e: &dyn std::fmt::Display| ChartError::CorruptArchive(origin.to_string(), e.to_string());
    let unsafe_entry = |name: &str, why: &str| {
        ChartError::UnsafeEntry(origin.to_string(), name.to_string(), why.to_string())
    };

    let gz = flate2::read::GzDecoder::new(bytes);
    // Count expanded bytes as they are read, so a gzip bomb stops at the limit rather than after.
    let mut archive = tar::Archive::new(gz.take(MAX_CHART_BYTES + 1));
    let mut top: Option<String> = None;
    let mut files = BTreeMap::new();
    let mut links: Vec<(String, String)> = Vec::new();
    let mut total: u64 = 0;

    for entry in archive.entries().map_err(|e| corrupt(&e))? {
        let mut entry = entry.map_err(|e| corrupt(&e))?;
        let raw_path = entry.path().map_err(|e| corrupt(&e))?.into_owned();
        let name = raw_path.to_string_lossy().into_owned();
        let relative = safe_relative(&raw_path).ok_or_else(|| {
            unsafe_entry(
                &name,
                "its path is absolute or climbs out of the chart with `..`",
            )
        })?;
        let Some((first, rest)) = split_top(&relative) else {
            // The top-level directory itself, or a file beside it.
            if entry.header().entry_type().is_dir() {
                continue;
            }
            return Err(unsafe_entry(
                &name,
                "it is not inside the chart's top-level directory",
            ));
        };
        match &top {
            None => top = Some(first.to_string()),
            Some(t) if t != first => {
                return Err(unsafe_entry(
                    &name,
                    &format!(
                        "the archive holds more than one top-level directory (\"{t}\" and \"{first}\")"
                    ),
                ));
            }
            Some(_) => {}
        }
        let kind = entry.header().entry_type();
        if kind.is_dir() {
            continue;
        }
        if kind.is_symlink() || kind.is_hard_link() {
            let target = entry
                .link_name()
                .map_err(|e| corrupt(&e))?
                .ok_or_else(|| unsafe_entry(&name, "it is a link without a target"))?
                .into_owned();
            let resolved = resolve_link(rest, &target, kind.is_hard_link()).ok_or_else(|| {
                unsafe_entry(
                    &name,
                    &format!(
                        "it is a link to \"{}\", outside the chart",
                        target.display()
                    ),
                )
            })?;
            links.push((rest.to_string(), resolved));
            continue;
        }
        if !(kind.is_file()
            || kind == tar::EntryType::Continuous
            || kind.is_pax_global_extensions()
            || kind.is_pax_local_extensions()
            || kind.is_gnu_longname()
            || kind.is_gnu_longlink())
        {
            return Err(unsafe_entry(
                &name,
                "it is a device, FIFO or other special file",
            ));
        }
        if !kind.is_file() && kind != tar::EntryType::Continuous {
            continue;
        }
        let size = entry.header().size().map_err(|e| corrupt(&e))?;
        if size > MAX_FILE_BYTES {
            return Err(ChartError::FileTooLarge(
                origin.to_string(),
                rest.to_string(),
            ));
        }
        total += size;
        if total > MAX_CHART_BYTES {
            return Err(ChartError::TooLarge(origin.to_string(), rest.to_string()));
        }
        let mut content = Vec::with_capacity(size as usize);
        entry.read_to_end(&mut content).map_err(|e| corrupt(&e))?;
        files.insert(rest.to_string(), content);
    }

    // Links inside the chart become copies: a chart directory needs no links to work.
    for (path, target) in links {
        let content = files.get(&target).cloned().ok_or_else(|| {
            unsafe_entry(
                &path,
                &format!("it links to \"{target}\", which is not a file in the chart"),
            )
        })?;
        files.insert(path, content);
    }
    if files.is_empty() {
        return Err(ChartError::CorruptArchive(
            origin.to_string(),
            "the archive is empty".to_string(),
        ));
    }
    Ok(files)
}

/// The path as `/`-separated normal components, or `None` if it is absolute or has `..`.
fn safe_relative(path: &Path) -> Option<String> {
    let mut parts = Vec::new();
    for component in path.components() {
        match component {
            Component::Normal(part) => parts.push(part.to_str()?.to_string()),
            Component::CurDir => {}
            Component::ParentDir | Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    if parts.is_empty() {
        None
    } else {
        Some(parts.join("/"))
    }
}

fn split_top(relative: &str) -> Option<(&str, &str)> {
    relative
        .split_once('/')
        .filter(|(_, rest)| !rest.is_empty())
}

/// Where a link at `link_path` (chart-relative) points, chart-relative, if it stays inside.
/// Hard-link targets in tar are archive paths; symlink targets are relative to the link.
fn resolve_link(link_path: &str, target: &Path, hard: bool) -> Option<String> {
    if target.is_absolute() {
        return None;
    }
    let mut parts: Vec<String> = if hard {
        Vec::new()
    } else {
        let mut base: Vec<String> = link_path.split('/').map(str::to_string).collect();
        base.pop();
        base
    };
    let mut first = hard;
    for component in target.components() {
        match component {
            Component::Normal(part) => {
                // Hard-link targets include the archive's top-level directory: drop it.
                if first {
                    first = false;
                    continue;
                }
                parts.push(part.to_str()?.to_string())
            }
            Component::CurDir => {}
            Component::ParentDir => {
                parts.pop()?;
            }
            _ => return None,
        }
    }
    if parts.is_empty() {
        None
    } else {
        Some(parts.join("/"))
    }
}

/// Packs chart files into a `.tgz` under `<name>/`, as `helm package` lays them out.
/// Used to vendor subcharts and by tests that need an archive.
pub fn write_tgz(name: &str, files: &BTreeMap<String, Vec<u8>>) -> std::io::Result<Vec<u8>> {
    let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    let mut builder = tar::Builder::new(gz);
    for (path, content) in files {
        let mut header = tar::Header::new_gnu();
        header.set_size(content.len() as u64);
        header.set_mode(0o644);
        header.set_mtime(0);
        header.set_cksum();
        builder.append_data(&mut header, format!("{name}/{path}"), content.as_slice())?;
    }
    builder.into_inner()?.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tgz(entries: &[(&str, tar::EntryType, &[u8], Option<&str>)]) -> Vec<u8> {
        let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        let mut builder = tar::Builder::new(gz);
        for (path, kind, data, link) in entries {
            let mut header = tar::Header::new_gnu();
            header.set_entry_type(*kind);
            header.set_size(data.len() as u64);
            header.set_mode(0o644);
            // Write the raw name so that `..` and absolute paths reach the reader unchanged.
            let name_bytes = path.as_bytes();
            header.as_old_mut().name[..name_bytes.len()].copy_from_slice(name_bytes);
            if let Some(link) = link {
                header.set_link_name(link).unwrap();
            }
            header.set_cksum();
            builder.append(&header, *data).unwrap();
        }
        builder.into_inner().unwrap().finish().unwrap()
    }

    const CHART_YAML: &[u8] = b"apiVersion: v2\nname: demo\nversion: 0.1.0\n";

    #[test]
    fn reads_a_chart_and_strips_the_top_directory() {
        let bytes = tgz(&[
            ("demo/Chart.yaml", tar::EntryType::Regular, CHART_YAML, None),
            (
                "demo/templates/a.yaml",
                tar::EntryType::Regular,
                b"kind: Pod\n",
                None,
            ),
            (
                "demo/templates/b.yaml",
                tar::EntryType::Symlink,
                b"",
                Some("a.yaml"),
            ),
        ]);
        let chart = read_tgz("demo.tgz", &bytes).unwrap();
        assert_eq!(chart.name(), "demo");
        assert_eq!(chart.files["templates/b.yaml"], b"kind: Pod\n");
    }

    #[test]
    fn refuses_entries_that_escape() {
        for (path, kind, link) in [
            ("demo/../evil", tar::EntryType::Regular, None),
            ("/etc/evil", tar::EntryType::Regular, None),
            (
                "demo/link",
                tar::EntryType::Symlink,
                Some("../../etc/passwd"),
            ),
            ("demo/link", tar::EntryType::Symlink, Some("/etc/passwd")),
            ("demo/dev", tar::EntryType::Char, None),
            ("demo/fifo", tar::EntryType::Fifo, None),
        ] {
            let bytes = tgz(&[
                ("demo/Chart.yaml", tar::EntryType::Regular, CHART_YAML, None),
                (path, kind, b"", link),
            ]);
            let err = read_tgz("bad.tgz", &bytes).unwrap_err();
            assert!(matches!(err, ChartError::UnsafeEntry(..)), "{path}: {err}");
        }
    }

    #[test]
    fn refuses_corrupt_and_truncated_archives() {
        let good = tgz(&[("demo/Chart.yaml", tar::EntryType::Regular, CHART_YAML, None)]);
        let err = read_tgz("x.tgz", b"not a gzip file").unwrap_err();
        assert!(matches!(err, ChartError::CorruptArchive(..)), "{err}");
        let err = read_tgz("x.tgz", &good[..good.len() / 2]).unwrap_err();
        assert!(matches!(err, ChartError::CorruptArchive(..)), "{err}");
    }

    #[test]
    fn refuses_archives_past_the_size_limit() {
        // A gzip bomb: highly compressible data declared as many large files.
        let big = vec![0u8; (MAX_FILE_BYTES - 1) as usize];
        let mut entries: Vec<(String, Vec<u8>)> =
            vec![("demo/Chart.yaml".into(), CHART_YAML.to_vec())];
        for i in 0..21 {
            entries.push((format!("demo/f{i}"), big.clone()));
        }
        let refs: Vec<(&str, tar::EntryType, &[u8], Option<&str>)> = entries
            .iter()
            .map(|(p, d)| (p.as_str(), tar::EntryType::Regular, d.as_slice(), None))
            .collect();
        let err = read_tgz("bomb.tgz", &tgz(&refs)).unwrap_err();
        assert!(matches!(err, ChartError::TooLarge(..)), "{err}");
    }

    #[test]
    fn write_then_read_round_trips() {
        let mut files = BTreeMap::new();
        files.insert("Chart.yaml".to_string(), CHART_YAML.to_vec());
        files.insert("values.yaml".to_string(), b"a: 1\n".to_vec());
        let bytes = write_tgz("demo", &files).unwrap();
        assert_eq!(read_tgz("demo.tgz", &bytes).unwrap().files, files);
    }
}
