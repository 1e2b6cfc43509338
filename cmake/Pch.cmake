# Precompiled headers: a target with many sources parses the standard,
# abseil (and for some nlohmann, GoogleTest) headers once instead of once per
# file; see cmake/pch/common.h. -DHLO_LSP_PCH=OFF builds without them (e.g.
# to check that every file includes what it uses).
option(HLO_LSP_PCH "Precompile common headers per target (clang)" ON)

# hlo_lsp_precompile(TARGET HEADER): HEADER is one of cmake/pch/*.h. C++
# sources only (not CUDA); sources with their own COMPILE_OPTIONS skip it,
# since a precompiled header must be built with the flags of its users.
# clang only: its headers (20-40 MB) build in ~2 s and saved 0.5-1.3 s per
# file measured. gcc's took 6-8 s and 120-180 MB each, and its build was no
# faster with them.
function(hlo_lsp_precompile target header)
  if(NOT HLO_LSP_PCH OR NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    return()
  endif()
  get_target_property(sources ${target} SOURCES)
  list(LENGTH sources count)
  if(count LESS 4)  # the header costs about what two files save
    return()
  endif()
  target_precompile_headers(${target} PRIVATE
    "$<$<COMPILE_LANGUAGE:CXX>:${PROJECT_SOURCE_DIR}/cmake/pch/${header}>")
  foreach(src ${sources})
    get_source_file_property(options ${src} COMPILE_OPTIONS)
    if(options)
      set_source_files_properties(${src} PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
    endif()
  endforeach()
endfunction()
