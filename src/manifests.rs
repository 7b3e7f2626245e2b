//! The manifests under `deploy/`: read through `kustomization.yaml`, filled in with the image
//! and namespace, checked for placeholders left, and ordered into the stages a first deploy
//! needs (a role binding is useless before its role, a custom resource impossible before its
//! CRD).

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::{Map, Value};
use thiserror::Error;

use crate::project::Project;

pub const DEPLOY_DIR: &str = "deploy";
pub const KUSTOMIZATION: &str = "kustomization.yaml";
pub const IMAGE_PLACEHOLDER: &str = "REPLACE_IMAGE";
pub const NAMESPACE_PLACEHOLDER: &str = "REPLACE_NAMESPACE";

/// Where a manifest came from, for error messages and output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// A document of a file; `path` is relative to the project root, `index` counts from 1.
    File { path: PathBuf, index: usize },
    /// The namespace `deploy` creates when it is missing.
    CreateNamespace,
    /// An object found in the cluster rather than read from a file.
    Cluster,
    /// An object a chart template rendered (`chart/templates/x.yaml`), for the Helm runtime.
    Template(String),
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::File { path, index } => write!(f, "{} (document {index})", path.display()),
            Origin::CreateNamespace => f.write_str("--create-namespace"),
            Origin::Cluster => f.write_str("the cluster"),
            Origin::Template(path) => write!(f, "template {path}"),
        }
    }
}

/// One Kubernetes object. `load` guarantees `apiVersion`, `kind` and `metadata.name` are
/// non-empty strings, so the accessors below never have to report their absence.
#[derive(Debug, Clone, PartialEq)]
pub struct Manifest {
    pub origin: Origin,
    pub object: Value,
}

impl Manifest {
    fn str_at(&self, pointer: &str) -> &str {
        self.object
            .pointer(pointer)
            .and_then(Value::as_str)
            .unwrap_or("")
    }

    pub fn api_version(&self) -> &str {
        self.str_at("/apiVersion")
    }

    pub fn kind(&self) -> &str {
        self.str_at("/kind")
    }

    pub fn name(&self) -> &str {
        self.str_at("/metadata/name")
    }

    pub fn namespace(&self) -> Option<&str> {
        self.object
            .pointer("/metadata/namespace")
            .and_then(Value::as_str)
    }

    /// The API group: empty for the core group (`apiVersion: v1`).
    pub fn group(&self) -> &str {
        split_api_version(self.api_version()).0
    }

    pub fn version(&self) -> &str {
        split_api_version(self.api_version()).1
    }

    /// `Kind/name (namespace)`, the way every command names an object.
    pub fn display_name(&self) -> String {
        match self.namespace() {
            Some(ns) => format!("{}/{} ({ns})", self.kind(), self.name()),
            None => format!("{}/{}", self.kind(), self.name()),
        }
    }

    pub fn is_crd(&self) -> bool {
        self.group() == "apiextensions.k8s.io" && self.kind() == "CustomResourceDefinition"
    }

    /// The Namespace object `deploy` creates when the target namespace is missing.
    pub fn namespace_object(name: &str) -> Manifest {
        Manifest {
            origin: Origin::CreateNamespace,
            object: serde_json::json!({
                "apiVersion": "v1",
                "kind": "Namespace",
                "metadata": { "name": name },
            }),
        }
    }
}

/// Splits `group/version` (or a core `version`) into its parts.
pub fn split_api_version(api_version: &str) -> (&str, &str) {
    api_version.rsplit_once('/').unwrap_or(("", api_version))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    Namespaced,
    Cluster,
}

/// The deploy files of a project, plus the sample custom resources when asked for.
#[derive(Debug, Clone, PartialEq)]
pub struct Bundle {
    pub manifests: Vec<Manifest>,
    pub samples: Vec<Manifest>,
}

#[derive(Debug, Error)]
pub enum ManifestError {
    #[error("cannot read {0}: {1} (every project made by `operator-rs new` has one)")]
    Kustomization(PathBuf, std::io::Error),
    #[error("{0} is not a valid kustomization: {1}")]
    KustomizationParse(PathBuf, String),
    #[error("{0} lists no resources: add the deploy files under `resources:`")]
    NoResources(PathBuf),
    #[error(
        "{0} lists \"{1}\", which is not a file in {DEPLOY_DIR}/: deploy reads plain manifest files only (no directories, URLs or nested kustomizations)"
    )]
    NotAFile(PathBuf, String),
    #[error("cannot read {0}: {1}")]
    Read(PathBuf, std::io::Error),
    #[error(
        "cannot read the sample custom resource {0}: {1} (`--with-sample` applies deploy/crds/<group>_<version>_<kind>_cr.yaml of every API in PROJECT)"
    )]
    Sample(PathBuf, std::io::Error),
    #[error("{origin} is not valid YAML: {message}")]
    Yaml { origin: Origin, message: String },
    #[error("{origin} is not a valid Kubernetes object: {reason}")]
    Invalid { origin: Origin, reason: String },
    #[error(
        "{origin} still has the placeholder {placeholder} at {field}: replace it in the file, deploy fills in only {IMAGE_PLACEHOLDER} (image) and {NAMESPACE_PLACEHOLDER} (the namespace)"
    )]
    Placeholder {
        origin: Origin,
        field: String,
        placeholder: String,
    },
    #[error(
        "{origin} needs an image at {field} ({IMAGE_PLACEHOLDER}) and none is known: run `operator-rs build IMAGE` first or pass --image IMAGE"
    )]
    NoImage { origin: Origin, field: String },
}

#[derive(Deserialize)]
struct Kustomization {
    #[serde(default)]
    resources: Vec<String>,
}

/// Reads the files listed in `deploy/kustomization.yaml`, in their order, and with
/// `with_samples` the sample custom resource of every API in `PROJECT`.
pub fn load(root: &Path, project: &Project, with_samples: bool) -> Result<Bundle, ManifestError> {
    let deploy = Path::new(DEPLOY_DIR);
    let kustomization_path = deploy.join(KUSTOMIZATION);
    let text = std::fs::read_to_string(root.join(&kustomization_path))
        .map_err(|e| ManifestError::Kustomization(kustomization_path.clone(), e))?;
    let kustomization: Kustomization = crate::yaml::from_str(&text).map_err(|e| {
        ManifestError::KustomizationParse(kustomization_path.clone(), e.to_string())
    })?;
    if kustomization.resources.is_empty() {
        return Err(ManifestError::NoResources(kustomization_path));
    }

    let mut manifests = Vec::new();
    for entry in &kustomization.resources {
        let relative = deploy.join(entry);
        let escapes = Path::new(entry).is_absolute()
            || Path::new(entry)
                .components()
                .any(|c| matches!(c, std::path::Component::ParentDir));
        if escapes || entry.contains("://") || !root.join(&relative).is_file() {
            return Err(ManifestError::NotAFile(
                kustomization_path.clone(),
                entry.clone(),
            ));
        }
        let text = std::fs::read_to_string(root.join(&relative))
            .map_err(|e| ManifestError::Read(relative.clone(), e))?;
        manifests.extend(parse_documents(&relative, &text)?);
    }

    let mut samples = Vec::new();
    if with_samples {
        for resource in &project.resources {
            let relative = deploy.join("crds").join(format!(
                "{}_{}_{}_cr.yaml",
                resource.group,
                resource.version,
                resource.kind.to_lowercase()
            ));
            let text = std::fs::read_to_string(root.join(&relative))
                .map_err(|e| ManifestError::Sample(relative.clone(), e))?;
            samples.extend(parse_documents(&relative, &text)?);
        }
    }
    Ok(Bundle { manifests, samples })
}

/// Parses every document of one file; empty documents (a trailing `---`) are skipped.
pub fn parse_documents(path: &Path, text: &str) -> Result<Vec<Manifest>, ManifestError> {
    let documents: Vec<Value> = crate::yaml::from_str_multi(text).map_err(|e| {
        let index = e
            .location()
            .map(|at| document_index_at_line(text, at.line()))
            .unwrap_or(1);
        ManifestError::Yaml {
            origin: Origin::File {
                path: path.to_path_buf(),
                index,
            },
            message: e.to_string(),
        }
    })?;
    let mut manifests = Vec::new();
    for (position, object) in documents.into_iter().enumerate() {
        if object.is_null() {
            continue;
        }
        let origin = Origin::File {
            path: path.to_path_buf(),
            index: position + 1,
        };
        validate(&origin, &object)?;
        manifests.push(Manifest { origin, object });
    }
    Ok(manifests)
}

/// The 1-based document a line of a multi-document stream belongs to.
fn document_index_at_line(text: &str, line: u64) -> usize {
    let starts_with_separator = text
        .lines()
        .find(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .is_some_and(is_separator);
    let separators_before = text
        .lines()
        .take(usize::try_from(line.saturating_sub(1)).unwrap_or(usize::MAX))
        .filter(|l| is_separator(l))
        .count();
    if starts_with_separator {
        separators_before.max(1)
    } else {
        separators_before + 1
    }
}

fn is_separator(line: &str) -> bool {
    line == "---" || line.starts_with("--- ")
}

fn validate(origin: &Origin, object: &Value) -> Result<(), ManifestError> {
    let invalid = |reason: String| ManifestError::Invalid {
        origin: origin.clone(),
        reason,
    };
    let Some(map) = object.as_object() else {
        return Err(invalid(format!(
            "a document must be a mapping with apiVersion, kind and metadata, found {}",
            type_name(object)
        )));
    };
    for field in ["apiVersion", "kind"] {
        match map.get(field) {
            Some(Value::String(s)) if !s.is_empty() => {}
            Some(other) => {
                return Err(invalid(format!(
                    "{field} must be a non-empty string, found {}",
                    type_name(other)
                )));
            }
            None => return Err(invalid(format!("{field} is missing"))),
        }
    }
    match object.pointer("/metadata/name") {
        Some(Value::String(s)) if !s.is_empty() => Ok(()),
        Some(other) => Err(invalid(format!(
            "metadata.name must be a non-empty string, found {}",
            type_name(other)
        ))),
        None => Err(invalid(
            "metadata.name is missing (generateName is not supported: deploy must find the object again)"
                .into(),
        )),
    }
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "nothing",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a mapping",
    }
}

/// Kinds of the built-in API groups that are not namespaced. Everything else in a built-in
/// group is namespaced; kinds of other groups are known only from CRDs or discovery.
const CLUSTER_SCOPED_BUILTINS: &[&str] = &[
    "APIService",
    "CertificateSigningRequest",
    "ClusterRole",
    "ClusterRoleBinding",
    "ComponentStatus",
    "CSIDriver",
    "CSINode",
    "CustomResourceDefinition",
    "FlowSchema",
    "IngressClass",
    "MutatingAdmissionPolicy",
    "MutatingAdmissionPolicyBinding",
    "MutatingWebhookConfiguration",
    "Namespace",
    "Node",
    "PersistentVolume",
    "PriorityClass",
    "PriorityLevelConfiguration",
    "RuntimeClass",
    "StorageClass",
    "ValidatingAdmissionPolicy",
    "ValidatingAdmissionPolicyBinding",
    "ValidatingWebhookConfiguration",
    "VolumeAttachment",
];

fn is_builtin_group(group: &str) -> bool {
    group.is_empty()
        || group.ends_with(".k8s.io")
        || matches!(
            group,
            "apps" | "batch" | "policy" | "autoscaling" | "extensions"
        )
}

/// The scope of a kind of a built-in API group, `None` for other groups.
pub fn builtin_scope(group: &str, kind: &str) -> Option<Scope> {
    if !is_builtin_group(group) {
        return None;
    }
    Some(if CLUSTER_SCOPED_BUILTINS.contains(&kind) {
        Scope::Cluster
    } else {
        Scope::Namespaced
    })
}

impl Bundle {
    /// Every object: the deploy files, then the samples.
    pub fn all(&self) -> impl Iterator<Item = &Manifest> {
        self.manifests.iter().chain(&self.samples)
    }

    /// The scope of the kinds defined by the CRDs in this bundle, by (group, kind).
    pub fn crd_scopes(&self) -> BTreeMap<(String, String), Scope> {
        self.manifests
            .iter()
            .filter(|m| m.is_crd())
            .filter_map(|crd| {
                let spec = crd.object.get("spec")?;
                let group = spec.get("group")?.as_str()?;
                let kind = spec.pointer("/names/kind")?.as_str()?;
                let scope = match spec.get("scope").and_then(Value::as_str) {
                    Some("Cluster") => Scope::Cluster,
                    _ => Scope::Namespaced,
                };
                Some(((group.to_string(), kind.to_string()), scope))
            })
            .collect()
    }

    /// A scope for every object without asking a cluster: CRDs of this bundle, then the
    /// built-in table; an unknown kind is taken as namespaced, as most kinds are.
    pub fn offline_scope(&self) -> impl Fn(&Manifest) -> Scope + use<> {
        let crds = self.crd_scopes();
        move |m: &Manifest| {
            crds.get(&(m.group().to_string(), m.kind().to_string()))
                .copied()
                .or_else(|| builtin_scope(m.group(), m.kind()))
                .unwrap_or(Scope::Namespaced)
        }
    }

    /// A copy with the namespace set on every namespaced object and on the service-account
    /// subjects of bindings, and the image placed where the files hold `REPLACE_IMAGE`.
    pub fn filled(&self, settings: &Settings<'_>, scope: &dyn Fn(&Manifest) -> Scope) -> Bundle {
        let fill = |m: &Manifest| {
            let mut m = m.clone();
            let scope = scope(&m);
            fill_one(&mut m, settings, scope);
            m
        };
        Bundle {
            manifests: self.manifests.iter().map(fill).collect(),
            samples: self.samples.iter().map(fill).collect(),
        }
    }

    /// Fails on the first placeholder left, so that nothing is sent with one.
    pub fn check_placeholders(&self) -> Result<(), ManifestError> {
        for manifest in self.all() {
            let mut found = None;
            walk_strings(
                &manifest.object,
                &mut String::new(),
                &mut |path, key, text| {
                    if found.is_none() && is_placeholder(text) {
                        found = Some((path.to_string(), key == "image", text.to_string()));
                    }
                },
            );
            if let Some((field, is_image, placeholder)) = found {
                return Err(if is_image && placeholder == IMAGE_PLACEHOLDER {
                    ManifestError::NoImage {
                        origin: manifest.origin.clone(),
                        field,
                    }
                } else {
                    ManifestError::Placeholder {
                        origin: manifest.origin.clone(),
                        field,
                        placeholder,
                    }
                });
            }
        }
        Ok(())
    }

    /// True when some file holds `REPLACE_IMAGE`, that is when deploy needs an image.
    pub fn needs_image(&self) -> bool {
        let mut needed = false;
        for manifest in self.all() {
            walk_strings(&manifest.object, &mut String::new(), &mut |_, key, text| {
                needed |= key == "image" && text == IMAGE_PLACEHOLDER;
            });
        }
        needed
    }
}

/// What `deploy` fills in.
#[derive(Debug, Clone, Copy)]
pub struct Settings<'a> {
    pub image: Option<&'a str>,
    pub namespace: &'a str,
}

fn fill_one(manifest: &mut Manifest, settings: &Settings<'_>, scope: Scope) {
    let is_binding = matches!(manifest.kind(), "RoleBinding" | "ClusterRoleBinding")
        && manifest.group() == "rbac.authorization.k8s.io";
    let Some(object) = manifest.object.as_object_mut() else {
        return;
    };
    if scope == Scope::Namespaced
        && let Some(Value::Object(metadata)) = object.get_mut("metadata")
    {
        metadata.insert(
            "namespace".into(),
            Value::String(settings.namespace.to_string()),
        );
    }
    if is_binding && let Some(Value::Array(subjects)) = object.get_mut("subjects") {
        for subject in subjects.iter_mut().filter_map(Value::as_object_mut) {
            let is_service_account =
                subject.get("kind").and_then(Value::as_str) == Some("ServiceAccount");
            let namespace = subject.get("namespace").and_then(Value::as_str);
            if is_service_account && namespace.is_none_or(|ns| ns == NAMESPACE_PLACEHOLDER) {
                subject.insert(
                    "namespace".into(),
                    Value::String(settings.namespace.to_string()),
                );
            }
        }
    }
    if let Some(image) = settings.image {
        replace_images(object, image);
    }
    replace_namespace(object, settings.namespace);
}

/// The namespace wherever a value names it with the placeholder: a webhook's or a CRD
/// conversion's Service (`namespace: REPLACE_NAMESPACE`), a DNS name
/// (`svc.REPLACE_NAMESPACE.svc`).
fn replace_namespace(map: &mut Map<String, Value>, namespace: &str) {
    fn in_value(value: &mut Value, namespace: &str) {
        match value {
            Value::String(s)
                if s.contains(NAMESPACE_PLACEHOLDER) && !s.contains(char::is_whitespace) =>
            {
                *s = s.replace(NAMESPACE_PLACEHOLDER, namespace);
            }
            Value::Object(inner) => replace_namespace(inner, namespace),
            Value::Array(items) => items.iter_mut().for_each(|v| in_value(v, namespace)),
            _ => {}
        }
    }
    for value in map.values_mut() {
        in_value(value, namespace);
    }
}

fn replace_images(map: &mut Map<String, Value>, image: &str) {
    for (key, value) in map.iter_mut() {
        match value {
            Value::String(s) if key == "image" && s == IMAGE_PLACEHOLDER => {
                *s = image.to_string();
            }
            Value::Object(inner) => replace_images(inner, image),
            Value::Array(items) => {
                for inner in items.iter_mut().filter_map(Value::as_object_mut) {
                    replace_images(inner, image);
                }
            }
            _ => {}
        }
    }
}

/// Calls `visit(path, key, text)` for every string value, with a path like
/// `spec.template.spec.containers[0].image`.
fn walk_strings(value: &Value, path: &mut String, visit: &mut dyn FnMut(&str, &str, &str)) {
    match value {
        Value::Object(map) => {
            for (key, inner) in map {
                let len = path.len();
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(key);
                if let Value::String(text) = inner {
                    visit(path, key, text);
                } else {
                    walk_strings(inner, path, visit);
                }
                path.truncate(len);
            }
        }
        Value::Array(items) => {
            for (i, inner) in items.iter().enumerate() {
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                if let Value::String(text) = inner {
                    visit(path, "", text);
                } else {
                    walk_strings(inner, path, visit);
                }
                path.truncate(len);
            }
        }
        _ => {}
    }
}

/// A value holding a `REPLACE_SOMETHING` token, such as `REPLACE_IMAGE` or
/// `REPLACE_NAMESPACE.svc`. Text with spaces is prose (a comment-like annotation may well
/// mention a placeholder) and never a placeholder.
fn is_placeholder(text: &str) -> bool {
    if text.contains(char::is_whitespace) {
        return false;
    }
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .any(|token| {
            token.strip_prefix("REPLACE_").is_some_and(|rest| {
                !rest.is_empty()
                    && rest
                        .bytes()
                        .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
            })
        })
}

/// The order a first deploy needs; objects within one stage do not depend on each other.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Stage {
    Namespace,
    /// CustomResourceDefinitions: must be Established before their kinds can be used.
    Crds,
    /// Service accounts and the configuration pods mount (config maps, secrets).
    ServiceAccounts,
    Roles,
    Bindings,
    /// The operator Deployment and anything else.
    Workloads,
    /// Webhook configurations: after the operator and its Service, so that they call
    /// something that is there (`undeploy`, in reverse, removes them before the operator, so
    /// that no write is left waiting for a webhook that no longer runs).
    Webhooks,
    /// Sample custom resources, only with `--with-sample`.
    Samples,
}

impl Stage {
    pub fn of(manifest: &Manifest) -> Stage {
        let rbac = manifest.group() == "rbac.authorization.k8s.io";
        match (manifest.group(), manifest.kind()) {
            ("", "Namespace") => Stage::Namespace,
            _ if manifest.is_crd() => Stage::Crds,
            ("", "ServiceAccount" | "ConfigMap" | "Secret") => Stage::ServiceAccounts,
            (_, "Role" | "ClusterRole") if rbac => Stage::Roles,
            (_, "RoleBinding" | "ClusterRoleBinding") if rbac => Stage::Bindings,
            _ if crate::webhooks::is_configuration(manifest) => Stage::Webhooks,
            _ => Stage::Workloads,
        }
    }
}

/// The deploy files grouped by stage, in stage order and file order within a stage; the
/// samples always come last.
pub fn staged(bundle: &Bundle) -> Vec<(Stage, Vec<&Manifest>)> {
    let mut stages: BTreeMap<Stage, Vec<&Manifest>> = BTreeMap::new();
    for manifest in &bundle.manifests {
        stages
            .entry(Stage::of(manifest))
            .or_default()
            .push(manifest);
    }
    if !bundle.samples.is_empty() {
        stages.insert(Stage::Samples, bundle.samples.iter().collect());
    }
    stages.into_iter().collect()
}

/// A multi-document YAML stream, as `kubectl apply -f` reads it.
pub fn render<'a>(manifests: impl IntoIterator<Item = &'a Manifest>) -> String {
    manifests
        .into_iter()
        .map(|m| crate::yaml::to_string(&m.object))
        .collect::<Vec<_>>()
        .join("---\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::project::{ProjectType, Resource};

    const OPERATOR: &str = "apiVersion: apps/v1
kind: Deployment
metadata:
  name: demo
spec:
  template:
    spec:
      serviceAccountName: demo
      containers:
        - name: operator
          image: REPLACE_IMAGE
";

    const BINDING: &str = "apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: demo
subjects:
  - kind: ServiceAccount
    name: demo
    namespace: REPLACE_NAMESPACE
  - kind: ServiceAccount
    name: other
    namespace: elsewhere
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: demo
";

    const CRD: &str = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: demos.example.com
spec:
  group: example.com
  scope: Namespaced
  names: { kind: Demo, plural: demos }
";

    fn project() -> Project {
        let mut project = Project::new(ProjectType::Helm, "demo", "example.com");
        project.resources.push(Resource {
            group: "example.com".into(),
            version: "v1".into(),
            kind: "Demo".into(),
            plural: "demos".into(),
            chart: None,
        });
        project
    }

    fn write_project(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in files {
            let path = dir.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        dir
    }

    fn sample_project() -> tempfile::TempDir {
        write_project(&[
            (
                "deploy/kustomization.yaml",
                "resources:\n  - crds/example.com_demos_crd.yaml\n  - service_account.yaml\n  - role_binding.yaml\n  - operator.yaml\n",
            ),
            ("deploy/crds/example.com_demos_crd.yaml", CRD),
            (
                "deploy/crds/example.com_v1_demo_cr.yaml",
                "apiVersion: example.com/v1\nkind: Demo\nmetadata:\n  name: demo-sample\nspec: {}\n",
            ),
            (
                "deploy/service_account.yaml",
                "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: demo\n",
            ),
            ("deploy/role_binding.yaml", BINDING),
            ("deploy/operator.yaml", OPERATOR),
        ])
    }

    fn settings() -> Settings<'static> {
        Settings {
            image: Some("registry.local/demo:v1"),
            namespace: "team-a",
        }
    }

    #[test]
    fn loads_in_kustomization_order_and_fills_everything() {
        let dir = sample_project();
        let bundle = load(dir.path(), &project(), true).unwrap();
        let kinds: Vec<_> = bundle.all().map(Manifest::kind).collect();
        assert_eq!(
            kinds,
            [
                "CustomResourceDefinition",
                "ServiceAccount",
                "ClusterRoleBinding",
                "Deployment",
                "Demo"
            ]
        );
        assert!(bundle.check_placeholders().is_err());
        assert!(bundle.needs_image());

        let filled = bundle.filled(&settings(), &bundle.offline_scope());
        filled.check_placeholders().unwrap();
        let by_kind = |kind: &str| filled.all().find(|m| m.kind() == kind).unwrap();
        assert_eq!(by_kind("CustomResourceDefinition").namespace(), None);
        assert_eq!(by_kind("ClusterRoleBinding").namespace(), None);
        assert_eq!(by_kind("ServiceAccount").namespace(), Some("team-a"));
        assert_eq!(by_kind("Demo").namespace(), Some("team-a"));
        let deployment = by_kind("Deployment");
        assert_eq!(deployment.namespace(), Some("team-a"));
        assert_eq!(
            deployment.object["spec"]["template"]["spec"]["containers"][0]["image"],
            "registry.local/demo:v1"
        );
        let subjects = &by_kind("ClusterRoleBinding").object["subjects"];
        assert_eq!(subjects[0]["namespace"], "team-a");
        assert_eq!(
            subjects[1]["namespace"], "elsewhere",
            "explicit namespaces stay"
        );
    }

    #[test]
    fn the_namespace_placeholder_is_filled_in_everywhere() {
        let dir = sample_project();
        let webhook = "apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: demo
  annotations:
    note: REPLACE_NAMESPACE in prose stays
webhooks:
  - name: v.example.com
    clientConfig:
      service: {name: demo-webhook, namespace: REPLACE_NAMESPACE}
      url: https://demo-webhook.REPLACE_NAMESPACE.svc:443/validate
";
        std::fs::write(
            dir.path().join("deploy/operator.yaml"),
            format!("{OPERATOR}---\n{webhook}"),
        )
        .unwrap();
        let bundle = load(dir.path(), &project(), false).unwrap();
        let filled = bundle.filled(&settings(), &bundle.offline_scope());
        let config = filled
            .all()
            .find(|m| m.kind() == "ValidatingWebhookConfiguration")
            .unwrap();
        let client = &config.object["webhooks"][0]["clientConfig"];
        assert_eq!(client["service"]["namespace"], "team-a");
        assert_eq!(
            client["url"],
            "https://demo-webhook.team-a.svc:443/validate"
        );
        assert_eq!(
            config.object["metadata"]["annotations"]["note"],
            "REPLACE_NAMESPACE in prose stays"
        );
    }

    #[test]
    fn a_missing_image_says_to_build_or_pass_one() {
        let dir = sample_project();
        let bundle = load(dir.path(), &project(), false).unwrap();
        let filled = bundle.filled(
            &Settings {
                image: None,
                namespace: "x",
            },
            &bundle.offline_scope(),
        );
        let err = filled.check_placeholders().unwrap_err().to_string();
        assert!(err.contains("deploy/operator.yaml (document 1)"), "{err}");
        assert!(
            err.contains("spec.template.spec.containers[0].image"),
            "{err}"
        );
        assert!(err.contains("--image"), "{err}");
    }

    #[test]
    fn any_other_placeholder_is_an_error_naming_file_and_field() {
        let dir = sample_project();
        let text = OPERATOR.replace("serviceAccountName: demo", "serviceAccountName: REPLACE_SA");
        std::fs::write(dir.path().join("deploy/operator.yaml"), text).unwrap();
        let bundle = load(dir.path(), &project(), false).unwrap();
        let err = bundle
            .filled(&settings(), &bundle.offline_scope())
            .check_placeholders()
            .unwrap_err()
            .to_string();
        assert!(err.contains("REPLACE_SA"), "{err}");
        assert!(
            err.contains("spec.template.spec.serviceAccountName"),
            "{err}"
        );
    }

    #[test]
    fn placeholders_are_values_not_prose() {
        assert!(is_placeholder("REPLACE_IMAGE"));
        assert!(is_placeholder("REPLACE_NAMESPACE.svc.cluster.local"));
        assert!(is_placeholder("http://REPLACE_HOST:80"));
        assert!(!is_placeholder(
            "CKV_K8S_14=REPLACE_IMAGE is a placeholder that operator-rs deploy replaces"
        ));
        assert!(!is_placeholder("REPLACE_"));
        assert!(!is_placeholder("replace_image"));
    }

    #[test]
    fn webhook_configurations_come_after_the_operator_and_call_its_namespaces_service() {
        let text = "apiVersion: v1
kind: Service
metadata:
  name: demo-webhook
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: demo-validating
webhooks:
  - name: vdemo.example.com
    clientConfig:
      service: {name: demo-webhook, namespace: REPLACE_NAMESPACE, path: /validate}
";
        let dir = write_project(&[
            (
                "deploy/kustomization.yaml",
                "resources:\n  - webhook.yaml\n  - operator.yaml\n",
            ),
            ("deploy/webhook.yaml", text),
            ("deploy/operator.yaml", OPERATOR),
        ]);
        let bundle = load(dir.path(), &project(), false).unwrap();
        let filled = bundle.filled(&settings(), &bundle.offline_scope());
        filled.check_placeholders().unwrap();
        let stages: Vec<(Stage, Vec<&str>)> = staged(&filled)
            .into_iter()
            .map(|(stage, ms)| (stage, ms.iter().map(|m| m.kind()).collect()))
            .collect();
        assert_eq!(
            stages,
            [
                (Stage::Workloads, vec!["Service", "Deployment"]),
                (Stage::Webhooks, vec!["ValidatingWebhookConfiguration"]),
            ]
        );
        let configuration = &filled.manifests[1];
        assert_eq!(configuration.namespace(), None);
        assert_eq!(
            configuration.object["webhooks"][0]["clientConfig"]["service"]["namespace"],
            settings().namespace
        );
    }

    #[test]
    fn stages_follow_dependencies() {
        let dir = sample_project();
        let bundle = load(dir.path(), &project(), true).unwrap();
        let stages: Vec<_> = staged(&bundle)
            .into_iter()
            .map(|(stage, ms)| (stage, ms.len()))
            .collect();
        assert_eq!(
            stages,
            [
                (Stage::Crds, 1),
                (Stage::ServiceAccounts, 1),
                (Stage::Bindings, 1),
                (Stage::Workloads, 1),
                (Stage::Samples, 1)
            ]
        );
    }

    #[test]
    fn invalid_documents_name_file_and_index() {
        let path = Path::new("deploy/role.yaml");
        let err = parse_documents(
            path,
            "kind: Role\nmetadata: {name: x}\n---\napiVersion: v1\n",
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("deploy/role.yaml (document 1)"), "{err}");
        assert!(err.contains("apiVersion is missing"), "{err}");

        let err = parse_documents(
            path,
            "apiVersion: v1\nkind: A\nmetadata: {name: a}\n---\napiVersion: v1\nkind: B\nmetadata: {}\n",
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("(document 2)"), "{err}");
        assert!(err.contains("metadata.name is missing"), "{err}");

        let err = parse_documents(
            path,
            "---\napiVersion: v1\nkind: A\nmetadata: {name: a}\n---\nkind: [unclosed\n",
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("(document 2)") && err.contains("not valid YAML"),
            "{err}"
        );
    }

    #[test]
    fn empty_documents_are_skipped() {
        let manifests = parse_documents(
            Path::new("x.yaml"),
            "---\napiVersion: v1\nkind: A\nmetadata: {name: a}\n---\n",
        )
        .unwrap();
        assert_eq!(manifests.len(), 1);
    }

    #[test]
    fn kustomization_entries_must_be_files_inside_deploy() {
        let dir = write_project(&[(
            "deploy/kustomization.yaml",
            "resources:\n  - ../secret.yaml\n",
        )]);
        let err = load(dir.path(), &project(), false).unwrap_err().to_string();
        assert!(err.contains("\"../secret.yaml\""), "{err}");
    }

    #[test]
    fn rendering_round_trips() {
        let dir = sample_project();
        let bundle = load(dir.path(), &project(), false).unwrap();
        let filled = bundle.filled(&settings(), &bundle.offline_scope());
        let text = render(&filled.manifests);
        let back = parse_documents(Path::new("rendered.yaml"), &text).unwrap();
        let objects: Vec<_> = back.into_iter().map(|m| m.object).collect();
        let expected: Vec<_> = filled.manifests.into_iter().map(|m| m.object).collect();
        assert_eq!(objects, expected);
    }

    #[test]
    fn builtin_scopes() {
        assert_eq!(builtin_scope("", "Namespace"), Some(Scope::Cluster));
        assert_eq!(builtin_scope("", "ConfigMap"), Some(Scope::Namespaced));
        assert_eq!(
            builtin_scope("rbac.authorization.k8s.io", "ClusterRole"),
            Some(Scope::Cluster)
        );
        assert_eq!(builtin_scope("apps", "Deployment"), Some(Scope::Namespaced));
        assert_eq!(builtin_scope("cert-manager.io", "Issuer"), None);
    }
}
