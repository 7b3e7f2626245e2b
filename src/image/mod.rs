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
    find_on_path, push_arguments,
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

#[cfg(test)]
mod tests {
    use super::*;

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
