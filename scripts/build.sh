#!/usr/bin/env bash
# Configures and builds build/ (gcc, RelWithDebInfo): the binary is build/hlo-lsp.
# Extra arguments go to cmake's configure step, e.g. -DHLO_LSP_BENCH=OFF.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-RelWithDebInfo}" "$@"
cmake --build build -j "${HLO_LSP_JOBS:-$(nproc)}"
