// The structural difference of two parsed modules (contracts.md, `diff`):
// computations match by name; instructions match by name, then, among the
// unmatched of one computation, by structure (opcode, shape, operands through
// the match): those are renames. Operands compare through the match, so a
// rename does not make its users "changed".
//
// Pure: no I/O, no threads. Both files (and their buffers) must outlive the
// call; the result owns its strings.
#ifndef HLO_LSP_HLO_DIFF_H_
#define HLO_LSP_HLO_DIFF_H_

#include <cstdint>
#include <string>
#include <vector>

#include "hlo/syntax.h"

namespace hlo {

struct DiffOptions {
  bool metadata = false;  // also compare metadata={...} (field "metadata")
};

// One instruction only in A (removed) or only in B (added).
struct DiffInstruction {
  std::string computation;
  std::string name;
  std::string opcode;  // as written
  std::string shape;   // as written, layout included
  int64_t line = 0;    // 1-based, in the file that holds it
};

struct DiffRename {
  std::string computation;
  std::string from;  // name in A
  std::string to;    // name in B
};

// A field that differs between matched instructions. `name` is the name in
// B (for a renamed instruction, its new name).
struct DiffChange {
  std::string computation;
  std::string name;
  std::string field;  // "shape", "opcode", "operands", "attributes", "metadata"
  std::string old_value;
  std::string new_value;
};

struct ModuleDiff {
  std::vector<DiffInstruction> added;    // in B's order
  std::vector<DiffInstruction> removed;  // in A's order
  std::vector<DiffRename> renamed;
  std::vector<DiffChange> changed;
  std::vector<std::string> computations_added;    // whole computations
  std::vector<std::string> computations_removed;  // (their instructions are
                                                  // not listed one by one)
  bool empty() const {
    return added.empty() && removed.empty() && renamed.empty() &&
           changed.empty() && computations_added.empty() &&
           computations_removed.empty();
  }
};

// Diffs the first module of `a` against the first module of `b` (a file
// without a module diffs as an empty one). Never fails: what did not parse
// is simply absent (callers report the files' own diagnostics).
ModuleDiff DiffModules(const ParsedFile& a, const ParsedFile& b,
                       const DiffOptions& options = {});

}  // namespace hlo

#endif  // HLO_LSP_HLO_DIFF_H_
