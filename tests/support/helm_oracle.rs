//! Real Helm as the oracle of rendering tests: `helm-python-sdk` (Helm 4's Go SDK) in the test
//! virtual environment, driven through `helm_oracle.py`. One Python process serves many
//! renders; requests are pipelined, so a batch costs one round trip.
//!
//! ```ignore
//! let mut helm = HelmOracle::start().expect("helm oracle");
//! let out = helm.render(&RenderRequest::new("/path/to/chart").values_yaml("a: 1"))?;
//! ```

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::{Value as Json, json};

/// What to render: a chart directory (or `.tgz`) and Helm's render options.
#[derive(Clone, Debug, Default)]
pub struct RenderRequest {
    pub chart: PathBuf,
    /// Values as JSON (numbers reach Helm as float64, as values files do).
    pub values: Option<Json>,
    /// Values as YAML text, parsed by Helm itself.
    pub values_yaml: Option<String>,
    pub name: Option<String>,
    pub namespace: Option<String>,
    pub revision: Option<i64>,
    pub is_upgrade: Option<bool>,
    /// For `.Capabilities.KubeVersion`, e.g. `v1.33.0`.
    pub kube_version: Option<String>,
    /// Extra `.Capabilities.APIVersions`: `group/version` or `group/version/Kind`.
    pub api_versions: Vec<String>,
}

impl RenderRequest {
    pub fn new(chart: impl Into<PathBuf>) -> RenderRequest {
        RenderRequest {
            chart: chart.into(),
            ..RenderRequest::default()
        }
    }

    pub fn values(mut self, v: Json) -> Self {
        self.values = Some(v);
        self
    }

    pub fn values_yaml(mut self, y: impl Into<String>) -> Self {
        self.values_yaml = Some(y.into());
        self
    }

    pub fn release(mut self, name: &str, namespace: &str) -> Self {
        self.name = Some(name.into());
        self.namespace = Some(namespace.into());
        self
    }

    pub fn kube_version(mut self, v: &str) -> Self {
        self.kube_version = Some(v.into());
        self
    }

    pub fn api_versions(mut self, v: &[&str]) -> Self {
        self.api_versions = v.iter().map(|s| s.to_string()).collect();
        self
    }

    fn to_json(&self) -> Json {
        let mut m = serde_json::Map::new();
        m.insert("chart".into(), json!(self.chart));
        if let Some(v) = &self.values {
            m.insert("values".into(), v.clone());
        }
        if let Some(v) = &self.values_yaml {
            m.insert("values_yaml".into(), json!(v));
        }
        if let Some(v) = &self.name {
            m.insert("name".into(), json!(v));
        }
        if let Some(v) = &self.namespace {
            m.insert("namespace".into(), json!(v));
        }
        if let Some(v) = self.revision {
            m.insert("revision".into(), json!(v));
        }
        if let Some(v) = self.is_upgrade {
            m.insert("is_upgrade".into(), json!(v));
        }
        if let Some(v) = &self.kube_version {
            m.insert("kube_version".into(), json!(v));
        }
        if !self.api_versions.is_empty() {
            m.insert("api_versions".into(), json!(self.api_versions));
        }
        Json::Object(m)
    }
}

/// Helm's answer: the rendered files by path (`<chart>/templates/<file>`, NOTES.txt and
/// partials' absence included, exactly as Helm's engine returns them), or Helm's error text.
pub type Rendered = Result<BTreeMap<String, String>, String>;

/// The files of a render that are manifests (no NOTES.txt).
pub fn manifests(r: &BTreeMap<String, String>) -> BTreeMap<String, String> {
    r.iter()
        .filter(|(k, _)| !k.ends_with("/NOTES.txt"))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// The top chart's NOTES.txt as rendered, if any.
pub fn notes(r: &BTreeMap<String, String>) -> Option<String> {
    r.iter()
        .filter(|(k, _)| k.ends_with("/templates/NOTES.txt"))
        .min_by_key(|(k, _)| k.matches('/').count())
        .map(|(_, v)| v.clone())
}

pub struct HelmOracle {
    child: Child,
    /// `None` only while a batch's writer thread holds it.
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
}

impl HelmOracle {
    /// Starts the oracle. `None` (with a message) when the venv lacks helm-python-sdk on a
    /// developer machine; under CI a missing oracle fails the test.
    pub fn start() -> Option<HelmOracle> {
        let python = super::tools::venv().join("bin").join("python");
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/helm_oracle.py");
        let usable = python.is_file()
            && Command::new(&python)
                .args(["-c", "import helm_python"])
                .output()
                .is_ok_and(|o| o.status.success());
        if !usable {
            let msg = format!(
                "the Helm oracle needs helm-python-sdk in {} (scripts/setup-test-tools.sh installs it)",
                super::tools::venv().display()
            );
            if std::env::var_os("CI").is_some() {
                panic!("{msg}");
            }
            eprintln!("skipping Helm comparisons: {msg}");
            return None;
        }
        let mut child = Command::new(python)
            .arg(script)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start the Helm oracle");
        let stdin = child.stdin.take().expect("oracle stdin");
        let stdout = BufReader::new(child.stdout.take().expect("oracle stdout"));
        Some(HelmOracle {
            child,
            stdin: Some(stdin),
            stdout,
        })
    }

    pub fn render(&mut self, req: &RenderRequest) -> Rendered {
        self.render_all(std::slice::from_ref(req))
            .pop()
            .expect("one answer")
    }

    /// Renders many requests in one round trip; answers in request order.
    pub fn render_all(&mut self, reqs: &[RenderRequest]) -> Vec<Rendered> {
        // Write from a thread so that a large batch cannot dead-lock on full pipes.
        let lines: Vec<String> = reqs.iter().map(|r| r.to_json().to_string()).collect();
        let mut stdin = self.stdin.take().expect("oracle stdin");
        let writer = std::thread::spawn(move || {
            for l in lines {
                stdin.write_all(l.as_bytes()).expect("write to the oracle");
                stdin.write_all(b"\n").expect("write to the oracle");
            }
            stdin.flush().expect("flush the oracle");
            stdin
        });
        let mut out = Vec::with_capacity(reqs.len());
        for _ in reqs {
            let answer = self.read_answer();
            out.push(match answer.get("manifests") {
                Some(Json::Object(m)) => Ok(m
                    .iter()
                    .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                    .collect()),
                _ => Err(answer["error"].as_str().unwrap_or_default().to_string()),
            });
        }
        self.stdin = Some(writer.join().expect("oracle writer"));
        out
    }
}

impl HelmOracle {
    /// The oracle's next answer line, as JSON.
    fn read_answer(&mut self) -> Json {
        let mut line = String::new();
        self.stdout
            .read_line(&mut line)
            .expect("read from the oracle");
        assert!(!line.is_empty(), "the Helm oracle stopped");
        serde_json::from_str(&line).expect("oracle answers JSON")
    }

    /// One request on releases in a cluster (see helm_oracle.py): `op` with its arguments;
    /// the SDK's answer, or Helm's error message.
    pub fn release_op(&mut self, request: Json) -> Result<Json, String> {
        let stdin = self.stdin.as_mut().expect("oracle stdin");
        writeln!(stdin, "{request}").expect("write to the oracle");
        stdin.flush().expect("flush the oracle");
        let answer = self.read_answer();
        match answer.get("result") {
            Some(result) => Ok(result.clone()),
            None => Err(answer["error"].as_str().unwrap_or_default().to_string()),
        }
    }
}

/// Real Helm acting on the releases of one namespace of a cluster, through a kubeconfig.
pub struct HelmReleases<'a> {
    pub oracle: &'a mut HelmOracle,
    pub kubeconfig: PathBuf,
    pub namespace: String,
}

impl HelmReleases<'_> {
    fn op(&mut self, op: &str, mut args: Json) -> Result<Json, String> {
        args["op"] = json!(op);
        args["kubeconfig"] = json!(self.kubeconfig);
        args["namespace"] = json!(self.namespace);
        self.oracle.release_op(args)
    }

    /// `helm list` (`--all` with `all`).
    pub fn list(&mut self, all: bool) -> Result<Json, String> {
        self.op("list", json!({"all": all}))
    }

    /// `helm history NAME`, oldest first.
    pub fn history(&mut self, name: &str) -> Result<Json, String> {
        self.op("history", json!({"name": name}))
    }

    /// `helm history NAME` as (revision, status) pairs, oldest first.
    pub fn statuses(&mut self, name: &str) -> Result<Vec<(i64, String)>, String> {
        let history = self.history(name)?;
        let entries = history
            .as_array()
            .ok_or_else(|| format!("not a list: {history}"))?;
        Ok(entries
            .iter()
            .map(|r| {
                let revision = r["revision"].as_i64().unwrap_or(-1);
                (
                    revision,
                    r["status"].as_str().unwrap_or_default().to_string(),
                )
            })
            .collect())
    }

    /// `helm get values NAME` (`--all` with `all`).
    pub fn get_values(&mut self, name: &str, all: bool) -> Result<Json, String> {
        self.op("get_values", json!({"name": name, "all": all}))
    }

    /// `helm status NAME`.
    pub fn status(&mut self, name: &str) -> Result<Json, String> {
        self.op("status", json!({"name": name}))
    }

    /// `helm install NAME CHART` with values.
    pub fn install(&mut self, name: &str, chart: &Path, values: Json) -> Result<Json, String> {
        self.op(
            "install",
            json!({"name": name, "chart": chart, "values": values}),
        )
    }

    /// `helm upgrade NAME CHART` with values (and `--history-max`).
    pub fn upgrade(
        &mut self,
        name: &str,
        chart: &Path,
        values: Json,
        max_history: Option<u32>,
    ) -> Result<Json, String> {
        self.op(
            "upgrade",
            json!({"name": name, "chart": chart, "values": values, "max_history": max_history}),
        )
    }

    /// `helm uninstall NAME`.
    pub fn uninstall(&mut self, name: &str) -> Result<Json, String> {
        self.op("uninstall", json!({"name": name}))
    }
}

impl Drop for HelmOracle {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
