#!/usr/bin/env bash
# Configures build/ (gcc, RelWithDebInfo) and builds the binary, build/hlo-lsp:
# a new user waits for it, not for the tests. HLO_LSP_TARGET=all builds
# everything. Extra arguments go to cmake's configure step.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-RelWithDebInfo}" "$@"
cmake --build build -j "${HLO_LSP_JOBS:-$(nproc)}" --target "${HLO_LSP_TARGET:-hlo-lsp}"
