// Called computations against their call sites (XLA's ShapeVerifier:
// HandleCall, HandleWhile, HandleConditional, HandleFusion): the parameter
// count, each operand's shape against its parameter's, a while condition
// returning pred[], no more fused parameters than fusion operands.
#include <charconv>
#include <optional>
#include <string_view>

#include "base/strings.h"
#include "hlo/shape_inference.h"
#include "hlo/verify_internal.h"

namespace hlo::verify_internal {
namespace {

// The parameter instructions of computation `c` by number; kNone for gaps.
std::vector<Id> ParametersOf(const ParsedFile& file, Id c) {
  std::vector<Id> params;
  const Slice body = file.computations[c].instructions;
  for (Id id = body.begin; id < body.end(); ++id) {
    const Instruction& inst = file.instructions[id];
    // Nested ones count: `add(s32[] parameter(0), ...)` declares one too.
    if (inst.opcode != Opcode::kParameter) continue;
    std::string_view text = file.Text(inst.operand_list);
    if (text.size() < 3) continue;
    size_t number = 0;
    auto [p, ec] =
        std::from_chars(text.data() + 1, text.data() + text.size(), number);
    if (ec != std::errc() || number > 100000) continue;
    if (params.size() <= number) params.resize(number + 1, kNone);
    params[number] = id;
  }
  return params;
}

std::optional<InferredShape> OperandDefinitionShape(const ParsedFile& file,
                                                    const Operand& operand) {
  Id def = operand.Producer();
  if (def == kNone) return std::nullopt;
  return ShapeFromFile(file, file.instructions[def].shape);
}

class CallChecker {
 public:
  CallChecker(const Findings& f, bool mixed) : f_(f), mixed_(mixed) {}

  void Check(Id id) {
    const Instruction& inst = file().instructions[id];
    for (Id r = inst.called.begin; r < inst.called.end(); ++r) {
      const ComputationRef& ref = file().computation_refs[r];
      if (ref.computation == kNone || ref.attribute == kNone) continue;
      std::string_view key = file().Text(file().attributes[ref.attribute].key);
      switch (inst.opcode) {
        case Opcode::kCall:
          if (key == "to_apply")
            CheckSignature(inst, ref, 0, inst.operands.count);
          break;
        case Opcode::kWhile:
          if (key == "body" || key == "condition") {
            CheckSignature(inst, ref, 0, 1);
          }
          if (key == "condition") CheckPredicate(ref);
          break;
        case Opcode::kFusion:
          if (key == "calls") CheckFusedParameters(inst, ref);
          break;
        case Opcode::kConditional:
          if (key == "branch_computations" || key == "true_computation" ||
              key == "false_computation") {
            CheckSignature(inst, ref, 1 + BranchIndex(inst, r, key), 1);
          }
          break;
        default:
          break;
      }
    }
  }

 private:
  const ParsedFile& file() const { return f_.file; }

  // The branch's position among the conditional's branches.
  int BranchIndex(const Instruction& inst, Id r, std::string_view key) {
    if (key == "true_computation") return 0;
    if (key == "false_computation") return 1;
    int index = 0;
    for (Id o = inst.called.begin; o < r; ++o) {
      const ComputationRef& ref = file().computation_refs[o];
      if (ref.attribute != kNone &&
          file().Text(file().attributes[ref.attribute].key) ==
              "branch_computations") {
        ++index;
      }
    }
    return index;
  }

  // Operands [first, first + count) against the callee's parameters.
  void CheckSignature(const Instruction& inst, const ComputationRef& ref,
                      Id first, Id count) {
    const std::vector<Id> params = ParametersOf(file(), ref.computation);
    if (params.size() != count) {
      f_.Error(ref.name,
               base::Cat("Expected computation ", file().Text(ref.name),
                         " called from ", file().Name(inst), " to have ", count,
                         " parameters, has ", params.size()),
               {{file().computations[ref.computation].name,
                 "the called computation"}});
      return;
    }
    for (Id i = 0; i < count && first + i < inst.operands.count; ++i) {
      if (params[i] == kNone) continue;
      const Operand& operand = file().operands[inst.operands.begin + first + i];
      const Id def = operand.Producer();
      if (def == kNone ||
          TableShapesCompatible(file(), file().instructions[params[i]].shape,
                                file().instructions[def].shape)) {
        continue;
      }
      std::optional<InferredShape> have =
          OperandDefinitionShape(file(), operand);
      std::optional<InferredShape> want =
          ShapeFromFile(file(), file().instructions[params[i]].shape);
      if (!have || !want || ShapesCompatible(*want, *have, mixed_)) continue;
      f_.Error(operand.span,
               base::Cat("Operand ", first + i, " (", ShapeString(*have),
                         ") shape does not match parameter's (",
                         ShapeString(*want), ") in ", file().Text(ref.name)),
               {{NameOrSpan(file().instructions[params[i]]),
                 base::Cat("parameter ", i, " of ", file().Text(ref.name))}});
    }
  }

  // A fusion passes an operand to each fused parameter (XLA's HandleFusion).
  void CheckFusedParameters(const Instruction& inst,
                            const ComputationRef& ref) {
    const size_t params = ParametersOf(file(), ref.computation).size();
    if (params <= inst.operands.count) return;
    f_.Error(ref.name, base::Cat("Fused parameter count (", params,
                                 ") is greater than the number of operands (",
                                 inst.operands.count,
                                 ") passed to the fusion instruction in: ",
                                 file().Name(inst), "."));
  }

  void CheckPredicate(const ComputationRef& ref) {
    const Id root = file().computations[ref.computation].root;
    if (root == kNone) return;
    std::optional<InferredShape> shape =
        ShapeFromFile(file(), file().instructions[root].shape);
    if (!shape ||
        (shape->element_type == PrimitiveType::kPred && shape->dims.empty())) {
      return;
    }
    f_.Error(ref.name,
             base::Cat("Conditional computation shape does not lead to a "
                       "scalar predicate shape: ",
                       ShapeString(*shape)),
             {{NameOrSpan(file().instructions[root]), "the condition's root"}});
  }

  const Findings& f_;
  const bool mixed_;
};

}  // namespace

void CheckCalledComputations(const Findings& f, bool allow_mixed_precision) {
  CallChecker checker(f, allow_mixed_precision);
  for (Id id = 0; id < f.file.instructions.size(); ++id) checker.Check(id);
}

}  // namespace hlo::verify_internal
