//! Kubernetes label selectors (`matchLabels` and `matchExpressions`), checked the way the API
//! machinery's `LabelSelectorAsSelector` checks them, so that a selector the helm-operator
//! refuses at start-up is refused here too, and rendered as the `labelSelector` query string.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// A label selector as written in YAML. Empty (no labels, no expressions) selects everything.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LabelSelector {
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub match_labels: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub match_expressions: Vec<Expression>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Expression {
    pub key: String,
    pub operator: String,
    #[serde(default)]
    pub values: Vec<String>,
}

impl LabelSelector {
    pub fn is_empty(&self) -> bool {
        self.match_labels.is_empty() && self.match_expressions.is_empty()
    }

    /// Checks every key, value and operator; the message names the offending part.
    pub fn validate(&self) -> Result<(), String> {
        for (key, value) in &self.match_labels {
            check_key(key).map_err(|e| format!("matchLabels key {key:?}: {e}"))?;
            check_value(value).map_err(|e| format!("matchLabels {key:?} value {value:?}: {e}"))?;
        }
        for (i, expression) in self.match_expressions.iter().enumerate() {
            let at = format!("matchExpressions[{i}] (key {:?})", expression.key);
            check_key(&expression.key).map_err(|e| format!("{at}: {e}"))?;
            match expression.operator.as_str() {
                "In" | "NotIn" if expression.values.is_empty() => {
                    return Err(format!(
                        "{at}: operator {} needs at least one value",
                        expression.operator
                    ));
                }
                "In" | "NotIn" => {}
                "Exists" | "DoesNotExist" if !expression.values.is_empty() => {
                    return Err(format!(
                        "{at}: operator {} takes no values, but {} are given",
                        expression.operator,
                        expression.values.len()
                    ));
                }
                "Exists" | "DoesNotExist" => {}
                other => {
                    return Err(format!(
                        "{at}: {other:?} is not a label selector operator: use In, NotIn, Exists or DoesNotExist"
                    ));
                }
            }
            for value in &expression.values {
                check_value(value).map_err(|e| format!("{at} value {value:?}: {e}"))?;
            }
        }
        Ok(())
    }

    /// The `labelSelector` query parameter, requirements sorted by key as the API machinery
    /// prints them. Call [`LabelSelector::validate`] first: nothing is escaped here because
    /// valid keys and values need no escaping.
    pub fn to_query(&self) -> String {
        let mut parts: Vec<(String, String)> = self
            .match_labels
            .iter()
            .map(|(k, v)| (k.clone(), format!("{k}={v}")))
            .collect();
        for e in &self.match_expressions {
            let mut values = e.values.clone();
            values.sort();
            values.dedup();
            let text = match e.operator.as_str() {
                "In" => format!("{} in ({})", e.key, values.join(",")),
                "NotIn" => format!("{} notin ({})", e.key, values.join(",")),
                "Exists" => e.key.clone(),
                _ => format!("!{}", e.key),
            };
            parts.push((e.key.clone(), text));
        }
        parts.sort_by(|a, b| a.0.cmp(&b.0));
        parts
            .into_iter()
            .map(|(_, t)| t)
            .collect::<Vec<_>>()
            .join(",")
    }

    /// Whether an object with these labels is selected.
    pub fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        self.match_labels
            .iter()
            .all(|(k, v)| labels.get(k) == Some(v))
            && self.match_expressions.iter().all(|e| {
                let value = labels.get(&e.key);
                match e.operator.as_str() {
                    "In" => value.is_some_and(|v| e.values.contains(v)),
                    "NotIn" => value.is_none_or(|v| !e.values.contains(v)),
                    "Exists" => value.is_some(),
                    _ => value.is_none(),
                }
            })
    }
}

/// A label name: up to 63 characters of `[A-Za-z0-9-_.]`, starting and ending alphanumeric.
fn is_label_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    !bytes.is_empty()
        && bytes.len() <= 63
        && bytes.first().is_some_and(u8::is_ascii_alphanumeric)
        && bytes.last().is_some_and(u8::is_ascii_alphanumeric)
        && bytes
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}

/// A label key: a name, optionally behind a DNS subdomain prefix and a slash.
fn check_key(key: &str) -> Result<(), String> {
    let (prefix, name) = match key.split_once('/') {
        Some((prefix, name)) => (Some(prefix), name),
        None => (None, key),
    };
    if let Some(prefix) = prefix
        && !crate::names::is_dns_subdomain(prefix)
    {
        return Err(format!(
            "the prefix {prefix:?} must be a DNS subdomain (lower-case letters, digits, '-' and '.', for example example.com)"
        ));
    }
    if !is_label_name(name) {
        return Err("a label name must be 1 to 63 characters of letters, digits, '-', '_' or '.', starting and ending with a letter or digit".to_string());
    }
    Ok(())
}

fn check_value(value: &str) -> Result<(), String> {
    if value.is_empty() || is_label_name(value) {
        Ok(())
    } else {
        Err("a label value must be empty or 1 to 63 characters of letters, digits, '-', '_' or '.', starting and ending with a letter or digit".to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn selector(yaml: &str) -> LabelSelector {
        crate::yaml::from_str(yaml).unwrap()
    }

    #[test]
    fn renders_the_query_sorted_by_key() {
        let s = selector(
            "matchLabels: {tier: web}\nmatchExpressions:\n- {key: env, operator: In, values: [prod, dev]}\n- {key: zone, operator: DoesNotExist}\n- {key: app, operator: Exists}\n- {key: k, operator: NotIn, values: [a]}\n",
        );
        s.validate().unwrap();
        assert_eq!(
            s.to_query(),
            "app,env in (dev,prod),k notin (a),tier=web,!zone"
        );
        assert_eq!(LabelSelector::default().to_query(), "");
    }

    #[test]
    fn matches_like_the_api_server() {
        let s = selector(
            "matchLabels: {tier: web}\nmatchExpressions:\n- {key: env, operator: NotIn, values: [prod]}\n",
        );
        let labels = |pairs: &[(&str, &str)]| {
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect::<BTreeMap<_, _>>()
        };
        assert!(s.matches(&labels(&[("tier", "web")])));
        assert!(s.matches(&labels(&[("tier", "web"), ("env", "dev")])));
        assert!(!s.matches(&labels(&[("tier", "web"), ("env", "prod")])));
        assert!(!s.matches(&labels(&[("env", "dev")])));
        assert!(LabelSelector::default().matches(&labels(&[])));
    }

    #[test]
    fn refuses_what_the_api_machinery_refuses() {
        let err = |yaml: &str| selector(yaml).validate().unwrap_err();
        assert!(
            err("matchExpressions: [{key: a, operator: In}]").contains("needs at least one value")
        );
        assert!(
            err("matchExpressions: [{key: a, operator: Exists, values: [x]}]")
                .contains("takes no values")
        );
        assert!(
            err("matchExpressions: [{key: a, operator: in, values: [x]}]")
                .contains("\"in\" is not a label selector operator")
        );
        assert!(err("matchLabels: {\"-a\": x}").contains("label name"));
        assert!(err("matchLabels: {\"Example.com/a\": x}").contains("prefix"));
        assert!(err("matchLabels: {a: \"x y\"}").contains("label value"));
        selector("matchLabels: {example.com/a: \"\"}")
            .validate()
            .unwrap();
    }
}
