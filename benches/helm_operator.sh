#!/usr/bin/env bash
# Figures of operator-rs's Helm operator runtime (issue 14) against the Kubernetes API test
# server, from the ignored `figures` test of tests/helm_operator_e2e.rs: idle RSS, RSS with
# 100 custom resources of the hello-world chart (VmRSS from /proc), the time from creating a
# custom resource to its Deployed status (median and p99 of 100 created one at a time,
# `kubectl apply` included), the reconciles as the runtime's /metrics histogram saw them, and
# the size of the release binary; and the scale figures of `scale_figures` (below).
#
#   benches/helm_operator.sh            # release build (what an image ships)
#   PROFILE=debug benches/helm_operator.sh
#
# The release build of the test and of operator-rs takes minutes the first time.
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"
profile="${PROFILE:-release}"
flags=()
if [ "$profile" = release ]; then
    flags=(--release)
fi
target="${CARGO_TARGET_DIR:-$repo/target}"

cargo test --quiet --locked "${flags[@]}" --test helm_operator_e2e -- \
    --ignored --exact figures --nocapture 2>/dev/null | grep '^FIGURE '
# Scale (issue 32): 10, 100 and 1,000 custom resources created at once (OPERATOR_RS_BENCH_CRS
# to choose others): time until all are Deployed, RSS, CPU time, API requests per idle
# reconcile, and the RSS after 2,000 unrelated ConfigMaps in the watched namespace.
cargo test --quiet --locked "${flags[@]}" --test helm_operator_e2e -- \
    --ignored --exact scale_figures --nocapture 2>/dev/null | grep '^FIGURE '
printf 'FIGURE binary_bytes_%s %s\n' "$profile" "$(stat -c %s "$target/$profile/operator-rs")"
