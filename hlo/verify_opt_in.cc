// Rules XLA's verifier runs only under an HloVerifierOpts switch of their
// own (--verify=NAME): broadcast dimensions in order, reshapes that are
// bitcasts, no host memory space, instruction names as scheduled; and
// allow_unbounded_dynamism, the one switch that turns a default rule off.
#include <algorithm>
#include <optional>
#include <string>
#include <unordered_set>

#include "base/strings.h"
#include "hlo/attributes.h"
#include "hlo/layout_shape.h"
#include "hlo/query.h"
#include "hlo/shape_inference.h"
#include "hlo/verify_internal.h"

namespace hlo::verify_internal {
namespace {

bool HasHostMemorySpace(const LayoutShape& s) {
  if (s.is_tuple()) {
    return std::any_of(s.tuple.begin(), s.tuple.end(), HasHostMemorySpace);
  }
  return s.is_array() && s.memory_space == kHostMemorySpace;
}

std::optional<LayoutShape> OperandLayout(const ParsedFile& file,
                                         const Instruction& inst) {
  if (inst.operands.count == 0) return std::nullopt;
  const Operand& o = file.operands[inst.operands.begin];
  Id def = o.Producer();
  if (def == kNone) return std::nullopt;
  return LayoutShapeOf(file, file.instructions[def].shape);
}

class OptInChecker {
 public:
  OptInChecker(const Findings& f, const OptInRules& rules)
      : f_(f), rules_(rules) {
    for (const ComputationRef& ref : file().computation_refs) {
      if (ref.instruction != kNone && ref.computation != kNone &&
          file().instructions[ref.instruction].opcode == Opcode::kFusion) {
        fused_.insert(ref.computation);
      }
    }
  }

  void Check(Id id) {
    const Instruction& inst = file().instructions[id];
    if (rules_.broadcast_dimensions_order &&
        inst.opcode == Opcode::kBroadcast) {
      BroadcastOrder(inst);
    }
    if (rules_.reshape_is_bitcast && inst.opcode == Opcode::kReshape &&
        !fused_.contains(inst.computation)) {
      ReshapeBitcast(inst);
    }
    if (rules_.no_host_memory_space) {
      std::optional<LayoutShape> s = LayoutShapeOf(file(), inst.shape);
      if (s && HasHostMemorySpace(*s)) {
        f_.Error(DeclaredShapeSpan(file(), inst),
                 base::Cat("Instruction shouldn't have the layout of host "
                           "memory space: ",
                           file().Name(inst)));
      }
    }
    if (rules_.instruction_name_unchanged && !inst.name.empty()) {
      NameUnchanged(id, inst);
    }
  }

 private:
  const ParsedFile& file() const { return f_.file; }

  void BroadcastOrder(const Instruction& inst) {
    const Attribute* d = file().FindAttribute(inst, "dimensions");
    if (d == nullptr) return;
    absl::StatusOr<std::vector<int64_t>> dims =
        DecodeIntList(file().Text(d->value));
    if (!dims.ok() || std::is_sorted(dims->begin(), dims->end())) return;
    f_.Error(d->span, base::Cat("Broadcast dimensions should be ordered, "
                                "got: ",
                                file().Name(inst)));
  }

  void ReshapeBitcast(const Instruction& inst) {
    std::optional<LayoutShape> out = LayoutShapeOf(file(), inst.shape);
    std::optional<LayoutShape> in = OperandLayout(file(), inst);
    if (!out || !in) return;
    std::optional<bool> bitcast = ReshapeIsBitcast(*in, *out);
    if (!bitcast || *bitcast) return;
    f_.Error(DeclaredShapeSpan(file(), inst),
             base::Cat("Reshape should be a physical bitcast, got: ",
                       file().Name(inst), " (", LayoutShapeString(*in), " to ",
                       LayoutShapeString(*out), ")"));
  }

  // A scheduled instruction keeps its name, unless cloned or rematerialized.
  void NameUnchanged(Id id, const Instruction& inst) {
    Span where;
    std::string_view was = MetadataField(file(), id, "scheduling_name", &where);
    std::string_view name = file().Name(inst);
    if (was.empty() || was == name ||
        name.find(".remat") != std::string_view::npos ||
        name.find(".clone") != std::string_view::npos) {
      return;
    }
    f_.Error(where.empty() ? inst.name : where,
             base::Cat("Expected instruction name to remain the same. Was '",
                       was, "' is '", name, "'."));
  }

  const Findings& f_;
  const OptInRules rules_;
  std::unordered_set<Id> fused_;
};

bool HasUnboundedDim(const LayoutShape& s) {
  if (s.is_tuple()) {
    return std::any_of(s.tuple.begin(), s.tuple.end(), HasUnboundedDim);
  }
  return std::find(s.dims.begin(), s.dims.end(), kUnboundedDim) != s.dims.end();
}

}  // namespace

void CheckOptInRules(const Findings& f, const OptInRules& rules) {
  if (!rules.broadcast_dimensions_order && !rules.reshape_is_bitcast &&
      !rules.no_host_memory_space && !rules.instruction_name_unchanged) {
    return;
  }
  OptInChecker checker(f, rules);
  for (Id id = 0; id < f.file.instructions.size(); ++id) checker.Check(id);
}

void CheckUnboundedDynamism(const Findings& f) {
  // A '?' size is stored as kUnboundedDim: without one in the file's
  // integers, no shape has one, and the walk below is skipped.
  if (std::find(f.file.ints.begin(), f.file.ints.end(), kUnboundedDim) ==
      f.file.ints.end()) {
    return;
  }
  for (const Instruction& inst : f.file.instructions) {
    if (inst.shape == kNone || inst.shape >= f.file.shapes.size()) continue;
    // Cheap test first: '?' must be in the shape's text.
    if (f.file.Text(f.file.shapes[inst.shape].span).find('?') ==
        std::string_view::npos) {
      continue;
    }
    std::optional<LayoutShape> s = LayoutShapeOf(f.file, inst.shape);
    if (!s || !HasUnboundedDim(*s)) continue;
    f.Error(DeclaredShapeSpan(f.file, inst),
            base::Cat("Unbounded dynamism is disabled for instruction: ",
                      f.file.Name(inst)));
  }
}

}  // namespace hlo::verify_internal
