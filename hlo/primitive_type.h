// XLA element types. Enum values equal xla.PrimitiveType in xla_data.proto so
// that the proto codec can cast without a table.
#ifndef HLO_LSP_HLO_PRIMITIVE_TYPE_H_
#define HLO_LSP_HLO_PRIMITIVE_TYPE_H_

#include <cstdint>
#include <optional>
#include <string_view>

namespace hlo {

enum class PrimitiveType : uint8_t {
  kInvalid = 0,
  kPred = 1,
  kS8 = 2,
  kS16 = 3,
  kS32 = 4,
  kS64 = 5,
  kU8 = 6,
  kU16 = 7,
  kU32 = 8,
  kU64 = 9,
  kF16 = 10,
  kF32 = 11,
  kF64 = 12,
  kTuple = 13,
  kOpaque = 14,
  kC64 = 15,
  kBF16 = 16,
  kToken = 17,
  kC128 = 18,
  kF8E5M2 = 19,
  kF8E4M3FN = 20,
  kS4 = 21,
  kU4 = 22,
  kF8E4M3B11FNUZ = 23,
  kF8E5M2FNUZ = 24,
  kF8E4M3FNUZ = 25,
  kS2 = 26,
  kU2 = 27,
  kF8E4M3 = 28,
  kF8E3M4 = 29,
  kS1 = 30,
  kU1 = 31,
  kF4E2M1FN = 32,
  kF8E8M0FNU = 33,
  kBuffer = 34,
};
inline constexpr int kPrimitiveTypeCount = 35;

// "f32" -> kF32. Accepts "opaque_type" as XLA does. Returns nullopt for
// anything else, including "tuple" and "buffer", which are never written.
std::optional<PrimitiveType> PrimitiveTypeFromName(std::string_view name);
// kF32 -> "f32"; kOpaque -> "opaque"; kTuple -> "tuple"; kBuffer -> "buffer".
std::string_view PrimitiveTypeName(PrimitiveType type);

// Bits of one element as stored in memory by XLA's CPU runtime (pred is 8,
// sub-byte types report their logical width). 0 for tuple/token/opaque.
int PrimitiveTypeBitWidth(PrimitiveType type);
bool IsFloatingPoint(PrimitiveType type);  // includes fp8/fp4 families
bool IsComplex(PrimitiveType type);
bool IsSignedInteger(PrimitiveType type);
bool IsUnsignedInteger(PrimitiveType type);
bool IsArrayType(PrimitiveType type);  // not tuple/token/opaque/buffer/invalid

}  // namespace hlo

#endif  // HLO_LSP_HLO_PRIMITIVE_TYPE_H_
