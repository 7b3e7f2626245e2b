//! `create api` for Rust projects. A new kind gets its types, controller, CRD and sample (files
//! the user owns from then on), the tool-owned module registries regenerated so that `main` runs
//! the new controller and `crdgen` prints its CRD, and its RBAC rules added to the user's role.
//! A new version of a kind the project has gets its types and sample, and joins the kind's CRD
//! beside the version objects are stored in, which keeps the kind's controller.

use std::path::Path;

use super::inputs;
use super::project_changes::{add_kustomization_resource, ensure_new, read, report_applied};
use super::rust_apis::{all_webhooks, existing_apis};
use super::scaffold_errors::scaffold_error;
use crate::cli::CreateApiArgs;
use crate::error::usage;
use crate::names::ProjectName;
use crate::project::{self, Project, Resource};
use crate::scaffold::rust::webhooks as webhook_scaffold;
use crate::scaffold::rust::{self as rust_scaffold, RustApi};
use crate::scaffold::write::Applied;
use crate::scaffold::{self, FilePlan};
use crate::ui::Ui;

pub fn run(ui: &Ui, args: &CreateApiArgs, root: &Path, mut project: Project) -> anyhow::Result<()> {
    let mut names = inputs::rust_api_names(ui, &args.api, &project.domain)?;
    let name = ProjectName::parse(&project.project_name).map_err(usage)?;
    rust_scaffold::check_names(&name, &names.kind).map_err(scaffold_error)?;
    let apis = existing_apis(&project)?;
    // The kind's first version, when the project has the kind already.
    let existing = apis
        .iter()
        .find(|a| a.group == names.group && a.kind == names.kind)
        .cloned();
    if let Some(existing) = &existing {
        names.plural = same_plural(existing, args.api.plural.as_deref())?;
    }
    ensure_new(&project, &names)?;
    if existing.is_none()
        && let Some(other) = apis.iter().find(|a| a.kind == names.kind)
    {
        return Err(same_kind_elsewhere(other, &names.group));
    }
    let inputs::ApiNames {
        group,
        version,
        kind,
        plural,
    } = names;
    let new_api = RustApi {
        group,
        version,
        kind,
        plural,
    };

    // The APIs' registry routes the CRDs through the webhooks' once the project has any.
    let serves_webhooks = !project.webhooks.is_empty();
    // A new version reports the version the kind stays stored in.
    let (mut changes, storage_version) = match existing {
        None => (
            new_kind_changes(root, &name, &apis, &new_api, serves_webhooks)?,
            None,
        ),
        Some(_) => {
            let (changes, storage) =
                new_version_changes(root, &name, &apis, &new_api, serves_webhooks)?;
            (changes, Some(storage))
        }
    };
    project.resources.push(Resource {
        group: new_api.group.to_string(),
        version: new_api.version.to_string(),
        kind: new_api.kind.to_string(),
        plural: new_api.plural.clone(),
        chart: None,
    });
    let converted = storage_version.is_some()
        && project.webhooks.iter().any(|w| {
            w.conversion && w.kind == new_api.kind.as_str() && w.group == new_api.group.as_str()
        });
    let conversion = if converted {
        Some(new_spoke_changes(
            root,
            &name,
            &project,
            &new_api,
            &mut changes,
        )?)
    } else {
        None
    };
    changes.add(project::PROJECT_FILE, project.to_yaml());

    let applied = scaffold::write::apply_changes(root, &changes)?;
    match &storage_version {
        None => {
            ui.headline(format!(
                "Added {} ({}/{}) with its controller",
                new_api.kind, new_api.group, new_api.version
            ));
            report_applied(ui, &applied);
            ui.info(
                "Next: edit the spec in the new src/api/ file, then `operator-rs generate crds`.",
            );
        }
        Some(storage) => report_new_version(ui, &applied, storage, &new_api, conversion),
    }
    Ok(())
}

/// A kind the project has in another group: its controller and types are named after the kind
/// alone, so a second one cannot have files of its own.
fn same_kind_elsewhere(existing: &RustApi, group: &impl std::fmt::Display) -> anyhow::Error {
    usage(format!(
        "{kind} is already a kind of this project, in {existing_group}, and its files (src/controllers/{module}.rs among them) are named after the kind alone: a {kind} of {group} cannot have its own. To add a version of it, use --api-version={existing_group}/VERSION; for a kind of {group}, choose another --kind",
        kind = existing.kind,
        existing_group = existing.group,
        module = existing.kind.snake(),
    ))
}

/// A new version keeps its kind's plural: one CRD serves every version under one resource name.
fn same_plural(existing: &RustApi, requested: Option<&str>) -> anyhow::Result<String> {
    match requested {
        Some(plural) if plural != existing.plural => Err(usage(format!(
            "--plural={plural} differs from \"{}\", the plural of {} in {}: every version of a kind shares its CRD and resource name; drop --plural",
            existing.plural, existing.kind, existing.group
        ))),
        _ => Ok(existing.plural.clone()),
    }
}

/// A new kind: its types, controller, CRD and sample, the registries, and its rules and CRD
/// added to the user's role and kustomization.
fn new_kind_changes(
    root: &Path,
    name: &ProjectName,
    apis: &[RustApi],
    new_api: &RustApi,
    serves_webhooks: bool,
) -> anyhow::Result<FilePlan> {
    let old_registry =
        rust_scaffold::registry_files(name, apis, serves_webhooks).map_err(scaffold_error)?;
    let mut changes = added_files(
        root,
        rust_scaffold::api_files(name, new_api).map_err(scaffold_error)?,
        &[],
    )?;
    let registry = add_registry(name, apis, new_api, serves_webhooks, &mut changes)?;
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
            &format!("crds/{}", rust_scaffold::crd_file_name(new_api)),
        ),
    );
    Ok(changes)
}

/// A new version of a kind the project has: its types and sample, the registries (which merge
/// the kind's versions into one CRD), and the version added to the kind's CRD file. The kind's
/// controller, rules and kustomization entry stay as they are: they are per kind. Returns the
/// changes and the version the kind stays stored in.
fn new_version_changes(
    root: &Path,
    name: &ProjectName,
    apis: &[RustApi],
    new_api: &RustApi,
    serves_webhooks: bool,
) -> anyhow::Result<(FilePlan, String)> {
    let crd_path = format!("deploy/crds/{}", rust_scaffold::crd_file_name(new_api));
    let current_crd = std::fs::read_to_string(root.join(&crd_path)).map_err(|e| {
        anyhow::anyhow!(
            "cannot read {crd_path}, the CRD that version {} of {} joins: {e}; run `operator-rs generate crds` to write it from src/api/, then try again",
            new_api.version,
            new_api.kind
        )
    })?;
    let version =
        rust_scaffold::new_version_files(name, new_api, &current_crd).map_err(scaffold_error)?;
    let mut changes = added_files(root, version.files, &[&crd_path])?;
    add_registry(name, apis, new_api, serves_webhooks, &mut changes)?;
    Ok((changes, version.storage_version))
}

/// `files` as changes, refusing any that exists already except those in `replaced`.
fn added_files(root: &Path, files: FilePlan, replaced: &[&str]) -> anyhow::Result<FilePlan> {
    let mut changes = FilePlan::new();
    for (path, file) in files.iter() {
        if !replaced.contains(&path.as_str()) && root.join(path).exists() {
            return Err(usage(format!(
                "{path} already exists: remove it or choose another --kind/--api-version"
            )));
        }
        changes.add(path.clone(), file.bytes.clone());
    }
    Ok(changes)
}

/// Adds the module registries for `apis` and `new_api` to `changes`: they are the tool's,
/// regenerated whole. Returns every registry file, for the merges the caller makes.
fn add_registry(
    name: &ProjectName,
    apis: &[RustApi],
    new_api: &RustApi,
    serves_webhooks: bool,
    changes: &mut FilePlan,
) -> anyhow::Result<FilePlan> {
    let mut all = apis.to_vec();
    all.push(new_api.clone());
    let registry =
        rust_scaffold::registry_files(name, &all, serves_webhooks).map_err(scaffold_error)?;
    for (path, file) in registry.iter() {
        if path.ends_with(".rs") {
            changes.add(path.clone(), file.bytes.clone());
        }
    }
    Ok(registry)
}

/// A new version of a kind the operator converts: the webhooks' registry routes it through the
/// hub, and the user's conversion file gets its `From` pair, a field-by-field copy. Returns the
/// conversion file's path, or what to do by hand when that file cannot take the pair.
fn new_spoke_changes(
    root: &Path,
    name: &ProjectName,
    project: &Project,
    new_api: &RustApi,
    changes: &mut FilePlan,
) -> anyhow::Result<Result<String, String>> {
    let webhooks = all_webhooks(project)?;
    changes.extend(webhook_scaffold::registry_files(name, &webhooks).map_err(scaffold_error)?);
    let Some(hub) = webhooks
        .iter()
        .find(|w| w.conversion && w.api.kind == new_api.kind)
        .map(|w| &w.api)
    else {
        return Ok(Err(format!("{} has no conversion webhook", new_api.kind)));
    };
    let path = webhook_scaffold::conversion_path(hub);
    let current = read(root, &path)?;
    let with_spoke = webhook_scaffold::conversion_with_spoke(name, hub, &new_api.version, &current)
        .map_err(scaffold_error)?;
    Ok(match with_spoke {
        Some(text) => {
            changes.add(path.clone(), text);
            Ok(path)
        }
        None => Err(format!(
            "{path} has no `use crate::api::` lines, so it was left alone: write `From` between {}::{} and {}::{} there, as for the kind's other versions",
            new_api.version, new_api.kind, hub.version, hub.kind
        )),
    })
}

fn report_new_version(
    ui: &Ui,
    applied: &Applied,
    storage: &str,
    new_api: &RustApi,
    conversion: Option<Result<String, String>>,
) {
    ui.headline(format!(
        "Added version {} of {} ({}) to its CRD",
        new_api.version, new_api.kind, new_api.group
    ));
    report_applied(ui, applied);
    ui.info(format!(
        "{} is served beside the other versions; objects stay stored as {storage}, and the {} controller keeps reconciling the version it imports. To store {} instead, move `storage = false` from its types to {storage}'s, then run `operator-rs generate crds`.",
        new_api.version, new_api.kind, new_api.version
    ));
    match conversion {
        Some(Ok(path)) => ui.info(format!(
            "The operator's conversion webhook converts {} too: its `From` pair in {path} copies field by field; change it with the types.",
            new_api.version
        )),
        Some(Err(manual)) => ui.warn(manual),
        None => ui.warn(format!(
            "while {storage} and {} have the same schema, the API server converts between them by changing apiVersion alone (conversion strategy None); once you change the types in src/api/{}/, fields are lost between versions unless the operator converts them: run `operator-rs create webhook --kind={} --conversion`",
            new_api.version, new_api.version, new_api.kind
        )),
    }
    ui.info("Next: edit the spec in the new src/api/ file, then `operator-rs generate crds`.");
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
