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
# The soname of the library `name` (lib<name>.so in `hints` or the usual
# places) in `out`, `fallback` when objdump cannot tell: for dlopen.
function(hlo_lsp_soname_of name hints fallback out)
  set(soname "${fallback}")
  find_library(HLO_LSP_${name}_FILE NAMES ${name} HINTS ${hints})
  if(HLO_LSP_${name}_FILE AND CMAKE_OBJDUMP)
    execute_process(COMMAND ${CMAKE_OBJDUMP} -p ${HLO_LSP_${name}_FILE}
                    OUTPUT_VARIABLE headers ERROR_QUIET)
    if(headers MATCHES "SONAME +([^\n ]+)")
      set(soname "${CMAKE_MATCH_1}")
    endif()
  endif()
  set(${out} "${soname}" PARENT_SCOPE)
endfunction()
# `hlo-lsp bundle` writes its .tar.gz with libarchive, and `graph` lays out
# with Graphviz (cgraph + gvc; its plugins load at run time): both loaded
# (dlopen) when first used, so their headers here and their sonames.
pkg_check_modules(LIBARCHIVE REQUIRED libarchive)
hlo_lsp_soname_of(archive "${LIBARCHIVE_LIBRARY_DIRS}" libarchive.so.13
                  HLO_LSP_LIBARCHIVE_SONAME)
pkg_check_modules(GRAPHVIZ REQUIRED libcgraph libgvc)
hlo_lsp_soname_of(gvc "${GRAPHVIZ_LIBRARY_DIRS}" libgvc.so.6 HLO_LSP_LIBGVC_SONAME)
# Abseil, protobuf and RE2 from Debian's static archives where they are
# installed: each shared library costs the loader a mapping and its
# relocations at every start, and abseil alone is twenty of them
# (`hlo-lsp --version`: 25 -> 19 ms on a 2-core VM). Shared ones otherwise.
option(HLO_LSP_STATIC_DEPS "Link abseil, protobuf and RE2 statically" ON)
function(hlo_lsp_archive_of library out)
  set(${out} "" PARENT_SCOPE)
  if(library MATCHES "^(.*)\\.so(\\.[0-9.]+)?$")
    if(EXISTS "${CMAKE_MATCH_1}.a")
      set(${out} "${CMAKE_MATCH_1}.a" PARENT_SCOPE)
    endif()
  endif()
endfunction()
function(hlo_lsp_link_static target)
  get_target_property(type ${target} TYPE)
  if(type STREQUAL "INTERFACE_LIBRARY")
    return()
  endif()
  foreach(property IMPORTED_LOCATION IMPORTED_LOCATION_NONE
          IMPORTED_LOCATION_NOCONFIG IMPORTED_LOCATION_RELEASE
          IMPORTED_LOCATION_RELWITHDEBINFO IMPORTED_LOCATION_DEBUG)
    get_target_property(location ${target} ${property})
    if(location)
      hlo_lsp_archive_of("${location}" archive)
      if(archive)
        set_target_properties(${target} PROPERTIES ${property} "${archive}")
      endif()
    endif()
  endforeach()
endfunction()
if(HLO_LSP_STATIC_DEPS)
  get_property(imported DIRECTORY PROPERTY IMPORTED_TARGETS)
  foreach(target IN LISTS imported)
    if(target MATCHES "^absl::" OR target STREQUAL "protobuf::libprotobuf")
      hlo_lsp_link_static(${target})
    endif()
  endforeach()
  # pkg-config's target names the library by its full path.
  get_target_property(re2_libraries PkgConfig::RE2 INTERFACE_LINK_LIBRARIES)
  set(re2_static "")
  foreach(library IN LISTS re2_libraries)
    hlo_lsp_archive_of("${library}" archive)
    if(archive)
      list(APPEND re2_static "${archive}")
    else()
      list(APPEND re2_static "${library}")
    endif()
  endforeach()
  set_target_properties(PkgConfig::RE2 PROPERTIES
                        INTERFACE_LINK_LIBRARIES "${re2_static}")
endif()
if(HLO_LSP_TESTS)
  find_package(GTest REQUIRED)
endif()
if(HLO_LSP_BENCH)
  find_package(benchmark REQUIRED)
endif()
