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

# interleaved N FUNCTION...: runs the functions (shell functions taking no
# arguments) in turn for N rounds and prints each one's median wall time
# in microseconds, a line each, in the order given. Side by side, runs see
# the same drift of a shared machine's speed; blocks of runs one after the
# other do not, and their ratio drifts with it.
interleaved() {
  local rounds=$1
  shift
  local -A samples=()
  local round name start end
  for ((round = 0; round < rounds; round++)); do
    for name in "$@"; do
      start=$(date +%s%N)
      "$name" >/dev/null 2>&1 || true
      end=$(date +%s%N)
      samples[$name]+="$(((end - start) / 1000)) "
    done
  done
  for name in "$@"; do
    # shellcheck disable=SC2086  # the times are words
    printf '%s\n' ${samples[$name]} | sort -n |
      awk '{ t[NR] = $1 } END { print t[int((NR + 1) / 2)] }'
  done
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
