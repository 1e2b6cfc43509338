#include "server/common/graph_view.h"

#include <string_view>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "hlo/opcode.h"
#include "hlo/shape_util.h"

namespace hlo_lsp {
namespace {

using hlo::Opcode;

struct Colors {
  const char* fill;
  const char* stroke;
  const char* font;
};

// XLA's NodeColorsForScheme (hlo_graph_dumper.cc), by scheme name.
constexpr Colors kWhite{"white", "#9e9e9e", "black"};
constexpr Colors kBrown{"#bcaaa4", "#8c7b75", "black"};
constexpr Colors kDarkBlue{"#1565c0", "#003c8f", "white"};
constexpr Colors kDarkGreen{"#2e7d32", "#005005", "white"};
constexpr Colors kGray{"#cfd8dc", "#9ea7aa", "black"};
constexpr Colors kGreen{"#c8e6c9", "#97b498", "black"};
constexpr Colors kOrange{"#ffe0b2", "#cbae82", "black"};
constexpr Colors kPurple{"#e1bee7", "#af8eb5", "black"};
constexpr Colors kRed{"#ffcdd2", "#cb9ca1", "black"};
constexpr Colors kYellow{"#fff9c4", "#cbc693", "black"};

// XLA's GetInstructionColor: async wrappers take the wrapped op's colour.
Colors ColorOf(const hlo::Instruction& inst) {
  Opcode op = inst.wrapped_opcode != Opcode::kUnknown ? inst.wrapped_opcode
                                                      : inst.opcode;
  switch (op) {
    case Opcode::kBroadcast:
    case Opcode::kDynamicUpdateSlice:
      return kYellow;
    case Opcode::kConcatenate:
    case Opcode::kDynamicSlice:
    case Opcode::kReshape:
    case Opcode::kDynamicReshape:
    case Opcode::kReverse:
    case Opcode::kTranspose:
    case Opcode::kCopy:
    case Opcode::kCopyStart:
    case Opcode::kCopyDone:
      return kGreen;
    case Opcode::kConvolution:
    case Opcode::kDot:
    case Opcode::kRaggedDot:
    case Opcode::kScaledDot:
    case Opcode::kFft:
    case Opcode::kTriangularSolve:
    case Opcode::kCholesky:
      return kDarkBlue;
    case Opcode::kParameter:
      return kOrange;
    case Opcode::kBatchNormGrad:
    case Opcode::kBatchNormInference:
    case Opcode::kBatchNormTraining:
    case Opcode::kReduce:
    case Opcode::kReduceWindow:
    case Opcode::kScatter:
    case Opcode::kSelectAndScatter:
    case Opcode::kGather:
      return kPurple;
    case Opcode::kReducePrecision:
      return kRed;
    case Opcode::kDomain:
    case Opcode::kFusion:
    case Opcode::kMap:
    case Opcode::kGetDimensionSize:
    case Opcode::kSetDimensionSize:
      return kGray;
    case Opcode::kAllGather:
    case Opcode::kAllGatherStart:
    case Opcode::kAllGatherDone:
    case Opcode::kAllReduce:
    case Opcode::kAllReduceStart:
    case Opcode::kAllReduceDone:
    case Opcode::kReduceScatter:
    case Opcode::kAllToAll:
    case Opcode::kRaggedAllToAll:
    case Opcode::kCollectiveBroadcast:
    case Opcode::kCollectivePermute:
    case Opcode::kCollectivePermuteStart:
    case Opcode::kCollectivePermuteDone:
    case Opcode::kCrossReplicaSum:
    case Opcode::kInfeed:
    case Opcode::kOutfeed:
    case Opcode::kPartitionId:
    case Opcode::kReplicaId:
    case Opcode::kRecv:
    case Opcode::kRecvDone:
    case Opcode::kSend:
    case Opcode::kSendDone:
      return kBrown;
    case Opcode::kCall:
    case Opcode::kConditional:
    case Opcode::kCustomCall:
    case Opcode::kWhile:
      return kDarkGreen;
    default:  // elementwise, constants, tuples: XLA's kWhite
      return kWhite;
  }
}

// XLA cuts a shape in a node at 64 characters.
std::string ShortShape(const hlo::ParsedFile& file, hlo::Id shape) {
  if (shape == hlo::kNone) return "";
  std::string text = hlo::ShapeToString(file, shape, /*with_layout=*/false);
  if (text.size() > 64) text = text.substr(0, 61) + "...";
  return text;
}

std::string Label(const hlo::ParsedFile& file, const hlo::Instruction& inst) {
  std::string opcode(file.Text(inst.opcode_span));
  if (inst.opcode == Opcode::kFusion) {
    if (const hlo::Attribute* kind = file.FindAttribute(inst, "kind")) {
      opcode += ":" + std::string(file.Text(kind->value));
    }
  }
  std::string label = absl::StrCat("<b>", HtmlEscape(file.Name(inst)),
                                   "</b><br/>", HtmlEscape(opcode));
  std::string shape = ShortShape(file, inst.shape);
  if (!shape.empty()) absl::StrAppend(&label, "<br/>", HtmlEscape(shape));
  return label;
}

int64_t LineOf(const hlo::ParsedFile& file, hlo::Span span) {
  return static_cast<int64_t>(file.lines().LineOf(span.begin)) + 1;
}

}  // namespace

std::string InstructionNodeId(std::string_view name) {
  return "node_" + std::string(name);
}
std::string ComputationNodeId(std::string_view name) {
  return "computation_" + std::string(name);
}

std::string CutNote(const hlo::Graph& graph) {
  if (!graph.cut()) return "";
  return absl::StrCat("cut: ", graph.nodes.size(), " of ", graph.candidates,
                      " instructions shown (--max-nodes)");
}

GraphView ViewGraph(const hlo::ParsedFile& file, const hlo::Graph& graph,
                    const std::string& title) {
  GraphView view;
  RenderGraph& picture = view.picture;
  picture.html_label = HtmlEscape(title);
  if (graph.cut()) {
    absl::StrAppend(&picture.html_label, "<br/><b>", HtmlEscape(CutNote(graph)),
                    "</b>");
  }
  for (hlo::Id id : graph.nodes) {
    const hlo::Instruction& inst = file.instructions[id];
    Colors colors = ColorOf(inst);
    RenderNode node;
    node.id = InstructionNodeId(file.Name(inst));
    node.html_label = Label(file, inst);
    node.fill = colors.fill;
    node.stroke = colors.stroke;
    node.font = colors.font;
    if (inst.opcode == Opcode::kWhile) node.shape = "ellipse";  // as XLA
    picture.nodes.push_back(std::move(node));
    view.nodes.push_back(GraphView::Node{std::string(file.Name(inst)), false,
                                         LineOf(file, inst.span)});
  }
  for (const hlo::GraphEdge& e : graph.edges) {
    picture.edges.push_back(RenderEdge{
        InstructionNodeId(file.Name(file.instructions[e.from])),
        InstructionNodeId(file.Name(file.instructions[e.to])), "", ""});
  }
  absl::flat_hash_set<std::string> callees;
  for (const hlo::GraphCall& call : graph.calls) {
    const hlo::ComputationRef& ref = file.computation_refs[call.ref];
    std::string name(file.Text(ref.name));
    std::string id = ComputationNodeId(name);
    if (callees.insert(name).second) {
      RenderNode node;
      node.id = id;
      node.html_label = absl::StrCat("<i>", HtmlEscape(name), "</i>");
      node.style = "rounded,dashed";
      node.stroke = "#757575";
      node.font = "#424242";
      picture.nodes.push_back(std::move(node));
      int64_t line =
          ref.computation == hlo::kNone
              ? 0
              : LineOf(file, file.computations[ref.computation].span);
      view.nodes.push_back(GraphView::Node{name, true, line});
    }
    std::string key;  // e.g. "to_apply": says how it is called
    if (ref.attribute != hlo::kNone) {
      key = file.Text(file.attributes[ref.attribute].key);
    }
    picture.edges.push_back(RenderEdge{
        id, InstructionNodeId(file.Name(file.instructions[call.instruction])),
        "dashed", key});
  }
  return view;
}

}  // namespace hlo_lsp
