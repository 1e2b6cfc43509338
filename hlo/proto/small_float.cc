#include "hlo/proto/small_float.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "hlo/proto/xla_data.pb.h"

namespace hlo::proto {

std::optional<SmallFloat> SmallFloatFormat(int type) {
  using S = SmallFloatSpecial;
  switch (type) {
    case xla::F8E5M2:
      return SmallFloat{5, 2, 15, S::kIeee};
    case xla::F8E4M3:
      return SmallFloat{4, 3, 7, S::kIeee};
    case xla::F8E4M3FN:
      return SmallFloat{4, 3, 7, S::kFiniteNanAllOnes};
    case xla::F8E4M3B11FNUZ:
      return SmallFloat{4, 3, 11, S::kFnuz};
    case xla::F8E3M4:
      return SmallFloat{3, 4, 3, S::kIeee};
    case xla::F8E5M2FNUZ:
      return SmallFloat{5, 2, 16, S::kFnuz};
    case xla::F8E4M3FNUZ:
      return SmallFloat{4, 3, 8, S::kFnuz};
    case xla::F4E2M1FN:
      return SmallFloat{2, 1, 1, S::kNone};
    case xla::F8E8M0FNU:
      return SmallFloat{8, 0, 127, S::kE8M0};
    default:
      return std::nullopt;
  }
}

double DecodeSmallFloat(uint8_t bits, const SmallFloat& f) {
  using S = SmallFloatSpecial;
  if (f.special == S::kE8M0) {
    return bits == 0xff ? NAN : std::ldexp(1.0, static_cast<int>(bits) - 127);
  }
  const int total = 1 + f.exponent_bits + f.mantissa_bits;
  bits &= static_cast<uint8_t>((1u << total) - 1);
  const bool negative = (bits >> (total - 1)) & 1;
  const int exponent = (bits >> f.mantissa_bits) & ((1 << f.exponent_bits) - 1);
  const int mantissa = bits & ((1 << f.mantissa_bits) - 1);
  const int max_exponent = (1 << f.exponent_bits) - 1;
  if (f.special == S::kFnuz && bits == (1u << (total - 1))) return NAN;
  if (f.special == S::kIeee && exponent == max_exponent) {
    return mantissa ? NAN : (negative ? -INFINITY : INFINITY);
  }
  if (f.special == S::kFiniteNanAllOnes && exponent == max_exponent &&
      mantissa == (1 << f.mantissa_bits) - 1) {
    return negative ? -NAN : NAN;
  }
  double value =
      exponent == 0
          ? std::ldexp(static_cast<double>(mantissa),
                       1 - f.bias - f.mantissa_bits)
          : std::ldexp(static_cast<double>(mantissa | (1 << f.mantissa_bits)),
                       exponent - f.bias - f.mantissa_bits);
  return negative ? -value : value;
}

uint8_t EncodeSmallFloat(double value, const SmallFloat& f) {
  using S = SmallFloatSpecial;
  const int total =
      f.special == S::kE8M0 ? 8 : 1 + f.exponent_bits + f.mantissa_bits;
  const uint8_t sign_bit =
      f.special == S::kE8M0 ? 0 : static_cast<uint8_t>(1u << (total - 1));
  // The format's NaN and infinity patterns, if any.
  std::optional<uint8_t> nan, inf;
  const uint8_t exponent_ones =
      static_cast<uint8_t>(((1u << f.exponent_bits) - 1) << f.mantissa_bits);
  switch (f.special) {
    case S::kIeee:
      inf = exponent_ones;
      nan = static_cast<uint8_t>(exponent_ones | (1u << (f.mantissa_bits - 1)));
      break;
    case S::kFiniteNanAllOnes:
      nan = static_cast<uint8_t>((1u << (total - 1)) - 1);
      break;
    case S::kFnuz:
      nan = sign_bit;
      break;
    case S::kE8M0:
      nan = 0xff;
      break;
    case S::kNone:
      break;
  }
  if (std::isnan(value)) {
    if (!nan) return 0;
    // A sign only where NaN has one: IEEE and all-ones formats.
    const bool signed_nan =
        f.special == S::kIeee || f.special == S::kFiniteNanAllOnes;
    return static_cast<uint8_t>(
        *nan | (signed_nan && std::signbit(value) ? sign_bit : 0));
  }
  const bool negative = std::signbit(value) && f.special != S::kE8M0;
  const double magnitude = std::fabs(value);
  // The non-negative patterns' values, decoded once per format.
  thread_local std::vector<double> values;
  thread_local int cached_key = -1;
  const int key = (f.exponent_bits << 24) | (f.mantissa_bits << 16) |
                  ((f.bias & 0xff) << 8) | static_cast<int>(f.special);
  const int count = f.special == S::kE8M0 ? 255 : 1 << (total - 1);
  if (key != cached_key) {
    values.resize(count);
    for (int b = 0; b < count; ++b) {
      values[b] = DecodeSmallFloat(static_cast<uint8_t>(b), f);
    }
    cached_key = key;
  }
  // They increase with the bits; the nearest one, ties to even.
  double best_error = INFINITY;
  uint8_t best = 0;
  double largest = 0;
  uint8_t largest_bits = 0;
  for (int b = 0; b < count; ++b) {
    const double v = values[b];
    if (!std::isfinite(v)) continue;
    if (v > largest) {
      largest = v;
      largest_bits = static_cast<uint8_t>(b);
    }
    const double error = std::fabs(v - magnitude);
    if (error < best_error || (error == best_error && (b & 1) == 0)) {
      best_error = error;
      best = static_cast<uint8_t>(b);
    }
  }
  // Past the largest value by half a step or more: out of range.
  if (magnitude > largest) {
    best = largest_bits;
    const double below = values[largest_bits - 1];
    const double half_step = (largest - below) / 2;
    // A tie goes up only from an odd largest pattern (ties to even).
    const double over = magnitude - largest;
    if (std::isinf(magnitude) || over > half_step ||
        (over == half_step && (largest_bits & 1))) {
      if (inf)
        best = *inf;
      else if (nan)
        best = *nan;
    }
  }
  if (f.special == S::kFnuz && best == 0) return 0;  // no -0
  return static_cast<uint8_t>(best | (negative ? sign_bit : 0));
}

}  // namespace hlo::proto
