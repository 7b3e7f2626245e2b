//! Turning Kubernetes names into Rust names that compile: module and variable names for kinds,
//! and the rules that keep a kind or project name from clashing with the generated code.

use crate::names::{Kind, ProjectName};

/// Strict and reserved keywords of Rust 2024 (`gen` included), which cannot name a module or a
/// variable without `r#`.
const KEYWORDS: &[&str] = &[
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "crate",
    "do", "dyn", "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl",
    "in", "let", "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref",
    "return", "self", "static", "struct", "super", "trait", "true", "try", "type", "typeof",
    "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
];

/// Type names the generated API and controller modules import or define. A kind named like
/// one of them (or whose `<Kind>Spec`/`<Kind>Status` is one of them) would not compile.
const TYPES_IN_GENERATED_CODE: &[&str] = &[
    "Action",
    "Health",
    "Api",
    "Arc",
    "BTreeMap",
    "Body",
    "Capabilities",
    "Client",
    "Condition",
    "Container",
    "Context",
    "Controller",
    "CustomResource",
    "Deployment",
    "DeploymentCondition",
    "DeploymentSpec",
    "DeploymentStatus",
    "Deserialize",
    "Duration",
    "Error",
    "Event",
    "EventType",
    "Handle",
    "HashSet",
    "JsonSchema",
    "LabelSelector",
    "Method",
    "ObjectMeta",
    "OwnerReference",
    "Patch",
    "PatchParams",
    "PodSecurityContext",
    "PodSpec",
    "PodTemplateSpec",
    "Request",
    "Resource",
    "ResourceExt",
    "Response",
    "Result",
    "SeccompProfile",
    "SecurityContext",
    "Self",
    "Serialize",
    "StatusCode",
    "String",
    "Time",
    "Timestamp",
    "Value",
    "Vec",
];

/// Local variables and functions of the generated controller, which the variable holding the
/// custom resource must not shadow; such kinds use the variable name `object` instead.
const LOCALS_IN_CONTROLLER: &[&str] = &[
    "api_error",
    "apply",
    "apply_child",
    "apply_deployment",
    "child_name",
    "cleanup",
    "context",
    "desired_deployment",
    "deployment_with",
    "error_policy",
    "expect",
    "expect_no_deployment",
    "failed_status",
    "finalizer",
    "find",
    "foreign_controller",
    "merge_conditions",
    "observed_status",
    "patch_status",
    "publish",
    "publish_transitions",
    "reconcile",
    "reconcile_with",
    "run",
    "run_with_timeout",
    "selector_labels",
    "status_of",
    "stuck_rollout",
    "truncate_note",
    "with_finalizer",
    "action",
    "api",
    "applied",
    "before",
    "changed",
    "children",
    "condition",
    "conditions",
    "ctx",
    "current",
    "degraded",
    "deployment",
    "deployments",
    "error",
    "event",
    "existing",
    "generation",
    "key",
    "labels",
    "merged",
    "message",
    "name",
    "namespace",
    "news",
    "now",
    "observed",
    "params",
    "patch",
    "patched",
    "previous",
    "ready",
    "reply",
    "restricted",
    "result",
    "rolled_out",
    "sample",
    "server",
    "settled",
    "severity",
    "status",
    "update",
    "updated",
    "wanted",
    "cause",
    "container",
    "health",
    "ready_replicas",
    "security_context",
    "controller",
    "cut",
    "expected",
    "failure",
    "first",
    "foreign",
    "keys",
    "live",
    "long",
    "owner",
    "prune",
    "reason",
    "reconciling",
    "second",
    "selector",
    "short",
    "store",
    "tick",
    "uid",
    "why",
];

/// Package names Cargo refuses (besides keywords), and the direct dependencies of a generated
/// project, whose crate names a package of the same name would shadow.
const RESERVED_PACKAGES: &[&str] = &[
    "alloc",
    "core",
    "proc_macro",
    "std",
    "test",
    "anyhow",
    "axum",
    "clap",
    "futures",
    "http",
    "k8s_openapi",
    "kube",
    "prometheus_client",
    "schemars",
    "serde",
    "serde_json",
    "serde_saphyr",
    "thiserror",
    "tokio",
    "tokio_util",
    "tower",
    "tower_test",
    "tracing",
    "tracing_subscriber",
];

pub fn is_keyword(word: &str) -> bool {
    KEYWORDS.contains(&word)
}

/// The module name of a kind: its snake case, as a raw identifier when that is a keyword
/// (`Type` -> `r#type`, still in the file `type.rs`).
pub fn module_ident(kind: &Kind) -> String {
    let snake = kind.snake();
    if is_keyword(&snake) {
        format!("r#{snake}")
    } else {
        snake
    }
}

/// The variable name for an object of the kind in generated code.
pub fn variable_ident(kind: &Kind) -> String {
    let snake = kind.snake();
    if is_keyword(&snake) || LOCALS_IN_CONTROLLER.contains(&snake.as_str()) {
        "object".to_string()
    } else {
        snake
    }
}

/// Why a kind cannot be used in a Rust project, if it cannot.
pub fn kind_clash(kind: &Kind) -> Option<&'static str> {
    let name = kind.as_str();
    let spec = format!("{name}Spec");
    let status = format!("{name}Status");
    TYPES_IN_GENERATED_CODE
        .iter()
        .find(|t| **t == name || **t == spec || **t == status)
        .copied()
}

/// Why a project name cannot name a Rust package, if it cannot.
pub fn project_clash(name: &ProjectName) -> Option<String> {
    let snake = name.snake();
    if is_keyword(&snake) {
        Some(format!("\"{snake}\" is a Rust keyword"))
    } else if RESERVED_PACKAGES.contains(&snake.as_str()) {
        Some(format!(
            "the generated project already uses a crate named \"{snake}\" (or Cargo reserves it)"
        ))
    } else {
        None
    }
}

/// Short names kubectl already resolves to built-in resources; a custom short name equal to one
/// of them would make `kubectl get <short>` ambiguous.
const BUILTIN_SHORT_NAMES: &[&str] = &[
    "cm", "crd", "crds", "cs", "csr", "cj", "deploy", "ds", "ep", "ev", "hpa", "ing", "limits",
    "netpol", "no", "ns", "pc", "pdb", "po", "psp", "pv", "pvc", "quota", "rc", "rs", "sa", "sc",
    "sts", "svc", "vac",
];

/// A short name for `kubectl get`: the initials of a multi-word kind (`HTTPRoute` -> `hr`),
/// the first three letters of a one-word kind (`Memcached` -> `mem`), lengthened while it
/// clashes with a built-in short name. `None` when it would not be shorter than the singular.
pub fn short_name(kind: &Kind) -> Option<String> {
    let words: Vec<String> = kind.kebab().split('-').map(str::to_string).collect();
    let singular = kind.lower();
    let (mut short, mut rest): (String, Vec<char>) = if words.len() > 1 {
        let initials = words.iter().filter_map(|w| w.chars().next()).collect();
        let last = words
            .last()
            .map(|w| w.chars().skip(1).collect())
            .unwrap_or_default();
        (initials, last)
    } else {
        let chars: Vec<char> = singular.chars().collect();
        let split = chars.len().min(3);
        (chars[..split].iter().collect(), chars[split..].to_vec())
    };
    rest.reverse();
    while BUILTIN_SHORT_NAMES.contains(&short.as_str()) {
        match rest.pop() {
            Some(c) => short.push(c),
            None => return None,
        }
    }
    (short.len() < singular.len()).then_some(short)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(name: &str) -> Kind {
        Kind::parse(name).unwrap()
    }

    #[test]
    fn keywords_become_raw_modules_and_plain_variables() {
        assert_eq!(module_ident(&kind("Type")), "r#type");
        assert_eq!(module_ident(&kind("Match")), "r#match");
        assert_eq!(module_ident(&kind("HTTPRoute")), "http_route");
        assert_eq!(variable_ident(&kind("Type")), "object");
        assert_eq!(variable_ident(&kind("Status")), "object");
        assert_eq!(variable_ident(&kind("DNSRecord")), "dns_record");
    }

    #[test]
    fn kinds_clashing_with_generated_types_are_named() {
        assert_eq!(kind_clash(&kind("Deployment")), Some("Deployment"));
        assert_eq!(kind_clash(&kind("Pod")), Some("PodSpec"));
        assert_eq!(kind_clash(&kind("Context")), Some("Context"));
        assert_eq!(kind_clash(&kind("Memcached")), None);
        assert_eq!(kind_clash(&kind("Type")), None);
    }

    #[test]
    fn project_names_must_make_usable_crates() {
        for bad in ["match", "kube", "tokio", "test", "serde-json"] {
            assert!(
                project_clash(&ProjectName::parse(bad).unwrap()).is_some(),
                "{bad}"
            );
        }
        assert!(project_clash(&ProjectName::parse("memcached-operator").unwrap()).is_none());
    }

    #[test]
    fn short_names_avoid_builtins_and_stay_short() {
        assert_eq!(short_name(&kind("Memcached")).as_deref(), Some("mem"));
        assert_eq!(short_name(&kind("HTTPRoute")).as_deref(), Some("hr"));
        assert_eq!(short_name(&kind("DNSRecord")).as_deref(), Some("dr"));
        assert_eq!(short_name(&kind("ConfigSet")).as_deref(), Some("cse"));
        assert_eq!(short_name(&kind("Pod2")).as_deref(), Some("pod"));
        assert_eq!(short_name(&kind("Type")).as_deref(), Some("typ"));
        assert_eq!(short_name(&kind("Ab")), None);
    }
}
