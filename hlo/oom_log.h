// XLA's out-of-memory report as users paste it (BufferAssignment::
// ToVerboseString): "Out of memory while trying to allocate N bytes.",
// "BufferAssignment OOM Debugging.", the StatsString lines, then
// "Peak buffers:" with per buffer "Buffer K:", "Size: 1.00GiB",
// "Operator: op_name=\"...\" ...", "XLA Label: fusion", "Shape: f32[..]" or
// "Entry Parameter Subshape: f32[..]". Tabs, spaces, log prefixes and a
// message folded onto one line with literal "\n" all read. Pure text.
#ifndef HLO_LSP_HLO_OOM_LOG_H_
#define HLO_LSP_HLO_OOM_LOG_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hlo/syntax.h"

namespace hlo {

struct OomBuffer {
  int number = 0;  // "Buffer 1"
  int64_t size = 0;
  std::string size_text;  // as printed, "1.00GiB"
  std::string op_name;    // from "Operator:", still C-escaped as printed
  std::string label;      // "XLA Label:" opcode; "" for entry parameters
  std::string shape;      // "Shape:" or "Entry Parameter Subshape:"
  bool entry_parameter = false;
  uint32_t line = 0;  // 1-based line of "Buffer K:"
};

struct OomLog {
  std::optional<int64_t> requested;  // "trying to allocate N bytes"
  // StatsString lines by kind ("parameter", "constant", "maybe_live_out",
  // "preallocated temp", "total"), in bytes as rounded by XLA.
  std::vector<std::pair<std::string, int64_t>> stats;
  std::vector<OomBuffer> buffers;
};

// True when `text` holds XLA's OOM report.
bool LooksLikeOomLog(std::string_view text);
OomLog ReadOomLog(std::string_view text);

// The instructions of `file` a buffer names: op_name (when the log has one)
// equal to the instruction's metadata op_name, the label equal to its
// opcode, the shape equal to its shape or a tuple element's (no layout);
// an entry parameter buffer matches the entry's parameters by shape.
// Best matches only; empty when none fits.
std::vector<Id> MatchOomBuffer(const ParsedFile& file, const OomBuffer& buffer);

}  // namespace hlo

#endif  // HLO_LSP_HLO_OOM_LOG_H_
