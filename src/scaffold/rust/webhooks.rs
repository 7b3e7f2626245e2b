//! The webhook files of a Rust project.
//!
//! The tool owns the HTTPS server and review handling (`src/webhook_server/`, the same in every
//! project that has webhooks, added by the first `create webhook`), the registry `src/webhooks/mod.rs` and `deploy/webhook.yaml`, all rendered from
//! the project's list of webhooks and rewritten whole. The user owns each kind's
//! `src/webhooks/<kind>.rs` (defaulting and validation functions) and
//! `src/webhooks/<kind>_conversion.rs` (`From` between each version and the storage version),
//! written once.

use serde::Serialize;
use serde_json::Value;

use super::{
    ApiView, FilePlan, MANIFEST_TEMPLATE, RustApi, RustScaffoldError, crd, project_context,
};
use crate::names::{ProjectName, Version};
use crate::scaffold::templates;

/// The plumbing files, under `src/webhook_server/`.
const PLUMBING: [&str; 5] = [
    "mod.rs",
    "admission.rs",
    "certificates.rs",
    "conversion.rs",
    "metrics.rs",
];

/// Crates `src/tls.rs` uses that a project made by an older operator-rs may lack in its
/// Cargo.toml: `create webhook` rewrites that file, so it adds them as `new` writes them.
pub const PLUMBING_DEPENDENCIES: [&str; 1] = ["axum-server"];

/// `manifest` (a project's Cargo.toml) with the lines of the plumbing's dependencies it lacks,
/// after its `[dependencies]` header, and their names; `None` when it lacks none. An error names
/// what keeps them from being added.
pub fn manifest_with_plumbing_dependencies(
    manifest: &str,
) -> Result<Option<(String, Vec<&'static str>)>, String> {
    let table: toml::Table = toml::from_str(manifest)
        .map_err(|e| format!("Cargo.toml is not valid TOML ({})", e.message()))?;
    let declared = table.get("dependencies").and_then(|d| d.as_table());
    let missing: Vec<&str> = PLUMBING_DEPENDENCIES
        .into_iter()
        .filter(|name| !declared.is_some_and(|d| d.contains_key(*name)))
        .collect();
    if missing.is_empty() {
        return Ok(None);
    }
    let template = templates::raw_text(MANIFEST_TEMPLATE).map_err(|e| e.to_string())?;
    let mut lines = Vec::new();
    for name in &missing {
        let prefix = format!("{name} = ");
        let line = template.lines().find(|l| l.starts_with(&prefix));
        lines.push(line.ok_or_else(|| format!("the Cargo.toml template has no {name}"))?);
    }
    let header = manifest.lines().position(|l| l.trim() == "[dependencies]");
    let header = header.ok_or("Cargo.toml has no `[dependencies]` line to add them under")?;
    let mut text: Vec<&str> = manifest.lines().collect();
    text.splice(header + 1..header + 1, lines);
    let mut text = text.join("\n");
    if manifest.ends_with('\n') {
        text.push('\n');
    }
    Ok(Some((text, missing)))
}

/// The webhooks of one kind, as `create webhook` records them.
#[derive(Debug, Clone)]
pub struct KindWebhooks {
    /// The kind at the version its admission webhooks see, and the hub of its conversion.
    pub api: RustApi,
    pub defaulting: bool,
    pub validation: bool,
    pub conversion: bool,
    /// The kind's other versions, converted to and from `api.version`.
    pub spokes: Vec<Version>,
}

/// A kind's webhooks as the templates see them.
#[derive(Debug, Serialize)]
struct WebhookView {
    #[serde(flatten)]
    api: ApiView,
    defaulting: bool,
    validation: bool,
    conversion: bool,
    spokes: Vec<String>,
    mutate_name: String,
    mutate_path: String,
    validate_name: String,
    validate_path: String,
}

impl WebhookView {
    fn new(hooks: &KindWebhooks) -> Self {
        let api = &hooks.api;
        let path_tail = format!(
            "{}-{}-{}",
            api.group.as_str().replace('.', "-"),
            api.version,
            api.kind.lower()
        );
        let name_tail = format!("{}-{}.{}", api.kind.lower(), api.version, api.group);
        WebhookView {
            api: ApiView::new(api),
            defaulting: hooks.defaulting,
            validation: hooks.validation,
            conversion: hooks.conversion,
            spokes: hooks.spokes.iter().map(|v| v.to_string()).collect(),
            mutate_name: format!("m{name_tail}"),
            mutate_path: format!("/mutate-{path_tail}"),
            validate_name: format!("v{name_tail}"),
            validate_path: format!("/validate-{path_tail}"),
        }
    }
}

/// `<plural>.<group>`, the name of a kind's CRD.
fn crd_name(api: &RustApi) -> String {
    format!("{}.{}", api.plural, api.group)
}

/// The path of a kind's admission file.
pub fn admission_path(api: &RustApi) -> String {
    format!("src/webhooks/{}.rs", api.kind.snake())
}

/// The path of a kind's conversion file.
pub fn conversion_path(api: &RustApi) -> String {
    format!("src/webhooks/{}_conversion.rs", api.kind.snake())
}

/// The HTTPS server and review handling, the same in every project with webhooks.
pub fn plumbing_files() -> Result<FilePlan, RustScaffoldError> {
    let mut plan = FilePlan::new();
    // The HTTPS server /metrics shares, rewritten too so that a project made before it had
    // what the webhooks need from it.
    plan.add("src/tls.rs", templates::raw("rust/src/tls.rs")?);
    for file in PLUMBING {
        plan.add(
            format!("src/webhook_server/{file}"),
            templates::raw(&format!("rust/src/webhook_server/{file}"))?,
        );
    }
    Ok(plan)
}

/// `src/webhooks/mod.rs` and, when there is any webhook, `deploy/webhook.yaml` and the
/// cert-manager overlay `deploy-cert-manager/` (beside `deploy/`: kustomize refuses an overlay
/// inside its base).
pub fn registry_files(
    name: &ProjectName,
    webhooks: &[KindWebhooks],
) -> Result<FilePlan, RustScaffoldError> {
    let views: Vec<WebhookView> = webhooks.iter().map(WebhookView::new).collect();
    let mut modules: Vec<String> = Vec::new();
    for view in &views {
        if view.defaulting || view.validation {
            modules.push(view.api.kind_mod.clone());
        }
        if view.conversion {
            modules.push(format!("{}_conversion", view.api.kind_snake));
        }
    }
    // In the order `cargo fmt` sorts `mod` items: by name without `r#`.
    modules.sort_by(|a, b| a.trim_start_matches("r#").cmp(b.trim_start_matches("r#")));
    let converted_crds: Vec<String> = webhooks
        .iter()
        .filter(|w| w.conversion)
        .map(|w| crd_name(&w.api))
        .collect();
    let mutating: Vec<&WebhookView> = views.iter().filter(|v| v.defaulting).collect();
    let validating: Vec<&WebhookView> = views.iter().filter(|v| v.validation).collect();
    let mut context = project_context(name);
    context.insert("webhooks", &views);
    context.insert("modules", &modules);
    context.insert("converted_crds", &converted_crds);
    context.insert(
        "has_admission",
        &(!mutating.is_empty() || !validating.is_empty()),
    );
    context.insert("mutating", &mutating);
    context.insert("validating", &validating);
    let mut plan = FilePlan::new();
    plan.add(
        "src/webhooks/mod.rs",
        templates::render("rust/src/webhooks/mod.rs.tera", &context)?,
    );
    if !webhooks.is_empty() {
        for (path, template) in [
            ("deploy/webhook.yaml", "webhook.yaml"),
            (
                "deploy-cert-manager/kustomization.yaml",
                "cert-manager/kustomization.yaml",
            ),
            (
                "deploy-cert-manager/certificate.yaml",
                "cert-manager/certificate.yaml",
            ),
        ] {
            plan.add(
                path,
                templates::render(&format!("rust/deploy/{template}.tera"), &context)?,
            );
        }
    }
    Ok(plan)
}

/// The user's file of `api`'s defaulting and validation functions.
pub fn admission_file(name: &ProjectName, api: &RustApi) -> Result<String, RustScaffoldError> {
    let mut context = project_context(name);
    insert_api(&mut context, api);
    Ok(templates::render(
        "rust/src/webhooks/kind.rs.tera",
        &context,
    )?)
}

/// The user's file of conversions between `hub` and each of `spokes`.
pub fn conversion_file(
    name: &ProjectName,
    hub: &RustApi,
    spokes: &[Version],
) -> Result<String, RustScaffoldError> {
    let mut context = project_context(name);
    insert_api(&mut context, hub);
    context.insert("hub", hub.version.as_str());
    let spokes: Vec<&str> = spokes.iter().map(Version::as_str).collect();
    context.insert("spokes", &spokes);
    // The `use` lines in the order rustfmt sorts them, so that `cargo fmt` leaves them be.
    let mut imports: Vec<Import> = spokes
        .iter()
        .map(|v| Import {
            version: v.to_string(),
            alias: v.to_string(),
        })
        .collect();
    imports.push(Import {
        version: hub.version.to_string(),
        alias: "hub".to_string(),
    });
    imports.sort_by_key(|a| version_sort_key(&a.version));
    context.insert("imports", &imports);
    Ok(templates::render(
        "rust/src/webhooks/kind_conversion.rs.tera",
        &context,
    )?)
}

/// The user's conversion file `current` of `hub`'s kind with conversions for one more version,
/// `spoke`: its `use` line joins the others in rustfmt's order and its `From` pair goes before
/// the tests. `None` when the file has no `use crate::api::` lines to join (the user rewrote it).
pub fn conversion_with_spoke(
    name: &ProjectName,
    hub: &RustApi,
    spoke: &Version,
    current: &str,
) -> Result<Option<String>, RustScaffoldError> {
    let rendered = conversion_file(name, hub, std::slice::from_ref(spoke))?;
    let impls = match (rendered.find("impl From<"), rendered.find("#[cfg(test)]")) {
        (Some(start), Some(end)) => rendered[start..end].trim_end(),
        _ => return Ok(None),
    };
    let import = format!(
        "use crate::api::{spoke}::{} as {spoke};",
        ApiView::new(hub).kind_mod
    );
    let mut lines: Vec<String> = current.lines().map(str::to_string).collect();
    let Some(first) = lines.iter().position(|l| l.starts_with("use crate::api::")) else {
        return Ok(None);
    };
    let count = lines[first..]
        .iter()
        .take_while(|l| l.starts_with("use crate::api::"))
        .count();
    let mut imports: Vec<String> = lines.drain(first..first + count).collect();
    imports.push(import);
    imports.sort_by_key(|line| version_sort_key(line.trim_start_matches("use crate::api::")));
    let mut added: Vec<String> = impls.lines().map(str::to_string).collect();
    let at = match lines.iter().position(|l| l.trim() == "#[cfg(test)]") {
        Some(tests) => {
            added.push(String::new());
            tests
        }
        None => {
            added.insert(0, String::new());
            lines.len()
        }
    };
    lines.splice(at..at, added);
    lines.splice(first..first, imports);
    Ok(Some(lines.join("\n") + "\n"))
}

#[derive(Serialize)]
struct Import {
    version: String,
    alias: String,
}

/// rustfmt's version sorting (style edition 2024): runs of digits compare as numbers, so
/// `v2` sorts before `v10`.
fn version_sort_key(name: &str) -> Vec<(String, u64)> {
    let mut key = Vec::new();
    let mut text = String::new();
    let mut digits = String::new();
    for c in name.chars() {
        if c.is_ascii_digit() {
            digits.push(c);
        } else {
            if !digits.is_empty() {
                key.push((
                    std::mem::take(&mut text),
                    digits.parse().unwrap_or(u64::MAX),
                ));
                digits.clear();
            }
            text.push(c);
        }
    }
    key.push((text, digits.parse().unwrap_or(0)));
    key
}

fn insert_api(context: &mut templates::Context, api: &RustApi) {
    let view = ApiView::new(api);
    context.insert("group", &view.group);
    context.insert("version", &view.version);
    context.insert("kind", &view.kind);
    context.insert("kind_mod", &view.kind_mod);
    context.insert("var", &view.var);
}

/// The CRD file `current` with `spec.conversion` by the operator's webhook, exactly as the
/// registry's `with_conversion` makes `crdgen` print it.
pub fn crd_with_conversion(
    name: &ProjectName,
    api: &RustApi,
    current: &str,
) -> Result<String, RustScaffoldError> {
    let problem = |reason: String| RustScaffoldError::CurrentCrd {
        file: super::crd_file_name(api),
        version: api.version.to_string(),
        reason,
    };
    let mut crd: Value =
        crate::yaml::from_str(current).map_err(|e| problem(format!("it is not YAML: {e}")))?;
    let Some(spec) = crd["spec"].as_object_mut() else {
        return Err(problem("it has no spec".to_string()));
    };
    let conversion = serde_json::json!({
        "strategy": "Webhook",
        "webhook": {
            "clientConfig": {"service": {
                "name": format!("{name}-webhook"),
                "namespace": "REPLACE_NAMESPACE",
                "path": "/convert",
                "port": 443,
            }},
            "conversionReviewVersions": ["v1"],
        },
    });
    // crdgen prints the spec's fields in k8s-openapi's order, conversion first.
    let mut ordered = serde_json::Map::new();
    ordered.insert("conversion".to_string(), conversion);
    for (key, value) in spec.iter() {
        if key != "conversion" {
            ordered.insert(key.clone(), value.clone());
        }
    }
    *spec = ordered;
    Ok(crd::document(&crd))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::names::{Group, Kind};

    fn memcached(version: &str) -> RustApi {
        RustApi {
            group: Group::parse("cache.example.com").unwrap(),
            version: Version::parse(version).unwrap(),
            kind: Kind::parse("Memcached").unwrap(),
            plural: "memcacheds".to_string(),
        }
    }

    /// A Cargo.toml as an operator-rs from before axum-server wrote it.
    const OLDER_MANIFEST: &str = "[package]\nname = \"op\"\n\n[dependencies]\nanyhow = \"1\"\n# a comment\nkube = \"5\"\n\n[dev-dependencies]\nhttp = \"1\"\n";

    #[test]
    fn an_older_manifest_gets_the_plumbing_dependencies_as_new_writes_them() {
        let (text, added) = manifest_with_plumbing_dependencies(OLDER_MANIFEST)
            .unwrap()
            .unwrap();
        assert_eq!(added, ["axum-server"]);
        let template = templates::raw_text(MANIFEST_TEMPLATE).unwrap();
        let line = template
            .lines()
            .find(|l| l.starts_with("axum-server = "))
            .unwrap();
        assert_eq!(
            text,
            OLDER_MANIFEST.replace("[dependencies]\n", &format!("[dependencies]\n{line}\n"))
        );
        let table: toml::Table = toml::from_str(&text).unwrap();
        assert!(table["dependencies"].get("axum-server").is_some());
        assert_eq!(manifest_with_plumbing_dependencies(&text), Ok(None));
    }

    #[test]
    fn a_manifest_the_dependencies_cannot_go_into_is_refused_by_name() {
        let without_table = "[package]\nname = \"op\"\n";
        let error = manifest_with_plumbing_dependencies(without_table).unwrap_err();
        assert!(error.contains("[dependencies]"), "{error}");
        let broken = manifest_with_plumbing_dependencies("[dependencies\n").unwrap_err();
        assert!(broken.contains("not valid TOML"), "{broken}");
        // Declared as a table of its own, it is there.
        let own_table = "[dependencies.axum-server]\nversion = \"0.8\"\n";
        assert_eq!(manifest_with_plumbing_dependencies(own_table), Ok(None));
    }

    #[test]
    fn paths_and_names_follow_the_contract_with_run() {
        let view = WebhookView::new(&KindWebhooks {
            api: memcached("v1alpha1"),
            defaulting: true,
            validation: true,
            conversion: false,
            spokes: Vec::new(),
        });
        assert_eq!(
            view.mutate_path,
            "/mutate-cache-example-com-v1alpha1-memcached"
        );
        assert_eq!(
            view.validate_path,
            "/validate-cache-example-com-v1alpha1-memcached"
        );
        assert_eq!(view.mutate_name, "mmemcached-v1alpha1.cache.example.com");
        assert_eq!(view.validate_name, "vmemcached-v1alpha1.cache.example.com");
    }

    #[test]
    fn the_conversion_stanza_comes_first_in_the_spec() {
        let name = ProjectName::parse("memcached-operator").unwrap();
        let current = "---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: memcacheds.cache.example.com\nspec:\n  group: cache.example.com\n  scope: Namespaced\n";
        let text = crd_with_conversion(&name, &memcached("v1alpha1"), current).unwrap();
        let conversion = text.find("conversion:").unwrap();
        assert!(conversion < text.find("group:").unwrap(), "{text}");
        assert!(text.contains("name: memcached-operator-webhook"), "{text}");
    }
}
