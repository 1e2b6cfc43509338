// hlo.graph {uri, name?, depth?}: `hlo-lsp graph` for the editor. The SVG
// ids (node_NAME) and each node's line let a webview map a click to the
// definition; a name picks the neighbourhood of that instruction, searched
// in the first module's computations (ENTRY first).
#include "hlo/graph.h"

#include <string>

#include "hlo/query.h"
#include "server/common/graph_view.h"
#include "server/features/workspace_features.h"

namespace hlo_lsp {
namespace {

constexpr size_t kMaxGraphNodes = 500;  // the CLI's --max-nodes default

// `name`'s instruction, in ENTRY first, then the other computations.
hlo::Id FindNamed(const hlo::ParsedFile& file, std::string_view name,
                  hlo::Id* computation) {
  if (file.modules.empty()) return hlo::kNone;
  const hlo::Module& module = file.modules[0];
  if (module.entry != hlo::kNone) {
    hlo::Id id = hlo::FindInstruction(file, module.entry, name);
    if (id != hlo::kNone) {
      *computation = module.entry;
      return id;
    }
  }
  for (hlo::Id c = module.computations.begin; c < module.computations.end();
       ++c) {
    hlo::Id id = hlo::FindInstruction(file, c, name);
    if (id != hlo::kNone) {
      *computation = c;
      return id;
    }
  }
  return hlo::kNone;
}

}  // namespace

Result<GraphReply> GraphOf(const Snapshot& snap, const GraphArgs& args) {
  const hlo::ParsedFile& file = *snap.file;
  if (file.modules.empty() || file.modules[0].entry == hlo::kNone) {
    return RequestFailed("no ENTRY computation in " + snap.uri);
  }
  hlo::GraphOptions options;
  options.computation = file.modules[0].entry;
  options.depth = args.depth;
  options.max_nodes = kMaxGraphNodes;
  std::string name = args.name;
  if (!name.empty() && name[0] == '%') name.erase(0, 1);
  if (!name.empty()) {
    options.around = FindNamed(file, name, &options.computation);
    if (options.around == hlo::kNone) {
      return RequestFailed("no instruction " + name + " in " + snap.uri);
    }
  }
  const hlo::Computation& computation = file.computations[options.computation];
  std::string title = std::string(computation.is_entry ? "ENTRY " : "") +
                      std::string(file.Name(computation));
  if (!name.empty()) {
    title += ": within " + std::to_string(args.depth) + " edges of " + name;
  }
  hlo::Graph graph = hlo::SelectGraph(file, options);
  GraphView view = ViewGraph(file, graph, title);
  absl::StatusOr<std::string> svg = Render(view.picture, RenderFormat::kSvg);
  if (!svg.ok()) return RequestFailed(std::string(svg.status().message()));
  GraphReply reply;
  reply.svg = std::move(*svg);
  reply.cut = graph.cut();
  for (const GraphView::Node& node : view.nodes) {
    reply.nodes.push_back(
        GraphNodeEntry{node.name, node.line, node.computation});
  }
  return reply;
}

}  // namespace hlo_lsp
