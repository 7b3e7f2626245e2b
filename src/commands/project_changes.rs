//! What `create api` changes in an existing project of either type: it refuses an API the
//! project has, reads the project's files, adds a CRD to its kustomization, and reports the
//! files created and changed.

use std::path::Path;

use super::inputs::ApiNames;
use crate::error::usage;
use crate::project::{Project, ProjectType};
use crate::scaffold::write::Applied;
use crate::ui::Ui;

/// Refuses a Kind the project already serves, or a resource name already taken.
pub(super) fn ensure_new(project: &Project, api: &ApiNames) -> anyhow::Result<()> {
    for existing in &project.resources {
        let same_group = existing.group == api.group.as_str();
        if same_group
            && existing.kind == api.kind.as_str()
            && existing.version == api.version.as_str()
        {
            return Err(usage(format!(
                "the project already has {} {}/{}: choose another --kind or --api-version",
                existing.kind, existing.group, existing.version
            )));
        }
        if same_group && existing.plural == api.plural && existing.kind != api.kind.as_str() {
            return Err(usage(format!(
                "the plural \"{}\" of group {} is already used by kind {}: pass another --plural",
                api.plural, existing.group, existing.kind
            )));
        }
        if same_group
            && existing.kind == api.kind.as_str()
            && project.project_type == ProjectType::Helm
        {
            return Err(usage(format!(
                "{} already exists in {} as version {}: a Helm project serves one version per kind (the helm-operator has no conversion); use another --kind",
                existing.kind, existing.group, existing.version
            )));
        }
    }
    Ok(())
}

/// Inserts `  - <resource>` into the `resources:` list of a kustomization, after the last
/// CRD entry, keeping every other line (and the user's edits) as it is.
pub(super) fn add_kustomization_resource(text: &str, resource: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let entry = format!("  - {resource}");
    let position = lines
        .iter()
        .rposition(|l| l.trim_start().starts_with("- crds/"))
        .or_else(|| lines.iter().position(|l| l.trim_end() == "resources:"))
        .map(|i| i + 1);
    let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    match position {
        Some(i) => out.insert(i, entry),
        None => {
            out.push("resources:".to_string());
            out.push(entry);
        }
    }
    out.join("\n") + "\n"
}

pub(super) fn read(root: &Path, path: &str) -> anyhow::Result<String> {
    std::fs::read_to_string(root.join(path))
        .map_err(|e| anyhow::anyhow!("cannot read {path} of the project: {e}"))
}

/// Lists the files created and changed; a new chart directory counts as one line.
pub(super) fn report_applied(ui: &Ui, applied: &Applied) {
    let (chart_files, created): (Vec<&String>, Vec<&String>) = applied
        .created
        .iter()
        .partition(|p| p.starts_with("helm-charts/"));
    for path in created {
        ui.info(format!("  created {path}"));
    }
    let mut chart_dirs: Vec<&str> = chart_files
        .iter()
        .filter_map(|p| p.split('/').nth(1))
        .collect();
    chart_dirs.dedup();
    for dir in chart_dirs {
        let prefix = format!("helm-charts/{dir}/");
        let count = chart_files
            .iter()
            .filter(|p| p.starts_with(&prefix))
            .count();
        ui.info(format!("  created {prefix} ({count} files)"));
    }
    for path in &applied.changed {
        ui.info(format!("  changed {path}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kustomization_gets_the_new_crd_after_the_others() {
        let text = "# keep me\nresources:\n  - crds/a_crd.yaml\n  - role.yaml\nnamespace: mine\n";
        assert_eq!(
            add_kustomization_resource(text, "crds/b_crd.yaml"),
            "# keep me\nresources:\n  - crds/a_crd.yaml\n  - crds/b_crd.yaml\n  - role.yaml\nnamespace: mine\n"
        );
    }
}
