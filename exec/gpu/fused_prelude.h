// The device helpers every generated fused kernel starts with
// (fused_codegen.cc): CUDA C++ as text, compiled by NVRTC with no headers
// (no cuda_fp16.h: the toolkit's include folder need not be found at run
// time). Each helper mirrors the CPU evaluator's code for the same op
// (ops_elementwise*.cc, element.h, literal.cc) so that results agree bit for
// bit wherever the CPU's own arithmetic is exact: f16/bf16 conversions are
// element.h's software ones (NaN payloads and all), integer division,
// shifts and powers keep XLA's edge rules.
#ifndef HLO_LSP_EXEC_GPU_FUSED_PRELUDE_H_
#define HLO_LSP_EXEC_GPU_FUSED_PRELUDE_H_

namespace hlo::exec::gpu {

inline constexpr char kFusedPrelude[] = R"CUDA(
typedef signed char s8;
typedef short s16;
typedef int s32;
typedef long long s64;
typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;
#define HD __device__ __forceinline__

// element.h: BF16ToFloat / FloatToBF16 (NaN keeps its top bits, quieted).
HD float bf16_load(u16 b) { return __uint_as_float((u32)b << 16); }
HD u16 bf16_store(float f) {
  const u32 u = __float_as_uint(f);
  if (f != f) return (u16)((u >> 16) | 0x40u);
  return (u16)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
// element.h: F16ToFloat / FloatToF16 (round to nearest even, subnormals).
HD float f16_load(u16 h) {
  const u32 sign = (u32)(h & 0x8000u) << 16;
  const u32 e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  if (e == 0) {
    const float f = (float)m * 5.9604644775390625e-8f;  // m * 2^-24, exact
    return sign ? -f : f;
  }
  return __uint_as_float(e == 31 ? (sign | 0x7f800000u | (m << 13))
                                 : (sign | ((e + 112u) << 23) | (m << 13)));
}
HD u16 f16_store(float f) {
  const u32 u = __float_as_uint(f);
  const u32 sign = (u >> 16) & 0x8000u, a = u & 0x7fffffffu;
  if (a >= 0x7f800000u)
    return (u16)(a == 0x7f800000u ? (sign | 0x7c00u)
                                  : (sign | 0x7e00u | ((a >> 13) & 0x3ffu)));
  if (a >= 0x477ff000u) return (u16)(sign | 0x7c00u);
  if (a < 0x38800000u)
    return (u16)(sign | (u32)rintf(__uint_as_float(a) * 16777216.0f));
  const u32 mant = a & 0x7fffffu, rest = mant & 0x1fffu;
  u32 r = (((a >> 23) - 112u) << 10) | (mant >> 13);
  if (rest > 0x1000u || (rest == 0x1000u && (r & 1u))) ++r;
  return (u16)(sign | r);
}

// NaN-propagating max/min (NanMax/NanMin).
template <class T> HD T nan_max(T a, T b) {
  if (a != a) return a;
  if (b != b) return b;
  return a > b ? a : b;
}
template <class T> HD T nan_min(T a, T b) {
  if (a != a) return a;
  if (b != b) return b;
  return a < b ? a : b;
}
HD float f_sign(float x) { return x != x || x == 0 ? x : copysignf(1.0f, x); }
HD double f_sign(double x) { return x != x || x == 0 ? x : copysign(1.0, x); }
HD bool f_finite(float x) { return fabsf(x) < __uint_as_float(0x7f800000u); }
HD bool f_finite(double x) {
  return fabs(x) < __longlong_as_double(0x7ff0000000000000ll);
}
// TotalKey: -NaN < -inf < ... < -0 < +0 < ... < inf < +NaN.
HD int tot_cmp(double a, double b) {
  const int ca = a != a ? (signbit(a) ? -2 : 2) : 0;
  const int cb = b != b ? (signbit(b) ? -2 : 2) : 0;
  if (ca != cb) return ca < cb ? -1 : 1;
  if (ca != 0) return 0;
  if (a != b) return a < b ? -1 : 1;
  if (a == 0) {
    const int za = signbit(a) ? -1 : 1, zb = signbit(b) ? -1 : 1;
    return za == zb ? 0 : (za < zb ? -1 : 1);
  }
  return 0;
}

// Integers: C the type, U its unsigned twin; wrapping arithmetic in u64.
template <class C> HD bool i_signed() { return (C)(-1) < (C)0; }
template <class C, class U> HD C i_wrap(u64 v) { return (C)(U)v; }
template <class C, class U> HD C i_div(C x, C y) {
  if (y == 0) return (C)(-1);
  const C lo = i_signed<C>() ? (C)((U)1 << (sizeof(C) * 8 - 1)) : (C)0;
  if (i_signed<C>() && x == lo && y == (C)(-1)) return lo;
  return (C)(x / y);
}
template <class C, class U> HD C i_rem(C x, C y) {
  if (y == 0) return x;
  const C lo = i_signed<C>() ? (C)((U)1 << (sizeof(C) * 8 - 1)) : (C)0;
  if (i_signed<C>() && x == lo && y == (C)(-1)) return (C)0;
  return (C)(x % y);
}
template <class C, class U> HD C i_pow(C base, C e) {
  if (i_signed<C>() && e < (C)0)
    return base == (C)1 ? (C)1 : base == (C)(-1) ? (C)(e % 2 ? -1 : 1) : (C)0;
  U r = 1, b = (U)base, k = (U)e;
  while (k) {
    if (k & 1) r = (U)((u64)r * (u64)b);
    b = (U)((u64)b * (u64)b);
    k >>= 1;
  }
  return (C)r;
}
template <class C, class U> HD C i_shl(C x, C y) {
  const u64 s = (u64)(U)y;
  if (s >= sizeof(C) * 8) return (C)0;
  return (C)(U)((u64)(U)x << s);
}
template <class C, class U> HD C i_shrl(C x, C y) {
  const u64 s = (u64)(U)y;
  if (s >= sizeof(C) * 8) return (C)0;
  return (C)(U)((u64)(U)x >> s);
}
template <class C, class U> HD C i_shra(C x, C y) {
  const u64 s = (u64)(U)y;
  const int bits = sizeof(C) * 8;
  const u64 v = (u64)(U)x, mask = (u64)(U)(~(U)0);
  const bool neg = (v >> (bits - 1)) & 1;
  if (s >= (u64)bits) return neg ? (C)(U)mask : (C)0;
  u64 r = v >> s;
  if (neg && s > 0) r |= (mask << (bits - s)) & mask;
  return (C)(U)r;
}
template <class C, class U> HD C i_clz(C x) {
  return (C)(__clzll((long long)(u64)(U)x) - (64 - (int)sizeof(C) * 8));
}
// XLA's float -> integer convert (SaturatingFloatToInt): NaN -> 0,
// saturating at the type's ends, else truncation.
template <class C, class U> HD C f_to_i(double v) {
  const int bits = sizeof(C) * 8;
  const C lo = i_signed<C>() ? (C)((U)1 << (bits - 1)) : (C)0;
  const C hi = (C)(i_signed<C>() ? (U)(~(U)0) >> 1 : (U)(~(U)0));
  if (v != v) return (C)0;
  if (v <= (double)lo) return lo;
  if (v >= (double)hi) return hi;
  return (C)v;
}
)CUDA";

}  // namespace hlo::exec::gpu

#endif  // HLO_LSP_EXEC_GPU_FUSED_PRELUDE_H_
