#!/usr/bin/env bash
# Parse throughput against ripgrep, and parsed-file memory against file size.
#   bench/parse-bench.sh [BUILD_DIR]        (default build/; run by hand)
# Two file sets: the largest modules of ../shared/corpus (dumps/*,
# xla-tests/hlo-large) and a 200 MB XLA dump directory made by
# ../shared/tools/make-dump-dir (kept in $HLO_LSP_BENCH_DIR, default
# /tmp/hlo-lsp-bench-200M). For each set it prints parse MB/s, rg MB/s for
# `rg -c ' = '` over the same files in the same run, the time ratio
# (target: parse <= 5x rg) and MemoryUsage()/file size over the set (target
# <= 3x) with the worst single file. With valgrind installed it also counts
# the parser's instructions per byte (hlo::Parse only, callgrind) on the
# largest corpus module: a number that does not depend on the machine's load.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
shared=${HLO_LSP_SHARED:-$root/../shared}
corpus=${HLO_LSP_CORPUS:-$shared/corpus}
dump=${HLO_LSP_BENCH_DIR:-/tmp/hlo-lsp-bench-200M}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cmake --build "$build" --target parse_bench >/dev/null
bench=$build/bench/parse_bench

# Largest corpus modules (HLO text only).
ls -S "$corpus"/dumps/*/* "$corpus"/xla-tests/hlo-large/* 2>/dev/null |
  grep -vE '\.pb(\.gz)?$' | head -n 12 > "$work/largest.list"

if [ ! -d "$dump" ]; then
  echo "making $dump (once)..."
  "$shared/tools/make-dump-dir" "$dump" --bytes 200M --corpus "$corpus"
fi
# HLO text dumps only; the .ll/.ptx/report neighbours are not HLO.
find "$dump" -type f -name '*.txt' ! -name '*-buffer-assignment.txt' \
  ! -name '*-memory-usage-report.txt' | sort > "$work/dump.list"

measure() {  # NAME LIST
  local name=$1 list=$2
  "$bench" --benchmark_filter='^total' --benchmark_format=json "@$list" \
    > "$work/$name.json" 2>/dev/null
  python3 - "$name" "$list" "$work/$name.json" <<'PY'
import json, os, subprocess, sys, time
name, list_path, result = sys.argv[1:]
files = [l for l in open(list_path).read().splitlines() if l]
size = sum(os.path.getsize(f) for f in files)
b = [x for x in json.load(open(result))["benchmarks"] if x["name"].startswith("total")][0]
parse_s = size / b["bytes_per_second"]
rg_s = None
for _ in range(3):  # best of three, warm cache
    t = time.perf_counter()
    subprocess.run(["rg", "-c", " = ", "--no-messages", *files],
                   stdout=subprocess.DEVNULL, check=False)
    t = time.perf_counter() - t
    rg_s = t if rg_s is None else min(rg_s, t)
ratio = parse_s / rg_s
print(f"{name}: {len(files)} files, {size/1e6:.1f} MB | parse {size/1e6/parse_s:.0f} MB/s"
      f" ({parse_s:.3f}s) | rg -c ' = ' {size/1e6/rg_s:.0f} MB/s ({rg_s:.3f}s)"
      f" | parse/rg time {ratio:.2f}x (target <= 5x) {'OK' if ratio <= 5 else 'OVER'}"
      f" | memory {b['mem_ratio']:.2f}x file size (target <= 3x)"
      f" {'OK' if b['mem_ratio'] <= 3 else 'OVER'}, worst file {b['mem_ratio_max']:.2f}x")
PY
}

echo "parse_bench: $bench, $(nproc) cores (rg uses all of them, the parser one)"
measure largest-corpus-modules "$work/largest.list"
measure dump-dir-200M "$work/dump.list"

# Instructions per byte: exact and load-independent, unlike the timings.
if command -v valgrind >/dev/null && [ -x "$build/hlo-lsp" ]; then
  largest=$(head -n 1 "$work/largest.list")
  valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.out" \
    --toggle-collect='hlo::Parse(*' "$build/hlo-lsp" check "$largest" \
    >/dev/null 2>"$work/callgrind.log" || true
  instructions=$(sed -n 's/^summary: //p' "$work/callgrind.out")
  awk -v i="$instructions" -v b="$(wc -c <"$largest")" -v f="$largest" \
    'BEGIN { printf "hlo::Parse: %.1f instructions/byte on %s (%.1f MB)\n",
             i / b, f, b / 1e6 }'
fi
