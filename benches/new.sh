#!/usr/bin/env bash
# Times `operator-rs new --type=helm` on the largest shared chart against `cp -r` of the same
# chart, in *paired* runs: each pair runs both commands back to back, into fresh output
# directories, so that both see the same machine load, page cache and disk state. The ratio is
# taken per pair and its median reported; medians of two separate series (hyperfine's way)
# drift apart when the load changes between the series, as it does on a shared machine.
# Usage: benches/new.sh [PAIRS]   (default 40; builds the release binary first unless
#        OPERATOR_RS_BIN names an already built one). With OPERATOR_RS_BASELINE_BIN naming
#        another build (say, of the commit before a change), each round also runs that one, and
#        the median ratio of the two is reported: a change's effect, under the same load.
#        OPERATOR_RS_BENCH_DIR names the directory the runs write into (default: a new one in
#        $TMPDIR): /dev/shm, say, takes the disk out of both timings. On the development
#        machine's disk (ext4 mounted with discard), the median cp -r of redis was 3.3 ms in one
#        series and 43 ms in another, which moved the ratio more than any change to `new` did.
set -euo pipefail
cd "$(dirname "$0")/.."
charts=${OPERATOR_RS_SHARED_CHARTS:-$(cd .. && pwd)/shared/charts}
largest=$(du -s "$charts"/*/ | sort -n | tail -1 | cut -f2)
largest=${largest%/}
binary=${OPERATOR_RS_BIN:-}
if [[ -z $binary ]]; then
    cargo build --release --quiet --bin operator-rs
    binary=${CARGO_TARGET_DIR:-$PWD/target}/release/operator-rs
fi
work=$(mktemp -d ${OPERATOR_RS_BENCH_DIR:+-p "$OPERATOR_RS_BENCH_DIR"})
trap 'rm -rf "$work"' EXIT
echo "chart: $largest ($(du -sh "$largest" | cut -f1), $(find "$largest" -type f | wc -l) files)"
echo "writing into: $work ($(df --output=fstype "$work" | tail -1))"
python3 - "$work" "$binary" "$largest" "${1:-40}" "${OPERATOR_RS_BASELINE_BIN:-}" <<'PY'
import resource, shutil, statistics, subprocess, sys, time
from pathlib import Path

work, binary, chart, pairs = Path(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
baseline = sys.argv[5]
WARMUPS = 3
new_args = ["new", "out", "--type=helm", "--yes", "--quiet", f"--helm-chart={chart}"]
commands = {"cp -r": ["cp", "-r", chart, "out"], "new": [binary, *new_args]}
if baseline:
    commands["baseline new"] = [baseline, *new_args]


cpu = {name: 0.0 for name in commands}


def children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(name):
    """Seconds one run of `name` takes, into a fresh `out` (its removal is not timed); its CPU
    time, on every core, is added to `cpu`."""
    out = work / "out"
    if out.exists():
        shutil.rmtree(out)
    cpu_before = children_cpu()
    start = time.perf_counter_ns()
    done = subprocess.run(commands[name], cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = (time.perf_counter_ns() - start) / 1e9
    cpu[name] += children_cpu() - cpu_before
    if done.returncode != 0:
        sys.exit(f"{name} failed ({done.returncode}): {done.stderr.decode(errors='replace')}")
    return elapsed


for _ in range(WARMUPS):
    for name in commands:
        timed(name)
times = {name: [] for name in commands}
cpu = {name: 0.0 for name in commands}  # the warm-ups' CPU time is not counted
ratios, baseline_ratios = [], []
names = list(commands)
for i in range(pairs):
    # Rotate which command goes first, so none always runs right after a removal.
    order = names[i % len(names):] + names[:i % len(names)]
    pair = {name: timed(name) for name in order}
    for name, seconds in pair.items():
        times[name].append(seconds)
    ratios.append(pair["new"] / pair["cp -r"])
    if baseline:
        baseline_ratios.append(pair["new"] / pair["baseline new"])

ms = lambda s: f"{s * 1000:.2f} ms"
cp, new = statistics.median(times["cp -r"]), statistics.median(times["new"])
quartiles = statistics.quantiles(ratios, n=4)
print(f"{pairs} {'rounds' if baseline else 'pairs'} after {WARMUPS} warm-ups")
print(f"median cp -r: {ms(cp)}  (min {ms(min(times['cp -r']))})")
print(f"median operator-rs new: {ms(new)}  (min {ms(min(times['new']))})")
# CPU time moves less with the machine's load than wall time does, and shows work saved on
# the second core, which the wall time of a run on two cores can hide.
print(f"CPU time per run: cp -r {ms(cpu['cp -r'] / pairs)}, new {ms(cpu['new'] / pairs)}")
print(f"median of per-pair ratios: {statistics.median(ratios):.2f}x  (quartiles {quartiles[0]:.2f}x .. {quartiles[2]:.2f}x)")
if baseline:
    base = statistics.median(times["baseline new"])
    q = statistics.quantiles(baseline_ratios, n=4)
    print(f"median baseline new: {ms(base)}  (min {ms(min(times['baseline new']))}), CPU {ms(cpu['baseline new'] / pairs)} per run")
    print(f"median of per-round ratios new / baseline: {statistics.median(baseline_ratios):.3f}  (quartiles {q[0]:.3f} .. {q[2]:.3f})")
PY
