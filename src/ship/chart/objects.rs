//! The objects of `deploy/` as chart templates. Each object keeps what `deploy/` says; what a
//! release varies is put in its place: names from the release (cluster-scoped ones with the
//! namespace too, so that two releases never clash), the release's namespace, the chart's
//! labels, and in the operator's Deployment the values (image, replicas, resources, security
//! contexts, scheduling, extra environment, watched namespace, leader election, metrics port,
//! and the webhooks' port, certificate mode and the release's names the operator's own
//! certificates are for).

use std::collections::BTreeSet;

use serde_json::{Map, Value, json};

use super::markers::{Markers, Part, yaml_lines};
use crate::manifests::{IMAGE_PLACEHOLDER, Manifest, NAMESPACE_PLACEHOLDER, Scope};

/// Label keys the chart's helpers set; the ones `deploy/` has are replaced by them.
const CHART_LABELS: &[&str] = &[
    "app.kubernetes.io/name",
    "app.kubernetes.io/instance",
    "app.kubernetes.io/managed-by",
    "app.kubernetes.io/version",
    "helm.sh/chart",
];

/// Fields whose strings are API names or fixed words, never object names to rewrite.
const FIXED_FIELDS: &[&str] = &[
    "apiVersion",
    "kind",
    "apiGroup",
    "apiGroups",
    "resources",
    "verbs",
    "nonResourceURLs",
    "image",
    "imagePullPolicy",
    "path",
    "fieldPath",
    "protocol",
    "type",
    "operator",
    "key",
];

/// Resources (of RBAC rules) whose objects the chart names with the namespace.
const RENAMED_CLUSTER_RESOURCES: &[&str] = &[
    "clusterroles",
    "clusterrolebindings",
    "mutatingwebhookconfigurations",
    "validatingwebhookconfigurations",
];

/// Reasons of checkov skips that read differently in a chart than in `deploy/`.
const CHART_REASONS: &[(&str, &str)] = &[
    (
        "CKV_K8S_21",
        "the namespace is the release's (helm install --namespace)",
    ),
    (
        "CKV_K8S_14",
        "the tag is the value image.tag, by default the chart's appVersion",
    ),
    (
        "CKV_K8S_43",
        "a digest is known only once the image is built; image.tag may carry one (v1.0.0@sha256:...)",
    ),
    (
        "CKV_K8S_15",
        "the value image.pullPolicy chooses; IfNotPresent runs images loaded into the nodes",
    ),
];

/// Why the chart's operator pins no UID, when `deploy/` does not say.
const OPERATOR_UID_REASON: &str = "no UID is pinned: the image's numeric USER applies, and platforms that assign UIDs per namespace can run the pod; podSecurityContext.runAsUser pins one";

/// Suffix of a Role's ClusterRole (and its binding's) when the chart grants the namespaced
/// rules in every namespace and `deploy/` already has a cluster-scoped object of that name.
const ALL_NAMESPACES_SUFFIX: &str = "-namespaced-rules";

/// What the templates of one project need to know besides the object at hand.
pub struct Templater {
    pub chart: String,
    pub project: String,
    /// Names of cluster-scoped objects that no namespaced object shares: a string equal to
    /// one refers to that object.
    pub cluster_names: BTreeSet<String>,
    /// (kind, name) of the cluster-scoped RBAC objects of `deploy/`.
    pub cluster_rbac: BTreeSet<(String, String)>,
    /// The container port named `metrics`, made a value.
    pub metrics_port: Option<u64>,
    /// `--leader-elect` is among the operator's arguments, made a value.
    pub leader_election: bool,
    /// The project's webhooks: their configurations and CRD conversions get cert-manager's
    /// CA injection when the values ask for it, and the operator the release's names.
    pub webhooks: Option<Webhooks>,
}

/// The webhooks of `deploy/`, by the names it gives them.
pub struct Webhooks {
    /// The Service the API server calls them through.
    pub service: String,
    /// The Secret of the serving certificate: the operator's own, or cert-manager's.
    pub secret: String,
    pub mutating: Option<String>,
    pub validating: Option<String>,
    /// The port the operator serves them on (the Service's target port).
    pub port: u64,
    /// (kind, name) of the RBAC objects that only the operator's own certificates need
    /// (its Secret, writing its CA into the configurations and CRDs): left out with
    /// cert-manager.
    pub own_certificate_rbac: BTreeSet<(String, String)>,
}

/// Where the operator's pod mounts cert-manager's Secret (`--webhook-cert-dir`).
const WEBHOOK_CERT_DIR: &str = "/etc/webhook-certs";
/// The values condition of the operator's own webhook certificates.
const OWN_CERTIFICATES: &str = "not $.Values.webhook.certManager.enabled";

/// How a template refers to the namespace of the object it writes.
#[derive(Clone, Copy)]
enum NamespaceRef {
    Release,
    /// The `$ns` of a range over the namespaces the rules are granted in.
    Ranged,
}

impl Templater {
    fn helper(&self, name: &str) -> String {
        format!("include \"{}.{name}\" $", self.chart)
    }

    /// The template of one object of `deploy/`; `source` names its file in the header.
    pub fn object(&self, manifest: &Manifest, scope: Scope, source: &str) -> String {
        let header = format!(
            "# From {source} by `operator-rs generate chart`: regenerating the chart overwrites edits here.\n"
        );
        let rbac = manifest.group() == "rbac.authorization.k8s.io";
        if manifest.is_crd() {
            let mut markers = Markers::default();
            let crd = self.crd(manifest, &mut markers);
            let body = markers.finish(&crate::yaml::to_string(&crd));
            return format!(
                "{{{{- if $.Values.crds.install }}}}\n---\n{header}{body}{{{{- end }}}}\n"
            );
        }
        let own_certificate_rbac = self.webhooks.as_ref().is_some_and(|w| {
            w.own_certificate_rbac
                .contains(&(manifest.kind().to_string(), manifest.name().to_string()))
        });
        if rbac && !own_certificate_rbac && matches!(manifest.kind(), "Role" | "RoleBinding") {
            return self.namespaced_rbac(manifest, &header);
        }
        let mut markers = Markers::default();
        let object = self.prepare(
            manifest.object.clone(),
            scope,
            NamespaceRef::Release,
            &mut markers,
        );
        let text = format!(
            "---\n{header}{}",
            markers.finish(&crate::yaml::to_string(&object))
        );
        if own_certificate_rbac {
            // The operator's certificate Secret is in its own namespace whatever it watches.
            format!("{{{{- if {OWN_CERTIFICATES} }}}}\n{text}{{{{- end }}}}\n")
        } else {
            text
        }
    }

    /// A Role or RoleBinding: in the release's namespace (and the watched one), or, when the
    /// operator watches every namespace, the same rules cluster-wide.
    fn namespaced_rbac(&self, manifest: &Manifest, header: &str) -> String {
        let mut markers = Markers::default();
        let namespaced = self.prepare(
            manifest.object.clone(),
            Scope::Namespaced,
            NamespaceRef::Ranged,
            &mut markers,
        );
        let namespaced = markers.finish(&crate::yaml::to_string(&namespaced));

        let mut object = manifest.object.clone();
        let cluster_kind = format!("Cluster{}", manifest.kind());
        let name = self.all_namespaces_name(&cluster_kind, manifest.name());
        object["kind"] = json!(cluster_kind);
        object["metadata"]["name"] = json!(name);
        if let Some(metadata) = object["metadata"].as_object_mut() {
            metadata.remove("namespace");
        }
        if let Some(role_ref) = object.get_mut("roleRef").and_then(Value::as_object_mut)
            && role_ref.get("kind").and_then(Value::as_str) == Some("Role")
        {
            let role = role_ref.get("name").and_then(Value::as_str).unwrap_or("");
            let role = self.all_namespaces_name("ClusterRole", role);
            role_ref.insert("kind".into(), json!("ClusterRole"));
            role_ref.insert("name".into(), json!(role));
        }
        let mut markers = Markers::default();
        let cluster = self.prepare(object, Scope::Cluster, NamespaceRef::Release, &mut markers);
        let cluster = markers.finish(&crate::yaml::to_string(&cluster));
        let chart = &self.chart;
        format!(
            "{{{{- if eq (include \"{chart}.watchesAllNamespaces\" $) \"true\" }}}}\n---\n{header}{cluster}{{{{- else }}}}\n{{{{- range $ns := splitList \" \" (include \"{chart}.rbacNamespaces\" $) }}}}\n---\n{header}{namespaced}{{{{- end }}}}\n{{{{- end }}}}\n"
        )
    }

    fn all_namespaces_name(&self, cluster_kind: &str, name: &str) -> String {
        if self
            .cluster_rbac
            .contains(&(cluster_kind.to_string(), name.to_string()))
        {
            format!("{name}{ALL_NAMESPACES_SUFFIX}")
        } else {
            name.to_string()
        }
    }

    fn crd(&self, manifest: &Manifest, markers: &mut Markers) -> Value {
        let mut object = manifest.object.clone();
        let conversion_webhook = object.pointer("/spec/conversion/webhook").is_some();
        if let Some(conversion) = object.pointer_mut("/spec/conversion") {
            self.rewrite_strings(conversion, markers);
        }
        let mut conditional = vec![(
            "$.Values.crds.keep".to_string(),
            "helm.sh/resource-policy: keep".to_string(),
        )];
        if self.webhooks.is_some() && conversion_webhook {
            conditional.push(self.inject_ca());
        }
        if let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) {
            self.labels(metadata, markers);
            self.annotations(metadata, markers, &conditional);
        }
        object
    }

    /// cert-manager's CA injection, when the values ask for cert-manager.
    fn inject_ca(&self) -> (String, String) {
        (
            "$.Values.webhook.certManager.enabled".to_string(),
            format!(
                "cert-manager.io/inject-ca-from: {{{{ $.Release.Namespace }}}}/{{{{ {} }}}}-webhook",
                self.helper("fullname")
            ),
        )
    }

    /// Every change but the CRD's: names, namespace, labels, annotations, references, and
    /// the operator's values.
    fn prepare(
        &self,
        mut object: Value,
        scope: Scope,
        namespace: NamespaceRef,
        markers: &mut Markers,
    ) -> Value {
        let kind = object["kind"].as_str().unwrap_or("").to_string();
        if let Some(role_ref) = object.get_mut("roleRef").and_then(Value::as_object_mut) {
            let cluster = role_ref.get("kind").and_then(Value::as_str) == Some("ClusterRole");
            if let Some(name) = role_ref.get("name").and_then(Value::as_str) {
                let parts = self.name_parts(name, cluster);
                role_ref.insert("name".into(), markers.scalar(&parts));
            }
        }
        if matches!(kind.as_str(), "RoleBinding" | "ClusterRoleBinding")
            && let Some(Value::Array(subjects)) = object.get_mut("subjects")
        {
            for subject in subjects.iter_mut().filter_map(Value::as_object_mut) {
                if subject.get("kind").and_then(Value::as_str) == Some("ServiceAccount")
                    && !subject.contains_key("namespace")
                {
                    subject.insert("namespace".into(), json!(NAMESPACE_PLACEHOLDER));
                }
            }
        }
        if let Some(webhooks) = &self.webhooks
            && kind == "Service"
            && object["metadata"]["name"] == webhooks.service.as_str()
        {
            for port in object
                .pointer_mut("/spec/ports")
                .and_then(Value::as_array_mut)
                .into_iter()
                .flatten()
            {
                if port["targetPort"].as_u64() == Some(webhooks.port) {
                    port["targetPort"] =
                        markers.scalar(&[Part::Action("$.Values.webhook.port".into())]);
                }
            }
        }
        if is_operator(&object) {
            self.operator(&mut object, markers);
            add_skip(&mut object, "CKV_K8S_40", OPERATOR_UID_REASON);
        }
        let mut webhook_configuration = false;
        if let Some(map) = object.as_object_mut() {
            for (key, value) in map.iter_mut() {
                if key != "metadata" {
                    self.rewrite_strings(value, markers);
                }
            }
            webhook_configuration = matches!(
                kind.as_str(),
                "MutatingWebhookConfiguration" | "ValidatingWebhookConfiguration"
            );
        }
        if let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) {
            let name = metadata
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string();
            let parts = self.name_parts(&name, scope == Scope::Cluster);
            let rest = std::mem::take(metadata);
            metadata.insert("name".into(), markers.scalar(&parts));
            if scope == Scope::Namespaced {
                let action = match namespace {
                    NamespaceRef::Release => "$.Release.Namespace",
                    NamespaceRef::Ranged => "$ns",
                };
                metadata.insert(
                    "namespace".into(),
                    markers.scalar(&[Part::Action(action.into())]),
                );
            }
            for (key, value) in rest {
                if key != "name" && key != "namespace" {
                    metadata.insert(key, value);
                }
            }
            self.labels(metadata, markers);
            let conditional = if self.webhooks.is_some() && webhook_configuration {
                vec![self.inject_ca()]
            } else {
                Vec::new()
            };
            self.annotations(metadata, markers, &conditional);
        }
        object
    }

    /// The chart's labels first, then the ones of `deploy/` that the chart does not set.
    fn labels(&self, metadata: &mut Map<String, Value>, markers: &mut Markers) {
        let mut labels = Map::new();
        let include = markers.block(vec![format!(
            "{{{{- {} | nindent %I% }}}}",
            self.helper("labels")
        )]);
        labels.insert(include, Value::Null);
        if let Some(Value::Object(old)) = metadata.get("labels") {
            for (key, value) in old {
                if !CHART_LABELS.contains(&key.as_str()) {
                    labels.insert(key.clone(), value.clone());
                }
            }
        }
        metadata.insert("labels".into(), Value::Object(labels));
    }

    /// The annotations of `deploy/` (checkov's reasons worded for a chart), and `conditional`
    /// (condition, `key: value` line) ones.
    fn annotations(
        &self,
        metadata: &mut Map<String, Value>,
        markers: &mut Markers,
        conditional: &[(String, String)],
    ) {
        let mut annotations = match metadata.remove("annotations") {
            Some(Value::Object(map)) => map,
            _ => Map::new(),
        };
        for (key, value) in annotations.iter_mut() {
            if key.starts_with("checkov.io/skip")
                && let Some((check, _)) = value.as_str().and_then(|v| v.split_once('='))
                && let Some((_, reason)) = CHART_REASONS.iter().find(|(id, _)| *id == check)
            {
                *value = json!(format!("{check}={reason}"));
            }
        }
        if annotations.is_empty() && conditional.is_empty() {
            return;
        }
        if annotations.is_empty() {
            let any = conditional
                .iter()
                .map(|(c, _)| format!("({c})"))
                .collect::<Vec<_>>()
                .join(" ");
            let mut lines = vec![
                format!("{{{{- if or {any} false }}}}"),
                "annotations:".into(),
            ];
            for (condition, line) in conditional {
                lines.push(format!("  {{{{- if {condition} }}}}"));
                lines.push(format!("  {line}"));
                lines.push("  {{- end }}".into());
            }
            lines.push("{{- end }}".into());
            metadata.insert(markers.block(lines), Value::Null);
            return;
        }
        for (condition, line) in conditional {
            let block = markers.block(vec![
                format!("{{{{- if {condition} }}}}"),
                line.clone(),
                "{{- end }}".into(),
            ]);
            annotations.insert(block, Value::Null);
        }
        metadata.insert("annotations".into(), Value::Object(annotations));
    }

    /// A name of `deploy/` as the release names it: the project's name becomes the release's
    /// full name, and cluster-scoped names get the namespace too.
    fn name_parts(&self, name: &str, cluster: bool) -> Vec<Part> {
        let base = Part::Action(self.helper(if cluster {
            "clusterScopedName"
        } else {
            "fullname"
        }));
        if name == self.project {
            vec![base]
        } else if let Some(rest) = name.strip_prefix(&format!("{}-", self.project)) {
            vec![base, Part::Text(format!("-{rest}"))]
        } else if cluster {
            vec![base, Part::Text(format!("-{name}"))]
        } else {
            vec![Part::Text(name.to_string())]
        }
    }

    /// A name of `deploy/` as template text that prints the release's name for it.
    pub fn name_text(&self, name: &str, cluster: bool) -> String {
        super::markers::parts_text(&self.name_parts(name, cluster))
    }

    /// Rewrites, below `value`, every string naming an object of the project or holding the
    /// namespace placeholder; selectors of the project's pods get the chart's selector labels.
    fn rewrite_strings(&self, value: &mut Value, markers: &mut Markers) {
        match value {
            Value::Object(map) => {
                let selects_pods = map.get("app.kubernetes.io/name").and_then(Value::as_str)
                    == Some(self.project.as_str());
                if selects_pods {
                    let mut labels = Map::new();
                    labels.insert(
                        markers.block(vec![format!(
                            "{{{{- {} | nindent %I% }}}}",
                            self.helper("selectorLabels")
                        )]),
                        Value::Null,
                    );
                    for (key, value) in map.iter() {
                        if !CHART_LABELS.contains(&key.as_str()) {
                            labels.insert(key.clone(), value.clone());
                        }
                    }
                    *map = labels;
                    return;
                }
                // A rule naming cluster-scoped objects the chart renames: its resourceNames
                // are those objects' names, in their cluster-scoped form.
                let names_renamed_cluster_objects = map
                    .get("resources")
                    .and_then(Value::as_array)
                    .is_some_and(|rs| {
                        rs.iter().any(|r| {
                            r.as_str()
                                .is_some_and(|r| RENAMED_CLUSTER_RESOURCES.contains(&r))
                        })
                    });
                if names_renamed_cluster_objects
                    && let Some(Value::Array(names)) = map.get_mut("resourceNames")
                {
                    for name in names.iter_mut() {
                        if let Some(text) = name.as_str() {
                            let parts = self.name_parts(text, true);
                            *name = markers.scalar(&parts);
                        }
                    }
                }
                for (key, inner) in map.iter_mut() {
                    if FIXED_FIELDS.contains(&key.as_str())
                        || key == "annotations"
                        || (key == "resourceNames" && names_renamed_cluster_objects)
                    {
                        continue;
                    }
                    if key == "labels" {
                        // A pod template's labels: only the selector labels change.
                        if inner.get("app.kubernetes.io/name").and_then(Value::as_str)
                            == Some(self.project.as_str())
                        {
                            self.rewrite_strings(inner, markers);
                        }
                        continue;
                    }
                    self.rewrite_strings(inner, markers);
                }
            }
            Value::Array(items) => {
                for item in items {
                    self.rewrite_strings(item, markers);
                }
            }
            Value::String(text) => {
                if let Some(parts) = self.rewrite(text) {
                    *value = markers.scalar(&parts);
                }
            }
            _ => {}
        }
    }

    /// `text` with the project's name and the namespace placeholder made template actions;
    /// `None` when it holds neither.
    fn rewrite(&self, text: &str) -> Option<Vec<Part>> {
        // A flag's value, or the whole string, naming a cluster-scoped object.
        let (flag, value) = match text.split_once('=') {
            Some((flag, value)) if flag.starts_with("--") => (Some(flag), value),
            _ => (None, text),
        };
        if self.cluster_names.contains(value) {
            let mut parts = Vec::new();
            if let Some(flag) = flag {
                parts.push(Part::Text(format!("{flag}=")));
            }
            parts.extend(self.name_parts(value, true));
            return Some(parts);
        }
        let project = self.project.as_str();
        let mut parts = Vec::new();
        let mut literal = String::new();
        let mut changed = false;
        let mut at = 0;
        while at < text.len() {
            let rest = &text[at..];
            if rest.starts_with(NAMESPACE_PLACEHOLDER) {
                parts.push(Part::Text(std::mem::take(&mut literal)));
                parts.push(Part::Action("$.Release.Namespace".into()));
                at += NAMESPACE_PLACEHOLDER.len();
                changed = true;
                continue;
            }
            if rest.starts_with(project)
                && text[..at].chars().next_back().is_none_or(is_boundary)
                && text[at + project.len()..]
                    .chars()
                    .next()
                    .is_none_or(is_boundary)
            {
                parts.push(Part::Text(std::mem::take(&mut literal)));
                parts.push(Part::Action(self.helper("fullname")));
                at += project.len();
                changed = true;
                continue;
            }
            let Some(c) = rest.chars().next() else { break };
            literal.push(c);
            at += c.len_utf8();
        }
        parts.push(Part::Text(literal));
        parts.retain(|p| !matches!(p, Part::Text(t) if t.is_empty()));
        changed.then_some(parts)
    }

    /// The operator's Deployment: its pod and its containers of the image placeholder take
    /// the values.
    fn operator(&self, object: &mut Value, markers: &mut Markers) {
        if let Some(spec) = object.get_mut("spec").and_then(Value::as_object_mut) {
            spec.insert(
                "replicas".into(),
                markers.scalar(&[Part::Action("$.Values.replicaCount".into())]),
            );
        }
        let Some(pod) = object
            .pointer_mut("/spec/template/spec")
            .and_then(Value::as_object_mut)
        else {
            return;
        };
        let pod_security = values_block(markers, "securityContext", "$.Values.podSecurityContext");
        replace_in_place(pod, "securityContext", pod_security);
        for key in [
            "imagePullSecrets",
            "nodeSelector",
            "tolerations",
            "affinity",
        ] {
            pod.remove(key);
            let block = markers.block(vec![
                format!("{{{{- with $.Values.{key} }}}}"),
                format!("{key}:"),
                "  {{- toYaml . | nindent %I2% }}".into(),
                "{{- end }}".into(),
            ]);
            pod.insert(block, Value::Null);
        }
        if self.webhooks.is_some() {
            let volume = vec![
                "- name: webhook-certs".to_string(),
                "  secret:".into(),
                format!("    secretName: {}", self.webhook_secret_text()),
            ];
            append_conditional(
                pod,
                "volumes",
                "$.Values.webhook.certManager.enabled",
                volume,
                markers,
            );
        }
        let Some(Value::Array(containers)) = pod.get_mut("containers") else {
            return;
        };
        for container in containers.iter_mut().filter_map(Value::as_object_mut) {
            if container.get("image").and_then(Value::as_str) != Some(IMAGE_PLACEHOLDER) {
                continue;
            }
            self.operator_container(container, markers);
        }
    }

    fn operator_container(&self, container: &mut Map<String, Value>, markers: &mut Markers) {
        container.insert(
            "image".into(),
            markers.scalar(&[
                Part::Action("$.Values.image.repository".into()),
                Part::Text(":".into()),
                Part::Action("$.Values.image.tag | default $.Chart.AppVersion".into()),
            ]),
        );
        container.insert(
            "imagePullPolicy".into(),
            markers.scalar(&[Part::Action("$.Values.image.pullPolicy".into())]),
        );
        let resources = values_block(markers, "resources", "$.Values.resources");
        replace_in_place(container, "resources", resources);
        let security = values_block(markers, "securityContext", "$.Values.securityContext");
        replace_in_place(container, "securityContext", security);

        if let Some(webhooks) = &self.webhooks {
            let args = container.entry("args").or_insert_with(|| json!([]));
            if let Value::Array(args) = args {
                args.retain(|a| {
                    !a.as_str()
                        .is_some_and(|a| a.starts_with("--webhook-bind-address"))
                });
                args.push(json!(markers.block(self.webhook_args(webhooks))));
            }
            append_conditional(
                container,
                "volumeMounts",
                "$.Values.webhook.certManager.enabled",
                vec![
                    "- name: webhook-certs".to_string(),
                    format!("  mountPath: {WEBHOOK_CERT_DIR}"),
                    "  readOnly: true".into(),
                ],
                markers,
            );
        }
        if let Some(Value::Array(args)) = container.get_mut("args") {
            for arg in args.iter_mut() {
                let Some(text) = arg.as_str() else { continue };
                if self.leader_election && matches!(text, "--leader-elect" | "--leader-elect=true")
                {
                    *arg = json!(markers.block(vec![
                        "{{- if $.Values.leaderElection.enabled }}".into(),
                        format!("- {text}"),
                        "{{- end }}".into(),
                    ]));
                } else if let Some(port) = self.metrics_port
                    && let Some((flag, address)) = text.split_once('=')
                    && matches!(flag, "--metrics-bind-address" | "--metrics-addr")
                    && let Some(host) = address.strip_suffix(&format!(":{port}"))
                {
                    *arg = markers.scalar(&[
                        Part::Text(format!("{flag}={host}:")),
                        Part::Action("$.Values.metrics.port".into()),
                    ]);
                }
            }
        }

        let extra_env = markers.block(vec![
            "{{- with $.Values.extraEnv }}".into(),
            "{{- toYaml . | nindent %I% }}".into(),
            "{{- end }}".into(),
        ]);
        match container.get_mut("env") {
            Some(Value::Array(env)) => {
                for item in env.iter_mut() {
                    if item.get("name").and_then(Value::as_str) == Some("WATCH_NAMESPACE") {
                        *item = json!(watch_namespace(item, markers));
                    }
                }
                env.push(json!(extra_env));
            }
            _ => {
                let block = markers.block(vec![
                    "{{- with $.Values.extraEnv }}".into(),
                    "env:".into(),
                    "  {{- toYaml . | nindent %I2% }}".into(),
                    "{{- end }}".into(),
                ]);
                container.insert(block, Value::Null);
            }
        }

        if let Some(Value::Array(ports)) = container.get_mut("ports") {
            for port in ports.iter_mut().filter_map(Value::as_object_mut) {
                let value = match port.get("name").and_then(Value::as_str) {
                    Some("metrics") if self.metrics_port.is_some() => "$.Values.metrics.port",
                    Some("webhook") if self.webhooks.is_some() => "$.Values.webhook.port",
                    _ => continue,
                };
                port.insert(
                    "containerPort".into(),
                    markers.scalar(&[Part::Action(value.into())]),
                );
            }
        }
    }
}

impl Templater {
    /// The operator's webhook arguments: the port of the values, and either cert-manager's
    /// mounted certificate or the release's names of what its own certificates are for (its
    /// defaults are `deploy/`'s names, which a release does not use).
    fn webhook_args(&self, webhooks: &Webhooks) -> Vec<String> {
        let mut lines = vec![
            "- --webhook-bind-address=:{{ $.Values.webhook.port }}".to_string(),
            "{{- if $.Values.webhook.certManager.enabled }}".into(),
            format!("- --webhook-cert-dir={WEBHOOK_CERT_DIR}"),
            "{{- else }}".into(),
            "- --webhook-cert-lifetime={{ $.Values.webhook.certLifetime }}".into(),
            format!(
                "- --webhook-service-name={}",
                self.name_text(&webhooks.service, false)
            ),
            format!("- --webhook-secret-name={}", self.webhook_secret_text()),
        ];
        if let Some(name) = &webhooks.mutating {
            lines.push(format!(
                "- --mutating-webhook-configuration-name={}",
                self.name_text(name, true)
            ));
        }
        if let Some(name) = &webhooks.validating {
            lines.push(format!(
                "- --validating-webhook-configuration-name={}",
                self.name_text(name, true)
            ));
        }
        lines.push("{{- end }}".into());
        lines
    }

    /// The release's name of the webhook certificate's Secret, as template text.
    pub fn webhook_secret_text(&self) -> String {
        let secret = self.webhooks.as_ref().map(|w| w.secret.as_str());
        self.name_text(secret.unwrap_or_default(), false)
    }
}

/// Adds `item` (the lines of one list item) to the list `key` of `map` when `condition`
/// holds: after the items `deploy/` has, or as the whole list when it has none.
fn append_conditional(
    map: &mut Map<String, Value>,
    key: &str,
    condition: &str,
    item: Vec<String>,
    markers: &mut Markers,
) {
    let mut lines = vec![format!("{{{{- if {condition} }}}}")];
    match map.get_mut(key) {
        Some(Value::Array(items)) => {
            lines.extend(item);
            lines.push("{{- end }}".into());
            items.push(json!(markers.block(lines)));
        }
        _ => {
            lines.push(format!("{key}:"));
            lines.extend(item.into_iter().map(|l| format!("  {l}")));
            lines.push("{{- end }}".into());
            map.insert(markers.block(lines), Value::Null);
        }
    }
}

/// The WATCH_NAMESPACE variable: `deploy/`'s (the pod's namespace) unless the values name one.
fn watch_namespace(item: &Value, markers: &mut Markers) -> String {
    let mut lines = vec![
        "- name: WATCH_NAMESPACE".to_string(),
        "  {{- if kindIs \"string\" $.Values.watchNamespace }}".into(),
        "  value: {{ $.Values.watchNamespace | quote }}".into(),
        "  {{- else }}".into(),
    ];
    let mut rest = item.as_object().cloned().unwrap_or_default();
    rest.remove("name");
    lines.extend(
        yaml_lines(&Value::Object(rest))
            .into_iter()
            .map(|l| format!("  {l}")),
    );
    lines.push("  {{- end }}".into());
    markers.block(lines)
}

/// A checkov skip of `check` with `reason`, unless the object skips it already.
fn add_skip(object: &mut Value, check: &str, reason: &str) {
    let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) else {
        return;
    };
    let annotations = metadata.entry("annotations").or_insert_with(|| json!({}));
    let Some(annotations) = annotations.as_object_mut() else {
        return;
    };
    let prefix = format!("{check}=");
    if annotations.iter().any(|(k, v)| {
        k.starts_with("checkov.io/skip") && v.as_str().is_some_and(|v| v.starts_with(&prefix))
    }) {
        return;
    }
    let index = (1..)
        .find(|i| !annotations.contains_key(&format!("checkov.io/skip{i}")))
        .unwrap_or(1);
    annotations.insert(
        format!("checkov.io/skip{index}"),
        json!(format!("{check}={reason}")),
    );
}

/// `key:` followed by the YAML of a value.
fn values_block(markers: &mut Markers, key: &str, value: &str) -> String {
    markers.block(vec![
        format!("{key}:"),
        format!("  {{{{- toYaml {value} | nindent %I2% }}}}"),
    ])
}

/// Puts the block `marker` where `key` was (or at the end), dropping `key`.
fn replace_in_place(map: &mut Map<String, Value>, key: &str, marker: String) {
    if !map.contains_key(key) {
        map.insert(marker, Value::Null);
        return;
    }
    let old = std::mem::take(map);
    for (k, v) in old {
        if k == key {
            map.insert(marker.clone(), Value::Null);
        } else {
            map.insert(k, v);
        }
    }
}

fn is_boundary(c: char) -> bool {
    !(c.is_ascii_alphanumeric() || c == '_')
}

/// A Deployment running the operator's image (the one `deploy` fills in).
pub fn is_operator(object: &Value) -> bool {
    object["kind"] == "Deployment"
        && object
            .pointer("/spec/template/spec/containers")
            .and_then(Value::as_array)
            .is_some_and(|cs| cs.iter().any(|c| c["image"] == IMAGE_PLACEHOLDER))
}
