// Binary elementwise ops on one element type (the result's).
#include "exec/elementwise_internal.h"

namespace hlo::exec::elementwise_internal {
namespace {

// o = op(x, y) over n elements; x and y hold n elements or one.
template <typename T, typename S = typename T::S>
absl::Status Binary(const Node& node, const S* x, int64_t nx, const S* y,
                    int64_t ny, S* o, int64_t n) {
  using C = typename T::C;
  constexpr Kind k = T::kKind;
  auto map = [&](auto f) {
    Map2<T, T>(x, nx, y, ny, o, n, f);
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
            // s == 0 keeps v (mask << 64 would be undefined: x86 gave ~0).
            if (neg && s > 0) r |= (mask << (T::kBits - s)) & mask;
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

}  // namespace

absl::Status EvalBinaryOp(const Node& node, const Literal& a, const Literal& b,
                          Literal& out) {
  absl::Status st = absl::OkStatus();
  VisitType(out.type(), [&]<typename T>() {
    using S = typename T::S;
    const S* x = a.data<S>();
    const S* y = b.data<S>();
    S* o = out.data<S>();
    if constexpr (kNarrowFloat<T>) {
      // Every float type has the same ops: try the f32 one on one element.
      const float px = 1.0f, py = 1.0f;
      float po;
      if (!Binary<F32Traits>(node, &px, 1, &py, 1, &po, 1).ok()) {
        st = Unsupported(node, T::kType);
        return;
      }
      InF32Blocks<T, T>(
          x, a.count(), y, b.count(), o, out.count(),
          [&](const float* xf, int64_t nxf, const float* yf, int64_t nyf,
              float* of, int64_t m) {
            Binary<F32Traits>(node, xf, nxf, yf, nyf, of, m).IgnoreError();
          });
    } else {
      st = Binary<T>(node, x, a.count(), y, b.count(), o, out.count());
    }
  });
  return st;
}

}  // namespace hlo::exec::elementwise_internal
