//! What the tests of the Helm operator runtime share: a Helm project made by the real
//! `operator-rs new` from a shared chart, the Kubernetes API test server with the namespace the
//! operator watches, the real `kubectl` against that server, and `operator-rs run` in the
//! project as a real process.

use std::path::PathBuf;
use std::process::{Command, Output};

use super::kube_server::KubeServer;
use super::operator::Running;

/// The namespace the operator runs in and watches, made when the server starts.
pub const NAMESPACE: &str = "demo";

pub struct ProjectOnServer {
    pub server: KubeServer,
    /// Every command's HOME (kubectl's cache is in it), and where objects to apply are written.
    pub home: tempfile::TempDir,
    _work: tempfile::TempDir,
    pub project: PathBuf,
}

impl ProjectOnServer {
    /// A project made by `new` from the shared chart `chart`, with `new_args`, and a new test
    /// server holding [`NAMESPACE`].
    pub fn start(chart: &str, new_args: &[&str]) -> ProjectOnServer {
        let server = KubeServer::start();
        let work = tempfile::tempdir().unwrap();
        let home = tempfile::tempdir().unwrap();
        let project = super::build_projects::generated_chart_project(work.path(), chart, new_args);
        let started = ProjectOnServer {
            server,
            home,
            _work: work,
            project,
        };
        // kubectl create sends a protobuf Namespace, which the test server does not decode;
        // apply sends JSON.
        started.apply_file(
            "namespace.json",
            &format!(
                r#"{{"apiVersion":"v1","kind":"Namespace","metadata":{{"name":"{NAMESPACE}"}}}}"#
            ),
            &["--server-side"],
        );
        started
    }

    /// kubectl against the test server, in the project.
    pub fn kubectl(&self, args: &[&str]) -> Output {
        self.server
            .kubectl(&self.home.path().join("kubectl-cache"))
            .args(args)
            .current_dir(&self.project)
            .output()
            .unwrap()
    }

    /// [`ProjectOnServer::kubectl`] that must succeed: its output.
    pub fn kubectl_ok(&self, args: &[&str]) -> String {
        let output = self.kubectl(args);
        assert!(
            output.status.success(),
            "kubectl {args:?} failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    /// `kubectl apply` (with `apply_args`) of `json`, written to the file `name` in HOME.
    pub fn apply_file(&self, name: &str, json: &str, apply_args: &[&str]) {
        let file = self.home.path().join(name);
        std::fs::write(&file, json).unwrap();
        let mut args = vec!["apply"];
        args.extend_from_slice(apply_args);
        args.extend(["-f", file.to_str().unwrap()]);
        self.kubectl_ok(&args);
    }

    /// `operator-rs run` in the project against the test server, in [`NAMESPACE`], with
    /// `runtime_args` for the runtime and only `env` besides PATH, HOME and NO_COLOR.
    pub fn run(&self, runtime_args: &[&str], env: &[(&str, &str)]) -> Running {
        let mut command = Command::new(assert_cmd::cargo::cargo_bin("operator-rs"));
        command
            .current_dir(&self.project)
            .args(["run", "-n", NAMESPACE, "--kubeconfig"])
            .arg(self.server.kubeconfig())
            .arg("--")
            .args(runtime_args)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.home.path())
            .env("NO_COLOR", "1")
            .envs(env.iter().copied());
        Running::spawn("operator-rs run", &mut command)
    }
}
