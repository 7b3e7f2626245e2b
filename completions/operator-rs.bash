_operator__rs() {
    local i cur prev opts cmd
    COMPREPLY=()
    if [[ "${BASH_VERSINFO[0]}" -ge 4 ]]; then
        cur="$2"
    else
        cur="${COMP_WORDS[COMP_CWORD]}"
    fi
    prev="$3"
    cmd=""
    opts=""

    for i in "${COMP_WORDS[@]:0:COMP_CWORD}"
    do
        case "${cmd},${i}" in
            ",$1")
                cmd="operator__rs"
                ;;
            operator__rs,build)
                cmd="operator__rs__subcmd__build"
                ;;
            operator__rs,completion)
                cmd="operator__rs__subcmd__completion"
                ;;
            operator__rs,create)
                cmd="operator__rs__subcmd__create"
                ;;
            operator__rs,deploy)
                cmd="operator__rs__subcmd__deploy"
                ;;
            operator__rs,generate)
                cmd="operator__rs__subcmd__generate"
                ;;
            operator__rs,help)
                cmd="operator__rs__subcmd__help"
                ;;
            operator__rs,new)
                cmd="operator__rs__subcmd__new"
                ;;
            operator__rs,run)
                cmd="operator__rs__subcmd__run"
                ;;
            operator__rs,template)
                cmd="operator__rs__subcmd__template"
                ;;
            operator__rs,undeploy)
                cmd="operator__rs__subcmd__undeploy"
                ;;
            operator__rs__subcmd__create,api)
                cmd="operator__rs__subcmd__create__subcmd__api"
                ;;
            operator__rs__subcmd__create,help)
                cmd="operator__rs__subcmd__create__subcmd__help"
                ;;
            operator__rs__subcmd__create,webhook)
                cmd="operator__rs__subcmd__create__subcmd__webhook"
                ;;
            operator__rs__subcmd__create__subcmd__help,api)
                cmd="operator__rs__subcmd__create__subcmd__help__subcmd__api"
                ;;
            operator__rs__subcmd__create__subcmd__help,help)
                cmd="operator__rs__subcmd__create__subcmd__help__subcmd__help"
                ;;
            operator__rs__subcmd__create__subcmd__help,webhook)
                cmd="operator__rs__subcmd__create__subcmd__help__subcmd__webhook"
                ;;
            operator__rs__subcmd__generate,bundle)
                cmd="operator__rs__subcmd__generate__subcmd__bundle"
                ;;
            operator__rs__subcmd__generate,chart)
                cmd="operator__rs__subcmd__generate__subcmd__chart"
                ;;
            operator__rs__subcmd__generate,crds)
                cmd="operator__rs__subcmd__generate__subcmd__crds"
                ;;
            operator__rs__subcmd__generate,help)
                cmd="operator__rs__subcmd__generate__subcmd__help"
                ;;
            operator__rs__subcmd__generate__subcmd__help,bundle)
                cmd="operator__rs__subcmd__generate__subcmd__help__subcmd__bundle"
                ;;
            operator__rs__subcmd__generate__subcmd__help,chart)
                cmd="operator__rs__subcmd__generate__subcmd__help__subcmd__chart"
                ;;
            operator__rs__subcmd__generate__subcmd__help,crds)
                cmd="operator__rs__subcmd__generate__subcmd__help__subcmd__crds"
                ;;
            operator__rs__subcmd__generate__subcmd__help,help)
                cmd="operator__rs__subcmd__generate__subcmd__help__subcmd__help"
                ;;
            operator__rs__subcmd__help,build)
                cmd="operator__rs__subcmd__help__subcmd__build"
                ;;
            operator__rs__subcmd__help,completion)
                cmd="operator__rs__subcmd__help__subcmd__completion"
                ;;
            operator__rs__subcmd__help,create)
                cmd="operator__rs__subcmd__help__subcmd__create"
                ;;
            operator__rs__subcmd__help,deploy)
                cmd="operator__rs__subcmd__help__subcmd__deploy"
                ;;
            operator__rs__subcmd__help,generate)
                cmd="operator__rs__subcmd__help__subcmd__generate"
                ;;
            operator__rs__subcmd__help,help)
                cmd="operator__rs__subcmd__help__subcmd__help"
                ;;
            operator__rs__subcmd__help,new)
                cmd="operator__rs__subcmd__help__subcmd__new"
                ;;
            operator__rs__subcmd__help,run)
                cmd="operator__rs__subcmd__help__subcmd__run"
                ;;
            operator__rs__subcmd__help,template)
                cmd="operator__rs__subcmd__help__subcmd__template"
                ;;
            operator__rs__subcmd__help,undeploy)
                cmd="operator__rs__subcmd__help__subcmd__undeploy"
                ;;
            operator__rs__subcmd__help__subcmd__create,api)
                cmd="operator__rs__subcmd__help__subcmd__create__subcmd__api"
                ;;
            operator__rs__subcmd__help__subcmd__create,webhook)
                cmd="operator__rs__subcmd__help__subcmd__create__subcmd__webhook"
                ;;
            operator__rs__subcmd__help__subcmd__generate,bundle)
                cmd="operator__rs__subcmd__help__subcmd__generate__subcmd__bundle"
                ;;
            operator__rs__subcmd__help__subcmd__generate,chart)
                cmd="operator__rs__subcmd__help__subcmd__generate__subcmd__chart"
                ;;
            operator__rs__subcmd__help__subcmd__generate,crds)
                cmd="operator__rs__subcmd__help__subcmd__generate__subcmd__crds"
                ;;
            *)
                ;;
        esac
    done

    case "${cmd}" in
        operator__rs)
            opts="-q -y -h -V --quiet --yes --help --version new create completion deploy undeploy build run generate template help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 1 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        operator__subcmd__rs__subcmd__build)
            opts="-q -y -h -V --builder --push --build-arg --platform --no-cache --file --label --local --runtime-binary --quiet --yes --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --builder)
                    COMPREPLY=($(compgen -W "docker podman buildah" -- "${cur}"))
                    return 0
                    ;;
                --build-arg)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --platform)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --label)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --runtime-binary)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        operator__subcmd__rs__subcmd__completion)
            opts="-q -y -h -V --quiet --yes --help --version bash elvish fish powershell zsh"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        operator__subcmd__rs__subcmd__create)
            opts="-q -y -h -V --quiet --yes --help --version api webhook help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        operator__subcmd__rs__subcmd__create__subcmd__api)
            opts="-q -y -h -V --api-version --kind --plural --helm-chart --set-chart-version --sample-values --helm-chart-version --helm-chart-repo --plain-http --quiet --yes --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --api-version)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kind)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --plural)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --helm-chart)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --set-chart-version)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --sample-values)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --helm-chart-version)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --helm-chart-repo)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        operator__subcmd__rs__subcmd__create__subcmd__help)
            opts="api webhook help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        operator__subcmd__rs__subcmd__create__subcmd__help__subcmd__api)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        operator__subcmd__rs__subcmd__create__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        operator__subcmd__rs__subcmd__create__subcmd__help__subcmd__webhook)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        operator__subcmd__rs__subcmd__create__subcmd__webhook)
            opts="-q -y -h --kind --version --defaulting --validation --conversion --quiet --yes --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --kind)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --version)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        operator__subcmd__rs__subcmd__deploy)
            opts="-n -q -y -h -V --namespace --image --with-sample --dry-run --no-wait --timeout --create-namespace --kubeconfig --context --cache-dir --quiet --yes --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --image)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dry-run)
                    COMPREPLY=($(compgen -W "client server" -- "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --create-namespace)
                    COMPREPLY=($(compgen -W "true false" -- "${cur}"))
                    return 0
                    ;;
                --kubeconfig)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --context)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cache-dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        operator__subcmd__rs__subcmd__generate)
            opts="-q -y -h -V --quiet --yes --help --version crds bundle chart help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        operator__subcmd__rs__subcmd__generate__subcmd__bundle)
            opts="-n -o -q -y -h -V --image --namespace --output --crds-separately --quiet --yes --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --image)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        operator__subcmd__rs__subcmd__generate__subcmd__chart)
            opts="-o -q -y -h -V --image --chart-version --output --force --quiet --yes --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --image)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --chart-version)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        operator__subcmd__rs__subcmd__generate__subcmd__crds)
            opts="-q -y -h -V --check --quiet --yes --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        operator__subcmd__rs__subcmd__generate__subcmd__help)
            opts="crds bundle chart help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        operator__subcmd__rs__subcmd__generate__subcmd__help__subcmd__bundle)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        operator__subcmd__rs__subcmd__generate__subcmd__help__subcmd__chart)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        operator__subcmd__rs__subcmd__generate__subcmd__help__subcmd__crds)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        operator__subcmd__rs__subcmd__generate__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        operator__subcmd__rs__subcmd__help)
            opts="new create completion deploy undeploy build run generate template help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        operator__subcmd__rs__subcmd__help__subcmd__build)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        operator__subcmd__rs__subcmd__help__subcmd__completion)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        operator__subcmd__rs__subcmd__help__subcmd__create)
            opts="api webhook"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        operator__subcmd__rs__subcmd__help__subcmd__create__subcmd__api)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        operator__subcmd__rs__subcmd__help__subcmd__create__subcmd__webhook)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        operator__subcmd__rs__subcmd__help__subcmd__deploy)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        operator__subcmd__rs__subcmd__help__subcmd__generate)
            opts="crds bundle chart"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        operator__subcmd__rs__subcmd__help__subcmd__generate__subcmd__bundle)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        operator__subcmd__rs__subcmd__help__subcmd__generate__subcmd__chart)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        operator__subcmd__rs__subcmd__help__subcmd__generate__subcmd__crds)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        operator__subcmd__rs__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        operator__subcmd__rs__subcmd__help__subcmd__new)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        operator__subcmd__rs__subcmd__help__subcmd__run)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        operator__subcmd__rs__subcmd__help__subcmd__template)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        operator__subcmd__rs__subcmd__help__subcmd__undeploy)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        operator__subcmd__rs__subcmd__new)
            opts="-q -y -h -V --type --api-version --kind --plural --helm-chart --set-chart-version --sample-values --helm-chart-version --helm-chart-repo --plain-http --domain --runtime --quiet --yes --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --type)
                    COMPREPLY=($(compgen -W "rust helm" -- "${cur}"))
                    return 0
                    ;;
                --api-version)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kind)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --plural)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --helm-chart)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --set-chart-version)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --sample-values)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --helm-chart-version)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --helm-chart-repo)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --domain)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --runtime)
                    COMPREPLY=($(compgen -W "helm-operator operator-rs" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        operator__subcmd__rs__subcmd__run)
            opts="-n -A -q -y -h -V --namespace --all-namespaces --release --timeout --webhook-host --webhook-port --kubeconfig --context --cache-dir --quiet --yes --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --webhook-host)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --webhook-port)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kubeconfig)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --context)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cache-dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        operator__subcmd__rs__subcmd__template)
            opts="-f -n -a -s -q -y -h -V --values --set --name --namespace --kube-version --api-versions --show-only --include-crds --cr --chart-version --repo --plain-http --quiet --yes --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --values)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -f)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --set)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --name)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kube-version)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --api-versions)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -a)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --show-only)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -s)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cr)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --chart-version)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --repo)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        operator__subcmd__rs__subcmd__undeploy)
            opts="-n -q -y -h -V --namespace --include-crds --force --delete-custom-resources --keep-custom-resources --no-wait --timeout --kubeconfig --context --cache-dir --quiet --yes --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kubeconfig)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --context)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cache-dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
    esac
}

if [[ "${BASH_VERSINFO[0]}" -eq 4 && "${BASH_VERSINFO[1]}" -ge 4 || "${BASH_VERSINFO[0]}" -gt 4 ]]; then
    complete -F _operator__rs -o nosort -o bashdefault -o default operator-rs
else
    complete -F _operator__rs -o bashdefault -o default operator-rs
fi
