// The per-element expressions of the fused kernels' elementwise ops
// (fused_codegen_internal.h): each mirrors the CPU op functions' edge rules
// through the prelude's helpers (fused_prelude.h).
#include <algorithm>
#include <cstdio>
#include <cstring>

#include "exec/gpu/fused_codegen_internal.h"
#include "exec/strings.h"

namespace hlo::exec::gpu::fused {
namespace {

using O = Opcode;
using P = PrimitiveType;

// The C math function for a float op on `t` (f32 names for f32 and the
// narrow floats, which compute in f32).
std::string MathFn(const Ty& t, const char* name) {
  return std::string(name) + (std::strcmp(t.c, "float") == 0 ? "f" : "");
}

const char* UnaryMath(Opcode op) {
  switch (op) {
    case O::kAbs:
      return "fabs";
    case O::kExponential:
      return "exp";
    case O::kExponentialMinusOne:
      return "expm1";
    case O::kLog:
      return "log";
    case O::kLogPlusOne:
      return "log1p";
    case O::kSqrt:
      return "sqrt";
    case O::kCbrt:
      return "cbrt";
    case O::kSine:
      return "sin";
    case O::kCosine:
      return "cos";
    case O::kTan:
      return "tan";
    case O::kTanh:
      return "tanh";
    case O::kAtan:
      return "atan";
    case O::kAcos:
      return "acos";
    case O::kAsin:
      return "asin";
    case O::kAcosh:
      return "acosh";
    case O::kAsinh:
      return "asinh";
    case O::kAtanh:
      return "atanh";
    case O::kCosh:
      return "cosh";
    case O::kSinh:
      return "sinh";
    case O::kErf:
      return "erf";
    case O::kFloor:
      return "floor";
    case O::kCeil:
      return "ceil";
    case O::kRoundNearestAfz:
      return "round";
    case O::kRoundNearestEven:
      return "rint";  // nearbyint in the default mode
    default:
      return nullptr;
  }
}

const char* Relation(ComparisonDirection d) {
  switch (d) {
    case ComparisonDirection::kEq:
      return "==";
    case ComparisonDirection::kNe:
      return "!=";
    case ComparisonDirection::kGe:
      return ">=";
    case ComparisonDirection::kGt:
      return ">";
    case ComparisonDirection::kLe:
      return "<=";
    case ComparisonDirection::kLt:
      return "<";
  }
  return "==";
}

// XLA's convert, as ConvertLiteral does it: through double from floats, s64
// from signed and u64 from unsigned/pred; floats to integers saturate,
// integers wrap, narrow floats round through f32.
std::string Convert(const Node& node, const Val& x) {
  if (x.type == node.shape.type)
    return x.var;  // the same type: the bytes as they are
  const Ty& from = x.ty;
  const Ty to = *TypeOf(node.shape.type);
  const char* wide = from.kind == K::kFloat    ? "double"
                     : from.kind == K::kSigned ? "s64"
                                               : "u64";
  const std::string v = Cat("(", wide, ")", Load(x));
  switch (to.kind) {
    case K::kPred:
      return Store(to, Cat(v, " != 0"));
    case K::kFloat:
      return Store(to, Cat("(", to.c, ")", v));
    default:
      if (from.kind == K::kFloat)
        return Cat("f_to_i<", to.c, ", ", to.u, ">(", v, ")");
      return Cat("(", to.c, ")(", to.u, ")", v);
  }
}

absl::StatusOr<std::string> Unary(const Node& node, const Ty& t,
                                  const Val& xv) {
  const std::string x = Load(xv);
  if (t.kind == K::kFloat) {
    const std::string one = Cat("(", t.c, ")1");
    if (const char* f = UnaryMath(node.op))
      return Store(t, Cat(MathFn(t, f), "(", x, ")"));
    switch (node.op) {
      case O::kNegate:
        return Store(t, Cat("-", x));
      case O::kRsqrt:
        return Store(t, Cat(one, " / ", MathFn(t, "sqrt"), "(", x, ")"));
      case O::kLogistic:
        return Store(
            t, Cat(one, " / (", one, " + ", MathFn(t, "exp"), "(-", x, "))"));
      case O::kSign:
        return Store(t, Cat("f_sign(", x, ")"));
      case O::kReal:
        return xv.var;
      case O::kImag:
        return Store(t, Cat("(", t.c, ")0"));
      default:
        break;
    }
  } else if (t.kind == K::kPred) {
    if (node.op == O::kNot) return Store(t, Cat("!", x));
  } else {
    const std::string w = Cat("i_wrap<", t.c, ", ", t.u, ">");
    const std::string ux = Cat("(u64)(", t.u, ")", x);
    switch (node.op) {
      case O::kAbs:
        return Cat("(", x, " < 0 ? ", w, "(0 - ", ux, ") : ", x, ")");
      case O::kNegate:
        return Cat(w, "(0 - ", ux, ")");
      case O::kSign:
        return Cat("(", t.c, ")(", x, " > 0 ? 1 : ", x, " < 0 ? -1 : 0)");
      case O::kNot:
        return Cat("(", t.c, ")~", x);
      case O::kPopcnt:
        return Cat("(", t.c, ")__popcll(", ux, ")");
      case O::kCountLeadingZeros:
        return Cat("i_clz<", t.c, ", ", t.u, ">(", x, ")");
      default:
        break;
    }
  }
  return Decline(node,
                 Cat("not defined for ", PrimitiveTypeName(node.shape.type)));
}

absl::StatusOr<std::string> Binary(const Node& node, const Ty& t, const Val& xv,
                                   const Val& yv) {
  const std::string x = Load(xv), y = Load(yv);
  if (t.kind == K::kFloat) {
    auto op = [&](const char* o) { return Store(t, Cat(x, " ", o, " ", y)); };
    auto fn = [&](const std::string& f) {
      return Store(t, Cat(f, "(", x, ", ", y, ")"));
    };
    switch (node.op) {
      case O::kAdd:
        return op("+");
      case O::kSubtract:
        return op("-");
      case O::kMultiply:
        return op("*");
      case O::kDivide:
        return op("/");
      case O::kRemainder:
        return fn(MathFn(t, "fmod"));
      case O::kMaximum:
        return fn("nan_max");
      case O::kMinimum:
        return fn("nan_min");
      case O::kPower:
        return fn(MathFn(t, "pow"));
      case O::kAtan2:
        return fn(MathFn(t, "atan2"));
      default:
        break;
    }
  } else if (t.kind == K::kPred) {
    switch (node.op) {
      case O::kAnd:
      case O::kMinimum:
      case O::kMultiply:
        return Store(t, Cat(x, " && ", y));
      case O::kOr:
      case O::kMaximum:
      case O::kAdd:
        return Store(t, Cat(x, " || ", y));
      case O::kXor:
        return Store(t, Cat(x, " != ", y));
      default:
        break;
    }
  } else {
    const std::string targs = Cat("<", t.c, ", ", t.u, ">");
    const std::string w = Cat("i_wrap", targs);
    auto wrap = [&](const char* o) {
      return Cat(w, "((u64)(", t.u, ")", x, " ", o, " (u64)(", t.u, ")", y,
                 ")");
    };
    auto fn = [&](const char* f) {
      return Cat(f, targs, "(", x, ", ", y, ")");
    };
    switch (node.op) {
      case O::kAdd:
        return wrap("+");
      case O::kSubtract:
        return wrap("-");
      case O::kMultiply:
        return wrap("*");
      case O::kDivide:
        return fn("i_div");
      case O::kRemainder:
        return fn("i_rem");
      case O::kMaximum:
        return Cat("(", x, " > ", y, " ? ", x, " : ", y, ")");
      case O::kMinimum:
        return Cat("(", x, " < ", y, " ? ", x, " : ", y, ")");
      case O::kPower:
        return fn("i_pow");
      case O::kAnd:
        return Cat("(", t.c, ")(", x, " & ", y, ")");
      case O::kOr:
        return Cat("(", t.c, ")(", x, " | ", y, ")");
      case O::kXor:
        return Cat("(", t.c, ")(", x, " ^ ", y, ")");
      case O::kShiftLeft:
        return fn("i_shl");
      case O::kShiftRightLogical:
        return fn("i_shrl");
      case O::kShiftRightArithmetic:
        return fn("i_shra");
      default:
        break;
    }
  }
  return Decline(node,
                 Cat("not defined for ", PrimitiveTypeName(node.shape.type)));
}

}  // namespace

std::optional<Ty> TypeOf(P t) {
  switch (t) {
    case P::kPred:
      return Ty{K::kPred, "u8", "bool", "u8", "", ""};
    case P::kS8:
      return Ty{K::kSigned, "s8", "s8", "u8", "", ""};
    case P::kS16:
      return Ty{K::kSigned, "s16", "s16", "u16", "", ""};
    case P::kS32:
      return Ty{K::kSigned, "s32", "s32", "u32", "", ""};
    case P::kS64:
      return Ty{K::kSigned, "s64", "s64", "u64", "", ""};
    case P::kU8:
      return Ty{K::kUnsigned, "u8", "u8", "u8", "", ""};
    case P::kU16:
      return Ty{K::kUnsigned, "u16", "u16", "u16", "", ""};
    case P::kU32:
      return Ty{K::kUnsigned, "u32", "u32", "u32", "", ""};
    case P::kU64:
      return Ty{K::kUnsigned, "u64", "u64", "u64", "", ""};
    case P::kF16:
      return Ty{K::kFloat, "u16", "float", "", "f16_load", "f16_store"};
    case P::kBF16:
      return Ty{K::kFloat, "u16", "float", "", "bf16_load", "bf16_store"};
    case P::kF32:
      return Ty{K::kFloat, "float", "float", "", "", ""};
    case P::kF64:
      return Ty{K::kFloat, "double", "double", "", "", ""};
    default:
      return std::nullopt;
  }
}

absl::Status Decline(const Node& node, std::string_view why) {
  return absl::UnimplementedError(
      Cat("no fused kernel for ", OpcodeName(node.op), ": ", why));
}

std::string Load(const Val& v) {
  if (v.ty.kind == K::kPred) return Cat("(", v.var, " != 0)");
  if (*v.ty.load) return Cat(v.ty.load, "(", v.var, ")");
  return v.var;
}

std::string Store(const Ty& t, const std::string& e) {
  if (t.kind == K::kPred) return Cat("((", e, ") ? (u8)1 : (u8)0)");
  if (*t.store) return Cat(t.store, "(", e, ")");
  return Cat("(", t.s, ")(", e, ")");
}

absl::StatusOr<std::string> ElementwiseExpr(const Node& node,
                                            const std::vector<Val>& in) {
  const Ty t = *TypeOf(node.shape.type);
  auto same_type = [&](size_t first) {
    for (size_t k = first; k < in.size(); ++k)
      if (in[k].type != node.shape.type) return false;
    return true;
  };
  switch (node.op) {
    case O::kConvert:
      if (in.size() != 1) return Decline(node, "not one operand");
      return Convert(node, in[0]);
    case O::kSelect:
      if (in.size() != 3 || !same_type(1) || in[0].ty.kind != K::kPred)
        return Decline(node, "operands of unexpected types");
      // The stored bytes of the chosen operand, as the CPU copies them.
      return Cat("(", in[0].var, " != 0) ? ", in[1].var, " : ", in[2].var);
    case O::kClamp: {
      if (in.size() != 3 || !same_type(0))
        return Decline(node, "operands of another type");
      const std::string lo = Load(in[0]), x = Load(in[1]), hi = Load(in[2]);
      if (t.kind == K::kFloat)
        return Store(t, Cat("nan_min(nan_max(", x, ", ", lo, "), ", hi, ")"));
      return Store(
          t, Cat("(", x, " < ", lo, " ? ", lo, " : ", x, ") > ", hi, " ? ", hi,
                 " : (", x, " < ", lo, " ? ", lo, " : ", x, ")"));
    }
    case O::kCompare: {
      if (in.size() != 2 || t.kind != K::kPred || in[0].type != in[1].type)
        return Decline(node, "operands of unexpected types");
      const char* rel = Relation(
          node.attrs.comparison_direction.value_or(ComparisonDirection::kEq));
      const bool total =
          in[0].ty.kind == K::kFloat &&
          node.attrs.comparison_type == ComparisonType::kTotalOrder;
      return Store(t, total ? Cat("tot_cmp((double)", Load(in[0]), ", (double)",
                                  Load(in[1]), ") ", rel, " 0")
                            : Cat(Load(in[0]), " ", rel, " ", Load(in[1])));
    }
    case O::kIsFinite:
      if (in.size() != 1 || t.kind != K::kPred || in[0].ty.kind != K::kFloat)
        return Decline(node, "not a float operand");
      return Store(t, Cat("f_finite(", Load(in[0]), ")"));
    default:
      break;
  }
  if (!IsElementwise(node.op)) return Decline(node, "not elementwise");
  if (!same_type(0)) return Decline(node, "operands of another type");
  if (in.size() == 1) return Unary(node, t, in[0]);
  if (in.size() == 2) return Binary(node, t, in[0], in[1]);
  return Decline(node, Cat(in.size(), " operands"));
}

std::string IotaExpr(const Ty& t, const std::string& coordinate) {
  const std::string v = Cat("(s64)", coordinate);
  return t.kind == K::kPred ? Store(t, Cat(v, " != 0"))
                            : Store(t, Cat("(", t.c, ")", v));
}

absl::StatusOr<std::string> ConstantExpr(const Node& node) {
  if (!node.attrs.literal) return Decline(node, "no literal");
  bool elided = false;
  auto lit = LiteralFromValue(*node.attrs.literal, node.shape, &elided);
  if (!lit.ok()) return lit.status();
  if (elided || lit->count() != 1)
    return Decline(node, "not a scalar (only scalar constants are inlined)");
  uint64_t bits = 0;
  std::memcpy(&bits, lit->raw(), std::min<int>(8, lit->element_bytes()));
  char hex[32];
  std::snprintf(hex, sizeof hex, "0x%llxull",
                static_cast<unsigned long long>(bits));
  std::string expr;
  switch (node.shape.type) {
    case P::kF32:
      expr = Cat("__uint_as_float((u32)", hex, ")");
      break;
    case P::kF64:
      expr = Cat("__longlong_as_double((s64)", hex, ")");
      break;
    default:
      expr = Cat("(", TypeOf(node.shape.type)->s, ")", hex);
      break;
  }
  return expr;
}

}  // namespace hlo::exec::gpu::fused
