#include "exec/gpu/placement.h"

#include <climits>

#include "exec/strings.h"

namespace hlo::exec::gpu {
namespace {

using O = Opcode;

bool IsUnary(EwOp op) {
  return static_cast<int>(op) < static_cast<int>(EwOp::kAdd);
}

// Float-only ops (everything transcendental or rounding).
bool FloatOnly(EwOp op) {
  switch (op) {
    case EwOp::kAbs:
    case EwOp::kNegate:
    case EwOp::kSign:
    case EwOp::kNot:
    case EwOp::kPopcnt:
    case EwOp::kClz:
    case EwOp::kAdd:
    case EwOp::kSub:
    case EwOp::kMul:
    case EwOp::kDiv:
    case EwOp::kRem:
    case EwOp::kMax:
    case EwOp::kMin:
    case EwOp::kPow:
    case EwOp::kAnd:
    case EwOp::kOr:
    case EwOp::kXor:
    case EwOp::kShl:
    case EwOp::kShrLogical:
    case EwOp::kShrArithmetic:
      return false;
    default:
      return true;
  }
}

bool IntOnly(EwOp op) {
  switch (op) {
    case EwOp::kNot:
    case EwOp::kPopcnt:
    case EwOp::kClz:
    case EwOp::kAnd:
    case EwOp::kOr:
    case EwOp::kXor:
    case EwOp::kShl:
    case EwOp::kShrLogical:
    case EwOp::kShrArithmetic:
      return true;
    default:
      return false;
  }
}

bool PredOk(EwOp op) {
  switch (op) {
    case EwOp::kNot:
    case EwOp::kAnd:
    case EwOp::kOr:
    case EwOp::kXor:
    case EwOp::kMin:
    case EwOp::kMax:
    case EwOp::kMul:
    case EwOp::kAdd:
      return true;
    default:
      return false;
  }
}

bool MovableBytes(PrimitiveType t) {
  const int b = StorageBytes(t);
  return b == 1 || b == 2 || b == 4 || b == 8 || b == 16;
}

int64_t ElementCount(const LiteralShape& s) {
  int64_t n = 1;
  for (int64_t d : s.dims) n *= d;
  return n;
}

bool DefaultLayout(const std::vector<int64_t>& m2m, size_t rank) {
  if (m2m.empty()) return true;
  if (m2m.size() != rank) return false;
  for (size_t k = 0; k < rank; ++k)
    if (m2m[k] != static_cast<int64_t>(rank - 1 - k)) return false;
  return true;
}

}  // namespace

std::optional<DType> DeviceType(PrimitiveType t) {
  using P = PrimitiveType;
  switch (t) {
    case P::kPred:
      return DType::kPred;
    case P::kS8:
      return DType::kS8;
    case P::kS16:
      return DType::kS16;
    case P::kS32:
      return DType::kS32;
    case P::kS64:
      return DType::kS64;
    case P::kU8:
      return DType::kU8;
    case P::kU16:
      return DType::kU16;
    case P::kU32:
      return DType::kU32;
    case P::kU64:
      return DType::kU64;
    case P::kF16:
      return DType::kF16;
    case P::kBF16:
      return DType::kBF16;
    case P::kF32:
      return DType::kF32;
    case P::kF64:
      return DType::kF64;
    default:
      return std::nullopt;
  }
}

std::optional<EwOp> ElementwiseOp(Opcode op) {
  switch (op) {
    case O::kAbs:
      return EwOp::kAbs;
    case O::kNegate:
      return EwOp::kNegate;
    case O::kExponential:
      return EwOp::kExp;
    case O::kExponentialMinusOne:
      return EwOp::kExpm1;
    case O::kLog:
      return EwOp::kLog;
    case O::kLogPlusOne:
      return EwOp::kLog1p;
    case O::kSqrt:
      return EwOp::kSqrt;
    case O::kRsqrt:
      return EwOp::kRsqrt;
    case O::kCbrt:
      return EwOp::kCbrt;
    case O::kSine:
      return EwOp::kSin;
    case O::kCosine:
      return EwOp::kCos;
    case O::kTan:
      return EwOp::kTan;
    case O::kTanh:
      return EwOp::kTanh;
    case O::kAtan:
      return EwOp::kAtan;
    case O::kAcos:
      return EwOp::kAcos;
    case O::kAsin:
      return EwOp::kAsin;
    case O::kAcosh:
      return EwOp::kAcosh;
    case O::kAsinh:
      return EwOp::kAsinh;
    case O::kAtanh:
      return EwOp::kAtanh;
    case O::kCosh:
      return EwOp::kCosh;
    case O::kSinh:
      return EwOp::kSinh;
    case O::kErf:
      return EwOp::kErf;
    case O::kLogistic:
      return EwOp::kLogistic;
    case O::kFloor:
      return EwOp::kFloor;
    case O::kCeil:
      return EwOp::kCeil;
    case O::kRoundNearestAfz:
      return EwOp::kRoundAfz;
    case O::kRoundNearestEven:
      return EwOp::kRoundEven;
    case O::kSign:
      return EwOp::kSign;
    case O::kNot:
      return EwOp::kNot;
    case O::kPopcnt:
      return EwOp::kPopcnt;
    case O::kCountLeadingZeros:
      return EwOp::kClz;
    case O::kAdd:
      return EwOp::kAdd;
    case O::kSubtract:
      return EwOp::kSub;
    case O::kMultiply:
      return EwOp::kMul;
    case O::kDivide:
      return EwOp::kDiv;
    case O::kRemainder:
      return EwOp::kRem;
    case O::kMaximum:
      return EwOp::kMax;
    case O::kMinimum:
      return EwOp::kMin;
    case O::kPower:
      return EwOp::kPow;
    case O::kAtan2:
      return EwOp::kAtan2;
    case O::kAnd:
      return EwOp::kAnd;
    case O::kOr:
      return EwOp::kOr;
    case O::kXor:
      return EwOp::kXor;
    case O::kShiftLeft:
      return EwOp::kShl;
    case O::kShiftRightLogical:
      return EwOp::kShrLogical;
    case O::kShiftRightArithmetic:
      return EwOp::kShrArithmetic;
    default:
      return std::nullopt;
  }
}

std::optional<ReduceOp> SimpleReduceOp(const Plan& p) {
  if (p.parameters.size() != 2 || p.root < 0) return std::nullopt;
  const Node& root = p.nodes[p.root];
  std::optional<ReduceOp> op;
  switch (root.op) {
    case O::kAdd:
      op = ReduceOp::kAdd;
      break;
    case O::kMultiply:
      op = ReduceOp::kMul;
      break;
    case O::kMaximum:
      op = ReduceOp::kMax;
      break;
    case O::kMinimum:
      op = ReduceOp::kMin;
      break;
    case O::kAnd:
      op = ReduceOp::kAnd;
      break;
    case O::kOr:
      op = ReduceOp::kOr;
      break;
    default:
      return std::nullopt;
  }
  if (root.operands.size() != 2) return std::nullopt;
  int64_t nums[2];
  for (int k = 0; k < 2; ++k) {
    const Node& operand = p.nodes[root.operands[k]];
    if (operand.op != O::kParameter) return std::nullopt;
    nums[k] = operand.attrs.parameter_number.value_or(-1);
  }
  if (!((nums[0] == 0 && nums[1] == 1) || (nums[0] == 1 && nums[1] == 0)))
    return std::nullopt;
  return op;
}

bool IsStructural(Opcode op) {
  switch (op) {
    case O::kParameter:
    case O::kConstant:
    case O::kTuple:
    case O::kGetTupleElement:
    case O::kCall:
    case O::kFusion:
    case O::kWhile:
    case O::kConditional:
    case O::kAddDependency:
    case O::kOptimizationBarrier:
    case O::kOptBarrier:
    case O::kDomain:
    case O::kAsyncUpdate:
    case O::kAllReduceDone:
    case O::kAfterAll:
    case O::kGenerateToken:
    case O::kCopyStart:
    case O::kCopyDone:
    case O::kAsyncDone:
    case O::kPartitionId:
    case O::kReplicaId:
      return true;
    case O::kAsyncStart:  // with calls=; the sugared forms run on the host
    default:
      return false;
  }
}

std::string HostReason(const Node& node,
                       const std::vector<const LiteralShape*>& operands,
                       const Plan* reducer) {
  if (IsStructural(node.op)) return "";
  const std::string op_name(OpcodeName(node.op));
  const LiteralShape& out = node.shape;
  if (out.is_tuple()) return Cat(op_name, " with a tuple result");
  if (out.dims.size() > static_cast<size_t>(kMaxRank))
    return Cat(op_name, " of rank ", out.dims.size());
  for (const LiteralShape* s : operands) {
    if (s->is_tuple()) return Cat(op_name, " of a tuple");
    if (s->dims.size() > static_cast<size_t>(kMaxRank))
      return Cat(op_name, " of rank ", s->dims.size());
  }
  const std::string type_name(PrimitiveTypeName(out.type));
  const auto t = DeviceType(out.type);
  const int64_t n = ElementCount(out);
  auto same_count = [&](size_t from) {
    for (size_t k = from; k < operands.size(); ++k) {
      const int64_t c = ElementCount(*operands[k]);
      if (c != n && c != 1) return false;
    }
    return true;
  };
  switch (node.op) {
    case O::kSelect:
      if (operands.size() == 3 && operands[0]->type == PrimitiveType::kPred &&
          operands[1]->type == out.type && operands[2]->type == out.type &&
          MovableBytes(out.type) && same_count(0))
        return "";
      return Cat("select on ", type_name);
    case O::kClamp:
      if (operands.size() == 3 && t && *t != DType::kPred && same_count(0) &&
          operands[0]->type == out.type && operands[1]->type == out.type &&
          operands[2]->type == out.type)
        return "";
      return Cat("clamp on ", type_name);
    case O::kCompare:
      if (operands.size() == 2 && DeviceType(operands[0]->type) &&
          operands[1]->type == operands[0]->type && same_count(0))
        return "";
      return Cat(
          "compare on ",
          PrimitiveTypeName(operands.empty() ? out.type : operands[0]->type));
    case O::kIsFinite: {
      auto in =
          operands.size() == 1 ? DeviceType(operands[0]->type) : std::nullopt;
      if (in && IsFloat(*in)) return "";
      return "is-finite off float types";
    }
    case O::kBroadcast:
    case O::kTranspose:
    case O::kReshape:
    case O::kCopy:
    case O::kSlice:
    case O::kReverse:
    case O::kConcatenate:
    case O::kPad:
    case O::kDynamicSlice:
    case O::kDynamicUpdateSlice:
      if (!MovableBytes(out.type)) return Cat(op_name, " on ", type_name);
      if (operands.empty()) return Cat(op_name, " without operands");
      if (node.op == O::kSlice && !node.attrs.slice)
        return "slice without slice=";
      if (node.op == O::kPad && (!node.attrs.padding || operands.size() != 2))
        return "pad without padding=";
      if (node.op == O::kConcatenate &&
          (!node.attrs.dimensions || node.attrs.dimensions->size() != 1))
        return "concatenate without dimensions={d}";
      if ((node.op == O::kBroadcast || node.op == O::kTranspose) &&
          !node.attrs.dimensions && !operands[0]->dims.empty() &&
          node.op == O::kTranspose)
        return "transpose without dimensions=";
      if (node.op == O::kDynamicSlice || node.op == O::kDynamicUpdateSlice) {
        const size_t first = node.op == O::kDynamicSlice ? 1 : 2;
        for (size_t k = first; k < operands.size(); ++k) {
          auto it = DeviceType(operands[k]->type);
          if (!it || IsFloat(*it) || *it == DType::kPred)
            return Cat(op_name, " with ", PrimitiveTypeName(operands[k]->type),
                       " indices");
        }
      }
      return "";
    case O::kBitcast:
      if (operands.size() == 1 && operands[0]->type == out.type &&
          ElementCount(*operands[0]) == n &&
          DefaultLayout(node.minor_to_major, out.dims.size()) &&
          (node.operand_layouts.empty() ||
           DefaultLayout(node.operand_layouts[0], operands[0]->dims.size())))
        return "";
      return "bitcast that changes the layout or the type";
    case O::kIota:
      if (t && *t != DType::kPred && node.attrs.iota_dimension &&
          *node.attrs.iota_dimension >= 0 &&
          *node.attrs.iota_dimension < static_cast<int64_t>(out.dims.size()))
        return "";
      return Cat("iota of ", type_name);
    case O::kConvert:
      if (operands.size() == 1 && t && DeviceType(operands[0]->type)) return "";
      return Cat("convert to ", type_name);
    case O::kReduce: {
      if (operands.size() != 2) return "variadic reduce";
      if (!reducer) return "reduce without to_apply=";
      auto op = SimpleReduceOp(*reducer);
      if (!op)
        return "reduce with a reducer other than add/multiply/max/min/and/or";
      if (!t || operands[0]->type != out.type || operands[1]->type != out.type)
        return Cat("reduce on ", type_name);
      if (IsFloat(*t) && (*op == ReduceOp::kAnd || *op == ReduceOp::kOr))
        return "and/or reduce of floats";
      return "";
    }
    case O::kDot: {
      if (!node.attrs.dot_dimension_numbers || operands.size() != 2)
        return "dot without dimension numbers";
      const PrimitiveType a = operands[0]->type, b = operands[1]->type;
      if (a != b) return "dot of mixed types";
      const bool ok =
          (a == PrimitiveType::kF32 && out.type == PrimitiveType::kF32) ||
          (a == PrimitiveType::kF64 && out.type == PrimitiveType::kF64) ||
          ((a == PrimitiveType::kBF16 || a == PrimitiveType::kF16) &&
           (out.type == a || out.type == PrimitiveType::kF32));
      if (!ok) return Cat("dot of ", PrimitiveTypeName(a), " to ", type_name);
      int64_t k = 1;
      for (int64_t d :
           node.attrs.dot_dimension_numbers->lhs_contracting_dimensions) {
        if (d < 0 || d >= static_cast<int64_t>(operands[0]->dims.size()))
          return "dot contracting dimension out of range";
        k *= operands[0]->dims[d];
      }
      if (n > INT_MAX || k > INT_MAX || ElementCount(*operands[0]) > INT_MAX ||
          ElementCount(*operands[1]) > INT_MAX)
        return "dot larger than cuBLAS's 32-bit sizes";
      return "";
    }
    default:
      break;
  }
  if (IsElementwise(node.op)) {
    auto e = ElementwiseOp(node.op);
    if (!e) return Cat(op_name, " (complex numbers run on the host)");
    if (!t) return Cat(op_name, " on ", type_name);
    const size_t arity = IsUnary(*e) ? 1 : 2;
    if (operands.size() != arity)
      return Cat(op_name, " with ", operands.size(), " operands");
    for (const LiteralShape* s : operands)
      if (s->type != out.type) return Cat(op_name, " with mixed types");
    if (!same_count(0)) return Cat(op_name, " with mismatched operand sizes");
    if (IsUnary(*e) && ElementCount(*operands[0]) != n)
      return Cat(op_name, " with a broadcast operand");
    const bool fine = *t == DType::kPred ? PredOk(*e)
                      : IsFloat(*t)      ? !IntOnly(*e)
                                         : !FloatOnly(*e);
    if (!fine) return Cat(op_name, " on ", type_name);
    return "";
  }
  return Cat("no device kernel for ", op_name);
}

}  // namespace hlo::exec::gpu
