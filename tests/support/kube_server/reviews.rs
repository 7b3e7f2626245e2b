//! TokenReview and SubjectAccessReview, answered as the API server answers them: a token is
//! known when it is the kubeconfig's or one a test added ([`super::KubeServer::add_token`]),
//! and access is decided by the RBAC objects in the store (Roles, ClusterRoles, RoleBindings,
//! ClusterRoleBindings), rule by rule, for resource and non-resource (`/metrics`) requests.
//!
//! Approximations: only RBAC decides (no Node or webhook authorizers, no `system:masters`
//! superuser, no bootstrap roles such as `system:discovery`), aggregated ClusterRoles
//! (`aggregationRule`) grant nothing beyond their own `rules`, tokens never expire and carry
//! no audiences, and the reviews themselves are not authorized (any caller may create one).
//! Other requests to the test server are not authorized by these rules.

use std::collections::HashMap;

use serde_json::{Value, json};

use super::store::{ApiError, Reply, State};

/// The user a known token stands for.
#[derive(Debug, Clone, PartialEq)]
pub struct UserInfo {
    pub username: String,
    pub uid: String,
    pub groups: Vec<String>,
}

/// Known tokens, by token.
pub type Tokens = HashMap<String, UserInfo>;

const RBAC: &str = "rbac.authorization.k8s.io";

/// `POST /apis/authentication.k8s.io/v1/tokenreviews`.
pub fn token_review(s: &State, body: &[u8]) -> Reply {
    let review = parse(body, "TokenReview")?;
    let token = review["spec"]["token"].as_str().unwrap_or_default();
    let user = if token == s.scripts.token {
        Some(UserInfo {
            username: s.scripts.user.clone(),
            uid: String::new(),
            groups: Vec::new(),
        })
    } else {
        s.scripts.tokens.get(token).cloned()
    };
    let status = match user {
        Some(user) => {
            // Every authenticated request is in this group, as on a real server.
            let mut groups = user.groups.clone();
            groups.push("system:authenticated".into());
            json!({"authenticated": true,
                   "user": {"username": user.username, "uid": user.uid, "groups": groups}})
        }
        None => json!({"user": {}, "error": "invalid bearer token"}),
    };
    Ok((201, answer(review, status)))
}

/// `POST /apis/authorization.k8s.io/v1/subjectaccessreviews`.
pub fn subject_access_review(s: &State, body: &[u8]) -> Reply {
    let review = parse(body, "SubjectAccessReview")?;
    let spec = &review["spec"];
    let user = spec["user"].as_str().unwrap_or_default();
    let groups: Vec<&str> = spec["groups"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    if user.is_empty() && groups.is_empty() {
        return Err(ApiError::new(
            422,
            "Invalid",
            "SubjectAccessReview.authorization.k8s.io is invalid: spec.user: Invalid value: \"\": at least one of user or group must be specified",
        ));
    }
    let request = match (
        spec["nonResourceAttributes"].as_object(),
        spec["resourceAttributes"].as_object(),
    ) {
        (Some(attributes), None) => Request::NonResource {
            path: text(attributes.get("path")),
            verb: text(attributes.get("verb")),
        },
        (None, Some(attributes)) => Request::Resource {
            namespace: text(attributes.get("namespace")),
            verb: text(attributes.get("verb")),
            group: text(attributes.get("group")),
            resource: text(attributes.get("resource")),
            subresource: text(attributes.get("subresource")),
            name: text(attributes.get("name")),
        },
        _ => {
            return Err(ApiError::new(
                422,
                "Invalid",
                "SubjectAccessReview.authorization.k8s.io is invalid: spec: Invalid value: exactly one of nonResourceAttributes or resourceAttributes must be specified",
            ));
        }
    };
    let status = match allowing_binding(s, user, &groups, &request) {
        Some(by) => json!({"allowed": true, "reason": format!("RBAC: allowed by {by}")}),
        None => json!({"allowed": false}),
    };
    Ok((201, answer(review, status)))
}

fn parse(body: &[u8], kind: &str) -> Result<Value, ApiError> {
    let review: Value = serde_json::from_slice(body)
        .map_err(|e| ApiError::new(400, "BadRequest", format!("the {kind} is not JSON: {e}")))?;
    if !review["spec"].is_object() {
        return Err(ApiError::new(
            422,
            "Invalid",
            format!("the {kind} has no spec"),
        ));
    }
    Ok(review)
}

/// The review as the server returns it: the request with a status (and no name: reviews are
/// not stored).
fn answer(mut review: Value, status: Value) -> Value {
    review["status"] = status;
    review["metadata"] = json!({"creationTimestamp": null});
    review
}

fn text(value: Option<&Value>) -> String {
    value
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

enum Request {
    NonResource {
        path: String,
        verb: String,
    },
    Resource {
        namespace: String,
        verb: String,
        group: String,
        resource: String,
        subresource: String,
        name: String,
    },
}

/// The first binding whose subjects include the user (or one of its groups) and whose role has
/// a rule allowing `request`, described as the API server's reason describes it.
fn allowing_binding(s: &State, user: &str, groups: &[&str], request: &Request) -> Option<String> {
    let request_namespace = match request {
        Request::Resource { namespace, .. } => namespace.as_str(),
        Request::NonResource { .. } => "",
    };
    for (key, binding) in s.objects() {
        let is_cluster_binding = key.group == RBAC && key.plural == "clusterrolebindings";
        let is_namespace_binding = key.group == RBAC
            && key.plural == "rolebindings"
            && !request_namespace.is_empty()
            && key.namespace == request_namespace;
        if !(is_cluster_binding || is_namespace_binding) {
            continue;
        }
        let Some(subject) = binding["subjects"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|subject| subject_matches(subject, &key.namespace, user, groups))
        else {
            continue;
        };
        let role_ref = &binding["roleRef"];
        let role_name = role_ref["name"].as_str().unwrap_or_default();
        let role = match role_ref["kind"].as_str() {
            Some("ClusterRole") => cluster_object(s, "clusterroles", "", role_name),
            Some("Role") if is_namespace_binding => {
                cluster_object(s, "roles", &key.namespace, role_name)
            }
            _ => None,
        };
        let allowed = role.is_some_and(|role| {
            role["rules"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|rule| rule_allows(rule, request))
        });
        if allowed {
            let binding_kind = if is_cluster_binding {
                "ClusterRoleBinding"
            } else {
                "RoleBinding"
            };
            return Some(format!(
                "{binding_kind} \"{}\" of {} \"{role_name}\" to {} \"{}\"",
                key.name,
                role_ref["kind"].as_str().unwrap_or_default(),
                subject["kind"].as_str().unwrap_or_default(),
                subject["name"].as_str().unwrap_or_default()
            ));
        }
    }
    None
}

fn cluster_object<'a>(
    s: &'a State,
    plural: &str,
    namespace: &str,
    name: &str,
) -> Option<&'a Value> {
    s.objects()
        .find(|(k, _)| {
            k.group == RBAC && k.plural == plural && k.namespace == namespace && k.name == name
        })
        .map(|(_, v)| v)
}

/// Whether a binding's subject is this user: by name, by group, or as the service account
/// whose user name is `system:serviceaccount:<namespace>:<name>` (the namespace defaults to the
/// binding's).
fn subject_matches(subject: &Value, binding_namespace: &str, user: &str, groups: &[&str]) -> bool {
    let name = subject["name"].as_str().unwrap_or_default();
    match subject["kind"].as_str() {
        Some("User") => name == user,
        Some("Group") => groups.contains(&name),
        Some("ServiceAccount") => {
            let namespace = subject["namespace"].as_str().unwrap_or(binding_namespace);
            user == format!("system:serviceaccount:{namespace}:{name}")
        }
        _ => false,
    }
}

fn listed(rule: &Value, field: &str, wanted: &str) -> bool {
    rule[field]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .any(|item| item == "*" || item == wanted)
}

fn rule_allows(rule: &Value, request: &Request) -> bool {
    match request {
        Request::NonResource { path, verb } => {
            listed(rule, "verbs", verb)
                && rule["nonResourceURLs"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .any(|url| match url.strip_suffix('*') {
                        // A trailing * matches every path under the prefix.
                        Some(prefix) => path.starts_with(prefix),
                        None => url == path,
                    })
        }
        Request::Resource {
            verb,
            group,
            resource,
            subresource,
            name,
            ..
        } => {
            let resource = if subresource.is_empty() {
                resource.clone()
            } else {
                format!("{resource}/{subresource}")
            };
            let names = rule["resourceNames"]
                .as_array()
                .map_or(&[][..], Vec::as_slice);
            listed(rule, "verbs", verb)
                && listed(rule, "apiGroups", group)
                && listed(rule, "resources", &resource)
                && (names.is_empty() || names.iter().any(|n| n == name.as_str()))
        }
    }
}
