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
# A dump over VS Code's 50 MB limit for extensions: the server must read it from disk.
python3 - "$WS/module_0003.big.after_optimizations.txt" <<'PY'
import sys
n = 420000
with open(sys.argv[1], "w") as f:
    f.write("HloModule big, entry_computation_layout={(f32[64]{0})->f32[64]{0}}\n\n")
    f.write("%helper (p: f32[64]) -> f32[64] {\n  %p = f32[64]{0} parameter(0)\n"
            "  ROOT %n = f32[64]{0} negate(f32[64]{0} %p)\n}\n\n")
    f.write("ENTRY %main (x: f32[64]) -> f32[64] {\n  %x = f32[64]{0} parameter(0)\n  %a.0 = f32[64]{0} copy(f32[64]{0} %x)\n")
    for i in range(1, n):
        f.write(f"  %a.{i} = f32[64]{{0}} add(f32[64]{{0}} %a.{i-1}, f32[64]{{0}} %x), "
                f'metadata={{op_name="jit(big)/add" source_file="/tmp/big.py" source_line={i}}}\n')
    f.write(f"  ROOT %r = f32[64]{{0}} call(f32[64]{{0}} %a.{n-1}), to_apply=%helper\n}}\n")
PY
export HLO_E2E_OUT="$WORK/api-results.jsonl" HLO_E2E_DIR="$WS"
start_code_server
# The extension host starts only when a window connects: hold one open until the
# tester's summary line appears (or 240 s: on a busy 2-core machine the checks take
# over 100 s).
NODE_PATH="$HERE/node_modules" node "$HERE/open_window.js" "http://127.0.0.1:$PORT/?folder=$WS" "$HLO_E2E_OUT" 240000 || true
cat "$HLO_E2E_OUT" 2>/dev/null || echo "no results from the tester extension"
echo "vscode api test: $((SECONDS - t0)) s"
if grep -q '"summary":true,"failures":0' "$HLO_E2E_OUT" 2>/dev/null; then exit 0; fi
show_extension_log
exit 1
