#!/usr/bin/env bash
# Renders the largest shared chart (by template text) with operator-rs and with Helm 4's engine
# (helm-python-sdk: Helm's Go SDK in-process), in the same run, three ways:
#
#   1. whole commands (hyperfine): `operator-rs template CHART` against a Python script that
#      loads the chart with the SDK and renders it, and Python importing the SDK and nothing
#      else (how much of the script is the interpreter's and the SDK's start);
#   2. engine against engine, in-process on both sides: Helm's render timed inside Python
#      (the chart loaded once, warm-up renders, then the median of N renders; and the median of
#      load + render), against benches/render, which times the same work for operator-rs
#      (values and templates) on a freshly loaded chart ("engine vs engine") and on a chart
#      rendered before (operator-rs keeps a loaded chart's parsed templates; Helm does not),
#      what `template` does besides (every manifest sorted as Helm sorts them, the output
#      written), and load + all of it;
#   3. the conservative figure for operator-rs: Helm's in-process render against our whole
#      `operator-rs template` process (process start, reading every file, rendering, writing).
#
# Helm's in-process time is the SDK's native render call: it includes handing the result over
# as JSON (the SDK's only way out), not Python's decoding of it.
# Usage: benches/template.sh [ITERATIONS]   (default 100; builds the release binaries first
#        unless OPERATOR_RS_BENCH_BINARY names operator-rs, and OPERATOR_RS_BENCH_RENDER
#        benches/render's binary; needs hyperfine and the test venv, OPERATOR_RS_TEST_VENV)
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-100}
charts=${OPERATOR_RS_SHARED_CHARTS:-$(cd .. && pwd)/shared/charts}
venv=${OPERATOR_RS_TEST_VENV:-$PWD/.venv}
largest=$(for c in "$charts"/*/; do
    printf '%s %s\n' "$(find "$c" -path '*templates*' -type f -exec cat {} + | wc -c)" "${c%/}"
done | sort -n | tail -1 | cut -d' ' -f2)
target=${CARGO_TARGET_DIR:-$PWD/target}
binary=${OPERATOR_RS_BENCH_BINARY:-}
render_bench=${OPERATOR_RS_BENCH_RENDER:-}
if [[ -z $binary || -z $render_bench ]]; then
    cargo build --release --quiet -p operator-rs -p render-bench --bin operator-rs --bin render-bench
    binary=${binary:-$target/release/operator-rs}
    render_bench=${render_bench:-$target/release/render-bench}
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
cat > "$work/helm_in_process.py" <<'PY'
import json, statistics, sys, time
import helm_python as helm
from helm_python import _native
path, n = sys.argv[1], int(sys.argv[2])
opts = json.dumps({"name": "release-name", "namespace": "default"})
def render(chart):
    return _native.call_string("helm_render", chart._raw(), None, opts)
def median_ms(f):
    for _ in range(5):
        f()
    times = []
    for _ in range(n):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000
chart = helm.Chart.load(path)
print(f"render_ms {median_ms(lambda: render(chart)):.3f}")
def load_and_render():
    c = helm.Chart.load(path)
    try:
        render(c)
    finally:
        c.close()
print(f"load_render_ms {median_ms(load_and_render):.3f}")
PY
echo "chart: $largest ($(find "$largest" -path '*templates*' -type f | wc -l) template files)"
hyperfine --warmup 3 --runs 20 --style basic --export-json "$work/result.json" \
    -n "operator-rs template" "$binary template $largest > /dev/null" \
    -n "helm (Go SDK)" "$venv/bin/python $work/helm_render.py $largest > /dev/null" \
    -n "python import only" "$venv/bin/python -c 'import helm_python'"
"$venv/bin/python" "$work/helm_in_process.py" "$largest" "$n" > "$work/helm.txt"
"$render_bench" "$largest" "$n" > "$work/ours.txt"
python3 - "$work/result.json" "$work/helm.txt" "$work/ours.txt" "$n" <<'PY'
import json, statistics, sys
r = {x["command"]: statistics.median(x["times"]) * 1000 for x in json.load(open(sys.argv[1]))["results"]}
read = lambda p: {k: float(v) for k, v in (line.split() for line in open(p))}
helm, ours = read(sys.argv[2]), read(sys.argv[3])
cmd, helm_cmd, base = r["operator-rs template"], r["helm (Go SDK)"], r["python import only"]
print(f"1. whole commands (median): operator-rs template {cmd:.1f} ms, Helm script {helm_cmd:.1f} ms "
      f"(of which Python and the SDK's start {base:.1f} ms): {helm_cmd / cmd:.1f}x; "
      f"{max(helm_cmd - base, 0) / cmd:.1f}x without Python's start")
h = helm["render_ms"]
print(f"2. engine vs engine, in-process on both sides (medians of {sys.argv[4]} runs):")
print(f"   Helm's render (chart loaded once; Helm parses its templates every time) {h:.2f} ms")
print(f"   operator-rs's engine, the same work, first render of a loaded chart "
      f"{ours['engine_first_ms']:.2f} ms: {h / ours['engine_first_ms']:.1f}x  <- engine vs engine")
print(f"   operator-rs's engine rendering the chart again (parsed templates kept) "
      f"{ours['engine_ms']:.2f} ms: {h / ours['engine_ms']:.1f}x")
print(f"   operator-rs's whole 'template' render again (plus sorting every manifest, the output) "
      f"{ours['render_ms']:.2f} ms: {h / ours['render_ms']:.1f}x")
print(f"   load + render: Helm {helm['load_render_ms']:.2f} ms, operator-rs (whole 'template' render) "
      f"{ours['load_render_ms']:.2f} ms: {helm['load_render_ms'] / ours['load_render_ms']:.1f}x")
print(f"3. conservative for operator-rs: Helm in-process against operator-rs's whole process "
      f"({cmd:.1f} ms): {h / cmd:.1f}x against Helm's render, "
      f"{helm['load_render_ms'] / cmd:.1f}x against Helm's load + render")
PY
