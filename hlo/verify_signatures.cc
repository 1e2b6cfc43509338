// Shapes XLA's parser compares while it builds the module (hlo_parser.cc):
// a computation's declared result against its root, an operand's written
// shape against its instruction's, an infeed's tuple, a conditional's
// branch index.
#include <optional>

#include "base/strings.h"
#include "hlo/attributes.h"
#include "hlo/query.h"
#include "hlo/shape_inference.h"
#include "hlo/verify_internal.h"

namespace hlo::verify_internal {
namespace {

std::optional<InferredShape> ShapeOf(const ParsedFile& file, Id instruction) {
  if (instruction == kNone) return std::nullopt;
  return ShapeFromFile(file, file.instructions[instruction].shape);
}

void CheckRoots(const Findings& f) {
  const ParsedFile& file = f.file;
  for (const Computation& c : file.computations) {
    if (c.result_shape == kNone || c.root == kNone) continue;
    if (c.root < file.instructions.size() &&
        TableShapesCompatible(file, c.result_shape,
                              file.instructions[c.root].shape)) {
      continue;
    }
    std::optional<InferredShape> declared = ShapeFromFile(file, c.result_shape);
    std::optional<InferredShape> root = ShapeOf(file, c.root);
    if (!declared || !root || ShapesCompatible(*declared, *root, false)) {
      continue;
    }
    const Instruction& r = file.instructions[c.root];
    f.Error(SignatureResultSpan(file, c),
            base::Cat("Shape of computation ", file.Name(c), ", ",
                      ShapeString(*declared),
                      ", is not compatible with that of its root "
                      "instruction ",
                      file.Name(r), ", ", ShapeString(*root)),
            {{NameOrSpan(r), "the root instruction"}});
  }
}

void CheckOperandShapes(const Findings& f) {
  const ParsedFile& file = f.file;
  for (const Operand& operand : file.operands) {
    if (operand.shape == kNone || operand.Producer() == kNone) continue;
    const Id producer_shape = file.instructions[operand.Producer()].shape;
    if (producer_shape == kNone ||
        TableShapesCompatible(file, operand.shape, producer_shape)) {
      continue;
    }
    std::optional<InferredShape> declared = ShapeFromFile(file, operand.shape);
    std::optional<InferredShape> actual = ShapeOf(file, operand.Producer());
    if (!declared || !actual || ShapesCompatible(*declared, *actual, false)) {
      continue;
    }
    f.Error(
        OwnShapeSpan(file, operand).value_or(file.shapes[operand.shape].span),
        base::Cat("The declared operand shape ", ShapeString(*declared),
                  " is not compatible with the shape of the operand "
                  "instruction ",
                  ShapeString(*actual), "."),
        {{NameOrSpan(file.instructions[operand.Producer()]),
          "the operand's definition"}});
  }
}

int64_t LeafCount(const InferredShape& shape) {
  if (!shape.is_tuple()) return 1;
  int64_t n = 0;
  for (const InferredShape& e : shape.tuple) n += LeafCount(e);
  return n;
}

// parameter_replication holds one flag per leaf buffer of the shape.
void CheckReplication(const Findings& f, Id id) {
  const Attribute* a =
      f.file.FindAttribute(f.file.instructions[id], "parameter_replication");
  if (a == nullptr) return;
  const std::optional<InferredShape> shape = ShapeOf(f.file, id);
  if (!shape) return;
  absl::StatusOr<std::vector<bool>> flags =
      DecodeBoolList(f.file.Text(a->value));
  if (!flags.ok()) return;
  const int64_t leaves = LeafCount(*shape);
  if (static_cast<int64_t>(flags->size()) == leaves) return;
  f.Error(a->span, base::Cat("parameter has ", leaves,
                             " leaf buffers, but parameter_replication has ",
                             flags->size(), " elements"));
}

void CheckInstruction(const Findings& f, Id id) {
  const ParsedFile& file = f.file;
  const Instruction& inst = file.instructions[id];
  if (inst.opcode == Opcode::kParameter) {
    CheckReplication(f, id);
  }
  if (inst.opcode == Opcode::kInfeed) {
    std::optional<InferredShape> shape = ShapeOf(file, id);
    if (shape && (!shape->is_tuple() || shape->tuple.empty())) {
      f.Error(DeclaredShapeSpan(file, inst),
              "infeed must have a non-empty tuple shape");
    }
  }
  if (inst.opcode == Opcode::kConditional && inst.operands.count > 0) {
    const Operand& index = file.operands[inst.operands.begin];
    std::optional<InferredShape> shape = ShapeOf(file, index.Producer());
    if (!shape) return;
    if (shape->is_tuple() || !shape->dims.empty()) {
      f.Error(index.span, "The first operand must be a scalar");
    } else if (shape->element_type != PrimitiveType::kPred &&
               shape->element_type != PrimitiveType::kS32) {
      f.Error(index.span, "The first operand must be a scalar of PRED or S32");
    } else if (shape->element_type == PrimitiveType::kPred) {
      if (const Attribute* a =
              file.FindAttribute(inst, "branch_computations")) {
        f.Error(a->key, "unexpected attribute \"branch_computations\"");
      }
    }
  }
}

}  // namespace

void CheckSignatures(const Findings& f) {
  CheckRoots(f);
  CheckOperandShapes(f);
  for (Id id = 0; id < f.file.instructions.size(); ++id)
    CheckInstruction(f, id);
}

}  // namespace hlo::verify_internal
