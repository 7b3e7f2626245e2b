//! The chart's values: only what a user of an operator sets. One list of definitions gives
//! `values.yaml` (commented), `values.schema.json`, the README's table, and the values a
//! kept `values.yaml` lacks.

use serde_json::{Map, Value, json};

/// What the values' defaults are taken from: the operator's Deployment in `deploy/` and the
/// objects the project has.
#[derive(Debug, Clone, PartialEq)]
pub struct Facts {
    pub image_repository: String,
    /// Empty: the chart's appVersion. A digest pins the image: `v1.0.0@sha256:...`.
    pub image_tag: String,
    pub pull_policy: String,
    pub replicas: u64,
    pub resources: Value,
    pub pod_security_context: Value,
    pub security_context: Value,
    /// The container port named `metrics`, when the operator has one.
    pub metrics_port: Option<u64>,
    /// The operator serves its metrics over HTTPS to callers the API server allows (a Rust
    /// operator without `--metrics-secure=false`): Prometheus scrapes with its token.
    pub metrics_secure: bool,
    /// Whether `--leader-elect` is among the operator's arguments, when it has the flag.
    pub leader_election: Option<bool>,
    /// The port the operator serves its admission and conversion webhooks on, when it has
    /// webhooks.
    pub webhook_port: Option<u64>,
}

/// One value: its dotted path, default, description and JSON schema.
#[derive(Debug, Clone, PartialEq)]
pub struct Definition {
    pub path: String,
    pub default: Value,
    pub description: String,
    pub schema: Value,
}

fn def(path: &str, default: Value, description: &str, schema: Value) -> Definition {
    Definition {
        path: path.to_string(),
        default,
        description: description.to_string(),
        schema,
    }
}

/// Comments of the maps that group values.
const SECTIONS: &[(&str, &str)] = &[
    ("image", "The operator's image."),
    (
        "leaderElection",
        "Leader election between the operator's replicas.",
    ),
    ("metrics", "The operator's Prometheus metrics."),
    (
        "metrics.serviceMonitor",
        "A Prometheus Operator ServiceMonitor for the metrics, with a Service for it (needs the\nmonitoring.coreos.com CRDs in the cluster).",
    ),
    (
        "crds",
        "The CustomResourceDefinitions. They are shared by every release of the operator in the\ncluster: install them with one release only.",
    ),
    (
        "webhook",
        "The operator's admission and conversion webhooks. By default the operator makes its own\nCA and serving certificate, keeps them in a Secret of the release's namespace, writes the CA\ninto the release's webhook configurations and the CRDs it converts, and renews them half way\nthrough their lifetime.",
    ),
    (
        "webhook.certManager",
        "Or cert-manager issues the serving certificate (a Certificate, mounted into the operator's\npod) and injects its CA into the webhook configurations and the CRDs' conversion; the\noperator then manages no certificate and gets no RBAC for it. Needs cert-manager in the\ncluster.",
    ),
];

pub fn definitions(facts: &Facts) -> Vec<Definition> {
    let object = json!({"type": "object"});
    let string_map = json!({"type": "object", "additionalProperties": {"type": "string"}});
    let mut defs = vec![
        def(
            "image.repository",
            json!(facts.image_repository),
            "Registry and repository of the image, without the tag.",
            json!({"type": "string", "minLength": 1}),
        ),
        def(
            "image.tag",
            json!(facts.image_tag),
            "The image's tag (a digest may follow: v1.0.0@sha256:...); empty means the chart's appVersion.",
            json!({"type": "string"}),
        ),
        def(
            "image.pullPolicy",
            json!(facts.pull_policy),
            "When the kubelet pulls the image.",
            json!({"type": "string", "enum": ["Always", "IfNotPresent", "Never"]}),
        ),
        def(
            "imagePullSecrets",
            json!([]),
            "Secrets to pull the image from a private registry, for example [{name: regcred}].",
            json!({"type": "array", "items": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string", "minLength": 1}}}}),
        ),
        def(
            "replicaCount",
            json!(facts.replicas),
            "Replicas of the operator. With leader election one reconciles and the others stand by.",
            json!({"type": "integer", "minimum": 0}),
        ),
    ];
    if let Some(enabled) = facts.leader_election {
        defs.push(def(
            "leaderElection.enabled",
            json!(enabled),
            "Only the holder of a Lease reconciles; turn it off only with one replica.",
            json!({"type": "boolean"}),
        ));
    }
    defs.extend([
        def(
            "watchNamespace",
            Value::Null,
            "The namespace whose custom resources the operator watches: null for the release's namespace, \"\" for every namespace (the chart then grants its namespaced rules in every namespace, with a ClusterRole), or another namespace's name (the rules are granted there too).",
            json!({"type": ["string", "null"], "pattern": "^([a-z0-9]([-a-z0-9]*[a-z0-9])?)?$", "maxLength": 63}),
        ),
        def(
            "resources",
            facts.resources.clone(),
            "CPU and memory of the operator's container.",
            object.clone(),
        ),
        def(
            "nodeSelector",
            json!({}),
            "Labels of the nodes the operator may run on.",
            string_map.clone(),
        ),
        def(
            "tolerations",
            json!([]),
            "Taints the operator's pod tolerates.",
            json!({"type": "array", "items": {"type": "object"}}),
        ),
        def(
            "affinity",
            json!({}),
            "Affinity rules of the operator's pod.",
            object.clone(),
        ),
        def(
            "podSecurityContext",
            facts.pod_security_context.clone(),
            "The pod's security context (the restricted Pod Security Standard by default).",
            object.clone(),
        ),
        def(
            "securityContext",
            facts.security_context.clone(),
            "The operator container's security context.",
            object.clone(),
        ),
        def(
            "extraEnv",
            json!([]),
            "Environment variables added to the operator's container, for example [{name: RUST_LOG, value: debug}].",
            json!({"type": "array", "items": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string", "minLength": 1}}}}),
        ),
    ]);
    if let Some(port) = facts.metrics_port {
        defs.extend([
            def(
                "metrics.port",
                json!(port),
                "The port the operator serves /metrics on.",
                json!({"type": "integer", "minimum": 1, "maximum": 65535}),
            ),
            def(
                "metrics.serviceMonitor.enabled",
                json!(false),
                "Create the Service and the ServiceMonitor.",
                json!({"type": "boolean"}),
            ),
            def(
                "metrics.serviceMonitor.interval",
                json!(""),
                "How often Prometheus scrapes, for example 30s; empty means Prometheus's default.",
                json!({"type": "string", "pattern": "^([0-9]+(ms|s|m|h))*$"}),
            ),
            def(
                "metrics.serviceMonitor.labels",
                json!({}),
                "Labels the ServiceMonitor gets, for the serviceMonitorSelector of your Prometheus.",
                string_map.clone(),
            ),
        ]);
        if facts.metrics_secure {
            defs.push(def(
                "metrics.serviceMonitor.tlsConfig",
                json!({"insecureSkipVerify": true}),
                "How Prometheus checks the operator's certificate. The operator makes a self-signed one unless --metrics-cert-dir gives one: to verify it, replace this with {ca: {secret: {name: SECRET, key: ca.crt}}, serverName: SERVICE.NAMESPACE.svc}.",
                json!({"type": "object"}),
            ));
        }
    }
    defs.extend([
        def(
            "crds.install",
            json!(true),
            "Install (and upgrade) the CRDs with this release; false for a second release of the operator, or when the CRDs are installed apart (generate bundle --crds-separately).",
            json!({"type": "boolean"}),
        ),
        def(
            "crds.keep",
            json!(true),
            "Keep the CRDs, and so every custom resource, when the release is uninstalled.",
            json!({"type": "boolean"}),
        ),
    ]);
    if let Some(port) = facts.webhook_port {
        defs.extend([
            def(
                "webhook.port",
                json!(port),
                "The port the operator serves its webhooks on; the webhook Service sends 443 there.",
                json!({"type": "integer", "minimum": 1, "maximum": 65535}),
            ),
            def(
                "webhook.certLifetime",
                json!("90d"),
                "How long each certificate the operator makes is valid (a number with s, m, h or d); it is renewed half way.",
                json!({"type": "string", "pattern": "^0*[1-9][0-9]*(s|m|h|d)$"}),
            ),
            def(
                "webhook.certManager.enabled",
                json!(false),
                "Have cert-manager issue the webhook's certificate.",
                json!({"type": "boolean"}),
            ),
            def(
                "webhook.certManager.issuerRef",
                json!({}),
                "The cert-manager issuer, for example {kind: ClusterIssuer, name: my-ca}; empty makes a self-signed Issuer for the webhook.",
                json!({"type": "object", "properties": {"name": {"type": "string"}, "kind": {"type": "string"}, "group": {"type": "string"}}}),
            ),
        ]);
    }
    defs
}

/// `values.yaml`, each value under its comment.
pub fn values_yaml(chart: &str, defs: &[Definition]) -> String {
    let mut out = format!(
        "# Values of the {chart} chart: what a user of the operator sets.\n# `operator-rs generate chart` keeps your edits to this file when it generates the chart again.\n"
    );
    let mut open: Vec<String> = Vec::new();
    for def in defs {
        let parts: Vec<&str> = def.path.split('.').collect();
        let parents = &parts[..parts.len() - 1];
        let common = open
            .iter()
            .zip(parents)
            .take_while(|(a, b)| a.as_str() == **b)
            .count();
        open.truncate(common);
        if common == 0 {
            out.push('\n');
        }
        for (depth, parent) in parents.iter().enumerate().skip(common) {
            let path = parts[..=depth].join(".");
            let indent = "  ".repeat(depth);
            if depth > 0 {
                out.push('\n');
            }
            if let Some((_, comment)) = SECTIONS.iter().find(|(p, _)| *p == path) {
                for line in comment.lines() {
                    out.push_str(&format!("{indent}# {line}\n"));
                }
            }
            out.push_str(&format!("{indent}{parent}:\n"));
            open.push(parent.to_string());
        }
        let indent = "  ".repeat(parents.len());
        if !parents.is_empty() && common == parents.len() {
            out.push('\n');
        }
        for line in wrap(&def.description, 92 - indent.len()) {
            out.push_str(&format!("{indent}# {line}\n"));
        }
        let key = parts[parts.len() - 1];
        out.push_str(&format!(
            "{indent}{key}:{}",
            yaml_after_key(&def.default, &indent)
        ));
    }
    out
}

/// Words of `text` in lines of at most `width` characters (a longer word gets its own line).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.len() + 1 + word.len() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// A value after `key:`: scalars and empty collections on the line, the rest as a block.
fn yaml_after_key(value: &Value, indent: &str) -> String {
    let inline = match value {
        Value::Object(m) if m.is_empty() => Some("{}".to_string()),
        Value::Array(a) if a.is_empty() => Some("[]".to_string()),
        Value::Object(_) | Value::Array(_) => None,
        Value::Null => Some("null".to_string()),
        scalar => Some(crate::yaml::to_string(scalar).trim_end().to_string()),
    };
    match inline {
        Some(text) => format!(" {text}\n"),
        None => {
            let mut out = String::from("\n");
            for line in crate::yaml::to_string(value).lines() {
                out.push_str(&format!("{indent}  {line}\n"));
            }
            out
        }
    }
}

/// `values.schema.json`: every value typed, and unknown top-level values allowed (a parent
/// chart passes `global`).
pub fn schema(defs: &[Definition]) -> String {
    let mut root = Map::new();
    for def in defs {
        let parts: Vec<&str> = def.path.split('.').collect();
        let mut node = &mut root;
        for parent in &parts[..parts.len() - 1] {
            let entry = node
                .entry("properties")
                .or_insert_with(|| json!({}))
                .as_object_mut()
                .map(|props| {
                    props
                        .entry(parent.to_string())
                        .or_insert_with(|| json!({"type": "object"}))
                });
            // Every node made above is an object, so these lookups cannot fail.
            match entry.and_then(Value::as_object_mut) {
                Some(next) => node = next,
                None => return String::new(),
            }
        }
        let mut leaf = def.schema.clone();
        if let Value::Object(m) = &mut leaf {
            m.insert("description".into(), json!(def.description));
        }
        if let Some(props) = node
            .entry("properties")
            .or_insert_with(|| json!({}))
            .as_object_mut()
        {
            props.insert(parts[parts.len() - 1].to_string(), leaf);
        }
    }
    let mut schema = Map::new();
    schema.insert(
        "$schema".into(),
        json!("https://json-schema.org/draft-07/schema#"),
    );
    schema.insert("type".into(), json!("object"));
    schema.extend(root);
    let mut text = serde_json::to_string_pretty(&Value::Object(schema)).unwrap_or_default();
    text.push('\n');
    text
}

/// The README's table of values.
pub fn table(defs: &[Definition]) -> String {
    let mut out = String::from("| Value | Default | Description |\n| --- | --- | --- |\n");
    for def in defs {
        let default = serde_json::to_string(&def.default).unwrap_or_default();
        out.push_str(&format!(
            "| `{}` | `{}` | {} |\n",
            def.path,
            default.replace('|', "\\|"),
            def.description.replace('|', "\\|")
        ));
    }
    out
}

/// The values of `defs` that the YAML text `kept` does not set, by path.
pub fn missing(defs: &[Definition], kept: &str) -> Vec<String> {
    let values: Value = crate::yaml::from_str(kept).unwrap_or(Value::Null);
    defs.iter()
        .filter(|def| {
            let mut node = &values;
            for part in def.path.split('.') {
                match node.get(part) {
                    Some(next) => node = next,
                    None => return true,
                }
            }
            false
        })
        .map(|def| def.path.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts() -> Facts {
        Facts {
            image_repository: "registry.local/demo".into(),
            image_tag: String::new(),
            pull_policy: "IfNotPresent".into(),
            replicas: 1,
            resources: json!({"limits": {"cpu": "500m"}}),
            pod_security_context: json!({"runAsNonRoot": true}),
            security_context: json!({"readOnlyRootFilesystem": true}),
            metrics_port: Some(8080),
            metrics_secure: false,
            leader_election: Some(true),
            webhook_port: Some(9443),
        }
    }

    #[test]
    fn values_yaml_holds_every_default() {
        let defs = definitions(&facts());
        let text = values_yaml("demo", &defs);
        let parsed: Value = crate::yaml::from_str(&text).unwrap();
        for def in &defs {
            let mut node = &parsed;
            for part in def.path.split('.') {
                node = node
                    .get(part)
                    .unwrap_or_else(|| panic!("{} in\n{text}", def.path));
            }
            assert_eq!(node, &def.default, "{}", def.path);
        }
        assert!(missing(&defs, &text).is_empty());
        assert_eq!(
            missing(&defs, "image:\n  repository: x\n"),
            defs.iter()
                .skip(1)
                .map(|d| d.path.clone())
                .collect::<Vec<_>>()
        );
    }

    #[test]
    fn the_schema_nests_like_the_values() {
        let schema: Value = serde_json::from_str(&schema(&definitions(&facts()))).unwrap();
        assert_eq!(
            schema.pointer("/properties/metrics/properties/serviceMonitor/properties/enabled/type"),
            Some(&json!("boolean"))
        );
        assert_eq!(
            schema.pointer("/properties/image/properties/pullPolicy/enum/0"),
            Some(&json!("Always"))
        );
    }
}
