// Enum-valued attributes. XLA matches algorithm, distribution, precision,
// schedule and api_version case-insensitively (it lowercases first); the
// others are exact.
#include <cctype>
#include <string>

#include "hlo/attr_grammar.h"

namespace hlo::attr_internal {
namespace {

template <typename E>
struct Named {
  std::string_view name;
  E value;
};

bool SameWord(std::string_view a, std::string_view b, bool ignore_case) {
  if (a.size() != b.size()) return false;
  if (!ignore_case) return a == b;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

template <typename E, size_t N>
bool Lookup(std::string_view word, const Named<E> (&table)[N], bool ignore_case,
            E* out) {
  for (const Named<E>& entry : table) {
    if (SameWord(word, entry.name, ignore_case)) {
      if (out != nullptr) *out = entry.value;
      return true;
    }
  }
  return false;
}

template <typename E, size_t N>
bool ParseNamed(Scanner& s, const Named<E> (&table)[N], bool ignore_case,
                std::string_view what, E* out) {
  size_t at = (s.SkipSpace(), s.pos());
  std::string_view word = s.Ident();
  if (!word.empty() && Lookup(word, table, ignore_case, out)) return true;
  s.set_pos(at);
  if (word.empty()) return s.FailHere(attr_internal::Cat("expected ", what));
  std::string expected;
  for (const Named<E>& entry : table) {
    expected += attr_internal::Cat(expected.empty() ? "" : ", ", entry.name);
  }
  return s.Fail(at, at + word.size(),
                attr_internal::Cat("unknown ", what, " '", word,
                                   "' (expected one of ", expected, ")"));
}

constexpr Named<ComparisonDirection> kDirections[] = {
    {"EQ", ComparisonDirection::kEq}, {"NE", ComparisonDirection::kNe},
    {"GE", ComparisonDirection::kGe}, {"GT", ComparisonDirection::kGt},
    {"LE", ComparisonDirection::kLe}, {"LT", ComparisonDirection::kLt},
};
constexpr Named<ComparisonType> kComparisonTypes[] = {
    {"FLOAT", ComparisonType::kFloat},
    {"TOTALORDER", ComparisonType::kTotalOrder},
    {"SIGNED", ComparisonType::kSigned},
    {"UNSIGNED", ComparisonType::kUnsigned},
};
constexpr Named<FusionKind> kFusionKinds[] = {
    {"kLoop", FusionKind::kLoop},
    {"kInput", FusionKind::kInput},
    {"kOutput", FusionKind::kOutput},
    {"kCustom", FusionKind::kCustom},
};
constexpr Named<CustomCallApiVersion> kApiVersions[] = {
    {"API_VERSION_UNSPECIFIED", CustomCallApiVersion::kUnspecified},
    {"API_VERSION_ORIGINAL", CustomCallApiVersion::kOriginal},
    {"API_VERSION_STATUS_RETURNING", CustomCallApiVersion::kStatusReturning},
    {"API_VERSION_STATUS_RETURNING_UNIFIED",
     CustomCallApiVersion::kStatusReturningUnified},
    {"API_VERSION_TYPED_FFI", CustomCallApiVersion::kTypedFfi},
};
constexpr Named<Precision> kPrecisions[] = {
    {"default", Precision::kDefault},
    {"high", Precision::kHigh},
    {"highest", Precision::kHighest},
    {"packed_nibble", Precision::kPackedNibble},
};
constexpr Named<DotAlgorithm> kDotAlgorithms[] = {
    {"unset", DotAlgorithm::kUnset},
    {"dot_any_f8_any_f8_f32", DotAlgorithm::kAnyF8AnyF8F32},
    {"dot_any_f8_any_f8_f32_fast_accum", DotAlgorithm::kAnyF8AnyF8F32FastAccum},
    {"dot_f16_f16_f16", DotAlgorithm::kF16F16F16},
    {"dot_f16_f16_f32", DotAlgorithm::kF16F16F32},
    {"dot_bf16_bf16_bf16", DotAlgorithm::kBF16BF16BF16},
    {"dot_bf16_bf16_f32", DotAlgorithm::kBF16BF16F32},
    {"dot_bf16_bf16_f32_x3", DotAlgorithm::kBF16BF16F32X3},
    {"dot_bf16_bf16_f32_x6", DotAlgorithm::kBF16BF16F32X6},
    {"dot_tf32_tf32_f32", DotAlgorithm::kTF32TF32F32},
    {"dot_tf32_tf32_f32_x3", DotAlgorithm::kTF32TF32F32X3},
    {"dot_f32_f32_f32", DotAlgorithm::kF32F32F32},
    {"dot_f64_f64_f64", DotAlgorithm::kF64F64F64},
    {"dot_bf16_bf16_f32_x9", DotAlgorithm::kBF16BF16F32X9},
};
constexpr Named<RandomDistribution> kDistributions[] = {
    {"rng_uniform", RandomDistribution::kUniform},
    {"rng_normal", RandomDistribution::kNormal},
};
constexpr Named<RandomAlgorithm> kRngAlgorithms[] = {
    {"rng_default", RandomAlgorithm::kDefault},
    {"rng_three_fry", RandomAlgorithm::kThreeFry},
    {"rng_philox", RandomAlgorithm::kPhilox},
};
constexpr Named<FftType> kFftTypes[] = {
    {"FFT", FftType::kFft},
    {"IFFT", FftType::kIfft},
    {"RFFT", FftType::kRfft},
    {"IRFFT", FftType::kIrfft},
};
constexpr Named<TriangularTranspose> kTransposes[] = {
    {"NO_TRANSPOSE", TriangularTranspose::kNoTranspose},
    {"TRANSPOSE", TriangularTranspose::kTranspose},
    {"ADJOINT", TriangularTranspose::kAdjoint},
};
constexpr Named<int> kPaddingTypes[] = {
    {"PADDING_VALID", 1},
    {"PADDING_SAME", 2},
};
constexpr Named<int> kSchedules[] = {
    {"SCHEDULE_NONE", 0},
    {"SCHEDULE_LATEST", 1},
    {"SCHEDULE_EARLIEST", 2},
};

}  // namespace

bool ParseDirection(Scanner& s, ComparisonDirection* out) {
  return ParseNamed(s, kDirections, false, "comparison direction", out);
}
bool ParseComparisonType(Scanner& s, ComparisonType* out) {
  return ParseNamed(s, kComparisonTypes, false, "comparison type", out);
}
bool ParseFusionKind(Scanner& s, FusionKind* out) {
  return ParseNamed(s, kFusionKinds, false, "fusion kind", out);
}
bool ParseApiVersion(Scanner& s, CustomCallApiVersion* out) {
  return ParseNamed(s, kApiVersions, true, "custom-call api_version", out);
}
bool ParsePrecision(Scanner& s, Precision* out) {
  return ParseNamed(s, kPrecisions, true, "precision", out);
}
bool ParseOperandPrecision(Scanner& s, std::vector<Precision>* out) {
  if (!s.Expect('{')) return false;
  if (out != nullptr) out->clear();
  if (s.TryConsume('}')) return true;
  do {
    Precision p = Precision::kDefault;
    if (!ParsePrecision(s, &p)) return false;
    if (out != nullptr) out->push_back(p);
  } while (s.TryConsume(','));
  return s.Expect('}');
}
bool ParseDotAlgorithm(Scanner& s, DotAlgorithm* out) {
  return ParseNamed(s, kDotAlgorithms, true, "dot algorithm", out);
}
bool ParseRandomDistribution(Scanner& s, RandomDistribution* out) {
  return ParseNamed(s, kDistributions, true, "rng distribution", out);
}
bool ParseRandomAlgorithm(Scanner& s, RandomAlgorithm* out) {
  return ParseNamed(s, kRngAlgorithms, true, "rng algorithm", out);
}
bool ParseAnyAlgorithm(Scanner& s) {
  size_t at = (s.SkipSpace(), s.pos());
  std::string_view word = s.Ident();
  if (Lookup<DotAlgorithm>(word, kDotAlgorithms, true, nullptr) ||
      Lookup<RandomAlgorithm>(word, kRngAlgorithms, true, nullptr)) {
    return true;
  }
  s.set_pos(at);
  if (word.empty()) return s.FailHere("expected an algorithm name");
  return s.Fail(at, at + word.size(),
                attr_internal::Cat("unknown algorithm '", word,
                                   "' (expected dot_... or rng_...)"));
}
bool ParseFftType(Scanner& s, FftType* out) {
  return ParseNamed(s, kFftTypes, false, "fft_type", out);
}
bool ParseTriangularTranspose(Scanner& s, TriangularTranspose* out) {
  return ParseNamed(s, kTransposes, false, "transpose_a", out);
}
bool ParsePaddingType(Scanner& s) {
  return ParseNamed<int>(s, kPaddingTypes, false, "padding_type", nullptr);
}
bool ParseSchedule(Scanner& s) {
  return ParseNamed<int>(s, kSchedules, true, "schedule", nullptr);
}

}  // namespace hlo::attr_internal
