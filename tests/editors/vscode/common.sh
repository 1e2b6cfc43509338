# Shared by run_api.sh and run_ui.sh (sourced). Sets ROOT, WORK, WS (a workspace with the
# fixtures and a converted .hlo.pb), VSIX, CS (code-server) and starts nothing yet.
# Exits 77 (CTest: skipped) when code-server, chromium or the npm packages are missing.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
HLO_LSP=$(realpath "${1:?hlo-lsp binary}")
CS="$HERE/node_modules/.bin/code-server"
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
skip() { echo "SKIP: $1 (run scripts/editor-test-deps.sh)"; exit 77; }
[ -x "$CS" ] || skip "code-server not installed in tests/editors/vscode"
[ -d "$HERE/node_modules/playwright-core" ] || skip "playwright-core not installed"
[ -x "$CHROMIUM" ] || skip "chromium not installed"
[ -x "$ROOT/editors/vscode/node_modules/.bin/vsce" ] || skip "editors/vscode packages not installed"
command -v curl >/dev/null || skip "curl not installed"

WORK=$(mktemp -d)
WS="$WORK/ws"
mkdir -p "$WS" "$WORK/ud/User" "$WORK/ext"
cp "$ROOT"/tests/editors/fixtures/* "$WS/"
"$HLO_LSP" convert "$WS/module_0001.jit_f.before_optimizations.txt" --to proto \
  -o "$WS/module_0002.jit_f.before_optimizations.hlo.pb" || echo "hlo-lsp convert failed"
# code-server writes ~/.config/code-server and ~/.local/share/code-server otherwise.
export XDG_CONFIG_HOME="$WORK/xdg-config" XDG_DATA_HOME="$WORK/xdg-data" XDG_CACHE_HOME="$WORK/cache"
# The extension finds the server through its setting, as a user would set it.
cat > "$WORK/ud/User/settings.json" <<JSON
{ "workbench.startupEditor": "none", "security.workspace.trust.enabled": false,
  "telemetry.telemetryLevel": "off", "extensions.autoCheckUpdates": false,
  "extensions.autoUpdate": false, "workbench.tips.enabled": false,
  "workbench.enableExperiments": false, "update.mode": "none",
  "hlo.server.path": "$HLO_LSP" }
JSON

# The .vsix, rebuilt (npm run package) when a source file is newer than the last one.
VSIX=${HLO_LSP_VSIX:-$ROOT/editors/vscode/out/hlo-lsp-test.vsix}
build_vsix() {
  local newer=missing
  if [ -f "$VSIX" ]; then
    newer=$(find "$ROOT/editors/vscode" -path '*/node_modules' -prune -o -path '*/out' -prune \
      -o -type f -newer "$VSIX" -print | head -1)
  fi
  if [ -n "$newer" ]; then
    local t=$SECONDS
    (cd "$ROOT/editors/vscode" && npm run --silent package -- -o "$VSIX" >"$WORK/vsce.log" 2>&1) \
      || { cat "$WORK/vsce.log"; echo "FAIL: npm run package"; exit 1; }
    echo "packaged $VSIX in $((SECONDS - t)) s"
  fi
}

# Free TCP port on 127.0.0.1.
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
printf 'bind-addr: 127.0.0.1:%s\nauth: none\ncert: false\n' "$PORT" > "$WORK/config.yaml"
CS_ARGS=(--config "$WORK/config.yaml" --user-data-dir "$WORK/ud" --extensions-dir "$WORK/ext")
CSPID=

start_code_server() {
  # its own process group: cleanup then also ends the watcher, extension host and server
  setsid "$CS" "${CS_ARGS[@]}" --disable-telemetry --disable-update-check --disable-workspace-trust \
    "$WS" > "$WORK/code-server.log" 2>&1 &
  CSPID=$!
  for _ in $(seq 1 120); do curl -sf -o /dev/null "http://127.0.0.1:$PORT/healthz" && return 0; sleep 0.5; done
  echo "code-server did not answer on $PORT"; cat "$WORK/code-server.log"; exit 1
}

cleanup() {
  [ -n "$CSPID" ] && { kill -- "-$CSPID" 2>/dev/null || true; wait "$CSPID" 2>/dev/null || true; }
  if [ -n "${KEEP_OUT:-}" ]; then mkdir -p "$KEEP_OUT" && cp -r "$WORK/ud/logs" "$KEEP_OUT/vscode-logs" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

# The extension's own log (createOutputChannel('HLO', {log: true})), for failures.
show_extension_log() {
  echo "--- HLO output channel:"
  find "$WORK/ud/logs" -path '*hlo-lsp.hlo-lsp*' -name '*.log' -exec cat {} + 2>/dev/null | cut -c1-300 | tail -40
}
