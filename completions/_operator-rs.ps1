
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
            [CompletionResult]::new('completion', 'completion', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'operator-rs;new' {
            [CompletionResult]::new('--type', '--type', [CompletionResultType]::ParameterName, 'Kind of project to create')
            [CompletionResult]::new('--api-version', '--api-version', [CompletionResultType]::ParameterName, 'API group and version of the first Kind, GROUP/VERSION [default: charts.<domain>/v1alpha1 for Helm]')
            [CompletionResult]::new('--kind', '--kind', [CompletionResultType]::ParameterName, 'The first Kind, in CamelCase [default for Helm: the chart name in CamelCase]')
            [CompletionResult]::new('--plural', '--plural', [CompletionResultType]::ParameterName, 'Resource plural of the Kind [default: the English plural of the Kind, lower-case]')
            [CompletionResult]::new('--domain', '--domain', [CompletionResultType]::ParameterName, 'Domain for default API groups')
            [CompletionResult]::new('--helm-chart', '--helm-chart', [CompletionResultType]::ParameterName, 'Helm chart to build the operator from: a chart directory or .tgz [default: a starter chart like `helm create`]')
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
        'operator-rs;help' {
            [CompletionResult]::new('new', 'new', [CompletionResultType]::ParameterValue, 'Create a new operator project')
            [CompletionResult]::new('completion', 'completion', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'operator-rs;help;new' {
            break
        }
        'operator-rs;help;completion' {
            break
        }
        'operator-rs;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
