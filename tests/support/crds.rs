//! Sample custom resources judged against the schema of their own CRD.

use std::path::Path;

use super::openapi;

/// Every `deploy/crds/*_crd.yaml` schema is structural, and every sample `*_cr.yaml` validates
/// against the schema of the CRD served for its apiVersion and kind.
pub fn assert_samples_match_crds(project: &Path) {
    let dir = project.join("deploy/crds");
    let mut crds = Vec::new();
    let mut samples = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("deploy/crds") {
        let path = entry.expect("entry").path();
        let text = std::fs::read_to_string(&path).expect("read");
        let value: serde_json::Value = operator_rs::yaml::from_str(&text)
            .unwrap_or_else(|e| panic!("{} is not YAML: {e}", path.display()));
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.ends_with("_crd.yaml") {
            crds.push((name, value));
        } else if name.ends_with("_cr.yaml") {
            samples.push((name, value));
        }
    }
    assert!(!samples.is_empty(), "no samples in {}", dir.display());
    for (name, crd) in &crds {
        for version in crd["spec"]["versions"].as_array().expect("versions") {
            let schema = &version["schema"]["openAPIV3Schema"];
            let problems = openapi::structural_problems(schema);
            assert!(
                problems.is_empty(),
                "{name} {}: {problems:#?}",
                version["name"]
            );
        }
    }
    for (name, sample) in &samples {
        let (group, version) = sample["apiVersion"]
            .as_str()
            .and_then(|v| v.split_once('/'))
            .expect("sample apiVersion");
        let kind = sample["kind"].as_str().expect("sample kind");
        let schema = crds
            .iter()
            .filter(|(_, crd)| {
                crd["spec"]["group"] == group && crd["spec"]["names"]["kind"] == kind
            })
            .flat_map(|(_, crd)| {
                crd["spec"]["versions"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default()
            })
            .find(|v| v["name"] == version)
            .map(|v| v["schema"]["openAPIV3Schema"].clone())
            .unwrap_or_else(|| panic!("{name}: no CRD serves {group}/{version} {kind}"));
        // The API server checks apiVersion, kind and metadata itself; kube-derive's schemas
        // leave them out of the root's properties.
        let sample = serde_json::json!({ "spec": sample["spec"] });
        if let Err(errors) = openapi::validate(&schema, &sample) {
            panic!("{name} does not validate against its CRD: {errors:#?}");
        }
    }
}

/// Each version of a CRD, in its order: name, served, storage.
pub fn versions(crd: &serde_json::Value) -> Vec<(&str, bool, bool)> {
    crd["spec"]["versions"]
        .as_array()
        .expect("spec.versions")
        .iter()
        .map(|v| {
            (
                v["name"].as_str().expect("version name"),
                v["served"].as_bool().expect("served"),
                v["storage"].as_bool().expect("storage"),
            )
        })
        .collect()
}
