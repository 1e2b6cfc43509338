#!/bin/bash
# usage: run_nvim.sh HLO_LSP_BINARY   (exit 77 = skipped: nvim not installed)
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
export HLO_LSP=$(realpath "${1:?hlo-lsp binary}")
command -v nvim >/dev/null || { echo "SKIP: nvim not installed (scripts/editor-test-deps.sh --quick)"; exit 77; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
# the search index cache and Neovim's state stay in the temp dir
export WORK FIXTURES="$ROOT/tests/editors/fixtures" LSP_OUT="$WORK/nvim.jsonl" \
  XDG_CACHE_HOME="$WORK/cache" XDG_STATE_HOME="$WORK/state" XDG_DATA_HOME="$WORK/data"
"$HLO_LSP" convert "$FIXTURES/module_0001.jit_f.before_optimizations.txt" --to proto \
  -o "$WORK/module_0002.jit_f.before_optimizations.hlo.pb" || echo "hlo-lsp convert failed"
cd "$WORK"
timeout 170 nvim --headless --clean --cmd "set rtp^=$ROOT/editors/vim" -u "$HERE/test_nvim.lua"
rc=$?
cat "$LSP_OUT"
exit $rc
