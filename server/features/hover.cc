// textDocument/hover: markdown about the instruction or computation under
// the cursor.
#include <charconv>
#include <string>

#include "hlo/query.h"
#include "hlo/shape_inference.h"
#include "hlo/shape_util.h"
#include "server/features/features.h"

namespace hlo_lsp {
namespace {

constexpr size_t kMaxListed = 20;  // operands / callers shown in full

std::string Code(std::string_view text) {
  // Inline code that survives backticks in the text.
  std::string fence = text.find('`') == std::string_view::npos ? "`" : "``";
  return fence + (fence.size() > 1 ? " " : "") + std::string(text) +
         (fence.size() > 1 ? " " : "") + fence;
}

std::string Truncated(std::string_view text, size_t max = 300) {
  if (text.size() <= max) return std::string(text);
  return std::string(text.substr(0, max)) + "…";
}

std::string WithThousands(int64_t v) {
  std::string digits = std::to_string(v);
  std::string out;
  int n = 0;
  for (auto it = digits.rbegin(); it != digits.rend(); ++it) {
    if (n > 0 && n % 3 == 0 && *it != '-') out.insert(out.begin(), ',');
    out.insert(out.begin(), *it);
    ++n;
  }
  return out;
}

std::string ShapeOf(const hlo::ParsedFile& file, hlo::Id shape) {
  if (shape == hlo::kNone || shape >= file.shapes.size())
    return "(shape not written)";
  return hlo::ShapeToString(file, shape, /*with_layout=*/true);
}

// Where the shape was not written (filled by inference), or where XLA's
// rule gives another one than written: say so after the shape.
std::string InferredShapeNote(const hlo::ParsedFile& file, hlo::Id i) {
  const hlo::Instruction& inst = file.instructions[i];
  if (inst.shape >= file.shapes.size()) return "";
  if (hlo::IsInferredShape(file, inst.shape)) return " (inferred, not written)";
  hlo::Inference inference = hlo::InferShape(file, i);
  std::optional<hlo::InferredShape> declared =
      hlo::ShapeFromFile(file, inst.shape);
  if (!inference.shape || !declared ||
      hlo::ShapesCompatible(*declared, *inference.shape,
                            /*ignore_fp_precision=*/false)) {
    return "";
  }
  return "\n- inferred: " +
         Code(Truncated(hlo::ShapeString(*inference.shape))) +
         " (XLA's shape rule for this op)";
}

std::string InstructionHover(const hlo::ParsedFile& file, hlo::Id i) {
  const hlo::Instruction& inst = file.instructions[i];
  std::string md;
  md += "**%" + std::string(file.Text(inst.name)) +
        "** = " + Code(file.Text(inst.opcode_span));
  if (inst.is_root) md += " (ROOT)";
  if (inst.computation < file.computations.size()) {
    md +=
        " in " +
        Code("%" + std::string(file.Name(file.computations[inst.computation])));
  }
  md += "\n\n";
  md += "Shape: " + Code(Truncated(ShapeOf(file, inst.shape)));
  md += InferredShapeNote(file, i) + "\n";
  if (inst.shape != hlo::kNone && inst.shape < file.shapes.size()) {
    if (auto n = hlo::ElementCount(file, inst.shape)) {
      md += "- elements: " + WithThousands(*n) + "\n";
    }
    if (auto bytes = hlo::ByteSize(file, inst.shape)) {
      md += "- bytes: " + WithThousands(*bytes) + "\n";
    }
  }
  if (inst.operands.count > 0) {
    md += "\nOperands (" + std::to_string(inst.operands.count) + "):\n";
    for (hlo::Id o = inst.operands.begin;
         o < inst.operands.end() && o - inst.operands.begin < kMaxListed; ++o) {
      const hlo::Operand& op = file.operands[o];
      hlo::Id shape = op.shape;
      if (shape == hlo::kNone && op.definition < file.instructions.size()) {
        shape = file.instructions[op.definition].shape;
      }
      if (shape == hlo::kNone && op.nested < file.instructions.size()) {
        shape = file.instructions[op.nested].shape;
      }
      std::string name =
          op.name.empty()
              ? "(nested " +
                    std::string(file.Text(
                        file.instructions[op.nested < file.instructions.size()
                                              ? op.nested
                                              : i]
                            .opcode_span)) +
                    ")"
              : "%" + std::string(file.Text(op.name));
      md += "- " + std::to_string(o - inst.operands.begin) + ": " + Code(name) +
            ": " + Code(Truncated(ShapeOf(file, shape), 120));
      if (!op.name.empty() && op.definition == hlo::kNone) md += " (undefined)";
      md += "\n";
    }
    if (inst.operands.count > kMaxListed) md += "- …\n";
  }
  md += "\nUsers: " + std::to_string(hlo::UserCount(file, i)) + "\n";
  if (const hlo::Attribute* sharding = file.FindAttribute(inst, "sharding")) {
    md += "\nSharding: " + Code(Truncated(file.Text(sharding->value))) + "\n";
  }
  std::string_view op_name = hlo::MetadataField(file, i, "op_name");
  if (!op_name.empty()) md += "\nop_name: " + Code(Truncated(op_name)) + "\n";
  std::string_view source_file = hlo::MetadataField(file, i, "source_file");
  std::string_view source_line = hlo::MetadataField(file, i, "source_line");
  if (!source_file.empty()) {
    md += "\nSource: " +
          Code(std::string(source_file) +
               (source_line.empty() ? "" : ":" + std::string(source_line))) +
          "\n";
  } else {
    std::string_view frame = hlo::MetadataField(file, i, "stack_frame_id");
    int64_t id = 0;
    if (!frame.empty() &&
        std::from_chars(frame.data(), frame.data() + frame.size(), id).ec ==
            std::errc()) {
      hlo::Id module = inst.computation < file.computations.size()
                           ? file.computations[inst.computation].module
                           : hlo::kNone;
      std::string_view fname, func;
      int64_t line = 0;
      if (hlo::StackFrameLocation(file, module, id, &fname, &line, &func)) {
        md += "\nSource: " +
              Code(std::string(fname) + ":" + std::to_string(line));
        if (!func.empty()) md += " in " + Code(func);
        md += "\n";
      }
    }
  }
  return md;
}

std::string ComputationHover(const hlo::ParsedFile& file, hlo::Id c) {
  const hlo::Computation& comp = file.computations[c];
  std::string sig =
      (comp.is_entry ? "ENTRY %" : "%") + std::string(file.Name(comp)) + " (";
  for (hlo::Id p = comp.parameters.begin; p < comp.parameters.end(); ++p) {
    if (p != comp.parameters.begin) sig += ", ";
    sig += std::string(file.Text(file.parameters[p].name)) + ": " +
           ShapeOf(file, file.parameters[p].shape);
  }
  sig += ")";
  if (comp.result_shape != hlo::kNone)
    sig += " -> " + ShapeOf(file, comp.result_shape);
  std::string md = "```hlo\n" + Truncated(sig, 2000) + "\n```\n";
  size_t count = 0;
  for (hlo::Id i = comp.instructions.begin; i < comp.instructions.end(); ++i) {
    if (!file.instructions[i].is_nested) ++count;
  }
  md += "\nInstructions: " + std::to_string(count) + "\n";
  std::vector<hlo::Id> callers = hlo::CallersOf(file, c);
  md += "\nCallers (" + std::to_string(callers.size()) + "):\n";
  for (size_t k = 0; k < callers.size() && k < kMaxListed; ++k) {
    const hlo::ComputationRef& ref = file.computation_refs[callers[k]];
    if (ref.instruction >= file.instructions.size()) continue;
    const hlo::Instruction& inst = file.instructions[ref.instruction];
    std::string key =
        ref.attribute < file.attributes.size()
            ? std::string(file.Text(file.attributes[ref.attribute].key))
            : "";
    md += "- " + Code("%" + std::string(file.Text(inst.name))) + " (" +
          std::string(file.Text(inst.opcode_span)) +
          (key.empty() ? "" : ", " + key) + ")";
    if (inst.computation < file.computations.size()) {
      md += " in " + Code("%" + std::string(file.Name(
                                    file.computations[inst.computation])));
    }
    md += "\n";
  }
  if (callers.size() > kMaxListed) md += "- …\n";
  return md;
}

}  // namespace

std::optional<Hover> HoverAt(const Snapshot& snap, Position position) {
  const hlo::ParsedFile& file = *snap.file;
  hlo::NodeAt node = hlo::FindNodeAt(file, snap.ToOffset(position));
  if (node.kind == hlo::NodeKind::kNone) return std::nullopt;
  Hover hover;
  hover.range = snap.ToRange(node.span);
  if (node.kind == hlo::NodeKind::kModuleName) {
    const hlo::Module& mod = file.modules[node.id];
    hover.markdown =
        "**HloModule** " + Code(file.Text(mod.name)) +
        "\n\nComputations: " + std::to_string(mod.computations.count) + "\n";
    return hover;
  }
  hlo::NodeAt def = hlo::DefinitionOf(file, node);
  if (def.kind == hlo::NodeKind::kInstructionName) {
    hover.markdown = InstructionHover(file, def.id);
  } else if (def.kind == hlo::NodeKind::kComputationName) {
    hover.markdown = ComputationHover(file, def.id);
  } else if (node.kind == hlo::NodeKind::kOperand ||
             node.kind == hlo::NodeKind::kComputationRef ||
             node.kind == hlo::NodeKind::kControlPredecessor) {
    hover.markdown = Code(file.Text(node.span)) + " is not defined";
  } else {
    return std::nullopt;
  }
  return hover;
}

}  // namespace hlo_lsp
