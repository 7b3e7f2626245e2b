#!/usr/bin/env bash
# Figures of the generated Rust operator against the Kubernetes API test server: the time of
# the end-to-end test (tests/operator_e2e.rs, the operator already built), the operator's idle
# RSS and its RSS after reconciling 100 custom resources (VmRSS from /proc), and the latency
# from creating a custom resource to its Deployment being created (median and p99 of 100,
# created one at a time).
#
#   benches/operator.sh
#
# The operator is the debug build that the tests use (OPERATOR_RS_TEST_TARGET_DIR, else
# target/generated-projects).
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"
# The first run builds the generated operator; time the second, which is what CI pays per run
# once the shared target directory is warm.
cargo test --quiet --test operator_e2e >/dev/null
start="$(date +%s%N)"
cargo test --quiet --test operator_e2e >/dev/null
end="$(date +%s%N)"
elapsed_ms=$(( (end - start) / 1000000 ))
printf 'operator_e2e test time (operator already built): %d.%03d s\n' $((elapsed_ms / 1000)) $((elapsed_ms % 1000))

cargo test --quiet --test operator_e2e -- --ignored --exact figures --nocapture 2>/dev/null \
    | grep -E '^(operator|create)'
