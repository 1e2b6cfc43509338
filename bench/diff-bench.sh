#!/usr/bin/env bash
# `hlo-lsp diff` of the corpus's two largest HLO text models against edited
# copies (every 50th instruction renamed with its uses, one shape changed),
# side by side with `hlo-lsp check` on the same two files (the yardstick of
# the compilation-history issue: at most 10x).
#   bench/diff-bench.sh [BINARY]     (default build/hlo-lsp; run by hand)
# The corpus is ../shared/corpus (or $HLO_LSP_CORPUS). Prints the median of
# 5 runs of each and their ratio, per model.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
binary=${1:-$root/build/hlo-lsp}
corpus=${HLO_LSP_CORPUS:-$root/../shared/corpus}
[ -f "$corpus/INDEX.tsv" ] || { echo "diff-bench: no corpus at $corpus"; exit 2; }
command -v perl >/dev/null || { echo "diff-bench: needs perl"; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$root/bench/lib.sh"  # median
# The two largest HLO text files listed (protos and text protos left out).
models=$(awk -F'\t' 'NR > 1 && $1 !~ /\.(pb|pb\.gz|pbtxt)$/ { print $2 "\t" $1 }' \
  "$corpus/INDEX.tsv" | sort -rn | awk -F"\t" 'NR <= 2 { print $2 }')
for model in $models; do
  a="$corpus/$model"
  b="$work/$(basename "$model")"
  # Rename the instruction defined on every 50th line, then every use of
  # it; turn the first f32 `add` into s32.
  perl -e '
    local $/; my $t = <STDIN>; my @lines = split /\n/, $t; my %new;
    for (my $i = 49; $i < @lines; $i += 50) {
      $new{$1} = "$1.b50" if $lines[$i] =~ /^\s*(?:ROOT\s+)?%([\w.\-]+)\s*=/;
    }
    $t =~ s/%([\w.\-]+)(?![\w.\-])/exists $new{$1} ? "%$new{$1}" : "%$1"/ge;
    $t =~ s/^(\s*%[\w.\-]+ = )f32\[(?=[^\n]* add\()/$1s32[/m;
    print $t;' <"$a" >"$b"
  lines=$("$binary" diff "$a" "$b" 2>/dev/null | wc -l || true)
  diff_us=$(median "$binary" diff "$a" "$b")
  check_us=$(median "$binary" check "$a" "$b")
  awk -v m="$model" -v n="$lines" -v d="$diff_us" -v c="$check_us" \
    -v bytes="$(wc -c <"$a")" 'BEGIN {
    printf "%s (%.1f MB, %d diff lines)\n", m, bytes / 1e6, n
    printf "  hlo-lsp diff   %8.3f s\n", d / 1e6
    printf "  hlo-lsp check  %8.3f s (both files)\n", c / 1e6
    printf "  ratio          %8.1fx (goal: at most 10x)\n", d / c
  }'
done
