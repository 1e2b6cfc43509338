#!/usr/bin/env bash
# proto -> HLO text throughput (issue 5's target: >= 200 MB/s of text).
#   bench/proto-bench.sh [BUILD_DIR] [N]          (default build/, N=12)
# Encodes the N largest HLO text modules of ../shared/corpus (dumps/*,
# xla-tests/hlo-large) to HloProto, plus a 50 MB module made by
# bench/make-large-module.sh (kept in $HLO_LSP_PROTO_BENCH_MODULE, default
# /tmp/hlo-lsp-proto-bench-50M.hlo), and runs proto_bench on them: per file
# and in total, convert (decode + print), decode, print and memcpy of the
# same number of bytes, in MB/s of text (CPU time; medians of 3 runs).
# Then, side by side: `hlo-lsp convert X.pb` against `hlo-lsp check` of the
# text it prints, and against `check --no-verify` (the parse alone), wall
# time, medians of 11 runs taken in turn, for the largest corpus module
# and the 50 MB one; the goal is a ratio (convert / parse) of at most 1.0.
# With HLO_LSP_PROTO_BENCH_BASE=OLD_HLO_LSP, that binary's convert of the
# same file takes its turn too, against the same check time (a
# before/after on a busy machine).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
n=${2:-12}
shared=${HLO_LSP_SHARED:-$root/../shared}
corpus=${HLO_LSP_CORPUS:-$shared/corpus}
large=${HLO_LSP_PROTO_BENCH_MODULE:-/tmp/hlo-lsp-proto-bench-50M.hlo}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cmake --build "$build" --target proto_bench hlo-lsp >/dev/null
bench=$build/bench/proto_bench
hlo=$build/hlo-lsp
source "$root/bench/lib.sh"

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
echo "== convert X.pb vs check of its text (wall time, medians of 11 in turn)"
for f in "$(head -n 1 "$work/largest.list")" "$large"; do
  "$hlo" convert "$f" --to proto -o "$work/x.pb" >/dev/null
  "$hlo" convert "$work/x.pb" -o "$work/x.txt" >/dev/null
  text_bytes=$(stat -c %s "$work/x.txt")
  run_convert() { "$hlo" convert "$work/x.pb" -o -; }
  run_check() { "$hlo" check "$work/x.txt"; }
  run_parse() { "$hlo" check --no-verify "$work/x.txt"; }
  run_base() { "$HLO_LSP_PROTO_BENCH_BASE" convert "$work/x.pb" -o -; }
  runs=(run_convert run_check run_parse)
  [ -n "${HLO_LSP_PROTO_BENCH_BASE:-}" ] && runs+=(run_base)
  mapfile -t medians < <(interleaved 11 "${runs[@]}")
  convert_us=${medians[0]} check_us=${medians[1]} parse_us=${medians[2]}
  base_us=${medians[3]:-}
  awk -v name="$(basename "$f")" -v b="$text_bytes" -v c="$convert_us" \
      -v k="$check_us" -v p="$parse_us" 'BEGIN {
    printf "%-44s %6.1f MB text: convert %8.1f ms (%6.1f MB/s), " \
           "check %8.1f ms (%6.1f MB/s), ratio %.2f; " \
           "check --no-verify %8.1f ms, ratio %.2f\n",
           name, b / 1e6, c / 1e3, b / c, k / 1e3, b / k, c / k,
           p / 1e3, c / p }'
  if [ -n "${HLO_LSP_PROTO_BENCH_BASE:-}" ]; then
    awk -v c="$base_us" -v k="$check_us" -v p="$parse_us" 'BEGIN {
      printf "  %-42s convert %8.1f ms, ratio %.2f; to --no-verify %.2f\n",
             "base binary:", c / 1e3, c / k, c / p }'
  fi
done
