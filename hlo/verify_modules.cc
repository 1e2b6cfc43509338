// The file as a whole. XLA's parser takes a module, or one bare instruction
// (ParseSingleInstruction); text with neither (empty, or only comments) is
// an error there, so it is one here.
#include "hlo/verify_internal.h"

namespace hlo::verify_internal {

void CheckModules(const Findings& f) {
  const ParsedFile& file = f.file;
  if (!file.instructions.empty() || !file.computations.empty()) return;
  for (const Module& m : file.modules) {
    if (m.has_header) return;  // a header alone is the parser's business
  }
  if (file.HasErrors()) return;  // garbage already has its syntax error
  f.Error(Span{0, 0},
          "expects an HLO module or instruction, the text is empty");
}

}  // namespace hlo::verify_internal
