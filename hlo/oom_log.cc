#include "hlo/oom_log.h"

#include <charconv>

#include "base/strings.h"
#include "hlo/buffer_assignment.h"
#include "hlo/opcode.h"
#include "hlo/shape_util.h"

namespace hlo {
namespace {

// The value of `key="..."` in `text` (escapes kept), or "".
std::string QuotedValue(std::string_view text, std::string_view key) {
  size_t at = text.find(key);
  while (at != text.npos && at > 0 && text[at - 1] != ' ' &&
         text[at - 1] != '{') {
    at = text.find(key, at + 1);  // "op_name" inside "deduplicated_name"
  }
  if (at == text.npos) return "";
  size_t begin = at + key.size();
  for (size_t i = begin; i < text.size(); ++i) {
    if (text[i] == '\\') {
      ++i;
    } else if (text[i] == '"') {
      return std::string(text.substr(begin, i - begin));
    }
  }
  return "";
}

// Shapes compare without layouts ("f32[2]{0}" and "f32[2]" are one).
std::string StripLayout(std::string_view s) {
  std::string out;
  int depth = 0;
  for (char c : s) {
    if (c == '{') {
      ++depth;
    } else if (c == '}') {
      if (depth > 0) --depth;
    } else if (depth == 0) {
      out += c;
    }
  }
  return out;
}

// The shape or any of its tuple elements, recursively, spelled `want`.
bool HasSubshape(const ParsedFile& file, Id shape, const std::string& want) {
  if (shape == kNone) return false;
  if (ShapeToString(file, shape, /*with_layout=*/false) == want) return true;
  const Shape& s = file.shapes[shape];
  for (Id i = s.tuple.begin; i < s.tuple.end(); ++i) {
    if (HasSubshape(file, file.shape_ids[i], want)) return true;
  }
  return false;
}

// Splits the report into lines, also where a log folded it onto one line
// with literal "\n" (an exception message printed with repr()).
std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    size_t lit = text.find("\\n");
    size_t cut = std::min(nl, lit);
    lines.push_back(text.substr(0, cut));
    if (cut == text.npos) break;
    text.remove_prefix(cut + (cut == nl ? 1 : 2));
  }
  return lines;
}

}  // namespace

bool LooksLikeOomLog(std::string_view text) {
  return text.find("BufferAssignment OOM Debugging") != text.npos ||
         (text.find("Peak buffers:") != text.npos &&
          text.find("XLA Label:") != text.npos);
}

OomLog ReadOomLog(std::string_view text) {
  OomLog log;
  uint32_t number = 0;
  // Physical line numbers even where literal "\n"s split one line.
  const char* base = text.data();
  uint32_t counted = 0;
  const char* counted_to = base;
  for (std::string_view raw : Lines(text)) {
    for (; counted_to < raw.data(); ++counted_to)
      counted += *counted_to == '\n';
    number = counted + 1;
    std::string_view line = base::TrimLine(raw);
    while (line.substr(0, 2) == "\\t")
      line = base::TrimLine(line.substr(2));  // folded
    size_t at = line.find("trying to allocate ");
    if (at != line.npos && !log.requested) {
      std::string_view rest = line.substr(at + 19);
      // "6291456 bytes." or "2.00GiB." (the dot of "2.00" is no end).
      rest = rest.substr(0, rest.find(' '));
      size_t end = rest.size();
      if (end > 0 && rest[end - 1] == '.') --end;
      log.requested = ParseHumanBytes(rest.substr(0, end));
      continue;
    }
    size_t colon = line.find(" allocation:");
    if (colon != line.npos && log.buffers.empty()) {
      std::string kind(base::TrimLine(line.substr(0, colon)));
      std::string_view value = base::TrimLine(line.substr(colon + 12));
      value = value.substr(0, value.find(' '));
      if (std::optional<int64_t> bytes = ParseHumanBytes(value)) {
        log.stats.emplace_back(kind, *bytes);
      }
      continue;
    }
    if (line.substr(0, 7) == "Buffer " && !line.empty() && line.back() == ':') {
      OomBuffer b;
      std::string_view n = line.substr(7, line.size() - 8);
      std::from_chars(n.data(), n.data() + n.size(), b.number);
      b.line = number;
      log.buffers.push_back(std::move(b));
      continue;
    }
    if (log.buffers.empty()) continue;
    OomBuffer& b = log.buffers.back();
    if (line.substr(0, 5) == "Size:") {
      b.size_text = std::string(base::TrimLine(line.substr(5)));
      b.size = ParseHumanBytes(b.size_text).value_or(0);
    } else if (line.substr(0, 9) == "Operator:") {
      b.op_name = QuotedValue(line, "op_name=\"");
    } else if (line.substr(0, 10) == "XLA Label:") {
      b.label = std::string(base::TrimLine(line.substr(10)));
    } else if (line.substr(0, 6) == "Shape:") {
      b.shape = std::string(base::TrimLine(line.substr(6)));
    } else if (line.substr(0, 25) == "Entry Parameter Subshape:") {
      b.shape = std::string(base::TrimLine(line.substr(25)));
      b.entry_parameter = true;
    }
  }
  return log;
}

std::vector<Id> MatchOomBuffer(const ParsedFile& file,
                               const OomBuffer& buffer) {
  const std::string shape = StripLayout(buffer.shape);
  // Tiers, best first: everything the log says; without op_name (a value
  // XLA made that kept no metadata); op_name and label without the shape.
  for (int tier = 0; tier < 3; ++tier) {
    const bool use_op_name = !buffer.op_name.empty() && tier != 1;
    const bool use_shape = tier != 2 && !shape.empty();
    if (tier == 1 && buffer.op_name.empty()) continue;
    if (tier == 2 && (buffer.op_name.empty() || buffer.entry_parameter)) break;
    std::vector<Id> found;
    for (Id i = 0; i < file.instructions.size(); ++i) {
      const Instruction& inst = file.instructions[i];
      if (inst.name.empty() || inst.is_nested) continue;
      if (buffer.entry_parameter) {
        if (inst.opcode != Opcode::kParameter || inst.computation == kNone ||
            !file.computations[inst.computation].is_entry) {
          continue;
        }
      } else if (!buffer.label.empty() &&
                 file.Text(inst.opcode_span) != buffer.label) {
        continue;
      }
      if (use_shape && !HasSubshape(file, inst.shape, shape)) continue;
      if (use_op_name) {
        const Attribute* metadata = file.FindAttribute(inst, "metadata");
        if (metadata == nullptr ||
            QuotedValue(file.Text(metadata->value), "op_name=\"") !=
                buffer.op_name) {
          continue;
        }
      }
      found.push_back(i);
    }
    if (!found.empty()) return found;
  }
  return {};
}

}  // namespace hlo
