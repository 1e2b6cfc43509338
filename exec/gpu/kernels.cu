// Kernels of the GPU replay backend (see kernels.h). Simple on purpose:
// one thread per output element in grid-stride loops with 64-bit indices,
// XLA's edge semantics mirrored from the CPU evaluator (ops_elementwise.cc,
// literal.cc, ops_reduce.cc) so that the two agree within tolerance.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <type_traits>

#include "exec/gpu/kernels.h"

namespace hlo::exec::gpu {
namespace {

constexpr int kThreads = 256;

unsigned Blocks(int64_t n) {
  const int64_t b = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(std::clamp<int64_t>(b, 1, 65535 * 8));
}

#define GRID_STRIDE(i, n)                                               \
  for (int64_t i =                                                      \
           static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; \
       i < (n); i += static_cast<int64_t>(blockDim.x) * gridDim.x)

int LastError() { return static_cast<int>(cudaGetLastError()); }

// ------------------------------------------------------------- traits --

enum Kind { kPredKind, kSignedKind, kUnsignedKind, kFloatKind };

template <DType T>
struct Tr;
template <>
struct Tr<DType::kPred> {
  using S = uint8_t;
  using C = bool;
  static constexpr Kind kKind = kPredKind;
  __device__ static C Load(S s) { return s != 0; }
  __device__ static S Store(C c) { return c ? 1 : 0; }
};
template <typename Storage, Kind K>
struct IntTr {
  using S = Storage;
  using C = Storage;
  static constexpr Kind kKind = K;
  __device__ static C Load(S s) { return s; }
  __device__ static S Store(C c) { return c; }
};
template <>
struct Tr<DType::kS8> : IntTr<int8_t, kSignedKind> {};
template <>
struct Tr<DType::kS16> : IntTr<int16_t, kSignedKind> {};
template <>
struct Tr<DType::kS32> : IntTr<int32_t, kSignedKind> {};
template <>
struct Tr<DType::kS64> : IntTr<int64_t, kSignedKind> {};
template <>
struct Tr<DType::kU8> : IntTr<uint8_t, kUnsignedKind> {};
template <>
struct Tr<DType::kU16> : IntTr<uint16_t, kUnsignedKind> {};
template <>
struct Tr<DType::kU32> : IntTr<uint32_t, kUnsignedKind> {};
template <>
struct Tr<DType::kU64> : IntTr<uint64_t, kUnsignedKind> {};
template <>
struct Tr<DType::kF16> {
  using S = uint16_t;
  using C = float;
  static constexpr Kind kKind = kFloatKind;
  __device__ static C Load(S s) { return __half2float(__ushort_as_half(s)); }
  __device__ static S Store(C c) {
    return __half_as_ushort(__float2half_rn(c));
  }
};
template <>
struct Tr<DType::kBF16> {
  using S = uint16_t;
  using C = float;
  static constexpr Kind kKind = kFloatKind;
  __device__ static C Load(S s) {
    return __uint_as_float(static_cast<uint32_t>(s) << 16);
  }
  __device__ static S Store(C c) {
    return __bfloat16_as_ushort(__float2bfloat16_rn(c));
  }
};
template <>
struct Tr<DType::kF32> {
  using S = float;
  using C = float;
  static constexpr Kind kKind = kFloatKind;
  __device__ static C Load(S s) { return s; }
  __device__ static S Store(C c) { return c; }
};
template <>
struct Tr<DType::kF64> {
  using S = double;
  using C = double;
  static constexpr Kind kKind = kFloatKind;
  __device__ static C Load(S s) { return s; }
  __device__ static S Store(C c) { return c; }
};

// Calls f.template operator()<T>() for the DType; -1 for a bad tag.
template <typename F>
int Dispatch(DType t, F&& f) {
  switch (t) {
    case DType::kPred:
      return f.template operator()<DType::kPred>();
    case DType::kS8:
      return f.template operator()<DType::kS8>();
    case DType::kS16:
      return f.template operator()<DType::kS16>();
    case DType::kS32:
      return f.template operator()<DType::kS32>();
    case DType::kS64:
      return f.template operator()<DType::kS64>();
    case DType::kU8:
      return f.template operator()<DType::kU8>();
    case DType::kU16:
      return f.template operator()<DType::kU16>();
    case DType::kU32:
      return f.template operator()<DType::kU32>();
    case DType::kU64:
      return f.template operator()<DType::kU64>();
    case DType::kF16:
      return f.template operator()<DType::kF16>();
    case DType::kBF16:
      return f.template operator()<DType::kBF16>();
    case DType::kF32:
      return f.template operator()<DType::kF32>();
    case DType::kF64:
      return f.template operator()<DType::kF64>();
  }
  return static_cast<int>(cudaErrorInvalidValue);
}

struct alignas(16) Bytes16 {
  uint64_t lo, hi;
};

template <typename F>
int DispatchBytes(int element_bytes, F&& f) {
  switch (element_bytes) {
    case 1:
      return f.template operator()<uint8_t>();
    case 2:
      return f.template operator()<uint16_t>();
    case 4:
      return f.template operator()<uint32_t>();
    case 8:
      return f.template operator()<uint64_t>();
    case 16:
      return f.template operator()<Bytes16>();
  }
  return static_cast<int>(cudaErrorInvalidValue);
}

// ------------------------------------------------------- data movement --

template <typename E>
__global__ void StridedCopyKernel(StridedCopy c, int64_t n, const E* src,
                                  E* dst) {
  GRID_STRIDE(i, n) {
    int64_t rest = i, s = c.src_offset, d = c.dst_offset;
    for (int k = c.rank - 1; k >= 0; --k) {
      const int64_t idx = rest % c.dims[k];
      rest /= c.dims[k];
      s += idx * c.src_strides[k];
      d += idx * c.dst_strides[k];
    }
    dst[d] = src[s];
  }
}

template <typename E>
__global__ void FillKernel(E* dst, int64_t n, const E* value) {
  const E v = *value;
  GRID_STRIDE(i, n) { dst[i] = v; }
}

template <typename E>
__global__ void SelectKernel(int64_t n, const uint8_t* p, int64_t sp,
                             const E* a, int64_t sa, const E* b, int64_t sb,
                             E* out) {
  GRID_STRIDE(i, n) { out[i] = p[i * sp] ? a[i * sa] : b[i * sb]; }
}

// ---------------------------------------------------------- elementwise --

template <typename C>
__device__ C NanMax(C a, C b) {
  if (isnan(a)) return a;
  if (isnan(b)) return b;
  return a > b ? a : b;
}
template <typename C>
__device__ C NanMin(C a, C b) {
  if (isnan(a)) return a;
  if (isnan(b)) return b;
  return a < b ? a : b;
}

template <typename C>
__device__ bool IsNegative(C x) {
  if constexpr (std::is_signed_v<C>) {
    return x < 0;
  } else {
    return false;
  }
}

template <typename C>
__device__ C IntPow(C base, C exp) {
  using U = std::make_unsigned_t<C>;
  if constexpr (std::is_signed_v<C>) {
    if (exp < 0) return base == 1 ? 1 : base == -1 ? (exp % 2 ? -1 : 1) : 0;
  }
  uint64_t result = 1, b = static_cast<U>(base);
  uint64_t e = static_cast<U>(exp);
  while (e) {
    if (e & 1) result = static_cast<U>(result * b);
    b = static_cast<U>(b * b);
    e >>= 1;
  }
  return static_cast<C>(static_cast<U>(result));
}

template <DType T>
__device__ typename Tr<T>::C Unary(EwOp op, typename Tr<T>::C x) {
  using C = typename Tr<T>::C;
  constexpr Kind k = Tr<T>::kKind;
  if constexpr (k == kFloatKind) {
    switch (op) {
      case EwOp::kAbs:
        return fabs(x);
      case EwOp::kNegate:
        return -x;
      case EwOp::kExp:
        return exp(x);
      case EwOp::kExpm1:
        return expm1(x);
      case EwOp::kLog:
        return log(x);
      case EwOp::kLog1p:
        return log1p(x);
      case EwOp::kSqrt:
        return sqrt(x);
      case EwOp::kRsqrt:
        return C(1) / sqrt(x);
      case EwOp::kCbrt:
        return cbrt(x);
      case EwOp::kSin:
        return sin(x);
      case EwOp::kCos:
        return cos(x);
      case EwOp::kTan:
        return tan(x);
      case EwOp::kTanh:
        return tanh(x);
      case EwOp::kAtan:
        return atan(x);
      case EwOp::kAcos:
        return acos(x);
      case EwOp::kAsin:
        return asin(x);
      case EwOp::kAcosh:
        return acosh(x);
      case EwOp::kAsinh:
        return asinh(x);
      case EwOp::kAtanh:
        return atanh(x);
      case EwOp::kCosh:
        return cosh(x);
      case EwOp::kSinh:
        return sinh(x);
      case EwOp::kErf:
        return erf(x);
      case EwOp::kLogistic:
        return C(1) / (C(1) + exp(-x));
      case EwOp::kFloor:
        return floor(x);
      case EwOp::kCeil:
        return ceil(x);
      case EwOp::kRoundAfz:
        return round(x);
      case EwOp::kRoundEven:
        return rint(x);
      case EwOp::kSign:
        return isnan(x) || x == C(0) ? x : copysign(C(1), x);
      default:
        return x;
    }
  } else if constexpr (k == kSignedKind || k == kUnsignedKind) {
    using U = std::make_unsigned_t<C>;
    constexpr int kBits = sizeof(C) * 8;
    switch (op) {
      case EwOp::kAbs:
        return IsNegative(x) ? static_cast<C>(static_cast<U>(U(0) - U(x))) : x;
      case EwOp::kNegate:
        return static_cast<C>(static_cast<U>(U(0) - U(x)));
      case EwOp::kSign:
        return static_cast<C>(x > 0 ? 1 : IsNegative(x) ? -1 : 0);
      case EwOp::kNot:
        return static_cast<C>(~x);
      case EwOp::kPopcnt:
        return static_cast<C>(__popcll(static_cast<unsigned long long>(U(x))));
      case EwOp::kClz:
        return static_cast<C>(__clzll(static_cast<long long>(
                                  static_cast<unsigned long long>(U(x)))) -
                              (64 - kBits));
      default:
        return x;
    }
  } else {  // pred
    return op == EwOp::kNot ? !x : x;
  }
}

template <DType T>
__device__ typename Tr<T>::C Binary(EwOp op, typename Tr<T>::C x,
                                    typename Tr<T>::C y) {
  using C = typename Tr<T>::C;
  constexpr Kind k = Tr<T>::kKind;
  if constexpr (k == kFloatKind) {
    switch (op) {
      case EwOp::kAdd:
        return x + y;
      case EwOp::kSub:
        return x - y;
      case EwOp::kMul:
        return x * y;
      case EwOp::kDiv:
        return x / y;
      case EwOp::kRem:
        return fmod(x, y);
      case EwOp::kMax:
        return NanMax(x, y);
      case EwOp::kMin:
        return NanMin(x, y);
      case EwOp::kPow:
        return pow(x, y);
      case EwOp::kAtan2:
        return atan2(x, y);
      default:
        return x;
    }
  } else if constexpr (k == kSignedKind || k == kUnsignedKind) {
    using U = std::make_unsigned_t<C>;
    constexpr int kBits = sizeof(C) * 8;
    const uint64_t ux = static_cast<U>(x), uy = static_cast<U>(y);
    switch (op) {
      case EwOp::kAdd:
        return static_cast<C>(static_cast<U>(ux + uy));
      case EwOp::kSub:
        return static_cast<C>(static_cast<U>(ux - uy));
      case EwOp::kMul:
        return static_cast<C>(static_cast<U>(ux * uy));
      case EwOp::kDiv:
        if (y == 0) return static_cast<C>(-1);
        if constexpr (k == kSignedKind) {
          if (x == std::numeric_limits<C>::lowest() && y == C(-1)) return x;
        }
        return static_cast<C>(x / y);
      case EwOp::kRem:
        if (y == 0) return x;
        if constexpr (k == kSignedKind) {
          if (x == std::numeric_limits<C>::lowest() && y == C(-1)) return 0;
        }
        return static_cast<C>(x % y);
      case EwOp::kMax:
        return x > y ? x : y;
      case EwOp::kMin:
        return x < y ? x : y;
      case EwOp::kPow:
        return IntPow<C>(x, y);
      case EwOp::kAnd:
        return static_cast<C>(x & y);
      case EwOp::kOr:
        return static_cast<C>(x | y);
      case EwOp::kXor:
        return static_cast<C>(x ^ y);
      case EwOp::kShl:
        if (uy >= kBits) return 0;
        return static_cast<C>(static_cast<U>(ux << uy));
      case EwOp::kShrLogical:
        if (uy >= kBits) return 0;
        return static_cast<C>(static_cast<U>(ux >> uy));
      case EwOp::kShrArithmetic:
        if constexpr (k == kSignedKind) {
          if (uy >= kBits) return IsNegative(x) ? C(-1) : C(0);
          return static_cast<C>(x >> uy);
        } else {  // unsigned: the top bit is the sign
          const bool neg = (ux >> (kBits - 1)) & 1;
          const uint64_t mask = static_cast<U>(~U(0));
          if (uy >= kBits) return neg ? static_cast<C>(mask) : C(0);
          uint64_t r = ux >> uy;
          if (neg && uy > 0) r |= (mask << (kBits - uy)) & mask;
          return static_cast<C>(static_cast<U>(r));
        }
      default:
        return x;
    }
  } else {  // pred
    switch (op) {
      case EwOp::kAnd:
      case EwOp::kMin:
      case EwOp::kMul:
        return x && y;
      case EwOp::kOr:
      case EwOp::kMax:
      case EwOp::kAdd:
        return x || y;
      case EwOp::kXor:
        return x != y;
      default:
        return x;
    }
  }
}

template <DType T>
__global__ void UnaryKernel(EwOp op, int64_t n, const typename Tr<T>::S* a,
                            typename Tr<T>::S* out) {
  GRID_STRIDE(i, n) { out[i] = Tr<T>::Store(Unary<T>(op, Tr<T>::Load(a[i]))); }
}

template <DType T>
__global__ void BinaryKernel(EwOp op, int64_t n, const typename Tr<T>::S* a,
                             int64_t sa, const typename Tr<T>::S* b, int64_t sb,
                             typename Tr<T>::S* out) {
  GRID_STRIDE(i, n) {
    out[i] = Tr<T>::Store(
        Binary<T>(op, Tr<T>::Load(a[i * sa]), Tr<T>::Load(b[i * sb])));
  }
}

template <DType T>
__global__ void ClampKernel(int64_t n, const typename Tr<T>::S* lo, int64_t sl,
                            const typename Tr<T>::S* x, int64_t sx,
                            const typename Tr<T>::S* hi, int64_t sh,
                            typename Tr<T>::S* out) {
  using C = typename Tr<T>::C;
  GRID_STRIDE(i, n) {
    const C l = Tr<T>::Load(lo[i * sl]), v = Tr<T>::Load(x[i * sx]),
            h = Tr<T>::Load(hi[i * sh]);
    C r;
    if constexpr (Tr<T>::kKind == kFloatKind) {
      r = NanMin(NanMax(v, l), h);
    } else {
      r = v < l ? l : v;
      r = r > h ? h : r;
    }
    out[i] = Tr<T>::Store(r);
  }
}

// Total order of floats: -NaN < -inf < ... < -0 < +0 < ... < inf < +NaN;
// NaNs of one sign are equal (as on the CPU).
__device__ int TotalCompare(double a, double b) {
  auto cls = [](double v) { return isnan(v) ? (signbit(v) ? -2 : 2) : 0; };
  const int ca = cls(a), cb = cls(b);
  if (ca != cb) return ca < cb ? -1 : 1;
  if (ca != 0) return 0;
  if (a != b) return a < b ? -1 : 1;
  if (a == 0) {  // +0 and -0
    const int za = signbit(a) ? -1 : 1, zb = signbit(b) ? -1 : 1;
    return za == zb ? 0 : (za < zb ? -1 : 1);
  }
  return 0;
}

__device__ bool Direction(int dir, int cmp) {
  switch (dir) {
    case 0:
      return cmp == 0;
    case 1:
      return cmp != 0;
    case 2:
      return cmp >= 0;
    case 3:
      return cmp > 0;
    case 4:
      return cmp <= 0;
    case 5:
      return cmp < 0;
  }
  return false;
}

template <DType T>
__global__ void CompareKernel(int dir, bool total, int64_t n,
                              const typename Tr<T>::S* a, int64_t sa,
                              const typename Tr<T>::S* b, int64_t sb,
                              uint8_t* out) {
  using C = typename Tr<T>::C;
  GRID_STRIDE(i, n) {
    const C x = Tr<T>::Load(a[i * sa]), y = Tr<T>::Load(b[i * sb]);
    bool r;
    if constexpr (Tr<T>::kKind == kFloatKind) {
      if (total) {
        r = Direction(
            dir, TotalCompare(static_cast<double>(x), static_cast<double>(y)));
      } else {
        switch (dir) {  // IEEE: every ordered compare with NaN is false
          case 0:
            r = x == y;
            break;
          case 1:
            r = x != y;
            break;
          case 2:
            r = x >= y;
            break;
          case 3:
            r = x > y;
            break;
          case 4:
            r = x <= y;
            break;
          default:
            r = x < y;
            break;
        }
      }
    } else {
      r = Direction(dir, x == y ? 0 : (x < y ? -1 : 1));
    }
    out[i] = r ? 1 : 0;
  }
}

template <DType T>
__global__ void IsFiniteKernel(int64_t n, const typename Tr<T>::S* a,
                               uint8_t* out) {
  GRID_STRIDE(i, n) {
    if constexpr (Tr<T>::kKind == kFloatKind) {
      out[i] = isfinite(Tr<T>::Load(a[i])) ? 1 : 0;
    } else {
      out[i] = 1;
    }
  }
}

// ------------------------------------------------------------- convert --

template <DType To>
__device__ typename Tr<To>::S FromDouble(double v) {
  using C = typename Tr<To>::C;
  constexpr Kind k = Tr<To>::kKind;
  if constexpr (k == kPredKind) {
    return Tr<To>::Store(v != 0);
  } else if constexpr (k == kFloatKind) {
    return Tr<To>::Store(static_cast<C>(v));
  } else {
    if (isnan(v)) return 0;
    constexpr C lo = std::numeric_limits<C>::lowest();
    constexpr C hi = std::numeric_limits<C>::max();
    if (v <= static_cast<double>(lo)) return lo;
    if (v >= static_cast<double>(hi)) return hi;
    return static_cast<C>(v);
  }
}

template <DType To, typename I>
__device__ typename Tr<To>::S FromInt(I v) {
  using C = typename Tr<To>::C;
  if constexpr (Tr<To>::kKind == kPredKind) {
    return Tr<To>::Store(v != 0);
  } else {
    return Tr<To>::Store(static_cast<C>(v));
  }
}

template <DType From, DType To>
__device__ void ConvertOne(const typename Tr<From>::S* a, void* out,
                           int64_t i) {
  auto* o = static_cast<typename Tr<To>::S*>(out);
  const auto c = Tr<From>::Load(a[i]);
  constexpr Kind k = Tr<From>::kKind;
  if constexpr (k == kFloatKind) {
    o[i] = FromDouble<To>(static_cast<double>(c));
  } else if constexpr (k == kSignedKind) {
    o[i] = FromInt<To>(static_cast<int64_t>(c));
  } else {  // unsigned and pred
    o[i] = FromInt<To>(static_cast<uint64_t>(c));
  }
}

template <DType From>
__global__ void ConvertKernel(DType to, int64_t n,
                              const typename Tr<From>::S* a, void* out) {
  GRID_STRIDE(i, n) {
    switch (to) {  // the same branch for every thread
      case DType::kPred:
        ConvertOne<From, DType::kPred>(a, out, i);
        break;
      case DType::kS8:
        ConvertOne<From, DType::kS8>(a, out, i);
        break;
      case DType::kS16:
        ConvertOne<From, DType::kS16>(a, out, i);
        break;
      case DType::kS32:
        ConvertOne<From, DType::kS32>(a, out, i);
        break;
      case DType::kS64:
        ConvertOne<From, DType::kS64>(a, out, i);
        break;
      case DType::kU8:
        ConvertOne<From, DType::kU8>(a, out, i);
        break;
      case DType::kU16:
        ConvertOne<From, DType::kU16>(a, out, i);
        break;
      case DType::kU32:
        ConvertOne<From, DType::kU32>(a, out, i);
        break;
      case DType::kU64:
        ConvertOne<From, DType::kU64>(a, out, i);
        break;
      case DType::kF16:
        ConvertOne<From, DType::kF16>(a, out, i);
        break;
      case DType::kBF16:
        ConvertOne<From, DType::kBF16>(a, out, i);
        break;
      case DType::kF32:
        ConvertOne<From, DType::kF32>(a, out, i);
        break;
      case DType::kF64:
        ConvertOne<From, DType::kF64>(a, out, i);
        break;
    }
  }
}

template <DType T>
__global__ void IotaKernel(int64_t n, int64_t inner, int64_t extent,
                           typename Tr<T>::S* out) {
  using C = typename Tr<T>::C;
  GRID_STRIDE(i, n) {
    const int64_t idx = (i / inner) % extent;
    if constexpr (Tr<T>::kKind == kPredKind) {
      out[i] = Tr<T>::Store(idx != 0);
    } else {
      out[i] = Tr<T>::Store(static_cast<C>(idx));
    }
  }
}

// -------------------------------------------------------------- reduce --

template <typename C>
__device__ C Combine(ReduceOp op, C a, C b) {
  if constexpr (std::is_same_v<C, bool>) {
    switch (op) {
      case ReduceOp::kAdd:
      case ReduceOp::kOr:
      case ReduceOp::kMax:
        return a || b;
      default:
        return a && b;
    }
  } else if constexpr (std::is_floating_point_v<C>) {
    switch (op) {
      case ReduceOp::kAdd:
        return a + b;
      case ReduceOp::kMul:
        return a * b;
      case ReduceOp::kMax:
        return NanMax(a, b);
      case ReduceOp::kMin:
        return NanMin(a, b);
      default:
        return a;
    }
  } else {
    using U = std::make_unsigned_t<C>;
    const uint64_t ua = static_cast<U>(a), ub = static_cast<U>(b);
    switch (op) {
      case ReduceOp::kAdd:
        return static_cast<C>(static_cast<U>(ua + ub));
      case ReduceOp::kMul:
        return static_cast<C>(static_cast<U>(ua * ub));
      case ReduceOp::kMax:
        return a > b ? a : b;
      case ReduceOp::kMin:
        return a < b ? a : b;
      case ReduceOp::kAnd:
        return static_cast<C>(a & b);
      case ReduceOp::kOr:
        return static_cast<C>(a | b);
    }
    return a;
  }
}

__device__ int64_t Offset(int rank, const int64_t* dims, const int64_t* strides,
                          int64_t linear) {
  int64_t off = 0;
  for (int k = rank - 1; k >= 0; --k) {
    off += (linear % dims[k]) * strides[k];
    linear /= dims[k];
  }
  return off;
}

// One block per output element: the threads split the reduced elements and
// combine their partial results in shared memory.
template <DType T>
__global__ void ReduceTreeKernel(ReduceOp op, ReduceShape s, int64_t n_out,
                                 int64_t n_red, const typename Tr<T>::S* in,
                                 const typename Tr<T>::S* init,
                                 typename Tr<T>::S* out) {
  using C = typename Tr<T>::C;
  __shared__ C part[kThreads];
  __shared__ bool has[kThreads];
  for (int64_t o = blockIdx.x; o < n_out; o += gridDim.x) {
    const int64_t base = Offset(s.kept_rank, s.kept_dims, s.kept_strides, o);
    C acc{};
    bool any = false;
    for (int64_t r = threadIdx.x; r < n_red; r += blockDim.x) {
      const C x = Tr<T>::Load(in[base + Offset(s.reduced_rank, s.reduced_dims,
                                               s.reduced_strides, r)]);
      acc = any ? Combine(op, acc, x) : x;
      any = true;
    }
    part[threadIdx.x] = acc;
    has[threadIdx.x] = any;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
      if (threadIdx.x < half && has[threadIdx.x + half]) {
        part[threadIdx.x] = has[threadIdx.x] ? Combine(op, part[threadIdx.x],
                                                       part[threadIdx.x + half])
                                             : part[threadIdx.x + half];
        has[threadIdx.x] = true;
      }
      __syncthreads();
    }
    if (threadIdx.x == 0) {
      C r = Tr<T>::Load(*init);
      if (has[0]) r = Combine(op, r, part[0]);
      out[o] = Tr<T>::Store(r);
    }
    __syncthreads();  // part/has are reused by the next output
  }
}

// One thread per output, in the CPU's order, rounding after every step as
// the CPU does for narrow floats.
template <DType T>
__global__ void ReduceSequentialKernel(ReduceOp op, ReduceShape s,
                                       int64_t n_out, int64_t n_red,
                                       const typename Tr<T>::S* in,
                                       const typename Tr<T>::S* init,
                                       typename Tr<T>::S* out) {
  using C = typename Tr<T>::C;
  GRID_STRIDE(o, n_out) {
    const int64_t base = Offset(s.kept_rank, s.kept_dims, s.kept_strides, o);
    C acc = Tr<T>::Load(*init);
    for (int64_t r = 0; r < n_red; ++r) {
      const C x = Tr<T>::Load(in[base + Offset(s.reduced_rank, s.reduced_dims,
                                               s.reduced_strides, r)]);
      acc = Tr<T>::Load(Tr<T>::Store(Combine(op, acc, x)));
    }
    out[o] = Tr<T>::Store(acc);
  }
}

template <DType T>
__global__ void StatsKernel(int64_t n, const typename Tr<T>::S* a,
                            double* partials) {
  __shared__ double lo[kThreads], hi[kThreads], sum[kThreads], nan[kThreads],
      inf[kThreads];
  double l = INFINITY, h = -INFINITY, s = 0, cn = 0, ci = 0;
  GRID_STRIDE(i, n) {
    const double v = static_cast<double>(Tr<T>::Load(a[i]));
    if (isnan(v)) {
      cn += 1;
    } else if (isinf(v)) {
      ci += 1;
    } else {
      l = fmin(l, v);
      h = fmax(h, v);
      s += v;
    }
  }
  const int t = threadIdx.x;
  lo[t] = l;
  hi[t] = h;
  sum[t] = s;
  nan[t] = cn;
  inf[t] = ci;
  __syncthreads();
  for (int half = blockDim.x / 2; half > 0; half /= 2) {
    if (t < half) {
      lo[t] = fmin(lo[t], lo[t + half]);
      hi[t] = fmax(hi[t], hi[t + half]);
      sum[t] += sum[t + half];
      nan[t] += nan[t + half];
      inf[t] += inf[t + half];
    }
    __syncthreads();
  }
  if (t == 0) {
    double* p = partials + 5 * blockIdx.x;
    p[0] = lo[0];
    p[1] = hi[0];
    p[2] = sum[0];
    p[3] = nan[0];
    p[4] = inf[0];
  }
}

int64_t Product(int rank, const int64_t* dims) {
  int64_t n = 1;
  for (int k = 0; k < rank; ++k) n *= dims[k];
  return n;
}

}  // namespace

int DTypeBytes(DType t) {
  switch (t) {
    case DType::kPred:
    case DType::kS8:
    case DType::kU8:
      return 1;
    case DType::kS16:
    case DType::kU16:
    case DType::kF16:
    case DType::kBF16:
      return 2;
    case DType::kS32:
    case DType::kU32:
    case DType::kF32:
      return 4;
    case DType::kS64:
    case DType::kU64:
    case DType::kF64:
      return 8;
  }
  return 0;
}

int LaunchStridedCopy(const StridedCopy& c, int element_bytes, const void* src,
                      void* dst) {
  if (c.rank < 0 || c.rank > kMaxRank) return cudaErrorInvalidValue;
  const int64_t n = Product(c.rank, c.dims);
  if (n <= 0) return 0;
  return DispatchBytes(element_bytes, [&]<typename E>() {
    StridedCopyKernel<E><<<Blocks(n), kThreads>>>(
        c, n, static_cast<const E*>(src), static_cast<E*>(dst));
    return LastError();
  });
}

int LaunchFill(void* dst, int64_t n, int element_bytes, const void* value) {
  if (n <= 0) return 0;
  return DispatchBytes(element_bytes, [&]<typename E>() {
    FillKernel<E><<<Blocks(n), kThreads>>>(static_cast<E*>(dst), n,
                                           static_cast<const E*>(value));
    return LastError();
  });
}

int LaunchUnary(EwOp op, DType t, int64_t n, const void* a, void* out) {
  if (n <= 0) return 0;
  return Dispatch(t, [&]<DType T>() {
    using S = typename Tr<T>::S;
    UnaryKernel<T><<<Blocks(n), kThreads>>>(op, n, static_cast<const S*>(a),
                                            static_cast<S*>(out));
    return LastError();
  });
}

int LaunchBinary(EwOp op, DType t, int64_t n, const void* a, bool a_scalar,
                 const void* b, bool b_scalar, void* out) {
  if (n <= 0) return 0;
  return Dispatch(t, [&]<DType T>() {
    using S = typename Tr<T>::S;
    BinaryKernel<T><<<Blocks(n), kThreads>>>(
        op, n, static_cast<const S*>(a), a_scalar ? 0 : 1,
        static_cast<const S*>(b), b_scalar ? 0 : 1, static_cast<S*>(out));
    return LastError();
  });
}

int LaunchClamp(DType t, int64_t n, const void* lo, bool lo_scalar,
                const void* x, bool x_scalar, const void* hi, bool hi_scalar,
                void* out) {
  if (n <= 0) return 0;
  return Dispatch(t, [&]<DType T>() {
    using S = typename Tr<T>::S;
    ClampKernel<T><<<Blocks(n), kThreads>>>(
        n, static_cast<const S*>(lo), lo_scalar ? 0 : 1,
        static_cast<const S*>(x), x_scalar ? 0 : 1, static_cast<const S*>(hi),
        hi_scalar ? 0 : 1, static_cast<S*>(out));
    return LastError();
  });
}

int LaunchCompare(int direction, bool total, DType t, int64_t n, const void* a,
                  bool a_scalar, const void* b, bool b_scalar, uint8_t* out) {
  if (n <= 0) return 0;
  return Dispatch(t, [&]<DType T>() {
    using S = typename Tr<T>::S;
    CompareKernel<T><<<Blocks(n), kThreads>>>(
        direction, total, n, static_cast<const S*>(a), a_scalar ? 0 : 1,
        static_cast<const S*>(b), b_scalar ? 0 : 1, out);
    return LastError();
  });
}

int LaunchSelect(int element_bytes, int64_t n, const uint8_t* pred,
                 bool pred_scalar, const void* a, bool a_scalar, const void* b,
                 bool b_scalar, void* out) {
  if (n <= 0) return 0;
  return DispatchBytes(element_bytes, [&]<typename E>() {
    SelectKernel<E><<<Blocks(n), kThreads>>>(
        n, pred, pred_scalar ? 0 : 1, static_cast<const E*>(a),
        a_scalar ? 0 : 1, static_cast<const E*>(b), b_scalar ? 0 : 1,
        static_cast<E*>(out));
    return LastError();
  });
}

int LaunchIsFinite(DType t, int64_t n, const void* a, uint8_t* out) {
  if (n <= 0) return 0;
  return Dispatch(t, [&]<DType T>() {
    using S = typename Tr<T>::S;
    IsFiniteKernel<T>
        <<<Blocks(n), kThreads>>>(n, static_cast<const S*>(a), out);
    return LastError();
  });
}

int LaunchConvert(DType from, DType to, int64_t n, const void* a, void* out) {
  if (n <= 0) return 0;
  return Dispatch(from, [&]<DType T>() {
    using S = typename Tr<T>::S;
    ConvertKernel<T>
        <<<Blocks(n), kThreads>>>(to, n, static_cast<const S*>(a), out);
    return LastError();
  });
}

int LaunchIota(DType t, int rank, const int64_t* dims, int iota_dim,
               void* out) {
  if (rank < 0 || rank > kMaxRank || iota_dim < 0 || iota_dim >= rank)
    return cudaErrorInvalidValue;
  const int64_t n = Product(rank, dims);
  if (n <= 0) return 0;
  const int64_t inner = Product(rank - iota_dim - 1, dims + iota_dim + 1);
  return Dispatch(t, [&]<DType T>() {
    using S = typename Tr<T>::S;
    IotaKernel<T><<<Blocks(n), kThreads>>>(n, inner, dims[iota_dim],
                                           static_cast<S*>(out));
    return LastError();
  });
}

int LaunchReduce(ReduceOp op, DType t, const ReduceShape& s, const void* in,
                 const void* init, void* out) {
  if (s.kept_rank > kMaxRank || s.reduced_rank > kMaxRank)
    return cudaErrorInvalidValue;
  const int64_t n_out = Product(s.kept_rank, s.kept_dims);
  const int64_t n_red = Product(s.reduced_rank, s.reduced_dims);
  if (n_out <= 0) return 0;
  return Dispatch(t, [&]<DType T>() {
    using S = typename Tr<T>::S;
    const auto* x = static_cast<const S*>(in);
    const auto* i0 = static_cast<const S*>(init);
    auto* o = static_cast<S*>(out);
    if (T == DType::kF16 || T == DType::kBF16) {
      ReduceSequentialKernel<T>
          <<<Blocks(n_out), kThreads>>>(op, s, n_out, n_red, x, i0, o);
    } else {
      const unsigned blocks =
          static_cast<unsigned>(std::min<int64_t>(n_out, 65535 * 8));
      ReduceTreeKernel<T><<<blocks, kThreads>>>(op, s, n_out, n_red, x, i0, o);
    }
    return LastError();
  });
}

int LaunchStats(DType t, int64_t n, const void* a, double* partials,
                int* blocks) {
  *blocks = static_cast<int>(std::min<unsigned>(Blocks(n), kStatsBlocks));
  return Dispatch(t, [&]<DType T>() {
    using S = typename Tr<T>::S;
    StatsKernel<T>
        <<<*blocks, kThreads>>>(n, static_cast<const S*>(a), partials);
    return LastError();
  });
}

}  // namespace hlo::exec::gpu
