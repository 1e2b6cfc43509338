// Shared by the elementwise op files (ops_elementwise*.cc): XLA's edge
// semantics helpers and the contiguous map loops. Split from one file so the
// per-type instantiations of unary and binary ops compile in parallel.
#ifndef HLO_LSP_EXEC_ELEMENTWISE_INTERNAL_H_
#define HLO_LSP_EXEC_ELEMENTWISE_INTERNAL_H_

#include <algorithm>
#include <bit>
#include <cmath>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>

#include "exec/evaluator_internal.h"
#include "exec/parallel.h"
#include "exec/strings.h"
#include "exec/vector_math.h"

namespace hlo::exec::elementwise_internal {

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

// Runs o[i] = f(x[i]) for i < n with per-type traits for input and output:
// a plain loop over contiguous memory (vectorized where f allows), in chunks.
// x holds n elements, or one that is broadcast.
template <typename TI, typename TO, typename F>
void Map1(const typename TI::S* __restrict x, int64_t nx,
          typename TO::S* __restrict o, int64_t n, F f) {
  if (nx != n) {
    const auto v = TO::Store(f(TI::Load(x[0])));
    std::fill(o, o + n, v);
    return;
  }
  ForChunks(n, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) o[i] = TO::Store(f(TI::Load(x[i])));
  });
}
template <typename TI, typename TO, typename F>
void Map1(const Literal& a, Literal& out, F f) {
  Map1<TI, TO>(a.data<typename TI::S>(), a.count(), out.data<typename TO::S>(),
               out.count(), f);
}

// Runs o[i] = f(x[i], y[i]) for i < n; x and y hold n elements or one. Only
// full-size operands get the vectorizable loop: a scalar operand (clamp,
// select, old dumps) is rare, and one masked loop serves every such case.
template <typename TI, typename TO, typename F>
void Map2(const typename TI::S* __restrict x, int64_t nx,
          const typename TI::S* __restrict y, int64_t ny,
          typename TO::S* __restrict o, int64_t n, F f) {
  if (nx == n && ny == n) {
    ForChunks(n, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i)
        o[i] = TO::Store(f(TI::Load(x[i]), TI::Load(y[i])));
    });
    return;
  }
  const int64_t mx = nx == n ? ~int64_t{0} : 0;
  const int64_t my = ny == n ? ~int64_t{0} : 0;
  ForChunks(n, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i)
      o[i] = TO::Store(f(TI::Load(x[i & mx]), TI::Load(y[i & my])));
  });
}
template <typename TI, typename TO, typename F>
void Map2(const Literal& a, const Literal& b, Literal& out, F f) {
  Map2<TI, TO>(a.data<typename TI::S>(), a.count(), b.data<typename TI::S>(),
               b.count(), out.data<typename TO::S>(), out.count(), f);
}

// Floats that compute in f32 but store narrower (f16, bf16, f8, f4). Their
// ops run the f32 instantiation on blocks converted to f32, then round each
// result once on the way out: the same values as Store(f(Load(x))) per
// element, without one more copy of every op's loops per narrow type.
template <typename T>
constexpr bool kNarrowFloat =
    T::kKind == Kind::kFloat&& std::is_same_v<typename T::C, float> &&
    !std::is_same_v<typename T::S, float>;
using F32Traits = NativeFloatTraits<PrimitiveType::kF32, float>;
inline constexpr int64_t kF32Block = 1024;

// Converts x[lo, lo + m) to f32 in buf (or x[0] once, into *scalar, when x is
// a broadcast scalar); returns the pointer and count to hand to a kernel.
template <typename T>
std::pair<const float*, int64_t> LoadF32Block(const typename T::S* x,
                                              int64_t nx, int64_t n, int64_t lo,
                                              int64_t m, float* buf,
                                              const float* scalar) {
  if (nx != n) return {scalar, 1};
  for (int64_t i = 0; i < m; ++i) buf[i] = T::Load(x[lo + i]);
  return {buf, m};
}

// Stores an f32 block: rounds into a narrow float, or hands the kernel the
// destination itself when the result type is not narrow (compare's pred).
template <typename TO, typename Kernel>
void RunF32Block(typename TO::S* o, int64_t lo, int64_t m, float* buf,
                 const Kernel& kernel) {
  if constexpr (kNarrowFloat<TO>) {
    kernel(buf);
    for (int64_t i = 0; i < m; ++i) o[lo + i] = TO::Store(buf[i]);
  } else {
    kernel(o + lo);
  }
}

// Runs kernel(xf, nxf, of, m) over [0, n) in f32 blocks: T is the narrow
// operand type, TO the result's (T itself or a type stored as is).
template <typename T, typename TO, typename Kernel>
void InF32Blocks(const typename T::S* x, int64_t nx, typename TO::S* o,
                 int64_t n, const Kernel& kernel) {
  ForChunks(n, [&](int64_t b, int64_t e) {
    float xb[kF32Block], ob[kF32Block];
    const float xs = nx != n ? T::Load(x[0]) : 0.0f;
    for (int64_t lo = b; lo < e; lo += kF32Block) {
      const int64_t m = std::min(kF32Block, e - lo);
      const auto xp = LoadF32Block<T>(x, nx, n, lo, m, xb, &xs);
      RunF32Block<TO>(o, lo, m, ob,
                      [&](auto* out) { kernel(xp.first, xp.second, out, m); });
    }
  });
}
template <typename T, typename TO, typename Kernel>
void InF32Blocks(const typename T::S* x, int64_t nx, const typename T::S* y,
                 int64_t ny, typename TO::S* o, int64_t n,
                 const Kernel& kernel) {
  ForChunks(n, [&](int64_t b, int64_t e) {
    float xb[kF32Block], yb[kF32Block], ob[kF32Block];
    const float xs = nx != n ? T::Load(x[0]) : 0.0f;
    const float ys = ny != n ? T::Load(y[0]) : 0.0f;
    for (int64_t lo = b; lo < e; lo += kF32Block) {
      const int64_t m = std::min(kF32Block, e - lo);
      const auto xp = LoadF32Block<T>(x, nx, n, lo, m, xb, &xs);
      const auto yp = LoadF32Block<T>(y, ny, n, lo, m, yb, &ys);
      RunF32Block<TO>(o, lo, m, ob, [&](auto* out) {
        kernel(xp.first, xp.second, yp.first, yp.second, out, m);
      });
    }
  });
}

// Unary float ops with a vectorized f32 implementation (vector_math.h).
inline std::optional<VecFn> VectorFn(Opcode op) {
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

// o = fn(x) over n f32 elements (narrow floats reach it through
// InF32Blocks).
inline void MapVector(VecFn fn, const float* x, float* o, int64_t n) {
  ForChunks(n,
            [&](int64_t b, int64_t e) { VecMathF32(fn, x + b, o + b, e - b); });
}

inline absl::Status Unsupported(const Node& node, PrimitiveType type) {
  return absl::UnimplementedError(Cat(
      OpcodeName(node.op), " is not defined for ", PrimitiveTypeName(type)));
}

// out = op(a), every type (ops_elementwise_unary.cc).
absl::Status EvalUnaryOp(const Node& node, const Literal& a, Literal& out);
// out = op(a, b), operands of the result's type (ops_elementwise_binary.cc).
absl::Status EvalBinaryOp(const Node& node, const Literal& a, const Literal& b,
                          Literal& out);

}  // namespace hlo::exec::elementwise_internal

#endif  // HLO_LSP_EXEC_ELEMENTWISE_INTERNAL_H_
