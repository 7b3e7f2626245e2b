use std::collections::BTreeMap;
use std::io::Write;

use super::*;

fn chart(files: &[(&str, &str)]) -> Chart {
    let mut map = BTreeMap::new();
    map.insert(
        "Chart.yaml".to_string(),
        b"apiVersion: v2\nname: test\nversion: 0.1.0\n".to_vec(),
    );
    for (path, text) in files {
        map.insert(path.to_string(), text.as_bytes().to_vec());
    }
    Chart::from_files("test", map).unwrap()
}

/// `(apiVersion, kind)` pairs found, in order.
fn pairs(scan: &KindScan) -> Vec<(String, String)> {
    scan.kinds
        .iter()
        .map(|k| (k.api_version.clone(), k.kind.clone()))
        .collect()
}

fn pair(api: &str, kind: &str) -> (String, String) {
    (api.to_string(), kind.to_string())
}

#[test]
fn top_level_kinds_of_every_document_count_nested_ones_do_not() {
    let scan = scan(&chart(&[(
        "templates/rbac.yaml",
        "{{- if .Values.rbac.create }}\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nroleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: ClusterRole\n  name: x\nsubjects:\n- kind: ServiceAccount\n  name: x\n---\nkind: Role # comment\napiVersion: \"rbac.authorization.k8s.io/v1\"\n{{- end }}\n",
    )]));
    assert_eq!(
        pairs(&scan),
        [
            pair("rbac.authorization.k8s.io/v1", "ClusterRoleBinding"),
            pair("rbac.authorization.k8s.io/v1", "Role"),
        ]
    );
    assert_eq!(scan.kinds[0].line, 3);
    assert_eq!(scan.kinds[1].line, 12);
    assert!(scan.unresolved.is_empty());
}

#[test]
fn helpers_notes_and_comments_are_skipped() {
    let scan = scan(&chart(&[
        ("templates/_helpers.tpl", "apiVersion: v1\nkind: Secret\n"),
        ("templates/NOTES.txt", "apiVersion: v1\nkind: Secret\n"),
        (
            "templates/cm.yaml",
            "{{/*\napiVersion: v1\nkind: Secret\n*/}}\napiVersion: v1\nkind: ConfigMap\n",
        ),
    ]));
    assert_eq!(pairs(&scan), [pair("v1", "ConfigMap")]);
    assert_eq!(scan.kinds[0].line, 6);
}

#[test]
fn templated_kinds_with_defaults_and_branches() {
    let scan = scan(&chart(&[
        (
            "templates/route.yaml",
            "{{- range $name, $route := .Values.route }}\n---\napiVersion: {{ $route.apiVersion | default \"gateway.networking.k8s.io/v1\" }}\nkind: {{ $route.kind | default \"HTTPRoute\" }}\n{{- end }}\n",
        ),
        (
            "templates/workload.yaml",
            "apiVersion: apps/v1\n{{- if .Values.sharded }}\nkind: StatefulSet\n{{- else }}\nkind: Deployment\n{{- end }}\n",
        ),
        (
            "templates/pdb.yaml",
            "apiVersion: {{ if semverCompare \">=1.21-0\" .Capabilities.KubeVersion.GitVersion }}policy/v1{{ else }}policy/v1beta1{{ end }}\nkind: PodDisruptionBudget\n",
        ),
        (
            "templates/role.yaml",
            "apiVersion: rbac.authorization.k8s.io/v1\nkind: {{ ternary \"ClusterRole\" \"Role\" .Values.cluster }}\n",
        ),
        (
            "templates/hpa.yaml",
            "apiVersion: autoscaling/{{ ternary \"v2\" \"v2beta2\" .x }}\nkind: HorizontalPodAutoscaler\n",
        ),
        (
            "templates/default-first.yaml",
            "apiVersion: {{ default \"monitoring.coreos.com/v1\" .Values.apiVersion }}\nkind: ServiceMonitor\n",
        ),
    ]));
    assert_eq!(
        pairs(&scan),
        [
            pair("monitoring.coreos.com/v1", "ServiceMonitor"),
            pair("autoscaling/v2", "HorizontalPodAutoscaler"),
            pair("autoscaling/v2beta2", "HorizontalPodAutoscaler"),
            pair("policy/v1", "PodDisruptionBudget"),
            pair("policy/v1beta1", "PodDisruptionBudget"),
            pair("rbac.authorization.k8s.io/v1", "ClusterRole"),
            pair("rbac.authorization.k8s.io/v1", "Role"),
            pair("gateway.networking.k8s.io/v1", "HTTPRoute"),
            pair("apps/v1", "StatefulSet"),
            pair("apps/v1", "Deployment"),
        ]
    );
}

#[test]
fn api_versions_printed_by_helpers_are_followed() {
    let scan = scan(&chart(&[
        (
            "templates/_helpers.tpl",
            "{{- define \"x.ingress.apiVersion\" -}}\n{{- if semverCompare \"<1.19-0\" .Capabilities.KubeVersion.GitVersion -}}\n{{- print \"networking.k8s.io/v1beta1\" -}}\n{{- else -}}\n{{- print \"networking.k8s.io/v1\" -}}\n{{- end -}}\n{{- end -}}\n{{- define \"x.deploy.apiVersion\" -}}{{ include \"x.inner\" . }}{{- end -}}\n{{- define \"x.inner\" -}}apps/v1{{- end -}}\n",
        ),
        (
            "templates/ingress.yaml",
            "apiVersion: {{ include \"x.ingress.apiVersion\" . }}\nkind: Ingress\n---\napiVersion: {{ template \"x.deploy.apiVersion\" . }}\nkind: Deployment\n---\napiVersion: {{ include \"missing.apiVersion\" . }}\nkind: DaemonSet\n",
        ),
    ]));
    assert_eq!(
        pairs(&scan),
        [
            pair("networking.k8s.io/v1", "Ingress"),
            pair("networking.k8s.io/v1beta1", "Ingress"),
            pair("apps/v1", "Deployment"),
            pair("", "DaemonSet"),
        ]
    );
}

#[test]
fn kinds_without_a_literal_are_unresolved_with_their_line() {
    let scan = scan(&chart(&[
        (
            "templates/custom.yaml",
            "apiVersion: {{ .Values.apiVersion }}\nkind: {{ .Values.kind }}\nmetadata:\n  name: x\n",
        ),
        (
            "templates/extra.yaml",
            "{{ range .Values.extraObjects }}\n---\n{{ tpl (toYaml .) $ }}\n{{ end }}\n",
        ),
        ("templates/empty.yaml", "{{- if false }}\n{{- end }}\n"),
    ]));
    assert!(scan.kinds.is_empty(), "{:?}", scan.kinds);
    let found: Vec<_> = scan
        .unresolved
        .iter()
        .map(|u| (u.file.as_str(), u.line, u.text.as_str()))
        .collect();
    assert_eq!(
        found,
        [
            ("templates/custom.yaml", 2, "kind: {{ .Values.kind }}"),
            ("templates/extra.yaml", 3, "{{ tpl (toYaml .) $ }}"),
        ]
    );
}

#[test]
fn list_items_are_objects_the_list_is_not() {
    let scan = scan(&chart(&[
        (
            "templates/list.yaml",
            "{{- if .Values.perReplica }}\napiVersion: v1\nkind: List\nmetadata:\n  name: x\nitems:\n{{- range $i, $e := until 3 }}\n  - kind: Ingress\n    apiVersion: {{ include \"x.ingress.apiVersion\" $ }}\n    metadata:\n      ownerReferences:\n        - kind: StatefulSet\n          apiVersion: apps/v1\n    spec:\n      rules:\n        - host: x\n  - apiVersion: v1\n    kind: Service\n{{- end }}\n{{- end }}\n",
        ),
        (
            "templates/_helpers.tpl",
            "{{- define \"x.ingress.apiVersion\" -}}\n{{- printf \"networking.k8s.io/v1\" }}\n{{- end }}\n",
        ),
    ]));
    assert_eq!(
        pairs(&scan),
        [
            pair("networking.k8s.io/v1", "Ingress"),
            pair("v1", "Service")
        ]
    );
    assert_eq!(scan.kinds[0].line, 8);
    assert_eq!(scan.kinds[1].line, 18);
}

#[test]
fn documents_from_helpers_included_at_the_top_level() {
    let scan = scan(&chart(&[
        (
            "templates/_roles.tpl",
            "{{- define \"x.role\" }}\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  labels:\n{{ include \"x.labels\" . | indent 4 }}\n{{- end }}\n{{- define \"x.labels\" }}\nkind: NotAnObject\n{{- end }}\n",
        ),
        (
            "templates/roles.yaml",
            "{{- range .Values.components }}\n{{- include \"x.role\" . }}\n{{- end }}\n",
        ),
    ]));
    assert_eq!(pairs(&scan), [pair("rbac.authorization.k8s.io/v1", "Role")]);
    assert_eq!(scan.kinds[0].file, "templates/_roles.tpl");
    assert_eq!(scan.kinds[0].line, 4);
}

#[test]
fn lookups_are_found_in_every_template_file() {
    let scan = scan(&chart(&[
        (
            "templates/_helpers.tpl",
            "{{- define \"x.check\" -}}\n{{- $crd := (lookup \"apiextensions.k8s.io/v1\" \"CustomResourceDefinition\" \"\" \"certificates.cert-manager.io\") -}}\n{{- end -}}\n",
        ),
        (
            "templates/secret.yaml",
            "{{- $existing := lookup \"v1\" \"Secret\" .Release.Namespace \"\" -}}\napiVersion: v1\nkind: Secret\n",
        ),
        ("templates/NOTES.txt", "{{ lookup $v $k \"\" \"\" }}\n"),
    ]));
    let lookups: Vec<_> = scan
        .lookups
        .iter()
        .map(|l| (l.kind.as_str(), l.all_namespaces, l.lists, l.line))
        .collect();
    assert_eq!(
        lookups,
        [
            ("CustomResourceDefinition", true, false, 2),
            ("Secret", false, true, 1)
        ]
    );
    assert_eq!(scan.unresolved.len(), 1);
    assert_eq!(scan.unresolved[0].file, "templates/NOTES.txt");
}

#[test]
fn calls_lookup_sees_templates_of_subcharts_and_nothing_else() {
    let call = "{{- $s := lookup \"v1\" \"Secret\" .Release.Namespace \"x\" -}}\n";
    assert!(!calls_lookup(&chart(&[(
        "templates/cm.yaml",
        "# a lookup in text\n{{/* lookup \"v1\" \"Secret\" \"\" \"\" */}}\nkind: ConfigMap\n"
    )])));
    assert!(!calls_lookup(&chart(&[("files/script.tpl", call)])));
    assert!(calls_lookup(&chart(&[("templates/_helpers.tpl", call)])));
    assert!(calls_lookup(&chart(&[
        (
            "charts/common/Chart.yaml",
            "apiVersion: v2\nname: common\nversion: 1.0.0\n"
        ),
        ("charts/common/templates/_secrets.tpl", call),
    ])));
}

fn tgz(top: &str, files: &[(&str, &str)]) -> Vec<u8> {
    let mut builder = tar::Builder::new(flate2::write::GzEncoder::new(
        Vec::new(),
        flate2::Compression::fast(),
    ));
    for (path, text) in files {
        let mut header = tar::Header::new_gnu();
        header.set_size(text.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        builder
            .append_data(&mut header, format!("{top}/{path}"), text.as_bytes())
            .unwrap();
    }
    let mut gz = builder.into_inner().unwrap();
    gz.flush().unwrap();
    gz.finish().unwrap()
}

#[test]
fn subcharts_in_directories_and_archives_are_scanned_recursively() {
    let inner = tgz(
        "inner",
        &[
            (
                "Chart.yaml",
                "apiVersion: v2\nname: inner\nversion: 1.0.0\n",
            ),
            ("templates/job.yaml", "apiVersion: batch/v1\nkind: Job\n"),
        ],
    );
    let mut outer_files = vec![
        (
            "Chart.yaml",
            "apiVersion: v2\nname: outer\nversion: 1.0.0\n",
        ),
        ("templates/cm.yaml", "apiVersion: v1\nkind: ConfigMap\n"),
    ];
    // The nested archive goes in as bytes below.
    outer_files.push((
        "crds/crd.yaml",
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n",
    ));
    let mut outer_builder = tar::Builder::new(flate2::write::GzEncoder::new(
        Vec::new(),
        flate2::Compression::fast(),
    ));
    for (path, text) in &outer_files {
        let mut header = tar::Header::new_gnu();
        header.set_size(text.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        outer_builder
            .append_data(&mut header, format!("outer/{path}"), text.as_bytes())
            .unwrap();
    }
    let mut header = tar::Header::new_gnu();
    header.set_size(inner.len() as u64);
    header.set_mode(0o644);
    header.set_cksum();
    outer_builder
        .append_data(
            &mut header,
            "outer/charts/inner-1.0.0.tgz",
            inner.as_slice(),
        )
        .unwrap();
    let outer = outer_builder.into_inner().unwrap().finish().unwrap();

    let mut parent = chart(&[
        (
            "charts/dir/Chart.yaml",
            "apiVersion: v2\nname: dir\nversion: 1.0.0\n",
        ),
        (
            "charts/dir/templates/svc.yaml",
            "apiVersion: v1\nkind: Service\n",
        ),
        ("charts/dir/templates/_h.tpl", "kind: Secret\n"),
    ]);
    parent
        .files
        .insert("charts/outer-1.0.0.tgz".to_string(), outer);
    parent
        .files
        .insert("charts/broken-1.0.0.tgz".to_string(), b"not gzip".to_vec());
    let scan = scan(&parent);
    let found: Vec<_> = scan
        .kinds
        .iter()
        .map(|k| (k.file.as_str(), k.kind.as_str()))
        .collect();
    assert_eq!(
        found,
        [
            ("charts/dir/templates/svc.yaml", "Service"),
            (
                "charts/outer-1.0.0.tgz/charts/inner-1.0.0.tgz/templates/job.yaml",
                "Job"
            ),
            (
                "charts/outer-1.0.0.tgz/crds/crd.yaml",
                "CustomResourceDefinition"
            ),
            ("charts/outer-1.0.0.tgz/templates/cm.yaml", "ConfigMap"),
        ]
    );
    assert_eq!(scan.unresolved.len(), 1);
    assert_eq!(scan.unresolved[0].file, "charts/broken-1.0.0.tgz");
}

#[test]
fn groups_of_api_versions() {
    let kind = |api: &str| KindRef {
        api_version: api.to_string(),
        kind: "X".to_string(),
        file: String::new(),
        line: 1,
        api_version_templated: false,
    };
    assert_eq!(kind("v1").group(), Some(""));
    assert_eq!(kind("apps/v1").group(), Some("apps"));
    assert_eq!(kind("autoscaling/").group(), Some("autoscaling"));
    assert_eq!(kind("").group(), None);
}

#[test]
fn helpers_that_print_values_at_the_top_level_are_unresolved_where_included() {
    let scan = scan(&chart(&[
        (
            "templates/_tplvalues.tpl",
            "{{- define \"common.tplvalues.render\" -}}\n{{- $value := typeIs \"string\" .value | ternary .value (.value | toYaml) }}\n{{- if contains \"{{\" (toJson .value) }}\n  {{- tpl $value .context }}\n{{- else }}\n    {{- $value }}\n{{- end }}\n{{- end -}}\n{{- define \"x.validate\" -}}\n{{- if not .Values.ok }}{{ fail \"not ok\" }}{{ end }}\n{{- end -}}\n",
        ),
        (
            "templates/extra-list.yaml",
            "{{- include \"x.validate\" . }}\n{{- range .Values.extraDeploy }}\n---\n{{ include \"common.tplvalues.render\" (dict \"value\" . \"context\" $) }}\n{{- end }}\n",
        ),
        (
            "templates/commented.yaml",
            "{{/* {{ lookup \"v1\" \"Secret\" \"\" \"\" }} */}}\napiVersion: v1\nkind: ConfigMap\n",
        ),
    ]));
    assert_eq!(pairs(&scan), [pair("v1", "ConfigMap")]);
    let found: Vec<_> = scan
        .unresolved
        .iter()
        .map(|u| (u.file.as_str(), u.line))
        .collect();
    assert_eq!(found, [("templates/extra-list.yaml", 4)]);
    assert!(scan.lookups.is_empty());
}

#[test]
fn helpers_filling_in_nested_content_are_not_objects() {
    let scan = scan(&chart(&[
        (
            "templates/_helpers.tpl",
            "{{- define \"x.container\" -}}\nresources:\n{{ toYaml .Values.resources }}\n{{- end -}}\n",
        ),
        (
            "templates/deploy.yaml",
            "apiVersion: apps/v1\nkind: Deployment\nspec:\n  template:\n    spec:\n      containers:\n        - name: x\n          {{- include \"x.container\" . }}\n          {{- include \"not.vendored\" . }}\n",
        ),
    ]));
    assert_eq!(pairs(&scan), [pair("apps/v1", "Deployment")]);
    assert!(scan.unresolved.is_empty(), "{:?}", scan.unresolved);
}

#[test]
fn malformed_templates_do_not_panic() {
    let inputs = [
        "{{",
        "{{ \"unterminated\nkind: Secret\n",
        "{{/* unterminated comment\nkind: Secret\n",
        "{{- define \"x\" }}\nkind: Never\n",
        "kind: {{ é \"ü\" `ß` }}\napiVersion: é/v1\n",
        "é{{é}}é{{-é-}}\u{00a0}{{ lookup \"v1\" }}{{ lookup ( }}{{ include }}",
        "apiVersion: v1\nkind: List\nitems:\n- {{ toYaml . }}\n-\n  - x\n",
        "---\n---\n--- # c\n",
        "kind:\napiVersion:\n",
    ];
    for (i, text) in inputs.iter().enumerate() {
        let _ = scan(&chart(&[(&format!("templates/t{i}.yaml"), text)]));
    }
}

#[test]
fn test_hooks_are_set_apart_whether_written_or_from_values() {
    let mut chart = chart(&[
        (
            "templates/tests/literal.yaml",
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: t\n  annotations:\n    \"helm.sh/hook\": test\n",
        ),
        (
            "templates/tests/from-values.yaml",
            "{{- if .Values.testFramework.enabled }}\napiVersion: v1\nkind: Pod\nmetadata:\n  name: t\n  {{- with .Values.testFramework.annotations }}\n  annotations:\n    {{- toYaml . | nindent 4 }}\n  {{- end }}\nspec: {}\n{{- end }}\n",
        ),
        (
            "templates/job.yaml",
            "apiVersion: batch/v1\nkind: Job\nmetadata:\n  annotations:\n    helm.sh/hook: pre-install,test\n",
        ),
        (
            "templates/cm.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  annotations:\n    {{- toYaml .Values.annotations | nindent 4 }}\n",
        ),
    ]);
    chart.files.insert(
        "values.yaml".to_string(),
        b"testFramework:\n  enabled: true\n  annotations:\n    \"helm.sh/hook\": test-success\nannotations:\n  a: b\n".to_vec(),
    );
    let scan = scan(&chart);
    assert_eq!(
        pairs(&scan),
        [pair("v1", "ConfigMap"), pair("batch/v1", "Job")],
        "a hook that is also pre-install is the operator's"
    );
    let hooks: Vec<_> = scan.test_hooks.iter().map(|k| k.file.as_str()).collect();
    assert_eq!(
        hooks,
        [
            "templates/tests/from-values.yaml",
            "templates/tests/literal.yaml"
        ]
    );
}

#[test]
fn api_versions_chosen_at_render_time_are_marked() {
    let scan = scan(&chart(&[
        (
            "templates/hpa.yaml",
            "apiVersion: {{ ternary \"autoscaling/v2\" \"autoscaling/v2beta2\" (.Capabilities.APIVersions.Has \"autoscaling/v2\") }}\nkind: HorizontalPodAutoscaler\n",
        ),
        (
            "templates/psp.yaml",
            "{{- if .Capabilities.APIVersions.Has \"policy/v1beta1/PodSecurityPolicy\" }}\napiVersion: policy/v1beta1\nkind: PodSecurityPolicy\n{{- end }}\n",
        ),
    ]));
    let marks: Vec<_> = scan
        .kinds
        .iter()
        .map(|k| (k.api_version.as_str(), k.api_version_templated))
        .collect();
    assert_eq!(
        marks,
        [
            ("autoscaling/v2", true),
            ("autoscaling/v2beta2", true),
            ("policy/v1beta1", false)
        ]
    );
}
