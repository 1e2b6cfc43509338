#!/bin/bash
# VS Code UI test: code-server 4.100.3 with the packaged .vsix, driven by keyboard in
# headless chromium (ui.js); screenshots go to OUTDIR.
# usage: run_ui.sh HLO_LSP_BINARY [OUTDIR]      (77 = skipped)
OUTDIR=${2:-$PWD/vscode-ui}
source "$(dirname "$0")/common.sh"
mkdir -p "$OUTDIR"
t0=$SECONDS
build_vsix
"$CS" "${CS_ARGS[@]}" --install-extension "$VSIX" >/dev/null
start_code_server
rc=0
NODE_PATH="$HERE/node_modules" timeout 300 node "$HERE/ui.js" "http://127.0.0.1:$PORT/?folder=$WS" "$OUTDIR" || rc=$?
echo "vscode ui test: $((SECONDS - t0)) s; screenshots in $OUTDIR"
[ "$rc" = 0 ] || show_extension_log
exit $rc
