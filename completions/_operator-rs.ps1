
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'operator-rs' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'operator-rs'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'operator-rs' {
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Never ask; use defaults for values not given (implied without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Never ask; use defaults for values not given (implied without a terminal)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('new', 'new', [CompletionResultType]::ParameterValue, 'Create a new operator project')
            [CompletionResult]::new('create', 'create', [CompletionResultType]::ParameterValue, 'Add to an existing project')
            [CompletionResult]::new('completion', 'completion', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('deploy', 'deploy', [CompletionResultType]::ParameterValue, 'Apply deploy/ to a cluster and wait until the operator is running')
            [CompletionResult]::new('undeploy', 'undeploy', [CompletionResultType]::ParameterValue, 'Delete what `deploy` applied (CRDs and custom resources only when asked)')
            [CompletionResult]::new('build', 'build', [CompletionResultType]::ParameterValue, 'Build the operator image with docker, podman or buildah (and push it with --push)')
            [CompletionResult]::new('run', 'run', [CompletionResultType]::ParameterValue, 'Apply the project''s CRDs, then run its operator on this machine against the cluster until Ctrl-C')
            [CompletionResult]::new('generate', 'generate', [CompletionResultType]::ParameterValue, 'Regenerate files of a project from its code')
            [CompletionResult]::new('template', 'template', [CompletionResultType]::ParameterValue, 'Render a chart locally as `helm template` does (in a Helm project: what the operator will install for each kind''s sample)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'operator-rs;new' {
            [CompletionResult]::new('--type', '--type', [CompletionResultType]::ParameterName, 'Kind of project to create')
            [CompletionResult]::new('--api-version', '--api-version', [CompletionResultType]::ParameterName, 'API group and version of the Kind, GROUP/VERSION [default: charts.<domain>/v1alpha1 for Helm, <kind>.<domain>/v1alpha1 for Rust]')
            [CompletionResult]::new('--kind', '--kind', [CompletionResultType]::ParameterName, 'The Kind, in CamelCase [default for Helm: the chart name in CamelCase]')
            [CompletionResult]::new('--plural', '--plural', [CompletionResultType]::ParameterName, 'Resource plural of the Kind [default: the English plural of the Kind, lower-case]')
            [CompletionResult]::new('--helm-chart', '--helm-chart', [CompletionResultType]::ParameterName, 'Helm projects: the chart for the Kind: a directory, .tgz, repo/name (after `helm repo add`), URL of a .tgz, or oci:// reference [default: a starter chart like `helm create`]')
            [CompletionResult]::new('--set-chart-version', '--set-chart-version', [CompletionResultType]::ParameterName, 'Helm projects: write this semver version (and, if that is not valid either, appVersion) into the copied Chart.yaml of an unreleased --helm-chart whose version Helm cannot load, such as rancher''s %VERSION%')
            [CompletionResult]::new('--sample-values', '--sample-values', [CompletionResultType]::ParameterName, 'Helm projects: write the sample custom resource from the chart''s default values merged with this ci/*.yaml file of the --helm-chart (for a chart whose defaults do not render, such as one with a required value)')
            [CompletionResult]::new('--helm-chart-version', '--helm-chart-version', [CompletionResultType]::ParameterName, 'Version of a remote --helm-chart: exact (2.9.1) or a constraint (~2.9, ">=2.8 <3") [default: the newest release]')
            [CompletionResult]::new('--helm-chart-repo', '--helm-chart-repo', [CompletionResultType]::ParameterName, 'Chart repository URL to find --helm-chart in, like `helm install --repo`')
            [CompletionResult]::new('--domain', '--domain', [CompletionResultType]::ParameterName, 'Domain for default API groups')
            [CompletionResult]::new('--runtime', '--runtime', [CompletionResultType]::ParameterName, 'Helm projects: what runs the operator, operator-rs''s own Rust runtime or the operator-framework helm-operator image [default: operator-rs]')
            [CompletionResult]::new('--plain-http', '--plain-http', [CompletionResultType]::ParameterName, 'Use plain HTTP, not HTTPS, for an oci:// --helm-chart (a registry without TLS)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Never ask; use defaults for values not given (implied without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Never ask; use defaults for values not given (implied without a terminal)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'operator-rs;create' {
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Never ask; use defaults for values not given (implied without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Never ask; use defaults for values not given (implied without a terminal)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('api', 'api', [CompletionResultType]::ParameterValue, 'Add a Kind (with its chart or controller) to the project in this directory or above')
            [CompletionResult]::new('webhook', 'webhook', [CompletionResultType]::ParameterValue, 'Add a defaulting, validation or conversion webhook for a Kind of the Rust project in this directory or above')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'operator-rs;create;api' {
            [CompletionResult]::new('--api-version', '--api-version', [CompletionResultType]::ParameterName, 'API group and version of the Kind, GROUP/VERSION [default: charts.<domain>/v1alpha1 for Helm, <kind>.<domain>/v1alpha1 for Rust]')
            [CompletionResult]::new('--kind', '--kind', [CompletionResultType]::ParameterName, 'The Kind, in CamelCase [default for Helm: the chart name in CamelCase]')
            [CompletionResult]::new('--plural', '--plural', [CompletionResultType]::ParameterName, 'Resource plural of the Kind [default: the English plural of the Kind, lower-case]')
            [CompletionResult]::new('--helm-chart', '--helm-chart', [CompletionResultType]::ParameterName, 'Helm projects: the chart for the Kind: a directory, .tgz, repo/name (after `helm repo add`), URL of a .tgz, or oci:// reference [default: a starter chart like `helm create`]')
            [CompletionResult]::new('--set-chart-version', '--set-chart-version', [CompletionResultType]::ParameterName, 'Helm projects: write this semver version (and, if that is not valid either, appVersion) into the copied Chart.yaml of an unreleased --helm-chart whose version Helm cannot load, such as rancher''s %VERSION%')
            [CompletionResult]::new('--sample-values', '--sample-values', [CompletionResultType]::ParameterName, 'Helm projects: write the sample custom resource from the chart''s default values merged with this ci/*.yaml file of the --helm-chart (for a chart whose defaults do not render, such as one with a required value)')
            [CompletionResult]::new('--helm-chart-version', '--helm-chart-version', [CompletionResultType]::ParameterName, 'Version of a remote --helm-chart: exact (2.9.1) or a constraint (~2.9, ">=2.8 <3") [default: the newest release]')
            [CompletionResult]::new('--helm-chart-repo', '--helm-chart-repo', [CompletionResultType]::ParameterName, 'Chart repository URL to find --helm-chart in, like `helm install --repo`')
            [CompletionResult]::new('--plain-http', '--plain-http', [CompletionResultType]::ParameterName, 'Use plain HTTP, not HTTPS, for an oci:// --helm-chart (a registry without TLS)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Never ask; use defaults for values not given (implied without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Never ask; use defaults for values not given (implied without a terminal)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'operator-rs;create;webhook' {
            [CompletionResult]::new('--kind', '--kind', [CompletionResultType]::ParameterName, 'The Kind, as the project has it')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'API version of the types the admission webhooks see, and the hub of conversion [default: the version the kind is stored in]')
            [CompletionResult]::new('--defaulting', '--defaulting', [CompletionResultType]::ParameterName, 'A defaulting (mutating) webhook: src/webhooks/<kind>.rs fills in what an object left out')
            [CompletionResult]::new('--validation', '--validation', [CompletionResultType]::ParameterName, 'A validation webhook for create, update and delete (kubebuilder''s --programmatic-validation is accepted)')
            [CompletionResult]::new('--conversion', '--conversion', [CompletionResultType]::ParameterName, 'A conversion webhook between the kind''s versions, through the storage version')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Never ask; use defaults for values not given (implied without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Never ask; use defaults for values not given (implied without a terminal)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'operator-rs;create;help' {
            [CompletionResult]::new('api', 'api', [CompletionResultType]::ParameterValue, 'Add a Kind (with its chart or controller) to the project in this directory or above')
            [CompletionResult]::new('webhook', 'webhook', [CompletionResultType]::ParameterValue, 'Add a defaulting, validation or conversion webhook for a Kind of the Rust project in this directory or above')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'operator-rs;create;help;api' {
            break
        }
        'operator-rs;create;help;webhook' {
            break
        }
        'operator-rs;create;help;help' {
            break
        }
        'operator-rs;completion' {
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Never ask; use defaults for values not given (implied without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Never ask; use defaults for values not given (implied without a terminal)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'operator-rs;deploy' {
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace to deploy into [default: the last one deployed to (PROJECT), else the context''s, else "default"]')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace to deploy into [default: the last one deployed to (PROJECT), else the context''s, else "default"]')
            [CompletionResult]::new('--image', '--image', [CompletionResultType]::ParameterName, 'Operator image [default: the image of the last `operator-rs build`]')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print the manifests instead of applying them (`--dry-run` alone is client)')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long to wait for CRDs and the rollout, for example 90s, 5m or 1h')
            [CompletionResult]::new('--create-namespace', '--create-namespace', [CompletionResultType]::ParameterName, 'Create the namespace if it is missing; --create-namespace=false fails instead')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Kubeconfig file [default: the files in $KUBECONFIG, else ~/.kube/config, else in-cluster]')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'Kubeconfig context to use [default: the current context]')
            [CompletionResult]::new('--cache-dir', '--cache-dir', [CompletionResultType]::ParameterName, 'Cache directory, as kubectl''s: API discovery is kept in DIR/discovery/ for six hours [default: $KUBECACHEDIR, else ~/.kube/cache]')
            [CompletionResult]::new('--with-sample', '--with-sample', [CompletionResultType]::ParameterName, 'Also apply the sample custom resource of every API (deploy/crds/*_cr.yaml)')
            [CompletionResult]::new('--no-wait', '--no-wait', [CompletionResultType]::ParameterName, 'Return once applied, without waiting for the operator to be rolled out')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Never ask; use defaults for values not given (implied without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Never ask; use defaults for values not given (implied without a terminal)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'operator-rs;undeploy' {
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace to delete from [default: the last one deployed to (PROJECT), else the context''s, else "default"]')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace to delete from [default: the last one deployed to (PROJECT), else the context''s, else "default"]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long to wait for the objects to be gone, for example 90s, 5m or 1h')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Kubeconfig file [default: the files in $KUBECONFIG, else ~/.kube/config, else in-cluster]')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'Kubeconfig context to use [default: the current context]')
            [CompletionResult]::new('--cache-dir', '--cache-dir', [CompletionResultType]::ParameterName, 'Cache directory, as kubectl''s: API discovery is kept in DIR/discovery/ for six hours [default: $KUBECACHEDIR, else ~/.kube/cache]')
            [CompletionResult]::new('--include-crds', '--include-crds', [CompletionResultType]::ParameterName, 'Also delete the CustomResourceDefinitions, and with them every custom resource of their kinds')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'With --include-crds: delete even when custom resources exist, without asking')
            [CompletionResult]::new('--delete-custom-resources', '--delete-custom-resources', [CompletionResultType]::ParameterName, 'Delete the custom resources the operator watches first, wait until the operator has finished them (a Helm operator uninstalls their releases), then remove the operator')
            [CompletionResult]::new('--keep-custom-resources', '--keep-custom-resources', [CompletionResultType]::ParameterName, 'Remove the operator even though custom resources with its finalizer exist; they stay, undeletable until an operator runs again')
            [CompletionResult]::new('--no-wait', '--no-wait', [CompletionResultType]::ParameterName, 'Return once deletion is requested, without waiting for the objects to be gone')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Never ask; use defaults for values not given (implied without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Never ask; use defaults for values not given (implied without a terminal)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'operator-rs;build' {
            [CompletionResult]::new('--builder', '--builder', [CompletionResultType]::ParameterName, 'The program that builds and pushes the image')
            [CompletionResult]::new('--build-arg', '--build-arg', [CompletionResultType]::ParameterName, 'A build argument for the Dockerfile, for example BASE_IMAGE=localhost/helm-operator:dev (repeatable)')
            [CompletionResult]::new('--platform', '--platform', [CompletionResultType]::ParameterName, 'Target platform of the image, for example linux/arm64 (Rust projects: linux/amd64 or linux/arm64, cross-compiled on this machine''s platform)')
            [CompletionResult]::new('--file', '--file', [CompletionResultType]::ParameterName, 'The Dockerfile, relative to the current directory [default: build/Dockerfile in the project root]')
            [CompletionResult]::new('--label', '--label', [CompletionResultType]::ParameterName, 'An extra image label; wins over the OCI labels operator-rs adds (repeatable)')
            [CompletionResult]::new('--runtime-binary', '--runtime-binary', [CompletionResultType]::ParameterName, 'Helm projects with the operator-rs runtime: the operator-rs binary to package, a Linux executable for --platform [default: this operator-rs]')
            [CompletionResult]::new('--push', '--push', [CompletionResultType]::ParameterName, 'Push the image to its registry after building it')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Build every step again instead of reusing cached layers')
            [CompletionResult]::new('--local', '--local', [CompletionResultType]::ParameterName, 'Rust projects: build the binary with cargo on this machine, then package it with the runtime stage of the Dockerfile only')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Never ask; use defaults for values not given (implied without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Never ask; use defaults for values not given (implied without a terminal)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'operator-rs;run' {
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace the operator watches (WATCH_NAMESPACE) [default: the last one deployed to (PROJECT), else the context''s, else "default"]')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace the operator watches (WATCH_NAMESPACE) [default: the last one deployed to (PROJECT), else the context''s, else "default"]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long to wait for the CRDs to be Established (and the operator''s webhooks to answer), for example 90s, 5m or 1h')
            [CompletionResult]::new('--webhook-host', '--webhook-host', [CompletionResultType]::ParameterName, 'With webhooks in deploy/: the address of this machine the API server calls them at [default: 127.0.0.1 when the API server is on this machine''s loopback]; for kind or k3d, the Docker network''s gateway')
            [CompletionResult]::new('--webhook-port', '--webhook-port', [CompletionResultType]::ParameterName, 'With webhooks in deploy/: the port the operator serves them on; 0 picks a free one')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Kubeconfig file [default: the files in $KUBECONFIG, else ~/.kube/config, else in-cluster]')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'Kubeconfig context to use [default: the current context]')
            [CompletionResult]::new('--cache-dir', '--cache-dir', [CompletionResultType]::ParameterName, 'Cache directory, as kubectl''s: API discovery is kept in DIR/discovery/ for six hours [default: $KUBECACHEDIR, else ~/.kube/cache]')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Watch every namespace (WATCH_NAMESPACE="")')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Watch every namespace (WATCH_NAMESPACE="")')
            [CompletionResult]::new('--release', '--release', [CompletionResultType]::ParameterName, 'Build and run the operator with cargo''s release profile')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Never ask; use defaults for values not given (implied without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Never ask; use defaults for values not given (implied without a terminal)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'operator-rs;generate' {
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Never ask; use defaults for values not given (implied without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Never ask; use defaults for values not given (implied without a terminal)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('crds', 'crds', [CompletionResultType]::ParameterValue, 'Rewrite deploy/crds/*_crd.yaml of a Rust project from its types (runs `cargo run --bin crdgen`); samples are never touched')
            [CompletionResult]::new('bundle', 'bundle', [CompletionResultType]::ParameterValue, 'Write dist/install.yaml: the operator with its CRDs and RBAC, image and namespace filled in, for `kubectl apply --server-side -f`')
            [CompletionResult]::new('chart', 'chart', [CompletionResultType]::ParameterValue, 'Write dist/chart/: a Helm chart of the operator; regenerating keeps your edits to values.yaml, Chart.yaml, NOTES.txt and README.md')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'operator-rs;generate;crds' {
            [CompletionResult]::new('--check', '--check', [CompletionResultType]::ParameterName, 'Change nothing; exit with code 1 when a CRD file is out of date (for CI)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Never ask; use defaults for values not given (implied without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Never ask; use defaults for values not given (implied without a terminal)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'operator-rs;generate;bundle' {
            [CompletionResult]::new('--image', '--image', [CompletionResultType]::ParameterName, 'Operator image [default: the image of the last `operator-rs build`]')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace to install into [default: the last one deployed to (PROJECT), else the kubeconfig context''s, else "default"]')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace to install into [default: the last one deployed to (PROJECT), else the kubeconfig context''s, else "default"]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Directory to write install.yaml (and crds.yaml) into, created if missing [default: dist in the project root]')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Directory to write install.yaml (and crds.yaml) into, created if missing [default: dist in the project root]')
            [CompletionResult]::new('--crds-separately', '--crds-separately', [CompletionResultType]::ParameterName, 'Put the CustomResourceDefinitions in crds.yaml, apart from install.yaml')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Never ask; use defaults for values not given (implied without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Never ask; use defaults for values not given (implied without a terminal)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'operator-rs;generate;chart' {
            [CompletionResult]::new('--image', '--image', [CompletionResultType]::ParameterName, 'Operator image: its repository and tag become image.repository and the chart''s appVersion [default: the image of the last `operator-rs build`]')
            [CompletionResult]::new('--chart-version', '--chart-version', [CompletionResultType]::ParameterName, 'The chart''s version, a semantic version [default: the project''s (Cargo.toml of a Rust project, else the image tag when it is one), else 0.1.0]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Directory of the chart [default: dist/chart in the project root]')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Directory of the chart [default: dist/chart in the project root]')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Overwrite files you edited (values.yaml, Chart.yaml, NOTES.txt, README.md and the templates) with what the project gives now')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Never ask; use defaults for values not given (implied without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Never ask; use defaults for values not given (implied without a terminal)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'operator-rs;generate;help' {
            [CompletionResult]::new('crds', 'crds', [CompletionResultType]::ParameterValue, 'Rewrite deploy/crds/*_crd.yaml of a Rust project from its types (runs `cargo run --bin crdgen`); samples are never touched')
            [CompletionResult]::new('bundle', 'bundle', [CompletionResultType]::ParameterValue, 'Write dist/install.yaml: the operator with its CRDs and RBAC, image and namespace filled in, for `kubectl apply --server-side -f`')
            [CompletionResult]::new('chart', 'chart', [CompletionResultType]::ParameterValue, 'Write dist/chart/: a Helm chart of the operator; regenerating keeps your edits to values.yaml, Chart.yaml, NOTES.txt and README.md')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'operator-rs;generate;help;crds' {
            break
        }
        'operator-rs;generate;help;bundle' {
            break
        }
        'operator-rs;generate;help;chart' {
            break
        }
        'operator-rs;generate;help;help' {
            break
        }
        'operator-rs;template' {
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'A values file (YAML); several are merged in order, later ones win')
            [CompletionResult]::new('--values', '--values', [CompletionResultType]::ParameterName, 'A values file (YAML); several are merged in order, later ones win')
            [CompletionResult]::new('--set', '--set', [CompletionResultType]::ParameterName, 'A value on the command line, in Helm''s syntax (a.b=c, list[0]=x, l={a,b}, commas between pairs); after -f')
            [CompletionResult]::new('--name', '--name', [CompletionResultType]::ParameterName, 'The release name [default: release-name, or in a Helm project the custom resource''s name]')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The release namespace [default: default, or in a Helm project the custom resource''s]')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The release namespace [default: default, or in a Helm project the custom resource''s]')
            [CompletionResult]::new('--kube-version', '--kube-version', [CompletionResultType]::ParameterName, 'The Kubernetes version for .Capabilities.KubeVersion (for example 1.33 or v1.33.4)')
            [CompletionResult]::new('-a', '-a', [CompletionResultType]::ParameterName, 'An API version for .Capabilities.APIVersions, as group/version or group/version/Kind (repeatable)')
            [CompletionResult]::new('--api-versions', '--api-versions', [CompletionResultType]::ParameterName, 'An API version for .Capabilities.APIVersions, as group/version or group/version/Kind (repeatable)')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'Print only the manifests of these templates (paths inside the chart, globs allowed, for example templates/deployment.yaml)')
            [CompletionResult]::new('--show-only', '--show-only', [CompletionResultType]::ParameterName, 'Print only the manifests of these templates (paths inside the chart, globs allowed, for example templates/deployment.yaml)')
            [CompletionResult]::new('--cr', '--cr', [CompletionResultType]::ParameterName, 'In a Helm project: render with this custom resource (YAML) instead of each kind''s sample')
            [CompletionResult]::new('--chart-version', '--chart-version', [CompletionResultType]::ParameterName, 'Version of a remote CHART: exact (2.9.1) or a constraint (~2.9) [default: the newest release]')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Chart repository URL to find CHART in, like `helm template --repo`')
            [CompletionResult]::new('--include-crds', '--include-crds', [CompletionResultType]::ParameterName, 'Print the chart''s crds/ too')
            [CompletionResult]::new('--plain-http', '--plain-http', [CompletionResultType]::ParameterName, 'Use plain HTTP, not HTTPS, for an oci:// CHART (a registry without TLS)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Never ask; use defaults for values not given (implied without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Never ask; use defaults for values not given (implied without a terminal)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'operator-rs;help' {
            [CompletionResult]::new('new', 'new', [CompletionResultType]::ParameterValue, 'Create a new operator project')
            [CompletionResult]::new('create', 'create', [CompletionResultType]::ParameterValue, 'Add to an existing project')
            [CompletionResult]::new('completion', 'completion', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('deploy', 'deploy', [CompletionResultType]::ParameterValue, 'Apply deploy/ to a cluster and wait until the operator is running')
            [CompletionResult]::new('undeploy', 'undeploy', [CompletionResultType]::ParameterValue, 'Delete what `deploy` applied (CRDs and custom resources only when asked)')
            [CompletionResult]::new('build', 'build', [CompletionResultType]::ParameterValue, 'Build the operator image with docker, podman or buildah (and push it with --push)')
            [CompletionResult]::new('run', 'run', [CompletionResultType]::ParameterValue, 'Apply the project''s CRDs, then run its operator on this machine against the cluster until Ctrl-C')
            [CompletionResult]::new('generate', 'generate', [CompletionResultType]::ParameterValue, 'Regenerate files of a project from its code')
            [CompletionResult]::new('template', 'template', [CompletionResultType]::ParameterValue, 'Render a chart locally as `helm template` does (in a Helm project: what the operator will install for each kind''s sample)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'operator-rs;help;new' {
            break
        }
        'operator-rs;help;create' {
            [CompletionResult]::new('api', 'api', [CompletionResultType]::ParameterValue, 'Add a Kind (with its chart or controller) to the project in this directory or above')
            [CompletionResult]::new('webhook', 'webhook', [CompletionResultType]::ParameterValue, 'Add a defaulting, validation or conversion webhook for a Kind of the Rust project in this directory or above')
            break
        }
        'operator-rs;help;create;api' {
            break
        }
        'operator-rs;help;create;webhook' {
            break
        }
        'operator-rs;help;completion' {
            break
        }
        'operator-rs;help;deploy' {
            break
        }
        'operator-rs;help;undeploy' {
            break
        }
        'operator-rs;help;build' {
            break
        }
        'operator-rs;help;run' {
            break
        }
        'operator-rs;help;generate' {
            [CompletionResult]::new('crds', 'crds', [CompletionResultType]::ParameterValue, 'Rewrite deploy/crds/*_crd.yaml of a Rust project from its types (runs `cargo run --bin crdgen`); samples are never touched')
            [CompletionResult]::new('bundle', 'bundle', [CompletionResultType]::ParameterValue, 'Write dist/install.yaml: the operator with its CRDs and RBAC, image and namespace filled in, for `kubectl apply --server-side -f`')
            [CompletionResult]::new('chart', 'chart', [CompletionResultType]::ParameterValue, 'Write dist/chart/: a Helm chart of the operator; regenerating keeps your edits to values.yaml, Chart.yaml, NOTES.txt and README.md')
            break
        }
        'operator-rs;help;generate;crds' {
            break
        }
        'operator-rs;help;generate;bundle' {
            break
        }
        'operator-rs;help;generate;chart' {
            break
        }
        'operator-rs;help;template' {
            break
        }
        'operator-rs;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
