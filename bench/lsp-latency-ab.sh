#!/usr/bin/env bash
# Hover and definition latency of two server builds side by side (issue 23:
# p99 <= 5 ms on a 3-4 MB module): RUNS rounds of bench/lsp_bench.js, the
# two builds alternating, each with HLO_LSP_TRACE=1; prints per build the
# median over the rounds of the client's p50/p99 and of the server's own
# p99 wait/run/send (bench/trace_summary.js). Prints numbers; asserts
# nothing. Extra arguments go to lsp_bench.js (e.g. --jsonrpc).
#   bench/lsp-latency-ab.sh OLD_HLO_LSP NEW_HLO_LSP MODULE [RUNS] [SAMPLES] [ARGS...]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
[[ $# -ge 3 ]] || {
  echo "usage: $0 OLD NEW MODULE [RUNS] [SAMPLES] [lsp_bench args]" >&2
  exit 2
}
old=$1 new=$2 module=$3 runs=${4:-5} samples=${5:-500}
shift $(($# < 5 ? $# : 5))
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# p99 FIELD: the 99th percentile of a column of numbers on stdin.
p99() {
  awk -v f="$1" '{print $f}' | sort -g |
    awk '{v[NR]=$1} END {i = int(0.99 * NR) + 1; if (i > NR) i = NR; print v[i]}'
}

# One round of one build: "method p50 p99 wait99 run99 send99" lines.
round() {
  local bin=$1 out=$tmp/out trace=$tmp/trace
  HLO_LSP_TRACE=1 node "$root/bench/lsp_bench.js" "$bin" "$module" "$samples" "$@" \
    >"$out" 2>"$trace"
  node "$root/bench/trace_summary.js" "$trace" >"$tmp/summary"
  for method in hover definition; do
    local client server
    client=$(grep "^textDocument/$method: n=" "$out" |
      sed -E 's/.* p50 ([0-9.]+) ms, p99 ([0-9.]+) ms.*/\1 \2/')
    # All threads together: the p99 over the lines of both.
    grep "^hlo-lsp trace: textDocument/$method " "$trace" >"$tmp/lines" || true
    server="$(p99 6 <"$tmp/lines") $(p99 9 <"$tmp/lines") $(p99 12 <"$tmp/lines")"
    echo "$method $client $server"
  done
}

for i in $(seq "$runs"); do
  # Alternate which build goes first: the machine's load drifts.
  if ((i % 2)); then order="old new"; else order="new old"; fi
  for which in $order; do
    bin=$old
    [[ $which == new ]] && bin=$new
    round "$bin" "$@" | sed "s/^/$which /" >>"$tmp/rounds"
  done
done

median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
echo "module: $module, $runs rounds of $samples samples each; medians (ms)"
echo "build method     client-p50 client-p99 | server-p99: wait run send"
for which in old new; do
  for method in hover definition; do
    row=$(grep "^$which $method " "$tmp/rounds")
    printf '%-5s %-10s %10s %10s | %s %s %s\n' "$which" "$method" \
      "$(awk '{print $3}' <<<"$row" | median)" \
      "$(awk '{print $4}' <<<"$row" | median)" \
      "$(awk '{print $5}' <<<"$row" | median)" \
      "$(awk '{print $6}' <<<"$row" | median)" \
      "$(awk '{print $7}' <<<"$row" | median)"
  done
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
