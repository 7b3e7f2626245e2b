#!/usr/bin/env bash
# Template execution speed of crates/gotemplate against Helm 4's Go engine (helm-python-sdk in
# .venv, as scripts/setup-test-tools.sh installs it) on the same templates: every snippet of
# tests/gotemplate_corpus that Helm renders without error, as one chart, rendered N times.
# Both sides time rendering only (parsing every file and executing every template, as Helm's
# engine does per render), not process start-up.
# Usage: benches/gotemplate.sh [ITERATIONS]   (default 200)
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-200}
venv=${OPERATOR_RS_TEST_VENV:-.venv}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

helm_line=$("$venv/bin/python" benches/gotemplate.py tests/gotemplate_corpus "$work/chart" "$n")
cargo build --quiet --release -p gotemplate --example render_dir
ours_line=$("${CARGO_TARGET_DIR:-target}/release/examples/render_dir" "$work/chart/templates" tests/gotemplate_corpus/values.json "$n")
echo "$helm_line"
echo "$ours_line"
helm_ms=$(sed -E 's/.* ([0-9.]+) ms per render.*/\1/' <<<"$helm_line")
ours_ms=$(sed -E 's/.* ([0-9.]+) ms per render.*/\1/' <<<"$ours_line")
awk -v h="$helm_ms" -v o="$ours_ms" 'BEGIN { printf "gotemplate is %.1fx faster than Helm per render\n", h / o }'
