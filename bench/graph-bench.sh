#!/usr/bin/env bash
# `hlo-lsp graph --around NAME` (depth 2) on the corpus's largest model, for
# a few instructions from a plain one to the ENTRY root with ~1000 operands
# (the cut at 500 nodes): parse + select + Graphviz layout + SVG, median of
# 5 runs each. Goal (issue 20): within 2 s on a 4 MB module.
#   bench/graph-bench.sh [BINARY] [MODEL]     (run by hand)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
binary=${1:-$root/build/hlo-lsp}
model=${2:-$root/../shared/corpus/dumps/xla-benchmarks/hlo_mixtral_8x7b_bf16_1x8.hlo}
[ -f "$model" ] || { echo "graph-bench: no model $model"; exit 2; }
source "$root/bench/lib.sh"  # median
awk -v n="$(basename "$model")" -v b="$(wc -c <"$model")" \
  'BEGIN { printf "%s, %.1f MB\n", n, b / 1e6 }'
# The root, the first all-reduce and a fusion, and the most used constant.
root_name=$(grep -m1 -oP '^\s*ROOT %\K[^ ]+(?= = .* tuple\()' "$model" || true)
names=("$root_name" all-reduce add.3000 constant.1360)
worst=0
for name in "${names[@]}"; do
  [ -n "$name" ] || continue
  if ! "$binary" graph "$model" --around "$name" -o /dev/null 2>/dev/null; then
    echo "  $name: not drawn (skipped)"
    continue
  fi
  us=$(median "$binary" graph "$model" --around "$name" -o /dev/null)
  nodes=$("$binary" graph "$model" --around "$name" --format dot 2>/dev/null |
    grep -cP '^\t"?node_[^\t]*\t\[' || true)
  printf '  %-16s %6.3f s  %4d nodes\n' "$name" "$(echo "$us / 1000000" | bc -l)" "$nodes"
  [ "$us" -gt "$worst" ] && worst=$us
done
printf 'worst %.3f s (goal: at most 2 s)\n' "$(echo "$worst / 1000000" | bc -l)"
