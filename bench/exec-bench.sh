#!/usr/bin/env bash
# The evaluator's dot against OpenBLAS sgemm and its elementwise ops against
# memcpy, in one run, as a table with the ratios (targets: >= 50% of each).
#   bench/exec-bench.sh [BUILD_DIR] [THREADS]     (default build/, all cores)
# Our evaluator (HLO_LSP_THREADS) and OpenBLAS (OPENBLAS_NUM_THREADS) get the
# same thread count; memcpy is single-threaded. Without OpenBLAS at
# configure time the Sgemm rows and dot ratios are missing.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
threads=${2:-$(nproc)}
cmake --build "$build" --target exec_bench >/dev/null
bench=$(find "$build" -name exec_bench -type f -perm -u+x | head -n 1)
json=$(mktemp)
trap 'rm -f "$json"' EXIT
HLO_LSP_THREADS=$threads OPENBLAS_NUM_THREADS=$threads \
  "$bench" --benchmark_format=json --benchmark_out="$json" \
  --benchmark_out_format=json --benchmark_min_time=${MIN_TIME:-0.5} >/dev/null
/usr/bin/python3 - "$json" "$threads" <<'PY'
import json, sys
data = json.load(open(sys.argv[1]))
rows = {b["name"].replace("/real_time", ""): b for b in data["benchmarks"]}
ctx = data["context"]
print(f"exec_bench: {ctx.get('num_cpus')} CPUs, {sys.argv[2]} threads for our "
      f"evaluator and OpenBLAS; load average {ctx.get('load_avg')}")
print(f"{'dot (f32)':<26}{'ours GFLOP/s':>14}{'sgemm GFLOP/s':>15}{'ratio':>8}")
ratios = []
for name, b in rows.items():
    if not name.startswith("Dot/"):
        continue
    shape = name[4:]
    ours = b["GFLOPS"]
    ref = rows.get("Sgemm/" + shape, {}).get("GFLOPS")
    r = f"{ours / ref:7.0%}" if ref else "    n/a"
    if ref: ratios.append(ours / ref)
    print(f"{shape:<26}{ours:>14.1f}{(ref or float('nan')):>15.1f}{r:>8}")
mem = rows.get("Memcpy/64MiB", {}).get("GBps")
print(f"{'elementwise (64 MiB f32)':<26}{'ours GB/s':>14}{'memcpy GB/s':>15}{'ratio':>8}")
for name, b in rows.items():
    if not name.startswith("Elementwise/"):
        continue
    ours = b["GBps"]
    print(f"{name[12:]:<26}{ours:>14.2f}{mem:>15.2f}{ours / mem:>8.0%}")
if ratios:
    print(f"dot: min ratio {min(ratios):.0%}, geometric mean "
          f"{__import__('math').prod(ratios) ** (1 / len(ratios)):.0%}")
PY
