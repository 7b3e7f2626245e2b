//! `install.yaml`: every object of `deploy/`, filled in as `deploy` fills it and in the order
//! `deploy` applies it, after the Namespace, so that `kubectl apply --server-side -f` on an
//! empty cluster makes what `operator-rs deploy` makes.

use crate::image::ImageRef;
use crate::manifests::{self, Bundle, Manifest, Settings, Stage};
use crate::project::Project;

use super::ShipError;

pub const INSTALL_FILE: &str = "install.yaml";
pub const CRDS_FILE: &str = "crds.yaml";

/// The texts of the files to write.
#[derive(Debug, Clone, PartialEq)]
pub struct BundleFiles {
    pub install: String,
    /// With `--crds-separately`: the CRDs, apart from `install`.
    pub crds: Option<String>,
}

impl BundleFiles {
    pub fn files(&self) -> Vec<(&'static str, &str)> {
        let mut files = vec![(INSTALL_FILE, self.install.as_str())];
        if let Some(crds) = &self.crds {
            files.push((CRDS_FILE, crds.as_str()));
        }
        files
    }
}

/// The bundle of `deploy` (`bundle` as `manifests::load` read it, without samples) for
/// `namespace` and `image`.
pub fn assemble(
    project: &Project,
    bundle: &Bundle,
    image: Option<&ImageRef>,
    namespace: &str,
    crds_separately: bool,
) -> Result<BundleFiles, ShipError> {
    let image_text = image.map(ImageRef::to_string);
    let settings = Settings {
        image: image_text.as_deref(),
        namespace,
    };
    let filled = bundle.filled(&settings, &bundle.offline_scope());
    filled.check_placeholders()?;

    let namespace_object = Manifest::namespace_object(namespace);
    let names_namespace = filled
        .manifests
        .iter()
        .any(|m| m.group().is_empty() && m.kind() == "Namespace" && m.name() == namespace);
    let mut crds: Vec<&Manifest> = Vec::new();
    let mut rest: Vec<&Manifest> = Vec::new();
    if !names_namespace {
        rest.push(&namespace_object);
    }
    for (stage, stage_manifests) in manifests::staged(&filled) {
        if stage == Stage::Crds && crds_separately {
            crds.extend(stage_manifests);
        } else {
            rest.extend(stage_manifests);
        }
    }
    let name = &project.project_name;
    let image_text = match &image_text {
        Some(image) => format!("image {image}"),
        None => "images as deploy/ names them".to_string(),
    };
    let install_header = if crds_separately {
        format!(
            "# The {name} operator in namespace \"{namespace}\", {image_text}.\n# Apply crds.yaml first, then: kubectl apply --server-side -f install.yaml\n"
        )
    } else {
        format!(
            "# The {name} operator in namespace \"{namespace}\", {image_text}, with its CRDs.\n# Install it with: kubectl apply --server-side -f install.yaml\n"
        )
    };
    let footer = "# Written by `operator-rs generate bundle` from deploy/: change deploy/ and generate it again\n# rather than editing this file.\n";
    let install = format!("{install_header}{footer}---\n{}", manifests::render(rest));
    check_no_placeholder(INSTALL_FILE, &install)?;
    let crds = if crds_separately {
        let text = format!(
            "# The CustomResourceDefinitions of the {name} operator: kubectl apply --server-side -f crds.yaml\n{footer}---\n{}",
            manifests::render(crds)
        );
        check_no_placeholder(CRDS_FILE, &text)?;
        Some(text)
    } else {
        None
    };
    Ok(BundleFiles { install, crds })
}

/// A placeholder anywhere in the text, prose included: the file goes to people who cannot
/// run operator-rs to fill it in.
fn check_no_placeholder(file: &str, text: &str) -> Result<(), ShipError> {
    for (at, _) in text.match_indices("REPLACE_") {
        let token: String = text[at..]
            .chars()
            .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == '_')
            .collect();
        if token.len() > "REPLACE_".len() {
            return Err(ShipError::PlaceholderLeft(file.to_string(), token));
        }
    }
    Ok(())
}
