#include "hlo/primitive_type.h"

#include <array>
#include <bit>
#include <cstdint>

namespace hlo {
namespace {

struct TypeInfo {
  std::string_view name;
  int bits;
};

// Indexed by the enum value.
constexpr std::array<TypeInfo, kPrimitiveTypeCount> kTypes = {{
    {"invalid", 0},    {"pred", 8},       {"s8", 8},     {"s16", 16},
    {"s32", 32},       {"s64", 64},       {"u8", 8},     {"u16", 16},
    {"u32", 32},       {"u64", 64},       {"f16", 16},   {"f32", 32},
    {"f64", 64},       {"tuple", 0},      {"opaque", 0}, {"c64", 64},
    {"bf16", 16},      {"token", 0},      {"c128", 128}, {"f8e5m2", 8},
    {"f8e4m3fn", 8},   {"s4", 4},         {"u4", 4},     {"f8e4m3b11fnuz", 8},
    {"f8e5m2fnuz", 8}, {"f8e4m3fnuz", 8}, {"s2", 2},     {"u2", 2},
    {"f8e4m3", 8},     {"f8e3m4", 8},     {"s1", 1},     {"u1", 1},
    {"f4e2m1fn", 4},   {"f8e8m0fnu", 8},  {"buffer", 0},
}};

// The parser asks this of most identifiers it meets (is `add` a type?):
// the candidates are the types with the name's first letter and length,
// one bit each, and most names have none. "invalid", "tuple" and "buffer"
// are not types one can write.
struct Candidates {
  uint64_t by_first[256] = {};
  uint64_t by_size[14] = {};
  constexpr Candidates() {
    for (int i = 1; i < kPrimitiveTypeCount; ++i) {
      auto type = static_cast<PrimitiveType>(i);
      if (type == PrimitiveType::kTuple || type == PrimitiveType::kBuffer) {
        continue;
      }
      by_first[static_cast<uint8_t>(kTypes[i].name[0])] |= uint64_t{1} << i;
      by_size[kTypes[i].name.size()] |= uint64_t{1} << i;
    }
  }
};
constexpr Candidates kCandidates;
static_assert(kPrimitiveTypeCount <= 64);

}  // namespace

std::optional<PrimitiveType> PrimitiveTypeFromName(std::string_view name) {
  if (name.empty() || name.size() > 13) return std::nullopt;
  if (name == "opaque_type") return PrimitiveType::kOpaque;
  uint64_t candidates = kCandidates.by_first[static_cast<uint8_t>(name[0])] &
                        kCandidates.by_size[name.size()];
  while (candidates != 0) {
    int i = std::countr_zero(candidates);
    candidates &= candidates - 1;
    if (kTypes[i].name == name) return static_cast<PrimitiveType>(i);
  }
  return std::nullopt;
}

std::string_view PrimitiveTypeName(PrimitiveType type) {
  auto index = static_cast<size_t>(type);
  return index < kTypes.size() ? kTypes[index].name : "invalid";
}

int PrimitiveTypeBitWidth(PrimitiveType type) {
  auto index = static_cast<size_t>(type);
  return index < kTypes.size() ? kTypes[index].bits : 0;
}

bool IsFloatingPoint(PrimitiveType t) {
  switch (t) {
    case PrimitiveType::kF16:
    case PrimitiveType::kF32:
    case PrimitiveType::kF64:
    case PrimitiveType::kBF16:
    case PrimitiveType::kF8E5M2:
    case PrimitiveType::kF8E4M3FN:
    case PrimitiveType::kF8E4M3B11FNUZ:
    case PrimitiveType::kF8E5M2FNUZ:
    case PrimitiveType::kF8E4M3FNUZ:
    case PrimitiveType::kF8E4M3:
    case PrimitiveType::kF8E3M4:
    case PrimitiveType::kF4E2M1FN:
    case PrimitiveType::kF8E8M0FNU:
      return true;
    default:
      return false;
  }
}

bool IsComplex(PrimitiveType t) {
  return t == PrimitiveType::kC64 || t == PrimitiveType::kC128;
}

bool IsSignedInteger(PrimitiveType t) {
  switch (t) {
    case PrimitiveType::kS1:
    case PrimitiveType::kS2:
    case PrimitiveType::kS4:
    case PrimitiveType::kS8:
    case PrimitiveType::kS16:
    case PrimitiveType::kS32:
    case PrimitiveType::kS64:
      return true;
    default:
      return false;
  }
}

bool IsUnsignedInteger(PrimitiveType t) {
  switch (t) {
    case PrimitiveType::kU1:
    case PrimitiveType::kU2:
    case PrimitiveType::kU4:
    case PrimitiveType::kU8:
    case PrimitiveType::kU16:
    case PrimitiveType::kU32:
    case PrimitiveType::kU64:
      return true;
    default:
      return false;
  }
}

bool IsArrayType(PrimitiveType t) {
  return t != PrimitiveType::kInvalid && t != PrimitiveType::kTuple &&
         t != PrimitiveType::kToken && t != PrimitiveType::kOpaque &&
         t != PrimitiveType::kBuffer;
}

}  // namespace hlo
