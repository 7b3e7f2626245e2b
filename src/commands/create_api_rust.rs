//! `create api` for Rust projects: the new kind's types, controller, CRD and sample (files the
//! user owns from then on), the tool-owned module registries regenerated so that `main` runs
//! the new controller and `crdgen` prints its CRD, and its RBAC rules added to the user's role.

use std::path::Path;

use super::create_api::{add_kustomization_resource, ensure_new, read, report_applied};
use super::inputs;
use super::new_rust::scaffold_error;
use crate::cli::CreateApiArgs;
use crate::error::usage;
use crate::names::{Group, Kind, ProjectName, Version};
use crate::project::{self, Project, Resource};
use crate::scaffold::rust::{self as rust_scaffold, RustApi};
use crate::scaffold::{self, FilePlan};
use crate::ui::Ui;

pub fn run(ui: &Ui, args: &CreateApiArgs, root: &Path, mut project: Project) -> anyhow::Result<()> {
    let names = inputs::rust_api_names(ui, &args.api, &project.domain)?;
    let inputs::ApiNames {
        group,
        version,
        kind,
        plural,
    } = names.clone();
    let name = ProjectName::parse(&project.project_name).map_err(usage)?;
    rust_scaffold::check_names(&name, &kind).map_err(scaffold_error)?;
    ensure_new(&project, &names)?;
    if let Some(existing) = project
        .resources
        .iter()
        .find(|r| r.group == group.as_str() && r.kind == kind.as_str())
    {
        return Err(usage(format!(
            "{kind} already exists in {group} as version {}: adding a second version of a kind to a Rust project is not supported yet; add the version to src/api/ by hand or choose another --kind",
            existing.version
        )));
    }

    let mut apis = existing_apis(&project)?;
    let new_api = RustApi {
        group,
        version,
        kind,
        plural,
    };
    let old_registry = rust_scaffold::registry_files(&name, &apis).map_err(scaffold_error)?;
    apis.push(new_api.clone());
    let registry = rust_scaffold::registry_files(&name, &apis).map_err(scaffold_error)?;

    let mut changes = FilePlan::new();
    for (path, file) in rust_scaffold::api_files(&name, &new_api)
        .map_err(scaffold_error)?
        .iter()
    {
        if root.join(path).exists() {
            return Err(usage(format!(
                "{path} already exists: remove it or choose another --kind/--api-version"
            )));
        }
        changes.add(path.clone(), file.bytes.clone());
    }
    // The module registries are the tool's: regenerated whole.
    for (path, file) in registry.iter() {
        if path.ends_with(".rs") {
            changes.add(path.clone(), file.bytes.clone());
        }
    }
    changes.add(
        "deploy/role.yaml",
        merged_role(
            &read(root, "deploy/role.yaml")?,
            text(&old_registry, "deploy/role.yaml"),
            text(&registry, "deploy/role.yaml"),
        ),
    );
    changes.add(
        "deploy/kustomization.yaml",
        add_kustomization_resource(
            &read(root, "deploy/kustomization.yaml")?,
            &format!("crds/{}", rust_scaffold::crd_file_name(&new_api)),
        ),
    );
    project.resources.push(Resource {
        group: new_api.group.to_string(),
        version: new_api.version.to_string(),
        kind: new_api.kind.to_string(),
        plural: new_api.plural.clone(),
        chart: None,
    });
    changes.add(project::PROJECT_FILE, project.to_yaml());

    let applied = scaffold::write::apply_changes(root, &changes)?;
    ui.headline(format!(
        "Added {} ({}/{}) with its controller",
        new_api.kind, new_api.group, new_api.version
    ));
    report_applied(ui, &applied);
    ui.info("Next: edit the spec in the new src/api/ file, then `operator-rs generate crds`.");
    Ok(())
}

fn existing_apis(project: &Project) -> anyhow::Result<Vec<RustApi>> {
    project
        .resources
        .iter()
        .map(|r| {
            Ok(RustApi {
                group: Group::parse(&r.group)?,
                version: Version::parse(&r.version)?,
                kind: Kind::parse(&r.kind)?,
                plural: r.plural.clone(),
            })
        })
        .collect::<Result<_, crate::names::NameError>>()
        .map_err(|e| anyhow::anyhow!("PROJECT lists an invalid API: {e}"))
}

fn text<'a>(plan: &'a FilePlan, path: &str) -> &'a str {
    plan.get(path)
        .and_then(|f| std::str::from_utf8(&f.bytes).ok())
        .unwrap_or_default()
}

/// The role with the new kind's rules. An untouched role is replaced by the regenerated one;
/// a role the user edited gets the new rules inserted after the existing ones and keeps every
/// line it had.
fn merged_role(current: &str, generated_before: &str, generated_after: &str) -> String {
    if current == generated_before {
        return generated_after.to_string();
    }
    let before: Vec<&str> = generated_before.lines().collect();
    let after: Vec<&str> = generated_after.lines().collect();
    // The new rules are the lines the regenerated role has where the old one ends its per-kind
    // rules: the first difference, up to the point where both continue alike.
    let start = before
        .iter()
        .zip(&after)
        .position(|(a, b)| a != b)
        .unwrap_or(before.len());
    let added = after.len() - before.len();
    let new_rules = &after[start..start + added];
    let mut lines: Vec<&str> = current.lines().collect();
    // Insert where the same anchor line stands in the user's file, else at the end.
    let anchor = before.get(start).copied();
    let position = anchor
        .and_then(|a| lines.iter().position(|l| *l == a))
        .unwrap_or(lines.len());
    lines.splice(position..position, new_rules.iter().copied());
    lines.join("\n") + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_edited_role_keeps_its_lines_and_gets_the_new_rules() {
        let before = "rules:\n  # A\n  - a\n  # tail\n  - t\n";
        let after = "rules:\n  # A\n  - a\n  # B\n  - b\n  # tail\n  - t\n";
        assert_eq!(merged_role(before, before, after), after);
        let edited = "rules:\n  # A\n  - a\n  # mine\n  - m\n  # tail\n  - t\n";
        assert_eq!(
            merged_role(edited, before, after),
            "rules:\n  # A\n  - a\n  # mine\n  - m\n  # B\n  - b\n  # tail\n  - t\n"
        );
    }
}
