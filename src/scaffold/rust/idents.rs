//! Turning Kubernetes names into Rust names that compile: module and variable names for kinds,
//! and the rules that keep a kind or project name from clashing with the generated code.

use crate::names::{Kind, ProjectName};
use crate::scaffold::templates;

/// Strict and reserved keywords of Rust 2024 (`gen` included), which cannot name a module or a
/// variable without `r#`.
const KEYWORDS: &[&str] = &[
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "crate",
    "do", "dyn", "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl",
    "in", "let", "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref",
    "return", "self", "static", "struct", "super", "trait", "true", "try", "type", "typeof",
    "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
];

/// Type names the modules a kind's type is named in import ([`KIND_SCOPED_TEMPLATES`]). A kind
/// named like one of them (or whose `<Kind>Spec`/`<Kind>Status` is one of them) would not
/// compile; a test keeps this list equal to what those templates import.
const TYPES_IN_GENERATED_CODE: &[&str] = &[
    "Action",
    "Arc",
    "BTreeMap",
    "CancellationToken",
    "Capabilities",
    "Condition",
    "Container",
    "Context",
    "Controller",
    "CustomResource",
    "CustomResourceConversion",
    "CustomResourceDefinition",
    "CustomResourceExt",
    "Denied",
    "Deployment",
    "DeploymentCondition",
    "DeploymentSpec",
    "DeploymentStatus",
    "Deserialize",
    "Duration",
    "Error",
    "Event",
    "EventType",
    "Health",
    "Hook",
    "JsonSchema",
    "KubeSchema",
    "LabelSelector",
    "Method",
    "ObjectMeta",
    "PodSecurityContext",
    "PodSpec",
    "PodTemplateSpec",
    "ResourceExt",
    "SeccompProfile",
    "SecurityContext",
    "Serialize",
    "ServiceReference",
    "StatusCode",
    "Value",
    "Verdict",
    "WebhookClientConfig",
    "WebhookConversion",
];

/// Prelude types those modules name without importing them.
const PRELUDE_TYPES: &[&str] = &["Option", "Result", "Self", "String", "Vec"];

/// The templates of the modules that name a kind's type, where its name must not clash.
#[cfg(test)]
const KIND_SCOPED_TEMPLATES: &[&str] = &[
    "rust/src/api/kind.rs.tera",
    "rust/src/api/mod.rs.tera",
    "rust/src/controllers/kind.rs.tera",
    "rust/src/webhooks/kind.rs.tera",
    "rust/src/webhooks/kind_conversion.rs.tera",
    "rust/src/webhooks/mod.rs.tera",
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

/// Package names Cargo refuses besides keywords.
const RESERVED_PACKAGES: &[&str] = &["alloc", "core", "proc_macro", "std", "test"];

/// Whether the generated project depends on a crate named `snake` (as its Cargo.toml template
/// says), which a package of that name would shadow. A test keeps the template readable here.
fn is_dependency(snake: &str) -> bool {
    let Ok(template) = templates::raw_text(super::MANIFEST_TEMPLATE) else {
        return false;
    };
    let Ok(manifest) = toml::from_str::<toml::Table>(template) else {
        return false;
    };
    ["dependencies", "dev-dependencies"]
        .iter()
        .filter_map(|table| manifest.get(*table)?.as_table())
        .any(|deps| deps.keys().any(|name| name.replace('-', "_") == snake))
}

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
        .chain(PRELUDE_TYPES)
        .find(|t| **t == name || **t == spec || **t == status)
        .copied()
}

/// Why a project name cannot name a Rust package, if it cannot.
pub fn project_clash(name: &ProjectName) -> Option<String> {
    let snake = name.snake();
    if is_keyword(&snake) {
        Some(format!("\"{snake}\" is a Rust keyword"))
    } else if RESERVED_PACKAGES.contains(&snake.as_str()) || is_dependency(&snake) {
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
        assert_eq!(kind_clash(&kind("Verdict")), Some("Verdict"));
        assert_eq!(kind_clash(&kind("Option")), Some("Option"));
        assert_eq!(kind_clash(&kind("Memcached")), None);
        assert_eq!(kind_clash(&kind("Type")), None);
        // Types only the process-wide modules import, never beside a kind's type.
        assert_eq!(kind_clash(&kind("Client")), None);
    }

    /// The CamelCase names of the `use` items of `text`, leaving out those glued to a template
    /// expression (`{{ kind }}Spec`): the kind's own types.
    fn imported_types(text: &str) -> Vec<String> {
        let mut names = Vec::new();
        for item in text.split("use ").skip(1) {
            let item = item.split(';').next().unwrap_or_default();
            let mut previous = ' ';
            let mut word = String::new();
            for c in item.chars().chain([' ']) {
                if c.is_ascii_alphanumeric() || c == '_' {
                    word.push(c);
                    continue;
                }
                let glued = previous == '}';
                if word.starts_with(|c: char| c.is_ascii_uppercase())
                    && word.chars().any(|c| c.is_ascii_lowercase())
                    && !glued
                {
                    names.push(std::mem::take(&mut word));
                }
                word.clear();
                previous = c;
            }
        }
        names
    }

    #[test]
    fn the_clashing_types_are_what_the_kind_scoped_templates_import() {
        let mut imported: Vec<String> = KIND_SCOPED_TEMPLATES
            .iter()
            .flat_map(|t| imported_types(templates::raw_text(t).unwrap()))
            .collect();
        imported.sort();
        imported.dedup();
        assert_eq!(imported, TYPES_IN_GENERATED_CODE);
    }

    #[test]
    fn project_names_must_make_usable_crates() {
        for bad in [
            "match",
            "kube",
            "tokio",
            "test",
            "serde-json",
            "axum-server",
            "rcgen",
        ] {
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
