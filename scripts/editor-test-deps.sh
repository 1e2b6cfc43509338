#!/bin/bash
# Installs what the editor tests (tests/editors) need. Idempotent: a second run installs
# nothing. usage: scripts/editor-test-deps.sh [--quick]
#   --quick  only Neovim, Vim and ALE (Debian; ~10 s on a fresh machine)
#   default  also the VS Code tests: Debian chromium + the headers code-server's native
#            modules build against, code-server 4.100.3 and playwright-core (npm, into
#            tests/editors/vscode), and the extension's own packages (editors/vscode).
#            ~2 minutes and ~800 MB on a fresh machine.
# Needs the Debian archive and the npm registry; nothing else is downloaded.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
QUICK=0
[ "${1:-}" = --quick ] && QUICK=1

SUDO=
[ "$(id -u)" = 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive

apt_install() {
  local missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  [ ${#missing[@]} = 0 ] && return 0
  echo "editor-test-deps: apt-get install ${missing[*]}"
  $SUDO apt-get update -q >/dev/null || true
  $SUDO apt-get install -y -q "${missing[@]}" >/dev/null
}

# npm ci in DIR unless node_modules already matches package-lock.json.
npm_ci() {
  local dir=$1; shift
  local stamp="$dir/node_modules/.hlo-lsp-deps-stamp"
  local want
  want=$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then return 0; fi
  echo "editor-test-deps: npm ci in ${dir#"$ROOT"/}"
  (cd "$dir" && env "$@" npm ci --no-audit --no-fund --foreground-scripts > "$dir/npm-ci.log" 2>&1) \
    || { tail -40 "$dir/npm-ci.log"; echo "editor-test-deps: npm ci failed in $dir" >&2; exit 1; }
  echo "$want" > "$stamp"
  rm -f "$dir/npm-ci.log"
}

apt_install neovim vim vim-ale
[ "$QUICK" = 1 ] && exit 0

# code-server's postinstall compiles native modules (kerberos needs gssapi headers) and
# would download rg from GitHub: seed @vscode/ripgrep's cache with Debian's rg instead.
apt_install chromium build-essential python3 libkrb5-dev ripgrep
# @vscode/ripgrep 1.15.11 (pinned by code-server 4.100.3's VS Code shrinkwrap) fetches
# ripgrep v13.0.0-10 into $TMPDIR/vscode-ripgrep-cache-<package version>/.
rg_cache="${TMPDIR:-/tmp}/vscode-ripgrep-cache-1.15.11"
rg_asset="$rg_cache/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz"
if [ ! -s "$rg_asset" ]; then
  tmp=$(mktemp -d)
  mkdir -p "$rg_cache" && cp "$(command -v rg)" "$tmp/rg" && tar czf "$rg_asset" -C "$tmp" rg
  rm -rf "$tmp"
fi
# npm_config_unsafe_perm: code-server's postinstall refuses root without it.
# npm_config_yes: node-pty's postinstall runs `npx node-gyp`, which would prompt and abort.
npm_ci "$ROOT/tests/editors/vscode" npm_config_unsafe_perm=true npm_config_yes=true
npm_ci "$ROOT/editors/vscode"
