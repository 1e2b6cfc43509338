// Per-op rules of XLA's ShapeVerifier that shape inference does not cover:
// rng operands and distribution, iota's result and dimension, broadcast's
// dimensions, select's
// array operands, composite calls' frontend attributes, and (without
// allow_mixed_precision) one floating-point precision per instruction.
#include <charconv>
#include <optional>
#include <string>

#include "base/strings.h"
#include "hlo/attributes.h"
#include "hlo/shape_inference.h"
#include "hlo/verify_internal.h"

namespace hlo::verify_internal {
namespace {

class OpChecker {
 public:
  OpChecker(const Findings& f, bool mixed) : f_(f), mixed_(mixed) {}

  void Check(const Instruction& inst) {
    switch (inst.opcode) {
      case Opcode::kRng:
        CheckRng(inst);
        break;
      case Opcode::kIota:
        CheckIota(inst);
        break;
      case Opcode::kSelect:
        CheckSelect(inst);
        break;
      case Opcode::kCall:
        CheckComposite(inst);
        break;
      case Opcode::kBroadcast:
        CheckBroadcast(inst);
        break;
      default:
        break;
    }
    if (!mixed_) CheckOnePrecision(inst);
  }

 private:
  const ParsedFile& file() const { return f_.file; }

  std::optional<InferredShape> OperandShape(const Instruction& inst, Id i) {
    return verify_internal::OperandShape(file(), inst, i);
  }

  bool SameType(PrimitiveType a, PrimitiveType b) const {
    return a == b || (mixed_ && IsFloatingPoint(a) && IsFloatingPoint(b));
  }

  void CheckRng(const Instruction& inst) {
    std::optional<InferredShape> a = OperandShape(inst, 0);
    std::optional<InferredShape> b = OperandShape(inst, 1);
    std::optional<InferredShape> out = ShapeFromFile(file(), inst.shape);
    if (!a || !b || !out) return;
    if (a->is_tuple() || b->is_tuple() || !a->dims.empty() ||
        !b->dims.empty()) {
      f_.Error(inst.operand_list,
               "Expected scalar types for the two operands of Rng instruction");
      return;
    }
    if (!SameType(a->element_type, b->element_type) ||
        !SameType(a->element_type, out->element_type)) {
      f_.Error(inst.operand_list,
               "Expected compatible element types for the result and the two "
               "operands of Rng instruction");
      return;
    }
    const Attribute* d = file().FindAttribute(inst, "distribution");
    if (d == nullptr) return;
    absl::StatusOr<RandomDistribution> dist =
        DecodeRandomDistribution(file().Text(d->value));
    const PrimitiveType e = a->element_type;
    if (dist.ok() && *dist == RandomDistribution::kNormal &&
        !IsFloatingPoint(e)) {
      f_.Error(d->span,
               "Element type not supported. Expected element to be "
               "FloatingPointType for RngNormal");
    } else if (dist.ok() && *dist == RandomDistribution::kUniform &&
               !IsFloatingPoint(e) && !IsSignedInteger(e) &&
               !IsUnsignedInteger(e) && e != PrimitiveType::kPred) {
      f_.Error(d->span,
               "Element type not supported. Expected element to be of "
               "floating point type, integral type or predicate type for "
               "RngUniform");
    }
  }

  void CheckIota(const Instruction& inst) {
    std::optional<InferredShape> out = ShapeFromFile(file(), inst.shape);
    if (!out) return;
    const Span at = DeclaredShapeSpan(file(), inst);
    if (out->is_tuple() || !IsArrayType(out->element_type)) {
      f_.Error(at, "Iota does not support non-array result.");
      return;
    }
    if (out->dims.empty()) {
      f_.Error(at, "Iota does not support scalars.");
      return;
    }
    const Attribute* d = file().FindAttribute(inst, "iota_dimension");
    if (d == nullptr) return;
    absl::StatusOr<int64_t> dim = DecodeInt(file().Text(d->value));
    if (dim.ok() &&
        (*dim < 0 || *dim >= static_cast<int64_t>(out->dims.size()))) {
      f_.Error(d->span,
               "The iota dimension cannot go beyond the operation rank or be "
               "negative.");
    }
  }

  // XLA's parser: dimensions= may be left out only for a scalar operand.
  void CheckBroadcast(const Instruction& inst) {
    if (file().FindAttribute(inst, "dimensions") != nullptr) return;
    std::optional<InferredShape> in = OperandShape(inst, 0);
    if (!in || (!in->is_tuple() && in->dims.empty())) return;
    f_.Error(inst.opcode_span, "attribute dimensions is expected but not seen");
  }

  void CheckSelect(const Instruction& inst) {
    for (Id i = 0; i < inst.operands.count; ++i) {
      std::optional<InferredShape> s = OperandShape(inst, i);
      if (!s || !s->is_tuple()) continue;
      f_.Error(file().operands[inst.operands.begin + i].span,
               base::Cat("Expected array argument for select operand ", i,
                         ", but got ", ShapeString(*s), "."));
      return;
    }
  }

  void CheckComposite(const Instruction& inst) {
    const Attribute* c = file().FindAttribute(inst, "is_composite");
    if (c == nullptr) return;
    absl::StatusOr<bool> on = DecodeBool(file().Text(c->value));
    if (!on.ok() || !*on) return;
    const Attribute* fa = file().FindAttribute(inst, "frontend_attributes");
    if (fa == nullptr) {
      f_.Error(c->span, "A composite call op must have frontend attributes");
      return;
    }
    absl::StatusOr<FrontendAttributes> map =
        DecodeFrontendAttributes(file().Text(fa->value));
    if (!map.ok()) return;
    const std::string* name = map->Find("composite.name");
    if (name == nullptr || name->empty()) {
      f_.Error(fa->span,
               "A composite call op must have frontend attributes with key "
               "composite.name whose value is non-empty");
      return;
    }
    if (const std::string* v = map->Find("composite.version")) {
      int64_t version = -1;
      auto [p, ec] = std::from_chars(v->data(), v->data() + v->size(), version);
      if (ec != std::errc() || p != v->data() + v->size() || version < 0) {
        f_.Error(fa->span,
                 base::Cat("A composite call op must have frontend attributes "
                           "with a composite.version whose value is a "
                           "non-negative integer but got: ",
                           *v));
      }
    }
  }

  static bool PassesMixedPrecision(Opcode op) {
    using enum Opcode;
    switch (op) {
      case kCall:
      case kConditional:
      case kConstant:
      case kConvolution:
      case kDot:
      case kRaggedDot:
      case kScaledDot:
      case kAllReduce:
      case kAllReduceStart:
      case kAllReduceDone:
      case kAllGather:
      case kAllGatherStart:
      case kAllGatherDone:
      case kAsyncDone:
      case kAsyncUpdate:
      case kAsyncStart:
      case kCollectivePermute:
      case kCollectivePermuteStart:
      case kCollectivePermuteDone:
      case kCopyDone:
      case kCopyStart:
      case kCustomCall:
      case kDomain:
      case kFusion:
      case kGetTupleElement:
      case kOptimizationBarrier:
      case kOptBarrier:
      case kInfeed:
      case kOutfeed:
      case kParameter:
      case kRecv:
      case kRecvDone:
      case kReducePrecision:
      case kReduceWindow:
      case kSend:
      case kSendDone:
      case kSort:
      case kTuple:
      case kWhile:
      case kUnknown:
        return true;
      default:
        return false;
    }
  }

  static void FloatTypes(const InferredShape& s,
                         std::vector<PrimitiveType>* out) {
    if (s.is_tuple()) {
      for (const InferredShape& e : s.tuple) FloatTypes(e, out);
    } else if (IsFloatingPoint(s.element_type)) {
      out->push_back(s.element_type);
    }
  }

  // XLA's CheckMixedPrecisionOperands.
  void CheckOnePrecision(const Instruction& inst) {
    if (PassesMixedPrecision(inst.opcode) ||
        inst.wrapped_opcode != Opcode::kUnknown) {
      return;
    }
    std::vector<PrimitiveType> types;
    for (Id i = 0; i < inst.operands.count; ++i) {
      if (std::optional<InferredShape> s = OperandShape(inst, i)) {
        FloatTypes(*s, &types);
      }
    }
    for (PrimitiveType t : types) {
      if (t == types[0]) continue;
      f_.Error(
          inst.operand_list.empty() ? inst.opcode_span : inst.operand_list,
          base::Cat("Seen floating point types of different precisions "
                    "in ",
                    file().Name(inst), ", but mixed precision is disallowed."));
      return;
    }
  }

  const Findings& f_;
  const bool mixed_;
};

}  // namespace

void CheckOps(const Findings& f, bool allow_mixed_precision) {
  OpChecker checker(f, allow_mixed_precision);
  for (const Instruction& inst : f.file.instructions) checker.Check(inst);
}

}  // namespace hlo::verify_internal
