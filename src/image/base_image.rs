//! operator-rs's base image: the operator-rs binary, with the Helm operator runtime as its
//! entrypoint, which the build/Dockerfile of a `runtime: operator-rs` project builds FROM (as
//! helm-operator projects build FROM the helm-operator image). The repository's Dockerfile
//! makes it and `.github/workflows/release.yaml` publishes it for each release as
//! [`published`]. `build` makes it locally instead from an operator-rs binary that can run
//! in the image ([`LocalBase`]), so nothing is pulled and the operator runs exactly the
//! operator-rs the user has.

use std::path::Path;

use sha2::{Digest, Sha256};

/// Where releases publish the base image; its tag is operator-rs's version.
pub const REPOSITORY: &str = "ghcr.io/operator-rs/operator-rs";

/// The build argument of a project's build/Dockerfile that names its base image.
pub const BUILD_ARG: &str = "BASE_IMAGE";

/// The build argument, meant for `build` itself, that names what a locally made base image
/// builds on; it is not passed on to the project's build.
pub const RUNTIME_BASE_ARG: &str = "RUNTIME_BASE_IMAGE";

/// What a base image made from a binary builds on: glibc's libc, libm, the loader and
/// libgcc_s (which operator-rs links against) and nothing else, as in the repository's
/// Dockerfile.
pub const RUNTIME_BASE_DEFAULT: &str = "gcr.io/distroless/cc-debian12:nonroot";

/// The published base image of this version of operator-rs.
pub fn published() -> String {
    format!("{REPOSITORY}:{}", env!("CARGO_PKG_VERSION"))
}

/// The Dockerfile of a base image made from a binary already built: the last stage of the
/// repository's Dockerfile.
const LOCAL_DOCKERFILE: &str = r#"# operator-rs's base image, made by `operator-rs build` from the operator-rs binary next to
# this file (the last stage of operator-rs's own Dockerfile).
ARG BASE_IMAGE=gcr.io/distroless/cc-debian12:nonroot
FROM ${BASE_IMAGE}
COPY operator-rs /usr/local/bin/operator-rs
USER 65532:65532
ENV HOME=/opt/helm
WORKDIR /opt/helm
ENTRYPOINT ["/usr/local/bin/operator-rs", "helm-operator-runtime"]
"#;

/// The build context of a base image made from `binary`, in a temporary directory removed
/// on drop, and the image's name: the version and the binary's digest, so that the same
/// binary makes the same name and another binary never passes for it.
pub struct LocalBase {
    dir: tempfile::TempDir,
    pub image: String,
}

impl LocalBase {
    pub fn prepare(binary: &Path) -> std::io::Result<LocalBase> {
        let bytes = std::fs::read(binary)?;
        let digest = format!("{:x}", Sha256::digest(&bytes));
        let dir = tempfile::Builder::new()
            .prefix("operator-rs-base-")
            .tempdir()?;
        let copy = dir.path().join("operator-rs");
        std::fs::write(&copy, &bytes)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&copy, std::fs::Permissions::from_mode(0o755))?;
        }
        std::fs::write(dir.path().join("Dockerfile"), LOCAL_DOCKERFILE)?;
        Ok(LocalBase {
            dir,
            image: format!(
                "localhost/operator-rs-base:{}-{}",
                env!("CARGO_PKG_VERSION"),
                &digest[..12]
            ),
        })
    }

    pub fn context(&self) -> &Path {
        self.dir.path()
    }

    pub fn dockerfile(&self) -> std::path::PathBuf {
        self.dir.path().join("Dockerfile")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_published_image_is_of_this_version() {
        assert_eq!(
            published(),
            format!(
                "ghcr.io/operator-rs/operator-rs:{}",
                env!("CARGO_PKG_VERSION")
            )
        );
    }

    #[test]
    fn the_release_workflow_publishes_under_this_name() {
        let workflow = include_str!("../../.github/workflows/release.yaml");
        assert!(
            workflow.contains(&format!("IMAGE: {REPOSITORY}\n")),
            "{workflow}"
        );
    }

    #[test]
    fn the_local_base_is_the_repository_dockerfiles_last_stage() {
        let root = include_str!("../../Dockerfile");
        for line in LOCAL_DOCKERFILE.lines().filter(|l| {
            l.starts_with("USER") || l.starts_with("ENTRYPOINT") || l.starts_with("WORKDIR")
        }) {
            assert!(root.contains(line), "{line}");
        }
        assert!(root.contains(&format!("ARG BASE_IMAGE={RUNTIME_BASE_DEFAULT}")));
        assert!(LOCAL_DOCKERFILE.contains(&format!("ARG BASE_IMAGE={RUNTIME_BASE_DEFAULT}")));
    }

    #[test]
    fn a_binary_names_its_base_by_digest() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a");
        let b = dir.path().join("b");
        std::fs::write(&a, b"one").unwrap();
        std::fs::write(&b, b"two").unwrap();
        let base_a = LocalBase::prepare(&a).unwrap();
        assert_eq!(LocalBase::prepare(&a).unwrap().image, base_a.image);
        assert_ne!(LocalBase::prepare(&b).unwrap().image, base_a.image);
        assert!(base_a.context().join("operator-rs").is_file());
        assert!(base_a.dockerfile().is_file());
    }
}
