#include "server/common/graphviz_api.h"

#include "absl/status/status.h"
#include "base/dynamic_library.h"

#ifndef HLO_LSP_LIBGVC_SONAME
#define HLO_LSP_LIBGVC_SONAME "libgvc.so.6"
#endif

namespace hlo_lsp {
namespace {

// libgvc needs libcgraph: the loader brings it, and a symbol looked up in
// libgvc's handle is found in either.
absl::Status LoadGraphvizSymbols(const hlo::base::DynamicLibrary& library,
                                 GraphvizApi* api) {
  HLO_LSP_GRAPHVIZ_FUNCTIONS(HLO_LSP_LOAD_API_MEMBER)
  HLO_LSP_GRAPHVIZ_VARIABLES(HLO_LSP_LOAD_API_MEMBER)
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<const GraphvizApi*> LoadGraphvizApi() {
  return hlo::base::LoadApiOnce<GraphvizApi>(
      {HLO_LSP_LIBGVC_SONAME, "libgvc.so.6", "libgvc.so"}, LoadGraphvizSymbols,
      "Graphviz is needed to draw graphs (Debian: apt install libgvc6)");
}

}  // namespace hlo_lsp
