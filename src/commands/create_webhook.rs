//! `operator-rs create webhook`: a defaulting, validation or conversion webhook for a kind of a
//! Rust project. Every change is planned in memory and applied together, as `create api` does;
//! a request the project cannot take (a Helm project, a kind it lacks, a webhook it has,
//! conversion of a kind with one version) is refused with exit code 2 before anything is
//! written.

use std::path::Path;

use super::project_changes::{read, report_applied};
use super::rust_apis::{all_webhooks, existing_apis, kind_versions};
use super::scaffold_errors::scaffold_error;
use crate::cli::CreateWebhookArgs;
use crate::error::usage;
use crate::names::{Kind, ProjectName, Version};
use crate::project::{self, ProjectError, ProjectType, Webhooks};
use crate::scaffold::rust::webhooks as webhook_scaffold;
use crate::scaffold::rust::{self as rust_scaffold, RustApi};
use crate::scaffold::{self, FilePlan};
use crate::ui::Ui;

pub fn run(ui: &Ui, args: CreateWebhookArgs) -> anyhow::Result<()> {
    let (root, mut project) = project::load_current().map_err(|e| match e {
        ProjectError::NotFound(_) => usage(e),
        other => anyhow::Error::new(other),
    })?;
    if project.project_type == ProjectType::Helm {
        return Err(usage(format!(
            "{} is a Helm project: its operator (the Helm operator runtime) serves no webhooks; webhooks need a Rust project (operator-rs new --type=rust)",
            project.project_name
        )));
    }
    let name = ProjectName::parse(&project.project_name).map_err(usage)?;
    let kind = Kind::parse(&args.kind).map_err(usage)?;
    let versions = kind_versions(&project, &kind)?;
    let first = versions[0].clone();
    let storage = storage_version(&root, &first);
    let version = match &args.version {
        Some(v) => {
            let v = Version::parse(v).map_err(usage)?;
            if !versions.iter().any(|a| a.version == v) {
                return Err(usage(format!(
                    "--version={v}: {kind} has no version {v}; it has {}",
                    list(&versions)
                )));
            }
            v
        }
        None => storage.unwrap_or_else(|| first.version.clone()),
    };
    let api = RustApi {
        version: version.clone(),
        ..first.clone()
    };
    let existing = project
        .webhooks
        .iter()
        .position(|w| w.group == api.group.as_str() && w.kind == kind.as_str());
    let mut record = existing
        .map(|i| project.webhooks[i].clone())
        .unwrap_or_else(|| Webhooks {
            group: api.group.to_string(),
            version: version.to_string(),
            kind: kind.to_string(),
            defaulting: false,
            validation: false,
            conversion: false,
        });
    check_request(&args, &record, existing.is_some(), &api, &versions)?;
    let adds_admission =
        (args.defaulting || args.validation) && !(record.defaulting || record.validation);
    record.defaulting |= args.defaulting;
    record.validation |= args.validation;
    record.conversion |= args.conversion;
    match existing {
        Some(i) => project.webhooks[i] = record,
        None => project.webhooks.push(record),
    }

    let mut changes = FilePlan::new();
    changes.extend(webhook_scaffold::plumbing_files().map_err(scaffold_error)?);
    let all = all_webhooks(&project)?;
    changes.extend(webhook_scaffold::registry_files(&name, &all).map_err(scaffold_error)?);
    if adds_admission {
        let path = webhook_scaffold::admission_path(&api);
        refuse_existing(&root, &path)?;
        changes.add(
            path,
            webhook_scaffold::admission_file(&name, &api).map_err(scaffold_error)?,
        );
    }
    if args.conversion {
        let path = webhook_scaffold::conversion_path(&api);
        refuse_existing(&root, &path)?;
        let spokes: Vec<Version> = versions
            .iter()
            .map(|a| a.version.clone())
            .filter(|v| *v != version)
            .collect();
        changes.add(
            path,
            webhook_scaffold::conversion_file(&name, &api, &spokes).map_err(scaffold_error)?,
        );
        let crd_path = format!("deploy/crds/{}", rust_scaffold::crd_file_name(&api));
        let crd = webhook_scaffold::crd_with_conversion(&name, &api, &read(&root, &crd_path)?)
            .map_err(scaffold_error)?;
        changes.add(crd_path, crd);
    }
    let kustomization = read(&root, "deploy/kustomization.yaml")?;
    if !kustomization.lines().any(|l| l.trim() == "- webhook.yaml") {
        changes.add(
            "deploy/kustomization.yaml",
            with_webhook_resource(&kustomization),
        );
    }
    let operator = read(&root, "deploy/operator.yaml")?;
    let mut manual = Vec::new();
    if !operator.contains("containerPort: 9443") {
        match with_webhook_port(&operator) {
            Some(text) => changes.add("deploy/operator.yaml", text),
            None => manual.push(
                "deploy/operator.yaml has no `ports:` list in its container: add the port `webhook`, containerPort 9443".to_string(),
            ),
        }
    }
    changes.extend(process_changes(&root, &name, &mut manual)?);
    let manifest = read(&root, "Cargo.toml")?;
    let mut added_crates = Vec::new();
    match webhook_scaffold::manifest_with_plumbing_dependencies(&manifest) {
        Ok(Some((text, added))) => {
            changes.add("Cargo.toml", text);
            added_crates = added;
        }
        Ok(None) => {}
        Err(why) => manual.push(format!(
            "{why}: add the [dependencies] of src/tls.rs that a project made by `new` has ({})",
            webhook_scaffold::PLUMBING_DEPENDENCIES.join(", ")
        )),
    }
    let apis = rust_scaffold::registry_files(&name, &existing_apis(&project)?, true)
        .map_err(scaffold_error)?;
    for (path, file) in apis.iter().filter(|(path, _)| *path == "src/api/mod.rs") {
        changes.add(path.clone(), file.bytes.clone());
    }
    changes.add(project::PROJECT_FILE, project.to_yaml());

    let applied = scaffold::write::apply_changes(&root, &changes)?;
    let added: Vec<&str> = [
        (args.defaulting, "defaulting"),
        (args.validation, "validation"),
        (args.conversion, "conversion"),
    ]
    .into_iter()
    .filter_map(|(on, what)| on.then_some(what))
    .collect();
    let named = match added.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => added.join(""),
    };
    ui.headline(format!(
        "Added {named} webhook{} for {kind} ({}/{version})",
        if added.len() > 1 { "s" } else { "" },
        api.group
    ));
    report_applied(ui, &applied);
    for step in manual {
        ui.warn(step);
    }
    if !added_crates.is_empty() {
        // `operator-rs build` builds with --locked, which refuses a Cargo.lock without them.
        ui.info(format!(
            "Cargo.toml now has {}, which src/tls.rs uses: `cargo build` records it in Cargo.lock",
            added_crates.join(", ")
        ));
    }
    ui.info("Next: write your checks in src/webhooks/, then `operator-rs run` serves them on this machine, or `operator-rs build` and `operator-rs deploy` in the cluster.");
    Ok(())
}

/// `src/main.rs` and `src/lib.rs` with the webhook server, where they are as `new` wrote them;
/// where the user changed them, what to add by hand goes to `manual`.
fn process_changes(
    root: &Path,
    name: &ProjectName,
    manual: &mut Vec<String>,
) -> anyhow::Result<FilePlan> {
    let as_new = rust_scaffold::process_files(name, false).map_err(scaffold_error)?;
    let served = rust_scaffold::process_files(name, true).map_err(scaffold_error)?;
    let mut changes = FilePlan::new();
    for ((path, new_file), (_, served_file)) in as_new.iter().zip(served.iter()) {
        let current = read(root, path)?;
        let needed = if path.ends_with("main.rs") {
            "webhook_server::start"
        } else {
            "pub mod webhook_server;"
        };
        if current.as_bytes() == new_file.bytes.as_slice() {
            changes.add(path.clone(), served_file.bytes.clone());
        } else if !current.contains(needed) {
            manual.push(format!(
                "{path} is yours and differs from what `new` wrote, so it was left alone: add `{needed}` as a project made with webhooks has it (see the README's webhooks section)"
            ));
        }
    }
    Ok(changes)
}

/// Refuses what the project cannot take, naming the value.
fn check_request(
    args: &CreateWebhookArgs,
    record: &Webhooks,
    exists: bool,
    api: &RustApi,
    versions: &[RustApi],
) -> anyhow::Result<()> {
    let kind = &api.kind;
    for (asked, has, what, file) in [
        (
            args.defaulting,
            record.defaulting,
            "defaulting",
            webhook_scaffold::admission_path(api),
        ),
        (
            args.validation,
            record.validation,
            "validation",
            webhook_scaffold::admission_path(api),
        ),
        (
            args.conversion,
            record.conversion,
            "conversion",
            webhook_scaffold::conversion_path(api),
        ),
    ] {
        if asked && has {
            return Err(usage(format!(
                "{kind} already has a {what} webhook (see {file}); ask for another of --defaulting, --validation, --conversion"
            )));
        }
    }
    if exists && record.version != api.version.as_str() {
        return Err(usage(format!(
            "--version={}: the webhooks of {kind} use version {}; every webhook of a kind sees one version, so pass --version={} or leave it out",
            api.version, record.version, record.version
        )));
    }
    if args.conversion && versions.len() < 2 {
        return Err(usage(format!(
            "--conversion: {kind} has one version ({}), so there is nothing to convert; add another with `operator-rs create api --api-version={}/VERSION --kind={kind}`",
            api.version, api.group
        )));
    }
    Ok(())
}

/// The version the kind's CRD file stores, if the file says.
fn storage_version(root: &Path, api: &RustApi) -> Option<Version> {
    let path = root
        .join("deploy/crds")
        .join(rust_scaffold::crd_file_name(api));
    let crd: serde_json::Value =
        crate::yaml::from_str(&std::fs::read_to_string(path).ok()?).ok()?;
    let stored = crd["spec"]["versions"]
        .as_array()?
        .iter()
        .find(|v| v["storage"] == true)?;
    Version::parse(stored["name"].as_str()?).ok()
}

fn refuse_existing(root: &Path, path: &str) -> anyhow::Result<()> {
    if root.join(path).exists() {
        return Err(usage(format!(
            "{path} already exists and is yours: move it away, or wire its functions into src/webhooks/mod.rs by hand"
        )));
    }
    Ok(())
}

fn list(versions: &[RustApi]) -> String {
    versions
        .iter()
        .map(|a| a.version.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The kustomization with `webhook.yaml` after the operator, keeping every other line.
fn with_webhook_resource(text: &str) -> String {
    let mut lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.trim() == "- operator.yaml")
        .or_else(|| lines.iter().position(|l| l.trim_end() == "resources:"))
        .map(|i| i + 1);
    match at {
        Some(i) => lines.insert(i, "  - webhook.yaml"),
        None => {
            lines.push("resources:");
            lines.push("  - webhook.yaml");
        }
    }
    lines.join("\n") + "\n"
}

/// The Deployment with the container port the Service sends webhooks to, first in the
/// container's `ports:`; `None` when the file has no such list.
fn with_webhook_port(text: &str) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.trim_end().ends_with("ports:") && l.trim() == "ports:")?;
    let indent = " ".repeat(lines[at].len() - lines[at].trim_start().len() + 2);
    let port = [
        format!(
            "{indent}# The webhooks' HTTPS server (--webhook-bind-address), behind the Service"
        ),
        format!("{indent}# of deploy/webhook.yaml."),
        format!("{indent}- name: webhook"),
        format!("{indent}  containerPort: 9443"),
        format!("{indent}  protocol: TCP"),
    ];
    let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    for (offset, line) in port.into_iter().enumerate() {
        out.insert(at + 1 + offset, line);
    }
    Some(out.join("\n") + "\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kustomization_lists_the_webhooks_after_the_operator() {
        let text = "resources:\n  - crds/a.yaml\n  - operator.yaml\nnamespace: x\n";
        assert_eq!(
            with_webhook_resource(text),
            "resources:\n  - crds/a.yaml\n  - operator.yaml\n  - webhook.yaml\nnamespace: x\n"
        );
    }

    #[test]
    fn the_deployment_gets_the_webhook_port() {
        let text = "      containers:\n        - name: operator\n          ports:\n            - name: metrics\n              containerPort: 8080\n";
        let out = with_webhook_port(text).unwrap();
        assert!(
            out.contains("          ports:\n            # The webhooks'"),
            "{out}"
        );
        assert!(out.contains("            - name: webhook\n              containerPort: 9443\n"));
        assert_eq!(with_webhook_port("spec: {}\n"), None);
    }
}
