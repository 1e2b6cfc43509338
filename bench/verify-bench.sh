#!/usr/bin/env bash
# Issue 21's speed numbers side by side: the verifier's cost in `check`
# (`check` against `check --no-verify` over a 200 MB make-dump-dir folder,
# goal at most 1.3x) and in the editor (edit -> published diagnostics of a
# 100 MB module with hlo.verify "auto" against "off", goal within 2 s).
#   bench/verify-bench.sh [BINARY]     (default build/hlo-lsp; run by hand)
# $HLO_LSP_BENCH_DIR: the dump folder (default /tmp/hlo-lsp-bench-200M, made
# once as check-bench.sh makes it); $HLO_LSP_BIG_MODULE: the 100 MB module
# (default /tmp/hlo-lsp-bench-100M.hlo, made once by make-large-module.sh).
# HLO_LSP_BENCH_CHECK_ONLY=1: the check numbers alone.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
binary=${1:-$root/build/hlo-lsp}
shared=${HLO_LSP_SHARED:-$root/../shared}
dump=${HLO_LSP_BENCH_DIR:-/tmp/hlo-lsp-bench-200M}
big=${HLO_LSP_BIG_MODULE:-/tmp/hlo-lsp-bench-100M.hlo}
source "$root/bench/lib.sh"  # median, cpu_ms, hlo_text_list
list=$(mktemp)
trap 'rm -f "$list"' EXIT
hlo_text_list "$dump" "$shared" "$list"
bytes=$(xargs -a "$list" -d '\n' cat | wc -c)
# Alternating runs would be fairer on a loaded machine, but each median
# already takes 5; the two run back to back.
verify_us=$(median xargs -a "$list" -d '\n' "$binary" check)
plain_us=$(median xargs -a "$list" -d '\n' "$binary" check --no-verify)
awk -v b="$bytes" -v v="$verify_us" -v p="$plain_us" 'BEGIN {
  printf "check, %.0f MB folder:\n", b / 1e6
  printf "  check              %8.3f s\n", v / 1e6
  printf "  check --no-verify  %8.3f s\n", p / 1e6
  printf "  ratio              %8.2fx (goal: at most 1.3x)\n", v / p
}'
if [ -x /usr/bin/time ]; then
  verify_cpu=$(cpu_ms xargs -a "$list" -d '\n' "$binary" check)
  plain_cpu=$(cpu_ms xargs -a "$list" -d '\n' "$binary" check --no-verify)
  awk -v v="$verify_cpu" -v p="$plain_cpu" 'BEGIN {
    printf "  cpu: check %.3f s, --no-verify %.3f s, ratio %.2fx\n",
           v / 1e3, p / 1e3, v / p
  }'
fi
[ -n "${HLO_LSP_BENCH_CHECK_ONLY:-}" ] && exit 0
if [ ! -f "$big" ]; then
  echo "making $big (once)..."
  "$root/bench/make-large-module.sh" "$big" 100
fi
echo "editor, edit -> diagnostics:"
node "$root/bench/verify_latency.js" "$binary" "$big" 5 | sed 's/^/  /'
