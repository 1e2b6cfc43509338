#!/usr/bin/env bash
# Index build time and query latency of `hlo-lsp search` next to `rg -n` for
# the same definition search, on a dump directory made by make-dump-dir.
# Printed, never asserted.
#
#   bench/index_bench.sh [--dir DIR | --bytes 1G] [--bin build/hlo-lsp]
#
# Without --dir it makes (once) /tmp/hlo-index-bench-<bytes> with
# ../shared/tools/make-dump-dir. The page cache is warmed first, as in the
# issue's setup; the cache folder is a fresh temporary one.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
bytes=1G
dir=
bin=${HLO_LSP:-$root/build/hlo-lsp}
latency=
while [[ $# -gt 0 ]]; do
  case $1 in
    --dir) dir=$2; shift 2 ;;
    --bytes) bytes=$2; shift 2 ;;
    --bin) bin=$2; shift 2 ;;
    --latency) latency=$2; shift 2 ;;
    *) echo "usage: $0 [--dir DIR | --bytes SIZE] [--bin HLO_LSP] [--latency index_query_latency]" >&2; exit 2 ;;
  esac
done
[[ -x $bin ]] || { echo "no hlo-lsp at $bin (build it, or pass --bin)" >&2; exit 2; }
command -v rg >/dev/null || { echo "ripgrep (rg) is needed for the comparison" >&2; exit 2; }
if [[ -z $dir ]]; then
  dir=/tmp/hlo-index-bench-$bytes
  if [[ ! -d $dir ]]; then
    "$root/../shared/tools/make-dump-dir" "$dir" --bytes "$bytes"
  fi
fi
if [[ -z $latency ]]; then
  latency=$(dirname "$bin")/bench/index_query_latency
fi

cache=$(mktemp -d /tmp/hlo-index-bench-cache.XXXXXX)
trap 'rm -rf "$cache"' EXIT
export XDG_CACHE_HOME=$cache

# Warm the page cache (the issue measures with a warm cache).
find "$dir" -type f -exec cat {} + > /dev/null

# Definition names spread over the directory: every 997th definition line.
mapfile -t names < <(rg --no-filename -o '^\s*(?:ROOT )?%([A-Za-z_][A-Za-z0-9_.-]*) = ' -r '$1' "$dir" 2>/dev/null \
                       | awk 'NR % 997 == 1' | sort -u | head -5)
[[ ${#names[@]} -gt 0 ]] || { echo "no definitions found in $dir" >&2; exit 2; }

now() { echo "$EPOCHREALTIME"; }
# Best of three wall times of a command (seconds).
best_of_3() {
  local best=999999 t0 t1 t
  for _ in 1 2 3; do
    t0=$(now); "$@" > /dev/null 2>&1 || true; t1=$(now)
    t=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.4f", b-a}')
    best=$(awk -v a="$best" -v b="$t" 'BEGIN{print (b<a)?b:a}')
  done
  echo "$best"
}
once() {
  local t0 t1; t0=$(now); "$@" > /dev/null 2>&1 || true; t1=$(now)
  awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.4f", b-a}'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{ if (b > 0) printf "%.2fx", a/b; else print "-" }'; }

files=$(find "$dir" -type f | wc -l)
size=$(du -sh "$dir" | cut -f1)
echo "dir: $dir ($files files, $size), cores: $(nproc), load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "hlo-lsp: $bin; rg: $(rg --version | head -1)"
printf '%-26s %9s %11s %7s %11s %7s %9s %9s\n' name rg_s cold_s cold/rg warm_s warm/rg rg_hits ours_hits
first=1
cold_runs=()
for name in "${names[@]}"; do
  pattern="^\\s*(ROOT )?%?${name//./\\.} = "
  rg_time=$(best_of_3 rg -n "$pattern" "$dir")
  if [[ $first == 1 ]]; then
    # Best of three like rg's, each from an empty cache.
    cold=999999
    for _ in 1 2 3; do
      rm -rf "$cache"/*
      t=$(once "$bin" search --dir "$dir" --limit 0 "$name")
      cold_runs+=("$t")
      cold=$(awk -v a="$cold" -v b="$t" 'BEGIN{print (b<a)?b:a}')
    done
    first=0
  else
    cold=-
  fi
  warm=$(best_of_3 "$bin" search --dir "$dir" --limit 0 "$name")
  rg_hits=$(rg -n "$pattern" "$dir" | wc -l)
  ours=$("$bin" search --dir "$dir" --limit 0 "$name" | awk -v n=" $name" 'substr($0, length($0)-length(n)+1) == n' | wc -l)
  printf '%-26s %9s %11s %7s %11s %7s %9s %9s\n' "$name" "$rg_time" "$cold" \
    "$( [[ $cold == - ]] && echo - || ratio "$cold" "$rg_time")" "$warm" \
    "$(ratio "$warm" "$rg_time")" "$rg_hits" "$ours"
done
echo "empty-cache runs (${names[0]}): ${cold_runs[*]} s"
nocache=$(best_of_3 "$bin" search --no-cache --dir "$dir" --limit 0 "${names[0]}")
echo "no-cache search (${names[0]}): ${nocache}s = $(ratio "$nocache" "$(best_of_3 rg -n "${names[0]}" "$dir")") rg"
echo "shards: $(du -sh "$cache" | cut -f1) in $cache"
# What any hlo-lsp process pays before it searches (loading the binary and
# its shared libraries), part of every cold and warm time above.
echo "process start (hlo-lsp search --help): $(best_of_3 "$bin" search --help)s"
if [[ -x $latency ]]; then
  echo "--- in-process queries (workspace/symbol), index loaded from the shards:"
  "$latency" "$dir" --runs 50 "${names[@]}" "kind:computation fused_broadcast" "op:all-reduce" "/^loop_[a-z]+_fusion/"
else
  echo "(no $latency: build the index_query_latency target for in-process latency)"
fi
