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
