//! `dist/chart/`: a Helm chart of the operator, made from `deploy/`. The templates are the
//! objects of `deploy/` written as Go templates by Rust code ([`objects`]), plus a few fixed
//! files embedded here ([`files`]); nothing of the chart goes through the project's template
//! engine, whose braces collide with Go's. [`state`] tells the user's edits from what the
//! tool wrote last, so that a new generation keeps them.

mod markers;
mod objects;
pub mod state;
pub mod values;

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::ShipError;
use crate::image::ImageRef;
use crate::manifests::{Bundle, Manifest, Origin, Scope};
use crate::project::Project;
use objects::Templater;
use values::{Definition, Facts};

pub use state::STATE_FILE;

/// The files the user may edit: written once, then kept when they changed (unless forced).
pub const USER_FILES: &[&str] = &[
    "Chart.yaml",
    "values.yaml",
    "README.md",
    "templates/NOTES.txt",
];

/// The ServiceMonitor endpoint's lines for an operator that serves /metrics over HTTPS and
/// asks the API server about each caller (a Rust operator's default).
const SECURE_ENDPOINT: &str =
    "      # The operator serves HTTPS and lets a caller read /metrics only when the API server
      # says its token may (the metrics-reader ClusterRole, bound to Prometheus's service
      # account).
      scheme: https
      bearerTokenFile: /var/run/secrets/kubernetes.io/serviceaccount/token
      tlsConfig:
        {{- toYaml .Values.metrics.serviceMonitor.tlsConfig | nindent 8 }}
";

/// The port a generated operator serves its webhooks on unless told (`--webhook-bind-address`).
const DEFAULT_WEBHOOK_PORT: u64 = 9443;
/// The generated operator's webhook certificate Secret is `<project>-webhook-server-cert`
/// (`--webhook-secret-name`, deploy/webhook.yaml's Role).
const WEBHOOK_SECRET_SUFFIX: &str = "webhook-server-cert";

/// The fixed files of every chart; `CHARTNAME` becomes the chart's name.
mod files {
    pub const HELPERS: &str = include_str!("files/_helpers.tpl");
    pub const HELMIGNORE: &str = include_str!("files/.helmignore");
    pub const METRICS_SERVICE: &str = include_str!("files/metrics-service.yaml");
    pub const SERVICE_MONITOR: &str = include_str!("files/servicemonitor.yaml");
    pub const WEBHOOK_CERTIFICATE: &str = include_str!("files/webhook-certificate.yaml");
}

pub struct Inputs<'a> {
    pub project: &'a Project,
    /// `deploy/` as `manifests::load` read it, with the samples (for NOTES.txt).
    pub bundle: &'a Bundle,
    pub image: &'a ImageRef,
    pub chart_version: &'a str,
}

/// A generated chart: its files by path, and its values.
pub struct Chart {
    pub files: BTreeMap<String, Vec<u8>>,
    pub values: Vec<Definition>,
}

pub fn generate(inputs: &Inputs<'_>) -> Result<Chart, ShipError> {
    let chart = inputs.project.project_name.clone();
    let bundle = inputs.bundle;
    let operator = bundle
        .manifests
        .iter()
        .find(|m| objects::is_operator(&m.object))
        .ok_or(ShipError::NoOperatorDeployment)?;
    let facts = facts(inputs, operator, bundle);
    let defs = values::definitions(&facts);

    let scope = bundle.offline_scope();
    let namespaced_names: BTreeSet<&str> = bundle
        .manifests
        .iter()
        .filter(|m| scope(m) == Scope::Namespaced)
        .map(Manifest::name)
        .collect();
    let cluster: Vec<&Manifest> = bundle
        .manifests
        .iter()
        .filter(|m| scope(m) == Scope::Cluster && !m.is_crd() && m.kind() != "Namespace")
        .collect();
    let templater = Templater {
        chart: chart.clone(),
        project: inputs.project.project_name.clone(),
        cluster_names: cluster
            .iter()
            .map(|m| m.name())
            .filter(|n| !namespaced_names.contains(n))
            .map(str::to_string)
            .collect(),
        cluster_rbac: cluster
            .iter()
            .filter(|m| m.group() == "rbac.authorization.k8s.io")
            .map(|m| (m.kind().to_string(), m.name().to_string()))
            .collect(),
        metrics_port: facts.metrics_port,
        leader_election: facts.leader_election.is_some(),
        webhooks: webhooks(inputs.project, operator, bundle),
    };

    let mut files: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    let fixed = |text: &str| text.replace("CHARTNAME", &chart);
    files.insert(".helmignore".into(), files::HELMIGNORE.into());
    files.insert(
        "templates/_helpers.tpl".into(),
        fixed(files::HELPERS).into(),
    );
    let mut templates: BTreeMap<String, String> = BTreeMap::new();
    for manifest in &bundle.manifests {
        if manifest.group().is_empty() && manifest.kind() == "Namespace" {
            continue;
        }
        let (source, file) = match &manifest.origin {
            Origin::File { path, .. } => (
                path.to_string_lossy().replace('\\', "/"),
                path.file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default(),
            ),
            other => (other.to_string(), "objects".to_string()),
        };
        let path = if manifest.is_crd() {
            format!("templates/crds/{file}.yaml")
        } else {
            format!("templates/{file}.yaml")
        };
        let text = templater.object(manifest, scope(manifest), &source);
        templates.entry(path).or_default().push_str(&text);
    }
    for (path, text) in templates {
        files.insert(path, text.into_bytes());
    }

    let pod_labels = extra_labels(operator.object.pointer("/spec/template/metadata/labels"));
    if let Some(_port) = facts.metrics_port {
        let own_service = metrics_service(bundle, facts.metrics_port);
        let (service_labels, port_name) = match own_service {
            Some((service, port_name)) => (
                extra_labels(service.object.pointer("/metadata/labels")),
                port_name,
            ),
            None => {
                let text = fixed(files::METRICS_SERVICE)
                    .replace("POD_SELECTOR_LABELS\n", &label_lines(&pod_labels, 4));
                files.insert("templates/metrics-service.yaml".into(), text.into());
                (
                    vec![(
                        "app.kubernetes.io/component".to_string(),
                        "metrics".to_string(),
                    )],
                    "metrics".to_string(),
                )
            }
        };
        let text = fixed(files::SERVICE_MONITOR)
            .replace(
                "SERVICE_SELECTOR_LABELS\n",
                &label_lines(&service_labels, 6),
            )
            .replace("METRICS_PORT_NAME", &port_name)
            .replace(
                "METRICS_ENDPOINT_SECURITY\n",
                if facts.metrics_secure {
                    SECURE_ENDPOINT
                } else {
                    ""
                },
            );
        files.insert("templates/servicemonitor.yaml".into(), text.into());
    }
    if let Some(webhooks) = &templater.webhooks {
        let text = fixed(files::WEBHOOK_CERTIFICATE)
            .replace(
                "WEBHOOK_SERVICE_NAME",
                &templater.name_text(&webhooks.service, false),
            )
            .replace("WEBHOOK_SECRET_NAME", &templater.webhook_secret_text());
        files.insert("templates/webhook-certificate.yaml".into(), text.into());
    }

    let app_version = inputs.image.tag().unwrap_or(crate::image::DEFAULT_TAG);
    files.insert(
        "Chart.yaml".into(),
        chart_yaml(&chart, inputs, app_version).into(),
    );
    files.insert(
        "values.yaml".into(),
        values::values_yaml(&chart, &defs).into(),
    );
    files.insert("values.schema.json".into(), values::schema(&defs).into());
    let secret = templater.webhooks.as_ref().map(|w| w.secret.as_str());
    files.insert(
        "README.md".into(),
        readme(&chart, inputs, &defs, secret).into(),
    );
    files.insert(
        "templates/NOTES.txt".into(),
        notes(&chart, inputs, &templater.name_text(operator.name(), false)).into(),
    );
    Ok(Chart {
        files,
        values: defs,
    })
}

fn facts(inputs: &Inputs<'_>, operator: &Manifest, bundle: &Bundle) -> Facts {
    let object = &operator.object;
    let container = object
        .pointer("/spec/template/spec/containers")
        .and_then(Value::as_array)
        .and_then(|cs| {
            cs.iter()
                .find(|c| c["image"] == crate::manifests::IMAGE_PLACEHOLDER)
        })
        .cloned()
        .unwrap_or(Value::Null);
    let or_empty = |v: Option<&Value>| v.cloned().unwrap_or_else(|| serde_json::json!({}));
    let args: Vec<&str> = container["args"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let plain_metrics = args.contains(&"--metrics-secure=false")
        || args.windows(2).any(|w| w == ["--metrics-secure", "false"]);
    let metrics_secure =
        inputs.project.project_type == crate::project::ProjectType::Rust && !plain_metrics;
    let metrics_port = container["ports"].as_array().and_then(|ports| {
        ports
            .iter()
            .find(|p| p["name"] == "metrics")
            .and_then(|p| p["containerPort"].as_u64())
    });
    let leader_election = container["args"].as_array().and_then(|args| {
        args.iter()
            .any(|a| a == "--leader-elect" || a == "--leader-elect=true")
            .then_some(true)
    });
    let image = inputs.image;
    let repository = match image.registry() {
        Some(registry) => format!("{registry}/{}", image.repository()),
        None => image.repository().to_string(),
    };
    // A digest pins the image: it goes into the tag value, which the chart's default
    // (appVersion, a plain tag) cannot carry.
    let image_tag = match image.digest() {
        Some(digest) => format!(
            "{}@{digest}",
            image.tag().unwrap_or(crate::image::DEFAULT_TAG)
        ),
        None => String::new(),
    };
    Facts {
        image_repository: repository,
        image_tag,
        pull_policy: container["imagePullPolicy"]
            .as_str()
            .unwrap_or("IfNotPresent")
            .to_string(),
        replicas: object
            .pointer("/spec/replicas")
            .and_then(Value::as_u64)
            .unwrap_or(1),
        resources: or_empty(container.get("resources")),
        pod_security_context: or_empty(object.pointer("/spec/template/spec/securityContext")),
        security_context: or_empty(container.get("securityContext")),
        metrics_port,
        metrics_secure,
        leader_election,
        webhook_port: webhooks(inputs.project, operator, bundle).map(|w| w.port),
    }
}

/// The webhooks of `deploy/`: admission webhook configurations, or a CRD converted by a
/// webhook, with the Service they call (`deploy/webhook.yaml` of `create webhook`).
fn webhooks(project: &Project, operator: &Manifest, bundle: &Bundle) -> Option<objects::Webhooks> {
    if !crate::webhooks::any(&bundle.manifests) {
        return None;
    }
    let name = &project.project_name;
    let service = webhook_service(bundle).unwrap_or_else(|| format!("{name}-webhook"));
    let named = |kind: &str| {
        bundle
            .manifests
            .iter()
            .find(|m| m.kind() == kind && m.group() == crate::webhooks::GROUP)
            .map(|m| m.name().to_string())
    };
    // The operator's container port named `webhook`, else the port the Service sends to,
    // else the operator's default.
    let container_port = operator
        .object
        .pointer("/spec/template/spec/containers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|c| c["image"] == crate::manifests::IMAGE_PLACEHOLDER)
        .flat_map(|c| c["ports"].as_array())
        .flatten()
        .find(|p| p["name"] == "webhook")
        .and_then(|p| p["containerPort"].as_u64());
    let port = container_port
        .or_else(|| {
            bundle
                .manifests
                .iter()
                .filter(|m| m.kind() == "Service" && m.group().is_empty() && m.name() == service)
                .flat_map(|m| m.object.pointer("/spec/ports").and_then(Value::as_array))
                .flatten()
                .find_map(|p| p["targetPort"].as_u64())
        })
        .unwrap_or(DEFAULT_WEBHOOK_PORT);
    // deploy/webhook.yaml's RBAC is what the operator's own certificates need (its comment
    // says so): with cert-manager the chart leaves it out.
    let own_certificate_rbac = bundle
        .manifests
        .iter()
        .filter(|m| m.group() == "rbac.authorization.k8s.io")
        .filter(|m| {
            matches!(&m.origin, Origin::File { path, .. }
                if path.file_name().is_some_and(|f| f == "webhook.yaml"))
        })
        .map(|m| (m.kind().to_string(), m.name().to_string()))
        .collect();
    Some(objects::Webhooks {
        service,
        secret: format!("{name}-{WEBHOOK_SECRET_SUFFIX}"),
        mutating: named("MutatingWebhookConfiguration"),
        validating: named("ValidatingWebhookConfiguration"),
        port,
        own_certificate_rbac,
    })
}

/// The Service the webhook configurations call.
fn webhook_service(bundle: &Bundle) -> Option<String> {
    bundle.manifests.iter().find_map(|m| {
        m.object["webhooks"]
            .as_array()?
            .iter()
            .find_map(|w| w.pointer("/clientConfig/service/name")?.as_str())
            .map(str::to_string)
    })
}

/// A Service of `deploy/` that exposes the metrics port, with the name of its port.
fn metrics_service(bundle: &Bundle, port: Option<u64>) -> Option<(&Manifest, String)> {
    let port = port?;
    bundle
        .manifests
        .iter()
        .filter(|m| m.group().is_empty() && m.kind() == "Service")
        .find_map(|service| {
            let ports = service.object.pointer("/spec/ports")?.as_array()?;
            ports.iter().find_map(|p| {
                let target = &p["targetPort"];
                let matches = target == "metrics" || target.as_u64() == Some(port);
                matches.then(|| (service, p["name"].as_str().unwrap_or("metrics").to_string()))
            })
        })
}

/// Labels besides the ones the chart's helpers set.
fn extra_labels(labels: Option<&Value>) -> Vec<(String, String)> {
    labels
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .filter(|(k, _)| {
                    !matches!(
                        k.as_str(),
                        "app.kubernetes.io/name"
                            | "app.kubernetes.io/instance"
                            | "app.kubernetes.io/managed-by"
                            | "app.kubernetes.io/version"
                            | "helm.sh/chart"
                    )
                })
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                .collect()
        })
        .unwrap_or_default()
}

fn label_lines(labels: &[(String, String)], indent: usize) -> String {
    labels
        .iter()
        .map(|(k, v)| {
            let value = serde_json::to_string(v).unwrap_or_default();
            format!(
                "{}{k}: {}\n",
                " ".repeat(indent),
                markers::escape_go(&value)
            )
        })
        .collect()
}

fn kinds(project: &Project) -> String {
    project
        .resources
        .iter()
        .map(|r| r.kind.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

fn chart_yaml(chart: &str, inputs: &Inputs<'_>, app_version: &str) -> String {
    let kinds = kinds(inputs.project);
    let version = inputs.chart_version;
    let app_version = serde_json::to_string(app_version).unwrap_or_default();
    format!(
        "# The {chart} operator as a Helm chart, written by `operator-rs generate chart`, which keeps\n# your edits to this file when it generates the chart again.\napiVersion: v2\nname: {chart}\ndescription: The {chart} operator, for custom resources of kind {kinds}\ntype: application\n# The chart's version (`operator-rs generate chart --chart-version`).\nversion: {version}\n# The operator's version: the default tag of its image (image.tag in values.yaml).\nappVersion: {app_version}\n"
    )
}

/// `webhook_secret`: `deploy/`'s name of the Secret of the operator's own webhook certificate,
/// when the project has webhooks.
fn readme(
    chart: &str,
    inputs: &Inputs<'_>,
    defs: &[Definition],
    webhook_secret: Option<&str>,
) -> String {
    let kinds = kinds(inputs.project);
    let table = values::table(defs);
    // The Secret is the operator's, made at run time, so Helm does not delete it.
    let webhook_secret = webhook_secret
        .map(|secret| {
            let project = &inputs.project.project_name;
            let suffix = secret.strip_prefix(project.as_str()).unwrap_or(secret);
            format!(
                "\n\nWith its own webhook certificates (the default), the operator made the Secret\n`FULLNAME{suffix}` (FULLNAME: the release's name, with the chart's unless it holds it\nalready), and Helm leaves it: delete it with `kubectl delete secret` once the operator is gone\nfor good."
            )
        })
        .unwrap_or_default();
    format!(
        "# {chart}

A Helm chart of the {chart} operator, which reconciles custom resources of kind {kinds}.
`operator-rs generate chart` wrote it from the project's `deploy/`, and keeps your edits to this
file, `Chart.yaml`, `values.yaml` and `templates/NOTES.txt` when it generates the chart again.

## Install

```sh
helm install {chart} ./chart --namespace {chart}-system --create-namespace
```

The release installs the CustomResourceDefinitions with it. They are shared by every release of
the operator in the cluster: install another release (in another namespace) with
`--set crds.install=false`. Every object the chart names itself is named after the release,
and the cluster-scoped ones after its namespace too, so that releases never clash.

By default the operator watches its own namespace. `--set watchNamespace=\"\"` makes it watch
every namespace (its namespaced rules are then granted in every namespace), and
`--set watchNamespace=NAME` another one.

## Uninstall

```sh
helm uninstall {chart} --namespace {chart}-system
```

keeps the CRDs, and with them every custom resource (`crds.keep: true`). Delete a CRD with
`kubectl delete crd NAME` once none of its custom resources is needed any more.{webhook_secret}

## Values

{table}"
    )
}

fn notes(chart: &str, inputs: &Inputs<'_>, deployment: &str) -> String {
    let mut samples = String::new();
    for sample in &inputs.bundle.samples {
        let mut object = sample.object.clone();
        if let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) {
            metadata.remove("namespace");
        }
        let plural = inputs
            .project
            .resources
            .iter()
            .find(|r| r.kind == sample.kind() && r.api_version() == sample.api_version())
            .map(|r| format!("{}.{}", r.plural, r.group))
            .unwrap_or_else(|| sample.kind().to_lowercase());
        let yaml: String = crate::yaml::to_string(&object)
            .lines()
            .map(|l| format!("  {}\n", markers::escape_go(l)))
            .collect();
        samples.push_str(&format!(
            "\nCreate a first {kind}:\n\n  kubectl apply -n {{{{ $ns }}}} -f - <<EOF\n{yaml}  EOF\n  kubectl get -n {{{{ $ns }}}} {plural}\n",
            kind = sample.kind()
        ));
    }
    format!(
        "{{{{- $ns := .Release.Namespace }}}}
{{{{- if and (kindIs \"string\" .Values.watchNamespace) .Values.watchNamespace }}}}
{{{{- $ns = .Values.watchNamespace }}}}
{{{{- end -}}}}
The {chart} operator is installed in namespace {{{{ .Release.Namespace }}}} (release {{{{ .Release.Name }}}}).
{{{{- if eq (include \"{chart}.watchesAllNamespaces\" .) \"true\" }}}}
It watches custom resources in every namespace.
{{{{- else }}}}
It watches custom resources in namespace {{{{ $ns }}}}.
{{{{- end }}}}
{samples}
Follow what the operator does with:

  kubectl logs -n {{{{ .Release.Namespace }}}} deployment/{deployment}
"
    )
}
