#!/usr/bin/env bash
# proto -> HLO text throughput (issue 5's target: >= 200 MB/s of text).
#   bench/proto-bench.sh [BUILD_DIR] [N]          (default build/, N=12)
# Encodes the N largest HLO text modules of ../shared/corpus (dumps/*,
# xla-tests/hlo-large) to HloProto, plus a 50 MB module made by
# bench/make-large-module.sh (kept in $HLO_LSP_PROTO_BENCH_MODULE, default
# /tmp/hlo-lsp-proto-bench-50M.hlo), and runs proto_bench on them: per file
# and in total, convert (decode + print), decode, print and memcpy of the
# same number of bytes, in MB/s of text (CPU time; medians of 3 runs).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
n=${2:-12}
shared=${HLO_LSP_SHARED:-$root/../shared}
corpus=${HLO_LSP_CORPUS:-$shared/corpus}
large=${HLO_LSP_PROTO_BENCH_MODULE:-/tmp/hlo-lsp-proto-bench-50M.hlo}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cmake --build "$build" --target proto_bench >/dev/null
bench=$build/bench/proto_bench

ls -S "$corpus"/dumps/*/* "$corpus"/xla-tests/hlo-large/* 2>/dev/null |
  grep -vE '\.pb(\.gz)?$' | head -n "$n" > "$work/largest.list"
if [ ! -f "$large" ]; then
  "$root/bench/make-large-module.sh" "$large" 50 "$corpus/dumps" >&2
fi

echo "== the $n largest corpus modules"
"$bench" --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
  --benchmark_filter='total' @"$work/largest.list" 2>&1 |
  grep -E 'median|skipping'
echo "== $large"
"$bench" --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
  "$large" 2>&1 | grep -E 'median|proto bytes'
