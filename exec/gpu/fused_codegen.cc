#include "exec/gpu/fused_codegen.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <optional>

#include "exec/gpu/fused_prelude.h"
#include "exec/strings.h"

namespace hlo::exec::gpu {
namespace {

using O = Opcode;
using P = PrimitiveType;

enum class K { kPred, kSigned, kUnsigned, kFloat };

// How a type is stored (S, each node's variable) and computed with (C).
struct Ty {
  K kind;
  const char* s;      // storage type in the prelude's names
  const char* c;      // compute type
  const char* u;      // unsigned twin (integers)
  const char* load;   // storage -> compute function ("" for none)
  const char* store;  // compute -> storage function
};

std::optional<Ty> TypeOf(P t) {
  switch (t) {
    case P::kPred: return Ty{K::kPred, "u8", "bool", "u8", "", ""};
    case P::kS8: return Ty{K::kSigned, "s8", "s8", "u8", "", ""};
    case P::kS16: return Ty{K::kSigned, "s16", "s16", "u16", "", ""};
    case P::kS32: return Ty{K::kSigned, "s32", "s32", "u32", "", ""};
    case P::kS64: return Ty{K::kSigned, "s64", "s64", "u64", "", ""};
    case P::kU8: return Ty{K::kUnsigned, "u8", "u8", "u8", "", ""};
    case P::kU16: return Ty{K::kUnsigned, "u16", "u16", "u16", "", ""};
    case P::kU32: return Ty{K::kUnsigned, "u32", "u32", "u32", "", ""};
    case P::kU64: return Ty{K::kUnsigned, "u64", "u64", "u64", "", ""};
    case P::kF16:
      return Ty{K::kFloat, "u16", "float", "", "f16_load", "f16_store"};
    case P::kBF16:
      return Ty{K::kFloat, "u16", "float", "", "bf16_load", "bf16_store"};
    case P::kF32: return Ty{K::kFloat, "float", "float", "", "", ""};
    case P::kF64: return Ty{K::kFloat, "double", "double", "", "", ""};
    default: return std::nullopt;
  }
}

absl::Status Decline(const Node& node, std::string_view why) {
  return absl::UnimplementedError(
      Cat("no fused kernel for ", OpcodeName(node.op), ": ", why));
}

// The C math function for a float op on `t` (f32 names for f32 and the
// narrow floats, which compute in f32).
std::string MathFn(const Ty& t, const char* name) {
  return std::string(name) + (std::strcmp(t.c, "float") == 0 ? "f" : "");
}

const char* UnaryMath(Opcode op) {
  switch (op) {
    case O::kAbs: return "fabs";
    case O::kExponential: return "exp";
    case O::kExponentialMinusOne: return "expm1";
    case O::kLog: return "log";
    case O::kLogPlusOne: return "log1p";
    case O::kSqrt: return "sqrt";
    case O::kCbrt: return "cbrt";
    case O::kSine: return "sin";
    case O::kCosine: return "cos";
    case O::kTan: return "tan";
    case O::kTanh: return "tanh";
    case O::kAtan: return "atan";
    case O::kAcos: return "acos";
    case O::kAsin: return "asin";
    case O::kAcosh: return "acosh";
    case O::kAsinh: return "asinh";
    case O::kAtanh: return "atanh";
    case O::kCosh: return "cosh";
    case O::kSinh: return "sinh";
    case O::kErf: return "erf";
    case O::kFloor: return "floor";
    case O::kCeil: return "ceil";
    case O::kRoundNearestAfz: return "round";
    case O::kRoundNearestEven: return "rint";  // nearbyint in the default mode
    default: return nullptr;
  }
}

const char* Relation(ComparisonDirection d) {
  switch (d) {
    case ComparisonDirection::kEq: return "==";
    case ComparisonDirection::kNe: return "!=";
    case ComparisonDirection::kGe: return ">=";
    case ComparisonDirection::kGt: return ">";
    case ComparisonDirection::kLe: return "<=";
    case ComparisonDirection::kLt: return "<";
  }
  return "==";
}

class Generator {
 public:
  Generator(const Plan& plan, std::string_view name)
      : plan_(plan), name_(name) {}

  absl::StatusOr<FusedKernelSource> Run() {
    const Node& root = plan_.nodes[plan_.root];
    // A multi-output fusion: a tuple of arrays of one size, none a tuple.
    std::vector<int> results = {plan_.root};
    if (root.shape.is_tuple()) {
      if (root.op != O::kTuple || root.operands.empty())
        return Decline(root, "a tuple root that is not a tuple instruction");
      results = root.operands;
    }
    const Node& first = plan_.nodes[results[0]];
    if (first.shape.is_tuple()) return Decline(first, "a nested tuple");
    std::optional<int64_t> n = CheckedElementCount(first.shape.dims);
    if (!n) return Decline(root, "the root's size overflows");
    n_ = *n;
    types_.resize(plan_.nodes.size());
    usable_.assign(plan_.nodes.size(), false);
    for (size_t i = 0; i < plan_.nodes.size(); ++i) {
      if (static_cast<int>(i) == plan_.root && root.shape.is_tuple()) continue;
      absl::Status st = Emit(static_cast<int>(i));
      if (!st.ok()) return st;
    }
    std::string params, stores;
    for (size_t k = 0; k < plan_.parameters.size(); ++k) {
      const Node& p = plan_.nodes[plan_.parameters[k]];
      params += Cat("const ", TypeOf(p.shape.type)->s, "* __restrict__ p", k,
                    ", ");
    }
    for (size_t k = 0; k < results.size(); ++k) {
      const int r = results[k];
      if (!usable_[r] || CheckedElementCount(plan_.nodes[r].shape.dims) != n_)
        return Decline(root, "results of different sizes");
      params += Cat(k ? ", " : "", types_[r]->s, "* __restrict__ out", k);
      stores += Cat("    out", k, "[i] = ", V(r), ";\n");
    }
    FusedKernelSource out;
    out.elements = n_;
    out.parameters = static_cast<int>(plan_.parameters.size());
    out.results = static_cast<int>(results.size());
    out.kernel = Cat("\nextern \"C\" __global__ void ", name_,
                     "(long long n, ", params, ") {\n",
                     scalars_,
                     "  for (long long i = (long long)blockIdx.x * blockDim.x + "
                     "threadIdx.x; i < n;\n       i += (long long)blockDim.x * "
                     "gridDim.x) {\n",
                     body_, stores, "  }\n}\n");
    out.source = kFusedPrelude + out.kernel;
    return out;
  }

 private:
  std::string V(int i) const { return Cat("v", i); }
  // Node i's value in its compute type.
  std::string Load(int i) const {
    const Ty& t = *types_[i];
    if (t.kind == K::kPred) return Cat("(", V(i), " != 0)");
    if (*t.load) return Cat(t.load, "(", V(i), ")");
    return V(i);
  }
  // A compute-type expression stored as `t`.
  static std::string Store(const Ty& t, const std::string& e) {
    if (t.kind == K::kPred) return Cat("((", e, ") ? (u8)1 : (u8)0)");
    if (*t.store) return Cat(t.store, "(", e, ")");
    return Cat("(", t.s, ")(", e, ")");
  }
  void Define(int i, const std::string& expr, bool scalar = false) {
    (scalar ? scalars_ : body_) +=
        Cat(scalar ? "  " : "    ", "const ", types_[i]->s, " ", V(i), " = ",
            expr, ";\n");
  }

  absl::Status Emit(int i);
  absl::Status EmitConstant(int i, const Node& node);
  absl::Status EmitBroadcast(int i, const Node& node);
  absl::Status EmitIota(int i, const Node& node);
  absl::StatusOr<std::string> Unary(const Node& node, const Ty& t, int x);
  absl::StatusOr<std::string> Binary(const Node& node, const Ty& t, int x,
                                     int y);
  std::string Convert(const Node& node, int x);

  const Plan& plan_;
  std::string name_;
  int64_t n_ = 0;
  std::vector<std::optional<Ty>> types_;
  std::vector<bool> usable_;  // a value of n elements or one
  std::string scalars_, body_;
};

absl::Status Generator::Emit(int i) {
  const Node& node = plan_.nodes[i];
  if (node.shape.is_tuple()) return Decline(node, "a tuple value");
  types_[i] = TypeOf(node.shape.type);
  if (!types_[i])
    return Decline(node, Cat(PrimitiveTypeName(node.shape.type), " values"));
  const Ty& t = *types_[i];
  std::optional<int64_t> count = CheckedElementCount(node.shape.dims);
  if (!count || (*count != n_ && *count != 1)) {
    // A parameter of another size: declined by the op that reads it.
    if (node.op == O::kParameter) return absl::OkStatus();
    return Decline(node, Cat("a value of ", ShapeString(node.shape),
                             " in a fusion of ", n_, " elements"));
  }
  usable_[i] = true;
  const std::vector<int>& in = node.operands;
  if (node.op == O::kBroadcast) return EmitBroadcast(i, node);
  if (node.op == O::kIota) return EmitIota(i, node);
  for (int o : in)
    if (!usable_[o])
      return Decline(node, Cat("an operand of ",
                               ShapeString(plan_.nodes[o].shape),
                               " in a fusion of ", n_, " elements"));
  auto same_type = [&](size_t first) {
    for (size_t k = first; k < in.size(); ++k)
      if (plan_.nodes[in[k]].shape.type != node.shape.type) return false;
    return true;
  };
  switch (node.op) {
    case O::kParameter: {
      const int64_t k = node.attrs.parameter_number.value_or(-1);
      if (k < 0 || k >= static_cast<int64_t>(plan_.parameters.size()))
        return Decline(node, "a parameter number out of range");
      const bool scalar = *count == 1 && n_ != 1;
      Define(i, Cat("p", k, scalar ? "[0]" : "[i]"), scalar);
      return absl::OkStatus();
    }
    case O::kConstant:
      return EmitConstant(i, node);
    case O::kReshape:
    case O::kCopy: {
      if (in.size() != 1 || !same_type(0))
        return Decline(node, "an operand of another type");
      if (*CheckedElementCount(plan_.nodes[in[0]].shape.dims) != *count)
        return Decline(node, "an operand of another size");
      Define(i, V(in[0]));  // row-major order is kept: element i is i
      return absl::OkStatus();
    }
    case O::kConvert:
      if (in.size() != 1) return Decline(node, "not one operand");
      Define(i, Convert(node, in[0]));
      return absl::OkStatus();
    case O::kSelect:
      if (in.size() != 3 || !same_type(1) ||
          types_[in[0]]->kind != K::kPred)
        return Decline(node, "operands of unexpected types");
      // The stored bytes of the chosen operand, as the CPU copies them.
      Define(i, Cat("(", V(in[0]), " != 0) ? ", V(in[1]), " : ", V(in[2])));
      return absl::OkStatus();
    case O::kClamp: {
      if (in.size() != 3 || !same_type(0))
        return Decline(node, "operands of another type");
      const std::string lo = Load(in[0]), x = Load(in[1]), hi = Load(in[2]);
      if (t.kind == K::kFloat) {
        Define(i, Store(t, Cat("nan_min(nan_max(", x, ", ", lo, "), ", hi,
                               ")")));
      } else {
        Define(i, Store(t, Cat("(", x, " < ", lo, " ? ", lo, " : ", x, ") > ",
                               hi, " ? ", hi, " : (", x, " < ", lo, " ? ",
                               lo, " : ", x, ")")));
      }
      return absl::OkStatus();
    }
    case O::kCompare: {
      if (in.size() != 2 || t.kind != K::kPred ||
          plan_.nodes[in[0]].shape.type != plan_.nodes[in[1]].shape.type)
        return Decline(node, "operands of unexpected types");
      const char* rel = Relation(node.attrs.comparison_direction.value_or(
          ComparisonDirection::kEq));
      const bool total =
          types_[in[0]]->kind == K::kFloat &&
          node.attrs.comparison_type == ComparisonType::kTotalOrder;
      Define(i, Store(t, total ? Cat("tot_cmp((double)", Load(in[0]),
                                     ", (double)", Load(in[1]), ") ", rel,
                                     " 0")
                               : Cat(Load(in[0]), " ", rel, " ",
                                     Load(in[1]))));
      return absl::OkStatus();
    }
    case O::kIsFinite:
      if (in.size() != 1 || t.kind != K::kPred ||
          types_[in[0]]->kind != K::kFloat)
        return Decline(node, "not a float operand");
      Define(i, Store(t, Cat("f_finite(", Load(in[0]), ")")));
      return absl::OkStatus();
    default:
      break;
  }
  if (!IsElementwise(node.op)) return Decline(node, "not elementwise");
  if (!same_type(0)) return Decline(node, "operands of another type");
  absl::StatusOr<std::string> e = absl::UnimplementedError("");
  if (in.size() == 1) {
    e = Unary(node, t, in[0]);
  } else if (in.size() == 2) {
    e = Binary(node, t, in[0], in[1]);
  } else {
    return Decline(node, Cat(in.size(), " operands"));
  }
  if (!e.ok()) return e.status();
  Define(i, *e);
  return absl::OkStatus();
}

// Element i of a node of n elements, when its dims are `dims`: its
// coordinate along dimension d (row-major).
std::string Coordinate(const std::vector<int64_t>& dims, size_t d) {
  int64_t stride = 1;
  for (size_t k = d + 1; k < dims.size(); ++k) stride *= dims[k];
  return Cat("((i / ", stride, "ll) % ", dims[d], "ll)");
}

// A broadcast of a scalar is that scalar; of a parameter, the parameter
// read at the operand index of each element (bias vectors and the like);
// other operands would need their whole computation at another index.
absl::Status Generator::EmitBroadcast(int i, const Node& node) {
  const std::vector<int>& in = node.operands;
  if (in.size() != 1 || plan_.nodes[in[0]].shape.type != node.shape.type)
    return Decline(node, "an operand of another type");
  const Node& operand = plan_.nodes[in[0]];
  const int64_t m = CheckedElementCount(operand.shape.dims).value_or(-1);
  if (m == 1 && usable_[in[0]]) {
    Define(i, V(in[0]));
    return absl::OkStatus();
  }
  if (operand.op != O::kParameter)
    return Decline(node, "a non-scalar operand that is not a parameter");
  const std::vector<int64_t> map =
      node.attrs.dimensions.value_or(std::vector<int64_t>{});
  const std::vector<int64_t>& od = operand.shape.dims;
  const std::vector<int64_t>& dims = node.shape.dims;
  if (map.size() != od.size())
    return Decline(node, "dimensions= do not match the operand");
  std::string index = "0";
  int64_t stride = 1;
  for (int k = static_cast<int>(od.size()) - 1; k >= 0; --k) {
    if (map[k] < 0 || map[k] >= static_cast<int64_t>(dims.size()) ||
        od[k] != dims[map[k]])
      return Decline(node, "dimensions= do not match the operand");
    index += Cat(" + ", Coordinate(dims, map[k]), " * ", stride, "ll");
    stride *= od[k];
  }
  Define(i, Cat("p", operand.attrs.parameter_number.value_or(0), "[", index,
                "]"));
  return absl::OkStatus();
}

// iota: the coordinate along iota_dimension, converted as the CPU does.
absl::Status Generator::EmitIota(int i, const Node& node) {
  const int64_t d = node.attrs.iota_dimension.value_or(-1);
  const std::vector<int64_t>& dims = node.shape.dims;
  if (d < 0 || d >= static_cast<int64_t>(dims.size()))
    return Decline(node, "iota_dimension out of range");
  const Ty& t = *types_[i];
  const std::string v = Cat("(s64)", Coordinate(dims, d));
  Define(i, t.kind == K::kPred ? Store(t, Cat(v, " != 0"))
                               : Store(t, Cat("(", t.c, ")", v)));
  return absl::OkStatus();
}

absl::Status Generator::EmitConstant(int i, const Node& node) {
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
    case P::kF32: expr = Cat("__uint_as_float((u32)", hex, ")"); break;
    case P::kF64: expr = Cat("__longlong_as_double((s64)", hex, ")"); break;
    default: expr = Cat("(", types_[i]->s, ")", hex); break;
  }
  Define(i, expr, /*scalar=*/true);
  return absl::OkStatus();
}

// XLA's convert, as ConvertLiteral does it: through double from floats, s64
// from signed and u64 from unsigned/pred; floats to integers saturate,
// integers wrap, narrow floats round through f32.
std::string Generator::Convert(const Node& node, int x) {
  if (plan_.nodes[x].shape.type == node.shape.type)
    return V(x);  // the same type: the bytes as they are
  const Ty& from = *types_[x];
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

absl::StatusOr<std::string> Generator::Unary(const Node& node, const Ty& t,
                                             int xi) {
  const std::string x = Load(xi);
  if (t.kind == K::kFloat) {
    const std::string one = Cat("(", t.c, ")1");
    if (const char* f = UnaryMath(node.op))
      return Store(t, Cat(MathFn(t, f), "(", x, ")"));
    switch (node.op) {
      case O::kNegate: return Store(t, Cat("-", x));
      case O::kRsqrt:
        return Store(t, Cat(one, " / ", MathFn(t, "sqrt"), "(", x, ")"));
      case O::kLogistic:
        return Store(t, Cat(one, " / (", one, " + ", MathFn(t, "exp"), "(-",
                            x, "))"));
      case O::kSign: return Store(t, Cat("f_sign(", x, ")"));
      case O::kReal: return V(xi);
      case O::kImag: return Store(t, Cat("(", t.c, ")0"));
      default: break;
    }
  } else if (t.kind == K::kPred) {
    if (node.op == O::kNot) return Store(t, Cat("!", x));
  } else {
    const std::string w = Cat("i_wrap<", t.c, ", ", t.u, ">");
    const std::string ux = Cat("(u64)(", t.u, ")", x);
    switch (node.op) {
      case O::kAbs:
        return Cat("(", x, " < 0 ? ", w, "(0 - ", ux, ") : ", x, ")");
      case O::kNegate: return Cat(w, "(0 - ", ux, ")");
      case O::kSign: return Cat("(", t.c, ")(", x, " > 0 ? 1 : ", x,
                                " < 0 ? -1 : 0)");
      case O::kNot: return Cat("(", t.c, ")~", x);
      case O::kPopcnt: return Cat("(", t.c, ")__popcll(", ux, ")");
      case O::kCountLeadingZeros:
        return Cat("i_clz<", t.c, ", ", t.u, ">(", x, ")");
      default: break;
    }
  }
  return Decline(node, Cat("not defined for ", PrimitiveTypeName(node.shape.type)));
}

absl::StatusOr<std::string> Generator::Binary(const Node& node, const Ty& t,
                                              int xi, int yi) {
  const std::string x = Load(xi), y = Load(yi);
  if (t.kind == K::kFloat) {
    auto op = [&](const char* o) { return Store(t, Cat(x, " ", o, " ", y)); };
    auto fn = [&](const std::string& f) {
      return Store(t, Cat(f, "(", x, ", ", y, ")"));
    };
    switch (node.op) {
      case O::kAdd: return op("+");
      case O::kSubtract: return op("-");
      case O::kMultiply: return op("*");
      case O::kDivide: return op("/");
      case O::kRemainder: return fn(MathFn(t, "fmod"));
      case O::kMaximum: return fn("nan_max");
      case O::kMinimum: return fn("nan_min");
      case O::kPower: return fn(MathFn(t, "pow"));
      case O::kAtan2: return fn(MathFn(t, "atan2"));
      default: break;
    }
  } else if (t.kind == K::kPred) {
    switch (node.op) {
      case O::kAnd:
      case O::kMinimum:
      case O::kMultiply: return Store(t, Cat(x, " && ", y));
      case O::kOr:
      case O::kMaximum:
      case O::kAdd: return Store(t, Cat(x, " || ", y));
      case O::kXor: return Store(t, Cat(x, " != ", y));
      default: break;
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
      case O::kAdd: return wrap("+");
      case O::kSubtract: return wrap("-");
      case O::kMultiply: return wrap("*");
      case O::kDivide: return fn("i_div");
      case O::kRemainder: return fn("i_rem");
      case O::kMaximum: return Cat("(", x, " > ", y, " ? ", x, " : ", y, ")");
      case O::kMinimum: return Cat("(", x, " < ", y, " ? ", x, " : ", y, ")");
      case O::kPower: return fn("i_pow");
      case O::kAnd: return Cat("(", t.c, ")(", x, " & ", y, ")");
      case O::kOr: return Cat("(", t.c, ")(", x, " | ", y, ")");
      case O::kXor: return Cat("(", t.c, ")(", x, " ^ ", y, ")");
      case O::kShiftLeft: return fn("i_shl");
      case O::kShiftRightLogical: return fn("i_shrl");
      case O::kShiftRightArithmetic: return fn("i_shra");
      default: break;
    }
  }
  return Decline(node, Cat("not defined for ", PrimitiveTypeName(node.shape.type)));
}

}  // namespace

absl::StatusOr<FusedKernelSource> GenerateFusedKernel(const Plan& plan,
                                                      std::string_view name) {
  if (plan.root < 0 || plan.root >= static_cast<int>(plan.nodes.size()))
    return absl::InvalidArgumentError("a fused computation without a root");
  return Generator(plan, name).Run();
}

}  // namespace hlo::exec::gpu
