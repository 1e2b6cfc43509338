// Unary elementwise ops on one element type (the result's).
#include "exec/elementwise_internal.h"

namespace hlo::exec::elementwise_internal {
namespace {

// o = op(x) over n elements; x holds n elements or one.
template <typename T, typename S = typename T::S>
absl::Status Unary(const Node& node, const S* x, int64_t nx, S* o, int64_t n) {
  using C = typename T::C;
  constexpr Kind k = T::kKind;
  auto map = [&](auto f) {
    Map1<T, T>(x, nx, o, n, f);
    return absl::OkStatus();
  };
  if constexpr (k == Kind::kFloat) {
    if constexpr (std::is_same_v<S, float>) {
      if (auto fn = VectorFn(node.op); fn && nx == n) {
        MapVector(*fn, x, o, n);
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

}  // namespace

absl::Status EvalUnaryOp(const Node& node, const Literal& a, Literal& out) {
  absl::Status st = absl::OkStatus();
  VisitType(out.type(), [&]<typename T>() {
    using S = typename T::S;
    const S* x = a.data<S>();
    S* o = out.data<S>();
    if constexpr (kNarrowFloat<T>) {
      // Every float type has the same ops: try the f32 one on one element.
      const float px = 1.0f;
      float po;
      if (!Unary<F32Traits>(node, &px, 1, &po, 1).ok()) {
        st = Unsupported(node, T::kType);
        return;
      }
      InF32Blocks<T, T>(
          x, a.count(), o, out.count(),
          [&](const float* xf, int64_t nxf, float* of, int64_t m) {
            Unary<F32Traits>(node, xf, nxf, of, m).IgnoreError();
          });
    } else {
      st = Unary<T>(node, x, a.count(), o, out.count());
    }
  });
  return st;
}

}  // namespace hlo::exec::elementwise_internal
