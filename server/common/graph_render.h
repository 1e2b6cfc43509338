// Lays out and draws a node-and-edge picture with Graphviz used as a
// library (cgraph + gvc, `dot` layout): SVG or DOT text in memory, never a
// file, never a `dot` process. Graphviz is not thread-safe, so every call
// holds one process-wide lock; its messages are caught, not printed.
#ifndef HLO_LSP_SERVER_COMMON_GRAPH_RENDER_H_
#define HLO_LSP_SERVER_COMMON_GRAPH_RENDER_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace hlo_lsp {

struct RenderNode {
  std::string id;          // unique; also the SVG element's id
  std::string html_label;  // Graphviz HTML-like label, already escaped
  std::string shape = "rect";
  std::string style = "filled";
  std::string fill = "white", stroke = "black", font = "black";
  std::string tooltip;  // plain text
};

struct RenderEdge {
  std::string from, to;  // RenderNode ids
  std::string style;     // "" (solid) or "dashed"
  std::string tooltip;   // plain text
};

struct RenderGraph {
  std::string html_label;  // under the picture; escaped like node labels
  std::vector<RenderNode> nodes;
  std::vector<RenderEdge> edges;
};

enum class RenderFormat { kSvg, kDot };

// The picture as SVG (laid out) or as DOT source (not laid out, for `dot`
// by hand). An error names what Graphviz said.
absl::StatusOr<std::string> Render(const RenderGraph& graph,
                                   RenderFormat format);

// `text` as HTML-like label text: & < > " ' escaped.
std::string HtmlEscape(std::string_view text);

}  // namespace hlo_lsp

#endif  // HLO_LSP_SERVER_COMMON_GRAPH_RENDER_H_
