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
