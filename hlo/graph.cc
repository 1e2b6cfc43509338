#include "hlo/graph.h"

#include <algorithm>
#include <deque>
#include <utility>

#include "absl/container/flat_hash_map.h"

namespace hlo {
namespace {

bool IsNode(const ParsedFile& file, Id computation, Id id) {
  if (id == kNone || id >= file.instructions.size()) return false;
  const Instruction& inst = file.instructions[id];
  return inst.computation == computation && !inst.is_nested;
}

// Calls `visit(neighbour)` for each operand definition and, when
// `with_users`, each user of `id` inside the computation.
template <typename Visit>
void ForEachNeighbour(const ParsedFile& file, Id computation, Id id,
                      bool with_users, Visit visit) {
  const Instruction& inst = file.instructions[id];
  for (Id o = inst.operands.begin; o < inst.operands.end(); ++o) {
    Id def = file.operands[o].definition;
    if (IsNode(file, computation, def)) visit(def);
  }
  if (!with_users || id + 1 >= file.use_offsets.size()) return;
  for (Id e = file.use_offsets[id]; e < file.use_offsets[id + 1]; ++e) {
    Id user = file.use_edges[e].user;
    if (IsNode(file, computation, user)) visit(user);
  }
}

}  // namespace

Graph SelectGraph(const ParsedFile& file, const GraphOptions& options) {
  Graph graph;
  if (options.computation == kNone ||
      options.computation >= file.computations.size()) {
    return graph;
  }
  const Computation& comp = file.computations[options.computation];
  bool around = IsNode(file, options.computation, options.around);
  // Breadth first from the start: distance decides both the depth limit
  // and which nodes survive the cut.
  absl::flat_hash_map<Id, int> distance;
  std::vector<Id> order;
  std::deque<Id> queue;
  auto reach = [&](Id id, int d) {
    if (distance.try_emplace(id, d).second) {
      order.push_back(id);
      queue.push_back(id);
    }
  };
  Id start = around ? options.around : comp.root;
  if (IsNode(file, options.computation, start)) reach(start, 0);
  while (!queue.empty()) {
    Id id = queue.front();
    queue.pop_front();
    int d = distance[id];
    if (around && d >= options.depth) continue;
    ForEachNeighbour(file, options.computation, id, around,
                     [&](Id next) { reach(next, d + 1); });
  }
  if (!around) {  // dead code and a root-less computation still show
    for (Id i = comp.instructions.begin; i < comp.instructions.end(); ++i) {
      if (IsNode(file, options.computation, i) && !distance.contains(i)) {
        distance.emplace(i, -1);
        order.push_back(i);
      }
    }
  }
  graph.candidates = order.size();
  if (order.size() > options.max_nodes) order.resize(options.max_nodes);
  std::sort(order.begin(), order.end());
  graph.nodes = std::move(order);

  auto kept = [&](Id id) {
    return std::binary_search(graph.nodes.begin(), graph.nodes.end(), id);
  };
  for (Id user : graph.nodes) {
    const Instruction& inst = file.instructions[user];
    for (Id o = inst.operands.begin; o < inst.operands.end(); ++o) {
      Id def = file.operands[o].definition;
      if (IsNode(file, options.computation, def) && kept(def)) {
        graph.edges.push_back(
            GraphEdge{def, user, static_cast<int>(o - inst.operands.begin)});
      }
    }
    for (Id r = inst.called.begin; r < inst.called.end(); ++r) {
      graph.calls.push_back(GraphCall{user, r});
    }
  }
  return graph;
}

}  // namespace hlo
