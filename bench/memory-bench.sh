#!/usr/bin/env bash
# `hlo-lsp memory` on the largest HLO text model of ../shared/corpus (issue
# 20's yardstick: within 100 ms), its buffer assignment written in XLA's
# format by scripts/gen-buffer-assignment.py (sizes from the shapes).
#   bench/memory-bench.sh [BINARY]   (default build/hlo-lsp; by hand)
# Prints the median of 5 runs for the module (the assignment found beside
# it) and for --json.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
binary=${1:-$root/build/hlo-lsp}
corpus=${HLO_LSP_SHARED:-$root/../shared}/corpus
[ -d "$corpus" ] || { echo "memory-bench: needs $corpus"; exit 2; }
model=$(find "$corpus/dumps" -name '*.hlo' -printf '%s %p\n' | sort -n |
        tail -1 | cut -d' ' -f2-)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
base=$dir/module_0001.bench.sm_9.0_gpu_after_optimizations
cp "$model" "$base.txt"
python3 "$root/scripts/gen-buffer-assignment.py" "$model" "$base"
sync  # not the fixture's own writeback in the times
source "$root/bench/lib.sh"  # median
"$binary" memory "$base.txt" >/dev/null  # fails the bench if it fails
text_us=$(median "$binary" memory "$base.txt")
json_us=$(median "$binary" memory --json "$base.txt")
values=$(grep -c ' value: ' "$base-buffer-assignment.txt")
bytes=$(wc -c <"$base-buffer-assignment.txt")
awk -v t="$text_us" -v j="$json_us" -v m="$model" -v v="$values" \
    -v b="$bytes" 'BEGIN {
  printf "model %s: %d values, %.1f MB of buffer assignment\n", m, v, b / 1e6
  printf "hlo-lsp memory        %6.1f ms (goal: within 100 ms)\n", t / 1e3
  printf "hlo-lsp memory --json %6.1f ms\n", j / 1e3
}'
