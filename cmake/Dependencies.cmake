# Every dependency is a Debian 12 package (scripts/install-deps.sh installs them).
find_package(Threads REQUIRED)
find_package(absl REQUIRED)
find_package(nlohmann_json 3 REQUIRED)
find_package(ZLIB REQUIRED)
# protobuf 3.21 on Debian ships no CMake config: use CMake's FindProtobuf.
find_package(Protobuf REQUIRED)
find_package(PkgConfig REQUIRED)
# RE2 has no CMake config and its .pc reports version 0.0.0, so no version check.
pkg_check_modules(RE2 REQUIRED IMPORTED_TARGET re2)
pkg_check_modules(XXHASH REQUIRED IMPORTED_TARGET libxxhash)
# `hlo-lsp bundle` writes its .tar.gz with libarchive.
pkg_check_modules(LIBARCHIVE REQUIRED IMPORTED_TARGET libarchive)
# Graphviz (cgraph + gvc) lays out `hlo-lsp graph`; its plugins load at run time.
pkg_check_modules(GRAPHVIZ REQUIRED IMPORTED_TARGET libcgraph libgvc)
if(HLO_LSP_TESTS)
  find_package(GTest REQUIRED)
endif()
if(HLO_LSP_BENCH)
  find_package(benchmark REQUIRED)
endif()
