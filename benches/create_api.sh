#!/usr/bin/env bash
# Times `operator-rs create api` on a new Rust project, for a new kind and for a new version of
# its kind, against `cp -r` of the project they start from, in one hyperfine run (each run
# restores the project first), and prints the medians.
# Usage: benches/create_api.sh   (builds the release binary first; needs hyperfine)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
binary=$PWD/target/release/operator-rs
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && "$binary" new pristine --api-version=cache.example.com/v1alpha1 --kind=Memcached --yes --quiet)
restore="rm -rf $work/out && cp -r $work/pristine $work/out"
hyperfine --warmup 3 --runs 30 --style basic --export-json "$work/result.json" \
    --prepare "rm -rf $work/copy" \
    -n "cp -r" "cp -r $work/pristine $work/copy" \
    --prepare "$restore" \
    -n "create api (new kind)" "cd $work/out && $binary create api --api-version=cache.example.com/v1beta1 --kind=MemcachedBackup --quiet" \
    --prepare "$restore" \
    -n "create api (new version)" "cd $work/out && $binary create api --api-version=cache.example.com/v1 --kind=Memcached --quiet"
python3 - "$work/result.json" <<'PY'
import json, statistics, sys
results = {r["command"]: statistics.median(r["times"]) for r in json.load(open(sys.argv[1]))["results"]}
cp = results["cp -r"]
for name, median in results.items():
    print(f"median: {name} {median*1000:.2f} ms ({median/cp:.2f}x cp -r)")
PY
