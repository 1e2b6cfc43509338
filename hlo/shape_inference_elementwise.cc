// Elementwise ops after XLA's InferUnaryOpShape, InferBinaryOpShape,
// InferTernaryOpShape (select, clamp), InferConvertShape,
// InferBitcastConvertShape and InferMapShape: the operands' dimensions, an
// element type by the op.
#include <string>

#include "absl/strings/str_cat.h"
#include "hlo/shape_inference_internal.h"

namespace hlo::shape_inference_internal {
namespace {

bool IsUnary(Opcode op) {
  switch (op) {
    case Opcode::kAbs:
    case Opcode::kAcos:
    case Opcode::kAcosh:
    case Opcode::kAsin:
    case Opcode::kAsinh:
    case Opcode::kAtan:
    case Opcode::kAtanh:
    case Opcode::kCbrt:
    case Opcode::kCeil:
    case Opcode::kCosh:
    case Opcode::kCosine:
    case Opcode::kCountLeadingZeros:
    case Opcode::kErf:
    case Opcode::kExponential:
    case Opcode::kExponentialMinusOne:
    case Opcode::kFloor:
    case Opcode::kImag:
    case Opcode::kIsFinite:
    case Opcode::kLog:
    case Opcode::kLogPlusOne:
    case Opcode::kLogistic:
    case Opcode::kNegate:
    case Opcode::kNot:
    case Opcode::kPopcnt:
    case Opcode::kReal:
    case Opcode::kReducePrecision:
    case Opcode::kRoundNearestAfz:
    case Opcode::kRoundNearestEven:
    case Opcode::kRsqrt:
    case Opcode::kSign:
    case Opcode::kSine:
    case Opcode::kSinh:
    case Opcode::kSqrt:
    case Opcode::kTan:
    case Opcode::kTanh:
      return true;
    default:
      return false;
  }
}

bool IsBinary(Opcode op) {
  switch (op) {
    case Opcode::kAdd:
    case Opcode::kAtan2:
    case Opcode::kAnd:
    case Opcode::kCompare:
    case Opcode::kComplex:
    case Opcode::kDivide:
    case Opcode::kMaximum:
    case Opcode::kMinimum:
    case Opcode::kMultiply:
    case Opcode::kOr:
    case Opcode::kPower:
    case Opcode::kRemainder:
    case Opcode::kShiftLeft:
    case Opcode::kShiftRightArithmetic:
    case Opcode::kShiftRightLogical:
    case Opcode::kSubtract:
    case Opcode::kXor:
      return true;
    default:
      return false;
  }
}

PrimitiveType ComplexComponent(PrimitiveType t) {
  if (t == PrimitiveType::kC64) return PrimitiveType::kF32;
  if (t == PrimitiveType::kC128) return PrimitiveType::kF64;
  return t;
}

// XLA's ExpectArray for a buffer b(...) where an array must be (other
// non-arrays, tuples and tokens, are not inferred here).
std::optional<Inference> NotABuffer(const InferredShape& s,
                                    std::string_view what) {
  if (s.element_type != PrimitiveType::kBuffer) return std::nullopt;
  return Fail(absl::StrCat("Expected array argument for ", std::string(what),
                           ", but got ", ShapeString(s), "."));
}

Inference Unary(const OpContext& ctx) {
  if (ctx.operands.size() == 1) {
    if (auto e = NotABuffer(ctx.operands[0], "operand of unary operation")) {
      return *e;
    }
  }
  if (ctx.operands.size() != 1 || !IsArray(ctx.operands[0])) {
    return CannotInfer();
  }
  InferredShape out = ctx.operands[0];
  switch (ctx.opcode()) {
    case Opcode::kAbs:
    case Opcode::kReal:
    case Opcode::kImag:
      out.element_type = ComplexComponent(out.element_type);
      break;
    case Opcode::kIsFinite:
      out.element_type = PrimitiveType::kPred;
      break;
    default:
      break;
  }
  return Ok(std::move(out));
}

Inference Binary(const OpContext& ctx) {
  if (ctx.operands.size() != 2) return CannotInfer();
  const InferredShape& lhs = ctx.operands[0];
  const InferredShape& rhs = ctx.operands[1];
  const std::string op(OpcodeName(ctx.opcode()));
  if (auto e = NotABuffer(lhs, "lhs of binary operation " + op)) return *e;
  if (auto e = NotABuffer(rhs, "rhs of binary operation " + op)) return *e;
  if (!IsArray(lhs) || !IsArray(rhs)) return CannotInfer();
  // HLO has no implicit broadcast: a rank difference is an error XLA words
  // by the builder's broadcast rules, which are not HLO's; stay silent.
  if (lhs.dims.size() != rhs.dims.size()) return CannotInfer();
  if (lhs.dims != rhs.dims) {
    return Fail(absl::StrCat("Binary op ",
                             std::string(OpcodeName(ctx.opcode())),
                             " with incompatible shapes: ", ShapeString(lhs),
                             " and ", ShapeString(rhs), "."));
  }
  InferredShape out = lhs;
  out.element_type = HigherPrecision(lhs.element_type, rhs.element_type);
  if (ctx.opcode() == Opcode::kCompare) {
    out.element_type = PrimitiveType::kPred;
  } else if (ctx.opcode() == Opcode::kComplex) {
    if (lhs.element_type == PrimitiveType::kF32 &&
        rhs.element_type == PrimitiveType::kF32) {
      out.element_type = PrimitiveType::kC64;
    } else if (lhs.element_type == PrimitiveType::kF64 &&
               rhs.element_type == PrimitiveType::kF64) {
      out.element_type = PrimitiveType::kC128;
    } else {
      return CannotInfer();
    }
  }
  return Ok(std::move(out));
}

// A scalar or an operand of the result's dimensions: the only two forms
// select's predicate and clamp's bounds may take.
bool ScalarOrSameDims(const InferredShape& s, const InferredShape& full) {
  return s.dims.empty() || s.dims == full.dims;
}

Inference Select(const OpContext& ctx) {
  if (ctx.operands.size() != 3) return CannotInfer();
  const InferredShape& pred = ctx.operands[0];
  const InferredShape& on_true = ctx.operands[1];
  const InferredShape& on_false = ctx.operands[2];
  if (!IsArray(on_true) || !IsArray(on_false) || !IsArray(pred)) {
    return CannotInfer();  // the old tuple select
  }
  if (on_true.dims != on_false.dims) {
    return Fail(absl::StrCat("Operands to select must be the same shape; got ",
                             ShapeString(on_true), " and ",
                             ShapeString(on_false), "."));
  }
  if (!ScalarOrSameDims(pred, on_true)) {
    return Fail(absl::StrCat(
        "Operands to select and predicate must be the same shape; got ",
        ShapeString(on_true), " and ", ShapeString(pred), "."));
  }
  InferredShape out = on_true;
  out.element_type =
      HigherPrecision(on_true.element_type, on_false.element_type);
  return Ok(std::move(out));
}

Inference Clamp(const OpContext& ctx) {
  if (ctx.operands.size() != 3) return CannotInfer();
  const InferredShape& min = ctx.operands[0];
  const InferredShape& operand = ctx.operands[1];
  const InferredShape& max = ctx.operands[2];
  if (!IsArray(min) || !IsArray(operand) || !IsArray(max)) {
    return CannotInfer();
  }
  if (!ScalarOrSameDims(min, operand) || !ScalarOrSameDims(max, operand)) {
    return Fail(
        absl::StrCat("Clamp with incompatible shapes: ", ShapeString(min), ", ",
                     ShapeString(operand), ", ", ShapeString(max), "."));
  }
  return Ok(operand);
}

// convert and stochastic-convert: the operand's dimensions in the declared
// element type (the target type is only in the result shape).
Inference Convert(const OpContext& ctx) {
  if (ctx.operands.empty() || !IsArray(ctx.operands[0]) || !ctx.declared ||
      !IsArray(*ctx.declared)) {
    return CannotInfer();
  }
  InferredShape out = ctx.operands[0];
  out.element_type = ctx.declared->element_type;
  return Ok(std::move(out));
}

// Same width: same dimensions. Narrower: a minor dimension of the ratio is
// added. Wider: the minor dimension (the ratio) goes.
Inference BitcastConvert(const OpContext& ctx) {
  if (ctx.operands.size() != 1 || !IsArray(ctx.operands[0]) || !ctx.declared ||
      !IsArray(*ctx.declared)) {
    return CannotInfer();
  }
  const InferredShape& in = ctx.operands[0];
  const PrimitiveType to = ctx.declared->element_type;
  const int in_bits = PrimitiveTypeBitWidth(in.element_type);
  const int out_bits = PrimitiveTypeBitWidth(to);
  // pred is a byte in memory but one bit to PrimitiveTypeBitWidth's callers
  // elsewhere: leave it alone.
  if (in_bits <= 0 || out_bits <= 0 ||
      in.element_type == PrimitiveType::kPred || to == PrimitiveType::kPred) {
    return CannotInfer();
  }
  InferredShape out = in;
  out.element_type = to;
  if (in_bits > out_bits) {
    if (in_bits % out_bits != 0) return CannotInfer();
    out.dims.push_back(in_bits / out_bits);
  } else if (in_bits < out_bits) {
    if (out_bits % in_bits != 0 || in.dims.empty() ||
        in.dims.back() != out_bits / in_bits) {
      return CannotInfer();
    }
    out.dims.pop_back();
  }
  return Ok(std::move(out));
}

Inference Map(const OpContext& ctx) {
  if (ctx.operands.empty() || !IsArray(ctx.operands[0])) return CannotInfer();
  std::optional<InferredShape> root = ctx.CalledRoot("to_apply");
  if (!root || !IsArray(*root) || !root->dims.empty()) return CannotInfer();
  InferredShape out = ctx.operands[0];
  out.element_type = root->element_type;
  return Ok(std::move(out));
}

}  // namespace

std::optional<Inference> InferElementwise(const OpContext& ctx) {
  const Opcode op = ctx.opcode();
  if (IsUnary(op)) return Unary(ctx);
  if (IsBinary(op)) return Binary(ctx);
  switch (op) {
    case Opcode::kSelect:
      return Select(ctx);
    case Opcode::kClamp:
      return Clamp(ctx);
    case Opcode::kConvert:
    case Opcode::kStochasticConvert:
      return Convert(ctx);
    case Opcode::kBitcastConvert:
      return BitcastConvert(ctx);
    case Opcode::kMap:
      return Map(ctx);
    default:
      return std::nullopt;
  }
}

}  // namespace hlo::shape_inference_internal
