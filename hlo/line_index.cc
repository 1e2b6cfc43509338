#include "hlo/line_index.h"

#include <algorithm>
#include <bit>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace hlo {

LineIndex::LineIndex(std::string_view text) : text_(text) {
  starts_.reserve(text.size() / 40 + 1);
  starts_.push_back(0);
  // One pass finds the line starts and whether any byte has the high bit
  // set: 16 bytes at a time where SSE2 is there (x86-64 always), which
  // costs less than a memchr call per line plus a second pass.
  const char* base = text.data();
  const size_t size = text.size();
  size_t i = 0;
  unsigned high = 0;
#if defined(__SSE2__)
  // 64 bytes a round: most rounds hold one line break or none.
  const __m128i newline = _mm_set1_epi8('\n');
  __m128i any = _mm_setzero_si128();
  auto load = [&](size_t at) {
    return _mm_loadu_si128(reinterpret_cast<const __m128i*>(base + at));
  };
  auto breaks = [&](__m128i v) {
    return static_cast<uint64_t>(
        static_cast<uint16_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, newline))));
  };
  for (; i + 64 <= size; i += 64) {
    const __m128i a = load(i), b = load(i + 16), c = load(i + 32),
                  d = load(i + 48);
    any =
        _mm_or_si128(any, _mm_or_si128(_mm_or_si128(a, b), _mm_or_si128(c, d)));
    uint64_t mask =
        breaks(a) | breaks(b) << 16 | breaks(c) << 32 | breaks(d) << 48;
    while (mask != 0) {
      starts_.push_back(static_cast<Offset>(i + std::countr_zero(mask) + 1));
      mask &= mask - 1;
    }
  }
  high = static_cast<unsigned>(_mm_movemask_epi8(any));
#endif
  for (; i < size; ++i) {
    high |= static_cast<unsigned char>(base[i]) & 0x80;
    if (base[i] == '\n') starts_.push_back(static_cast<Offset>(i + 1));
  }
  all_ascii_ = high == 0;
  if (!all_ascii_) {
    non_ascii_.assign(starts_.size(), false);
    for (size_t k = 0; k < text.size(); ++k) {
      if (static_cast<unsigned char>(text[k]) & 0x80) {
        non_ascii_[LineOf(static_cast<Offset>(k))] = true;
        // Skip to the next line: one hit marks the whole line.
        const void* next = std::memchr(text.data() + k, '\n', text.size() - k);
        if (next == nullptr) break;
        k = static_cast<const char*>(next) - text.data();
      }
    }
  }
}

Offset LineIndex::LineStart(uint32_t line) const {
  if (starts_.empty()) return 0;
  if (line >= starts_.size()) return static_cast<Offset>(text_.size());
  return starts_[line];
}

Offset LineIndex::LineEnd(uint32_t line) const {
  if (starts_.empty()) return 0;
  if (line >= starts_.size()) return static_cast<Offset>(text_.size());
  Offset end = line + 1 < starts_.size() ? starts_[line + 1] - 1
                                         : static_cast<Offset>(text_.size());
  if (end > starts_[line] && end <= text_.size() && end > 0 &&
      end - 1 < text_.size() && text_[end - 1] == '\r') {
    --end;
  }
  return end;
}

uint32_t LineIndex::LineOf(Offset offset) const {
  if (starts_.empty()) return 0;
  auto it = std::upper_bound(starts_.begin(), starts_.end(), offset);
  return static_cast<uint32_t>(it - starts_.begin()) - 1;
}

namespace {

// UTF-16 code units of the UTF-8 text [begin, end). Invalid bytes count as
// one unit each (as a replacement character would).
uint32_t Utf16Length(std::string_view text) {
  uint32_t units = 0;
  size_t i = 0;
  while (i < text.size()) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    size_t len = c < 0x80           ? 1
                 : (c >> 5) == 0x6  ? 2
                 : (c >> 4) == 0xE  ? 3
                 : (c >> 3) == 0x1E ? 4
                                    : 1;
    if (i + len > text.size()) len = 1;
    units += len == 4 ? 2 : 1;
    i += len;
  }
  return units;
}

}  // namespace

LineColumn LineIndex::ToLineColumn(Offset offset, ColumnUnit unit) const {
  if (offset > text_.size()) offset = static_cast<Offset>(text_.size());
  uint32_t line = LineOf(offset);
  Offset start = LineStart(line);
  if (unit == ColumnUnit::kUtf8Bytes || LineIsAscii(line)) {
    return {line, offset - start};
  }
  return {line, Utf16Length(text_.substr(start, offset - start))};
}

Offset LineIndex::ToOffset(LineColumn position, ColumnUnit unit) const {
  if (starts_.empty()) return 0;
  if (position.line >= starts_.size()) {
    return static_cast<Offset>(text_.size());
  }
  Offset start = starts_[position.line];
  Offset end = LineEnd(position.line);
  if (unit == ColumnUnit::kUtf8Bytes || LineIsAscii(position.line)) {
    return std::min<Offset>(start + position.column, end);
  }
  uint32_t units = 0;
  Offset i = start;
  while (i < end && units < position.column) {
    unsigned char c = static_cast<unsigned char>(text_[i]);
    Offset len = c < 0x80           ? 1
                 : (c >> 5) == 0x6  ? 2
                 : (c >> 4) == 0xE  ? 3
                 : (c >> 3) == 0x1E ? 4
                                    : 1;
    if (i + len > end) len = 1;
    units += len == 4 ? 2 : 1;
    i += len;
  }
  return i;
}

}  // namespace hlo
