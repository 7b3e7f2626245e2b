#!/usr/bin/env bash
# Times `operator-rs new --type=helm` on the largest shared chart against `cp -r` of the same
# chart, in one hyperfine run, and prints the median ratio.
# Usage: benches/new.sh   (builds the release binary first; needs hyperfine)
set -euo pipefail
cd "$(dirname "$0")/.."
charts=${OPERATOR_RS_SHARED_CHARTS:-$(cd .. && pwd)/shared/charts}
largest=$(du -s "$charts"/*/ | sort -n | tail -1 | cut -f2)
largest=${largest%/}
cargo build --release --quiet
binary=$PWD/target/release/operator-rs
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "chart: $largest ($(du -sh "$largest" | cut -f1))"
hyperfine --warmup 3 --runs 30 --style basic --export-json "$work/result.json" \
    --prepare "rm -rf $work/out" \
    -n "cp -r" "cd $work && cp -r $largest out" \
    -n "operator-rs new" "cd $work && $binary new out --type=helm --yes --quiet --helm-chart=$largest"
python3 - "$work/result.json" <<'PY'
import json, statistics, sys
results = {r["command"]: statistics.median(r["times"]) for r in json.load(open(sys.argv[1]))["results"]}
cp, new = results["cp -r"], results["operator-rs new"]
print(f"median: cp -r {cp*1000:.2f} ms, operator-rs new {new*1000:.2f} ms, ratio {new/cp:.2f}x")
PY
