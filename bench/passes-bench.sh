#!/usr/bin/env bash
# `hlo-lsp passes` over a module's pass dumps against `hlo-lsp check` on all
# of them, side by side (issue 19's yardstick: within 3x of check).
#   bench/passes-bench.sh [BINARY] [DUMPS]   (default build/hlo-lsp, 40; by hand)
# The dumps are generated from the largest HLO text model of
# ../shared/corpus: every second pass renames one more instruction (and its
# uses), the others change nothing, as most passes of a real pipeline do.
# Prints the median of 5 runs of each and their ratio.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
binary=${1:-$root/build/hlo-lsp}
count=${2:-40}
corpus=${HLO_LSP_SHARED:-$root/../shared}/corpus
[ -d "$corpus" ] || { echo "passes-bench: needs $corpus"; exit 2; }
model=$(find "$corpus/dumps" -name '*.hlo' -printf '%s %p\n' | sort -n |
        tail -1 | cut -d' ' -f2-)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 - "$model" "$dir" "$count" <<'PY'
import re, sys
model, out, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
text = open(model, encoding='utf-8', errors='surrogateescape').read()
names = re.findall(r'^\s*(?:ROOT )?%([\w.\-]+) = ', text, re.M)[1::97]
def write(name, body):
    open(f'{out}/{name}', 'w', encoding='utf-8',
         errors='surrogateescape').write(body)
write('module_0001.bench.before_optimizations.txt', text)
for step in range(count):
    if step % 2 == 1 and step // 2 < len(names):
        old = names[step // 2]
        text = re.sub(r'%' + re.escape(old) + r'(?![\w.\-])', '%' + old + '_r',
                      text)
    write(f'module_0001.bench.{step:04d}.p.after_pass{step}.before_pass{step+1}.txt',
          text)
PY
source "$root/bench/lib.sh"  # median
first=$dir/module_0001.bench.before_optimizations.txt
bytes=$(cat "$dir"/*.txt | wc -c)
passes_us=$(median "$binary" passes "$first")
check_us=$(median sh -c "'$binary' check '$dir'/*.txt")
"$binary" passes "$first" | awk '{ r += substr($6, 2) } END {
  printf "%d dumps, %d renames found\n", NR, r }'
awk -v b="$bytes" -v p="$passes_us" -v c="$check_us" -v m="$model" 'BEGIN {
  printf "model %s, %.0f MB of dumps\n", m, b / 1e6
  printf "hlo-lsp passes %8.3f s\n", p / 1e6
  printf "hlo-lsp check  %8.3f s (every dump)\n", c / 1e6
  printf "ratio          %8.2fx (goal: within 3x)\n", p / c
}'
