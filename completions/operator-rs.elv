
use builtin;
use str;

set edit:completion:arg-completer[operator-rs] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'operator-rs'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'operator-rs'= {
            cand -q 'Print nothing but errors'
            cand --quiet 'Print nothing but errors'
            cand -y 'Never ask; use defaults for values not given (implied without a terminal)'
            cand --yes 'Never ask; use defaults for values not given (implied without a terminal)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand new 'Create a new operator project'
            cand create 'Add to an existing project'
            cand completion 'Print a shell completion script'
            cand deploy 'Apply deploy/ to a cluster and wait until the operator is running'
            cand undeploy 'Delete what `deploy` applied (CRDs and custom resources only when asked)'
            cand build 'Build the operator image with docker, podman or buildah (and push it with --push)'
            cand run 'Apply the project''s CRDs, then run its operator on this machine against the cluster until Ctrl-C'
            cand generate 'Regenerate files of a project from its code'
            cand template 'Render a chart locally as `helm template` does (in a Helm project: what the operator will install for each kind''s sample)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'operator-rs;new'= {
            cand --type 'Kind of project to create'
            cand --api-version 'API group and version of the Kind, GROUP/VERSION [default: charts.<domain>/v1alpha1 for Helm, <kind>.<domain>/v1alpha1 for Rust]'
            cand --kind 'The Kind, in CamelCase [default for Helm: the chart name in CamelCase]'
            cand --plural 'Resource plural of the Kind [default: the English plural of the Kind, lower-case]'
            cand --helm-chart 'Helm projects: the chart for the Kind: a directory, .tgz, repo/name (after `helm repo add`), URL of a .tgz, or oci:// reference [default: a starter chart like `helm create`]'
            cand --set-chart-version 'Helm projects: write this semver version (and, if that is not valid either, appVersion) into the copied Chart.yaml of an unreleased --helm-chart whose version Helm cannot load, such as rancher''s %VERSION%'
            cand --sample-values 'Helm projects: write the sample custom resource from the chart''s default values merged with this ci/*.yaml file of the --helm-chart (for a chart whose defaults do not render, such as one with a required value)'
            cand --helm-chart-version 'Version of a remote --helm-chart: exact (2.9.1) or a constraint (~2.9, ">=2.8 <3") [default: the newest release]'
            cand --helm-chart-repo 'Chart repository URL to find --helm-chart in, like `helm install --repo`'
            cand --domain 'Domain for default API groups'
            cand --runtime 'Helm projects: what runs the operator, operator-rs''s own Rust runtime or the operator-framework helm-operator image [default: operator-rs]'
            cand --plain-http 'Use plain HTTP, not HTTPS, for an oci:// --helm-chart (a registry without TLS)'
            cand -q 'Print nothing but errors'
            cand --quiet 'Print nothing but errors'
            cand -y 'Never ask; use defaults for values not given (implied without a terminal)'
            cand --yes 'Never ask; use defaults for values not given (implied without a terminal)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'operator-rs;create'= {
            cand -q 'Print nothing but errors'
            cand --quiet 'Print nothing but errors'
            cand -y 'Never ask; use defaults for values not given (implied without a terminal)'
            cand --yes 'Never ask; use defaults for values not given (implied without a terminal)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand api 'Add a Kind (with its chart or controller) to the project in this directory or above'
            cand webhook 'Add a defaulting, validation or conversion webhook for a Kind of the Rust project in this directory or above'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'operator-rs;create;api'= {
            cand --api-version 'API group and version of the Kind, GROUP/VERSION [default: charts.<domain>/v1alpha1 for Helm, <kind>.<domain>/v1alpha1 for Rust]'
            cand --kind 'The Kind, in CamelCase [default for Helm: the chart name in CamelCase]'
            cand --plural 'Resource plural of the Kind [default: the English plural of the Kind, lower-case]'
            cand --helm-chart 'Helm projects: the chart for the Kind: a directory, .tgz, repo/name (after `helm repo add`), URL of a .tgz, or oci:// reference [default: a starter chart like `helm create`]'
            cand --set-chart-version 'Helm projects: write this semver version (and, if that is not valid either, appVersion) into the copied Chart.yaml of an unreleased --helm-chart whose version Helm cannot load, such as rancher''s %VERSION%'
            cand --sample-values 'Helm projects: write the sample custom resource from the chart''s default values merged with this ci/*.yaml file of the --helm-chart (for a chart whose defaults do not render, such as one with a required value)'
            cand --helm-chart-version 'Version of a remote --helm-chart: exact (2.9.1) or a constraint (~2.9, ">=2.8 <3") [default: the newest release]'
            cand --helm-chart-repo 'Chart repository URL to find --helm-chart in, like `helm install --repo`'
            cand --plain-http 'Use plain HTTP, not HTTPS, for an oci:// --helm-chart (a registry without TLS)'
            cand -q 'Print nothing but errors'
            cand --quiet 'Print nothing but errors'
            cand -y 'Never ask; use defaults for values not given (implied without a terminal)'
            cand --yes 'Never ask; use defaults for values not given (implied without a terminal)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'operator-rs;create;webhook'= {
            cand --kind 'The Kind, as the project has it'
            cand --version 'API version of the types the admission webhooks see, and the hub of conversion [default: the version the kind is stored in]'
            cand --defaulting 'A defaulting (mutating) webhook: src/webhooks/<kind>.rs fills in what an object left out'
            cand --validation 'A validation webhook for create, update and delete (kubebuilder''s --programmatic-validation is accepted)'
            cand --conversion 'A conversion webhook between the kind''s versions, through the storage version'
            cand -q 'Print nothing but errors'
            cand --quiet 'Print nothing but errors'
            cand -y 'Never ask; use defaults for values not given (implied without a terminal)'
            cand --yes 'Never ask; use defaults for values not given (implied without a terminal)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'operator-rs;create;help'= {
            cand api 'Add a Kind (with its chart or controller) to the project in this directory or above'
            cand webhook 'Add a defaulting, validation or conversion webhook for a Kind of the Rust project in this directory or above'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'operator-rs;create;help;api'= {
        }
        &'operator-rs;create;help;webhook'= {
        }
        &'operator-rs;create;help;help'= {
        }
        &'operator-rs;completion'= {
            cand -q 'Print nothing but errors'
            cand --quiet 'Print nothing but errors'
            cand -y 'Never ask; use defaults for values not given (implied without a terminal)'
            cand --yes 'Never ask; use defaults for values not given (implied without a terminal)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'operator-rs;deploy'= {
            cand -n 'Namespace to deploy into [default: the last one deployed to (PROJECT), else the context''s, else "default"]'
            cand --namespace 'Namespace to deploy into [default: the last one deployed to (PROJECT), else the context''s, else "default"]'
            cand --image 'Operator image [default: the image of the last `operator-rs build`]'
            cand --dry-run 'Print the manifests instead of applying them (`--dry-run` alone is client)'
            cand --timeout 'How long to wait for CRDs and the rollout, for example 90s, 5m or 1h'
            cand --create-namespace 'Create the namespace if it is missing; --create-namespace=false fails instead'
            cand --kubeconfig 'Kubeconfig file [default: the files in $KUBECONFIG, else ~/.kube/config, else in-cluster]'
            cand --context 'Kubeconfig context to use [default: the current context]'
            cand --cache-dir 'Cache directory, as kubectl''s: API discovery is kept in DIR/discovery/ for six hours [default: $KUBECACHEDIR, else ~/.kube/cache]'
            cand --with-sample 'Also apply the sample custom resource of every API (deploy/crds/*_cr.yaml)'
            cand --no-wait 'Return once applied, without waiting for the operator to be rolled out'
            cand -q 'Print nothing but errors'
            cand --quiet 'Print nothing but errors'
            cand -y 'Never ask; use defaults for values not given (implied without a terminal)'
            cand --yes 'Never ask; use defaults for values not given (implied without a terminal)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'operator-rs;undeploy'= {
            cand -n 'Namespace to delete from [default: the last one deployed to (PROJECT), else the context''s, else "default"]'
            cand --namespace 'Namespace to delete from [default: the last one deployed to (PROJECT), else the context''s, else "default"]'
            cand --timeout 'How long to wait for the objects to be gone, for example 90s, 5m or 1h'
            cand --kubeconfig 'Kubeconfig file [default: the files in $KUBECONFIG, else ~/.kube/config, else in-cluster]'
            cand --context 'Kubeconfig context to use [default: the current context]'
            cand --cache-dir 'Cache directory, as kubectl''s: API discovery is kept in DIR/discovery/ for six hours [default: $KUBECACHEDIR, else ~/.kube/cache]'
            cand --include-crds 'Also delete the CustomResourceDefinitions, and with them every custom resource of their kinds'
            cand --force 'With --include-crds: delete even when custom resources exist, without asking'
            cand --delete-custom-resources 'Delete the custom resources the operator watches first, wait until the operator has finished them (a Helm operator uninstalls their releases), then remove the operator'
            cand --keep-custom-resources 'Remove the operator even though custom resources with its finalizer exist; they stay, undeletable until an operator runs again'
            cand --no-wait 'Return once deletion is requested, without waiting for the objects to be gone'
            cand -q 'Print nothing but errors'
            cand --quiet 'Print nothing but errors'
            cand -y 'Never ask; use defaults for values not given (implied without a terminal)'
            cand --yes 'Never ask; use defaults for values not given (implied without a terminal)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'operator-rs;build'= {
            cand --builder 'The program that builds and pushes the image'
            cand --build-arg 'A build argument for the Dockerfile, for example BASE_IMAGE=localhost/helm-operator:dev (repeatable)'
            cand --platform 'Target platform of the image, for example linux/arm64 (Rust projects: linux/amd64 or linux/arm64, cross-compiled on this machine''s platform)'
            cand --file 'The Dockerfile, relative to the current directory [default: build/Dockerfile in the project root]'
            cand --label 'An extra image label; wins over the OCI labels operator-rs adds (repeatable)'
            cand --runtime-binary 'Helm projects with the operator-rs runtime: the operator-rs binary to package, a Linux executable for --platform [default: this operator-rs]'
            cand --push 'Push the image to its registry after building it'
            cand --no-cache 'Build every step again instead of reusing cached layers'
            cand --local 'Rust projects: build the binary with cargo on this machine, then package it with the runtime stage of the Dockerfile only'
            cand -q 'Print nothing but errors'
            cand --quiet 'Print nothing but errors'
            cand -y 'Never ask; use defaults for values not given (implied without a terminal)'
            cand --yes 'Never ask; use defaults for values not given (implied without a terminal)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'operator-rs;run'= {
            cand -n 'Namespace the operator watches (WATCH_NAMESPACE) [default: the last one deployed to (PROJECT), else the context''s, else "default"]'
            cand --namespace 'Namespace the operator watches (WATCH_NAMESPACE) [default: the last one deployed to (PROJECT), else the context''s, else "default"]'
            cand --timeout 'How long to wait for the CRDs to be Established (and the operator''s webhooks to answer), for example 90s, 5m or 1h'
            cand --webhook-host 'With webhooks in deploy/: the address of this machine the API server calls them at [default: 127.0.0.1 when the API server is on this machine''s loopback]; for kind or k3d, the Docker network''s gateway'
            cand --webhook-port 'With webhooks in deploy/: the port the operator serves them on; 0 picks a free one'
            cand --kubeconfig 'Kubeconfig file [default: the files in $KUBECONFIG, else ~/.kube/config, else in-cluster]'
            cand --context 'Kubeconfig context to use [default: the current context]'
            cand --cache-dir 'Cache directory, as kubectl''s: API discovery is kept in DIR/discovery/ for six hours [default: $KUBECACHEDIR, else ~/.kube/cache]'
            cand -A 'Watch every namespace (WATCH_NAMESPACE="")'
            cand --all-namespaces 'Watch every namespace (WATCH_NAMESPACE="")'
            cand --release 'Build and run the operator with cargo''s release profile'
            cand -q 'Print nothing but errors'
            cand --quiet 'Print nothing but errors'
            cand -y 'Never ask; use defaults for values not given (implied without a terminal)'
            cand --yes 'Never ask; use defaults for values not given (implied without a terminal)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'operator-rs;generate'= {
            cand -q 'Print nothing but errors'
            cand --quiet 'Print nothing but errors'
            cand -y 'Never ask; use defaults for values not given (implied without a terminal)'
            cand --yes 'Never ask; use defaults for values not given (implied without a terminal)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand crds 'Rewrite deploy/crds/*_crd.yaml of a Rust project from its types (runs `cargo run --bin crdgen`); samples are never touched'
            cand bundle 'Write dist/install.yaml: the operator with its CRDs and RBAC, image and namespace filled in, for `kubectl apply --server-side -f`'
            cand chart 'Write dist/chart/: a Helm chart of the operator; regenerating keeps your edits to values.yaml, Chart.yaml, NOTES.txt and README.md'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'operator-rs;generate;crds'= {
            cand --check 'Change nothing; exit with code 1 when a CRD file is out of date (for CI)'
            cand -q 'Print nothing but errors'
            cand --quiet 'Print nothing but errors'
            cand -y 'Never ask; use defaults for values not given (implied without a terminal)'
            cand --yes 'Never ask; use defaults for values not given (implied without a terminal)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'operator-rs;generate;bundle'= {
            cand --image 'Operator image [default: the image of the last `operator-rs build`]'
            cand -n 'Namespace to install into [default: the last one deployed to (PROJECT), else the kubeconfig context''s, else "default"]'
            cand --namespace 'Namespace to install into [default: the last one deployed to (PROJECT), else the kubeconfig context''s, else "default"]'
            cand -o 'Directory to write install.yaml (and crds.yaml) into, created if missing [default: dist in the project root]'
            cand --output 'Directory to write install.yaml (and crds.yaml) into, created if missing [default: dist in the project root]'
            cand --crds-separately 'Put the CustomResourceDefinitions in crds.yaml, apart from install.yaml'
            cand -q 'Print nothing but errors'
            cand --quiet 'Print nothing but errors'
            cand -y 'Never ask; use defaults for values not given (implied without a terminal)'
            cand --yes 'Never ask; use defaults for values not given (implied without a terminal)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'operator-rs;generate;chart'= {
            cand --image 'Operator image: its repository and tag become image.repository and the chart''s appVersion [default: the image of the last `operator-rs build`]'
            cand --chart-version 'The chart''s version, a semantic version [default: the project''s (Cargo.toml of a Rust project, else the image tag when it is one), else 0.1.0]'
            cand -o 'Directory of the chart [default: dist/chart in the project root]'
            cand --output 'Directory of the chart [default: dist/chart in the project root]'
            cand --force 'Overwrite files you edited (values.yaml, Chart.yaml, NOTES.txt, README.md and the templates) with what the project gives now'
            cand -q 'Print nothing but errors'
            cand --quiet 'Print nothing but errors'
            cand -y 'Never ask; use defaults for values not given (implied without a terminal)'
            cand --yes 'Never ask; use defaults for values not given (implied without a terminal)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'operator-rs;generate;help'= {
            cand crds 'Rewrite deploy/crds/*_crd.yaml of a Rust project from its types (runs `cargo run --bin crdgen`); samples are never touched'
            cand bundle 'Write dist/install.yaml: the operator with its CRDs and RBAC, image and namespace filled in, for `kubectl apply --server-side -f`'
            cand chart 'Write dist/chart/: a Helm chart of the operator; regenerating keeps your edits to values.yaml, Chart.yaml, NOTES.txt and README.md'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'operator-rs;generate;help;crds'= {
        }
        &'operator-rs;generate;help;bundle'= {
        }
        &'operator-rs;generate;help;chart'= {
        }
        &'operator-rs;generate;help;help'= {
        }
        &'operator-rs;template'= {
            cand -f 'A values file (YAML); several are merged in order, later ones win'
            cand --values 'A values file (YAML); several are merged in order, later ones win'
            cand --set 'A value on the command line, in Helm''s syntax (a.b=c, list[0]=x, l={a,b}, commas between pairs); after -f'
            cand --name 'The release name [default: release-name, or in a Helm project the custom resource''s name]'
            cand -n 'The release namespace [default: default, or in a Helm project the custom resource''s]'
            cand --namespace 'The release namespace [default: default, or in a Helm project the custom resource''s]'
            cand --kube-version 'The Kubernetes version for .Capabilities.KubeVersion (for example 1.33 or v1.33.4)'
            cand -a 'An API version for .Capabilities.APIVersions, as group/version or group/version/Kind (repeatable)'
            cand --api-versions 'An API version for .Capabilities.APIVersions, as group/version or group/version/Kind (repeatable)'
            cand -s 'Print only the manifests of these templates (paths inside the chart, globs allowed, for example templates/deployment.yaml)'
            cand --show-only 'Print only the manifests of these templates (paths inside the chart, globs allowed, for example templates/deployment.yaml)'
            cand --cr 'In a Helm project: render with this custom resource (YAML) instead of each kind''s sample'
            cand --chart-version 'Version of a remote CHART: exact (2.9.1) or a constraint (~2.9) [default: the newest release]'
            cand --repo 'Chart repository URL to find CHART in, like `helm template --repo`'
            cand --include-crds 'Print the chart''s crds/ too'
            cand --plain-http 'Use plain HTTP, not HTTPS, for an oci:// CHART (a registry without TLS)'
            cand -q 'Print nothing but errors'
            cand --quiet 'Print nothing but errors'
            cand -y 'Never ask; use defaults for values not given (implied without a terminal)'
            cand --yes 'Never ask; use defaults for values not given (implied without a terminal)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'operator-rs;help'= {
            cand new 'Create a new operator project'
            cand create 'Add to an existing project'
            cand completion 'Print a shell completion script'
            cand deploy 'Apply deploy/ to a cluster and wait until the operator is running'
            cand undeploy 'Delete what `deploy` applied (CRDs and custom resources only when asked)'
            cand build 'Build the operator image with docker, podman or buildah (and push it with --push)'
            cand run 'Apply the project''s CRDs, then run its operator on this machine against the cluster until Ctrl-C'
            cand generate 'Regenerate files of a project from its code'
            cand template 'Render a chart locally as `helm template` does (in a Helm project: what the operator will install for each kind''s sample)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'operator-rs;help;new'= {
        }
        &'operator-rs;help;create'= {
            cand api 'Add a Kind (with its chart or controller) to the project in this directory or above'
            cand webhook 'Add a defaulting, validation or conversion webhook for a Kind of the Rust project in this directory or above'
        }
        &'operator-rs;help;create;api'= {
        }
        &'operator-rs;help;create;webhook'= {
        }
        &'operator-rs;help;completion'= {
        }
        &'operator-rs;help;deploy'= {
        }
        &'operator-rs;help;undeploy'= {
        }
        &'operator-rs;help;build'= {
        }
        &'operator-rs;help;run'= {
        }
        &'operator-rs;help;generate'= {
            cand crds 'Rewrite deploy/crds/*_crd.yaml of a Rust project from its types (runs `cargo run --bin crdgen`); samples are never touched'
            cand bundle 'Write dist/install.yaml: the operator with its CRDs and RBAC, image and namespace filled in, for `kubectl apply --server-side -f`'
            cand chart 'Write dist/chart/: a Helm chart of the operator; regenerating keeps your edits to values.yaml, Chart.yaml, NOTES.txt and README.md'
        }
        &'operator-rs;help;generate;crds'= {
        }
        &'operator-rs;help;generate;bundle'= {
        }
        &'operator-rs;help;generate;chart'= {
        }
        &'operator-rs;help;template'= {
        }
        &'operator-rs;help;help'= {
        }
    ]
    $completions[$command]
}
