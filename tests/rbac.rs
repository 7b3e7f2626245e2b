//! The kinds found in the real charts under `../shared/charts`, and RBAC completeness: every
//! kind a chart creates is covered by a rule with all the verbs the helm-operator uses.

use std::path::PathBuf;

use operator_rs::chart::kinds::{self, KindScan};
use operator_rs::rbac::{self, OwnedApi, RELEASE_VERBS, RbacPlan};

const CHARTS: &[&str] = &[
    "alertmanager",
    "hello-world",
    "kube-state-metrics",
    "prometheus-node-exporter",
    "rancher",
];

fn shared_chart(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/charts")
        .join(name)
}

fn scan(name: &str) -> KindScan {
    let chart = operator_rs::chart::load_local(&shared_chart(name))
        .unwrap_or_else(|e| panic!("loading chart {name}: {e}"));
    kinds::scan(&chart)
}

fn plan(scan: &KindScan) -> RbacPlan {
    rbac::helm_operator_rules(
        &[scan],
        &[OwnedApi {
            group: "charts.example.com".to_string(),
            plural: "tests".to_string(),
        }],
    )
}

fn has(scan: &KindScan, api_version: &str, kind: &str, file: &str) -> bool {
    scan.kinds
        .iter()
        .any(|k| k.api_version == api_version && k.kind == kind && k.file == file)
}

#[test]
fn every_shared_chart_is_tested() {
    let mut found: Vec<String> = std::fs::read_dir(shared_chart(""))
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("Chart.yaml").is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    found.sort();
    assert_eq!(
        found, CHARTS,
        "a chart was added to ../shared/charts: add it here"
    );
}

#[test]
fn alertmanager_kinds_include_list_items_and_the_templated_route() {
    let scan = scan("alertmanager");
    assert_eq!(
        scan.kind_names(),
        [
            "ConfigMap",
            "HTTPRoute",
            "Ingress",
            "Pod",
            "PodDisruptionBudget",
            "Service",
            "ServiceAccount",
            "ServiceMonitor",
            "StatefulSet",
            "VerticalPodAutoscaler",
        ]
    );
    // `kind: List` items; the List wrapper is not an object.
    assert!(has(
        &scan,
        "v1",
        "Service",
        "templates/serviceperreplica.yaml"
    ));
    assert!(has(
        &scan,
        "networking.k8s.io/v1",
        "Ingress",
        "templates/ingressperreplica.yaml"
    ));
    // `kind: {{ $route.kind | default "HTTPRoute" }}`, apiVersion from its default too.
    assert!(has(
        &scan,
        "gateway.networking.k8s.io/v1",
        "HTTPRoute",
        "templates/httproute.yaml"
    ));
    // `apiVersion: {{ include "alertmanager.ingress.apiVersion" . }}` follows the helper.
    assert!(has(
        &scan,
        "networking.k8s.io/v1",
        "Ingress",
        "templates/ingress.yaml"
    ));
    // vpa.yaml's `targetRef: kind: StatefulSet` is a reference, not an object.
    assert!(
        !scan
            .kinds
            .iter()
            .any(|k| k.file == "templates/vpa.yaml" && k.kind == "StatefulSet")
    );
    assert!(scan.unresolved.is_empty(), "{:?}", scan.unresolved);
}

#[test]
fn hello_world_kinds() {
    let scan = scan("hello-world");
    assert_eq!(
        scan.kind_names(),
        ["Deployment", "Service", "ServiceAccount"]
    );
    assert!(scan.unresolved.is_empty() && scan.lookups.is_empty());
}

#[test]
fn kube_state_metrics_kinds_include_both_branches() {
    let scan = scan("kube-state-metrics");
    assert_eq!(
        scan.kind_names(),
        [
            "ClusterRole",
            "ClusterRoleBinding",
            "ConfigMap",
            "Deployment",
            "NetworkPolicy",
            "PodDisruptionBudget",
            "Role",
            "RoleBinding",
            "ScrapeConfig",
            "Secret",
            "Service",
            "ServiceAccount",
            "ServiceMonitor",
            "StatefulSet",
            "VerticalPodAutoscaler",
        ]
    );
    // `{{ if autosharding }}kind: StatefulSet{{ else }}kind: Deployment{{ end }}` under one
    // apiVersion; Role or ClusterRole by value.
    assert!(has(
        &scan,
        "apps/v1",
        "StatefulSet",
        "templates/deployment.yaml"
    ));
    assert!(has(
        &scan,
        "apps/v1",
        "Deployment",
        "templates/deployment.yaml"
    ));
    assert!(has(
        &scan,
        "rbac.authorization.k8s.io/v1",
        "Role",
        "templates/role.yaml"
    ));
    assert!(has(
        &scan,
        "rbac.authorization.k8s.io/v1",
        "ClusterRole",
        "templates/role.yaml"
    ));
    assert!(has(
        &scan,
        "monitoring.coreos.com/v1alpha1",
        "ScrapeConfig",
        "templates/scrapeconfig.yaml"
    ));
    // `roleRef: kind: Role` in the binding is a reference.
    assert!(
        !scan
            .kinds
            .iter()
            .any(|k| k.file == "templates/rolebinding.yaml" && k.kind == "Role")
    );
    // extraManifests are objects from values: reported, not guessed.
    let unresolved: Vec<_> = scan.unresolved.iter().map(|u| u.file.as_str()).collect();
    assert_eq!(unresolved, ["templates/extra-manifests.yaml"]);
}

#[test]
fn prometheus_node_exporter_kinds() {
    let scan = scan("prometheus-node-exporter");
    assert_eq!(
        scan.kind_names(),
        [
            "ClusterRole",
            "ClusterRoleBinding",
            "ConfigMap",
            "DaemonSet",
            "Endpoints",
            "NetworkPolicy",
            "PodMonitor",
            "Service",
            "ServiceAccount",
            "ServiceMonitor",
            "VerticalPodAutoscaler",
        ]
    );
    assert!(has(
        &scan,
        "monitoring.coreos.com/v1",
        "PodMonitor",
        "templates/podmonitor.yaml"
    ));
    assert!(has(
        &scan,
        "autoscaling.k8s.io/v1",
        "VerticalPodAutoscaler",
        "templates/verticalpodautoscaler.yaml"
    ));
}

#[test]
fn rancher_kinds_are_cluster_scoped_and_read_with_lookup() {
    let scan = scan("rancher");
    assert_eq!(
        scan.kind_names(),
        [
            "Certificate",
            "ClusterRole",
            "ClusterRoleBinding",
            "ConfigMap",
            "Deployment",
            "Gateway",
            "HTTPRoute",
            "Ingress",
            "Issuer",
            "Job",
            "PersistentVolumeClaim",
            "PriorityClass",
            "Secret",
            "Service",
            "ServiceAccount",
        ]
    );
    assert!(has(
        &scan,
        "cert-manager.io/v1",
        "Issuer",
        "templates/ingate/issuer-rancher.yaml"
    ));
    assert!(has(
        &scan,
        "cert-manager.io/v1",
        "Certificate",
        "templates/ingate/gateway-cert.yaml"
    ));
    // `issuerRef: kind: Issuer`, `subjects: - kind: ServiceAccount`, `roleRef: kind:
    // ClusterRole` and a Gateway's `certificateRefs: kind: Secret` are references.
    for (file, kind) in [
        ("templates/ingate/gateway-cert.yaml", "Issuer"),
        ("templates/clusterRoleBinding.yaml", "ServiceAccount"),
        ("templates/clusterRoleBinding.yaml", "ClusterRole"),
        ("templates/ingate/gateway.yaml", "Secret"),
        ("templates/ingate/issuer-letsEncrypt.yaml", "Gateway"),
    ] {
        assert!(
            !scan.kinds.iter().any(|k| k.file == file && k.kind == kind),
            "{file}: {kind} is a reference"
        );
    }
    let lookups: Vec<_> = scan.lookups.iter().map(|l| l.kind.as_str()).collect();
    assert_eq!(lookups, ["CustomResourceDefinition", "Secret"]);

    let plan = plan(&scan);
    assert!(plan.cluster_scoped);
    let allows = |group: &str, resource: &str, verb: &str| {
        plan.rules.iter().any(|r| r.allows(group, resource, verb))
    };
    // The NOTES helper checks cert-manager's CRD with `lookup`: without get, the install fails.
    assert!(allows(
        "apiextensions.k8s.io",
        "customresourcedefinitions",
        "get"
    ));
    assert!(!allows(
        "apiextensions.k8s.io",
        "customresourcedefinitions",
        "create"
    ));
    assert!(allows(
        "rbac.authorization.k8s.io",
        "clusterroles",
        "escalate"
    ));
    assert!(allows("rbac.authorization.k8s.io", "clusterroles", "bind"));
}

#[test]
fn rbac_is_complete_for_every_shared_chart() {
    for name in CHARTS {
        let scan = scan(name);
        assert!(!scan.kinds.is_empty(), "{name}: no kinds found");
        let plan = plan(&scan);
        for found in &scan.kinds {
            let resource = rbac::resolve(found.group(), &found.kind)
                .unwrap_or_else(|| panic!("{name}: {found:?} has no resource"));
            assert!(resource.known, "{name}: {found:?} is not in the table");
            for verb in RELEASE_VERBS {
                assert!(
                    plan.rules
                        .iter()
                        .any(|r| r.allows(&resource.group, &resource.plural, verb)),
                    "{name}: {} ({}/{}) lacks {verb} ({}:{})",
                    found.kind,
                    resource.group,
                    resource.plural,
                    found.file,
                    found.line
                );
            }
        }
        for rule in &plan.rules {
            assert!(rule.comment.is_some(), "{name}: {rule:?} has no comment");
            for value in rule
                .api_groups
                .iter()
                .chain(&rule.resources)
                .chain(&rule.verbs)
            {
                assert!(!value.contains('*'), "{name}: wildcard in {rule:?}");
            }
        }
        // Only what the scan could not know is a warning: nothing unknown to the table.
        assert_eq!(
            plan.warnings.len(),
            scan.unresolved.len(),
            "{name}: {:#?}",
            plan.warnings
        );
    }
}

#[test]
fn rules_yaml_parses_into_a_valid_rules_list() {
    for name in CHARTS {
        let plan = plan(&scan(name));
        let text = rbac::rules_yaml(&plan.rules);
        assert!(text.starts_with("rules:\n"), "{name}");
        let value: serde_json::Value = operator_rs::yaml::from_str(&text)
            .unwrap_or_else(|e| panic!("{name}: rules do not parse: {e}\n{text}"));
        let rules = value["rules"].as_array().expect("rules is a list");
        assert_eq!(rules.len(), plan.rules.len(), "{name}");
        for rule in rules {
            let object = rule.as_object().expect("a rule is a mapping");
            assert_eq!(
                object.keys().map(String::as_str).collect::<Vec<_>>(),
                ["apiGroups", "resources", "verbs"],
                "{name}"
            );
            for key in ["apiGroups", "resources", "verbs"] {
                let list = object[key].as_array().expect("a list");
                assert!(!list.is_empty(), "{name}: empty {key}");
                assert!(list.iter().all(|v| v.is_string()), "{name}: {key}");
            }
        }
        assert_eq!(rbac::rules_from_yaml(&text).unwrap(), plan.rules, "{name}");
    }
}

#[test]
fn merging_every_chart_into_one_role_is_duplicate_free_and_idempotent() {
    let scans: Vec<KindScan> = CHARTS.iter().map(|name| scan(name)).collect();
    let mut role = Vec::new();
    for scan in &scans {
        role = rbac::merge(&role, &plan(scan).rules);
    }
    let again = scans.iter().fold(role.clone(), |role, scan| {
        rbac::merge(&role, &plan(scan).rules)
    });
    assert_eq!(again, role);
    for (i, a) in role.iter().enumerate() {
        for b in &role[i + 1..] {
            assert!(
                !(a.api_groups == b.api_groups && a.resources == b.resources && a.verbs == b.verbs),
                "duplicate rule {a:?}"
            );
        }
    }
    // The union covers all kinds of all charts.
    let all: Vec<&KindScan> = scans.iter().collect();
    let combined = rbac::helm_operator_rules(&all, &[]);
    for rule in combined.rules.iter().filter(|r| r.verbs == RELEASE_VERBS) {
        for resource in &rule.resources {
            for verb in RELEASE_VERBS {
                assert!(
                    role.iter()
                        .any(|r| r.allows(&rule.api_groups[0], resource, verb)),
                    "{resource} {verb}"
                );
            }
        }
    }
}
