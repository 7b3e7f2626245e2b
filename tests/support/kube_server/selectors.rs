//! Label selectors (`a=b`, `a==b`, `a!=b`, `a in (x,y)`, `a notin (x)`, `a`, `!a`) and field
//! selectors (`path=value`, `path==value`, `path!=value`) of lists, watches and
//! deletecollection, parsed once per request; a malformed one is a 400 as in Kubernetes.
//!
//! Field selectors: `metadata.name` and `metadata.namespace` everywhere, as the API server
//! allows. Custom resources allow nothing else (the CRD's `selectableFields` are not read);
//! built-in kinds accept any dotted path (`involvedObject.kind`, `type`, `spec.nodeName`...),
//! which is more than the real server accepts for some kinds, never less for the fields
//! clients use.

use serde_json::Value;

#[derive(Debug, Clone, PartialEq, Eq)]
enum Requirement {
    Equals(String, String),
    NotEquals(String, String),
    In(String, Vec<String>),
    NotIn(String, Vec<String>),
    Exists(String),
    NotExists(String),
}

/// What a list or watch selects.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selector {
    labels: Vec<Requirement>,
    /// (path, wanted equal, value)
    fields: Vec<(String, bool, String)>,
}

impl Selector {
    /// Parses `labelSelector` and `fieldSelector`; `custom` restricts fields to metadata's.
    pub fn parse(labels: Option<&str>, fields: Option<&str>, custom: bool) -> Result<Self, String> {
        let labels = match labels {
            Some(text) => split_top_level(text)
                .into_iter()
                .map(|term| requirement(&term))
                .collect::<Result<Vec<_>, _>>()?,
            None => Vec::new(),
        };
        let fields = match fields {
            Some(text) => split_top_level(text)
                .into_iter()
                .map(|term| field_term(&term, custom))
                .collect::<Result<Vec<_>, _>>()?,
            None => Vec::new(),
        };
        Ok(Selector { labels, fields })
    }

    pub fn matches(&self, object: &Value) -> bool {
        let label = |k: &str| object["metadata"]["labels"].get(k).and_then(Value::as_str);
        let labels_ok = self.labels.iter().all(|r| match r {
            Requirement::Equals(k, v) => label(k) == Some(v.as_str()),
            Requirement::NotEquals(k, v) => label(k) != Some(v.as_str()),
            Requirement::In(k, vs) => label(k).is_some_and(|l| vs.iter().any(|v| v == l)),
            Requirement::NotIn(k, vs) => label(k).is_none_or(|l| vs.iter().all(|v| v != l)),
            Requirement::Exists(k) => label(k).is_some(),
            Requirement::NotExists(k) => label(k).is_none(),
        });
        let field = |path: &str| {
            let pointer = format!("/{}", path.replace('.', "/"));
            match object.pointer(&pointer) {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Null) | None => String::new(),
                Some(other) => other.to_string(),
            }
        };
        let fields_ok = self
            .fields
            .iter()
            .all(|(path, equal, value)| (field(path) == *value) == *equal);
        labels_ok && fields_ok
    }
}

/// Splits on commas outside parentheses.
fn split_top_level(text: &str) -> Vec<String> {
    let mut terms = Vec::new();
    let mut depth = 0;
    let mut current = String::new();
    for c in text.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                terms.push(std::mem::take(&mut current));
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    terms.push(current);
    terms
        .into_iter()
        .map(|t| t.trim().to_string())
        .filter(|t| !t.is_empty())
        .collect()
}

fn valid_key(key: &str) -> bool {
    !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./".contains(c))
}

fn valid_value(value: &str) -> bool {
    value
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
}

fn requirement(term: &str) -> Result<Requirement, String> {
    let invalid = || {
        format!(
            "unable to parse requirement: found '{term}', expected: a valid label selector term"
        )
    };
    let key_of = |k: &str| {
        let k = k.trim();
        if valid_key(k) {
            Ok(k.to_string())
        } else {
            Err(invalid())
        }
    };
    let value_of = |v: &str| {
        let v = v.trim();
        if valid_value(v) {
            Ok(v.to_string())
        } else {
            Err(invalid())
        }
    };
    for (word, is_in) in [(" notin ", false), (" in ", true)] {
        if let Some((key, rest)) = term.split_once(word) {
            let list = rest
                .trim()
                .strip_prefix('(')
                .and_then(|r| r.strip_suffix(')'))
                .ok_or_else(invalid)?;
            let values = list
                .split(',')
                .map(value_of)
                .collect::<Result<Vec<_>, _>>()?;
            let key = key_of(key)?;
            return Ok(if is_in {
                Requirement::In(key, values)
            } else {
                Requirement::NotIn(key, values)
            });
        }
    }
    if let Some((k, v)) = term.split_once("!=") {
        return Ok(Requirement::NotEquals(key_of(k)?, value_of(v)?));
    }
    if let Some((k, v)) = term.split_once("==").or_else(|| term.split_once('=')) {
        return Ok(Requirement::Equals(key_of(k)?, value_of(v)?));
    }
    if let Some(k) = term.strip_prefix('!') {
        return Ok(Requirement::NotExists(key_of(k)?));
    }
    Ok(Requirement::Exists(key_of(term)?))
}

fn field_term(term: &str, custom: bool) -> Result<(String, bool, String), String> {
    let (path, equal, value) = if let Some((k, v)) = term.split_once("!=") {
        (k, false, v)
    } else if let Some((k, v)) = term.split_once("==").or_else(|| term.split_once('=')) {
        (k, true, v)
    } else {
        return Err(format!(
            "invalid selector: '{term}'; can't understand '{term}'"
        ));
    };
    let path = path.trim();
    let metadata = path == "metadata.name" || path == "metadata.namespace";
    if (custom && !metadata) || !valid_key(path) {
        return Err(format!("field label not supported: {path}"));
    }
    Ok((path.to_string(), equal, value.trim().to_string()))
}
