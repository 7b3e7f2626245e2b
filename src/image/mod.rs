//! Container images: references, the OCI labels operator-rs adds, and the builders (docker,
//! podman, buildah) that build and push them. This module and `kube` are the only ones that talk
//! to the outside world; like every domain module it never prints: output lines go to callbacks.

pub mod base_image;
mod builder;
pub mod labels;
pub mod local;
pub(crate) mod process;
mod reference;
pub mod runtime_binary;
pub mod steps;

pub use builder::{
    BuildRequest, Builder, BuilderKind, DEFAULT_DOCKER_SOCKET, ImageError, build_arguments,
    find_on_path, needs_buildkit, push_arguments,
};
pub use process::Stream;
pub use reference::{DEFAULT_TAG, ImageRef, ReferenceError};

/// Parses `KEY=VALUE` for `--build-arg` and `--label`; the value may contain `=` and be empty.
pub fn parse_key_value(text: &str) -> Result<(String, String), String> {
    let (key, value) = text.split_once('=').ok_or_else(|| {
        format!("\"{text}\" must be KEY=VALUE (for example BASE_IMAGE=localhost/helm-operator:dev)")
    })?;
    if key.is_empty() || key.chars().any(char::is_whitespace) {
        return Err(format!(
            "\"{text}\" must start with a key without spaces before '=' (for example BASE_IMAGE=localhost/helm-operator:dev)"
        ));
    }
    Ok((key.to_string(), value.to_string()))
}

/// Parses `--platform`: one `OS/ARCH[/VARIANT]` in lower case, as the builders take it.
pub fn parse_platform(text: &str) -> Result<String, String> {
    let parts: Vec<&str> = text.split('/').collect();
    let well_formed = (2..=3).contains(&parts.len())
        && parts.iter().all(|part| {
            !part.is_empty()
                && part
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        });
    if !well_formed {
        return Err(format!(
            "\"{text}\" must be one platform, OS/ARCH[/VARIANT] in lower case (for example linux/arm64)"
        ));
    }
    Ok(text.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_one_platform() {
        assert_eq!(parse_platform("linux/arm64"), Ok("linux/arm64".into()));
        assert_eq!(parse_platform("linux/arm/v7"), Ok("linux/arm/v7".into()));
        for bad in [
            "arm64",
            "linux/amd64,linux/arm64",
            "Linux/AMD64",
            "linux/",
            "a/b/c/d",
        ] {
            let error = parse_platform(bad).unwrap_err();
            assert!(error.contains(&format!("\"{bad}\"")), "{error}");
        }
    }

    #[test]
    fn parses_key_values() {
        assert_eq!(
            parse_key_value("A=b=c"),
            Ok(("A".to_string(), "b=c".to_string()))
        );
        assert_eq!(parse_key_value("A="), Ok(("A".to_string(), String::new())));
        assert!(parse_key_value("A").unwrap_err().contains("KEY=VALUE"));
        assert!(parse_key_value("=b").unwrap_err().contains("key"));
        assert!(parse_key_value("a b=c").unwrap_err().contains("key"));
    }
}
