// Elementwise ops with XLA's edge semantics: integer division by zero gives
// -1 (remainder: the dividend), INT_MIN / -1 gives INT_MIN (remainder 0),
// shifts by the width or more give 0 (arithmetic right: the sign), min/max
// propagate NaN, integer arithmetic wraps, narrow floats compute in f32 and
// round to nearest even.
#include <cstring>

#include "absl/strings/str_cat.h"
#include "exec/elementwise_internal.h"

namespace hlo::exec {
namespace {

using namespace elementwise_internal;  // NOLINT: this file's own helpers

using PredT = PredTraits;

// o = compare(a, b) over n elements; a and b hold n elements or one.
template <typename T, typename S = typename T::S>
absl::Status Compare(const Node& node, const S* a, int64_t na, const S* b,
                     int64_t nb, uint8_t* o, int64_t n) {
  using C = typename T::C;
  const ComparisonDirection dir =
      node.attrs.comparison_direction.value_or(ComparisonDirection::kEq);
  const bool total = node.attrs.comparison_type == ComparisonType::kTotalOrder;
  auto map = [&](auto f) { Map2<T, PredT>(a, na, b, nb, o, n, f); };
  if constexpr (T::kKind == Kind::kComplex) {
    if (dir != ComparisonDirection::kEq && dir != ComparisonDirection::kNe)
      return absl::InvalidArgumentError("ordered compare of complex values");
    map([dir](C x, C y) {
      return dir == ComparisonDirection::kEq ? x == y : x != y;
    });
  } else if constexpr (T::kKind == Kind::kFloat) {
    if (total) {
      map([dir](C x, C y) {
        return CompareValues(dir, TotalKey(x), TotalKey(y));
      });
    } else {
      map([dir](C x, C y) { return CompareValues(dir, x, y); });
    }
  } else {
    map([dir](C x, C y) { return CompareValues(dir, x, y); });
  }
  return absl::OkStatus();
}

// Compare of two literals; narrow floats compare their f32 values.
template <typename T>
absl::Status CompareLiterals(const Node& node, const Literal& a,
                             const Literal& b, Literal& out) {
  using S = typename T::S;
  static_assert(std::is_same_v<typename PredT::S, uint8_t>);
  const S* x = a.data<S>();
  const S* y = b.data<S>();
  uint8_t* o = out.data<uint8_t>();
  if constexpr (kNarrowFloat<T>) {
    InF32Blocks<T, PredT>(
        x, a.count(), y, b.count(), o, out.count(),
        [&](const float* xf, int64_t nxf, const float* yf, int64_t nyf,
            uint8_t* of, int64_t m) {
          Compare<F32Traits>(node, xf, nxf, yf, nyf, of, m).IgnoreError();
        });
    return absl::OkStatus();
  } else {
    return Compare<T>(node, x, a.count(), y, b.count(), o, out.count());
  }
}

// Ops whose output element type differs from the input's.
template <typename T>
absl::Status UnaryToOther(const Node& node, const Literal& a, Literal& out) {
  using C = typename T::C;
  if (node.op == O::kIsFinite) {
    if constexpr (T::kKind == Kind::kFloat) {
      Map1<T, PredT>(a, out, [](C x) { return std::isfinite(x); });
      return absl::OkStatus();
    }
    return Unsupported(node, T::kType);
  }
  if constexpr (T::kKind == Kind::kComplex) {
    absl::Status st = absl::OkStatus();
    VisitType(out.type(), [&]<typename R>() {
      if constexpr (R::kKind == Kind::kFloat) {
        using RC = typename R::C;
        switch (node.op) {
          case O::kAbs:
            Map1<T, R>(a, out, [](C x) { return RC(std::abs(x)); });
            break;
          case O::kReal:
            Map1<T, R>(a, out, [](C x) { return RC(x.real()); });
            break;
          case O::kImag:
            Map1<T, R>(a, out, [](C x) { return RC(x.imag()); });
            break;
          default:
            st = Unsupported(node, T::kType);
        }
      } else {
        st = Unsupported(node, T::kType);
      }
    });
    return st;
  }
  return Unsupported(node, T::kType);
}

}  // namespace

bool IsElementwise(Opcode op) {
  switch (op) {
    case O::kAbs:
    case O::kNegate:
    case O::kExponential:
    case O::kExponentialMinusOne:
    case O::kLog:
    case O::kLogPlusOne:
    case O::kSqrt:
    case O::kRsqrt:
    case O::kCbrt:
    case O::kSine:
    case O::kCosine:
    case O::kTan:
    case O::kTanh:
    case O::kAtan:
    case O::kAcos:
    case O::kAsin:
    case O::kAcosh:
    case O::kAsinh:
    case O::kAtanh:
    case O::kCosh:
    case O::kSinh:
    case O::kErf:
    case O::kLogistic:
    case O::kFloor:
    case O::kCeil:
    case O::kRoundNearestAfz:
    case O::kRoundNearestEven:
    case O::kSign:
    case O::kNot:
    case O::kPopcnt:
    case O::kCountLeadingZeros:
    case O::kIsFinite:
    case O::kReal:
    case O::kImag:
    case O::kAdd:
    case O::kSubtract:
    case O::kMultiply:
    case O::kDivide:
    case O::kRemainder:
    case O::kMaximum:
    case O::kMinimum:
    case O::kPower:
    case O::kAtan2:
    case O::kAnd:
    case O::kOr:
    case O::kXor:
    case O::kShiftLeft:
    case O::kShiftRightLogical:
    case O::kShiftRightArithmetic:
    case O::kCompare:
    case O::kComplex:
    case O::kSelect:
    case O::kClamp:
      return true;
    default:
      return false;
  }
}

absl::StatusOr<Literal> EvalElementwise(const Node& node, Operands in) {
  for (const Value& v : in) {
    if (v->is_tuple()) return absl::InvalidArgumentError("tuple operand");
  }
  // Every path below writes each element (or fails), except complex() of
  // a non-float operand, which keeps the zeros.
  auto out_or =
      node.shape.is_tuple() || node.op == O::kComplex
          ? Literal::Create(node.shape)
          : Literal::CreateArrayForOverwrite(node.shape.type, node.shape.dims);
  if (!out_or.ok()) return out_or;
  Literal& out = *out_or;
  const int64_t n = out.count();
  for (const Value& v : in) {
    if (v->count() != n && v->count() != 1)
      return absl::InvalidArgumentError(Cat("operand ", ShapeString(v->shape()),
                                            " does not match result ",
                                            ShapeString(node.shape)));
  }
  absl::Status st = absl::OkStatus();
  const size_t arity = in.size();
  if (node.op == O::kSelect && arity == 3) {
    const auto* p = in[0]->data<uint8_t>();
    const int64_t sp = in[0]->count() == n ? 1 : 0;
    const int64_t sa = in[1]->count() == n ? 1 : 0;
    const int64_t sb = in[2]->count() == n ? 1 : 0;
    const int eb = out.element_bytes();
    const uint8_t* a = in[1]->raw();
    const uint8_t* b = in[2]->raw();
    uint8_t* o = out.raw();
    ForChunks(n, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i) {
        const uint8_t* src = p[i * sp] ? a + i * sa * eb : b + i * sb * eb;
        std::memcpy(o + i * eb, src, eb);
      }
    });
    return out_or;
  }
  if (node.op == O::kClamp && arity == 3) {  // clamp(min, x, max)
    VisitType(out.type(), [&]<typename T>() {
      using C = typename T::C;
      if constexpr (T::kKind == Kind::kComplex) {
        st = Unsupported(node, T::kType);
      } else {
        const auto* lo = in[0]->data<typename T::S>();
        const auto* x = in[1]->data<typename T::S>();
        const auto* hi = in[2]->data<typename T::S>();
        auto* o = out.data<typename T::S>();
        const int64_t sl = in[0]->count() == n ? 1 : 0;
        const int64_t sx = in[1]->count() == n ? 1 : 0;
        const int64_t sh = in[2]->count() == n ? 1 : 0;
        ForChunks(n, [&](int64_t b, int64_t e) {
          for (int64_t i = b; i < e; ++i) {
            C l = T::Load(lo[i * sl]), v = T::Load(x[i * sx]),
              h = T::Load(hi[i * sh]);
            C r;
            if constexpr (T::kKind == Kind::kFloat) {
              r = NanMin(NanMax(v, l), h);
            } else {
              r = v < l ? l : v;
              r = r > h ? h : r;
            }
            o[i] = T::Store(r);
          }
        });
      }
    });
    if (!st.ok()) return st;
    return out_or;
  }
  if (node.op == O::kComplex && arity == 2) {
    VisitType(in[0]->type(), [&]<typename T>() {
      if constexpr (T::kKind == Kind::kFloat) {
        VisitType(out.type(), [&]<typename R>() {
          if constexpr (R::kKind == Kind::kComplex) {
            using RC = typename R::C;
            using V = typename RC::value_type;
            Map2<T, R>(*in[0], *in[1], out, [](auto re, auto im) {
              return RC(static_cast<V>(re), static_cast<V>(im));
            });
          }
        });
      }
    });
    return out_or;
  }
  if (node.op == O::kCompare && arity == 2) {
    VisitType(in[0]->type(), [&]<typename T>() {
      st = CompareLiterals<T>(node, *in[0], *in[1], out);
    });
    if (!st.ok()) return st;
    return out_or;
  }
  if (arity == 1 && in[0]->type() != out.type()) {
    VisitType(in[0]->type(),
              [&]<typename T>() { st = UnaryToOther<T>(node, *in[0], out); });
    if (!st.ok()) return st;
    return out_or;
  }
  if (arity == 1) {
    if (node.op == O::kIsFinite) {
      return absl::InvalidArgumentError("is-finite must produce pred");
    }
    st = EvalUnaryOp(node, *in[0], out);
  } else if (arity == 2) {
    if (in[0]->type() != out.type() || in[1]->type() != out.type())
      return absl::InvalidArgumentError("operand types differ from the result");
    st = EvalBinaryOp(node, *in[0], *in[1], out);
  } else {
    return absl::InvalidArgumentError(
        Cat(OpcodeName(node.op), " with ", arity, " operands"));
  }
  if (!st.ok()) return st;
  return out_or;
}

}  // namespace hlo::exec
