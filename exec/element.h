// Element types of the evaluator: how each HLO type is stored (one element
// per storage slot, sub-byte types one per byte), what it computes in, and
// XLA's conversion rules (round to nearest even for narrow floats, NaN to 0
// and saturation for float -> int).
#ifndef HLO_LSP_EXEC_ELEMENT_H_
#define HLO_LSP_EXEC_ELEMENT_H_

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "hlo/primitive_type.h"

namespace hlo::exec {

enum class Kind : uint8_t {
  kPred,
  kSigned,
  kUnsigned,
  kFloat,
  kComplex,
  kOther
};

// A narrow floating format: `ebits` exponent and `mbits` mantissa bits.
struct MiniFloat {
  int ebits, mbits, bias;
  bool has_inf;   // IEEE style: exponent all ones, mantissa 0 is inf
  bool ieee_nan;  // exponent all ones, mantissa != 0 is NaN
  bool fn_nan;    // only all-ones exponent and mantissa is NaN (E4M3FN)
  bool fnuz;      // 0x80 is the only NaN; no negative zero
  bool unsigned_e8m0 = false;  // E8M0FNU: no sign, no zero, 0xFF NaN
};

const MiniFloat* MiniFloatFormat(PrimitiveType type);  // nullptr for others
float MiniFloatToFloat(const MiniFloat& f, uint32_t bits);
uint32_t FloatToMiniFloat(const MiniFloat& f, float value);

inline float BF16ToFloat(uint16_t b) {
  uint32_t u = uint32_t{b} << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
inline uint16_t FloatToBF16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if (std::isnan(f)) return static_cast<uint16_t>((u >> 16) | 0x40);
  uint32_t rounding = 0x7fff + ((u >> 16) & 1);
  return static_cast<uint16_t>((u + rounding) >> 16);
}
// IEEE half <-> float in software: clang-14 has no _Float16 on x86-64, and
// the sanitizer build uses clang. Round to nearest even, subnormals kept.
inline float F16ToFloat(uint16_t h) {
  const uint32_t sign = uint32_t{h & 0x8000u} << 16;
  const uint32_t exp = (h >> 10) & 0x1f;
  const uint32_t mant = h & 0x3ff;
  if (exp == 0) {
    // Zero or subnormal: mant * 2^-24, exact in float.
    float f = std::ldexp(static_cast<float>(mant), -24);
    return sign ? -f : f;
  }
  uint32_t bits = exp == 31 ? (sign | 0x7f800000u | (mant << 13))
                            : (sign | ((exp + 112) << 23) | (mant << 13));
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}
inline uint16_t FloatToF16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  const uint32_t sign = (u >> 16) & 0x8000u;
  const uint32_t abs = u & 0x7fffffffu;
  if (abs >= 0x7f800000u) {  // inf or NaN (NaN stays quiet)
    return static_cast<uint16_t>(
        abs == 0x7f800000u ? (sign | 0x7c00u)
                           : (sign | 0x7e00u | ((abs >> 13) & 0x3ffu)));
  }
  if (abs >= 0x477ff000u)
    return static_cast<uint16_t>(sign | 0x7c00u);  // >= 65520
  if (abs < 0x38800000u) {  // below 2^-14: a subnormal half or zero
    float a;
    std::memcpy(&a, &abs, 4);
    // a * 2^24 is exact; nearbyint rounds half to even in the default mode.
    auto r = static_cast<uint32_t>(std::nearbyint(a * 16777216.0f));
    return static_cast<uint16_t>(sign | r);
  }
  const uint32_t mant = abs & 0x7fffffu;
  uint32_t h = (((abs >> 23) - 112) << 10) | (mant >> 13);
  const uint32_t rest = mant & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;  // carry is fine
  return static_cast<uint16_t>(sign | h);
}

// Float -> integer as XLA converts: NaN -> 0, out of range saturates,
// otherwise truncation toward zero.
template <typename I, typename F>
inline I SaturatingFloatToInt(F v) {
  if (std::isnan(v)) return 0;
  if (v <= static_cast<F>(std::numeric_limits<I>::lowest()))
    return std::numeric_limits<I>::lowest();
  if (v >= static_cast<F>(std::numeric_limits<I>::max()))
    return std::numeric_limits<I>::max();
  return static_cast<I>(v);
}

// ----------------------------------------------------------------- traits --
// S: storage type, C: compute type. Load/Store convert between them; Store
// wraps sub-byte integers to their width and rounds narrow floats.

template <PrimitiveType P, typename = void>
struct Tr;

template <PrimitiveType P, typename Storage, Kind K, int Bits>
struct IntTraits {
  static constexpr PrimitiveType kType = P;
  static constexpr Kind kKind = K;
  static constexpr int kBits = Bits;
  using S = Storage;
  using C = Storage;
  static C Load(S s) { return s; }
  static S Store(C c) {
    if constexpr (Bits >= 8) {
      return c;
    } else if constexpr (K == Kind::kSigned) {
      int v = static_cast<int>(static_cast<unsigned>(c) << (32 - Bits));
      return static_cast<S>(v >> (32 - Bits));
    } else {
      return static_cast<S>(c & ((1u << Bits) - 1));
    }
  }
  // The narrow (sub-byte) cases are discarded for wider types: 1 << 31
  // would overflow int.
  static constexpr C Min() {
    if constexpr (K != Kind::kSigned)
      return 0;
    else if constexpr (Bits >= 8)
      return std::numeric_limits<S>::lowest();
    else
      return static_cast<S>(-(1 << (Bits - 1)));
  }
  static constexpr C Max() {
    if constexpr (Bits >= 8)
      return std::numeric_limits<S>::max();
    else if constexpr (K == Kind::kSigned)
      return static_cast<S>((1 << (Bits - 1)) - 1);
    else
      return static_cast<S>((1 << Bits) - 1);
  }
};

struct PredTraits {
  static constexpr PrimitiveType kType = PrimitiveType::kPred;
  static constexpr Kind kKind = Kind::kPred;
  static constexpr int kBits = 8;
  using S = uint8_t;
  using C = bool;
  static C Load(S s) { return s != 0; }
  static S Store(C c) { return c ? 1 : 0; }
};

template <PrimitiveType P, typename Native>
struct NativeFloatTraits {
  static constexpr PrimitiveType kType = P;
  static constexpr Kind kKind = Kind::kFloat;
  static constexpr int kBits = sizeof(Native) * 8;
  using S = Native;
  using C = Native;
  static C Load(S s) { return s; }
  static S Store(C c) { return c; }
};

struct BF16Traits {
  static constexpr PrimitiveType kType = PrimitiveType::kBF16;
  static constexpr Kind kKind = Kind::kFloat;
  static constexpr int kBits = 16;
  using S = uint16_t;
  using C = float;
  static C Load(S s) { return BF16ToFloat(s); }
  static S Store(C c) { return FloatToBF16(c); }
};
struct F16Traits {
  static constexpr PrimitiveType kType = PrimitiveType::kF16;
  static constexpr Kind kKind = Kind::kFloat;
  static constexpr int kBits = 16;
  using S = uint16_t;
  using C = float;
  static C Load(S s) { return F16ToFloat(s); }
  static S Store(C c) { return FloatToF16(c); }
};
template <PrimitiveType P>
struct F8Traits {
  static constexpr PrimitiveType kType = P;
  static constexpr Kind kKind = Kind::kFloat;
  static constexpr int kBits = P == PrimitiveType::kF4E2M1FN ? 4 : 8;
  using S = uint8_t;
  using C = float;
  static C Load(S s) { return MiniFloatToFloat(*MiniFloatFormat(P), s); }
  static S Store(C c) {
    return static_cast<S>(FloatToMiniFloat(*MiniFloatFormat(P), c));
  }
};
template <PrimitiveType P, typename Native>
struct ComplexTraits {
  static constexpr PrimitiveType kType = P;
  static constexpr Kind kKind = Kind::kComplex;
  static constexpr int kBits = sizeof(Native) * 8;
  using S = Native;
  using C = Native;
  static C Load(S s) { return s; }
  static S Store(C c) { return c; }
};

// Calls f.template operator()<Traits>() for an array type; returns false
// (without calling) for tuple/token/opaque/invalid.
template <typename F>
bool VisitType(PrimitiveType t, F&& f) {
  using P = PrimitiveType;
  switch (t) {
    case P::kPred:
      f.template operator()<PredTraits>();
      return true;
    case P::kS1:
      f.template operator()<IntTraits<P::kS1, int8_t, Kind::kSigned, 1>>();
      return true;
    case P::kS2:
      f.template operator()<IntTraits<P::kS2, int8_t, Kind::kSigned, 2>>();
      return true;
    case P::kS4:
      f.template operator()<IntTraits<P::kS4, int8_t, Kind::kSigned, 4>>();
      return true;
    case P::kS8:
      f.template operator()<IntTraits<P::kS8, int8_t, Kind::kSigned, 8>>();
      return true;
    case P::kS16:
      f.template operator()<IntTraits<P::kS16, int16_t, Kind::kSigned, 16>>();
      return true;
    case P::kS32:
      f.template operator()<IntTraits<P::kS32, int32_t, Kind::kSigned, 32>>();
      return true;
    case P::kS64:
      f.template operator()<IntTraits<P::kS64, int64_t, Kind::kSigned, 64>>();
      return true;
    case P::kU1:
      f.template operator()<IntTraits<P::kU1, uint8_t, Kind::kUnsigned, 1>>();
      return true;
    case P::kU2:
      f.template operator()<IntTraits<P::kU2, uint8_t, Kind::kUnsigned, 2>>();
      return true;
    case P::kU4:
      f.template operator()<IntTraits<P::kU4, uint8_t, Kind::kUnsigned, 4>>();
      return true;
    case P::kU8:
      f.template operator()<IntTraits<P::kU8, uint8_t, Kind::kUnsigned, 8>>();
      return true;
    case P::kU16:
      f.template
      operator()<IntTraits<P::kU16, uint16_t, Kind::kUnsigned, 16>>();
      return true;
    case P::kU32:
      f.template
      operator()<IntTraits<P::kU32, uint32_t, Kind::kUnsigned, 32>>();
      return true;
    case P::kU64:
      f.template
      operator()<IntTraits<P::kU64, uint64_t, Kind::kUnsigned, 64>>();
      return true;
    case P::kF16:
      f.template operator()<F16Traits>();
      return true;
    case P::kBF16:
      f.template operator()<BF16Traits>();
      return true;
    case P::kF32:
      f.template operator()<NativeFloatTraits<P::kF32, float>>();
      return true;
    case P::kF64:
      f.template operator()<NativeFloatTraits<P::kF64, double>>();
      return true;
    case P::kF8E5M2:
      f.template operator()<F8Traits<P::kF8E5M2>>();
      return true;
    case P::kF8E4M3FN:
      f.template operator()<F8Traits<P::kF8E4M3FN>>();
      return true;
    case P::kF8E4M3B11FNUZ:
      f.template operator()<F8Traits<P::kF8E4M3B11FNUZ>>();
      return true;
    case P::kF8E5M2FNUZ:
      f.template operator()<F8Traits<P::kF8E5M2FNUZ>>();
      return true;
    case P::kF8E4M3FNUZ:
      f.template operator()<F8Traits<P::kF8E4M3FNUZ>>();
      return true;
    case P::kF8E4M3:
      f.template operator()<F8Traits<P::kF8E4M3>>();
      return true;
    case P::kF8E3M4:
      f.template operator()<F8Traits<P::kF8E3M4>>();
      return true;
    case P::kF4E2M1FN:
      f.template operator()<F8Traits<P::kF4E2M1FN>>();
      return true;
    case P::kF8E8M0FNU:
      f.template operator()<F8Traits<P::kF8E8M0FNU>>();
      return true;
    case P::kC64:
      f.template operator()<ComplexTraits<P::kC64, std::complex<float>>>();
      return true;
    case P::kC128:
      f.template operator()<ComplexTraits<P::kC128, std::complex<double>>>();
      return true;
    default:
      return false;
  }
}

// Bytes of one stored element (sub-byte types take a byte); 0 for
// non-array types.
int StorageBytes(PrimitiveType t);

}  // namespace hlo::exec

#endif  // HLO_LSP_EXEC_ELEMENT_H_
