// Byte ranges into a source buffer. Everything inside hlo/ speaks in byte
// offsets; line/column conversion happens once, at the edges (LineIndex).
#ifndef HLO_LSP_HLO_SPAN_H_
#define HLO_LSP_HLO_SPAN_H_

#include <cstdint>
#include <limits>

namespace hlo {

// Files are limited to 4 GiB - 1 so that offsets fit 32 bits; this halves the
// size of every node in a 100 MB module.
using Offset = uint32_t;

// Index into one of the ParsedFile tables; kNone means "absent/unresolved".
using Id = uint32_t;
inline constexpr Id kNone = std::numeric_limits<Id>::max();

struct Span {
  Offset begin = 0;
  Offset end = 0;  // exclusive

  constexpr Offset size() const { return end - begin; }
  constexpr bool empty() const { return end <= begin; }
  // True when `offset` is inside the span or touches its end (a cursor right
  // after a name still points at it).
  constexpr bool Touches(Offset offset) const {
    return offset >= begin && offset <= end;
  }
  constexpr bool Contains(Offset offset) const {
    return offset >= begin && offset < end;
  }
  friend constexpr bool operator==(Span a, Span b) {
    return a.begin == b.begin && a.end == b.end;
  }
};

// A run of consecutive entries of one table: [begin, begin + count).
struct Slice {
  Id begin = 0;
  Id count = 0;
  constexpr Id end() const { return begin + count; }
  constexpr bool empty() const { return count == 0; }
};

}  // namespace hlo

#endif  // HLO_LSP_HLO_SPAN_H_
