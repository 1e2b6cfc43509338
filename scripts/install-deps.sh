#!/usr/bin/env bash
# Installs the Debian 12 packages hlo-lsp needs to build and test. Idempotent:
# it asks dpkg first, so a second run does no apt work (and needs no sudo).
set -euo pipefail

packages=(
  cmake ninja-build g++ pkg-config
  libabsl-dev libre2-dev nlohmann-json3-dev libprotobuf-dev protobuf-compiler
  zlib1g-dev libxxhash-dev libarchive-dev libgraphviz-dev   # bundle, graph
  llvm-14-dev clang-14 libclang-rt-14-dev   # sanitizer + fuzzer build
  libgtest-dev libgmock-dev libbenchmark-dev
  libopenblas-dev                           # bench/exec-bench.sh: sgemm yardstick
  ripgrep                                   # search tests and benchmarks compare with rg
  clang-format                              # scripts/format.sh, checked by test.sh
  python3-numpy                             # replay's differential test against NumPy
)

# Node runs the end-to-end editor tests; any node >= 18 already on PATH will do.
node_major() { node -e 'process.stdout.write(process.versions.node.split(".")[0])' 2>/dev/null || echo 0; }
if ! command -v node >/dev/null 2>&1 || [ "$(node_major)" -lt 18 ]; then
  packages+=(nodejs npm)
fi

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$package")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

sudo=()
if [ "$(id -u)" -ne 0 ]; then sudo=(sudo); fi
echo "install-deps: installing ${missing[*]}"
"${sudo[@]}" apt-get update -q
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
