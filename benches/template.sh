#!/usr/bin/env bash
# Renders the largest shared chart (by template text) with `operator-rs template` and with
# Helm 4's engine (helm-python-sdk: load the chart, render, print every template), in one
# hyperfine run, and prints the median ratio. A third command, Python importing the SDK and
# nothing else, shows how much of Helm's time is the interpreter's start; the ratio without it
# is printed too.
# Usage: benches/template.sh   (builds the release binary first unless
#        OPERATOR_RS_BENCH_BINARY is set; needs hyperfine and .venv)
set -euo pipefail
cd "$(dirname "$0")/.."
charts=${OPERATOR_RS_SHARED_CHARTS:-$(cd .. && pwd)/shared/charts}
venv=${OPERATOR_RS_TEST_VENV:-$PWD/.venv}
largest=$(for c in "$charts"/*/; do
    printf '%s %s\n' "$(find "$c" -path '*templates*' -type f -exec cat {} + | wc -c)" "${c%/}"
done | sort -n | tail -1 | cut -d' ' -f2)
# OPERATOR_RS_BENCH_BINARY names an already built binary (for example a debug build).
binary=${OPERATOR_RS_BENCH_BINARY:-}
if [[ -z $binary ]]; then
    cargo build --release --quiet --bin operator-rs
    binary=${CARGO_TARGET_DIR:-$PWD/target}/release/operator-rs
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/helm_render.py" <<'PY'
import sys
import helm_python as helm
chart = helm.Chart.load(sys.argv[1])
for name, text in sorted(chart.render(name="release-name", namespace="default").items()):
    sys.stdout.write(f"---\n# Source: {name}\n{text}\n")
PY
echo "chart: $largest ($(find "$largest" -path '*templates*' -type f | wc -l) template files)"
hyperfine --warmup 3 --runs 20 --style basic --export-json "$work/result.json" \
    -n "operator-rs template" "$binary template $largest > /dev/null" \
    -n "helm (Go SDK)" "$venv/bin/python $work/helm_render.py $largest > /dev/null" \
    -n "python import only" "$venv/bin/python -c 'import helm_python'"
python3 - "$work/result.json" <<'PY'
import json, statistics, sys
r = {x["command"]: statistics.median(x["times"]) for x in json.load(open(sys.argv[1]))["results"]}
ours, helm, base = r["operator-rs template"], r["helm (Go SDK)"], r["python import only"]
print(f"median: operator-rs {ours*1000:.1f} ms, Helm {helm*1000:.1f} ms "
      f"(of which Python and the SDK's start {base*1000:.1f} ms)")
print(f"ratio: operator-rs is {helm/ours:.1f}x faster; {max(helm-base, 0)/ours:.1f}x without Python's start")
PY
