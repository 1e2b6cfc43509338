// origin={...} (an instruction's original value, XLA's VerifyOriginalValue):
// its tuple tree of original arrays must have the leaves of the
// instruction's shape, no more and no fewer. `{[synthetic_call]}` is exempt.
#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "base/strings.h"
#include "hlo/shape_inference.h"
#include "hlo/verify_internal.h"

namespace hlo::verify_internal {
namespace {

using Index = std::vector<int64_t>;

void ShapeLeaves(const InferredShape& s, Index* at, std::set<Index>* out) {
  if (!s.is_tuple()) {
    out->insert(*at);
    return;
  }
  for (size_t i = 0; i < s.tuple.size(); ++i) {
    at->push_back(static_cast<int64_t>(i));
    ShapeLeaves(s.tuple[i], at, out);
    at->pop_back();
  }
}

// The leaf indices of an original value's text (braces included), as XLA's
// parser walks it: '(' opens a level, ',' moves to the next element, ')'
// closes it, and each '{...}' is a leaf. nullopt when it does not read.
std::optional<std::set<Index>> ValueLeaves(std::string_view text) {
  if (text.size() < 2 || text.front() != '{' || text.back() != '}') {
    return std::nullopt;
  }
  text = text.substr(1, text.size() - 2);
  if (text.find("[synthetic_call]") != std::string_view::npos) {
    return std::nullopt;
  }
  std::set<Index> leaves;
  Index at;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '(') {
      at.push_back(0);
    } else if (c == ')') {
      if (at.empty()) return std::nullopt;
      at.pop_back();
    } else if (c == ',') {
      if (at.empty()) return std::nullopt;
      ++at.back();
    } else if (c == '{') {
      // One original array: {"name" {index}}, quotes may hold braces.
      int depth = 0;
      bool quoted = false;
      for (; i < text.size(); ++i) {
        if (text[i] == '\\' && quoted) {
          ++i;
        } else if (text[i] == '"') {
          quoted = !quoted;
        } else if (!quoted && text[i] == '{') {
          ++depth;
        } else if (!quoted && text[i] == '}' && --depth == 0) {
          break;
        }
      }
      if (depth != 0) return std::nullopt;
      leaves.insert(at);
    } else if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
      return std::nullopt;
    }
  }
  return leaves;
}

std::string IndexList(const std::vector<Index>& indices) {
  return absl::StrJoin(indices, ", ", [](std::string* out, const Index& i) {
    base::Append(*out, "{", absl::StrJoin(i, ","), "}");
  });
}

}  // namespace

void CheckOriginalValues(const Findings& f) {
  const ParsedFile& file = f.file;
  if (!AnyAttributeNamed(file, "origin")) return;
  for (const Instruction& inst : file.instructions) {
    const Attribute* origin = file.FindAttribute(inst, "origin");
    if (origin == nullptr) continue;
    std::optional<std::set<Index>> value =
        ValueLeaves(file.Text(origin->value));
    std::optional<InferredShape> shape = ShapeFromFile(file, inst.shape);
    if (!value || !shape) continue;
    std::set<Index> leaves;
    Index at;
    ShapeLeaves(*shape, &at, &leaves);
    if (leaves == *value) continue;
    std::vector<Index> shape_only, value_only;
    std::set_difference(leaves.begin(), leaves.end(), value->begin(),
                        value->end(), std::back_inserter(shape_only));
    std::set_difference(value->begin(), value->end(), leaves.begin(),
                        leaves.end(), std::back_inserter(value_only));
    f.Error(origin->span,
            base::Cat("Mismatched tuple structure in original_value for "
                      "instruction ",
                      file.Name(inst),
                      ". Leaf indices in shape and original_value do not "
                      "match. In shape only: {",
                      IndexList(shape_only), "}. In original_value only: {",
                      IndexList(value_only), "}"));
  }
}

}  // namespace hlo::verify_internal
