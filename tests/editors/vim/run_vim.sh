#!/bin/bash
# usage: run_vim.sh HLO_LSP_BINARY   (exit 77 = skipped: vim or vim-ale not installed)
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
export ROOT=$(cd "$HERE/../../.." && pwd)
export HLO_LSP=$(realpath "${1:?hlo-lsp binary}")
command -v vim >/dev/null && [ -f /usr/share/vim-ale/plugin/ale.vim ] \
  || { echo "SKIP: vim or vim-ale not installed (scripts/editor-test-deps.sh --quick)"; exit 77; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export OUT="$WORK/vim.txt" XDG_CACHE_HOME="$WORK/cache"
cd "$WORK"
timeout 120 vim -N -u NONE -i NONE -n -es -S "$HERE/test_ale.vim" </dev/null
rc=$?
cat "$OUT" 2>/dev/null || echo "no results: vim exited $rc before writing them"
exit $rc
