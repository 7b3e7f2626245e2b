//! The `PROJECT` file at the root of every generated project: what later commands (`build`,
//! `deploy`, `create api`) need to know, and how they find the root from any subdirectory.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use thiserror::Error;

pub const PROJECT_FILE: &str = "PROJECT";

/// Bumped when the file's meaning changes, so an older tool can refuse a newer file.
pub const LAYOUT_VERSION: &str = "1";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum ProjectType {
    /// A kube-rs controller written in Rust.
    Rust,
    /// The helm-operator image reconciling a Helm chart.
    Helm,
}

impl ProjectType {
    pub fn as_str(self) -> &'static str {
        match self {
            ProjectType::Rust => "rust",
            ProjectType::Helm => "helm",
        }
    }
}

/// What runs a Helm project's operator in the cluster, recorded in PROJECT by `new` and
/// followed by `create api` and `build`. There are two defaults on purpose: `new` picks
/// [`HelmRuntime::FOR_NEW_PROJECTS`], while a PROJECT without the field is a helm-operator
/// project ([`HelmRuntime::WHEN_UNRECORDED`]): it was written before there was a choice, and its
/// build/Dockerfile builds on the helm-operator image.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum HelmRuntime {
    /// The operator-framework helm-operator image (Go).
    HelmOperator,
    /// operator-rs itself: its Rust Helm operator runtime, packaged with the charts.
    OperatorRs,
}

impl HelmRuntime {
    /// What `new --type=helm` makes without `--runtime`: operator-rs's runtime, which holds
    /// under API faults and needs a fraction of the helm-operator's memory (issue #32).
    pub const FOR_NEW_PROJECTS: HelmRuntime = HelmRuntime::OperatorRs;
    /// What a PROJECT without `runtime:` runs: projects written before the field existed
    /// were all helm-operator projects.
    pub const WHEN_UNRECORDED: HelmRuntime = HelmRuntime::HelmOperator;

    pub fn as_str(self) -> &'static str {
        match self {
            HelmRuntime::HelmOperator => "helm-operator",
            HelmRuntime::OperatorRs => "operator-rs",
        }
    }
}

/// One Kind served by the project.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Resource {
    pub group: String,
    pub version: String,
    pub kind: String,
    pub plural: String,
    /// Helm projects: the chart directory, relative to the project root.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chart: Option<String>,
}

impl Resource {
    pub fn api_version(&self) -> String {
        format!("{}/{}", self.group, self.version)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Project {
    pub layout: String,
    #[serde(rename = "type")]
    pub project_type: ProjectType,
    pub project_name: String,
    pub domain: String,
    /// Helm projects: the operator runtime; absent means the helm-operator.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime: Option<HelmRuntime>,
    /// The image of the last successful `build`, used by `deploy` when `--image` is absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
    /// The namespace of the last `deploy -n`, used by the next `deploy` and `undeploy`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    pub resources: Vec<Resource>,
    /// Rust projects: the webhooks `create webhook` added, one entry per kind.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub webhooks: Vec<Webhooks>,
}

/// The webhooks of one kind. Admission webhooks (defaulting, validation) serve `version`;
/// conversion goes through `version` (the hub) when `conversion` is set.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Webhooks {
    pub group: String,
    pub version: String,
    pub kind: String,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub defaulting: bool,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub validation: bool,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub conversion: bool,
}

#[derive(Debug, Error)]
pub enum ProjectError {
    #[error(
        "no {PROJECT_FILE} file in {0} or any parent directory: run this inside a project made by `operator-rs new`, or create one with `operator-rs new NAME`"
    )]
    NotFound(PathBuf),
    #[error("cannot read {0}: {1}")]
    Read(PathBuf, std::io::Error),
    #[error("{0} is not a valid {PROJECT_FILE} file: {1}")]
    Parse(PathBuf, String),
    #[error(
        "{0} has layout \"{1}\" but this operator-rs understands layout \"{LAYOUT_VERSION}\": upgrade operator-rs"
    )]
    Layout(PathBuf, String),
    #[error("cannot write {0}: {1}")]
    Write(PathBuf, std::io::Error),
}

impl Project {
    pub fn new(project_type: ProjectType, project_name: &str, domain: &str) -> Self {
        Project {
            layout: LAYOUT_VERSION.to_string(),
            project_type,
            project_name: project_name.to_string(),
            domain: domain.to_string(),
            runtime: (project_type == ProjectType::Helm).then_some(HelmRuntime::FOR_NEW_PROJECTS),
            image: None,
            namespace: None,
            resources: Vec::new(),
            webhooks: Vec::new(),
        }
    }

    /// The runtime of a Helm project's operator (the helm-operator when PROJECT names none).
    pub fn helm_runtime(&self) -> HelmRuntime {
        self.runtime.unwrap_or(HelmRuntime::WHEN_UNRECORDED)
    }

    /// The file's text, with a header saying who writes it.
    pub fn to_yaml(&self) -> String {
        let body = crate::yaml::to_string(self);
        format!(
            "# Written by operator-rs: `build` records the image and `deploy` the namespace here.\n# Edit with care: `create api` and `deploy` read it.\n{body}"
        )
    }

    pub fn from_yaml(path: &Path, text: &str) -> Result<Self, ProjectError> {
        let project: Project = crate::yaml::from_str(text)
            .map_err(|e| ProjectError::Parse(path.to_path_buf(), e.to_string()))?;
        if project.layout != LAYOUT_VERSION {
            return Err(ProjectError::Layout(path.to_path_buf(), project.layout));
        }
        Ok(project)
    }

    /// Reads `<root>/PROJECT`.
    pub fn load(root: &Path) -> Result<Self, ProjectError> {
        let path = root.join(PROJECT_FILE);
        let text =
            std::fs::read_to_string(&path).map_err(|e| ProjectError::Read(path.clone(), e))?;
        Project::from_yaml(&path, &text)
    }

    /// Rewrites `<root>/PROJECT` atomically, so an interrupted write never leaves half a file.
    pub fn save(&self, root: &Path) -> Result<(), ProjectError> {
        let path = root.join(PROJECT_FILE);
        crate::fsutil::write_atomic(&path, self.to_yaml().as_bytes())
            .map_err(|e| ProjectError::Write(path, e))
    }
}

/// Walks up from `start` to the first directory holding a `PROJECT` file.
pub fn find_root(start: &Path) -> Result<PathBuf, ProjectError> {
    let start = start
        .canonicalize()
        .map_err(|e| ProjectError::Read(start.to_path_buf(), e))?;
    start
        .ancestors()
        .find(|dir| dir.join(PROJECT_FILE).is_file())
        .map(Path::to_path_buf)
        .ok_or(ProjectError::NotFound(start))
}

/// The project root and its `PROJECT`, found from the current directory.
pub fn load_current() -> Result<(PathBuf, Project), ProjectError> {
    let cwd = std::env::current_dir().map_err(|e| ProjectError::Read(PathBuf::from("."), e))?;
    let root = find_root(&cwd)?;
    let project = Project::load(&root)?;
    Ok((root, project))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_through_yaml() {
        let mut project = Project::new(ProjectType::Helm, "rancher-op", "example.com");
        project.resources.push(Resource {
            group: "rancher.com".into(),
            version: "v1alpha1".into(),
            kind: "Rancher".into(),
            plural: "ranchers".into(),
            chart: Some("helm-charts/rancher".into()),
        });
        project.image = Some("registry.example.com/me/rancher-op:v0.1.6".into());
        let text = project.to_yaml();
        assert!(text.contains("type: helm"), "{text}");
        let back = Project::from_yaml(Path::new("PROJECT"), &text).unwrap();
        assert_eq!(back, project);
    }

    #[test]
    fn a_project_without_a_runtime_is_a_helm_operator_project() {
        let old =
            "layout: \"1\"\ntype: helm\nprojectName: old\ndomain: example.com\nresources: []\n";
        let project = Project::from_yaml(Path::new("PROJECT"), old).unwrap();
        assert_eq!(project.runtime, None);
        assert_eq!(project.helm_runtime(), HelmRuntime::HelmOperator);

        // A new project records its runtime, so a later change of default never moves it.
        let mut project = Project::new(ProjectType::Helm, "new", "example.com");
        assert!(project.to_yaml().contains("runtime: operator-rs"));
        project.runtime = Some(HelmRuntime::HelmOperator);
        let text = project.to_yaml();
        assert!(text.contains("runtime: helm-operator"), "{text}");
        let back = Project::from_yaml(Path::new("PROJECT"), &text).unwrap();
        assert_eq!(back.helm_runtime(), HelmRuntime::HelmOperator);
        // A Rust project has no runtime to choose.
        let rust = Project::new(ProjectType::Rust, "r", "example.com");
        assert!(!rust.to_yaml().contains("runtime"));
    }

    #[test]
    fn finds_the_root_from_a_subdirectory() {
        let dir = tempfile::tempdir().unwrap();
        let project = Project::new(ProjectType::Rust, "demo", "example.com");
        project.save(dir.path()).unwrap();
        let nested = dir.path().join("src/api");
        std::fs::create_dir_all(&nested).unwrap();
        assert_eq!(
            find_root(&nested).unwrap(),
            dir.path().canonicalize().unwrap()
        );
        let outside = tempfile::tempdir().unwrap();
        let err = find_root(outside.path()).unwrap_err().to_string();
        assert!(err.contains("operator-rs new"), "{err}");
    }
}
