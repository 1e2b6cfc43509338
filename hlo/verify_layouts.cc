// The layout-sensitive verifier (XLA's HloVerifier with layout_sensitive and
// LayoutAssignment::InstructionCanChangeLayout, as its
// HloVerifierTestLayoutSensitive fixture runs it): shapes that must equal
// their operand's with the layout, ops that must keep their operands'
// layouts, host-offloading memory spaces, bitcast sizes, and the entry
// computation layout against the entry's parameters, root and aliases.
// Verify runs it only with --verify=layout_sensitive: dumps from before
// layout assignment break these rules by design.
#include <algorithm>
#include <iterator>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "base/strings.h"
#include "hlo/attributes.h"
#include "hlo/layout_shape.h"
#include "hlo/query.h"
#include "hlo/shape_inference.h"
#include "hlo/verify_internal.h"

namespace hlo::verify_internal {
namespace {

constexpr int64_t kGenericFastMemorySpace = 1;

// LayoutAssignment::InstructionCanChangeLayout's "false" list: these keep
// each same-rank operand's layout (tiles and memory space aside).
constexpr Opcode kKeepsLayoutOps[] = {Opcode::kAbs,
                                      Opcode::kAcos,
                                      Opcode::kAcosh,
                                      Opcode::kAsin,
                                      Opcode::kAsinh,
                                      Opcode::kAdd,
                                      Opcode::kAddDependency,
                                      Opcode::kAnd,
                                      Opcode::kAtan2,
                                      Opcode::kAtanh,
                                      Opcode::kBitcastConvert,
                                      Opcode::kCeil,
                                      Opcode::kClamp,
                                      Opcode::kCountLeadingZeros,
                                      Opcode::kCompare,
                                      Opcode::kComplex,
                                      Opcode::kConcatenate,
                                      Opcode::kConvert,
                                      Opcode::kCosine,
                                      Opcode::kCosh,
                                      Opcode::kAllGather,
                                      Opcode::kAllGatherStart,
                                      Opcode::kAllGatherDone,
                                      Opcode::kAllToAll,
                                      Opcode::kCollectiveBroadcast,
                                      Opcode::kCollectivePermute,
                                      Opcode::kDivide,
                                      Opcode::kDynamicSlice,
                                      Opcode::kDynamicUpdateSlice,
                                      Opcode::kErf,
                                      Opcode::kExponential,
                                      Opcode::kExponentialMinusOne,
                                      Opcode::kFft,
                                      Opcode::kFloor,
                                      Opcode::kImag,
                                      Opcode::kIsFinite,
                                      Opcode::kLog,
                                      Opcode::kLogPlusOne,
                                      Opcode::kLogistic,
                                      Opcode::kMap,
                                      Opcode::kMaximum,
                                      Opcode::kMinimum,
                                      Opcode::kMultiply,
                                      Opcode::kNegate,
                                      Opcode::kNot,
                                      Opcode::kOptimizationBarrier,
                                      Opcode::kOptBarrier,
                                      Opcode::kOr,
                                      Opcode::kXor,
                                      Opcode::kPad,
                                      Opcode::kPower,
                                      Opcode::kReal,
                                      Opcode::kReducePrecision,
                                      Opcode::kReduceWindow,
                                      Opcode::kRemainder,
                                      Opcode::kReverse,
                                      Opcode::kRoundNearestAfz,
                                      Opcode::kRoundNearestEven,
                                      Opcode::kRsqrt,
                                      Opcode::kScatter,
                                      Opcode::kSelect,
                                      Opcode::kSelectAndScatter,
                                      Opcode::kShiftLeft,
                                      Opcode::kShiftRightArithmetic,
                                      Opcode::kShiftRightLogical,
                                      Opcode::kSign,
                                      Opcode::kSine,
                                      Opcode::kSinh,
                                      Opcode::kSlice,
                                      Opcode::kSort,
                                      Opcode::kTopk,
                                      Opcode::kSqrt,
                                      Opcode::kCbrt,
                                      Opcode::kSubtract,
                                      Opcode::kStochasticConvert,
                                      Opcode::kTan,
                                      Opcode::kTanh,
                                      Opcode::kPopcnt,
                                      Opcode::kTriangularSolve,
                                      Opcode::kCholesky,
                                      Opcode::kWhile,
                                      Opcode::kSetDimensionSize,
                                      Opcode::kAllReduce,
                                      Opcode::kReduceScatter,
                                      Opcode::kAllReduceStart,
                                      Opcode::kAllReduceDone,
                                      Opcode::kRaggedAllToAll};

bool KeepsLayout(Opcode op) {
  return std::find(std::begin(kKeepsLayoutOps), std::end(kKeepsLayoutOps),
                   op) != std::end(kKeepsLayoutOps);
}

class LayoutChecker {
 public:
  LayoutChecker(const Findings& f, bool mixed) : f_(f), mixed_(mixed) {
    for (const ComputationRef& ref : file().computation_refs) {
      if (ref.instruction != kNone && ref.computation != kNone &&
          file().instructions[ref.instruction].opcode == Opcode::kFusion) {
        fused_.insert(ref.computation);
      }
    }
  }

  void Check(const Instruction& inst) {
    if (inst.is_nested) return;
    std::optional<LayoutShape> shape = ShapeOf(inst.shape);
    if (!shape) return;
    CheckAgainstOperands(inst, *shape);
    if (shape->is_array() && KeepsLayout(inst.opcode)) {
      CheckKeepsLayout(inst, *shape);
    }
    if (inst.opcode == Opcode::kBitcast) CheckBitcast(inst, *shape);
  }

 private:
  const ParsedFile& file() const { return f_.file; }

  // Shapes are interned by text: each is read once, however many operands
  // and instructions share it.
  const std::optional<LayoutShape>& ShapeOf(Id id) {
    static const std::optional<LayoutShape> kNoShape;
    if (id >= file().shapes.size()) return kNoShape;
    if (cache_.empty()) cache_.resize(file().shapes.size());
    if (!cache_[id]) cache_[id] = LayoutShapeOf(file(), id);
    return *cache_[id];
  }

  std::optional<LayoutShape> Operand(const Instruction& inst, Id i) {
    if (i >= inst.operands.count) return std::nullopt;
    const hlo::Operand& o = file().operands[inst.operands.begin + i];
    Id def = o.Producer();
    if (def == kNone) return std::nullopt;
    return ShapeOf(file().instructions[def].shape);
  }

  // The root shape of the `index`th computation attribute `key` names.
  std::optional<LayoutShape> CalledRoot(const Instruction& inst,
                                        std::string_view key, size_t index) {
    for (Id r = inst.called.begin; r < inst.called.end(); ++r) {
      const ComputationRef& ref = file().computation_refs[r];
      if (ref.attribute >= file().attributes.size() ||
          file().Text(file().attributes[ref.attribute].key) != key ||
          index-- != 0) {
        continue;
      }
      if (ref.computation >= file().computations.size()) return std::nullopt;
      const Id root = file().computations[ref.computation].root;
      if (root >= file().instructions.size()) return std::nullopt;
      return ShapeOf(file().instructions[root].shape);
    }
    return std::nullopt;
  }

  void ShapeError(const Instruction& inst, const LayoutShape& want,
                  const LayoutShape& got) {
    f_.Error(DeclaredShapeSpan(file(), inst),
             base::Cat("Expected instruction to have shape equal to ",
                       LayoutShapeString(want), ", actual shape is ",
                       LayoutShapeString(got)));
  }

  // ShapeVerifier::CheckShape where XLA's expected shape is an operand's
  // (with its layout). Shapes that differ beyond the layout are shape
  // inference's finding already.
  void CheckAgainstOperands(const Instruction& inst, const LayoutShape& shape) {
    std::optional<LayoutShape> want;
    LayoutEqual eq;
    std::optional<LayoutShape> op0 = Operand(inst, 0);
    switch (inst.opcode) {
      case Opcode::kGetTupleElement: {
        const Attribute* index = file().FindAttribute(inst, "index");
        absl::StatusOr<int64_t> i = index ? DecodeInt(file().Text(index->value))
                                          : absl::StatusOr<int64_t>(-1);
        if (op0 && op0->is_tuple() && i.ok() && *i >= 0 &&
            *i < static_cast<int64_t>(op0->tuple.size())) {
          want = op0->tuple[*i];
        }
        break;
      }
      case Opcode::kCopyDone:
        if (op0 && op0->is_tuple() && !op0->tuple.empty()) {
          want = op0->tuple[0];
        }
        break;
      case Opcode::kCopyStart:
        if (op0) {
          LayoutShape u32;
          u32.element_type = PrimitiveType::kU32;
          want = LayoutShape{.element_type = PrimitiveType::kTuple,
                             .tuple = {*op0, *op0, u32}};
          eq.minor_to_major_only = true;
        }
        break;
      case Opcode::kOptimizationBarrier:
      case Opcode::kOptBarrier:
        want = op0;
        break;
      case Opcode::kTuple: {
        LayoutShape t{.element_type = PrimitiveType::kTuple};
        for (Id i = 0; i < inst.operands.count; ++i) {
          std::optional<LayoutShape> e = Operand(inst, i);
          if (!e) return;
          t.tuple.push_back(std::move(*e));
        }
        want = std::move(t);
        break;
      }
      case Opcode::kDynamicUpdateSlice:
        want = op0;
        // Memory spaces and tiles are not propagated into fusions.
        if (fused_.contains(inst.computation)) {
          eq.ignore_memory_space = eq.ignore_tiles = true;
        }
        break;
      case Opcode::kCopy:
        CheckHostCopy(inst, shape, op0);
        return;
      case Opcode::kWhile:
        want = CalledRoot(inst, "body", 0);
        break;
      case Opcode::kCall:
        want = CalledRoot(inst, "to_apply", 0);
        break;
      case Opcode::kConditional:
        // Every branch's root, the first one that differs reported.
        for (std::string_view key :
             {"branch_computations", "true_computation", "false_computation"}) {
          for (size_t i = 0;
               std::optional<LayoutShape> root = CalledRoot(inst, key, i);
               ++i) {
            want = std::move(root);
            if (LayoutShapesEqual(shape, *want, {.ignore_layout = true}) &&
                !LayoutShapesEqual(shape, *want)) {
              return ShapeError(inst, *want, shape);
            }
          }
        }
        return;
      default:
        return;
    }
    if (!want || !LayoutShapesEqual(shape, *want, {.ignore_layout = true}) ||
        LayoutShapesEqual(shape, *want, eq)) {
      return;
    }
    ShapeError(inst, *want, shape);
  }

  // A copy between host and device memory may neither transpose nor change
  // the element type (even where mixed precision is allowed); one into host
  // memory may transpose (it can be host to host before memory spaces are
  // assigned).
  void CheckHostCopy(const Instruction& inst, const LayoutShape& shape,
                     const std::optional<LayoutShape>& op) {
    if (!op || !shape.is_array() || !op->is_array() ||
        shape.memory_space == op->memory_space ||
        (shape.memory_space != kHostMemorySpace &&
         op->memory_space != kHostMemorySpace) ||
        !LayoutShapesEqual(
            shape, *op,
            {.ignore_fp_precision = mixed_, .ignore_layout = true})) {
      return;
    }
    const bool ok =
        shape.memory_space == kHostMemorySpace
            ? shape.element_type == op->element_type
            : LayoutShapesEqual(shape, *op, {.ignore_memory_space = true});
    if (!ok) ShapeError(inst, *op, shape);
  }

  // InstructionVerifier::Postprocess.
  void CheckKeepsLayout(const Instruction& inst, const LayoutShape& shape) {
    for (Id i = 0; i < inst.operands.count; ++i) {
      std::optional<LayoutShape> op = Operand(inst, i);
      if (!op || !op->is_array() || op->dims.size() != shape.dims.size()) {
        continue;
      }
      LayoutEqual eq{.ignore_tiles = true, .ignore_memory_space = true};
      const Opcode code = inst.opcode;
      if (code == Opcode::kConvert || code == Opcode::kCompare ||
          code == Opcode::kIsFinite || code == Opcode::kScatter ||
          (code == Opcode::kSelect &&
           op->element_type == PrimitiveType::kPred)) {
        eq.ignore_element_size = true;
      } else if ((code == Opcode::kDynamicSlice ||
                  code == Opcode::kDynamicUpdateSlice) &&
                 !MemorySpaceChangeOk(inst, op->memory_space,
                                      shape.memory_space)) {
        return;
      }
      if (LayoutsEqual(shape, *op, eq)) continue;
      f_.Error(DeclaredShapeSpan(file(), inst),
               base::Cat("Instruction shouldn't change layouts ",
                         file().Name(inst), " From ", LayoutShapeString(shape),
                         " To ", LayoutShapeString(*op)));
      return;
    }
  }

  // HostOffloadInstructionCanChangeMemorySpace, for dynamic-(update-)slice.
  bool MemorySpaceChangeOk(const Instruction& inst, int64_t from, int64_t to) {
    const std::string name(file().Name(inst));
    // XLA's condition reads as "leaving" the generic fast memory space.
    if (from == kGenericFastMemorySpace && to != kGenericFastMemorySpace) {
      f_.Error(DeclaredShapeSpan(file(), inst),
               "Instruction shouldn't change layout memory space between "
               "generic fast memory space and others for instruction: " +
                   name);
      return false;
    }
    if (inst.opcode == Opcode::kDynamicSlice && from == 0 &&
        to == kHostMemorySpace) {
      f_.Error(DeclaredShapeSpan(file(), inst),
               "DynamicSlice instruction shouldn't change layout memory space "
               "from device to host: " +
                   name);
      return false;
    }
    if (inst.opcode == Opcode::kDynamicUpdateSlice &&
        from == kHostMemorySpace && to == 0) {
      f_.Error(DeclaredShapeSpan(file(), inst),
               "DynamicUpdateSlice instruction shouldn't change layout memory "
               "space from host to device: " +
                   name);
      return false;
    }
    return true;
  }

  void CheckBitcast(const Instruction& inst, const LayoutShape& shape) {
    std::optional<LayoutShape> op = Operand(inst, 0);
    if (!op) return;
    std::optional<int64_t> out = ArrayByteSize(shape), in = ArrayByteSize(*op);
    if (!out || !in || *out == *in) return;
    f_.Error(
        DeclaredShapeSpan(file(), inst),
        base::Cat(file().Name(inst),
                  ": Bitcast cannot have different shape sizes of "
                  "output (",
                  *out, ") and operand (", *in, ") (", LayoutShapeString(shape),
                  ") (", LayoutShapeString(*op), ")"));
  }

  const Findings& f_;
  const bool mixed_;
  std::unordered_set<Id> fused_;  // computations fusions call
  std::vector<std::optional<std::optional<LayoutShape>>> cache_;
};

}  // namespace

void CheckLayouts(const Findings& f, bool allow_mixed_precision) {
  LayoutChecker checker(f, allow_mixed_precision);
  for (const Instruction& inst : f.file.instructions) checker.Check(inst);
}

}  // namespace hlo::verify_internal
