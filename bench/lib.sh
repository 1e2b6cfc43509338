# Shared by the bench scripts: `source "$root/bench/lib.sh"`.

# median COMMAND...: the median wall time of 5 runs, in microseconds
# (output discarded, failures ignored: the scripts check results apart).
median() {
  local times=()
  for _ in 1 2 3 4 5; do
    local start end
    start=$(date +%s%N)
    "$@" >/dev/null 2>&1 || true
    end=$(date +%s%N)
    times+=($(((end - start) / 1000)))
  done
  printf '%s\n' "${times[@]}" | sort -n | sed -n 3p
}

# cpu_ms COMMAND...: the median CPU time (user + sys, all threads) of 5 runs,
# in milliseconds: on a shared, loaded machine it swings less than wall time.
cpu_ms() {
  for _ in 1 2 3 4 5; do
    { /usr/bin/time -f '%U %S' "$@" || true; } 2>&1 >/dev/null | tail -n 1 |
      awk '{ printf "%d\n", ($1 + $2) * 1000 }'
  done | sort -n | sed -n 3p
}

# hlo_text_list DUMP SHARED LIST: makes the 200 MB make-dump-dir folder DUMP
# once (SHARED/tools/make-dump-dir), then writes its HLO text dumps to the
# file LIST, sorted (the .ll/.ptx/report neighbours are not HLO).
hlo_text_list() {
  local dump=$1 shared=$2 list=$3
  if [ ! -d "$dump" ]; then
    echo "making $dump (once)..."
    "$shared/tools/make-dump-dir" "$dump" --bytes 200M
  fi
  find "$dump" -type f -name '*.txt' ! -name '*-buffer-assignment.txt' \
    ! -name '*-memory-usage-report.txt' | sort >"$list"
}
