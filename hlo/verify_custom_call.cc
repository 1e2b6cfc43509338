// custom-call rules of XLA's parser: as many operand_layout_constraints as
// operands; api_version=API_VERSION_UNSPECIFIED is rejected by today's XLA
// (older dumps print it, so only when the options ask for today's rules).
#include <string_view>

#include "base/strings.h"
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
