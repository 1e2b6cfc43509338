#!/usr/bin/env bash
# The whole test suite, as CI runs it:
#   1. dependencies (scripts/install-deps.sh) and node packages for tests/e2e,
#      then the clang-format check (scripts/format.sh);
#   2. build/ with gcc (RelWithDebInfo) and its ctest; the editor clients
#      (scripts/editor-test-deps.sh) install in the background meanwhile;
#   3. build-asan/ with clang-14, ASan+UBSan and libFuzzer, and its ctest;
#   4. each fuzz target for a bounded time (HLO_LSP_FUZZ_SECONDS, 60 in all).
# Exits non-zero on any failure; prints ctest's summary line for each build.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
jobs=${HLO_LSP_JOBS:-$(nproc)}
fuzz_seconds=${HLO_LSP_FUZZ_SECONDS:-60}
failures=()
summaries=()
warnings=()

# step NAME: starts a step; the summary lists each step's seconds, since CI
# keeps only the log's tail.
step_names=()
step_starts=()
step() {
  echo; echo "=== $* ($(date -u +%H:%M:%S))"
  step_names+=("$*")
  step_starts+=("$(date +%s)")
}

step "dependencies"
scripts/install-deps.sh
if [ -f tests/e2e/package.json ]; then
  if [ -f tests/e2e/package-lock.json ]; then
    (cd tests/e2e && npm ci --no-audit --no-fund)
  else
    (cd tests/e2e && npm install --no-audit --no-fund)
  fi
fi

step "format (clang-format, .clang-format)"
if ! scripts/format.sh; then
  failures+=("clang-format: unformatted files (scripts/format.sh --fix)")
fi

# The editor tests' clients (Neovim, Vim+ALE, code-server+Chromium) install
# while build/ compiles (npm's downloads and native builds are ~1.5 minutes);
# the build needs none of them. A failed install of the heavy VS Code part is
# reported, and those tests then skip.
editor_deps_log=$(mktemp)
scripts/editor-test-deps.sh >"$editor_deps_log" 2>&1 &
editor_deps_pid=$!
trap 'kill "$editor_deps_pid" 2>/dev/null || true' EXIT
wait_editor_deps() {
  local rc=0
  wait "$editor_deps_pid" || rc=$?
  cat "$editor_deps_log"
  rm -f "$editor_deps_log"
  if [ "$rc" != 0 ]; then
    echo "WARNING: the VS Code test dependencies did not install; its tests will skip"
    warnings+=("VS Code test dependencies missing (scripts/editor-test-deps.sh failed)")
    scripts/editor-test-deps.sh --quick
  fi
}

# failed_tests LOG: the "NN - Name (Failed)" lines of a ctest log.
failed_tests() {
  {
    sed -n '/The following tests FAILED:/,$p' "$1" | grep -E '^\s+[0-9]+ - '
    # A shard's output names its failed gtest tests.
    grep -oE '^\[  FAILED  \] [A-Za-z_/0-9]+\.[A-Za-z_/0-9]+' "$1" | sort -u
  } | sed -E 's/^\s+//' || true
}

# run_ctest BUILD_DIR: runs the suite, keeps going on failure, records the
# summary. Tests that fail run once more, one at a time: one that then passes
# is named in a warning (a flaky test to mend), one that fails again fails CI.
# Either way the summary names them, since CI keeps only the log's tail.
run_ctest() {
  local dir=$1 log rc first
  shift
  log=$(mktemp)
  set +e
  ctest --test-dir "$dir" --output-on-failure --timeout 300 -j "$jobs" "$@" 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  set -e
  summaries+=("$dir: $(grep -E 'tests passed|No tests were found' "$log" | tail -1)")
  if [ "$rc" != 0 ] || ! grep -q '100% tests passed' "$log"; then
    first=$(failed_tests "$log" | paste -sd ';' -)
    echo "--- rerunning what failed, one at a time: $first"
    set +e
    ctest --test-dir "$dir" --output-on-failure --timeout 300 -j 1 --rerun-failed "$@" 2>&1 | tee "$log"
    rc=${PIPESTATUS[0]}
    set -e
    if [ "$rc" = 0 ] && grep -q '100% tests passed' "$log"; then
      warnings+=("$dir: failed, then passed alone (flaky): $first")
    else
      failures+=("ctest in $dir")
      while IFS= read -r failed; do
        failures+=("  $dir: $failed")
      done < <(failed_tests "$log")
    fi
  fi
  rm -f "$log"
}

# Both builds keep RelWithDebInfo's -O2 -DNDEBUG but write less debug info
# than its -g: line tables are what test failures and sanitizer reports need
# (file:line in stack traces), and full -g costs about a fifth of the build.
# Both are unity builds (CMake joins up to 8 files of a target into one
# compile): two thirds of a file's compile is parsing the same abseil,
# protobuf and GoogleTest headers, and CI has two cores. No two files of a
# target may then share a file-local name; a developer's build (one file per
# compile) keeps each file honest about what it includes.
unity=(-DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=8)
step "build/ (gcc, RelWithDebInfo, -g1)"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
  -DCMAKE_C_COMPILER=gcc -DCMAKE_CXX_COMPILER=g++ -DHLO_LSP_SANITIZE=OFF -DHLO_LSP_FUZZ=OFF \
  "${unity[@]}"
cmake --build build -j "$jobs"
step "editor test dependencies"
wait_editor_deps
step "ctest build/"
run_ctest build

step "build-asan/ (clang-14, ASan+UBSan, fuzzers, -gline-tables-only)"
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -gline-tables-only -DNDEBUG" \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -gline-tables-only -DNDEBUG" \
  -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
  -DHLO_LSP_SANITIZE=ON -DHLO_LSP_FUZZ=ON -DHLO_LSP_BENCH=OFF \
  -DHLO_LSP_TEST_SHARDS=8 "${unity[@]}"
cmake --build build-asan -j "$jobs"
step "ctest build-asan/"
# ctest starts the tests an earlier run found long first; a fresh clone has
# no earlier run, so seed it with the long ones of the sanitizer suite, which
# would otherwise start last and run alone at the end.
costs=build-asan/Testing/Temporary/CTestCostData.txt
if [ ! -f "$costs" ]; then
  mkdir -p "$(dirname "$costs")"
  { grep -v '^#' tests/asan-test-costs.txt; echo ---; } >"$costs"
fi
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
# Third-party leaks at exit (Graphviz and its font caches), each named in the file.
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$root/tests/lsan-suppressions.txt:print_suppressions=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# The heavy editor tests (code-server + Chromium) already ran against build/.
# The corpus replay (minutes of evaluation) already ran against build/ too.
# Here each gtest binary runs as 8 shards (HLO_LSP_TEST_SHARDS), so the
# filter goes to gtest itself.
GTEST_FILTER='-CorpusReplayTest.*' run_ctest build-asan -LE editors-heavy

step "fuzzing (${fuzz_seconds}s in all)"
mapfile -t fuzzers < <(find build-asan -maxdepth 3 -path '*/CMakeFiles' -prune -o -type f -name '*_fuzzer' -perm -u+x -print 2>/dev/null | sort)
if [ ${#fuzzers[@]} -eq 0 ]; then
  failures+=("no fuzz targets were built")
else
  per_target=$(( fuzz_seconds / ${#fuzzers[@]} ))
  [ "$per_target" -ge 1 ] || per_target=1
  for fuzzer in "${fuzzers[@]}"; do
    name=$(basename "$fuzzer")
    work=$(mktemp -d)
    mkdir -p "$work/corpus" "$work/artifacts"
    seeds=("$root/examples")
    [ -d "$root/tests/fuzz/seeds/$name" ] && seeds+=("$root/tests/fuzz/seeds/$name")
    [ "$name" = proto_decode_fuzzer ] && seeds+=("$root/tests/proto/fuzz_seeds")
    echo "--- $name for ${per_target}s"
    if "$fuzzer" -max_total_time="$per_target" -timeout=20 -rss_limit_mb=4096 \
         -max_len=65536 -print_final_stats=1 -artifact_prefix="$work/artifacts/" \
         "$work/corpus" "${seeds[@]}" >"$work/log" 2>&1; then
      tail -n 3 "$work/log"
      rm -rf "$work"
    else
      tail -n 60 "$work/log"
      echo "$name failed; crash inputs kept in $work/artifacts:"; ls "$work/artifacts"
      failures+=("fuzzer $name")
    fi
  done
fi

step "summary"
for i in "${!step_names[@]}"; do
  [ "$i" -lt $(( ${#step_names[@]} - 1 )) ] || break
  printf '%5ss %s\n' "$(( step_starts[i + 1] - step_starts[i] ))" "${step_names[i]}"
done
for line in "${summaries[@]}"; do echo "$line"; done
for line in "${warnings[@]}"; do echo "WARNING: $line"; done
if [ ${#failures[@]} -ne 0 ]; then
  printf 'FAILED: %s\n' "${failures[@]}"
  exit 1
fi
echo "all passed"
