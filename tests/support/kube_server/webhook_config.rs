//! `MutatingWebhookConfiguration` and `ValidatingWebhookConfiguration`
//! (`admissionregistration.k8s.io/v1`): what the API server checks when one is written, and
//! which of their webhooks a request matches.
//!
//! Matching, as the API server does it: `rules` (`operations`, `apiGroups`, `apiVersions`,
//! `resources` with subresources such as `*/status` or `widgets/*`, `scope`), then
//! `namespaceSelector` (the labels of the request's namespace, with the
//! `kubernetes.io/metadata.name` label every namespace has; a Namespace itself is matched by
//! its own labels; other cluster-scoped objects always match) and `objectSelector` (the labels
//! of the object or of the old object). With `matchPolicy: Equivalent` (the default) a request
//! through another version of the same resource matches a rule for a version the rule names.
//! Configurations are ordered by name and their webhooks kept in order, as the API server
//! orders them. Not read: `matchConditions` (CEL) and `reinvocationPolicy`.

use serde_json::Value;

use super::resources::ResourceType;
use super::store::{ApiError, Key, State};

pub const GROUP: &str = "admissionregistration.k8s.io";
pub const MUTATING: &str = "mutatingwebhookconfigurations";
pub const VALIDATING: &str = "validatingwebhookconfigurations";

/// One webhook of a configuration.
#[derive(Debug, Clone)]
pub struct Hook {
    pub configuration: String,
    pub name: String,
    pub mutating: bool,
    pub spec: Value,
}

impl Hook {
    /// `failurePolicy: Ignore`; `Fail` is the default.
    pub fn ignores_failures(&self) -> bool {
        self.spec["failurePolicy"] == "Ignore"
    }

    /// `timeoutSeconds`, 10 by default.
    pub fn timeout(&self) -> std::time::Duration {
        std::time::Duration::from_secs(self.spec["timeoutSeconds"].as_u64().unwrap_or(10))
    }

    /// Whether it may be called for a dry run: `sideEffects` None or NoneOnDryRun.
    pub fn allows_dry_run(&self) -> bool {
        matches!(
            self.spec["sideEffects"].as_str(),
            Some("None" | "NoneOnDryRun")
        )
    }

    fn equivalent(&self) -> bool {
        self.spec["matchPolicy"] != "Exact"
    }
}

/// What a request is, as rules see it.
#[derive(Debug, Clone)]
pub struct Request<'a> {
    pub t: &'a ResourceType,
    pub subresource: Option<&'a str>,
    /// CREATE, UPDATE or DELETE.
    pub operation: &'a str,
}

/// Every webhook of one kind of configuration, configurations in name order.
pub fn hooks(state: &State, plural: &str) -> Vec<Hook> {
    let mutating = plural == MUTATING;
    state
        .objects()
        .filter(|(k, _)| k.group == GROUP && k.plural == plural)
        .flat_map(|(k, configuration)| {
            configuration["webhooks"]
                .as_array()
                .cloned()
                .unwrap_or_default()
                .into_iter()
                .map(|spec| Hook {
                    configuration: k.name.clone(),
                    name: spec["name"].as_str().unwrap_or_default().to_string(),
                    mutating,
                    spec,
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Requests on webhook configurations never go to webhooks, so that a broken webhook can
/// always be removed.
pub fn exempt(t: &ResourceType) -> bool {
    t.group == GROUP
}

/// The version the webhook is called with for this request, if its rules match: the
/// request's own, or with `matchPolicy: Equivalent` the first of `versions` (the resource's
/// other served versions, in the CRD's order) that a rule names.
pub fn version_for(hook: &Hook, request: &Request<'_>, versions: &[String]) -> Option<String> {
    let rules = hook.spec["rules"].as_array().cloned().unwrap_or_default();
    let matches = |version: &str| rules.iter().any(|r| rule_matches(r, request, version));
    let own = request.t.version.as_str();
    if matches(own) {
        return Some(own.to_string());
    }
    if !hook.equivalent() {
        return None;
    }
    versions
        .iter()
        .filter(|v| v.as_str() != own)
        .find(|v| matches(v))
        .cloned()
}

fn listed(list: &Value, value: &str) -> bool {
    list.as_array()
        .into_iter()
        .flatten()
        .any(|v| v == "*" || v == value)
}

fn rule_matches(rule: &Value, request: &Request<'_>, version: &str) -> bool {
    let t = request.t;
    let scope = match rule["scope"].as_str().unwrap_or("*") {
        "Cluster" => !t.namespaced,
        "Namespaced" => t.namespaced,
        _ => true,
    };
    scope
        && listed(&rule["operations"], request.operation)
        && listed(&rule["apiGroups"], &t.group)
        && listed(&rule["apiVersions"], version)
        && rule["resources"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .any(|r| resource_matches(r, &t.plural, request.subresource))
}

/// `*` is every resource but no subresource, `*/*` everything, `r/*` every subresource of r,
/// `*/s` the subresource s of any resource.
fn resource_matches(pattern: &str, resource: &str, subresource: Option<&str>) -> bool {
    let (want_resource, want_sub) = match pattern.split_once('/') {
        Some((r, s)) => (r, Some(s)),
        None => (pattern, None),
    };
    let resource_ok = want_resource == "*" || want_resource == resource;
    let sub_ok = match (want_sub, subresource) {
        (None, None) => true,
        (Some("*"), Some(_)) => true,
        (Some(w), Some(s)) => w == s,
        _ => false,
    };
    resource_ok && sub_ok
}

/// The selectors: the namespace's labels and the object's (or the old object's).
pub fn selects(
    hook: &Hook,
    request: &Request<'_>,
    namespace_labels: Option<&Value>,
    object: Option<&Value>,
    old: Option<&Value>,
) -> bool {
    let namespace_ok = if request.t.is("", "namespaces") {
        [object, old].into_iter().flatten().any(|o| {
            label_selector_matches(&hook.spec["namespaceSelector"], &o["metadata"]["labels"])
        })
    } else if request.t.namespaced {
        label_selector_matches(
            &hook.spec["namespaceSelector"],
            namespace_labels.unwrap_or(&Value::Null),
        )
    } else {
        true
    };
    let selector = &hook.spec["objectSelector"];
    let object_ok = [object, old]
        .into_iter()
        .flatten()
        .any(|o| label_selector_matches(selector, &o["metadata"]["labels"]))
        || (object.is_none() && old.is_none());
    namespace_ok && object_ok
}

/// The labels of a namespace as selectors see them: with `kubernetes.io/metadata.name`.
pub fn namespace_labels(state: &State, namespace: &str) -> Value {
    let key = Key {
        group: String::new(),
        plural: "namespaces".into(),
        namespace: String::new(),
        name: namespace.into(),
    };
    let mut labels = state
        .object(&key)
        .and_then(|n| n.pointer("/metadata/labels").cloned())
        .filter(Value::is_object)
        .unwrap_or_else(|| serde_json::json!({}));
    labels["kubernetes.io/metadata.name"] = Value::String(namespace.into());
    labels
}

/// A `LabelSelector` (`matchLabels`, `matchExpressions` with In, NotIn, Exists,
/// DoesNotExist); an empty or missing selector selects everything.
pub fn label_selector_matches(selector: &Value, labels: &Value) -> bool {
    let label = |key: &str| labels.get(key).and_then(Value::as_str);
    let labels_ok = selector["matchLabels"]
        .as_object()
        .into_iter()
        .flatten()
        .all(|(k, v)| label(k) == v.as_str());
    let expressions_ok = selector["matchExpressions"]
        .as_array()
        .into_iter()
        .flatten()
        .all(|e| {
            let key = e["key"].as_str().unwrap_or_default();
            let values: Vec<&str> = e["values"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            match e["operator"].as_str() {
                Some("In") => label(key).is_some_and(|l| values.contains(&l)),
                Some("NotIn") => label(key).is_none_or(|l| !values.contains(&l)),
                Some("Exists") => label(key).is_some(),
                Some("DoesNotExist") => label(key).is_none(),
                _ => false,
            }
        });
    labels_ok && expressions_ok
}

/// What the API server checks of a webhook configuration when it is written.
pub fn validate(t: &ResourceType, object: &Value) -> Result<(), ApiError> {
    let mutating = t.plural == MUTATING;
    let mut problems = Vec::new();
    let mut names: Vec<&str> = Vec::new();
    for (i, hook) in object["webhooks"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        let at = |field: &str| format!("webhooks[{i}].{field}");
        let name = hook["name"].as_str().unwrap_or_default();
        if name.is_empty() {
            problems.push(format!("{}: Required value", at("name")));
        } else if name.split('.').filter(|s| !s.is_empty()).count() < 3 {
            problems.push(format!(
                "{}: Invalid value: \"{name}\": should be a domain with at least three segments separated by dots",
                at("name")
            ));
        } else if names.contains(&name) {
            problems.push(format!("{}: Duplicate value: \"{name}\"", at("name")));
        }
        names.push(name);
        let reviews: Vec<&str> = hook["admissionReviewVersions"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        if reviews.is_empty() {
            problems.push(format!(
                "{}: Required value: must specify one of v1, v1beta1",
                at("admissionReviewVersions")
            ));
        } else if !reviews.iter().any(|v| *v == "v1" || *v == "v1beta1") {
            problems.push(format!(
                "{}: Invalid value: {reviews:?}: must include at least one of v1, v1beta1",
                at("admissionReviewVersions")
            ));
        }
        match hook["sideEffects"].as_str() {
            Some("None" | "NoneOnDryRun") => {}
            None => problems.push(format!(
                "{}: Required value: must specify one of None, NoneOnDryRun",
                at("sideEffects")
            )),
            Some(other) => problems.push(format!(
                "{}: Unsupported value: \"{other}\": supported values: \"None\", \"NoneOnDryRun\"",
                at("sideEffects")
            )),
        }
        let one_of = |field: &str, allowed: &[&str]| match hook[field].as_str() {
            Some(v) if !allowed.contains(&v) => Some(format!(
                "{}: Unsupported value: \"{v}\": supported values: {}",
                at(field),
                allowed
                    .iter()
                    .map(|a| format!("\"{a}\""))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
            _ => None,
        };
        problems.extend(one_of("failurePolicy", &["Fail", "Ignore"]));
        problems.extend(one_of("matchPolicy", &["Exact", "Equivalent"]));
        if mutating {
            problems.extend(one_of("reinvocationPolicy", &["Never", "IfNeeded"]));
        }
        if let Some(seconds) = hook["timeoutSeconds"].as_i64()
            && !(1..=30).contains(&seconds)
        {
            problems.push(format!(
                "{}: Invalid value: {seconds}: the timeout value must be between 1 and 30 seconds",
                at("timeoutSeconds")
            ));
        }
        problems.extend(client_config_problems(
            &hook["clientConfig"],
            &at("clientConfig"),
        ));
        for (r, rule) in hook["rules"].as_array().into_iter().flatten().enumerate() {
            for op in rule["operations"].as_array().into_iter().flatten() {
                let op = op.as_str().unwrap_or_default();
                if !["*", "CREATE", "UPDATE", "DELETE", "CONNECT"].contains(&op) {
                    problems.push(format!(
                        "{}: Unsupported value: \"{op}\": supported values: \"*\", \"CONNECT\", \"CREATE\", \"DELETE\", \"UPDATE\"",
                        at(&format!("rules[{r}].operations"))
                    ));
                }
            }
            if let Some(scope) = rule["scope"].as_str()
                && !["*", "Cluster", "Namespaced"].contains(&scope)
            {
                problems.push(format!(
                    "{}: Unsupported value: \"{scope}\": supported values: \"*\", \"Cluster\", \"Namespaced\"",
                    at(&format!("rules[{r}].scope"))
                ));
            }
        }
    }
    if problems.is_empty() {
        return Ok(());
    }
    let name = object["metadata"]["name"].as_str().unwrap_or_default();
    Err(ApiError::new(
        422,
        "Invalid",
        format!(
            "{}.{} \"{name}\" is invalid: {}",
            t.kind,
            t.group,
            problems.join(", ")
        ),
    ))
}

/// A `clientConfig`'s problems: exactly one of `url` (https, no query or fragment) and
/// `service` (name, namespace, a port in range).
pub fn client_config_problems(config: &Value, at: &str) -> Vec<String> {
    let mut problems = Vec::new();
    match (config.get("url"), config.get("service")) {
        (Some(url), None) => {
            let text = url.as_str().unwrap_or_default();
            match reqwest::Url::parse(text) {
                Ok(parsed) if parsed.scheme() != "https" => problems.push(format!(
                    "{at}.url: Invalid value: \"{text}\": 'https' is the only allowed URL scheme"
                )),
                Ok(parsed) if parsed.query().is_some() || parsed.fragment().is_some() => problems
                    .push(format!(
                        "{at}.url: Invalid value: \"{text}\": query parameters and fragments are not allowed"
                    )),
                Ok(parsed) if parsed.host_str().is_none_or(str::is_empty) => problems.push(
                    format!("{at}.url: Invalid value: \"{text}\": host must be specified"),
                ),
                Ok(_) => {}
                Err(e) => problems.push(format!(
                    "{at}.url: Invalid value: \"{text}\": url must be a valid URL: {e}"
                )),
            }
        }
        (None, Some(service)) => {
            for field in ["name", "namespace"] {
                if service[field].as_str().is_none_or(str::is_empty) {
                    problems.push(format!("{at}.service.{field}: Required value"));
                }
            }
            if let Some(port) = service.get("port")
                && !port.as_u64().is_some_and(|p| (1..=65535).contains(&p))
            {
                problems.push(format!(
                    "{at}.service.port: Invalid value: {port}: port is not valid: must be between 1 and 65535, inclusive"
                ));
            }
            if let Some(path) = service["path"].as_str()
                && !path.starts_with('/')
            {
                problems.push(format!(
                    "{at}.service.path: Invalid value: \"{path}\": must start with a '/'"
                ));
            }
        }
        _ => problems.push(format!(
            "{at}: Required value: exactly one of url or service is required"
        )),
    }
    problems
}
