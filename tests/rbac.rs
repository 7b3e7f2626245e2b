//! The kinds found in the real charts under `../shared/charts`, and RBAC completeness: every
//! kind a chart creates is covered by a rule with all the verbs the helm-operator uses.

use std::path::PathBuf;

use std::collections::BTreeSet;

use operator_rs::chart::kinds::{self, KindScan};
use operator_rs::rbac::{self, OwnedApi, RELEASE_VERBS, RbacPlan, Rule, known_kinds};

const CHARTS: &[&str] = &[
    "alertmanager",
    "argo-rollouts",
    "fluent-bit",
    "hello-world",
    "ingress-nginx",
    "kube-state-metrics",
    "prometheus-node-exporter",
    "rancher",
    "redis",
];

/// What each shared chart needs at cluster scope: the kinds that make a ClusterRole necessary
/// (empty: a Role is enough). Read from the charts' templates by hand.
const CLUSTER_REASONS: &[(&str, &[&str])] = &[
    // Its test Pod is a test hook, and everything else is namespaced.
    ("alertmanager", &[]),
    (
        "argo-rollouts",
        &[
            "ClusterRole",
            "ClusterRoleBinding",
            "CustomResourceDefinition",
        ],
    ),
    // Its PodSecurityPolicy is policy/v1beta1, gone since Kubernetes 1.25.
    ("fluent-bit", &["ClusterRole", "ClusterRoleBinding"]),
    ("hello-world", &[]),
    (
        "ingress-nginx",
        &[
            "ClusterRole",
            "ClusterRoleBinding",
            "IngressClass",
            "ValidatingWebhookConfiguration",
        ],
    ),
    ("kube-state-metrics", &["ClusterRole", "ClusterRoleBinding"]),
    (
        "prometheus-node-exporter",
        &["ClusterRole", "ClusterRoleBinding"],
    ),
    (
        "rancher",
        &[
            "ClusterRole",
            "ClusterRoleBinding",
            "PriorityClass",
            "CustomResourceDefinition (read with lookup)",
        ],
    ),
    // Its PodSecurityPolicy is policy/v1beta1 too; Sentinel's ports ConfigMap lists the
    // Services of every namespace (`lookup "v1" "Service" "" ""`).
    ("redis", &["Service in every namespace (read with lookup)"]),
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
    assert!(plan.needs_cluster_role());
    let allows = |group: &str, resource: &str, verb: &str| {
        plan.cluster_rules
            .iter()
            .any(|r| r.allows(group, resource, verb))
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

/// A template for an API no supported Kubernetes serves.
fn removed(found: &kinds::KindRef) -> bool {
    rbac::removed_apis::removed_since(&found.api_version, &found.kind).is_some()
}

#[test]
fn rbac_is_complete_for_every_shared_chart() {
    for name in CHARTS {
        let scan = scan(name);
        assert!(!scan.kinds.is_empty(), "{name}: no kinds found");
        let plan = plan(&scan);
        for found in scan.kinds.iter().filter(|k| !removed(k)) {
            let resource = rbac::resolve(found.group(), &found.kind)
                .unwrap_or_else(|| panic!("{name}: {found:?} has no resource"));
            assert!(resource.known, "{name}: {found:?} is not in the table");
            // Namespaced objects live in the release's namespace: the Role's. Cluster-scoped
            // ones only a ClusterRole can grant.
            let rules = if resource.namespaced {
                &plan.rules
            } else {
                &plan.cluster_rules
            };
            for verb in RELEASE_VERBS {
                assert!(
                    rules
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
        for rule in plan.rules.iter().chain(&plan.cluster_rules) {
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
        // Only what the scan could not know, and templates for removed APIs, are warnings:
        // nothing unknown to the table.
        let removed_places: BTreeSet<(&str, usize)> = scan
            .kinds
            .iter()
            .filter(|k| removed(k))
            .map(|k| (k.file.as_str(), k.line))
            .collect();
        assert_eq!(
            plan.warnings.len(),
            scan.unresolved.len() + removed_places.len(),
            "{name}: {:#?}",
            plan.warnings
        );
    }
}

/// A resource the table knows as cluster-scoped.
fn cluster_scoped(group: &str, plural: &str) -> bool {
    known_kinds::KNOWN_KINDS
        .iter()
        .any(|k| k.group == group && k.plural == plural && !k.namespaced)
}

/// A read across every namespace that a `lookup` needs, and the rule says so.
fn documented_cluster_read(rule: &Rule) -> bool {
    rule.verbs.iter().all(|v| v == "get" || v == "list")
        && rule
            .comment
            .as_deref()
            .is_some_and(|c| c.contains("`lookup`") && c.contains("every namespace"))
}

#[test]
fn namespaced_charts_get_only_a_role_and_cluster_roles_hold_only_cluster_scope() {
    assert_eq!(
        CLUSTER_REASONS.iter().map(|(c, _)| *c).collect::<Vec<_>>(),
        CHARTS
    );
    for (name, reasons) in CLUSTER_REASONS {
        let plan = plan(&scan(name));
        let found: BTreeSet<&str> = plan.cluster_reasons.iter().map(String::as_str).collect();
        assert_eq!(
            found,
            reasons.iter().copied().collect::<BTreeSet<_>>(),
            "{name}: {:#?}",
            plan.cluster_rules
        );
        assert_eq!(plan.needs_cluster_role(), !reasons.is_empty(), "{name}");
        for rule in &plan.cluster_rules {
            for group in &rule.api_groups {
                for resource in &rule.resources {
                    assert!(
                        cluster_scoped(group, resource) || documented_cluster_read(rule),
                        "{name}: the ClusterRole grants namespaced {group}/{resource}: {rule:#?}"
                    );
                }
            }
        }
        // Release Secrets and the operator's own needs stay in the namespace.
        for resource in ["secrets", "events", "leases"] {
            assert!(
                !plan
                    .cluster_rules
                    .iter()
                    .any(|r| r.resources.iter().any(|x| x == resource)),
                "{name}: {resource} is cluster-wide"
            );
            assert!(
                plan.rules
                    .iter()
                    .any(|r| r.resources.iter().any(|x| x == resource)),
                "{name}: {resource} missing in the Role"
            );
        }
    }
}

#[test]
fn test_hooks_add_no_rules() {
    // alertmanager's test Pod takes `helm.sh/hook: test-success` from its default values.
    let alertmanager = scan("alertmanager");
    let hooks: Vec<_> = alertmanager
        .test_hooks
        .iter()
        .map(|k| (k.file.as_str(), k.kind.as_str()))
        .collect();
    assert_eq!(hooks, [("templates/tests/test-connection.yaml", "Pod")]);
    assert!(!alertmanager.kinds.iter().any(|k| k.kind == "Pod"));
    let plan = plan(&alertmanager);
    assert!(
        !plan
            .rules
            .iter()
            .chain(&plan.cluster_rules)
            .any(|r| r.resources.iter().any(|x| x == "pods")),
        "{:#?}",
        plan.rules
    );
    for name in CHARTS {
        let scan = scan(name);
        for hook in &scan.test_hooks {
            assert!(
                !scan
                    .kinds
                    .iter()
                    .any(|k| k.file == hook.file && k.line == hook.line),
                "{name}: {hook:?} is counted as the operator's"
            );
        }
    }
}

#[test]
fn removed_apis_do_not_widen_the_role() {
    for name in ["fluent-bit", "redis"] {
        let plan = plan(&scan(name));
        assert!(
            !plan
                .rules
                .iter()
                .chain(&plan.cluster_rules)
                .any(|r| r.resources.iter().any(|x| x == "podsecuritypolicies")),
            "{name}"
        );
        assert!(
            plan.warnings
                .iter()
                .any(|w| w.contains("PodSecurityPolicy") && w.contains("policy/v1beta1")),
            "{name}: {:#?}",
            plan.warnings
        );
    }
    // ingress-nginx picks autoscaling/v2 or v2beta2 when it renders: the served group's rule.
    let plan = plan(&scan("ingress-nginx"));
    assert!(plan.rules.iter().any(|r| r.allows(
        "autoscaling",
        "horizontalpodautoscalers",
        "patch"
    )));
    assert!(
        plan.warnings
            .iter()
            .any(|w| w.contains("autoscaling/v2beta2") && w.contains("1.33"))
    );
}

#[test]
fn rules_yaml_parses_into_a_valid_rules_list() {
    for name in CHARTS {
        let plan = plan(&scan(name));
        let text = rbac::rules_yaml(&[plan.rules.clone(), plan.cluster_rules.clone()].concat());
        assert!(text.starts_with("rules:\n"), "{name}");
        let value: serde_json::Value = operator_rs::yaml::from_str(&text)
            .unwrap_or_else(|e| panic!("{name}: rules do not parse: {e}\n{text}"));
        let rules = value["rules"].as_array().expect("rules is a list");
        assert_eq!(
            rules.len(),
            plan.rules.len() + plan.cluster_rules.len(),
            "{name}"
        );
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
        assert_eq!(
            rbac::rules_from_yaml(&text).unwrap(),
            [plan.rules, plan.cluster_rules].concat(),
            "{name}"
        );
    }
}

#[test]
fn merging_every_chart_into_one_role_is_duplicate_free_and_idempotent() {
    let scans: Vec<KindScan> = CHARTS.iter().map(|name| scan(name)).collect();
    let mut role = Vec::new();
    let mut cluster_role = Vec::new();
    for scan in &scans {
        role = rbac::merge(&role, &plan(scan).rules);
        cluster_role = rbac::merge(&cluster_role, &plan(scan).cluster_rules);
    }
    let again = scans.iter().fold(role.clone(), |role, scan| {
        rbac::merge(&role, &plan(scan).rules)
    });
    assert_eq!(again, role);
    let again = scans.iter().fold(cluster_role.clone(), |role, scan| {
        rbac::merge(&role, &plan(scan).cluster_rules)
    });
    assert_eq!(again, cluster_role);
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
    for (rules, merged) in [
        (&combined.rules, &role),
        (&combined.cluster_rules, &cluster_role),
    ] {
        for rule in rules.iter().filter(|r| r.verbs == RELEASE_VERBS) {
            for resource in &rule.resources {
                for verb in RELEASE_VERBS {
                    assert!(
                        merged
                            .iter()
                            .any(|r| r.allows(&rule.api_groups[0], resource, verb)),
                        "{resource} {verb}"
                    );
                }
            }
        }
    }
}

/// A shared chart as `new` takes it: rancher's unreleased `%VERSION%` stamped as
/// `--set-chart-version` stamps it, so that Helm (and the probe) can load it.
fn loadable_chart(name: &str) -> operator_rs::chart::Chart {
    let mut chart = operator_rs::chart::load_local(&shared_chart(name))
        .unwrap_or_else(|e| panic!("loading chart {name}: {e}"));
    if let Some(text) = chart.files.get_mut("Chart.yaml") {
        *text = String::from_utf8_lossy(text)
            .replace("%VERSION%", "1.0.0")
            .replace("%APP_VERSION%", "1.0.0")
            .into_bytes();
    }
    chart
}

/// The probe leaves out the oldest Kubernetes render when the newest shows it would come out
/// the same: on every shared chart, it finds what rendering on both finds.
#[test]
fn the_probe_finds_on_every_shared_chart_what_rendering_on_both_versions_finds() {
    let mut skipped = Vec::new();
    for name in CHARTS {
        let chart = loadable_chart(name);
        let probe = operator_rs::render::probe::probe(&chart);
        let both = operator_rs::render::probe::probe_every_version(&chart);
        assert_eq!(probe.objects, both.objects, "{name}");
        assert_eq!(probe.failures, both.failures, "{name}");
        if probe.kube_versions.len() < both.kube_versions.len() {
            skipped.push(*name);
        }
    }
    // Bitnami's `common` library asks `semverCompare` questions both versions answer alike.
    assert!(skipped.contains(&"redis"), "{skipped:?}");
    eprintln!("one Kubernetes version rendered for {skipped:?}");
}

#[test]
fn every_object_the_charts_render_is_covered_and_kinds_from_values_are_no_warning() {
    for name in CHARTS {
        let chart = loadable_chart(name);
        let probe = operator_rs::render::probe::probe(&chart);
        assert_eq!(
            probe.failures,
            vec![],
            "{name}: defaults or ci/ values fail"
        );
        assert!(!probe.objects.is_empty(), "{name}: nothing rendered");
        let scan = rbac::from_render::scan_and_render(&chart);
        let plan = plan(&scan);
        for object in &probe.objects {
            if rbac::removed_apis::removed_since(&object.api_version, &object.kind).is_some() {
                continue;
            }
            let group = kinds::group_of(&object.api_version);
            let resource = rbac::resolve(group, &object.kind)
                .unwrap_or_else(|| panic!("{name}: {object:?} has no resource"));
            let rules = if resource.namespaced && !object.elsewhere() {
                &plan.rules
            } else {
                &plan.cluster_rules
            };
            for verb in RELEASE_VERBS {
                assert!(
                    rules
                        .iter()
                        .any(|r| r.allows(&resource.group, &resource.plural, verb)),
                    "{name}: rendered {} ({}/{}) from {} with {} lacks {verb}",
                    object.kind,
                    resource.group,
                    resource.plural,
                    object.template,
                    object.values
                );
            }
        }
        // No shared chart puts an object outside the release's namespace with the values tried.
        assert_eq!(scan.elsewhere, vec![], "{name}");
        assert_eq!(scan.notes, Vec::<String>::new(), "{name}");
    }
    // redis picks its master's and replicas' kind from values (`kind: {{ .Values.master.kind }}`):
    // rendered, it is a StatefulSet, which gets its rule instead of a warning.
    let plan = plan(&rbac::from_render::scan_and_render(&loadable_chart(
        "redis",
    )));
    assert!(
        !plan
            .warnings
            .iter()
            .any(|w| w.contains("templates/master/application.yaml")),
        "{:#?}",
        plan.warnings
    );
    assert!(
        plan.rules
            .iter()
            .any(|r| r.allows("apps", "statefulsets", "create"))
    );
    // Its `extraDeploy` list renders nothing with any values tried: that stays a warning.
    assert!(
        plan.warnings
            .iter()
            .any(|w| w.contains("templates/extra-list.yaml")),
        "{:#?}",
        plan.warnings
    );
}

/// A chart of the given (path, text) files.
fn chart_of(files: &[(&str, &str)]) -> operator_rs::chart::Chart {
    let files = files
        .iter()
        .map(|(p, t)| (p.to_string(), t.as_bytes().to_vec()))
        .collect();
    operator_rs::chart::Chart::from_files("test", files).unwrap()
}

#[test]
fn a_chart_that_does_not_render_with_its_defaults_is_a_warning_naming_the_value() {
    let files = [
        (
            "Chart.yaml",
            "apiVersion: v2\nname: needs-host\nversion: 1.0.0\n",
        ),
        (
            "templates/cm.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  host: {{ required \"ingress.host is required\" .Values.host }}\n",
        ),
    ];
    let chart = chart_of(&files);
    let plan = plan(&rbac::from_render::scan_and_render(&chart));
    let warning = plan
        .warnings
        .iter()
        .find(|w| w.contains("default values"))
        .unwrap_or_else(|| panic!("{:#?}", plan.warnings));
    assert!(warning.contains("ingress.host is required"), "{warning}");
    assert!(warning.contains("needs-host"), "{warning}");
    // The text scan still gives the ConfigMap its rule.
    assert!(
        plan.rules
            .iter()
            .any(|r| r.allows("", "configmaps", "create"))
    );
}

#[test]
fn objects_rendered_into_another_namespace_are_granted_there_with_a_note() {
    let files = [
        (
            "Chart.yaml",
            "apiVersion: v2\nname: elsewhere\nversion: 1.0.0\n",
        ),
        ("values.yaml", "monitoringNamespace: monitoring\n"),
        (
            "templates/sm.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dashboards\n  namespace: {{ .Values.monitoringNamespace }}\n",
        ),
        (
            "templates/svc.yaml",
            "apiVersion: v1\nkind: Service\nmetadata:\n  name: svc\n  namespace: {{ .Release.Namespace }}\n",
        ),
    ];
    let chart = chart_of(&files);
    let plan = plan(&rbac::from_render::scan_and_render(&chart));
    assert!(
        plan.cluster_rules
            .iter()
            .any(|r| r.allows("", "configmaps", "create")),
        "{:#?}",
        plan.cluster_rules
    );
    assert!(
        !plan
            .cluster_rules
            .iter()
            .any(|r| r.allows("", "services", "create")),
        "the Service follows the release: {:#?}",
        plan.cluster_rules
    );
    assert!(
        plan.cluster_reasons
            .iter()
            .any(|r| r == "ConfigMap in namespace monitoring"),
        "{:?}",
        plan.cluster_reasons
    );
    assert!(
        plan.warnings
            .iter()
            .any(|w| w.contains("namespace monitoring") && w.contains("templates/sm.yaml")),
        "{:#?}",
        plan.warnings
    );
}
