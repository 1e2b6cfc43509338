// textDocument/foldingRange: computations, multi-line instructions and
// attribute blocks, and the module header (stack-frame tables).
#include "server/features/features.h"

namespace hlo_lsp {
namespace {

void AddFold(const hlo::ParsedFile& file, hlo::Span span, const char* kind,
             std::vector<FoldingRange>* out) {
  if (span.empty()) return;
  uint32_t first = file.lines().LineOf(span.begin);
  uint32_t last =
      file.lines().LineOf(span.end > span.begin ? span.end - 1 : span.end);
  if (last > first) out->push_back(FoldingRange{first, last, kind});
}

}  // namespace

std::vector<FoldingRange> FoldingRanges(const Snapshot& snap) {
  const hlo::ParsedFile& file = *snap.file;
  std::vector<FoldingRange> out;
  for (const hlo::Module& mod : file.modules) {
    if (mod.computations.count > 0) {
      hlo::Offset first = file.computations[mod.computations.begin].span.begin;
      if (first > mod.span.begin) {
        // The header and its tables, up to the line before the first
        // computation.
        AddFold(file, hlo::Span{mod.span.begin, first - 1}, "region", &out);
      }
    }
  }
  for (const hlo::Computation& comp : file.computations) {
    AddFold(file, comp.span, "region", &out);
    for (hlo::Id i = comp.instructions.begin; i < comp.instructions.end();
         ++i) {
      const hlo::Instruction& inst = file.instructions[i];
      if (inst.is_nested) continue;
      AddFold(file, inst.span, "", &out);
      for (hlo::Id a = inst.attributes.begin; a < inst.attributes.end(); ++a) {
        AddFold(file, file.attributes[a].span, "", &out);
      }
    }
  }
  return out;
}

}  // namespace hlo_lsp
