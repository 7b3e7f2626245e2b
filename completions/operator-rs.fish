# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_operator_rs_global_optspecs
    string join \n q/quiet y/yes h/help V/version
end

function __fish_operator_rs_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_operator_rs_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_operator_rs_using_subcommand
    set -l cmd (__fish_operator_rs_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c operator-rs -n "__fish_operator_rs_needs_command" -s q -l quiet -d 'Print nothing but errors'
complete -c operator-rs -n "__fish_operator_rs_needs_command" -s y -l yes -d 'Never ask; use defaults for values not given (implied without a terminal)'
complete -c operator-rs -n "__fish_operator_rs_needs_command" -s h -l help -d 'Print help'
complete -c operator-rs -n "__fish_operator_rs_needs_command" -s V -l version -d 'Print version'
complete -c operator-rs -n "__fish_operator_rs_needs_command" -f -a "new" -d 'Create a new operator project'
complete -c operator-rs -n "__fish_operator_rs_needs_command" -f -a "create" -d 'Add to an existing project'
complete -c operator-rs -n "__fish_operator_rs_needs_command" -f -a "completion" -d 'Print a shell completion script'
complete -c operator-rs -n "__fish_operator_rs_needs_command" -f -a "deploy" -d 'Apply deploy/ to a cluster and wait until the operator is running'
complete -c operator-rs -n "__fish_operator_rs_needs_command" -f -a "undeploy" -d 'Delete what `deploy` applied (CRDs and custom resources only when asked)'
complete -c operator-rs -n "__fish_operator_rs_needs_command" -f -a "build" -d 'Build the operator image with docker, podman or buildah (and push it with --push)'
complete -c operator-rs -n "__fish_operator_rs_needs_command" -f -a "run" -d 'Apply the project\'s CRDs, then run its operator on this machine against the cluster until Ctrl-C'
complete -c operator-rs -n "__fish_operator_rs_needs_command" -f -a "generate" -d 'Regenerate files of a project from its code'
complete -c operator-rs -n "__fish_operator_rs_needs_command" -f -a "template" -d 'Render a chart locally as `helm template` does (in a Helm project: what the operator will install for each kind\'s sample)'
complete -c operator-rs -n "__fish_operator_rs_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand new" -l type -d 'Kind of project to create' -r -f -a "rust\t'A kube-rs controller written in Rust'
helm\t'The helm-operator image reconciling a Helm chart'"
complete -c operator-rs -n "__fish_operator_rs_using_subcommand new" -l api-version -d 'API group and version of the Kind, GROUP/VERSION [default: charts.<domain>/v1alpha1 for Helm, <kind>.<domain>/v1alpha1 for Rust]' -r
complete -c operator-rs -n "__fish_operator_rs_using_subcommand new" -l kind -d 'The Kind, in CamelCase [default for Helm: the chart name in CamelCase]' -r
complete -c operator-rs -n "__fish_operator_rs_using_subcommand new" -l plural -d 'Resource plural of the Kind [default: the English plural of the Kind, lower-case]' -r
complete -c operator-rs -n "__fish_operator_rs_using_subcommand new" -l helm-chart -d 'Helm projects: the chart for the Kind: a directory, .tgz, repo/name (after `helm repo add`), URL of a .tgz, or oci:// reference [default: a starter chart like `helm create`]' -r
complete -c operator-rs -n "__fish_operator_rs_using_subcommand new" -l set-chart-version -d 'Helm projects: write this semver version (and, if that is not valid either, appVersion) into the copied Chart.yaml of an unreleased --helm-chart whose version Helm cannot load, such as rancher\'s %VERSION%' -r
complete -c operator-rs -n "__fish_operator_rs_using_subcommand new" -l sample-values -d 'Helm projects: write the sample custom resource from the chart\'s default values merged with this ci/*.yaml file of the --helm-chart (for a chart whose defaults do not render, such as one with a required value)' -r
complete -c operator-rs -n "__fish_operator_rs_using_subcommand new" -l helm-chart-version -d 'Version of a remote --helm-chart: exact (2.9.1) or a constraint (~2.9, ">=2.8 <3") [default: the newest release]' -r
complete -c operator-rs -n "__fish_operator_rs_using_subcommand new" -l helm-chart-repo -d 'Chart repository URL to find --helm-chart in, like `helm install --repo`' -r
complete -c operator-rs -n "__fish_operator_rs_using_subcommand new" -l domain -d 'Domain for default API groups' -r
complete -c operator-rs -n "__fish_operator_rs_using_subcommand new" -l runtime -d 'Helm projects: what runs the operator, operator-rs\'s own Rust runtime or the operator-framework helm-operator image [default: operator-rs]' -r -f -a "helm-operator\t'The operator-framework helm-operator image (Go)'
operator-rs\t'operator-rs itself: its Rust Helm operator runtime, packaged with the charts'"
complete -c operator-rs -n "__fish_operator_rs_using_subcommand new" -l plain-http -d 'Use plain HTTP, not HTTPS, for an oci:// --helm-chart (a registry without TLS)'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand new" -s q -l quiet -d 'Print nothing but errors'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand new" -s y -l yes -d 'Never ask; use defaults for values not given (implied without a terminal)'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand new" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand new" -s V -l version -d 'Print version'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand create; and not __fish_seen_subcommand_from api webhook help" -s q -l quiet -d 'Print nothing but errors'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand create; and not __fish_seen_subcommand_from api webhook help" -s y -l yes -d 'Never ask; use defaults for values not given (implied without a terminal)'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand create; and not __fish_seen_subcommand_from api webhook help" -s h -l help -d 'Print help'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand create; and not __fish_seen_subcommand_from api webhook help" -s V -l version -d 'Print version'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand create; and not __fish_seen_subcommand_from api webhook help" -f -a "api" -d 'Add a Kind (with its chart or controller) to the project in this directory or above'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand create; and not __fish_seen_subcommand_from api webhook help" -f -a "webhook" -d 'Add a defaulting, validation or conversion webhook for a Kind of the Rust project in this directory or above'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand create; and not __fish_seen_subcommand_from api webhook help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand create; and __fish_seen_subcommand_from api" -l api-version -d 'API group and version of the Kind, GROUP/VERSION [default: charts.<domain>/v1alpha1 for Helm, <kind>.<domain>/v1alpha1 for Rust]' -r
complete -c operator-rs -n "__fish_operator_rs_using_subcommand create; and __fish_seen_subcommand_from api" -l kind -d 'The Kind, in CamelCase [default for Helm: the chart name in CamelCase]' -r
complete -c operator-rs -n "__fish_operator_rs_using_subcommand create; and __fish_seen_subcommand_from api" -l plural -d 'Resource plural of the Kind [default: the English plural of the Kind, lower-case]' -r
complete -c operator-rs -n "__fish_operator_rs_using_subcommand create; and __fish_seen_subcommand_from api" -l helm-chart -d 'Helm projects: the chart for the Kind: a directory, .tgz, repo/name (after `helm repo add`), URL of a .tgz, or oci:// reference [default: a starter chart like `helm create`]' -r
complete -c operator-rs -n "__fish_operator_rs_using_subcommand create; and __fish_seen_subcommand_from api" -l set-chart-version -d 'Helm projects: write this semver version (and, if that is not valid either, appVersion) into the copied Chart.yaml of an unreleased --helm-chart whose version Helm cannot load, such as rancher\'s %VERSION%' -r
complete -c operator-rs -n "__fish_operator_rs_using_subcommand create; and __fish_seen_subcommand_from api" -l sample-values -d 'Helm projects: write the sample custom resource from the chart\'s default values merged with this ci/*.yaml file of the --helm-chart (for a chart whose defaults do not render, such as one with a required value)' -r
complete -c operator-rs -n "__fish_operator_rs_using_subcommand create; and __fish_seen_subcommand_from api" -l helm-chart-version -d 'Version of a remote --helm-chart: exact (2.9.1) or a constraint (~2.9, ">=2.8 <3") [default: the newest release]' -r
complete -c operator-rs -n "__fish_operator_rs_using_subcommand create; and __fish_seen_subcommand_from api" -l helm-chart-repo -d 'Chart repository URL to find --helm-chart in, like `helm install --repo`' -r
complete -c operator-rs -n "__fish_operator_rs_using_subcommand create; and __fish_seen_subcommand_from api" -l plain-http -d 'Use plain HTTP, not HTTPS, for an oci:// --helm-chart (a registry without TLS)'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand create; and __fish_seen_subcommand_from api" -s q -l quiet -d 'Print nothing but errors'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand create; and __fish_seen_subcommand_from api" -s y -l yes -d 'Never ask; use defaults for values not given (implied without a terminal)'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand create; and __fish_seen_subcommand_from api" -s h -l help -d 'Print help'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand create; and __fish_seen_subcommand_from api" -s V -l version -d 'Print version'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand create; and __fish_seen_subcommand_from webhook" -l kind -d 'The Kind, as the project has it' -r
complete -c operator-rs -n "__fish_operator_rs_using_subcommand create; and __fish_seen_subcommand_from webhook" -l version -d 'API version of the types the admission webhooks see, and the hub of conversion [default: the version the kind is stored in]' -r
complete -c operator-rs -n "__fish_operator_rs_using_subcommand create; and __fish_seen_subcommand_from webhook" -l defaulting -d 'A defaulting (mutating) webhook: src/webhooks/<kind>.rs fills in what an object left out'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand create; and __fish_seen_subcommand_from webhook" -l validation -d 'A validation webhook for create, update and delete (kubebuilder\'s --programmatic-validation is accepted)'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand create; and __fish_seen_subcommand_from webhook" -l conversion -d 'A conversion webhook between the kind\'s versions, through the storage version'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand create; and __fish_seen_subcommand_from webhook" -s q -l quiet -d 'Print nothing but errors'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand create; and __fish_seen_subcommand_from webhook" -s y -l yes -d 'Never ask; use defaults for values not given (implied without a terminal)'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand create; and __fish_seen_subcommand_from webhook" -s h -l help -d 'Print help'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand create; and __fish_seen_subcommand_from help" -f -a "api" -d 'Add a Kind (with its chart or controller) to the project in this directory or above'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand create; and __fish_seen_subcommand_from help" -f -a "webhook" -d 'Add a defaulting, validation or conversion webhook for a Kind of the Rust project in this directory or above'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand create; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand completion" -s q -l quiet -d 'Print nothing but errors'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand completion" -s y -l yes -d 'Never ask; use defaults for values not given (implied without a terminal)'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand completion" -s h -l help -d 'Print help'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand completion" -s V -l version -d 'Print version'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand deploy" -s n -l namespace -d 'Namespace to deploy into [default: the last one deployed to (PROJECT), else the context\'s, else "default"]' -r
complete -c operator-rs -n "__fish_operator_rs_using_subcommand deploy" -l image -d 'Operator image [default: the image of the last `operator-rs build`]' -r
complete -c operator-rs -n "__fish_operator_rs_using_subcommand deploy" -l dry-run -d 'Print the manifests instead of applying them (`--dry-run` alone is client)' -r -f -a "client\t'Print the final manifests; never contact a cluster'
server\t'Send every apply with dryRun=All: the server checks it and persists nothing'"
complete -c operator-rs -n "__fish_operator_rs_using_subcommand deploy" -l timeout -d 'How long to wait for CRDs and the rollout, for example 90s, 5m or 1h' -r
complete -c operator-rs -n "__fish_operator_rs_using_subcommand deploy" -l create-namespace -d 'Create the namespace if it is missing; --create-namespace=false fails instead' -r -f -a "true\t''
false\t''"
complete -c operator-rs -n "__fish_operator_rs_using_subcommand deploy" -l kubeconfig -d 'Kubeconfig file [default: the files in $KUBECONFIG, else ~/.kube/config, else in-cluster]' -r -F
complete -c operator-rs -n "__fish_operator_rs_using_subcommand deploy" -l context -d 'Kubeconfig context to use [default: the current context]' -r
complete -c operator-rs -n "__fish_operator_rs_using_subcommand deploy" -l cache-dir -d 'Cache directory, as kubectl\'s: API discovery is kept in DIR/discovery/ for six hours [default: $KUBECACHEDIR, else ~/.kube/cache]' -r -F
complete -c operator-rs -n "__fish_operator_rs_using_subcommand deploy" -l with-sample -d 'Also apply the sample custom resource of every API (deploy/crds/*_cr.yaml)'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand deploy" -l no-wait -d 'Return once applied, without waiting for the operator to be rolled out'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand deploy" -s q -l quiet -d 'Print nothing but errors'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand deploy" -s y -l yes -d 'Never ask; use defaults for values not given (implied without a terminal)'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand deploy" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand deploy" -s V -l version -d 'Print version'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand undeploy" -s n -l namespace -d 'Namespace to delete from [default: the last one deployed to (PROJECT), else the context\'s, else "default"]' -r
complete -c operator-rs -n "__fish_operator_rs_using_subcommand undeploy" -l timeout -d 'How long to wait for the objects to be gone, for example 90s, 5m or 1h' -r
complete -c operator-rs -n "__fish_operator_rs_using_subcommand undeploy" -l kubeconfig -d 'Kubeconfig file [default: the files in $KUBECONFIG, else ~/.kube/config, else in-cluster]' -r -F
complete -c operator-rs -n "__fish_operator_rs_using_subcommand undeploy" -l context -d 'Kubeconfig context to use [default: the current context]' -r
complete -c operator-rs -n "__fish_operator_rs_using_subcommand undeploy" -l cache-dir -d 'Cache directory, as kubectl\'s: API discovery is kept in DIR/discovery/ for six hours [default: $KUBECACHEDIR, else ~/.kube/cache]' -r -F
complete -c operator-rs -n "__fish_operator_rs_using_subcommand undeploy" -l include-crds -d 'Also delete the CustomResourceDefinitions, and with them every custom resource of their kinds'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand undeploy" -l force -d 'With --include-crds: delete even when custom resources exist, without asking'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand undeploy" -l delete-custom-resources -d 'Delete the custom resources the operator watches first, wait until the operator has finished them (a Helm operator uninstalls their releases), then remove the operator'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand undeploy" -l keep-custom-resources -d 'Remove the operator even though custom resources with its finalizer exist; they stay, undeletable until an operator runs again'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand undeploy" -l no-wait -d 'Return once deletion is requested, without waiting for the objects to be gone'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand undeploy" -s q -l quiet -d 'Print nothing but errors'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand undeploy" -s y -l yes -d 'Never ask; use defaults for values not given (implied without a terminal)'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand undeploy" -s h -l help -d 'Print help'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand undeploy" -s V -l version -d 'Print version'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand build" -l builder -d 'The program that builds and pushes the image' -r -f -a "docker\t'The Docker Engine (needs a running daemon)'
podman\t'podman (daemonless)'
buildah\t'buildah (daemonless)'"
complete -c operator-rs -n "__fish_operator_rs_using_subcommand build" -l build-arg -d 'A build argument for the Dockerfile, for example BASE_IMAGE=localhost/helm-operator:dev (repeatable)' -r
complete -c operator-rs -n "__fish_operator_rs_using_subcommand build" -l platform -d 'Target platform of the image, for example linux/arm64 (Rust projects: linux/amd64 or linux/arm64, cross-compiled on this machine\'s platform)' -r
complete -c operator-rs -n "__fish_operator_rs_using_subcommand build" -l file -d 'The Dockerfile, relative to the current directory [default: build/Dockerfile in the project root]' -r -F
complete -c operator-rs -n "__fish_operator_rs_using_subcommand build" -l label -d 'An extra image label; wins over the OCI labels operator-rs adds (repeatable)' -r
complete -c operator-rs -n "__fish_operator_rs_using_subcommand build" -l runtime-binary -d 'Helm projects with the operator-rs runtime: the operator-rs binary to package, a Linux executable for --platform [default: this operator-rs]' -r -F
complete -c operator-rs -n "__fish_operator_rs_using_subcommand build" -l push -d 'Push the image to its registry after building it'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand build" -l no-cache -d 'Build every step again instead of reusing cached layers'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand build" -l local -d 'Rust projects: build the binary with cargo on this machine, then package it with the runtime stage of the Dockerfile only'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand build" -s q -l quiet -d 'Print nothing but errors'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand build" -s y -l yes -d 'Never ask; use defaults for values not given (implied without a terminal)'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand build" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand build" -s V -l version -d 'Print version'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand run" -s n -l namespace -d 'Namespace the operator watches (WATCH_NAMESPACE) [default: the last one deployed to (PROJECT), else the context\'s, else "default"]' -r
complete -c operator-rs -n "__fish_operator_rs_using_subcommand run" -l timeout -d 'How long to wait for the CRDs to be Established (and the operator\'s webhooks to answer), for example 90s, 5m or 1h' -r
complete -c operator-rs -n "__fish_operator_rs_using_subcommand run" -l webhook-host -d 'With webhooks in deploy/: the address of this machine the API server calls them at [default: 127.0.0.1 when the API server is on this machine\'s loopback]; for kind or k3d, the Docker network\'s gateway' -r
complete -c operator-rs -n "__fish_operator_rs_using_subcommand run" -l webhook-port -d 'With webhooks in deploy/: the port the operator serves them on; 0 picks a free one' -r
complete -c operator-rs -n "__fish_operator_rs_using_subcommand run" -l kubeconfig -d 'Kubeconfig file [default: the files in $KUBECONFIG, else ~/.kube/config, else in-cluster]' -r -F
complete -c operator-rs -n "__fish_operator_rs_using_subcommand run" -l context -d 'Kubeconfig context to use [default: the current context]' -r
complete -c operator-rs -n "__fish_operator_rs_using_subcommand run" -l cache-dir -d 'Cache directory, as kubectl\'s: API discovery is kept in DIR/discovery/ for six hours [default: $KUBECACHEDIR, else ~/.kube/cache]' -r -F
complete -c operator-rs -n "__fish_operator_rs_using_subcommand run" -s A -l all-namespaces -d 'Watch every namespace (WATCH_NAMESPACE="")'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand run" -l release -d 'Build and run the operator with cargo\'s release profile'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand run" -s q -l quiet -d 'Print nothing but errors'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand run" -s y -l yes -d 'Never ask; use defaults for values not given (implied without a terminal)'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand run" -s h -l help -d 'Print help'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand run" -s V -l version -d 'Print version'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand generate; and not __fish_seen_subcommand_from crds bundle chart help" -s q -l quiet -d 'Print nothing but errors'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand generate; and not __fish_seen_subcommand_from crds bundle chart help" -s y -l yes -d 'Never ask; use defaults for values not given (implied without a terminal)'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand generate; and not __fish_seen_subcommand_from crds bundle chart help" -s h -l help -d 'Print help'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand generate; and not __fish_seen_subcommand_from crds bundle chart help" -s V -l version -d 'Print version'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand generate; and not __fish_seen_subcommand_from crds bundle chart help" -f -a "crds" -d 'Rewrite deploy/crds/*_crd.yaml of a Rust project from its types (runs `cargo run --bin crdgen`); samples are never touched'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand generate; and not __fish_seen_subcommand_from crds bundle chart help" -f -a "bundle" -d 'Write dist/install.yaml: the operator with its CRDs and RBAC, image and namespace filled in, for `kubectl apply --server-side -f`'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand generate; and not __fish_seen_subcommand_from crds bundle chart help" -f -a "chart" -d 'Write dist/chart/: a Helm chart of the operator; regenerating keeps your edits to values.yaml, Chart.yaml, NOTES.txt and README.md'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand generate; and not __fish_seen_subcommand_from crds bundle chart help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand generate; and __fish_seen_subcommand_from crds" -l check -d 'Change nothing; exit with code 1 when a CRD file is out of date (for CI)'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand generate; and __fish_seen_subcommand_from crds" -s q -l quiet -d 'Print nothing but errors'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand generate; and __fish_seen_subcommand_from crds" -s y -l yes -d 'Never ask; use defaults for values not given (implied without a terminal)'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand generate; and __fish_seen_subcommand_from crds" -s h -l help -d 'Print help'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand generate; and __fish_seen_subcommand_from crds" -s V -l version -d 'Print version'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand generate; and __fish_seen_subcommand_from bundle" -l image -d 'Operator image [default: the image of the last `operator-rs build`]' -r
complete -c operator-rs -n "__fish_operator_rs_using_subcommand generate; and __fish_seen_subcommand_from bundle" -s n -l namespace -d 'Namespace to install into [default: the last one deployed to (PROJECT), else the kubeconfig context\'s, else "default"]' -r
complete -c operator-rs -n "__fish_operator_rs_using_subcommand generate; and __fish_seen_subcommand_from bundle" -s o -l output -d 'Directory to write install.yaml (and crds.yaml) into, created if missing [default: dist in the project root]' -r -F
complete -c operator-rs -n "__fish_operator_rs_using_subcommand generate; and __fish_seen_subcommand_from bundle" -l crds-separately -d 'Put the CustomResourceDefinitions in crds.yaml, apart from install.yaml'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand generate; and __fish_seen_subcommand_from bundle" -s q -l quiet -d 'Print nothing but errors'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand generate; and __fish_seen_subcommand_from bundle" -s y -l yes -d 'Never ask; use defaults for values not given (implied without a terminal)'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand generate; and __fish_seen_subcommand_from bundle" -s h -l help -d 'Print help'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand generate; and __fish_seen_subcommand_from bundle" -s V -l version -d 'Print version'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand generate; and __fish_seen_subcommand_from chart" -l image -d 'Operator image: its repository and tag become image.repository and the chart\'s appVersion [default: the image of the last `operator-rs build`]' -r
complete -c operator-rs -n "__fish_operator_rs_using_subcommand generate; and __fish_seen_subcommand_from chart" -l chart-version -d 'The chart\'s version, a semantic version [default: the project\'s (Cargo.toml of a Rust project, else the image tag when it is one), else 0.1.0]' -r
complete -c operator-rs -n "__fish_operator_rs_using_subcommand generate; and __fish_seen_subcommand_from chart" -s o -l output -d 'Directory of the chart [default: dist/chart in the project root]' -r -F
complete -c operator-rs -n "__fish_operator_rs_using_subcommand generate; and __fish_seen_subcommand_from chart" -l force -d 'Overwrite files you edited (values.yaml, Chart.yaml, NOTES.txt, README.md and the templates) with what the project gives now'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand generate; and __fish_seen_subcommand_from chart" -s q -l quiet -d 'Print nothing but errors'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand generate; and __fish_seen_subcommand_from chart" -s y -l yes -d 'Never ask; use defaults for values not given (implied without a terminal)'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand generate; and __fish_seen_subcommand_from chart" -s h -l help -d 'Print help'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand generate; and __fish_seen_subcommand_from chart" -s V -l version -d 'Print version'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand generate; and __fish_seen_subcommand_from help" -f -a "crds" -d 'Rewrite deploy/crds/*_crd.yaml of a Rust project from its types (runs `cargo run --bin crdgen`); samples are never touched'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand generate; and __fish_seen_subcommand_from help" -f -a "bundle" -d 'Write dist/install.yaml: the operator with its CRDs and RBAC, image and namespace filled in, for `kubectl apply --server-side -f`'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand generate; and __fish_seen_subcommand_from help" -f -a "chart" -d 'Write dist/chart/: a Helm chart of the operator; regenerating keeps your edits to values.yaml, Chart.yaml, NOTES.txt and README.md'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand generate; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand template" -s f -l values -d 'A values file (YAML); several are merged in order, later ones win' -r -F
complete -c operator-rs -n "__fish_operator_rs_using_subcommand template" -l set -d 'A value on the command line, in Helm\'s syntax (a.b=c, list[0]=x, l={a,b}, commas between pairs); after -f' -r
complete -c operator-rs -n "__fish_operator_rs_using_subcommand template" -l name -d 'The release name [default: release-name, or in a Helm project the custom resource\'s name]' -r
complete -c operator-rs -n "__fish_operator_rs_using_subcommand template" -s n -l namespace -d 'The release namespace [default: default, or in a Helm project the custom resource\'s]' -r
complete -c operator-rs -n "__fish_operator_rs_using_subcommand template" -l kube-version -d 'The Kubernetes version for .Capabilities.KubeVersion (for example 1.33 or v1.33.4)' -r
complete -c operator-rs -n "__fish_operator_rs_using_subcommand template" -s a -l api-versions -d 'An API version for .Capabilities.APIVersions, as group/version or group/version/Kind (repeatable)' -r
complete -c operator-rs -n "__fish_operator_rs_using_subcommand template" -s s -l show-only -d 'Print only the manifests of these templates (paths inside the chart, globs allowed, for example templates/deployment.yaml)' -r
complete -c operator-rs -n "__fish_operator_rs_using_subcommand template" -l cr -d 'In a Helm project: render with this custom resource (YAML) instead of each kind\'s sample' -r -F
complete -c operator-rs -n "__fish_operator_rs_using_subcommand template" -l chart-version -d 'Version of a remote CHART: exact (2.9.1) or a constraint (~2.9) [default: the newest release]' -r
complete -c operator-rs -n "__fish_operator_rs_using_subcommand template" -l repo -d 'Chart repository URL to find CHART in, like `helm template --repo`' -r
complete -c operator-rs -n "__fish_operator_rs_using_subcommand template" -l include-crds -d 'Print the chart\'s crds/ too'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand template" -l plain-http -d 'Use plain HTTP, not HTTPS, for an oci:// CHART (a registry without TLS)'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand template" -s q -l quiet -d 'Print nothing but errors'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand template" -s y -l yes -d 'Never ask; use defaults for values not given (implied without a terminal)'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand template" -s h -l help -d 'Print help'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand template" -s V -l version -d 'Print version'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand help; and not __fish_seen_subcommand_from new create completion deploy undeploy build run generate template help" -f -a "new" -d 'Create a new operator project'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand help; and not __fish_seen_subcommand_from new create completion deploy undeploy build run generate template help" -f -a "create" -d 'Add to an existing project'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand help; and not __fish_seen_subcommand_from new create completion deploy undeploy build run generate template help" -f -a "completion" -d 'Print a shell completion script'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand help; and not __fish_seen_subcommand_from new create completion deploy undeploy build run generate template help" -f -a "deploy" -d 'Apply deploy/ to a cluster and wait until the operator is running'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand help; and not __fish_seen_subcommand_from new create completion deploy undeploy build run generate template help" -f -a "undeploy" -d 'Delete what `deploy` applied (CRDs and custom resources only when asked)'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand help; and not __fish_seen_subcommand_from new create completion deploy undeploy build run generate template help" -f -a "build" -d 'Build the operator image with docker, podman or buildah (and push it with --push)'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand help; and not __fish_seen_subcommand_from new create completion deploy undeploy build run generate template help" -f -a "run" -d 'Apply the project\'s CRDs, then run its operator on this machine against the cluster until Ctrl-C'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand help; and not __fish_seen_subcommand_from new create completion deploy undeploy build run generate template help" -f -a "generate" -d 'Regenerate files of a project from its code'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand help; and not __fish_seen_subcommand_from new create completion deploy undeploy build run generate template help" -f -a "template" -d 'Render a chart locally as `helm template` does (in a Helm project: what the operator will install for each kind\'s sample)'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand help; and not __fish_seen_subcommand_from new create completion deploy undeploy build run generate template help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand help; and __fish_seen_subcommand_from create" -f -a "api" -d 'Add a Kind (with its chart or controller) to the project in this directory or above'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand help; and __fish_seen_subcommand_from create" -f -a "webhook" -d 'Add a defaulting, validation or conversion webhook for a Kind of the Rust project in this directory or above'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand help; and __fish_seen_subcommand_from generate" -f -a "crds" -d 'Rewrite deploy/crds/*_crd.yaml of a Rust project from its types (runs `cargo run --bin crdgen`); samples are never touched'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand help; and __fish_seen_subcommand_from generate" -f -a "bundle" -d 'Write dist/install.yaml: the operator with its CRDs and RBAC, image and namespace filled in, for `kubectl apply --server-side -f`'
complete -c operator-rs -n "__fish_operator_rs_using_subcommand help; and __fish_seen_subcommand_from generate" -f -a "chart" -d 'Write dist/chart/: a Helm chart of the operator; regenerating keeps your edits to values.yaml, Chart.yaml, NOTES.txt and README.md'
