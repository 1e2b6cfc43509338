#!/usr/bin/env bash
# `hlo-lsp check` over a dump folder against `rg -c ' = '` over the same
# files, side by side in one run (the yardstick of issue 23: at most 5x).
#   bench/check-bench.sh [BINARY]     (default build/hlo-lsp; run by hand)
# The folder is a 200 MB ../shared/tools/make-dump-dir folder kept in
# $HLO_LSP_BENCH_DIR (default /tmp/hlo-lsp-bench-200M). Prints the median
# of 7 runs of each, taken in turn, and their ratio.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
binary=${1:-$root/build/hlo-lsp}
shared=${HLO_LSP_SHARED:-$root/../shared}
dump=${HLO_LSP_BENCH_DIR:-/tmp/hlo-lsp-bench-200M}
command -v rg >/dev/null || { echo "check-bench: needs rg (ripgrep)"; exit 2; }
source "$root/bench/lib.sh"  # interleaved, cpu_ms, hlo_text_list
list=$(mktemp)
trap 'rm -f "$list"' EXIT
hlo_text_list "$dump" "$shared" "$list"
files=$(wc -l <"$list")
bytes=$(xargs -a "$list" -d '\n' cat | wc -c)
run_check() { xargs -a "$list" -d '\n' "$binary" check; }
run_rg() { xargs -a "$list" -d '\n' rg -c ' = '; }
mapfile -t medians < <(interleaved 7 run_check run_rg)
check_us=${medians[0]} rg_us=${medians[1]}
awk -v f="$files" -v b="$bytes" -v c="$check_us" -v r="$rg_us" 'BEGIN {
  printf "%d files, %.0f MB\n", f, b / 1e6
  printf "hlo-lsp check  %8.3f s  %7.1f MB/s\n", c / 1e6, b / c
  printf "rg -c \x27 = \x27    %8.3f s  %7.1f MB/s\n", r / 1e6, b / r
  printf "ratio          %8.1fx (goal: at most 5x)\n", c / r
}'
if [ -x /usr/bin/time ]; then
  check_cpu=$(cpu_ms xargs -a "$list" -d '\n' "$binary" check)
  rg_cpu=$(cpu_ms xargs -a "$list" -d '\n' rg -c ' = ')
  awk -v c="$check_cpu" -v r="$rg_cpu" 'BEGIN {
    printf "cpu: check %.3f s, rg %.3f s, ratio %.1fx\n", c / 1e3, r / 1e3,
           c / r
  }'
fi
