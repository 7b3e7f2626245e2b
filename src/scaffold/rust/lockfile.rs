//! The generated project's `Cargo.lock`, from a lock file tested with the generated code.
//!
//! Shipping the lock (rather than running `cargo generate-lockfile` after scaffolding) keeps
//! `new` offline and instant, and pins the exact kube, schemars and serde-saphyr versions whose
//! CRD output `new` renders without running the project's code. The template holds the root
//! package under the name [`ROOT_MARKER`]; Cargo sorts packages by name, so the root entry is
//! moved to where the project's real name sorts, and `cargo build --locked` accepts the file.

use std::cmp::Ordering;

const PACKAGE_SEPARATOR: &str = "\n[[package]]\n";

/// The root package's name in the template.
pub const ROOT_MARKER: &str = "@ROOT@";

/// `Cargo.lock` for a package named `package`, from `template`. `None` when the template has
/// no root entry, which is a bug in the embedded template.
pub fn cargo_lock(template: &str, package: &str) -> Option<String> {
    let mut parts = template.split(PACKAGE_SEPARATOR);
    let header = parts.next()?;
    let mut blocks: Vec<String> = parts.map(str::to_string).collect();
    let root_at = blocks
        .iter()
        .position(|b| field(b, "name") == Some(ROOT_MARKER))?;
    let root = blocks.remove(root_at).replacen(
        &format!("name = \"{ROOT_MARKER}\""),
        &format!("name = \"{package}\""),
        1,
    );
    let root_version = field(&root, "version").unwrap_or("0.0.0").to_string();
    let insert_at = blocks
        .iter()
        .position(|b| {
            compare(
                (
                    field(b, "name").unwrap_or(""),
                    field(b, "version").unwrap_or(""),
                ),
                (package, &root_version),
            ) == Ordering::Greater
        })
        .unwrap_or(blocks.len());
    blocks.insert(insert_at, root);
    // Cargo writes one blank line between entries and one newline at the end of the file.
    let mut text = format!("{}\n", header.trim_end_matches('\n'));
    for block in &blocks {
        text.push_str(PACKAGE_SEPARATOR);
        text.push_str(block.trim_end_matches('\n'));
        text.push('\n');
    }
    Some(text)
}

/// The value of `key = "value"` in an entry.
fn field<'a>(block: &'a str, key: &str) -> Option<&'a str> {
    block.lines().find_map(|line| {
        line.strip_prefix(key)?
            .trim_start()
            .strip_prefix("= \"")?
            .strip_suffix('"')
    })
}

/// Cargo's order of packages: by name, then by version.
fn compare(a: (&str, &str), b: (&str, &str)) -> Ordering {
    a.0.cmp(b.0).then_with(
        || match (semver::Version::parse(a.1), semver::Version::parse(b.1)) {
            (Ok(x), Ok(y)) => x.cmp(&y),
            _ => a.1.cmp(b.1),
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEMPLATE: &str = "# header\nversion = 4\n\n[[package]]\nname = \"alpha\"\nversion = \"1.0.0\"\n\n[[package]]\nname = \"@ROOT@\"\nversion = \"0.1.0\"\ndependencies = [\n \"alpha\",\n]\n\n[[package]]\nname = \"zeta\"\nversion = \"2.0.0\"\n";

    fn names(lock: &str) -> Vec<&str> {
        lock.split(PACKAGE_SEPARATOR)
            .skip(1)
            .filter_map(|b| field(b, "name"))
            .collect()
    }

    #[test]
    fn the_root_entry_moves_to_its_sorted_place() {
        let lock = cargo_lock(TEMPLATE, "beta-operator").unwrap();
        assert_eq!(names(&lock), ["alpha", "beta-operator", "zeta"]);
        let lock = cargo_lock(TEMPLATE, "zz-operator").unwrap();
        assert_eq!(names(&lock), ["alpha", "zeta", "zz-operator"]);
        assert!(
            lock.ends_with("dependencies = [\n \"alpha\",\n]\n"),
            "{lock}"
        );
        assert!(!lock.contains("\n\n\n"), "{lock}");
        let lock = cargo_lock(TEMPLATE, "aaa").unwrap();
        assert_eq!(names(&lock), ["aaa", "alpha", "zeta"]);
        assert!(
            lock.starts_with("# header\nversion = 4\n\n[[package]]\nname = \"aaa\""),
            "{lock}"
        );
    }

    #[test]
    fn a_template_without_root_is_refused() {
        assert_eq!(cargo_lock("version = 4\n", "x"), None);
    }
}
