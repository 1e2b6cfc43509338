// ValidateAttributeValue (the parser's per-attribute check) and the
// single-value decoders. The grammars live in attr_scan.cc, attr_dims.cc,
// attr_collectives.cc, attr_enums.cc and sharding.cc.
#include "hlo/attributes.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "hlo/attr_grammar.h"
#include "hlo/text_hash.h"

namespace hlo {
namespace attr_internal {

bool ParseFrontendAttributes(Scanner& s, FrontendAttributes* out) {
  if (!s.Expect('{')) return false;
  if (out != nullptr) out->entries.clear();
  while (!s.TryConsume('}')) {
    if (!s.ok()) return false;
    if (s.AtEnd()) return s.FailHere("expected '}' to close the attributes");
    if (s.TryConsume(',')) continue;
    std::string_view key = s.AttributeName();
    if (key.empty()) return s.FailHere("expected key=\"value\"");
    std::string* value = nullptr;
    if (out != nullptr) value = &out->entries.emplace_back(key, "").second;
    if (!ParseStringOrDict(s, value, nullptr)) return false;
  }
  return s.ok();
}

namespace {

// A number as written for float attributes (epsilon=): int, decimal, inf,
// -inf, nan.
bool ParseFloatValue(Scanner& s, double* out) {
  s.SkipSpace();
  if (!s.ok()) return false;
  std::string_view text = s.text();
  size_t begin = s.pos();
  size_t end = begin;
  while (end < text.size() &&
         (IsIdentChar(text[end]) ||
          (text[end] == '+' && end > begin &&
           (text[end - 1] == 'e' || text[end - 1] == 'E')))) {
    ++end;
  }
  std::string_view token = text.substr(begin, end - begin);
  double value = 0;
  bool negative = !token.empty() && token[0] == '-';
  std::string_view body = negative ? token.substr(1) : token;
  if (body == "inf") {
    value = std::numeric_limits<double>::infinity();
  } else if (body == "nan") {
    value = std::numeric_limits<double>::quiet_NaN();
  } else {
    auto [ptr, ec] =
        std::from_chars(token.data(), token.data() + token.size(), value);
    if (token.empty() || ec != std::errc() ||
        ptr != token.data() + token.size()) {
      return s.Fail(begin, std::max(end, begin + 1), "expected a number");
    }
  }
  if (negative && (body == "inf" || body == "nan")) value = -value;
  if (out != nullptr) *out = value;
  s.set_pos(end);
  return true;
}

bool ParseComputation(Scanner& s) {
  if (s.Peek() == '{') return s.BalancedBraces(nullptr);  // inline body
  return s.ComputationName(nullptr);
}

bool ParseNameList(Scanner& s) {
  if (!s.Expect('{')) return false;
  if (s.TryConsume('}')) return true;
  do {
    if (!s.ComputationName(nullptr)) return false;
  } while (s.TryConsume(','));
  return s.Expect('}');
}

}  // namespace

bool ParseStatistics(Scanner& s) {
  if (!s.Expect('{')) return false;
  if (s.TryConsume('}')) return true;
  do {
    if (s.AttributeName().empty()) return s.FailHere("expected name=number");
    if (!ParseFloatValue(s, nullptr)) return false;
  } while (s.TryConsume(','));
  return s.Expect('}');
}

}  // namespace attr_internal

namespace {

using attr_internal::Scanner;

enum class Kind : uint8_t {
  kIntList,
  kIntListOrListList,
  kInt,
  kNonNegativeInt,
  kBool,
  kFloat,
  kString,
  kStringOrDict,
  kWindow,
  kDimLabels,
  kSlice,
  kPadding,
  kReplicaGroups,
  kSourceTargetPairs,
  kAliasing,
  kSharding,
  kMetadata,
  kFrontendAttributes,
  kBoolList,
  kComputation,
  kNameList,
  kDirection,
  kComparisonType,
  kFusionKind,
  kDistribution,
  kAlgorithm,
  kFftType,
  kTranspose,
  kApiVersion,
  kOperandPrecision,
  kPaddingType,
  kSchedule,
  kStatistics,
  kShapedLiteral,
};

struct KeyKind {
  std::string_view key;
  Kind kind;
};

constexpr KeyKind kKnownKeys[] = {
    {"dimensions", Kind::kIntList},
    {"dynamic_slice_sizes", Kind::kIntList},
    {"lhs_batch_dims", Kind::kIntList},
    {"lhs_contracting_dims", Kind::kIntList},
    {"rhs_batch_dims", Kind::kIntList},
    {"rhs_contracting_dims", Kind::kIntList},
    {"lhs_ragged_dims", Kind::kIntList},
    {"rhs_group_dims", Kind::kIntList},
    {"offset_dims", Kind::kIntList},
    {"collapsed_slice_dims", Kind::kIntList},
    {"start_index_map", Kind::kIntList},
    {"operand_batching_dims", Kind::kIntList},
    {"start_indices_batching_dims", Kind::kIntList},
    {"update_window_dims", Kind::kIntList},
    {"inserted_window_dims", Kind::kIntList},
    {"scatter_dims_to_operand_dims", Kind::kIntList},
    {"input_batching_dims", Kind::kIntList},
    {"scatter_indices_batching_dims", Kind::kIntList},
    {"fft_length", Kind::kIntList},
    {"slice_sizes", Kind::kIntListOrListList},
    {"channel_id", Kind::kInt},
    {"feature_group_count", Kind::kInt},
    {"batch_group_count", Kind::kInt},
    {"feature_index", Kind::kInt},
    {"exponent_bits", Kind::kInt},
    {"mantissa_bits", Kind::kInt},
    {"k", Kind::kInt},
    {"delta", Kind::kInt},
    {"inferred_dimension", Kind::kInt},
    {"cross_program_prefetch_index", Kind::kInt},
    {"num_carries", Kind::kInt},
    // Negative values are the verifier's business, as in XLA's parser.
    {"index", Kind::kInt},
    {"index_vector_dim", Kind::kInt},
    {"iota_dimension", Kind::kInt},
    {"epsilon", Kind::kFloat},
    {"is_stable", Kind::kBool},
    {"indices_are_sorted", Kind::kBool},
    {"unique_indices", Kind::kBool},
    {"constrain_layout", Kind::kBool},
    {"use_global_device_ids", Kind::kBool},
    {"is_host_transfer", Kind::kBool},
    {"custom_call_has_side_effect", Kind::kBool},
    {"left_side", Kind::kBool},
    {"lower", Kind::kBool},
    {"unit_diagonal", Kind::kBool},
    {"largest", Kind::kBool},
    {"is_composite", Kind::kBool},
    {"is_reverse", Kind::kBool},
    {"is_associative", Kind::kBool},
    {"custom_call_target", Kind::kString},
    {"infeed_config", Kind::kString},
    {"outfeed_config", Kind::kString},
    {"async_execution_thread", Kind::kString},
    {"backend_config", Kind::kStringOrDict},
    {"window", Kind::kWindow},
    {"dim_labels", Kind::kDimLabels},
    {"slice", Kind::kSlice},
    {"padding", Kind::kPadding},
    {"replica_groups", Kind::kReplicaGroups},
    {"source_target_pairs", Kind::kSourceTargetPairs},
    {"output_to_operand_aliasing", Kind::kAliasing},
    {"sharding", Kind::kSharding},
    {"metadata", Kind::kMetadata},
    {"frontend_attributes", Kind::kFrontendAttributes},
    {"parameter_replication", Kind::kBoolList},
    {"to_apply", Kind::kComputation},
    {"calls", Kind::kComputation},
    {"body", Kind::kComputation},
    {"condition", Kind::kComputation},
    {"select", Kind::kComputation},
    {"scatter", Kind::kComputation},
    {"true_computation", Kind::kComputation},
    {"false_computation", Kind::kComputation},
    {"branch_computations", Kind::kNameList},
    {"called_computations", Kind::kNameList},
    {"control-predecessors", Kind::kNameList},
    {"direction", Kind::kDirection},
    {"type", Kind::kComparisonType},
    {"kind", Kind::kFusionKind},
    {"distribution", Kind::kDistribution},
    {"algorithm", Kind::kAlgorithm},
    {"fft_type", Kind::kFftType},
    {"transpose_a", Kind::kTranspose},
    {"api_version", Kind::kApiVersion},
    {"operand_precision", Kind::kOperandPrecision},
    {"padding_type", Kind::kPaddingType},
    {"schedule", Kind::kSchedule},
    {"statistics", Kind::kStatistics},
    {"literal", Kind::kShapedLiteral},
};

// Every attribute of every instruction asks: a hash lookup, not a binary
// search of string compares.
std::optional<Kind> KindOf(std::string_view key) {
  static const auto* table = [] {
    auto* t =
        new absl::flat_hash_map<std::string_view, Kind, TextHash, TextEq>();
    for (const KeyKind& entry : kKnownKeys) t->emplace(entry.key, entry.kind);
    return t;
  }();
  auto it = table->find(key);
  if (it == table->end()) return std::nullopt;
  return it->second;
}

bool Check(Scanner& s, Kind kind) {
  using namespace attr_internal;  // NOLINT: the grammar functions
  switch (kind) {
    case Kind::kIntList:
      return ParseIntList(s, nullptr);
    case Kind::kIntListOrListList:
      return ParseIntListOrListList(s);
    case Kind::kInt:
      return s.Int(nullptr);
    case Kind::kNonNegativeInt:
      return s.NonNegativeInt(nullptr);
    case Kind::kBool:
      return s.Bool(nullptr);
    case Kind::kFloat:
      return ParseFloatValue(s, nullptr);
    case Kind::kString:
      return s.String(nullptr, nullptr);
    case Kind::kStringOrDict:
      return ParseStringOrDict(s, nullptr, nullptr);
    case Kind::kWindow:
      return ParseWindow(s, nullptr);
    case Kind::kDimLabels:
      return ParseDimLabels(s, nullptr);
    case Kind::kSlice:
      return ParseSliceSpec(s, nullptr);
    case Kind::kPadding:
      return ParsePadding(s, nullptr);
    case Kind::kReplicaGroups:
      return ParseReplicaGroups(s, nullptr);
    case Kind::kSourceTargetPairs:
      return ParseSourceTargetPairs(s, nullptr);
    case Kind::kAliasing:
      return ParseAliasing(s, nullptr);
    case Kind::kSharding:
      return ParseSharding(s, nullptr);
    case Kind::kMetadata:
      return ParseMetadata(s, nullptr);
    case Kind::kFrontendAttributes:
      return ParseFrontendAttributes(s, nullptr);
    case Kind::kBoolList:
      return ParseBoolList(s, nullptr);
    case Kind::kComputation:
      return ParseComputation(s);
    case Kind::kNameList:
      return ParseNameList(s);
    case Kind::kDirection:
      return ParseDirection(s, nullptr);
    case Kind::kComparisonType:
      return ParseComparisonType(s, nullptr);
    case Kind::kFusionKind:
      return ParseFusionKind(s, nullptr);
    case Kind::kDistribution:
      return ParseRandomDistribution(s, nullptr);
    case Kind::kAlgorithm:
      return ParseAnyAlgorithm(s);
    case Kind::kFftType:
      return ParseFftType(s, nullptr);
    case Kind::kTranspose:
      return ParseTriangularTranspose(s, nullptr);
    case Kind::kApiVersion:
      return ParseApiVersion(s, nullptr);
    case Kind::kOperandPrecision:
      return ParseOperandPrecision(s, nullptr);
    case Kind::kPaddingType:
      return ParsePaddingType(s);
    case Kind::kSchedule:
      return ParseSchedule(s);
    case Kind::kStatistics:
      return ParseStatistics(s);
    case Kind::kShapedLiteral: {
      absl::StatusOr<LiteralValue> literal = DecodeShapedLiteral(s.text());
      if (literal.ok()) {
        s.set_pos(s.text().size());
        return true;
      }
      // The message already says "offset N: ..."; point at the value.
      return s.Fail(0, s.text().size(),
                    std::string(literal.status().message()));
    }
  }
  return false;
}

template <typename T, typename Grammar>
absl::StatusOr<T> Decode(std::string_view value, Grammar grammar) {
  T result{};
  absl::Status status = attr_internal::RunGrammar(value, &result, grammar);
  if (!status.ok()) return status;
  return result;
}

}  // namespace

std::optional<AttributeError> ValidateAttributeValue(std::string_view key,
                                                     std::string_view value) {
  std::optional<Kind> kind = KindOf(key);
  if (!kind.has_value()) return std::nullopt;
  Scanner s(value);
  if (Check(s, *kind) && s.ExpectEnd()) return std::nullopt;
  if (s.ok()) s.FailHere("malformed value");
  return s.TakeError();
}

// ------------------------------------------------------------ decoders --

absl::StatusOr<int64_t> DecodeInt(std::string_view value) {
  return Decode<int64_t>(value,
                         [](Scanner& s, int64_t* out) { return s.Int(out); });
}
absl::StatusOr<double> DecodeFloat(std::string_view value) {
  return Decode<double>(value, attr_internal::ParseFloatValue);
}
absl::StatusOr<bool> DecodeBool(std::string_view value) {
  return Decode<bool>(value, [](Scanner& s, bool* out) { return s.Bool(out); });
}
absl::StatusOr<std::string> DecodeString(std::string_view value) {
  return Decode<std::string>(value, [](Scanner& s, std::string* out) {
    return s.String(nullptr, out);
  });
}
absl::StatusOr<std::vector<int64_t>> DecodeIntList(std::string_view value) {
  return Decode<std::vector<int64_t>>(value, attr_internal::ParseIntList);
}
absl::StatusOr<std::vector<std::vector<int64_t>>> DecodeIntListList(
    std::string_view value) {
  return Decode<std::vector<std::vector<int64_t>>>(
      value, attr_internal::ParseIntListList);
}
absl::StatusOr<std::vector<bool>> DecodeBoolList(std::string_view value) {
  return Decode<std::vector<bool>>(value, attr_internal::ParseBoolList);
}
absl::StatusOr<Window> DecodeWindow(std::string_view value) {
  return Decode<Window>(value, attr_internal::ParseWindow);
}
absl::StatusOr<ConvolutionDimensionNumbers> DecodeConvolutionDimensionNumbers(
    std::string_view dim_labels) {
  return Decode<ConvolutionDimensionNumbers>(dim_labels,
                                             attr_internal::ParseDimLabels);
}
absl::StatusOr<SliceSpec> DecodeSlice(std::string_view value) {
  return Decode<SliceSpec>(value, attr_internal::ParseSliceSpec);
}
absl::StatusOr<PaddingConfig> DecodePadding(std::string_view value) {
  return Decode<PaddingConfig>(value, attr_internal::ParsePadding);
}
absl::StatusOr<ComparisonDirection> DecodeComparisonDirection(
    std::string_view value) {
  return Decode<ComparisonDirection>(value, attr_internal::ParseDirection);
}
absl::StatusOr<ComparisonType> DecodeComparisonType(std::string_view value) {
  return Decode<ComparisonType>(value, attr_internal::ParseComparisonType);
}
absl::StatusOr<FusionKind> DecodeFusionKind(std::string_view value) {
  return Decode<FusionKind>(value, attr_internal::ParseFusionKind);
}
absl::StatusOr<std::string> DecodeCustomCallTarget(std::string_view value) {
  return DecodeString(value);
}
absl::StatusOr<CustomCallApiVersion> DecodeCustomCallApiVersion(
    std::string_view value) {
  return Decode<CustomCallApiVersion>(value, attr_internal::ParseApiVersion);
}
absl::StatusOr<int64_t> DecodeIotaDimension(std::string_view value) {
  return Decode<int64_t>(
      value, [](Scanner& s, int64_t* out) { return s.NonNegativeInt(out); });
}
absl::StatusOr<std::vector<Precision>> DecodeOperandPrecision(
    std::string_view value) {
  return Decode<std::vector<Precision>>(value,
                                        attr_internal::ParseOperandPrecision);
}
absl::StatusOr<DotAlgorithm> DecodeDotAlgorithm(std::string_view value) {
  return Decode<DotAlgorithm>(value, attr_internal::ParseDotAlgorithm);
}
absl::StatusOr<RandomDistribution> DecodeRandomDistribution(
    std::string_view value) {
  return Decode<RandomDistribution>(value,
                                    attr_internal::ParseRandomDistribution);
}
absl::StatusOr<RandomAlgorithm> DecodeRandomAlgorithm(std::string_view value) {
  return Decode<RandomAlgorithm>(value, attr_internal::ParseRandomAlgorithm);
}
absl::StatusOr<FftType> DecodeFftType(std::string_view value) {
  return Decode<FftType>(value, attr_internal::ParseFftType);
}
absl::StatusOr<TriangularTranspose> DecodeTriangularTranspose(
    std::string_view value) {
  return Decode<TriangularTranspose>(value,
                                     attr_internal::ParseTriangularTranspose);
}
absl::StatusOr<ReplicaGroups> DecodeReplicaGroups(std::string_view value) {
  return Decode<ReplicaGroups>(value, attr_internal::ParseReplicaGroups);
}
absl::StatusOr<std::vector<SourceTargetPair>> DecodeSourceTargetPairs(
    std::string_view value) {
  return Decode<std::vector<SourceTargetPair>>(
      value, attr_internal::ParseSourceTargetPairs);
}
absl::StatusOr<std::vector<OutputOperandAlias>> DecodeOutputToOperandAliasing(
    std::string_view value) {
  return Decode<std::vector<OutputOperandAlias>>(value,
                                                 attr_internal::ParseAliasing);
}
absl::StatusOr<OpMetadata> DecodeMetadata(std::string_view value) {
  return Decode<OpMetadata>(value, attr_internal::ParseMetadata);
}
absl::StatusOr<FrontendAttributes> DecodeFrontendAttributes(
    std::string_view value) {
  return Decode<FrontendAttributes>(value,
                                    attr_internal::ParseFrontendAttributes);
}
absl::StatusOr<BackendConfig> DecodeBackendConfig(std::string_view value) {
  return Decode<BackendConfig>(value, [](Scanner& s, BackendConfig* out) {
    return attr_internal::ParseStringOrDict(s, &out->text, &out->was_string);
  });
}

absl::StatusOr<std::vector<std::vector<int64_t>>> ExpandReplicaGroups(
    const ReplicaGroups& groups, int64_t max_devices) {
  if (!groups.is_iota) return groups.groups;
  absl::StatusOr<std::vector<int64_t>> devices = ExpandIotaDevices(
      groups.reshape_dims, groups.transpose_perm, max_devices);
  if (!devices.ok()) return devices.status();
  if (groups.num_groups < 0 || groups.group_size < 0 ||
      (groups.group_size != 0 &&
       groups.num_groups >
           static_cast<int64_t>(devices->size()) / groups.group_size) ||
      groups.num_groups * groups.group_size !=
          static_cast<int64_t>(devices->size())) {
    return absl::InvalidArgumentError(
        "replica group count x size does not match the iota device count");
  }
  std::vector<std::vector<int64_t>> result(groups.num_groups);
  for (int64_t g = 0; g < groups.num_groups; ++g) {
    auto first = devices->begin() + g * groups.group_size;
    result[g].assign(first, first + groups.group_size);
  }
  return result;
}

}  // namespace hlo
