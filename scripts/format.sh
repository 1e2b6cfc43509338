#!/usr/bin/env bash
# Checks that every C++ file in git is formatted by .clang-format (Google
# style); `scripts/format.sh --fix` rewrites them in place. scripts/test.sh
# runs the check, so CI fails on an unformatted file.
set -euo pipefail
cd "$(dirname "$0")/.."
clang_format=${CLANG_FORMAT:-clang-format}
if ! command -v "$clang_format" >/dev/null 2>&1; then
  echo "format.sh: $clang_format not found (apt-get install clang-format)" >&2
  exit 2
fi
mapfile -t files < <(git ls-files -- '*.cc' '*.h' '*.cu' '*.cuh')
if [ "${1:-}" = "--fix" ]; then
  printf '%s\0' "${files[@]}" | xargs -0 -n 50 -P "$(nproc)" "$clang_format" -i
  exit 0
fi
if printf '%s\0' "${files[@]}" |
    xargs -0 -n 50 -P "$(nproc)" "$clang_format" --dry-run -Werror 2>/tmp/format.$$; then
  echo "format.sh: ${#files[@]} files formatted"
  rm -f /tmp/format.$$
  exit 0
fi
grep -E '^[^ ].*: error:' /tmp/format.$$ | cut -d: -f1 | sort -u | sed 's/^/unformatted: /'
rm -f /tmp/format.$$
echo "format.sh: run scripts/format.sh --fix" >&2
exit 1
