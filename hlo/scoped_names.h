// Name -> id for one scope at a time (the instructions of a computation, the
// computations of a module): every instruction name is inserted once and
// every operand looked up once, so this table is on the parser's hot path.
// An open-addressing table of spans into the text, reused across scopes:
// NewScope empties it slot by slot (the slots it filled) when the scope was
// small, whole otherwise, so probe chains never run through the names of
// earlier scopes and the table stays the size of the largest scope.
#ifndef HLO_LSP_HLO_SCOPED_NAMES_H_
#define HLO_LSP_HLO_SCOPED_NAMES_H_

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <vector>

#include "hlo/span.h"
#include "hlo/text_hash.h"

namespace hlo::internal {

class ScopedNames {
 public:
  void NewScope() {
    if (filled_.size() * 4 < slots_.size()) {
      for (uint32_t i : filled_) slots_[i] = Slot{};
    } else {
      std::fill(slots_.begin(), slots_.end(), Slot{});
    }
    filled_.clear();
  }

  // False when the name is already defined in this scope.
  bool Insert(std::string_view name, Id id) {
    if ((filled_.size() + 1) * 2 > slots_.size()) Grow();
    const uint32_t hash = static_cast<uint32_t>(TextHash()(name));
    const size_t mask = slots_.size() - 1;
    size_t i = hash & mask;
    for (; slots_[i].id != kNone; i = (i + 1) & mask) {
      if (Matches(slots_[i], hash, name)) return false;
    }
    slots_[i] = Slot{name.data(), static_cast<uint32_t>(name.size()), hash, id};
    filled_.push_back(static_cast<uint32_t>(i));
    return true;
  }

  Id Find(std::string_view name) const {
    if (slots_.empty()) return kNone;
    const uint32_t hash = static_cast<uint32_t>(TextHash()(name));
    const size_t mask = slots_.size() - 1;
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
      const Slot& slot = slots_[i];
      if (slot.id == kNone) return kNone;
      if (Matches(slot, hash, name)) return slot.id;
    }
  }

 private:
  struct Slot {
    const char* data = nullptr;
    uint32_t size = 0;
    uint32_t hash = 0;
    Id id = kNone;  // kNone: empty
  };

  static bool Matches(const Slot& slot, uint32_t hash, std::string_view name) {
    return slot.hash == hash && slot.size == name.size() &&
           TextEq()(std::string_view(slot.data, slot.size), name);
  }

  // Doubles the table (at least 16 slots), keeping the scope's entries.
  void Grow() {
    std::vector<Slot> old;
    old.swap(slots_);
    slots_.assign(std::max<size_t>(old.size() * 2, 16), Slot{});
    const size_t mask = slots_.size() - 1;
    filled_.clear();
    for (const Slot& slot : old) {
      if (slot.id == kNone) continue;
      size_t i = slot.hash & mask;
      while (slots_[i].id != kNone) i = (i + 1) & mask;
      slots_[i] = slot;
      filled_.push_back(static_cast<uint32_t>(i));
    }
  }

  std::vector<Slot> slots_;       // a power of two in size, or empty
  std::vector<uint32_t> filled_;  // the slots this scope filled
};

}  // namespace hlo::internal

#endif  // HLO_LSP_HLO_SCOPED_NAMES_H_
