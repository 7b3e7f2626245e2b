//! Rules as the YAML of a role's `rules:` list, with each rule's comment above it, and back.

use thiserror::Error;

use super::Rule;

#[derive(Debug, Error)]
pub enum RulesError {
    #[error("the role is not valid YAML: {0}")]
    Yaml(String),
    #[error("the role has no `rules:` list; a Role or ClusterRole lists its rules under `rules:`")]
    NoRules,
    #[error(
        "rule {index} of the role is not a list of apiGroups, resources and verbs: {reason}; fix it by hand, then run the command again"
    )]
    BadRule { index: usize, reason: String },
    #[error(
        "rule {index} of the role uses `{field}`, which operator-rs does not merge (it would widen the rule); remove the field or merge the rules by hand"
    )]
    Unsupported { index: usize, field: String },
    #[error(
        "document {index} is {found}, not a Role or ClusterRole; the role file holds one Role and at most one ClusterRole"
    )]
    NotARole { index: usize, found: String },
    #[error(
        "document {index} is a second {kind}; the role file holds one Role and at most one ClusterRole: merge their rules by hand"
    )]
    Duplicate { index: usize, kind: String },
}

/// The rules of each document of a role file (`deploy/role.yaml`): a Role, a ClusterRole, or
/// one of each.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RoleFile {
    pub role: Option<Vec<Rule>>,
    pub cluster_role: Option<Vec<Rule>>,
}

/// Reads every document of a role file, each rule with the comment written above it.
pub fn roles_from_yaml(text: &str) -> Result<RoleFile, RulesError> {
    let mut file = RoleFile::default();
    let mut index = 0;
    for document in split_documents(text) {
        let value: serde_json::Value =
            crate::yaml::from_str(document).map_err(|e| RulesError::Yaml(e.to_string()))?;
        if value.is_null() {
            continue;
        }
        index += 1;
        let kind = value.get("kind").and_then(|k| k.as_str()).unwrap_or("");
        let slot = match kind {
            "Role" => &mut file.role,
            "ClusterRole" => &mut file.cluster_role,
            other => {
                return Err(RulesError::NotARole {
                    index,
                    found: if other.is_empty() {
                        "without a kind".to_string()
                    } else {
                        format!("a {other}")
                    },
                });
            }
        };
        if slot.is_some() {
            return Err(RulesError::Duplicate {
                index,
                kind: kind.to_string(),
            });
        }
        *slot = Some(rules_from_yaml(document)?);
    }
    Ok(file)
}

/// The documents of a YAML stream, split at `---` lines.
fn split_documents(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let bare = line.trim_end();
        if bare == "---" || bare.starts_with("--- ") {
            out.push(&text[start..offset]);
            start = offset + line.len();
        }
        offset += line.len();
    }
    out.push(&text[start..]);
    out
}

/// The `rules:` list as YAML text (starting with `rules:` at column 0), each rule preceded by
/// its comment lines.
pub fn rules_yaml(rules: &[Rule]) -> String {
    if rules.is_empty() {
        return "rules: []\n".to_string();
    }
    let mut out = String::from("rules:\n");
    for rule in rules {
        if let Some(comment) = &rule.comment {
            for line in comment.lines() {
                let line = line.trim_end();
                if line.is_empty() {
                    out.push_str("#\n");
                } else {
                    out.push_str("# ");
                    out.push_str(line);
                    out.push('\n');
                }
            }
        }
        for (index, (key, values)) in [
            ("apiGroups", &rule.api_groups),
            ("resources", &rule.resources),
            ("verbs", &rule.verbs),
        ]
        .into_iter()
        .enumerate()
        {
            out.push_str(if index == 0 { "- " } else { "  " });
            out.push_str(key);
            out.push_str(":\n");
            for value in values {
                out.push_str("  - ");
                out.push_str(&scalar(value));
                out.push('\n');
            }
        }
    }
    out
}

/// A YAML scalar: plain when it is a plain name (`pods/status`, `cert-manager.io`), quoted
/// otherwise (`""` for the core group).
fn scalar(value: &str) -> String {
    let plain = value.starts_with(|c: char| c.is_ascii_alphanumeric())
        && value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '/' | '_'))
        && !matches!(
            value,
            "true" | "false" | "null" | "yes" | "no" | "on" | "off" | "y" | "n"
        );
    if plain {
        value.to_string()
    } else {
        serde_json::Value::String(value.to_string()).to_string()
    }
}

/// The rules of a role file (a Role or ClusterRole document, or a bare `rules:` list), with
/// the comment lines written just above each rule. Used to merge new rules into a role a user
/// may have edited.
pub fn rules_from_yaml(text: &str) -> Result<Vec<Rule>, RulesError> {
    let value: serde_json::Value =
        crate::yaml::from_str(text).map_err(|e| RulesError::Yaml(e.to_string()))?;
    let items = value
        .get("rules")
        .and_then(|r| r.as_array())
        .ok_or(RulesError::NoRules)?;
    let comments = comments_above_items(text);
    let mut rules = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let index = i + 1;
        let object = item.as_object().ok_or_else(|| RulesError::BadRule {
            index,
            reason: "it is not a mapping".to_string(),
        })?;
        for field in object.keys() {
            if !matches!(field.as_str(), "apiGroups" | "resources" | "verbs") {
                return Err(RulesError::Unsupported {
                    index,
                    field: field.clone(),
                });
            }
        }
        let list = |key: &str| -> Result<Vec<String>, RulesError> {
            let values = match object.get(key) {
                None | Some(serde_json::Value::Null) => return Ok(Vec::new()),
                Some(v) => v.as_array().ok_or_else(|| RulesError::BadRule {
                    index,
                    reason: format!("`{key}` is not a list"),
                })?,
            };
            values
                .iter()
                .map(|v| {
                    v.as_str()
                        .map(str::to_string)
                        .ok_or_else(|| RulesError::BadRule {
                            index,
                            reason: format!("`{key}` holds {v}, which is not a string"),
                        })
                })
                .collect()
        };
        rules.push(Rule {
            api_groups: list("apiGroups")?,
            resources: list("resources")?,
            verbs: list("verbs")?,
            comment: None,
        });
    }
    // Comments are matched to rules by position only when every rule was found in the text.
    if comments.len() == rules.len() {
        for (rule, comment) in rules.iter_mut().zip(comments) {
            rule.comment = comment;
        }
    }
    Ok(rules)
}

/// For each item of the top-level `rules:` list, the `#` lines just above it.
fn comments_above_items(text: &str) -> Vec<Option<String>> {
    let mut out = Vec::new();
    let mut in_rules = false;
    let mut item_indent: Option<usize> = None;
    let mut pending: Vec<String> = Vec::new();
    for line in text.lines() {
        if !in_rules {
            in_rules = line.trim_end() == "rules:";
            continue;
        }
        let indent = line.len() - line.trim_start().len();
        let rest = line.trim_start();
        if rest.is_empty() {
            continue;
        }
        if let Some(comment) = rest.strip_prefix('#') {
            pending.push(comment.strip_prefix(' ').unwrap_or(comment).to_string());
            continue;
        }
        if indent == 0 && !rest.starts_with('-') {
            break;
        }
        let item = rest.starts_with("- ") || rest == "-";
        if item && *item_indent.get_or_insert(indent) == indent {
            let comment = std::mem::take(&mut pending);
            out.push((!comment.is_empty()).then(|| comment.join("\n")));
            continue;
        }
        pending.clear();
    }
    out
}
