#include "server/common/graphviz_api.h"

#include <string>

#include "absl/status/status.h"
#include "base/dynamic_library.h"

#ifndef HLO_LSP_LIBGVC_SONAME
#define HLO_LSP_LIBGVC_SONAME "libgvc.so.6"
#endif

namespace hlo_lsp {
namespace {

absl::StatusOr<GraphvizApi> LoadGraphviz() {
  // libgvc needs libcgraph: the loader brings it, and a symbol looked up
  // in libgvc's handle is found in either.
  absl::StatusOr<hlo::base::DynamicLibrary> library =
      hlo::base::DynamicLibrary::Open(
          {HLO_LSP_LIBGVC_SONAME, "libgvc.so.6", "libgvc.so"});
  if (!library.ok()) {
    return absl::FailedPreconditionError(
        "Graphviz is needed to draw graphs (Debian: apt install "
        "libgvc6): " +
        std::string(library.status().message()));
  }
  GraphvizApi api;
#define HLO_LSP_GRAPHVIZ_LOAD(name)                                \
  if (absl::Status s = library->Load(#name, &api.name); !s.ok()) { \
    return absl::FailedPreconditionError(s.message());             \
  }
  HLO_LSP_GRAPHVIZ_FUNCTIONS(HLO_LSP_GRAPHVIZ_LOAD)
  HLO_LSP_GRAPHVIZ_VARIABLES(HLO_LSP_GRAPHVIZ_LOAD)
#undef HLO_LSP_GRAPHVIZ_LOAD
  return api;
}

}  // namespace

absl::StatusOr<const GraphvizApi*> LoadGraphvizApi() {
  static const absl::StatusOr<GraphvizApi>* const api =
      new absl::StatusOr<GraphvizApi>(LoadGraphviz());
  if (!api->ok()) return api->status();
  return &**api;
}

}  // namespace hlo_lsp
