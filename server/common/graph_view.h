// How `hlo-lsp graph` and hlo.graph draw a selection (hlo/graph.h): a node
// per instruction (name, opcode, a fusion's kind, shape) coloured by kind as
// XLA's hlo_graph_dumper does, a dashed edge from each called computation,
// and the cut said under the picture.
#ifndef HLO_LSP_SERVER_COMMON_GRAPH_VIEW_H_
#define HLO_LSP_SERVER_COMMON_GRAPH_VIEW_H_

#include <cstdint>
#include <string>
#include <vector>

#include "hlo/graph.h"
#include "hlo/syntax.h"
#include "server/common/graph_render.h"

namespace hlo_lsp {

// The SVG id of an instruction's node ("node_" + name) and of a called
// computation's ("computation_" + name): an editor maps a click back.
std::string InstructionNodeId(std::string_view name);
std::string ComputationNodeId(std::string_view name);

struct GraphView {
  RenderGraph picture;
  struct Node {
    std::string name;
    bool computation = false;  // a called computation, not an instruction
    int64_t line = 0;          // 1-based line of its definition
  };
  std::vector<Node> nodes;
};

// `title` heads the label under the picture (e.g. "ENTRY main").
GraphView ViewGraph(const hlo::ParsedFile& file, const hlo::Graph& graph,
                    const std::string& title);

// The sentence that says a picture is cut ("" when it is not).
std::string CutNote(const hlo::Graph& graph);

}  // namespace hlo_lsp

#endif  // HLO_LSP_SERVER_COMMON_GRAPH_VIEW_H_
