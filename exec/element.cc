#include "exec/element.h"

#include <cmath>

namespace hlo::exec {

const MiniFloat* MiniFloatFormat(PrimitiveType type) {
  //                                 e  m  bias  inf    ieee   fn     fnuz
  static const MiniFloat kE5M2{5, 2, 15, true, true, false, false};
  static const MiniFloat kE4M3FN{4, 3, 7, false, false, true, false};
  static const MiniFloat kE4M3{4, 3, 7, true, true, false, false};
  static const MiniFloat kE3M4{3, 4, 3, true, true, false, false};
  static const MiniFloat kE4M3FNUZ{4, 3, 8, false, false, false, true};
  static const MiniFloat kE5M2FNUZ{5, 2, 16, false, false, false, true};
  static const MiniFloat kE4M3B11{4, 3, 11, false, false, false, true};
  static const MiniFloat kE2M1FN{2, 1, 1, false, false, false, false};
  static const MiniFloat kE8M0{8, 0, 127, false, false, false, false, true};
  static const MiniFloat kF16{5, 10, 15, true, true, false, false};
  static const MiniFloat kBF16{8, 7, 127, true, true, false, false};
  using P = PrimitiveType;
  switch (type) {
    case P::kF8E5M2:
      return &kE5M2;
    case P::kF8E4M3FN:
      return &kE4M3FN;
    case P::kF8E4M3:
      return &kE4M3;
    case P::kF8E3M4:
      return &kE3M4;
    case P::kF8E4M3FNUZ:
      return &kE4M3FNUZ;
    case P::kF8E5M2FNUZ:
      return &kE5M2FNUZ;
    case P::kF8E4M3B11FNUZ:
      return &kE4M3B11;
    case P::kF4E2M1FN:
      return &kE2M1FN;
    case P::kF8E8M0FNU:
      return &kE8M0;
    case P::kF16:
      return &kF16;
    case P::kBF16:
      return &kBF16;
    default:
      return nullptr;
  }
}

float MiniFloatToFloat(const MiniFloat& f, uint32_t bits) {
  if (f.unsigned_e8m0) {
    if (bits == 0xff) return std::numeric_limits<float>::quiet_NaN();
    return std::ldexp(1.0f, static_cast<int>(bits) - 127);
  }
  const int total = 1 + f.ebits + f.mbits;
  const uint32_t sign = (bits >> (total - 1)) & 1;
  const uint32_t exp = (bits >> f.mbits) & ((1u << f.ebits) - 1);
  const uint32_t man = bits & ((1u << f.mbits) - 1);
  const uint32_t exp_max = (1u << f.ebits) - 1;
  const uint32_t man_max = (1u << f.mbits) - 1;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  if (f.fnuz && sign && exp == 0 && man == 0) return nan;
  if (f.ieee_nan && exp == exp_max) {
    if (man != 0) return nan;
    return sign ? -std::numeric_limits<float>::infinity()
                : std::numeric_limits<float>::infinity();
  }
  if (f.fn_nan && exp == exp_max && man == man_max) return nan;
  double v;
  if (exp == 0) {
    v = std::ldexp(static_cast<double>(man), 1 - f.bias - f.mbits);
  } else {
    v = std::ldexp(static_cast<double>(man + (1u << f.mbits)),
                   static_cast<int>(exp) - f.bias - f.mbits);
  }
  return static_cast<float>(sign ? -v : v);
}

uint32_t FloatToMiniFloat(const MiniFloat& f, float value) {
  const int total = 1 + f.ebits + f.mbits;
  const uint32_t exp_max = (1u << f.ebits) - 1;
  const uint32_t man_max = (1u << f.mbits) - 1;
  if (f.unsigned_e8m0) {
    if (std::isnan(value) || value < 0 || std::isinf(value)) return 0xff;
    if (value == 0) return 0;
    int e;
    std::frexp(value, &e);  // value = m * 2^e, m in [0.5, 1)
    // Round to nearest power of two in the log domain's linear midpoint.
    double lo = std::ldexp(1.0, e - 1);
    int exp = (value >= lo * 1.5) ? e : e - 1;
    int field = exp + 127;
    if (field < 0) return 0;
    if (field > 254) return 0xff;
    return static_cast<uint32_t>(field);
  }
  const uint32_t sign_bit = 1u << (total - 1);
  const bool negative = std::signbit(value);
  uint32_t nan_bits;
  if (f.fnuz) {
    nan_bits = sign_bit;
  } else if (f.fn_nan) {
    nan_bits = (negative ? sign_bit : 0) | (exp_max << f.mbits) | man_max;
  } else if (f.ieee_nan) {
    nan_bits = (negative ? sign_bit : 0) | (exp_max << f.mbits) |
               (1u << (f.mbits - 1));
  } else {
    nan_bits = (negative ? sign_bit : 0) | (exp_max << f.mbits) | man_max;
  }
  if (std::isnan(value)) return nan_bits;
  const uint32_t sign = negative ? sign_bit : 0;
  double x = std::fabs(static_cast<double>(value));
  // The largest finite value's exponent and mantissa.
  int emax;
  uint32_t top_man;
  if (f.ieee_nan) {
    emax = static_cast<int>(exp_max) - 1 - f.bias;
    top_man = man_max;
  } else if (f.fn_nan) {
    emax = static_cast<int>(exp_max) - f.bias;
    top_man = man_max - 1;
  } else {
    emax = static_cast<int>(exp_max) - f.bias;
    top_man = man_max;
  }
  auto overflow = [&]() -> uint32_t {
    if (f.has_inf) return sign | (exp_max << f.mbits);
    if (f.fnuz || f.fn_nan) return nan_bits;
    return sign | (exp_max << f.mbits) | man_max;  // no NaN: saturate (E2M1)
  };
  if (std::isinf(value)) return overflow();
  const int emin = 1 - f.bias;
  if (x == 0) return f.fnuz ? 0 : sign;
  int e;
  std::frexp(x, &e);
  e -= 1;  // x in [2^e, 2^(e+1))
  if (e < emin) e = emin;
  double q = std::nearbyint(std::ldexp(x, f.mbits - e));  // RNE
  if (q >= std::ldexp(1.0, f.mbits + 1)) {
    q /= 2;
    e += 1;
  }
  uint32_t qi = static_cast<uint32_t>(q);
  if (qi == 0) return f.fnuz ? 0 : sign;
  if (qi < (1u << f.mbits)) return sign | qi;  // subnormal
  if (e > emax) return overflow();
  uint32_t man = qi - (1u << f.mbits);
  if (e == emax && man > top_man) return overflow();
  return sign | (static_cast<uint32_t>(e + f.bias) << f.mbits) | man;
}

int StorageBytes(PrimitiveType t) {
  int bytes = 0;
  VisitType(t, [&]<typename T>() { bytes = sizeof(typename T::S); });
  return bytes;
}

}  // namespace hlo::exec
