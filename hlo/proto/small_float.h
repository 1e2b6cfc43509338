// The 8- and 4-bit float formats of XLA literals (f8e5m2, f8e4m3fn, ...,
// f4e2m1fn, f8e8m0fnu), described by their bit fields and how they spell
// NaN and infinity: bits -> double for printing, double -> bits (nearest,
// ties to even) for encoding.
#ifndef HLO_LSP_HLO_PROTO_SMALL_FLOAT_H_
#define HLO_LSP_HLO_PROTO_SMALL_FLOAT_H_

#include <cstdint>
#include <optional>

namespace hlo::proto {

enum class SmallFloatSpecial {
  kIeee,              // all-ones exponent: inf (mantissa 0) or NaN
  kFiniteNanAllOnes,  // no inf; all-ones exponent and mantissa is NaN
  kFnuz,              // no inf, no -0; the negative-zero pattern is NaN
  kNone,              // no inf, no NaN (f4e2m1fn)
  kE8M0,              // exponent only, no sign: 2^(e-127); 0xff is NaN
};

struct SmallFloat {
  int exponent_bits;
  int mantissa_bits;
  int bias;
  SmallFloatSpecial special;
};

// The format of an xla::PrimitiveType value; nullopt for other types.
std::optional<SmallFloat> SmallFloatFormat(int type);

double DecodeSmallFloat(uint8_t bits, const SmallFloat& format);

// The nearest value's bits (ties to an even mantissa). Out of range:
// infinity where the format has one, else NaN where it has one, else the
// largest finite value; NaN maps to the format's NaN (0 for f4e2m1fn).
uint8_t EncodeSmallFloat(double value, const SmallFloat& format);

}  // namespace hlo::proto

#endif  // HLO_LSP_HLO_PROTO_SMALL_FLOAT_H_
