// Elementwise ops with XLA's edge semantics: integer division by zero gives
// -1 (remainder: the dividend), INT_MIN / -1 gives INT_MIN (remainder 0),
// shifts by the width or more give 0 (arithmetic right: the sign), min/max
// propagate NaN, integer arithmetic wraps, narrow floats compute in f32 and
// round to nearest even.
#include <algorithm>
#include <bit>
#include <cmath>
#include <optional>
#include <tuple>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "exec/evaluator_internal.h"
#include "exec/parallel.h"
#include "exec/strings.h"
#include "exec/vector_math.h"

namespace hlo::exec {
namespace {

using O = Opcode;

template <typename C>
C NanMax(C a, C b) {
  if (std::isnan(a)) return a;
  if (std::isnan(b)) return b;
  return a > b ? a : b;
}
template <typename C>
C NanMin(C a, C b) {
  if (std::isnan(a)) return a;
  if (std::isnan(b)) return b;
  return a < b ? a : b;
}

// Total order on floats: -NaN < -inf < ... < -0 < +0 < ... < inf < +NaN.
inline std::tuple<int, double, int> TotalKey(double v) {
  if (std::isnan(v)) return {std::signbit(v) ? -2 : 2, 0.0, 0};
  if (v == 0) return {0, 0.0, std::signbit(v) ? -1 : 1};
  return {0, v, 0};
}

template <typename K>
bool CompareValues(ComparisonDirection dir, const K& a, const K& b) {
  switch (dir) {
    case ComparisonDirection::kEq:
      return a == b;
    case ComparisonDirection::kNe:
      return a != b;
    case ComparisonDirection::kGe:
      return a >= b;
    case ComparisonDirection::kGt:
      return a > b;
    case ComparisonDirection::kLe:
      return a <= b;
    case ComparisonDirection::kLt:
      return a < b;
  }
  return false;
}

template <typename C>
C IntPow(C base, C exp) {
  using U = std::make_unsigned_t<C>;
  if constexpr (std::is_signed_v<C>) {
    if (exp < 0) return base == 1 ? 1 : base == -1 ? (exp % 2 ? -1 : 1) : 0;
  }
  U result = 1, b = static_cast<U>(base);
  U e = static_cast<U>(exp);
  while (e) {
    if (e & 1) result = static_cast<U>(result * b);
    b = static_cast<U>(b * b);
    e >>= 1;
  }
  return static_cast<C>(result);
}

template <typename T>
constexpr uint64_t WidthMask() {
  return T::kBits >= 64 ? ~uint64_t{0} : (uint64_t{1} << T::kBits) - 1;
}

// Runs body(begin, end) over [0, n): split over the worker pool when the
// array is large enough for threads to pay (each takes >= 64K elements).
template <typename Body>
void ForChunks(int64_t n, const Body& body) {
  constexpr int64_t kMinPerThread = int64_t{1} << 16;
  const int threads =
      static_cast<int>(std::min<int64_t>(ExecThreads(), n / kMinPerThread));
  if (threads <= 1) {
    body(int64_t{0}, n);
    return;
  }
  ParallelFor(threads, [&](int t) {
    const Range r = SplitRange(n, threads, 64, t);
    body(r.begin, r.end);
  });
}

// Runs out[i] = f(a[i]) with per-type traits for input and output: a plain
// loop over contiguous memory (vectorized where f allows), in chunks.
template <typename TI, typename TO, typename F>
void Map1(const Literal& a, Literal& out, F f) {
  const auto* __restrict x = a.data<typename TI::S>();
  auto* __restrict o = out.data<typename TO::S>();
  ForChunks(out.count(), [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) o[i] = TO::Store(f(TI::Load(x[i])));
  });
}

template <typename TI, typename TO, typename F>
void Map2(const Literal& a, const Literal& b, Literal& out, F f) {
  const auto* __restrict x = a.data<typename TI::S>();
  const auto* __restrict y = b.data<typename TI::S>();
  auto* __restrict o = out.data<typename TO::S>();
  const int64_t n = out.count();
  if (a.count() == n && b.count() == n) {
    ForChunks(n, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i)
        o[i] = TO::Store(f(TI::Load(x[i]), TI::Load(y[i])));
    });
  } else if (b.count() == n) {  // a scalar operand broadcast (clamp, select,
                                // old dumps)
    const auto xs = TI::Load(x[0]);
    ForChunks(n, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i) o[i] = TO::Store(f(xs, TI::Load(y[i])));
    });
  } else if (a.count() == n) {
    const auto ys = TI::Load(y[0]);
    ForChunks(n, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i) o[i] = TO::Store(f(TI::Load(x[i]), ys));
    });
  } else {
    const auto v = f(TI::Load(x[0]), TI::Load(y[0]));
    for (int64_t i = 0; i < n; ++i) o[i] = TO::Store(v);
  }
}

// Unary float ops with a vectorized f32 implementation (vector_math.h).
std::optional<VecFn> VectorFn(Opcode op) {
  switch (op) {
    case O::kExponential:
      return VecFn::kExp;
    case O::kExponentialMinusOne:
      return VecFn::kExpm1;
    case O::kLog:
      return VecFn::kLog;
    case O::kLogPlusOne:
      return VecFn::kLog1p;
    case O::kTanh:
      return VecFn::kTanh;
    case O::kLogistic:
      return VecFn::kLogistic;
    case O::kSqrt:
      return VecFn::kSqrt;
    case O::kRsqrt:
      return VecFn::kRsqrt;
    default:
      return std::nullopt;
  }
}

// out = fn(a) for a type computing in f32: f32 arrays in place of their
// storage, narrower ones through f32 blocks on the stack (rounded once on
// the way out, as Map1 does).
template <typename T>
void MapVector(VecFn fn, const Literal& a, Literal& out) {
  const auto* x = a.data<typename T::S>();
  auto* o = out.data<typename T::S>();
  ForChunks(out.count(), [&](int64_t b, int64_t e) {
    if constexpr (std::is_same_v<typename T::S, float>) {
      VecMathF32(fn, x + b, o + b, e - b);
    } else {
      constexpr int64_t kBlock = 1024;
      float in[kBlock], res[kBlock];
      for (int64_t lo = b; lo < e; lo += kBlock) {
        const int64_t m = std::min(kBlock, e - lo);
        for (int64_t i = 0; i < m; ++i) in[i] = T::Load(x[lo + i]);
        VecMathF32(fn, in, res, m);
        for (int64_t i = 0; i < m; ++i) o[lo + i] = T::Store(res[i]);
      }
    }
  });
}

absl::Status Unsupported(const Node& node, PrimitiveType type) {
  return absl::UnimplementedError(Cat(
      OpcodeName(node.op), " is not defined for ", PrimitiveTypeName(type)));
}

template <typename T>
absl::Status Unary(const Node& node, const Literal& a, Literal& out) {
  using C = typename T::C;
  constexpr Kind k = T::kKind;
  auto map = [&](auto f) {
    Map1<T, T>(a, out, f);
    return absl::OkStatus();
  };
  if constexpr (k == Kind::kFloat) {
    if constexpr (std::is_same_v<C, float>) {
      if (auto fn = VectorFn(node.op); fn && a.count() == out.count()) {
        MapVector<T>(*fn, a, out);
        return absl::OkStatus();
      }
    }
    switch (node.op) {
      case O::kAbs:
        return map([](C x) { return std::fabs(x); });
      case O::kNegate:
        return map([](C x) { return -x; });
      case O::kExponential:
        return map([](C x) { return std::exp(x); });
      case O::kExponentialMinusOne:
        return map([](C x) { return std::expm1(x); });
      case O::kLog:
        return map([](C x) { return std::log(x); });
      case O::kLogPlusOne:
        return map([](C x) { return std::log1p(x); });
      case O::kSqrt:
        return map([](C x) { return std::sqrt(x); });
      case O::kRsqrt:
        return map([](C x) { return C(1) / std::sqrt(x); });
      case O::kCbrt:
        return map([](C x) { return std::cbrt(x); });
      case O::kSine:
        return map([](C x) { return std::sin(x); });
      case O::kCosine:
        return map([](C x) { return std::cos(x); });
      case O::kTan:
        return map([](C x) { return std::tan(x); });
      case O::kTanh:
        return map([](C x) { return std::tanh(x); });
      case O::kAtan:
        return map([](C x) { return std::atan(x); });
      case O::kAcos:
        return map([](C x) { return std::acos(x); });
      case O::kAsin:
        return map([](C x) { return std::asin(x); });
      case O::kAcosh:
        return map([](C x) { return std::acosh(x); });
      case O::kAsinh:
        return map([](C x) { return std::asinh(x); });
      case O::kAtanh:
        return map([](C x) { return std::atanh(x); });
      case O::kCosh:
        return map([](C x) { return std::cosh(x); });
      case O::kSinh:
        return map([](C x) { return std::sinh(x); });
      case O::kErf:
        return map([](C x) { return std::erf(x); });
      case O::kLogistic:
        return map([](C x) { return C(1) / (C(1) + std::exp(-x)); });
      case O::kFloor:
        return map([](C x) { return std::floor(x); });
      case O::kCeil:
        return map([](C x) { return std::ceil(x); });
      case O::kRoundNearestAfz:
        return map([](C x) { return std::round(x); });
      case O::kRoundNearestEven:
        return map([](C x) { return std::nearbyint(x); });
      case O::kSign:
        return map([](C x) {
          return std::isnan(x) || x == 0 ? x : std::copysign(C(1), x);
        });
      case O::kReal:
        return map([](C x) { return x; });
      case O::kImag:
        return map([](C) { return C(0); });
      default:
        break;
    }
  } else if constexpr (k == Kind::kComplex) {
    using R = typename C::value_type;
    switch (node.op) {
      case O::kNegate:
        return map([](C x) { return -x; });
      case O::kExponential:
        return map([](C x) { return std::exp(x); });
      case O::kExponentialMinusOne:
        return map([](C x) { return std::exp(x) - C(1); });
      case O::kLog:
        return map([](C x) { return std::log(x); });
      case O::kLogPlusOne:
        return map([](C x) { return std::log(C(1) + x); });
      case O::kSqrt:
        return map([](C x) { return std::sqrt(x); });
      case O::kRsqrt:
        return map([](C x) { return C(1) / std::sqrt(x); });
      case O::kSine:
        return map([](C x) { return std::sin(x); });
      case O::kCosine:
        return map([](C x) { return std::cos(x); });
      case O::kTan:
        return map([](C x) { return std::tan(x); });
      case O::kTanh:
        return map([](C x) { return std::tanh(x); });
      case O::kAcos:
        return map([](C x) { return std::acos(x); });
      case O::kAsin:
        return map([](C x) { return std::asin(x); });
      case O::kAtan:
        return map([](C x) { return std::atan(x); });
      case O::kAcosh:
        return map([](C x) { return std::acosh(x); });
      case O::kAsinh:
        return map([](C x) { return std::asinh(x); });
      case O::kAtanh:
        return map([](C x) { return std::atanh(x); });
      case O::kCosh:
        return map([](C x) { return std::cosh(x); });
      case O::kSinh:
        return map([](C x) { return std::sinh(x); });
      case O::kLogistic:
        return map([](C x) { return C(1) / (C(1) + std::exp(-x)); });
      case O::kSign:
        return map([](C x) {
          R m = std::abs(x);
          return m == 0 ? C(0) : x / m;
        });
      default:
        break;
    }
  } else if constexpr (k == Kind::kSigned || k == Kind::kUnsigned) {
    using U = std::make_unsigned_t<C>;
    constexpr uint64_t mask = WidthMask<T>();
    switch (node.op) {
      case O::kAbs:
        return map([](C x) { return x < 0 ? static_cast<C>(U(0) - U(x)) : x; });
      case O::kNegate:
        return map([](C x) { return static_cast<C>(U(0) - U(x)); });
      case O::kSign:
        return map([](C x) {
          return static_cast<C>(x > 0 ? 1 : x < 0 ? -1 : 0);
        });
      case O::kNot:
        return map([](C x) { return static_cast<C>(~x); });
      case O::kPopcnt:
        return map([](C x) {
          return static_cast<C>(std::popcount(uint64_t(U(x)) & mask));
        });
      case O::kCountLeadingZeros:
        return map([](C x) {
          uint64_t v = uint64_t(U(x)) & mask;
          return static_cast<C>(std::countl_zero(v) - (64 - T::kBits));
        });
      default:
        break;
    }
  } else if constexpr (k == Kind::kPred) {
    if (node.op == O::kNot) return map([](C x) { return !x; });
  }
  return Unsupported(node, T::kType);
}

template <typename T>
absl::Status Binary(const Node& node, const Literal& a, const Literal& b,
                    Literal& out) {
  using C = typename T::C;
  constexpr Kind k = T::kKind;
  auto map = [&](auto f) {
    Map2<T, T>(a, b, out, f);
    return absl::OkStatus();
  };
  if constexpr (k == Kind::kFloat) {
    switch (node.op) {
      case O::kAdd:
        return map([](C x, C y) { return x + y; });
      case O::kSubtract:
        return map([](C x, C y) { return x - y; });
      case O::kMultiply:
        return map([](C x, C y) { return x * y; });
      case O::kDivide:
        return map([](C x, C y) { return x / y; });
      case O::kRemainder:
        return map([](C x, C y) { return std::fmod(x, y); });
      case O::kMaximum:
        return map([](C x, C y) { return NanMax(x, y); });
      case O::kMinimum:
        return map([](C x, C y) { return NanMin(x, y); });
      case O::kPower:
        return map([](C x, C y) { return std::pow(x, y); });
      case O::kAtan2:
        return map([](C x, C y) { return std::atan2(x, y); });
      default:
        break;
    }
  } else if constexpr (k == Kind::kComplex) {
    switch (node.op) {
      case O::kAdd:
        return map([](C x, C y) { return x + y; });
      case O::kSubtract:
        return map([](C x, C y) { return x - y; });
      case O::kMultiply:
        return map([](C x, C y) { return x * y; });
      case O::kDivide:
        return map([](C x, C y) { return x / y; });
      case O::kPower:
        return map([](C x, C y) { return std::pow(x, y); });
      default:
        break;
    }
  } else if constexpr (k == Kind::kSigned || k == Kind::kUnsigned) {
    using U = std::make_unsigned_t<C>;
    constexpr uint64_t mask = WidthMask<T>();
    constexpr C kMin = T::Min();
    switch (node.op) {
      case O::kAdd:
        return map([](C x, C y) { return static_cast<C>(U(x) + U(y)); });
      case O::kSubtract:
        return map([](C x, C y) { return static_cast<C>(U(x) - U(y)); });
      case O::kMultiply:
        return map([](C x, C y) { return static_cast<C>(U(x) * U(y)); });
      case O::kDivide:
        return map([](C x, C y) -> C {
          if (y == 0) return static_cast<C>(-1);
          if constexpr (k == Kind::kSigned) {
            if (x == kMin && y == -1) return kMin;
          }
          return static_cast<C>(x / y);
        });
      case O::kRemainder:
        return map([](C x, C y) -> C {
          if (y == 0) return x;
          if constexpr (k == Kind::kSigned) {
            if (x == kMin && y == -1) return 0;
          }
          return static_cast<C>(x % y);
        });
      case O::kMaximum:
        return map([](C x, C y) { return x > y ? x : y; });
      case O::kMinimum:
        return map([](C x, C y) { return x < y ? x : y; });
      case O::kPower:
        return map([](C x, C y) { return IntPow<C>(x, y); });
      case O::kAnd:
        return map([](C x, C y) { return static_cast<C>(x & y); });
      case O::kOr:
        return map([](C x, C y) { return static_cast<C>(x | y); });
      case O::kXor:
        return map([](C x, C y) { return static_cast<C>(x ^ y); });
      case O::kShiftLeft:
        return map([](C x, C y) -> C {
          uint64_t s = uint64_t(U(y)) & mask;
          if (s >= T::kBits) return 0;
          return static_cast<C>(U(U(x) << s));
        });
      case O::kShiftRightLogical:
        return map([](C x, C y) -> C {
          uint64_t s = uint64_t(U(y)) & mask;
          if (s >= T::kBits) return 0;
          return static_cast<C>((uint64_t(U(x)) & mask) >> s);
        });
      case O::kShiftRightArithmetic:
        return map([](C x, C y) -> C {
          uint64_t s = uint64_t(U(y)) & mask;
          if constexpr (k == Kind::kSigned) {
            if (s >= T::kBits) return x < 0 ? -1 : 0;
            return static_cast<C>(x >> s);
          } else {  // unsigned: the top bit of the width is the sign
            const uint64_t v = uint64_t(x) & mask;
            const bool neg = (v >> (T::kBits - 1)) & 1;
            if (s >= T::kBits) return neg ? static_cast<C>(mask) : 0;
            uint64_t r = v >> s;
            if (neg) r |= (mask << (T::kBits - s)) & mask;
            return static_cast<C>(r);
          }
        });
      default:
        break;
    }
  } else if constexpr (k == Kind::kPred) {
    switch (node.op) {
      case O::kAnd:
      case O::kMinimum:
      case O::kMultiply:
        return map([](C x, C y) { return x && y; });
      case O::kOr:
      case O::kMaximum:
      case O::kAdd:
        return map([](C x, C y) { return x || y; });
      default:
        break;
    }
    if (node.op == O::kXor) return map([](C x, C y) { return x != y; });
  }
  return Unsupported(node, T::kType);
}

using PredT = PredTraits;

template <typename T>
absl::Status Compare(const Node& node, const Literal& a, const Literal& b,
                     Literal& out) {
  using C = typename T::C;
  const ComparisonDirection dir =
      node.attrs.comparison_direction.value_or(ComparisonDirection::kEq);
  const bool total = node.attrs.comparison_type == ComparisonType::kTotalOrder;
  if constexpr (T::kKind == Kind::kComplex) {
    if (dir != ComparisonDirection::kEq && dir != ComparisonDirection::kNe)
      return absl::InvalidArgumentError("ordered compare of complex values");
    Map2<T, PredT>(a, b, out, [dir](C x, C y) {
      return dir == ComparisonDirection::kEq ? x == y : x != y;
    });
  } else if constexpr (T::kKind == Kind::kFloat) {
    if (total) {
      Map2<T, PredT>(a, b, out, [dir](C x, C y) {
        return CompareValues(dir, TotalKey(x), TotalKey(y));
      });
    } else {
      Map2<T, PredT>(a, b, out,
                     [dir](C x, C y) { return CompareValues(dir, x, y); });
    }
  } else {
    Map2<T, PredT>(a, b, out,
                   [dir](C x, C y) { return CompareValues(dir, x, y); });
  }
  return absl::OkStatus();
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
      st = Compare<T>(node, *in[0], *in[1], out);
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
    VisitType(out.type(),
              [&]<typename T>() { st = Unary<T>(node, *in[0], out); });
  } else if (arity == 2) {
    if (in[0]->type() != out.type() || in[1]->type() != out.type())
      return absl::InvalidArgumentError("operand types differ from the result");
    VisitType(out.type(),
              [&]<typename T>() { st = Binary<T>(node, *in[0], *in[1], out); });
  } else {
    return absl::InvalidArgumentError(
        Cat(OpcodeName(node.op), " with ", arity, " operands"));
  }
  if (!st.ok()) return st;
  return out_or;
}

}  // namespace hlo::exec
