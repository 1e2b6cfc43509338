// Name -> id for one scope at a time (the instructions of a computation, the
// computations of a module): every instruction name is inserted once and
// every operand looked up once, so this table is on the parser's hot path.
// An open-addressing table of spans into the text, reused across scopes
// without clearing: an entry counts only when its generation is the current
// one. Stale entries are overwritten by later scopes and dropped when the
// table grows, so it stays the size of the largest scopes, not of the file.
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
  void NewScope() { ++generation_; }

  // False when the name is already defined in this scope.
  bool Insert(std::string_view name, Id id) {
    if ((used_ + 1) * 2 > slots_.size()) Grow();
    const uint32_t hash = static_cast<uint32_t>(TextHash()(name));
    const size_t mask = slots_.size() - 1;
    size_t reuse = kNoSlot;
    size_t i = hash & mask;
    for (;; i = (i + 1) & mask) {
      Slot& slot = slots_[i];
      if (slot.generation == 0) break;  // end of the chain: not present
      if (Matches(slot, hash, name)) {
        if (slot.generation == generation_) return false;
        slot.generation = generation_;
        slot.id = id;
        return true;
      }
      if (reuse == kNoSlot && slot.generation != generation_) reuse = i;
    }
    if (reuse == kNoSlot) {
      reuse = i;
      ++used_;
    }
    slots_[reuse] = Slot{name.data(), static_cast<uint32_t>(name.size()), hash,
                         generation_, id};
    return true;
  }

  Id Find(std::string_view name) const {
    if (slots_.empty()) return kNone;
    const uint32_t hash = static_cast<uint32_t>(TextHash()(name));
    const size_t mask = slots_.size() - 1;
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
      const Slot& slot = slots_[i];
      if (slot.generation == 0) return kNone;
      if (Matches(slot, hash, name)) {
        return slot.generation == generation_ ? slot.id : kNone;
      }
    }
  }

 private:
  static constexpr size_t kNoSlot = ~size_t{0};
  struct Slot {
    const char* data = nullptr;
    uint32_t size = 0;
    uint32_t hash = 0;
    uint32_t generation = 0;  // 0: empty
    Id id = kNone;
  };

  static bool Matches(const Slot& slot, uint32_t hash, std::string_view name) {
    return slot.hash == hash && slot.size == name.size() &&
           std::string_view(slot.data, slot.size) == name;
  }

  // Keeps the current scope's entries only, at most a quarter full after;
  // never shrinks, so that small scopes after a big one do not regrow it.
  void Grow() {
    std::vector<Slot> old;
    old.swap(slots_);
    size_t live = 0;
    for (const Slot& slot : old) live += slot.generation == generation_;
    size_t capacity = std::max<size_t>(old.size(), 16);
    while (capacity < 4 * (live + 1)) capacity *= 2;
    slots_.assign(capacity, Slot{});
    used_ = 0;
    const size_t mask = capacity - 1;
    for (const Slot& slot : old) {
      if (slot.generation != generation_) continue;
      size_t i = slot.hash & mask;
      while (slots_[i].generation != 0) i = (i + 1) & mask;
      slots_[i] = slot;
      ++used_;
    }
  }

  std::vector<Slot> slots_;  // a power of two in size, or empty
  size_t used_ = 0;          // slots not empty, stale ones included
  uint32_t generation_ = 1;
};

}  // namespace hlo::internal

#endif  // HLO_LSP_HLO_SCOPED_NAMES_H_
