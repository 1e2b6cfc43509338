// Offsets <-> line/column. Built once per file with memchr over the buffer;
// columns in UTF-8 bytes or UTF-16 code units (LSP's two encodings).
#ifndef HLO_LSP_HLO_LINE_INDEX_H_
#define HLO_LSP_HLO_LINE_INDEX_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "hlo/span.h"

namespace hlo {

enum class ColumnUnit : uint8_t { kUtf8Bytes, kUtf16CodeUnits };

struct LineColumn {
  uint32_t line = 0;    // 0-based
  uint32_t column = 0;  // 0-based, in the requested unit
};

class LineIndex {
 public:
  LineIndex() = default;
  explicit LineIndex(std::string_view text);

  uint32_t line_count() const { return static_cast<uint32_t>(starts_.size()); }
  Offset LineStart(uint32_t line) const;
  // End of the line's content (before '\n' and a preceding '\r').
  Offset LineEnd(uint32_t line) const;
  uint32_t LineOf(Offset offset) const;

  LineColumn ToLineColumn(Offset offset,
                          ColumnUnit unit = ColumnUnit::kUtf8Bytes) const;
  // Clamps past-the-end columns to the line end and lines to the file end.
  Offset ToOffset(LineColumn position,
                  ColumnUnit unit = ColumnUnit::kUtf8Bytes) const;

 private:
  bool LineIsAscii(uint32_t line) const {
    return all_ascii_ || (line < non_ascii_.size() && !non_ascii_[line]);
  }

  std::string_view text_;
  std::vector<Offset> starts_;
  // UTF-16 columns equal byte columns on ASCII lines (almost every line of
  // a dump), so conversions there cost nothing even on 77,000-byte lines.
  bool all_ascii_ = true;
  std::vector<bool> non_ascii_;  // per line; empty when all_ascii_
};

}  // namespace hlo

#endif  // HLO_LSP_HLO_LINE_INDEX_H_
