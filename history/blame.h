// Blame for an instruction: after which pass of the module's timeline it
// first appeared and which pass last changed it, folded from the diffs of
// consecutive dumps (history/timeline.h), following renames.
#ifndef HLO_LSP_HISTORY_BLAME_H_
#define HLO_LSP_HISTORY_BLAME_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "absl/container/flat_hash_map.h"
#include "history/timeline.h"

namespace hlo::history {

struct InstructionBlame {
  size_t first_seen = 0;    // index into the timeline; 0: in the first dump
  size_t last_changed = 0;  // the last step that added, renamed or changed it
};

class Blame {
 public:
  // `steps` built with keep_diffs; the dump blamed is steps[count - 1].
  Blame(const std::vector<TimelineStep>& steps, size_t count);

  // The blame of an instruction of the dump blamed.
  InstructionBlame Of(std::string_view computation,
                      std::string_view name) const;

 private:
  static std::string Key(std::string_view computation, std::string_view name);

  absl::flat_hash_map<std::string, InstructionBlame> instructions_;
  // Computations added after the first dump: their instructions are not
  // listed one by one in a diff.
  absl::flat_hash_map<std::string, size_t> computations_;
};

}  // namespace hlo::history

#endif  // HLO_LSP_HISTORY_BLAME_H_
