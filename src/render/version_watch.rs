//! Would a render have come out the same on another Kubernetes version?
//!
//! The probe renders a chart that reads `.Capabilities` on the newest and the oldest supported
//! Kubernetes. Most such charts ask only `semverCompare "<1.25-0"`-like questions that both
//! answer alike (Bitnami's `common` library asks on every render), so the second render is
//! mostly work thrown away. A render watched for the other version says whether it would
//! have come out the same there; only when it would not (or cannot tell) is the other rendered.
//!
//! Both versions differ in `.Version`/`.GitVersion`/`String` (followed by the template
//! engine's [`Substitution`]), in `.Minor` and in the whole version as a value (`toYaml`):
//! `.Capabilities` reports those last reads, which a substitution cannot follow. The API
//! versions are the same for both, and a chart's `kubeVersion` is checked for both.

use std::sync::{Arc, Mutex};

use gotemplate::Substitution;

use super::capabilities::{Capabilities, KubeVersion};

/// What templates read of the Kubernetes version besides its version string, as
/// `.Capabilities` reports it.
#[derive(Debug, Default)]
pub struct VersionReads(Mutex<Vec<&'static str>>);

impl VersionReads {
    pub fn record(&self, what: &'static str) {
        let mut reads = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if !reads.contains(&what) {
            reads.push(what);
        }
    }

    fn all(&self) -> Vec<&'static str> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// A render on one Kubernetes version, watched for another.
pub struct KubeVersionWatch {
    rendered_on: KubeVersion,
    other: KubeVersion,
    pub(super) substitution: Substitution,
    pub(super) reads: Arc<VersionReads>,
    kube_version_check_differs: bool,
}

impl KubeVersionWatch {
    /// `None` when the two versions differ in a way only a second render can tell: a
    /// `String()` that is not the version as given (`v1.33.4-gke.1` prints `v1.33.4-gke.1`,
    /// `1.33` prints `v1.33.0`), or the same version string.
    pub fn new(rendered_on: &KubeVersion, other: &KubeVersion) -> Option<KubeVersionWatch> {
        if rendered_on.version != rendered_on.normalized || other.version != other.normalized {
            return None;
        }
        Some(KubeVersionWatch {
            substitution: Substitution::new(&rendered_on.version, &other.version)?,
            rendered_on: rendered_on.clone(),
            other: other.clone(),
            reads: Arc::default(),
            kube_version_check_differs: false,
        })
    }

    /// The capabilities of the other version (the same API versions).
    pub(super) fn other_capabilities(&self, rendered_on: &Capabilities) -> Capabilities {
        Capabilities {
            kube_version: self.other.clone(),
            api_versions: rendered_on.api_versions.clone(),
        }
    }

    /// The chart's `kubeVersion` accepts one of the two versions and not the other.
    pub(super) fn kube_version_check_differs(&mut self) {
        self.kube_version_check_differs = true;
    }

    /// `Ok` when the other version would have rendered the same; else what could differ.
    pub fn same_on_other(&self) -> Result<(), String> {
        if self.kube_version_check_differs {
            return Err("the chart's kubeVersion accepts only one of the two".to_string());
        }
        if let Some(why) = self.substitution.broken_by() {
            return Err(why.to_string());
        }
        let majors_differ = self.rendered_on.major != self.other.major;
        match self
            .reads
            .all()
            .into_iter()
            .find(|read| *read != "Major" || majors_differ)
        {
            Some(read) => Err(format!(".Capabilities.KubeVersion: {read} read")),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_whose_strings_are_not_what_they_print_are_not_watched() {
        let v = |s: &str| KubeVersion::parse(s).unwrap();
        assert!(KubeVersionWatch::new(&v("v1.36.0"), &v("v1.33.0")).is_some());
        assert!(KubeVersionWatch::new(&v("v1.36.0"), &v("1.33")).is_none());
        assert!(KubeVersionWatch::new(&v("v1.36.0"), &v("v1.36.0")).is_none());
    }
}
