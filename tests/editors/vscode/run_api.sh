#!/bin/bash
# VS Code API-level test: code-server 4.100.3 with the packaged .vsix and the test-only
# extension tester-ext, which calls VS Code's provider commands on real HLO files.
# usage: run_api.sh HLO_LSP_BINARY      (77 = skipped; env KEEP_OUT=dir keeps the logs)
source "$(dirname "$0")/common.sh"
t0=$SECONDS
build_vsix
"$CS" "${CS_ARGS[@]}" --install-extension "$VSIX" >/dev/null
# An unpacked extension is picked up when extensions.json does not list it yet.
rm -f "$WORK/ext/extensions.json"
ln -s "$HERE/tester-ext" "$WORK/ext/hlo-lsp-tests.hlo-e2e-tester-0.0.1"
export HLO_E2E_OUT="$WORK/api-results.jsonl" HLO_E2E_DIR="$WS"
start_code_server
# The extension host starts only when a window connects: hold one open until the
# tester's summary line appears (or 120 s).
NODE_PATH="$HERE/node_modules" node "$HERE/open_window.js" "http://127.0.0.1:$PORT/?folder=$WS" "$HLO_E2E_OUT" 120000 || true
cat "$HLO_E2E_OUT" 2>/dev/null || echo "no results from the tester extension"
echo "vscode api test: $((SECONDS - t0)) s"
if grep -q '"summary":true,"failures":0' "$HLO_E2E_OUT" 2>/dev/null; then exit 0; fi
show_extension_log
exit 1
