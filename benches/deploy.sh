#!/usr/bin/env bash
# Times `operator-rs deploy --no-wait` against `kubectl apply --server-side -f` on the same
# rendered manifests and the same Kubernetes API test server, in one hyperfine run, and counts
# the requests each one sends.
#
#   benches/deploy.sh [PROJECT_DIR]     (default: `operator-rs new --type=helm` of the shared
#                                        hello-world chart)
#
# Both tools re-apply objects that already exist (the steady state of a deploy loop), each with
# its cache on disk as on a user's machine (kubectl: discovery and OpenAPI; operator-rs: the
# same discovery cache, and what it applied last). Request counts are printed for a warm cache
# and for a cold one (an empty --cache-dir). Needs hyperfine, jq, curl and kubectl.
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
project_source="${1:-}"
charts="${OPERATOR_RS_SHARED_CHARTS:-$(cd "$repo/.." && pwd)/shared/charts}"
for tool in hyperfine jq curl kubectl; do
    command -v "$tool" >/dev/null || { echo "benches/deploy.sh needs $tool" >&2; exit 1; }
done

cargo build --quiet --release --manifest-path "$repo/Cargo.toml" --bin operator-rs --example kube_test_server
target="${CARGO_TARGET_DIR:-$repo/target}/release"

work="$(mktemp -d)"
server_pid=""
cleanup() {
    if [[ -n "$server_pid" ]]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

"$target/examples/kube_test_server" "$work/kubeconfig" >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 100); do [[ -f "$work/kubeconfig" ]] && break; sleep 0.1; done
[[ -f "$work/kubeconfig" ]] || { echo "the test server did not start:" >&2; cat "$work/server.log" >&2; exit 1; }
server="$(awk '/server:/ {print $2; exit}' "$work/kubeconfig")"

if [[ -n "$project_source" ]]; then
    cp -r "$project_source" "$work/project"
else
    (cd "$work" && "$target/operator-rs" new project --type=helm --yes --quiet --helm-chart="$charts/hello-world")
    project_source="a new Helm project of $charts/hello-world"
fi
image="registry.local/bench-operator:v0.1.0"
deploy_with_cache=("$target/operator-rs" --quiet deploy --no-wait -n bench --image "$image" --kubeconfig "$work/kubeconfig" --cache-dir)
deploy=("${deploy_with_cache[@]}" "$work/operator-rs-cache")
kubectl_apply=(kubectl --kubeconfig "$work/kubeconfig" --cache-dir "$work/kubectl-cache" apply --server-side -f "$work/rendered.yaml")

(cd "$work/project" && "$target/operator-rs" deploy --dry-run -n bench --image "$image" >"$work/rendered.yaml")
echo "rendered $(grep -c '^kind:' "$work/rendered.yaml") objects from $project_source"

count_requests() {
    curl -sf -X POST "$server/_test/reset" >/dev/null
    "$@" >/dev/null
    curl -sf "$server/_test/stats" | jq .count
}

# First runs create the objects and fill kubectl's cache; what follows is the steady state.
(cd "$work/project" && "${deploy[@]}")
"${kubectl_apply[@]}" >/dev/null
ours=$(cd "$work/project" && count_requests "${deploy[@]}")
ours_cold=$(cd "$work/project" && count_requests "${deploy_with_cache[@]}" "$work/operator-rs-cold-cache")
theirs=$(count_requests "${kubectl_apply[@]}")
theirs_cold=$(count_requests kubectl --kubeconfig "$work/kubeconfig" --cache-dir "$work/cold-cache" \
    apply --server-side -f "$work/rendered.yaml")

hyperfine --warmup 3 --runs 30 --style basic --export-json "$work/times.json" \
    -n "operator-rs deploy --no-wait" "cd '$work/project' && ${deploy[*]}" \
    -n "kubectl apply --server-side" "${kubectl_apply[*]}"

ours_median=$(jq '.results[0].median' "$work/times.json")
theirs_median=$(jq '.results[1].median' "$work/times.json")
echo
echo "median: operator-rs $(jq -n "$ours_median * 1000 | round")ms, kubectl $(jq -n "$theirs_median * 1000 | round")ms;" \
    "kubectl/operator-rs = $(jq -n "$theirs_median / $ours_median * 100 | round / 100")"
echo "requests per run, warm cache: operator-rs $ours, kubectl $theirs"
echo "requests per run, cold cache: operator-rs $ours_cold, kubectl $theirs_cold"
