// Async wrappers: an async-start and the async-update/-done chain after it
// (XLA's parser for the op shapes and what update/done may restate; its
// ShapeVerifier::HandleAsync* for the shapes against the wrapped
// computation). The async shape is ((operands), outputs, state...).
#include <map>
#include <optional>
#include <string>

#include "base/strings.h"
#include "hlo/shape_inference.h"
#include "hlo/verify_internal.h"

namespace hlo::verify_internal {
namespace {

bool IsAsync(Opcode op) {
  return op == Opcode::kAsyncStart || op == Opcode::kAsyncUpdate ||
         op == Opcode::kAsyncDone;
}

bool IsAsyncShape(const std::optional<InferredShape>& s) {
  return s && s->is_tuple() && s->tuple.size() >= 2 && s->tuple[0].is_tuple();
}

class AsyncChecker {
 public:
  AsyncChecker(const Findings& f, bool mixed) : f_(f), mixed_(mixed) {}

  void Check(Id id) {
    const Instruction& inst = file().instructions[id];
    if (!IsAsync(inst.opcode)) return;
    std::optional<InferredShape> shape = ShapeFromFile(file(), inst.shape);
    if (inst.opcode != Opcode::kAsyncDone && shape && !IsAsyncShape(shape)) {
      f_.Error(DeclaredShapeSpan(file(), inst),
               "AsyncStart and AsyncUpdate expect the op shape to be in the "
               "form of ((async-operands), async-outputs, state).");
      return;
    }
    if (inst.opcode == Opcode::kAsyncStart) {
      CheckStart(id, shape);
      return;
    }
    if (inst.operands.count != 1) return;  // the operand count says so
    const Operand& operand = file().operands[inst.operands.begin];
    const Id prev = operand.definition;
    if (prev == kNone || !IsAsync(file().instructions[prev].opcode)) return;
    std::optional<InferredShape> prev_shape =
        ShapeFromFile(file(), file().instructions[prev].shape);
    if (prev_shape && !IsAsyncShape(prev_shape)) {
      f_.Error(operand.span,
               "AsyncUpdate and AsyncDone expect a single operand in the form "
               "of ((async-operands), async-outputs, state).");
      return;
    }
    CheckRestated(inst, prev);
    if (!shape || !prev_shape) return;
    if (inst.opcode == Opcode::kAsyncUpdate &&
        !ShapesCompatible(*prev_shape, *shape, mixed_)) {
      f_.Error(DeclaredShapeSpan(file(), inst),
               base::Cat("The async-update expects the shape of operand and "
                         "output to match (",
                         ShapeString(*prev_shape), " vs ", ShapeString(*shape),
                         ")."));
    }
    if (inst.opcode == Opcode::kAsyncDone &&
        !ShapesCompatible(prev_shape->tuple[1], *shape, mixed_)) {
      f_.Error(DeclaredShapeSpan(file(), inst),
               base::Cat("The async-done expects the shape of output to match "
                         "the async shape at index {1} (",
                         ShapeString(*shape), " vs ",
                         ShapeString(prev_shape->tuple[1]), ")."));
    }
  }

  // XLA's parser: an async computation has one async-start caller.
  void CheckShared() {
    for (const auto& [computation, count] : starts_per_computation_) {
      if (count.first < 2) continue;
      f_.Error(file().computations[computation].name,
               base::Cat("Computation ",
                         file().Name(file().computations[computation]),
                         " is called by more than one async op."));
    }
  }

 private:
  const ParsedFile& file() const { return f_.file; }

  const ComputationRef* Calls(const Instruction& inst) const {
    for (Id r = inst.called.begin; r < inst.called.end(); ++r) {
      const ComputationRef& ref = file().computation_refs[r];
      if (ref.attribute != kNone &&
          file().Text(file().attributes[ref.attribute].key) == "calls") {
        return &ref;
      }
    }
    return nullptr;
  }

  // The async-start a chain begins with (bounded walk up the operands).
  Id StartOf(Id id) const {
    for (int step = 0; step < 10000 && id != kNone; ++step) {
      const Instruction& inst = file().instructions[id];
      if (inst.opcode == Opcode::kAsyncStart) return id;
      if (!IsAsync(inst.opcode) || inst.operands.count != 1) return kNone;
      id = file().operands[inst.operands.begin].definition;
    }
    return kNone;
  }

  std::string_view Thread(const Instruction& inst) const {
    const Attribute* a = file().FindAttribute(inst, "async_execution_thread");
    if (a == nullptr) return "main";
    std::string_view v = file().Text(a->value);
    if (v.size() >= 2 && v.front() == '"') v = v.substr(1, v.size() - 2);
    return v;
  }

  // The opcode a chain wraps: written in sugar, else the callee's root's.
  Opcode Wrapped(const Instruction& inst) const {
    if (inst.wrapped_opcode != Opcode::kUnknown) return inst.wrapped_opcode;
    const ComputationRef* calls = Calls(inst);
    if (calls == nullptr || calls->computation == kNone)
      return Opcode::kUnknown;
    const Id root = file().computations[calls->computation].root;
    return root == kNone ? Opcode::kUnknown : file().instructions[root].opcode;
  }

  // What async-update/-done may restate must match the async-start's.
  void CheckRestated(const Instruction& inst, Id prev) {
    const Id start = StartOf(prev);
    if (start == kNone) return;
    const Instruction& s = file().instructions[start];
    if (inst.wrapped_opcode != Opcode::kUnknown) {
      const Opcode want = Wrapped(s);
      if (want != Opcode::kUnknown && want != inst.wrapped_opcode) {
        f_.Error(
            inst.opcode_span,
            base::Cat("Expect async wrapped opcode to be ", OpcodeName(want),
                      ", but got ", OpcodeName(inst.wrapped_opcode)));
      }
    }
    if (const Attribute* a =
            file().FindAttribute(inst, "async_execution_thread")) {
      if (Thread(inst) != Thread(s)) {
        f_.Error(a->span, base::Cat("Expect async_execution_thread to be ",
                                    Thread(s), ", but got ", Thread(inst)));
      }
    }
    const ComputationRef* mine = Calls(inst);
    const ComputationRef* theirs = Calls(s);
    if (mine && theirs && mine->computation != kNone &&
        theirs->computation != kNone &&
        mine->computation != theirs->computation) {
      f_.Error(mine->name, base::Cat("Expect async_wrapped_computation to be ",
                                     file().Text(theirs->name), ", but got ",
                                     file().Text(mine->name)));
    }
  }

  void CheckStart(Id id, const std::optional<InferredShape>& shape) {
    const Instruction& inst = file().instructions[id];
    const ComputationRef* calls = Calls(inst);
    if (calls != nullptr && calls->computation != kNone) {
      auto& entry = starts_per_computation_[calls->computation];
      ++entry.first;
    }
    if (!shape) return;
    const InferredShape& operands = shape->tuple[0];
    for (Id i = 0; i < inst.operands.count && i < operands.tuple.size(); ++i) {
      const Operand& operand = file().operands[inst.operands.begin + i];
      if (operand.definition == kNone) continue;
      std::optional<InferredShape> have =
          ShapeFromFile(file(), file().instructions[operand.definition].shape);
      if (!have || ShapesCompatible(operands.tuple[i], *have, mixed_)) continue;
      f_.Error(operand.span,
               base::Cat("The async-start expects the shape of operand ", i,
                         " to match the async shape at index {0} (",
                         ShapeString(*have), " vs ",
                         ShapeString(operands.tuple[i]), ")."));
    }
    if (calls == nullptr || calls->computation == kNone) return;
    const Computation& c = file().computations[calls->computation];
    std::optional<InferredShape> root =
        c.root == kNone
            ? std::nullopt
            : ShapeFromFile(file(), file().instructions[c.root].shape);
    InferredShape params{.element_type = PrimitiveType::kTuple};
    for (Id p = c.parameters.begin; p < c.parameters.end(); ++p) {
      std::optional<InferredShape> ps =
          ShapeFromFile(file(), file().parameters[p].shape);
      if (!ps) return;
      params.tuple.push_back(*ps);
    }
    if (c.parameters.count > 0 || operands.tuple.empty()) {
      if (!ShapesCompatible(params, operands, mixed_)) {
        f_.Error(calls->name,
                 base::Cat("The async-start expects the async shape at index "
                           "{0} to match async computation parameter shape (",
                           ShapeString(operands), " vs ", ShapeString(params),
                           ")."));
      }
    }
    if (root && !ShapesCompatible(*root, shape->tuple[1], mixed_)) {
      f_.Error(calls->name,
               base::Cat("The async-start expects the async shape at index "
                         "{1} to match the async computation root shape (",
                         ShapeString(shape->tuple[1]), " vs ",
                         ShapeString(*root), ")."));
    }
  }

  const Findings& f_;
  const bool mixed_;
  std::map<Id, std::pair<int, int>> starts_per_computation_;
};

}  // namespace

void CheckAsyncWrappers(const Findings& f, bool allow_mixed_precision) {
  AsyncChecker checker(f, allow_mixed_precision);
  for (Id id = 0; id < f.file.instructions.size(); ++id) checker.Check(id);
  checker.CheckShared();
}

}  // namespace hlo::verify_internal
