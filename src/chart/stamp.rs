//! `--set-chart-version`: writing a release version into an unreleased chart's `Chart.yaml`
//! (rancher's `version: %VERSION%`), the way its release process would, and nothing else: every
//! byte outside the replaced values stays as it was.

/// What [`set_version`] changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stamped {
    pub text: String,
    /// The top-level keys whose values were written (`version`, maybe `appVersion`).
    pub keys: Vec<&'static str>,
}

/// Writes `version` as the value of the top-level `version:` line (added at the end when there
/// is none) and, when the `appVersion:` value is not a valid YAML value either, as that too.
/// `version` must already be a semantic version.
pub fn set_version(text: &str, version: &str) -> Stamped {
    let mut keys = Vec::new();
    let mut out = String::with_capacity(text.len() + version.len());
    for line in text.split_inclusive('\n') {
        if let Some(replaced) = replace_value(line, "version", version) {
            keys.push("version");
            out.push_str(&replaced);
        } else if let Some(replaced) = (!value_parses(line, "appVersion"))
            .then(|| replace_value(line, "appVersion", version))
            .flatten()
        {
            keys.push("appVersion");
            out.push_str(&replaced);
        } else {
            out.push_str(line);
        }
    }
    if !keys.contains(&"version") {
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&format!("version: {version}\n"));
        keys.insert(0, "version");
    }
    Stamped { text: out, keys }
}

/// `line` with the value of top-level `key` replaced, keeping the key, the spacing after the
/// colon and the line ending; `None` when the line does not set `key`.
fn replace_value(line: &str, key: &str, value: &str) -> Option<String> {
    let rest = line.strip_prefix(key)?.strip_prefix(':')?;
    let body = rest.trim_end_matches(['\n', '\r']);
    let ending = &rest[body.len()..];
    let spacing = &body[..body.len() - body.trim_start().len()];
    if spacing.is_empty() && !body.is_empty() {
        // `version:x` is not a `version` key in YAML.
        return None;
    }
    let spacing = if spacing.is_empty() { " " } else { spacing };
    Some(format!("{key}:{spacing}{value}{ending}"))
}

/// Does the top-level `key` line hold a value YAML can read on its own? A line that is not
/// that key counts as fine.
fn value_parses(line: &str, key: &str) -> bool {
    if replace_value(line, key, "").is_none() {
        return true;
    }
    crate::yaml::from_str::<serde_json::Value>(line)
        .is_ok_and(|v| v.get(key).is_some_and(|v| !(v.is_object() || v.is_array())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_replaced_and_nothing_else() {
        let text = "apiVersion: v2\r\nname: rancher\r\nversion: %VERSION%\r\nappVersion: %APP_VERSION%\r\nkubeVersion: < 1.37.0-0\r\n";
        let stamped = set_version(text, "2.13.0");
        assert_eq!(
            stamped.text,
            "apiVersion: v2\r\nname: rancher\r\nversion: 2.13.0\r\nappVersion: 2.13.0\r\nkubeVersion: < 1.37.0-0\r\n"
        );
        assert_eq!(stamped.keys, ["version", "appVersion"]);
    }

    #[test]
    fn a_valid_app_version_and_nested_versions_stay() {
        let text = "name: x\nversion: \"bad\"\nappVersion: v1.0\ndependencies:\n  - name: y\n    version: 1.x\n";
        let stamped = set_version(text, "1.2.3");
        assert_eq!(
            stamped.text,
            "name: x\nversion: 1.2.3\nappVersion: v1.0\ndependencies:\n  - name: y\n    version: 1.x\n"
        );
        assert_eq!(stamped.keys, ["version"]);
    }

    #[test]
    fn a_missing_version_is_added() {
        let stamped = set_version("name: x", "0.1.0");
        assert_eq!(stamped.text, "name: x\nversion: 0.1.0\n");
        assert_eq!(stamped.keys, ["version"]);
    }
}
