use std::collections::BTreeSet;

use super::*;
use crate::chart::kinds::{KindRef, LookupRef, Unresolved};

fn kind(api_version: &str, kind: &str) -> KindRef {
    KindRef {
        api_version: api_version.to_string(),
        kind: kind.to_string(),
        file: "templates/x.yaml".to_string(),
        line: 3,
        api_version_templated: false,
    }
}

fn scan_of(kinds: &[(&str, &str)]) -> KindScan {
    KindScan {
        kinds: kinds.iter().map(|(a, k)| kind(a, k)).collect(),
        ..KindScan::default()
    }
}

fn api() -> Vec<OwnedApi> {
    vec![OwnedApi {
        group: "charts.example.com".to_string(),
        plural: "hellos".to_string(),
    }]
}

/// The Role grants every verb.
fn allows_all(plan: &RbacPlan, group: &str, resource: &str, verbs: &[&str]) -> bool {
    grants(&plan.rules, group, resource, verbs)
}

/// The ClusterRole grants every verb.
fn cluster_allows_all(plan: &RbacPlan, group: &str, resource: &str, verbs: &[&str]) -> bool {
    grants(&plan.cluster_rules, group, resource, verbs)
}

fn grants(rules: &[Rule], group: &str, resource: &str, verbs: &[&str]) -> bool {
    verbs
        .iter()
        .all(|verb| rules.iter().any(|r| r.allows(group, resource, verb)))
}

#[test]
fn the_operator_itself_is_covered() {
    let plan = helm_operator_rules(&[&scan_of(&[])], &api());
    assert!(!plan.needs_cluster_role());
    assert!(plan.cluster_reasons.is_empty());
    assert!(plan.warnings.is_empty());
    assert!(allows_all(
        &plan,
        "charts.example.com",
        "hellos",
        RELEASE_VERBS
    ));
    assert!(allows_all(
        &plan,
        "charts.example.com",
        "hellos/status",
        &["get", "patch", "update"]
    ));
    assert!(allows_all(
        &plan,
        "charts.example.com",
        "hellos/finalizers",
        &["update"]
    ));
    assert!(!allows_all(
        &plan,
        "charts.example.com",
        "hellos/finalizers",
        &["delete"]
    ));
    assert!(allows_all(
        &plan,
        "",
        "secrets",
        &["create", "delete", "get", "list", "update", "watch"]
    ));
    assert!(!allows_all(&plan, "", "secrets", &["patch"]));
    assert!(allows_all(&plan, "", "events", &["create", "patch"]));
    // The helm-operator records events through the core API only.
    assert!(!plan.rules.iter().any(|r| r.api_groups == ["events.k8s.io"]));
    assert!(allows_all(
        &plan,
        "coordination.k8s.io",
        "leases",
        &["get", "create", "update"]
    ));
    assert!(allows_all(&plan, "", "namespaces", &["get"]));
    for rule in &plan.rules {
        assert!(rule.comment.is_some(), "every rule says why: {rule:?}");
        for list in [&rule.api_groups, &rule.resources, &rule.verbs] {
            assert!(
                !list.iter().any(|v| v.contains('*')),
                "no wildcards: {rule:?}"
            );
        }
    }
}

#[test]
fn release_objects_get_the_release_verbs_grouped_by_api_group() {
    let scan = scan_of(&[
        ("apps/v1", "Deployment"),
        ("v1", "Service"),
        ("apps/v1", "StatefulSet"),
        ("gateway.networking.k8s.io/v1", "HTTPRoute"),
        ("", "PodDisruptionBudget"),
    ]);
    let plan = helm_operator_rules(&[&scan], &api());
    assert!(!plan.needs_cluster_role());
    let apps: Vec<_> = plan
        .rules
        .iter()
        .filter(|r| r.api_groups == ["apps"])
        .collect();
    assert_eq!(apps.len(), 1);
    assert_eq!(apps[0].resources, ["deployments", "statefulsets"]);
    assert_eq!(apps[0].verbs, RELEASE_VERBS);
    assert!(
        apps[0]
            .comment
            .as_ref()
            .unwrap()
            .contains("Deployment, StatefulSet")
    );
    assert!(allows_all(&plan, "", "services", RELEASE_VERBS));
    assert!(allows_all(
        &plan,
        "gateway.networking.k8s.io",
        "httproutes",
        RELEASE_VERBS
    ));
    // The template computes the apiVersion: the table's group is used.
    assert!(allows_all(
        &plan,
        "policy",
        "poddisruptionbudgets",
        RELEASE_VERBS
    ));
    // Release rules come in sorted group order.
    let groups: Vec<_> = plan
        .rules
        .iter()
        .filter(|r| r.verbs == RELEASE_VERBS && r.comment.as_ref().unwrap().starts_with("Objects"))
        .map(|r| r.api_groups[0].as_str())
        .collect();
    assert_eq!(groups, ["", "apps", "gateway.networking.k8s.io", "policy"]);
}

#[test]
fn cluster_scoped_kinds_go_into_a_cluster_role_and_namespaced_ones_stay_in_the_role() {
    let plan = helm_operator_rules(
        &[&scan_of(&[
            ("rbac.authorization.k8s.io/v1", "ClusterRole"),
            ("rbac.authorization.k8s.io/v1", "ClusterRoleBinding"),
            ("rbac.authorization.k8s.io/v1", "RoleBinding"),
            ("rbac.authorization.k8s.io/v1", "Role"),
            ("apps/v1", "Deployment"),
        ])],
        &api(),
    );
    assert!(plan.needs_cluster_role());
    assert_eq!(plan.cluster_reasons, ["ClusterRole", "ClusterRoleBinding"]);
    // The ClusterRole holds only cluster-scoped resources.
    let cluster_resources: BTreeSet<&str> = plan
        .cluster_rules
        .iter()
        .flat_map(|r| r.resources.iter().map(String::as_str))
        .collect();
    assert_eq!(
        cluster_resources,
        BTreeSet::from(["clusterrolebindings", "clusterroles"])
    );
    assert!(cluster_allows_all(
        &plan,
        "rbac.authorization.k8s.io",
        "clusterroles",
        RELEASE_VERBS
    ));
    assert!(!cluster_allows_all(&plan, "apps", "deployments", &["get"]));
    assert!(!cluster_allows_all(&plan, "", "secrets", &["get"]));
    // Everything namespaced is the Role's, release Secrets included.
    assert!(allows_all(&plan, "apps", "deployments", RELEASE_VERBS));
    assert!(allows_all(
        &plan,
        "rbac.authorization.k8s.io",
        "rolebindings",
        RELEASE_VERBS
    ));
    assert!(allows_all(&plan, "", "secrets", &["get", "create"]));
    assert!(!allows_all(
        &plan,
        "rbac.authorization.k8s.io",
        "clusterroles",
        &["create"]
    ));
    let cluster_objects = plan
        .cluster_rules
        .iter()
        .find(|r| r.verbs == RELEASE_VERBS)
        .unwrap();
    assert!(
        cluster_objects
            .comment
            .as_ref()
            .unwrap()
            .contains("Cluster-scoped objects the chart creates (ClusterRole, ClusterRoleBinding)"),
        "{cluster_objects:?}"
    );

    // escalate and bind where the API server checks them: roles and role bindings in the
    // namespace, cluster roles and their bindings at cluster scope.
    let with = |rules: &[Rule], verb: &str| -> Vec<Vec<String>> {
        rules
            .iter()
            .filter(|r| r.verbs == [verb])
            .map(|r| r.resources.clone())
            .collect()
    };
    assert_eq!(with(&plan.rules, "escalate"), [vec!["roles".to_string()]]);
    assert_eq!(
        with(&plan.rules, "bind"),
        [vec!["clusterroles".to_string(), "roles".to_string()]]
    );
    assert_eq!(
        with(&plan.cluster_rules, "escalate"),
        [vec!["clusterroles".to_string()]]
    );
    assert_eq!(
        with(&plan.cluster_rules, "bind"),
        [vec!["clusterroles".to_string()]]
    );

    let plan = helm_operator_rules(&[&scan_of(&[("v1", "Service")])], &api());
    assert!(
        !plan
            .rules
            .iter()
            .any(|r| r.verbs == ["escalate"] || r.verbs == ["bind"])
    );

    for cluster_kind in [
        ("v1", "Namespace"),
        ("apiextensions.k8s.io/v1", "CustomResourceDefinition"),
        ("cert-manager.io/v1", "ClusterIssuer"),
        ("gateway.networking.k8s.io/v1", "GatewayClass"),
        ("scheduling.k8s.io/v1", "PriorityClass"),
    ] {
        let plan = helm_operator_rules(&[&scan_of(&[cluster_kind])], &api());
        assert!(plan.needs_cluster_role(), "{cluster_kind:?}");
        let found = kind(cluster_kind.0, cluster_kind.1);
        let resource = resolve(found.group(), &found.kind).unwrap();
        assert!(cluster_allows_all(
            &plan,
            &resource.group,
            &resource.plural,
            RELEASE_VERBS
        ));
        assert!(
            !allows_all(&plan, &resource.group, &resource.plural, &["create"]),
            "{cluster_kind:?} stays out of the Role"
        );
    }
}

#[test]
fn removed_apis_add_no_rule_or_the_current_one_and_warn() {
    let mut psp = kind("policy/v1beta1", "PodSecurityPolicy");
    psp.file = "templates/psp.yaml".to_string();
    let mut old_ingress = kind("extensions/v1beta1", "Ingress");
    old_ingress.file = "templates/ingress.yaml".to_string();
    old_ingress.api_version_templated = true;
    let mut hpa = kind("autoscaling/v2", "HorizontalPodAutoscaler");
    hpa.file = "templates/hpa.yaml".to_string();
    hpa.api_version_templated = true;
    let mut old_hpa = hpa.clone();
    old_hpa.api_version = "autoscaling/v2beta2".to_string();
    let mut literal_old = kind("extensions/v1beta1", "Ingress");
    literal_old.file = "templates/legacy.yaml".to_string();
    let scan = KindScan {
        kinds: vec![psp, old_ingress, hpa, old_hpa, literal_old],
        ..KindScan::default()
    };
    let plan = helm_operator_rules(&[&scan], &api());
    // PodSecurityPolicy is gone: no rule, and it does not make a ClusterRole.
    assert!(!plan.needs_cluster_role(), "{:#?}", plan.cluster_rules);
    assert!(
        !plan
            .rules
            .iter()
            .any(|r| r.resources.contains(&"podsecuritypolicies".to_string()))
    );
    // The Ingress template picks its apiVersion when it renders: the current group's rule.
    assert!(allows_all(
        &plan,
        "networking.k8s.io",
        "ingresses",
        RELEASE_VERBS
    ));
    assert!(!plan.rules.iter().any(|r| r.api_groups == ["extensions"]));
    assert!(allows_all(
        &plan,
        "autoscaling",
        "horizontalpodautoscalers",
        RELEASE_VERBS
    ));
    let warned = |file: &str, api: &str| {
        plan.warnings
            .iter()
            .any(|w| w.starts_with(&format!("{file}:3:")) && w.contains(api) && w.contains("1.33"))
    };
    assert!(
        warned("templates/psp.yaml", "policy/v1beta1"),
        "{:#?}",
        plan.warnings
    );
    assert!(warned("templates/ingress.yaml", "extensions/v1beta1"));
    assert!(warned("templates/hpa.yaml", "autoscaling/v2beta2"));
    assert!(warned("templates/legacy.yaml", "extensions/v1beta1"));
    assert_eq!(plan.warnings.len(), 4, "{:#?}", plan.warnings);
}

#[test]
fn secrets_the_chart_writes_get_every_verb() {
    let plan = helm_operator_rules(&[&scan_of(&[("v1", "Secret")])], &api());
    assert!(allows_all(&plan, "", "secrets", RELEASE_VERBS));
    let secrets: Vec<_> = plan
        .rules
        .iter()
        .filter(|r| r.resources.contains(&"secrets".to_string()))
        .collect();
    assert_eq!(secrets.len(), 1, "one rule for secrets: {secrets:#?}");
    assert!(
        secrets[0]
            .comment
            .as_ref()
            .unwrap()
            .contains("release storage")
    );
    assert!(
        secrets[0]
            .comment
            .as_ref()
            .unwrap()
            .contains("templates/x.yaml")
    );

    let mut from_values = scan_of(&[("v1", "ConfigMap")]);
    from_values.unresolved.push(Unresolved {
        file: "templates/extra-manifests.yaml".to_string(),
        line: 4,
        text: "{{ tpl (toYaml .) $ }}".to_string(),
    });
    let plan = helm_operator_rules(&[&from_values], &api());
    assert!(allows_all(&plan, "", "secrets", RELEASE_VERBS));
    assert!(plan.rules.iter().any(|r| {
        r.comment
            .as_ref()
            .unwrap()
            .contains("templates/extra-manifests.yaml:4")
    }));
}

#[test]
fn unknown_and_unresolved_kinds_are_warnings_not_wildcards() {
    let mut scan = scan_of(&[
        ("widgets.example.io/v1", "Gizmo"),
        ("widgets.example.io/v1", "Gizmo"),
        ("", "Mystery"),
    ]);
    scan.unresolved.push(Unresolved {
        file: "templates/custom.yaml".to_string(),
        line: 7,
        text: "kind: {{ .Values.kind }}".to_string(),
    });
    let plan = helm_operator_rules(&[&scan], &api());
    assert!(allows_all(
        &plan,
        "widgets.example.io",
        "gizmos",
        RELEASE_VERBS
    ));
    assert_eq!(plan.warnings.len(), 3, "{:#?}", plan.warnings);
    assert!(plan.warnings.iter().any(
        |w| w.starts_with("templates/custom.yaml:7:") && w.contains("kind: {{ .Values.kind }}")
    ));
    assert!(plan.warnings.iter().any(|w| w.contains("Gizmo")
        && w.contains("\"gizmos\"")
        && w.contains("templates/x.yaml:3")));
    assert!(plan.warnings.iter().any(|w| w.contains("Mystery")));
}

#[test]
fn lookups_grant_reads_and_may_need_cluster_scope() {
    let mut scan = scan_of(&[("v1", "Secret")]);
    scan.lookups = vec![
        LookupRef {
            api_version: "v1".to_string(),
            kind: "Secret".to_string(),
            all_namespaces: false,
            lists: false,
            file: "templates/secret.yaml".to_string(),
            line: 3,
        },
        LookupRef {
            api_version: "apiextensions.k8s.io/v1".to_string(),
            kind: "CustomResourceDefinition".to_string(),
            all_namespaces: true,
            lists: false,
            file: "templates/_helpers.tpl".to_string(),
            line: 188,
        },
        LookupRef {
            api_version: "v1".to_string(),
            kind: "ConfigMap".to_string(),
            all_namespaces: false,
            lists: true,
            file: "templates/cm.yaml".to_string(),
            line: 1,
        },
    ];
    let plan = helm_operator_rules(&[&scan], &api());
    assert!(plan.needs_cluster_role());
    assert_eq!(
        plan.cluster_reasons,
        ["CustomResourceDefinition (read with lookup)"]
    );
    assert!(cluster_allows_all(
        &plan,
        "apiextensions.k8s.io",
        "customresourcedefinitions",
        &["get"]
    ));
    assert!(!cluster_allows_all(
        &plan,
        "apiextensions.k8s.io",
        "customresourcedefinitions",
        &["list"]
    ));
    assert_eq!(plan.cluster_rules.len(), 1, "{:#?}", plan.cluster_rules);
    assert!(allows_all(&plan, "", "configmaps", &["list"]));
    assert!(!allows_all(&plan, "", "configmaps", &["get"]));
    // Secrets are created by the chart already: no extra read rule.
    let lookup_rules = plan
        .rules
        .iter()
        .chain(&plan.cluster_rules)
        .filter(|r| r.comment.as_ref().unwrap().contains("lookup"))
        .count();
    assert_eq!(lookup_rules, 2);

    // A namespaced kind read across every namespace needs the ClusterRole, even when the
    // chart creates that kind in its own namespace.
    let mut wide = scan_of(&[("v1", "ConfigMap")]);
    wide.lookups = vec![LookupRef {
        api_version: "v1".to_string(),
        kind: "ConfigMap".to_string(),
        all_namespaces: true,
        lists: true,
        file: "templates/cm.yaml".to_string(),
        line: 1,
    }];
    let plan = helm_operator_rules(&[&wide], &api());
    assert_eq!(
        plan.cluster_reasons,
        ["ConfigMap in every namespace (read with lookup)"]
    );
    assert!(cluster_allows_all(&plan, "", "configmaps", &["list"]));
    assert!(!cluster_allows_all(&plan, "", "configmaps", &["get"]));
}

#[test]
fn rules_yaml_is_valid_yaml_with_comments() {
    let plan = helm_operator_rules(
        &[&scan_of(&[("apps/v1", "Deployment"), ("v1", "ConfigMap")])],
        &api(),
    );
    let text = rules_yaml(&plan.rules);
    assert!(text.starts_with("rules:\n# The custom resources"), "{text}");
    assert!(
        text.contains("- apiGroups:\n  - \"\"\n  resources:\n  - configmaps\n"),
        "{text}"
    );
    let value: serde_json::Value = crate::yaml::from_str(&text).unwrap();
    let rules = value["rules"].as_array().unwrap();
    assert_eq!(rules.len(), plan.rules.len());
    for (parsed, rule) in rules.iter().zip(&plan.rules) {
        assert_eq!(parsed["apiGroups"], serde_json::json!(rule.api_groups));
        assert_eq!(parsed["resources"], serde_json::json!(rule.resources));
        assert_eq!(parsed["verbs"], serde_json::json!(rule.verbs));
    }
    // Read back, comments included.
    assert_eq!(rules_from_yaml(&text).unwrap(), plan.rules);
    assert_eq!(rules_yaml(&[]), "rules: []\n");
}

#[test]
fn rules_from_yaml_reads_a_role_and_refuses_what_it_cannot_merge() {
    let role = "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: x\nrules:\n  # why\n  - apiGroups: [\"\"]\n    resources: [pods]\n    verbs: [get]\n";
    let rules = rules_from_yaml(role).unwrap();
    assert_eq!(rules, [Rule::new("", ["pods"], &["get"], "why")]);

    let named = "rules:\n- apiGroups: [\"\"]\n  resources: [secrets]\n  resourceNames: [one]\n  verbs: [get]\n";
    let err = rules_from_yaml(named).unwrap_err().to_string();
    assert!(
        err.contains("rule 1") && err.contains("resourceNames"),
        "{err}"
    );
    assert!(
        rules_from_yaml("kind: Role\n")
            .unwrap_err()
            .to_string()
            .contains("rules:")
    );
}

#[test]
fn merge_is_a_duplicate_free_idempotent_union_in_stable_order() {
    let a = helm_operator_rules(
        &[&scan_of(&[("apps/v1", "Deployment"), ("v1", "Service")])],
        &api(),
    );
    let second_api = vec![OwnedApi {
        group: "charts.example.com".to_string(),
        plural: "backups".to_string(),
    }];
    let b = helm_operator_rules(
        &[&scan_of(&[
            ("apps/v1", "Deployment"),
            ("batch/v1", "Job"),
            ("v1", "ConfigMap"),
        ])],
        &second_api,
    );
    let merged = merge(&a.rules, &b.rules);
    // Existing rules first, untouched and in order.
    assert_eq!(&merged[..a.rules.len()], a.rules.as_slice());
    // Nothing added twice; what b needs is all there.
    for rule in &b.rules {
        for group in &rule.api_groups {
            for resource in &rule.resources {
                for verb in &rule.verbs {
                    assert!(
                        merged.iter().any(|r| r.allows(group, resource, verb)),
                        "{group}/{resource} {verb}"
                    );
                }
            }
        }
    }
    let core_release: Vec<_> = merged
        .iter()
        .filter(|r| r.api_groups == [""] && r.verbs == RELEASE_VERBS)
        .collect();
    assert_eq!(core_release.len(), 2);
    assert_eq!(core_release[1].resources, ["configmaps"]);
    assert!(
        !merged
            .iter()
            .skip(a.rules.len())
            .any(|r| r.resources.contains(&"deployments".to_string()))
    );
    for (i, x) in merged.iter().enumerate() {
        for y in &merged[i + 1..] {
            assert!(
                !(x.api_groups == y.api_groups && x.resources == y.resources && x.verbs == y.verbs)
            );
        }
    }
    // Idempotent.
    assert_eq!(merge(&merged, &b.rules), merged);
    assert_eq!(merge(&merged, &merged), merged);
    assert_eq!(merge(&a.rules, &a.rules), a.rules);
    // Exact duplicates in the existing role are dropped.
    let doubled: Vec<Rule> = a.rules.iter().chain(a.rules.iter()).cloned().collect();
    assert_eq!(merge(&doubled, &[]), a.rules);
}

#[test]
fn comments_are_wrapped_to_fit_ninety_columns() {
    let rule = Rule::new(
        "",
        ["pods"],
        &["get"],
        format!("{}\nsecond paragraph", "word ".repeat(40)),
    );
    let comment = rule.comment.unwrap();
    assert!(comment.lines().all(|l| l.len() <= 88), "{comment}");
    assert!(comment.ends_with("\nsecond paragraph"));
    assert_eq!(Rule::new("", ["pods"], &["get"], "").comment, None);
}
