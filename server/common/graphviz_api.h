// Graphviz (cgraph and gvc), loaded the first time a graph is drawn: only
// `graph` and hlo.graph draw one, and loading Graphviz with the libraries
// it needs cost every start of hlo-lsp ~2 ms.
#ifndef HLO_LSP_SERVER_COMMON_GRAPHVIZ_API_H_
#define HLO_LSP_SERVER_COMMON_GRAPHVIZ_API_H_

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include "absl/status/statusor.h"
#include "base/dynamic_library.h"

namespace hlo_lsp {

// The functions graph_render.cc calls, then the variables it reads, each
// member named and typed as declared in cgraph.h and gvc.h (a variable's
// member points to it).
#define HLO_LSP_GRAPHVIZ_FUNCTIONS(X) \
  X(agclose)                          \
  X(agedge)                           \
  X(agnode)                           \
  X(agopen)                           \
  X(agreseterrors)                    \
  X(agsafeset)                        \
  X(agseterr)                         \
  X(agseterrf)                        \
  X(agstrdup_html)                    \
  X(agstrfree)                        \
  X(agwrite)                          \
  X(gvContext)                        \
  X(gvFreeLayout)                     \
  X(gvFreeRenderData)                 \
  X(gvLayout)                         \
  X(gvRenderData)
#define HLO_LSP_GRAPHVIZ_VARIABLES(X) \
  X(AgIdDisc)                         \
  X(AgMemDisc)                        \
  X(Agdirected)

struct GraphvizApi {
  HLO_LSP_GRAPHVIZ_FUNCTIONS(HLO_LSP_DECLARE_API_MEMBER)
  HLO_LSP_GRAPHVIZ_VARIABLES(HLO_LSP_DECLARE_API_MEMBER)
};

// Loads Graphviz once per process; an error (naming the library or symbol
// missing) every call after a failed load.
absl::StatusOr<const GraphvizApi*> LoadGraphvizApi();

}  // namespace hlo_lsp

#endif  // HLO_LSP_SERVER_COMMON_GRAPHVIZ_API_H_
