#!/usr/bin/env bash
# Installs what the tests use as independent, real parts. Safe to run again: it only installs
# what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian packages: the local OCI registry, the other image builders, a static busybox for
# test base images, hyperfine for benchmarks, openssl for the TLS tests of chart downloads,
# tzdata for the zones of Sprig's dates (both engines read the system's zone database).
packages=(docker-registry podman buildah busybox-static hyperfine openssl jq curl tzdata)
missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if ((${#missing[@]})); then
    echo "== installing Debian packages: ${missing[*]}"
    sudo_cmd=()
    [[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
    "${sudo_cmd[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# kubectl, the second Kubernetes client of the deploy tests, comes with the machine image.
command -v kubectl >/dev/null || echo "warning: kubectl is not on PATH; the deploy tests that cross-check with it will fail" >&2

# Python judges of generated manifests, pinned so that results do not drift.
venv=.venv
# helm-python-sdk bundles Helm 4's Go SDK: real Helm, the oracle of the template engine's tests.
if [[ ! -x $venv/bin/kubernetes-validate || ! -x $venv/bin/checkov ]] \
    || ! "$venv/bin/python" -c "import helm_python" 2>/dev/null; then
    echo "== installing kubernetes-validate, checkov and helm-python-sdk into $venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check \
        "kubernetes-validate==1.37.0" "checkov==3.3.30" "helm-python-sdk==0.2.2"
fi
# check-jsonschema judges the generated GitHub workflow and dependabot config against the
# schemas it ships (offline: --builtin-schema vendor.github-workflows, vendor.dependabot).
if [[ ! -x $venv/bin/check-jsonschema ]]; then
    echo "== installing check-jsonschema into $venv"
    "$venv/bin/pip" install -q --disable-pip-version-check "check-jsonschema==0.39.0"
fi
