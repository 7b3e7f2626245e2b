//! The deploy flow against a real cluster, opt-in (kind, k3d, or any cluster you may write to):
//!
//! ```sh
//! OPERATOR_RS_E2E_KUBECONFIG=~/.kube/config \
//! OPERATOR_RS_E2E_CONTEXT=kind-kind \          # optional, default: the current context
//! OPERATOR_RS_E2E_IMAGE=localhost/hello:dev \  # optional: an operator image the cluster can run
//!   cargo test --test e2e_cluster -- --nocapture
//! ```
//!
//! It works in a namespace of its own (`operator-rs-e2e-<pid>`) and installs, then removes, the
//! cluster-wide CRD `helloworlds.charts.example.com`. Without `OPERATOR_RS_E2E_IMAGE` the
//! operator cannot start, so the rollout is not waited for; everything else is checked.
//! Without `OPERATOR_RS_E2E_KUBECONFIG` the test returns at once and says so.

use std::path::{Path, PathBuf};
use std::process::Output;

const NAME: &str = "hello-world-operator";
const CRD: &str = "helloworlds.charts.example.com";

struct Cluster {
    kubeconfig: PathBuf,
    context: Option<String>,
    namespace: String,
}

impl Cluster {
    fn from_env() -> Option<Cluster> {
        let kubeconfig = std::env::var_os("OPERATOR_RS_E2E_KUBECONFIG")?;
        Some(Cluster {
            kubeconfig: PathBuf::from(kubeconfig),
            context: std::env::var("OPERATOR_RS_E2E_CONTEXT").ok(),
            namespace: format!("operator-rs-e2e-{}", std::process::id()),
        })
    }

    fn connection_args(&self) -> Vec<String> {
        let mut args = vec![
            "--kubeconfig".to_string(),
            self.kubeconfig.display().to_string(),
        ];
        if let Some(context) = &self.context {
            args.extend(["--context".to_string(), context.clone()]);
        }
        args
    }

    fn kubectl(&self, args: &[&str]) -> Output {
        std::process::Command::new("kubectl")
            .args(self.connection_args())
            .args(args)
            .output()
            .expect("kubectl runs")
    }

    fn kubectl_json(&self, args: &[&str]) -> serde_json::Value {
        let mut all = args.to_vec();
        all.extend(["-o", "json"]);
        let output = self.kubectl(&all);
        assert!(
            output.status.success(),
            "kubectl {args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        serde_json::from_slice(&output.stdout).unwrap()
    }

    fn operator_rs(&self, project: &Path, args: &[&str]) -> Output {
        assert_cmd::Command::cargo_bin("operator-rs")
            .unwrap()
            .current_dir(project)
            .args(args)
            .args(self.connection_args())
            .output()
            .unwrap()
    }
}

/// Removes what the test made even when an assertion failed halfway.
impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = self.kubectl(&["delete", "crd", CRD, "--ignore-not-found", "--wait=false"]);
        let _ = self.kubectl(&[
            "delete",
            "namespace",
            &self.namespace,
            "--ignore-not-found",
            "--wait=false",
        ]);
    }
}

fn ok(output: Output) -> String {
    let stdout = String::from_utf8_lossy(&output.stdout).to_string();
    assert!(
        output.status.success(),
        "stdout:\n{stdout}\nstderr:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

/// A Helm project made by the real `operator-rs new` from the shared hello-world chart.
fn new_project(dir: &Path) -> PathBuf {
    let charts = std::env::var_os("OPERATOR_RS_SHARED_CHARTS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/charts"));
    ok(assert_cmd::Command::cargo_bin("operator-rs")
        .unwrap()
        .current_dir(dir)
        .args(["new", "--type=helm", "--yes", "--helm-chart"])
        .arg(charts.join("hello-world"))
        .output()
        .unwrap());
    dir.join(NAME)
}

#[test]
fn deploy_and_undeploy_on_a_real_cluster() {
    let Some(cluster) = Cluster::from_env() else {
        eprintln!(
            "skipped: set OPERATOR_RS_E2E_KUBECONFIG (and optionally OPERATOR_RS_E2E_CONTEXT, OPERATOR_RS_E2E_IMAGE) to run the deploy flow against a real cluster"
        );
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let project = new_project(dir.path());
    let image = std::env::var("OPERATOR_RS_E2E_IMAGE").ok();
    let mut deploy = vec![
        "deploy",
        "-n",
        &cluster.namespace,
        "--with-sample",
        "--timeout",
        "3m",
    ];
    match &image {
        Some(image) => deploy.extend(["--image", image.as_str()]),
        None => deploy.extend([
            "--image",
            "registry.invalid/operator-rs-e2e:none",
            "--no-wait",
        ]),
    }

    let stdout = ok(cluster.operator_rs(&project, &deploy));
    assert!(
        stdout.contains(&format!(
            "Deployment/{NAME} ({}): created",
            cluster.namespace
        )),
        "{stdout}"
    );
    let deployment = cluster.kubectl_json(&["-n", &cluster.namespace, "get", "deployment", NAME]);
    let expected_image = image
        .as_deref()
        .unwrap_or("registry.invalid/operator-rs-e2e:none");
    assert_eq!(
        deployment["spec"]["template"]["spec"]["containers"][0]["image"],
        expected_image
    );
    let binding = cluster.kubectl_json(&["-n", &cluster.namespace, "get", "rolebinding", NAME]);
    assert_eq!(
        binding["subjects"][0]["namespace"],
        cluster.namespace.as_str()
    );
    let crd = cluster.kubectl_json(&["get", "crd", CRD]);
    assert!(
        crd["status"]["conditions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["type"] == "Established" && c["status"] == "True")
    );

    // A re-run changes nothing. The sample may be reconciled by a running operator, which
    // only touches its status.
    let stdout = ok(cluster.operator_rs(&project, &deploy));
    assert!(!stdout.contains(": created"), "{stdout}");
    assert!(!stdout.contains(": configured"), "{stdout}");

    let refused = cluster.operator_rs(
        &project,
        &["undeploy", "-n", &cluster.namespace, "--include-crds"],
    );
    assert_eq!(refused.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("refusing"));

    let stdout = ok(cluster.operator_rs(
        &project,
        &[
            "undeploy",
            "-n",
            &cluster.namespace,
            "--include-crds",
            "--force",
            "--timeout",
            "3m",
        ],
    ));
    assert!(
        stdout.contains(&format!("CustomResourceDefinition/{CRD}: deleted")),
        "{stdout}"
    );
    let gone = cluster.kubectl(&["get", "crd", CRD]);
    assert!(!gone.status.success(), "the CRD is gone");
}
