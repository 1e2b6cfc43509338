#include "history/blame.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace hlo::history {

std::string Blame::Key(std::string_view computation, std::string_view name) {
  std::string key(computation);
  key += '\n';
  key += name;
  return key;
}

Blame::Blame(const std::vector<TimelineStep>& steps, size_t count) {
  for (size_t k = 1; k < std::min(count, steps.size()); ++k) {
    const ModuleDiff& diff = steps[k].diff;
    for (const std::string& c : diff.computations_removed) {
      computations_.erase(c);
      const std::string prefix = c + '\n';
      absl::erase_if(instructions_, [&](const auto& entry) {
        return std::string_view(entry.first).starts_with(prefix);
      });
    }
    for (const std::string& c : diff.computations_added) computations_[c] = k;
    for (const DiffInstruction& r : diff.removed) {
      instructions_.erase(Key(r.computation, r.name));
    }
    // Renames in two phases: `a -> b` and `b -> c` in one step must not
    // overwrite each other.
    std::vector<std::pair<std::string, InstructionBlame>> moved;
    for (const DiffRename& r : diff.renamed) {
      InstructionBlame blame = Of(r.computation, r.from);
      instructions_.erase(Key(r.computation, r.from));
      blame.last_changed = k;
      moved.emplace_back(Key(r.computation, r.to), blame);
    }
    for (auto& [key, blame] : moved) instructions_[key] = blame;
    for (const DiffInstruction& a : diff.added) {
      instructions_[Key(a.computation, a.name)] = {k, k};
    }
    for (const DiffChange& c : diff.changed) {
      InstructionBlame blame = Of(c.computation, c.name);
      blame.last_changed = k;
      instructions_[Key(c.computation, c.name)] = blame;
    }
  }
}

InstructionBlame Blame::Of(std::string_view computation,
                           std::string_view name) const {
  auto it = instructions_.find(Key(computation, name));
  if (it != instructions_.end()) return it->second;
  auto c = computations_.find(std::string(computation));
  size_t since = c == computations_.end() ? 0 : c->second;
  return {since, since};
}

}  // namespace hlo::history
