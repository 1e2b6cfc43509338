// custom-call rules of XLA's parser: as many operand_layout_constraints as
// operands, each compatible with its operand's shape;
// api_version=API_VERSION_UNSPECIFIED is rejected by today's XLA (older dumps
// print it, so only when the options ask for today's rules).
#include <algorithm>
#include <charconv>
#include <optional>
#include <string_view>
#include <vector>

#include "base/strings.h"
#include "hlo/shape_inference.h"
#include "hlo/verify_internal.h"

namespace hlo::verify_internal {
namespace {

// Top-level items of "{a, b, ...}" (commas outside nested brackets).
int CountItems(std::string_view braced) {
  int depth = 0, items = 0;
  bool any = false;
  for (char c : braced) {
    if (c == '{' || c == '[' || c == '(') {
      if (depth++ == 0) continue;
    } else if (c == '}' || c == ']' || c == ')') {
      --depth;
    } else if (c == ',' && depth == 1) {
      ++items;
      continue;
    }
    if (depth >= 1 && c != ' ' && c != '\n') any = true;
  }
  return any ? items + 1 : 0;
}

// Top-level items of "{a, b, ...}", trimmed.
std::vector<std::string_view> SplitItems(std::string_view braced) {
  std::vector<std::string_view> items;
  if (braced.size() < 2) return items;
  std::string_view inner = braced.substr(1, braced.size() - 2);
  int depth = 0;
  size_t start = 0;
  auto push = [&](size_t end) {
    std::string_view item = inner.substr(start, end - start);
    while (!item.empty() && (item.front() == ' ' || item.front() == '\n')) {
      item.remove_prefix(1);
    }
    while (!item.empty() && (item.back() == ' ' || item.back() == '\n')) {
      item.remove_suffix(1);
    }
    if (!item.empty()) items.push_back(item);
  };
  for (size_t i = 0; i < inner.size(); ++i) {
    const char c = inner[i];
    if (c == '{' || c == '[' || c == '(') ++depth;
    if (c == '}' || c == ']' || c == ')') --depth;
    if (c == ',' && depth == 0) {
      push(i);
      start = i + 1;
    }
  }
  push(inner.size());
  return items;
}

// "f32[42,2,3]{0,1,2}" as element type and static dimensions; nullopt for
// anything else (tuples, dynamic dimensions), which is not compared.
std::optional<InferredShape> ArrayOf(std::string_view item) {
  const size_t open = item.find('[');
  const size_t close = item.find(']');
  if (open == std::string_view::npos || close == std::string_view::npos ||
      close < open) {
    return std::nullopt;
  }
  std::optional<PrimitiveType> type =
      PrimitiveTypeFromName(item.substr(0, open));
  if (!type) return std::nullopt;
  InferredShape shape;
  shape.element_type = *type;
  std::string_view dims = item.substr(open + 1, close - open - 1);
  while (!dims.empty()) {
    const size_t comma = std::min(dims.find(','), dims.size());
    int64_t d = 0;
    auto [end, ec] = std::from_chars(dims.data(), dims.data() + comma, d);
    if (ec != std::errc() || end != dims.data() + comma) return std::nullopt;
    shape.dims.push_back(d);
    dims.remove_prefix(std::min(comma + 1, dims.size()));
  }
  return shape;
}

// Each constraint fits its operand but for the layout (XLA's parser:
// ShapeUtil::Compatible).
void CheckConstraintShapes(const Findings& f, const Instruction& inst,
                           const Attribute& attr) {
  const ParsedFile& file = f.file;
  const std::vector<std::string_view> items = SplitItems(file.Text(attr.value));
  if (items.size() != inst.operands.count) return;
  for (Id i = 0; i < inst.operands.count; ++i) {
    const Operand& operand = file.operands[inst.operands.begin + i];
    const Id def = operand.Producer();
    if (def == kNone || file.instructions[def].shape == kNone) continue;
    const Id shape_id = file.instructions[def].shape;
    std::optional<InferredShape> have = ShapeFromFile(file, shape_id);
    std::optional<InferredShape> want = ArrayOf(items[i]);
    if (!have || !want || have->is_tuple() || *have == *want) continue;
    f.Error(attr.span, base::Cat("Operand layout constraint shape ", items[i],
                                 " for operand ", i,
                                 " is not compatible with operand "
                                 "shape ",
                                 file.Text(file.shapes[shape_id].span)));
    return;
  }
}

}  // namespace

void CheckCustomCalls(const Findings& f, bool todays_rules) {
  const ParsedFile& file = f.file;
  for (const Instruction& inst : file.instructions) {
    if (inst.opcode != Opcode::kCustomCall) continue;
    if (const Attribute* c =
            file.FindAttribute(inst, "operand_layout_constraints")) {
      const int given = CountItems(file.Text(c->value));
      if (given != static_cast<int>(inst.operands.count)) {
        f.Error(c->span,
                base::Cat("Expected ", inst.operands.count,
                          " operand layout constraints, ", given, " given"));
      } else {
        CheckConstraintShapes(f, inst, *c);
      }
    }
    const Attribute* v = file.FindAttribute(inst, "api_version");
    if (todays_rules && v != nullptr &&
        file.Text(v->value) == "API_VERSION_UNSPECIFIED") {
      f.Error(v->span, "Invalid API version: API_VERSION_UNSPECIFIED");
    }
  }
}

}  // namespace hlo::verify_internal
