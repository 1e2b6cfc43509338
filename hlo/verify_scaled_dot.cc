// scaled-dot(lhs, rhs, lhs_scale, rhs_scale): XLA's ShapeVerifier::
// HandleScaledDot and ScalesShapeVerifier. A scale has its operand's rank,
// divides each of its dimensions, and the operand contracts exactly one
// dimension; a bf16 scale of all-1 dimensions (or a scalar) is a no-op,
// but not both.
#include <optional>
#include <string_view>

#include "base/strings.h"
#include "hlo/attributes.h"
#include "hlo/shape_inference.h"
#include "hlo/verify_internal.h"

namespace hlo::verify_internal {
namespace {

struct Arg {
  std::string_view name;  // the operand as written, for the message
  Span span;
  InferredShape shape;
};

std::optional<Arg> ArgOf(const ParsedFile& file, const Instruction& inst,
                         Id i) {
  const Operand& operand = file.operands[inst.operands.begin + i];
  Id def = operand.Producer();
  if (def == kNone) return std::nullopt;
  std::optional<InferredShape> shape =
      ShapeFromFile(file, file.instructions[def].shape);
  if (!shape || shape->is_tuple()) return std::nullopt;
  std::string_view name =
      operand.name.empty() ? file.Text(operand.span) : file.Text(operand.name);
  return Arg{name, operand.span, *std::move(shape)};
}

// XLA's IsNoOpScale: a bf16 scale of a bf16 operand, every dimension 1,
// for an operand that is not all 1s itself.
bool IsNoOpScale(const InferredShape& operand, const InferredShape& scale) {
  if (scale.element_type != operand.element_type ||
      operand.element_type != PrimitiveType::kBF16) {
    return false;
  }
  bool all_one = true, operand_not_one = false;
  for (int64_t d : scale.dims) all_one &= d == 1;
  for (int64_t d : operand.dims) operand_not_one |= d != 1;
  return all_one && operand_not_one;
}

// One operand against its scale; false after a finding.
bool CheckScale(const Findings& f, const Instruction& inst, const Arg& operand,
                const Arg& scale, std::string_view contracting_key) {
  if (IsNoOpScale(operand.shape, scale.shape)) return true;
  const std::string_view dot = f.file.Name(inst);
  if (scale.shape.dims.size() != operand.shape.dims.size()) {
    f.Error(scale.span, base::Cat("Scale operand ", scale.name,
                                  " has a different number of dimensions than "
                                  "operand ",
                                  operand.name, " in ", dot));
    return false;
  }
  const Attribute* attr = f.file.FindAttribute(inst, contracting_key);
  absl::StatusOr<std::vector<int64_t>> contracting =
      attr ? DecodeIntList(f.file.Text(attr->value))
           : absl::StatusOr<std::vector<int64_t>>(std::vector<int64_t>{});
  if (!contracting.ok()) return true;
  if (contracting->size() != 1) {
    f.Error(attr ? attr->span : inst.opcode_span,
            base::Cat("Contracting dimensions must have exactly one dimension "
                      "in instruction ",
                      dot));
    return false;
  }
  for (size_t i = 0; i < operand.shape.dims.size(); ++i) {
    const int64_t d = operand.shape.dims[i], s = scale.shape.dims[i];
    if (d < 0 || s <= 0 || d % s == 0) continue;
    f.Error(scale.span,
            base::Cat("Dimension ", i, " of operand ", operand.name,
                      " should be a multiple of dimension ", i,
                      " of scale operand ", scale.name, " in ", dot));
    return false;
  }
  return true;
}

}  // namespace

void CheckScaledDots(const Findings& f) {
  const ParsedFile& file = f.file;
  for (const Instruction& inst : file.instructions) {
    if (inst.opcode != Opcode::kScaledDot || inst.operands.count != 4) {
      continue;
    }
    std::optional<Arg> args[4];
    for (Id i = 0; i < 4; ++i) args[i] = ArgOf(file, inst, i);
    if (!args[0] || !args[1] || !args[2] || !args[3]) continue;
    if (!CheckScale(f, inst, *args[0], *args[2], "lhs_contracting_dims") ||
        !CheckScale(f, inst, *args[1], *args[3], "rhs_contracting_dims")) {
      continue;
    }
    if (args[2]->shape.dims.empty() && args[3]->shape.dims.empty()) {
      f.Error(inst.operand_list,
              base::Cat("At least one of the scales should be not a scalar in ",
                        file.Name(inst)));
    }
  }
}

}  // namespace hlo::verify_internal
