// textDocument/inlayHint: the shape of each operand at its use, where the
// text does not write it (short-form dumps print bare names).
#include "hlo/query.h"
#include "hlo/shape_util.h"
#include "server/features/features.h"

namespace hlo_lsp {

std::vector<InlayHint> InlayHints(const Snapshot& snap, Range range) {
  const hlo::ParsedFile& file = *snap.file;
  hlo::Span window{snap.ToOffset(range.start), snap.ToOffset(range.end)};
  std::vector<InlayHint> out;
  hlo::Slice comps = hlo::ComputationsOverlapping(file, window);
  for (hlo::Id c = comps.begin; c < comps.end(); ++c) {
    const hlo::Computation& comp = file.computations[c];
    for (hlo::Id i = comp.instructions.begin; i < comp.instructions.end();
         ++i) {
      const hlo::Instruction& inst = file.instructions[i];
      if (inst.span.end < window.begin || inst.span.begin > window.end)
        continue;
      for (hlo::Id o = inst.operands.begin; o < inst.operands.end(); ++o) {
        const hlo::Operand& op = file.operands[o];
        if (op.name.empty() || op.shape != hlo::kNone ||
            op.definition >= file.instructions.size() ||
            !window.Touches(op.name.begin)) {
          continue;
        }
        hlo::Id shape = file.instructions[op.definition].shape;
        if (shape == hlo::kNone || shape >= file.shapes.size()) continue;
        // Point at the '%' when there is one, as the long form prints it.
        hlo::Offset at = op.span.begin;
        out.push_back(InlayHint{snap.ToPosition(at),
                                hlo::ShapeToString(file, shape, false), true});
        if (out.size() >= kMaxInlayHints) return out;
      }
    }
  }
  return out;
}

}  // namespace hlo_lsp
