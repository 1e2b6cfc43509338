// Which instructions and edges a dataflow picture of a computation shows:
// the whole computation, or the neighbourhood of one instruction within N
// edges either way, cut at a node limit. Pure selection on the ParsedFile;
// laying it out is the caller's business (server/common/graph_render.h).
#ifndef HLO_LSP_HLO_GRAPH_H_
#define HLO_LSP_HLO_GRAPH_H_

#include <cstddef>
#include <vector>

#include "hlo/syntax.h"

namespace hlo {

struct GraphOptions {
  Id computation = kNone;  // required
  Id around = kNone;       // an instruction of it; kNone: the whole of it
  int depth = 2;           // edges either way from `around`
  size_t max_nodes = 500;
};

// operand -> user, both instruction ids among the nodes.
struct GraphEdge {
  Id from = kNone;
  Id to = kNone;
  int operand_index = 0;  // position among the user's operands
};

// An instruction among the nodes that calls a computation (to_apply=,
// calls=, body=...): the picture draws it as a dashed edge from the callee.
struct GraphCall {
  Id instruction = kNone;
  Id ref = kNone;  // into ParsedFile::computation_refs
};

struct Graph {
  std::vector<Id> nodes;  // instruction ids in text order (nested excluded)
  std::vector<GraphEdge> edges;  // in order of the users' operands
  std::vector<GraphCall> calls;
  size_t candidates = 0;  // nodes before the cut
  bool cut() const { return nodes.size() < candidates; }
};

// The nodes nearest `around` (breadth first over operands and users) or,
// for a whole computation, nearest its root (over operands, then the
// instructions the root does not reach, in text order) are the ones kept
// when there are more than max_nodes.
Graph SelectGraph(const ParsedFile& file, const GraphOptions& options);

}  // namespace hlo

#endif  // HLO_LSP_HLO_GRAPH_H_
