#!/bin/bash
# Installs the client's pinned packages (npm ci) and runs the end-to-end
# tests against a built hlo-lsp. Usage: tests/e2e/run.sh [path/to/hlo-lsp]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
server="${1:-$here/../../build/hlo-lsp}"
command -v node >/dev/null || { echo "SKIP: node not found"; exit 77; }
if ! (cd "$here" && npm ci --no-audit --no-fund --silent); then
  echo "SKIP: npm ci failed (offline?)"; exit 77
fi
exec node "$here/lsp-e2e.js" "$server"
