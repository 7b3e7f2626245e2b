#!/usr/bin/env bash
# Times `operator-rs generate bundle` and `operator-rs generate chart` on a project against
# two baselines in the same hyperfine run: `kubectl kustomize deploy/` (what a user without
# operator-rs runs to get one stream of the deploy files) and `cp -r deploy` (the floor: reading
# and writing the same files). The chart is timed both made anew (an empty output directory)
# and generated again over itself (hashes compared, nothing to write), the common case.
#
#   benches/ship.sh [PROJECT_DIR]    (default: `operator-rs new` of a Rust project)
#
# Needs hyperfine and kubectl.
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
for tool in hyperfine kubectl; do
    command -v "$tool" >/dev/null || { echo "benches/ship.sh needs $tool" >&2; exit 1; }
done
cargo build --quiet --release --manifest-path "$repo/Cargo.toml" --bin operator-rs
bin="${CARGO_TARGET_DIR:-$repo/target}/release/operator-rs"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
if [[ -n "${1:-}" ]]; then
    cp -r "$1" "$work/project"
else
    (cd "$work" && "$bin" new project --api-version=cache.example.com/v1alpha1 --kind=Memcached --yes --quiet)
fi
cd "$work/project"
image="registry.local/bench-operator:v0.1.0"
"$bin" --quiet generate chart --image "$image" --output "$work/chart-again"

hyperfine --warmup 5 --runs 50 --shell=none \
    --prepare "rm -rf $work/copy $work/chart-new" \
    --command-name "cp -r deploy (baseline)" "cp -r deploy $work/copy" \
    --command-name "kubectl kustomize deploy/ (baseline)" "kubectl kustomize deploy/ -o $work/kustomized.yaml" \
    --command-name "generate bundle" "$bin --quiet generate bundle --image $image -n bench --output $work/bundle" \
    --command-name "generate chart (new)" "$bin --quiet generate chart --image $image --output $work/chart-new" \
    --command-name "generate chart (again, unchanged)" "$bin --quiet generate chart --image $image --output $work/chart-again"
