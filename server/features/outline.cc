// textDocument/documentSymbol: module -> computations -> instructions.
#include <string>
#include <vector>

#include "hlo/query.h"
#include "hlo/shape_inference.h"
#include "hlo/shape_util.h"
#include "server/features/features.h"

namespace hlo_lsp {
namespace {

// Fusion kind per computation (from the `kind=` of a fusion calling it).
std::vector<std::string_view> FusionKinds(const hlo::ParsedFile& file) {
  std::vector<std::string_view> kinds(file.computations.size());
  for (const hlo::ComputationRef& ref : file.computation_refs) {
    if (ref.computation >= kinds.size() ||
        ref.instruction >= file.instructions.size()) {
      continue;
    }
    const hlo::Instruction& inst = file.instructions[ref.instruction];
    if (inst.opcode != hlo::Opcode::kFusion) continue;
    if (const hlo::Attribute* kind = file.FindAttribute(inst, "kind")) {
      kinds[ref.computation] = file.Text(kind->value);
    }
  }
  return kinds;
}

DocumentSymbol InstructionSymbol(const Snapshot& snap, hlo::Id i) {
  const hlo::ParsedFile& file = *snap.file;
  const hlo::Instruction& inst = file.instructions[i];
  DocumentSymbol sym;
  sym.name = file.Text(inst.name);
  sym.kind = inst.opcode == hlo::Opcode::kParameter  ? SymbolKind::kField
             : inst.opcode == hlo::Opcode::kConstant ? SymbolKind::kConstant
                                                     : SymbolKind::kVariable;
  std::string_view opcode = file.Text(inst.opcode_span);
  sym.detail.reserve(opcode.size() + 32);
  sym.detail.append(opcode);
  if (hlo::IsInferredShape(file, inst.shape)) {
    // Not written: the parser's inferred shape, printed.
    sym.detail.push_back(' ');
    sym.detail.append(hlo::ShapeToString(file, inst.shape));
  } else if (inst.shape != hlo::kNone && inst.shape < file.shapes.size()) {
    sym.detail.push_back(' ');
    sym.detail.append(file.Text(file.shapes[inst.shape].span));
  }
  if (inst.is_root) sym.detail.insert(0, "ROOT ");
  sym.range = snap.ToRange(inst.span);
  sym.selection_range = snap.ToRange(inst.name);
  return sym;
}

}  // namespace

std::vector<DocumentSymbol> DocumentSymbols(const Snapshot& snap) {
  const hlo::ParsedFile& file = *snap.file;
  size_t top_level = file.instructions.size();
  for (const hlo::Instruction& inst : file.instructions) {
    if (inst.is_nested) --top_level;
  }
  const bool with_instructions =
      file.modules.size() + file.computations.size() + top_level <
      kMaxOutlineSymbols;
  const std::vector<std::string_view> fusion_kinds = FusionKinds(file);

  auto computation_symbol = [&](hlo::Id c) {
    const hlo::Computation& comp = file.computations[c];
    DocumentSymbol sym;
    sym.name = file.Text(comp.name);
    sym.kind = SymbolKind::kFunction;
    if (comp.is_entry) sym.detail = "ENTRY";
    if (!fusion_kinds[c].empty()) {
      if (!sym.detail.empty()) sym.detail += ", ";
      sym.detail += "fusion ";
      sym.detail += fusion_kinds[c];
    }
    size_t count = 0;
    for (hlo::Id i = comp.instructions.begin; i < comp.instructions.end();
         ++i) {
      if (!file.instructions[i].is_nested) ++count;
    }
    if (!with_instructions) {
      if (!sym.detail.empty()) sym.detail += ", ";
      sym.detail += std::to_string(count) + " instructions";
    } else {
      sym.children.reserve(count);
      for (hlo::Id i = comp.instructions.begin; i < comp.instructions.end();
           ++i) {
        if (!file.instructions[i].is_nested) {
          sym.children.push_back(InstructionSymbol(snap, i));
        }
      }
    }
    sym.range = snap.ToRange(comp.span);
    sym.selection_range =
        snap.ToRange(comp.name.empty() ? comp.span : comp.name);
    return sym;
  };

  std::vector<DocumentSymbol> out;
  if (file.modules.empty()) {
    for (hlo::Id c = 0; c < file.computations.size(); ++c) {
      out.push_back(computation_symbol(c));
    }
    return out;
  }
  for (hlo::Id m = 0; m < file.modules.size(); ++m) {
    const hlo::Module& mod = file.modules[m];
    DocumentSymbol sym;
    sym.name = mod.name.empty() ? std::string("module")
                                : std::string(file.Text(mod.name));
    sym.kind = SymbolKind::kModule;
    sym.detail = std::to_string(mod.computations.count) + " computations";
    sym.range = snap.ToRange(mod.span);
    sym.selection_range = snap.ToRange(
        mod.name.empty() ? hlo::Span{mod.span.begin, mod.span.begin}
                         : mod.name);
    sym.children.reserve(mod.computations.count);
    for (hlo::Id c = mod.computations.begin; c < mod.computations.end(); ++c) {
      sym.children.push_back(computation_symbol(c));
    }
    out.push_back(std::move(sym));
  }
  return out;
}

}  // namespace hlo_lsp
