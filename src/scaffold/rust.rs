//! The files of a Rust (kube-rs) operator project.
//!
//! Two kinds of files: those the user owns (types, controllers, main, manifests), written once
//! by `new` or `create api` ([`api_files`]) and never rewritten, and the registry the tool owns
//! and regenerates from the list of APIs ([`registry_files`]): the module lists
//! `src/api/mod.rs`, `src/api/<version>/mod.rs` and `src/controllers/mod.rs`.
//! `deploy/role.yaml` and `deploy/kustomization.yaml` are in between: [`registry_files`] renders
//! them complete for the APIs, and `create api` merges that into the user's files (union of rules
//! and resources) instead of overwriting them.

mod crd;
pub mod idents;
mod lockfile;
pub mod webhooks;

use serde::Serialize;
use thiserror::Error;

use super::templates::{self, TemplateError};
use super::{FilePlan, common};
use crate::names::{Group, Kind, ProjectName, Version};

use crd::kind_crd;
pub use crd::{CRD_HEADER, crd_yaml};

/// What `new --type=rust` needs to know.
pub struct RustProject {
    pub name: ProjectName,
    pub domain: String,
    pub group: Group,
    pub version: Version,
    pub kind: Kind,
    pub plural: String,
}

/// One Kind served by a Rust project.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RustApi {
    pub group: Group,
    pub version: Version,
    pub kind: Kind,
    pub plural: String,
}

#[derive(Debug, Error)]
pub enum RustScaffoldError {
    #[error(transparent)]
    Template(#[from] TemplateError),
    #[error(
        "kind \"{kind}\" cannot be used in a Rust project: the generated code already uses the type {clash}; choose another kind (for example \"{kind}App\")"
    )]
    KindClash { kind: String, clash: String },
    #[error(
        "project name \"{name}\" cannot name a Rust package: {reason}; choose another name (for example \"{name}-operator\")"
    )]
    ProjectClash { name: String, reason: String },
    #[error("the embedded CRD template for {0} is not valid JSON: {1} (a bug in operator-rs)")]
    CrdTemplate(String, String),
    #[error(
        "cannot add version {version} to deploy/crds/{file}: {reason}; run `operator-rs generate crds` to rewrite it from src/api/, then try again"
    )]
    CurrentCrd {
        file: String,
        version: String,
        reason: String,
    },
    #[error("the embedded Cargo.lock template has no root package (a bug in operator-rs)")]
    LockTemplate,
}

impl RustScaffoldError {
    /// True when the user's input caused the error (exit code 2), false for a bug or a
    /// project file the tool cannot work with (exit code 1).
    pub fn is_usage(&self) -> bool {
        matches!(
            self,
            RustScaffoldError::KindClash { .. } | RustScaffoldError::ProjectClash { .. }
        )
    }
}

/// Checks that the names make compilable Rust, before anything else is asked or written.
pub fn check_names(name: &ProjectName, kind: &Kind) -> Result<(), RustScaffoldError> {
    if let Some(reason) = idents::project_clash(name) {
        return Err(RustScaffoldError::ProjectClash {
            name: name.to_string(),
            reason,
        });
    }
    if let Some(clash) = idents::kind_clash(kind) {
        return Err(RustScaffoldError::KindClash {
            kind: kind.to_string(),
            clash: clash.to_string(),
        });
    }
    Ok(())
}

/// The template of a project's Cargo.toml. Besides rendering it, the scaffold reads which crates
/// a project depends on from it (plain TOML: its only tags are quoted values).
pub const MANIFEST_TEMPLATE: &str = "rust/Cargo.toml.tera";

/// Every file of a new Rust operator project except `PROJECT`, which `commands` writes.
pub fn plan(project: &RustProject) -> Result<FilePlan, RustScaffoldError> {
    check_names(&project.name, &project.kind)?;
    let api = RustApi {
        group: project.group.clone(),
        version: project.version.clone(),
        kind: project.kind.clone(),
        plural: project.plural.clone(),
    };
    let apis = [api];
    let mut context = project_context(&project.name);
    context.insert("apis", &api_views(&apis));
    context.insert("sample_file", &sample_file_name(&apis[0]));
    context.insert("crd_files", &[crd_file_name(&apis[0])]);

    let mut plan = FilePlan::new();
    for (path, template) in [
        ("Cargo.toml", MANIFEST_TEMPLATE),
        ("README.md", "rust/README.md.tera"),
        ("build/Dockerfile", "rust/build/Dockerfile.tera"),
        ("deploy/operator.yaml", "rust/deploy/operator.yaml.tera"),
        (
            "deploy/metrics_service.yaml",
            "rust/deploy/metrics_service.yaml.tera",
        ),
        (
            "deploy/metrics_reader_role.yaml",
            "rust/deploy/metrics_reader_role.yaml.tera",
        ),
        (
            "deploy/metrics_auth_role.yaml",
            "rust/deploy/metrics_auth_role.yaml.tera",
        ),
        (
            "deploy/prometheus/monitor.yaml",
            "rust/deploy/prometheus/monitor.yaml.tera",
        ),
        (
            "deploy/prometheus/kustomization.yaml",
            "rust/deploy/prometheus/kustomization.yaml.tera",
        ),
        ("src/context.rs", "rust/src/context.rs.tera"),
        ("src/bin/crdgen.rs", "rust/src/bin/crdgen.rs.tera"),
        (".github/workflows/ci.yaml", "rust/github/ci.yaml.tera"),
        ("tests/e2e.rs", "rust/tests/e2e.rs.tera"),
    ] {
        plan.add(path, templates::render(template, &context)?);
    }
    for file in [
        "metrics.rs",
        "server.rs",
        "leader.rs",
        "shutdown.rs",
        "tls.rs",
        // What every controller shares, written once: `create api` adds controllers that use it.
        "reconcile/mod.rs",
        "reconcile/backoff.rs",
        "reconcile/rollout.rs",
        "reconcile/status.rs",
        "reconcile/testing.rs",
    ] {
        plan.add(
            format!("src/{file}"),
            templates::raw(&format!("rust/src/{file}"))?,
        );
    }
    for (path, template) in [
        ("rust-toolchain.toml", "rust/rust-toolchain.toml"),
        (".github/dependabot.yml", "rust/github/dependabot.yml"),
    ] {
        plan.add(path, templates::raw(template)?);
    }
    let lock_template = templates::raw_text("rust/Cargo.lock.template")?;
    let lock = lockfile::cargo_lock(lock_template, project.name.as_str())
        .ok_or(RustScaffoldError::LockTemplate)?;
    plan.add("Cargo.lock", lock);
    // .gitignore, .dockerignore, service account and binding are shared with Helm projects.
    context.insert("cluster_scoped", &false);
    common::add_shared_files(&mut plan, &context)?;

    plan.extend(process_files(&project.name, false)?);
    plan.extend(registry_files(&project.name, &apis, false)?);
    plan.extend(api_files(&project.name, &apis[0])?);
    Ok(plan)
}

/// `src/main.rs` and `src/lib.rs`, which start and declare the webhook server only once the
/// project `serves_webhooks` (the first `create webhook` rewrites them if they are as `new`
/// wrote them).
pub fn process_files(
    name: &ProjectName,
    serves_webhooks: bool,
) -> Result<FilePlan, RustScaffoldError> {
    let mut context = project_context(name);
    context.insert("serves_webhooks", &serves_webhooks);
    let mut plan = FilePlan::new();
    plan.add(
        "src/main.rs",
        templates::render("rust/src/main.rs.tera", &context)?,
    );
    plan.add(
        "src/lib.rs",
        templates::render("rust/src/lib.rs.tera", &context)?,
    );
    Ok(plan)
}

/// The files the tool regenerates whenever the list of APIs changes: the module registries
/// (overwritten), and the role and kustomization for these APIs (merged by `create api` into
/// the user's). `apis` is in the order they were added.
pub fn registry_files(
    name: &ProjectName,
    apis: &[RustApi],
    serves_webhooks: bool,
) -> Result<FilePlan, RustScaffoldError> {
    let views = api_views(apis);
    let kinds = kind_views(apis);
    let mut context = project_context(name);
    // `crds()` passes each CRD through the webhooks' registry for its conversion stanza.
    context.insert("serves_webhooks", &serves_webhooks);
    context.insert("apis", &views);
    context.insert("kinds", &kinds);
    context.insert(
        "merges_versions",
        &kinds.iter().any(|k| k.versions.len() > 1),
    );
    let mut versions: Vec<VersionView> = Vec::new();
    for view in &views {
        match versions.iter_mut().find(|v| v.name == view.version) {
            Some(version) => version.apis.push(view.clone()),
            None => versions.push(VersionView {
                name: view.version.clone(),
                apis: vec![view.clone()],
            }),
        }
    }
    // Module declarations in the order `cargo fmt` gives them, so that formatting a project
    // and running `create api` again do not fight: rustfmt sorts `mod` items by name (without
    // `r#`) as plain strings, `v10` before `v2`. Everything else is in the order the APIs were
    // added.
    versions.sort_by(|a, b| a.name.cmp(&b.name));
    for version in &mut versions {
        version.apis.sort_by(|a, b| a.kind_snake.cmp(&b.kind_snake));
    }
    context.insert("versions", &versions);
    let mut controllers: Vec<&ApiView> = kinds.iter().map(|k| &k.first).collect();
    controllers.sort_by(|a, b| a.kind_snake.cmp(&b.kind_snake));
    context.insert("controllers", &controllers);
    let crd_files: Vec<String> = kinds.iter().map(|k| k.crd_file.clone()).collect();
    context.insert("crd_files", &crd_files);

    let mut plan = FilePlan::new();
    plan.add(
        "src/api/mod.rs",
        templates::render("rust/src/api/mod.rs.tera", &context)?,
    );
    for version in &versions {
        let mut version_context = context.clone();
        version_context.insert("version", &version.name);
        version_context.insert("apis", &version.apis);
        plan.add(
            format!("src/api/{}/mod.rs", version.name),
            templates::render("rust/src/api/version_mod.rs.tera", &version_context)?,
        );
    }
    plan.add(
        "src/controllers/mod.rs",
        templates::render("rust/src/controllers/mod.rs.tera", &context)?,
    );
    plan.add(
        "deploy/role.yaml",
        templates::render("rust/deploy/role.yaml.tera", &context)?,
    );
    plan.add(
        "deploy/kustomization.yaml",
        templates::render("common/deploy/kustomization.yaml.tera", &context)?,
    );
    Ok(plan)
}

/// The files of a new kind that the user owns once written: its types, its controller, its
/// CRD and a sample custom resource.
pub fn api_files(name: &ProjectName, api: &RustApi) -> Result<FilePlan, RustScaffoldError> {
    let context = api_context(name, api, None);
    let mut plan = version_files(&context, api)?;
    plan.add(
        format!("src/controllers/{}.rs", api.kind.snake()),
        templates::render("rust/src/controllers/kind.rs.tera", &context)?,
    );
    plan.add(
        format!("deploy/crds/{}", crd_file_name(api)),
        crd_yaml(&context, api)?,
    );
    Ok(plan)
}

/// A new version of a kind the project has.
pub struct NewVersion {
    /// Its types and sample (the user's once written), and the kind's CRD file with the version
    /// added. The kind keeps its controller.
    pub files: FilePlan,
    /// The version the kind's objects stay stored in, as the CRD file says.
    pub storage_version: String,
}

/// The files of `api`, a new version of a kind whose CRD file holds `current_crd`. The new
/// version is served, not stored: its types say `storage = false`.
pub fn new_version_files(
    name: &ProjectName,
    api: &RustApi,
    current_crd: &str,
) -> Result<NewVersion, RustScaffoldError> {
    let crd = kind_crd(current_crd, api)?;
    let storage_version = crd.storage_version.clone();
    let context = api_context(name, api, Some(&storage_version));
    let mut files = version_files(&context, api)?;
    files.add(
        format!("deploy/crds/{}", crd_file_name(api)),
        crd.with_version(&context, api)?,
    );
    Ok(NewVersion {
        files,
        storage_version,
    })
}

/// The types and sample of one version of a kind.
fn version_files(
    context: &templates::Context,
    api: &RustApi,
) -> Result<FilePlan, RustScaffoldError> {
    let mut plan = FilePlan::new();
    plan.add(
        format!("src/api/{}/{}.rs", api.version, api.kind.snake()),
        templates::render("rust/src/api/kind.rs.tera", context)?,
    );
    plan.add(
        format!("deploy/crds/{}", sample_file_name(api)),
        templates::render("rust/deploy/cr.yaml.tera", context)?,
    );
    Ok(plan)
}

/// What the templates of one API see; `storage_version` is set when `api` is an added version
/// of a kind stored in another.
fn api_context(
    name: &ProjectName,
    api: &RustApi,
    storage_version: Option<&str>,
) -> templates::Context {
    let mut context = project_context(name);
    let view = ApiView::new(api);
    context.insert("group", &view.group);
    context.insert("version", &view.version);
    context.insert("kind", &view.kind);
    context.insert("plural", &view.plural);
    context.insert("kind_lower", &view.kind_lower);
    context.insert("kind_kebab", &view.kind_kebab);
    context.insert("kind_mod", &view.kind_mod);
    context.insert("var", &view.var);
    context.insert("shortname", &view.shortname);
    context.insert("storage_version", &storage_version);
    context
}

/// `<group>_<plural>_crd.yaml`, under `deploy/crds/`.
pub fn crd_file_name(api: &RustApi) -> String {
    format!("{}_{}_crd.yaml", api.group, api.plural)
}

/// `<group>_<version>_<kind lower>_cr.yaml`, under `deploy/crds/`.
pub fn sample_file_name(api: &RustApi) -> String {
    format!("{}_{}_{}_cr.yaml", api.group, api.version, api.kind.lower())
}

fn project_context(name: &ProjectName) -> templates::Context {
    let mut context = templates::Context::new();
    context.insert("project_name", name.as_str());
    context.insert("crate_name", &name.snake());
    context.insert("crd_header", CRD_HEADER);
    context.insert("metrics_files", &METRICS_FILES);
    // The Lease of leader election: the default of `--leader-election-id` in main.rs, the flag in
    // deploy/operator.yaml and the only Lease deploy/role.yaml lets the operator write, from this
    // one value so that they cannot disagree.
    context.insert("leader_election_id", &format!("{name}-leader"));
    context
}

/// The files under `deploy/` that serve and protect `/metrics`, in the kustomization's order.
/// `deploy/prometheus/` is not among them: its ServiceMonitor needs the Prometheus Operator.
const METRICS_FILES: [&str; 3] = [
    "metrics_service.yaml",
    "metrics_reader_role.yaml",
    "metrics_auth_role.yaml",
];

/// An API as the templates see it: every spelling of its names.
#[derive(Debug, Clone, Serialize)]
struct ApiView {
    group: String,
    version: String,
    kind: String,
    plural: String,
    /// `httproute`: `names.singular` and file names.
    kind_lower: String,
    /// `http-route`: labels and the controller's name.
    kind_kebab: String,
    /// `http_route`, `type`: the file name of its modules.
    kind_snake: String,
    /// `http_route`, `r#type`: the module name in Rust paths.
    kind_mod: String,
    /// The controller module: one per kind, whatever its versions.
    controller_mod: String,
    /// The variable name of an object of the kind.
    var: String,
    shortname: Option<String>,
}

impl ApiView {
    fn new(api: &RustApi) -> Self {
        ApiView {
            group: api.group.to_string(),
            version: api.version.to_string(),
            kind: api.kind.to_string(),
            plural: api.plural.clone(),
            kind_lower: api.kind.lower(),
            kind_kebab: api.kind.kebab(),
            kind_snake: api.kind.snake(),
            kind_mod: idents::module_ident(&api.kind),
            controller_mod: idents::module_ident(&api.kind),
            var: idents::variable_ident(&api.kind),
            shortname: idents::short_name(&api.kind),
        }
    }
}

/// A kind as the templates see it: the names of its first version, all its versions in the
/// order they were added, and its CRD file.
#[derive(Debug, Serialize)]
struct KindView {
    #[serde(flatten)]
    first: ApiView,
    versions: Vec<ApiView>,
    crd_file: String,
}

/// The kinds of `apis`, each once, in the order their first version was added.
fn kind_views(apis: &[RustApi]) -> Vec<KindView> {
    let mut kinds: Vec<KindView> = Vec::new();
    for api in apis {
        let view = ApiView::new(api);
        match kinds
            .iter_mut()
            .find(|k| k.first.group == view.group && k.first.kind == view.kind)
        {
            Some(kind) => kind.versions.push(view),
            None => kinds.push(KindView {
                first: view.clone(),
                versions: vec![view],
                crd_file: crd_file_name(api),
            }),
        }
    }
    kinds
}

#[derive(Debug, Serialize)]
struct VersionView {
    name: String,
    apis: Vec<ApiView>,
}

fn api_views(apis: &[RustApi]) -> Vec<ApiView> {
    apis.iter().map(ApiView::new).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project(kind: &str, api_version: &str) -> RustProject {
        let kind = Kind::parse(kind).unwrap();
        let (group, version) = crate::names::parse_api_version(api_version).unwrap();
        RustProject {
            name: ProjectName::for_kind(&kind).unwrap(),
            domain: "example.com".to_string(),
            group,
            version,
            plural: kind.plural(),
            kind,
        }
    }

    fn text(plan: &FilePlan, path: &str) -> String {
        String::from_utf8(
            plan.get(path)
                .unwrap_or_else(|| panic!("{path}"))
                .bytes
                .clone(),
        )
        .unwrap()
    }

    #[test]
    fn every_template_renders_completely() {
        let plan = plan(&project("Memcached", "cache.example.com/v1alpha1")).unwrap();
        for (path, file) in plan.iter() {
            let text = String::from_utf8_lossy(&file.bytes);
            for leftover in ["{{ ", "{%", "@ROOT@"] {
                assert!(!text.contains(leftover), "{path} contains {leftover:?}");
            }
        }
        assert!(plan.contains("src/api/v1alpha1/memcached.rs"));
        assert!(plan.contains("src/controllers/memcached.rs"));
        assert!(!plan.contains("PROJECT"), "commands writes PROJECT");
    }

    /// The lock's root entry must list exactly the dependencies of Cargo.toml, or
    /// `cargo build --locked` refuses it: this catches a Cargo.toml template changed without
    /// regenerating `templates/rust/Cargo.lock.template`.
    #[test]
    fn the_lock_matches_the_manifest() {
        let plan = plan(&project("Memcached", "cache.example.com/v1alpha1")).unwrap();
        let manifest = text(&plan, "Cargo.toml");
        let mut declared: Vec<String> = Vec::new();
        let mut in_dependencies = false;
        for line in manifest.lines() {
            if line.starts_with('[') {
                in_dependencies = line == "[dependencies]" || line == "[dev-dependencies]";
            } else if in_dependencies && let Some((name, _)) = line.split_once(" = ") {
                declared.push(name.trim().to_string());
            }
        }
        declared.sort();
        // tokio is in both tables: once more in [dev-dependencies] with "test-util".
        declared.dedup();
        let lock = text(&plan, "Cargo.lock");
        let root = lock
            .split("\n[[package]]\n")
            .find(|b| b.starts_with("name = \"memcached-operator\"\n"))
            .expect("root entry");
        let locked: Vec<String> = root
            .lines()
            .filter_map(|l| {
                l.strip_prefix(" \"")?
                    .strip_suffix("\",")
                    .map(str::to_string)
            })
            .collect();
        assert_eq!(locked, declared);
    }

    #[test]
    fn the_crd_carries_the_names_and_the_header() {
        let plan = plan(&project("HTTPRoute", "a.b.c.example.io/v2beta3")).unwrap();
        let crd = text(&plan, "deploy/crds/a.b.c.example.io_httproutes_crd.yaml");
        assert!(crd.starts_with(&format!(
            "---\n{CRD_HEADER}\napiVersion: apiextensions.k8s.io/v1\n"
        )));
        for expected in [
            "name: httproutes.a.b.c.example.io",
            "kind: HTTPRoute",
            "- hr",
            "singular: httproute",
            "name: v2beta3",
            "scope: Namespaced",
        ] {
            assert!(crd.contains(expected), "{expected} missing:\n{crd}");
        }
        let sample = text(
            &plan,
            "deploy/crds/a.b.c.example.io_v2beta3_httproute_cr.yaml",
        );
        assert!(sample.contains("apiVersion: a.b.c.example.io/v2beta3\nkind: HTTPRoute\n"));
        assert!(sample.contains("name: http-route-sample"));
    }

    #[test]
    fn keyword_kinds_use_raw_module_names() {
        let plan = plan(&project("Match", "matches.example.com/v1")).unwrap();
        assert!(text(&plan, "src/api/v1/mod.rs").contains("pub mod r#match;"));
        let controller = text(&plan, "src/controllers/match.rs");
        assert!(controller.contains("use crate::api::v1::r#match::{Match, MatchStatus};"));
        assert!(controller.contains("pub async fn reconcile(object: Arc<Match>"));
    }

    fn memcached(version: &str) -> RustApi {
        let p = project("Memcached", &format!("cache.example.com/{version}"));
        RustApi {
            group: p.group,
            version: p.version,
            kind: p.kind,
            plural: p.plural,
        }
    }

    const MEMCACHED_CRD: &str = "deploy/crds/cache.example.com_memcacheds_crd.yaml";

    fn versions(crd: &str) -> Vec<(String, bool)> {
        let crd: serde_json::Value = crate::yaml::from_str(crd).unwrap();
        crd["spec"]["versions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| {
                (
                    v["name"].as_str().unwrap().to_string(),
                    v["storage"] == true,
                )
            })
            .collect()
    }

    #[test]
    fn a_new_version_joins_the_crd_after_the_storage_version() {
        let first = plan(&project("Memcached", "cache.example.com/v1alpha1")).unwrap();
        let name = ProjectName::parse("memcached-operator").unwrap();
        let second =
            new_version_files(&name, &memcached("v1"), &text(&first, MEMCACHED_CRD)).unwrap();
        assert_eq!(second.storage_version, "v1alpha1");
        let third = new_version_files(&name, &memcached("v2"), &text(&second.files, MEMCACHED_CRD))
            .unwrap();
        let crd = text(&third.files, MEMCACHED_CRD);
        assert_eq!(
            versions(&crd),
            [
                ("v1alpha1".to_string(), true),
                ("v2".to_string(), false),
                ("v1".to_string(), false)
            ]
        );
        assert!(crd.starts_with(&format!("---\n{CRD_HEADER}\n")));
        let types = text(&third.files, "src/api/v2/memcached.rs");
        assert!(types.contains("    version = \"v2\",\n    storage = false,\n"));
        assert!(types.contains("objects are stored as `v1alpha1`"));
        let first_types = text(&first, "src/api/v1alpha1/memcached.rs");
        assert!(!first_types.contains("storage"));
        assert!(
            third
                .files
                .contains("deploy/crds/cache.example.com_v2_memcached_cr.yaml")
        );
        assert!(!third.files.contains("src/controllers/memcached.rs"));
    }

    /// Once the user stores another version, a new one goes right after it, where
    /// `merge_crds` puts it.
    #[test]
    fn the_storage_version_is_read_from_the_crd() {
        let moved = text(
            &plan(&project("Memcached", "cache.example.com/v1alpha1")).unwrap(),
            MEMCACHED_CRD,
        )
        .replace("name: v1alpha1", "name: v1");
        let name = ProjectName::parse("memcached-operator").unwrap();
        let with_alpha = new_version_files(&name, &memcached("v1alpha1"), &moved).unwrap();
        let with_beta = new_version_files(
            &name,
            &memcached("v1beta1"),
            &text(&with_alpha.files, MEMCACHED_CRD),
        )
        .unwrap();
        assert_eq!(with_beta.storage_version, "v1");
        assert_eq!(
            versions(&text(&with_beta.files, MEMCACHED_CRD)),
            [
                ("v1".to_string(), true),
                ("v1beta1".to_string(), false),
                ("v1alpha1".to_string(), false)
            ]
        );
    }

    #[test]
    fn a_crd_file_that_cannot_take_the_version_is_refused_with_the_way_out() {
        let name = ProjectName::parse("memcached-operator").unwrap();
        let other_kind = text(
            &plan(&project("Other", "cache.example.com/v1alpha1")).unwrap(),
            "deploy/crds/cache.example.com_others_crd.yaml",
        );
        let alpha = text(
            &plan(&project("Memcached", "cache.example.com/v1alpha1")).unwrap(),
            MEMCACHED_CRD,
        );
        let has_v1 = alpha.replace("name: v1alpha1", "name: v1");
        let no_storage = alpha.replace("storage: true", "storage: false");
        for (current, reason) in [
            ("spec: [", "it is not YAML"),
            (other_kind.as_str(), "does not define kind Memcached"),
            (
                "spec:\n  group: cache.example.com\n  names:\n    kind: Memcached\n",
                "no spec.versions",
            ),
            (has_v1.as_str(), "serves v1 already"),
            (
                no_storage.as_str(),
                "exactly one storage version, and has none",
            ),
        ] {
            let error = new_version_files(&name, &memcached("v1"), current)
                .err()
                .unwrap();
            let message = error.to_string();
            assert!(!error.is_usage());
            assert!(message.contains(reason), "{message}");
            assert!(
                message.contains("cache.example.com_memcacheds_crd.yaml"),
                "{message}"
            );
            assert!(message.contains("operator-rs generate crds"), "{message}");
        }
    }

    #[test]
    fn clashing_names_are_usage_errors() {
        let error = plan(&project("Deployment", "apps.example.com/v1")).unwrap_err();
        assert!(error.is_usage());
        assert!(error.to_string().contains("\"DeploymentApp\""), "{error}");
        let mut bad = project("Memcached", "cache.example.com/v1");
        bad.name = ProjectName::parse("kube").unwrap();
        let error = plan(&bad).unwrap_err();
        assert!(
            error.is_usage() && error.to_string().contains("\"kube\""),
            "{error}"
        );
    }
}
