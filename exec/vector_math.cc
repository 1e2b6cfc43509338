// Branch-free f32 exp/expm1/log/log1p/tanh/logistic. Each function is a
// straight line of float and uint32 operations with selects (no calls, no
// branches, no float -> int conversions of possibly-NaN values), so the
// loops in Apply vectorize; the file is built with -fno-math-errno so that
// sqrt does too. Constants are Cephes' (expf, logf), the range reduction
// Cody-Waite with ln 2 split in two.
#include "exec/vector_math.h"

#include <atomic>
#include <bit>
#include <limits>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define HLO_LSP_VECMATH_X86 1
#endif

namespace hlo::exec {
namespace {

#define HLO_LSP_INLINE [[gnu::always_inline]] inline

HLO_LSP_INLINE float FromBits(uint32_t u) { return std::bit_cast<float>(u); }
HLO_LSP_INLINE uint32_t ToBits(float f) { return std::bit_cast<uint32_t>(f); }

// a * b + c, fused where the ISA has FMA (a library call otherwise).
template <bool kFma>
HLO_LSP_INLINE float Mad(float a, float b, float c) {
  if constexpr (kFma) {
    return __builtin_fmaf(a, b, c);
  } else {
    return a * b + c;
  }
}

// 2^n for n in [-126, 127] (n taken mod 2^32 so that garbage from a NaN
// input stays defined; the result is then unused).
HLO_LSP_INLINE float Pow2(uint32_t n) { return FromBits((n + 127u) << 23); }

constexpr float kRoundMagic = 12582912.0f;  // 1.5 * 2^23
constexpr float kLog2e = 1.44269504088896341f;
constexpr float kLn2Hi = 0.693359375f;     // 9 bits: n * kLn2Hi is exact
constexpr float kLn2Lo = -2.12194440e-4f;  // ln 2 - kLn2Hi
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// Splits x (|x| < 2^22 / log2 e) as n * ln 2 + r with n = round(x / ln 2),
// |r| <= ln 2 / 2 + tiny: n as float and as int (mod 2^32).
struct Reduced {
  float r, nf;
  uint32_t n;
};
template <bool kFma>
HLO_LSP_INLINE Reduced Reduce(float x) {
  const float t = x * kLog2e + kRoundMagic;  // rounds to an integer
  Reduced out;
  out.nf = t - kRoundMagic;
  out.n = ToBits(t) - ToBits(kRoundMagic);
  out.r = Mad<kFma>(out.nf, -kLn2Hi, x);
  out.r = Mad<kFma>(out.nf, -kLn2Lo, out.r);
  return out;
}

template <bool kFma>
HLO_LSP_INLINE float Exp(float x) {
  // Clamping keeps n in [-150, 128]; the scaling then overflows to inf or
  // rounds to 0 by itself. NaN passes the clamp (comparisons are false)
  // and every later step.
  const float xc = x < -104.0f ? -104.0f : (x > 89.0f ? 89.0f : x);
  const Reduced d = Reduce<kFma>(xc);
  const float r = d.r;
  float p = 1.9875691500e-4f;
  p = Mad<kFma>(p, r, 1.3981999507e-3f);
  p = Mad<kFma>(p, r, 8.3334519073e-3f);
  p = Mad<kFma>(p, r, 4.1665795894e-2f);
  p = Mad<kFma>(p, r, 1.6666665459e-1f);
  p = Mad<kFma>(p, r, 5.0000001201e-1f);
  p = Mad<kFma>(p, r * r, r) + 1.0f;
  // 2^n as 2^n1 * 2^n2, both normal: p * 2^n1 is exact and the second
  // product rounds once, into the subnormals when it must.
  const uint32_t n1 = static_cast<uint32_t>(static_cast<int32_t>(d.n) >> 1);
  return p * Pow2(n1) * Pow2(d.n - n1);
}

template <bool kFma>
HLO_LSP_INLINE float Expm1(float x) {
  // Below -30 the result is -1 in f32; above 89 inf. expm1(r) is a Taylor
  // polynomial to degree 9 (|r| <= 0.35, or up to 0.7 where n is capped at
  // 127 near the overflow threshold); the result is 2^n * expm1(r) +
  // (2^n - 1), exact for n = 0.
  const float xc = x < -30.0f ? -30.0f : (x > 89.0f ? 89.0f : x);
  Reduced d = Reduce<kFma>(xc);
  const bool cap = static_cast<int32_t>(d.n) > 127;
  d.nf = cap ? 127.0f : d.nf;
  d.n = cap ? 127u : d.n;
  float r = Mad<kFma>(d.nf, -kLn2Hi, xc);
  r = Mad<kFma>(d.nf, -kLn2Lo, r);
  float q = 1.0f / 362880.0f;
  q = Mad<kFma>(q, r, 1.0f / 40320.0f);
  q = Mad<kFma>(q, r, 1.0f / 5040.0f);
  q = Mad<kFma>(q, r, 1.0f / 720.0f);
  q = Mad<kFma>(q, r, 1.0f / 120.0f);
  q = Mad<kFma>(q, r, 1.0f / 24.0f);
  q = Mad<kFma>(q, r, 1.0f / 6.0f);
  q = Mad<kFma>(q, r, 0.5f);
  const float p = Mad<kFma>(q, r * r, r);
  const float s = Pow2(d.n);
  const float y = Mad<kFma>(s, p, s - 1.0f);
  return x == 0.0f ? x : y;  // keeps -0
}

template <bool kFma>
HLO_LSP_INLINE float Log(float x) {
  // x = m * 2^e with m in [sqrt(1/2), sqrt(2)); subnormals are scaled by
  // 2^23 first. log(1 + f) = f - f^2/2 + f^3 P(f) (Cephes logf).
  const bool sub = x < 1.17549435e-38f;
  const float xs = sub ? x * 8388608.0f : x;
  const uint32_t u = ToBits(xs);
  const int32_t e0 =
      static_cast<int32_t>((u >> 23) & 0xffu) - 126 - (sub ? 23 : 0);
  const float m = FromBits((u & 0x007fffffu) | 0x3f000000u);  // [0.5, 1)
  const bool low = m < 0.707106781186547524f;
  const float e = static_cast<float>(low ? e0 - 1 : e0);
  const float f = low ? (m + m) - 1.0f : m - 1.0f;  // both exact
  const float z = f * f;
  float p = 7.0376836292e-2f;
  p = Mad<kFma>(p, f, -1.1514610310e-1f);
  p = Mad<kFma>(p, f, 1.1676998740e-1f);
  p = Mad<kFma>(p, f, -1.2420140846e-1f);
  p = Mad<kFma>(p, f, 1.4249322787e-1f);
  p = Mad<kFma>(p, f, -1.6668057665e-1f);
  p = Mad<kFma>(p, f, 2.0000714765e-1f);
  p = Mad<kFma>(p, f, -2.4999993993e-1f);
  p = Mad<kFma>(p, f, 3.3333331174e-1f);
  float y = f * z * p;
  y = Mad<kFma>(e, kLn2Lo, y);
  y = Mad<kFma>(z, -0.5f, y);
  float r = f + y;
  r = Mad<kFma>(e, kLn2Hi, r);
  r = x == 0.0f ? -kInf : r;
  r = x < 0.0f ? kNaN : r;
  r = x == kInf ? kInf : r;
  return x != x ? x : r;
}

template <bool kFma>
HLO_LSP_INLINE float Log1p(float x) {
  // log(u) * x / (u - 1) with u = 1 + x rounded (Goldberg): the quotient
  // corrects for the rounding of u.
  const float u = 1.0f + x;
  const float d = u - 1.0f;
  const float r = d == 0.0f ? x : Log<kFma>(u) * (x / d);
  return x == kInf ? kInf : r;
}

template <bool kFma>
HLO_LSP_INLINE float Tanh(float x) {
  // tanh |x| = expm1(2|x|) / (expm1(2|x|) + 2), sign copied from x; past
  // |x| = 10 the quotient is 1 in f32 (and expm1 stays finite).
  const uint32_t bits = ToBits(x);
  float a = FromBits(bits & 0x7fffffffu);
  a = a > 10.0f ? 10.0f : a;
  const float t = Expm1<kFma>(a + a);
  const float y = t / (t + 2.0f);
  return FromBits(ToBits(y) | (bits & 0x80000000u));
}

template <bool kFma>
HLO_LSP_INLINE float Logistic(float x) {
  // With e = exp(-|x|) <= 1: 1 / (1 + e) for x >= 0, e / (1 + e) below, so
  // that neither side overflows and tiny results keep their digits.
  const float e = Exp<kFma>(-FromBits(ToBits(x) & 0x7fffffffu));
  return (x < 0.0f ? e : 1.0f) / (1.0f + e);
}

template <bool kFma>
HLO_LSP_INLINE void Apply(VecFn f, const float* __restrict x,
                          float* __restrict y, int64_t n) {
  switch (f) {
    case VecFn::kExp:
      for (int64_t i = 0; i < n; ++i) y[i] = Exp<kFma>(x[i]);
      return;
    case VecFn::kExpm1:
      for (int64_t i = 0; i < n; ++i) y[i] = Expm1<kFma>(x[i]);
      return;
    case VecFn::kLog:
      for (int64_t i = 0; i < n; ++i) y[i] = Log<kFma>(x[i]);
      return;
    case VecFn::kLog1p:
      for (int64_t i = 0; i < n; ++i) y[i] = Log1p<kFma>(x[i]);
      return;
    case VecFn::kTanh:
      for (int64_t i = 0; i < n; ++i) y[i] = Tanh<kFma>(x[i]);
      return;
    case VecFn::kLogistic:
      for (int64_t i = 0; i < n; ++i) y[i] = Logistic<kFma>(x[i]);
      return;
    case VecFn::kSqrt:
      for (int64_t i = 0; i < n; ++i) y[i] = __builtin_sqrtf(x[i]);
      return;
    case VecFn::kRsqrt:
      for (int64_t i = 0; i < n; ++i) y[i] = 1.0f / __builtin_sqrtf(x[i]);
      return;
  }
}

void ApplyPortable(VecFn f, const float* __restrict x, float* __restrict y,
                   int64_t n) {
  Apply<false>(f, x, y, n);
}

#ifdef HLO_LSP_VECMATH_X86
__attribute__((target("avx2,fma"))) void ApplyAvx2(VecFn f,
                                                   const float* __restrict x,
                                                   float* __restrict y,
                                                   int64_t n) {
  Apply<true>(f, x, y, n);
}

// gcc would keep to 256-bit vectors without the preference; clang has no
// such target string (and uses 512 bits when told avx512f).
#if defined(__clang__)
#define HLO_LSP_AVX512_TARGET target("avx512f,avx512dq,avx512vl,fma")
#else
#define HLO_LSP_AVX512_TARGET \
  target("avx512f,avx512dq,avx512vl,fma,prefer-vector-width=512")
#endif
__attribute__((HLO_LSP_AVX512_TARGET)) void ApplyAvx512(
    VecFn f, const float* __restrict x, float* __restrict y, int64_t n) {
  Apply<true>(f, x, y, n);
}
#endif

int BestIsa() {
#ifdef HLO_LSP_VECMATH_X86
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("fma"))
    return 2;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return 1;
#endif
  return 0;
}

std::atomic<int> g_best{-1};

int CurrentIsa() {
  int v = g_best.load(std::memory_order_relaxed);
  if (v < 0) {
    v = BestIsa();
    g_best.store(v, std::memory_order_relaxed);
  }
  return v;
}

}  // namespace

bool VecMathF32OnIsa(int isa, VecFn f, const float* x, float* y, int64_t n) {
  if (isa < 0 || isa > CurrentIsa()) return false;
  switch (isa) {
#ifdef HLO_LSP_VECMATH_X86
    case 2:
      ApplyAvx512(f, x, y, n);
      return true;
    case 1:
      ApplyAvx2(f, x, y, n);
      return true;
#endif
    default:
      ApplyPortable(f, x, y, n);
      return true;
  }
}

void VecMathF32(VecFn f, const float* x, float* y, int64_t n) {
  VecMathF32OnIsa(CurrentIsa(), f, x, y, n);
}

const char* VecMathIsaName() {
  switch (CurrentIsa()) {
    case 2:
      return "avx512";
    case 1:
      return "avx2";
    default:
      return "portable";
  }
}

}  // namespace hlo::exec
