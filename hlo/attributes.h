// Typed views of instruction attributes, decoded from their raw text. The
// parser keeps every attribute as raw spans; this layer turns the values the
// evaluator, the printer and the proto encoder need into typed structs
// (parsed once here so they all share it), and lets the parser check known
// attributes while parsing.
//
// Every DecodeX takes the value text exactly as written (braces and quotes
// included) and fails with "offset N: message", N relative to the value.
// Decoders over several attributes (dot, gather, ...) take the instruction's
// raw attributes and prefix errors with the key.
#ifndef HLO_LSP_HLO_ATTRIBUTES_H_
#define HLO_LSP_HLO_ATTRIBUTES_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "hlo/attr_values.h"
#include "hlo/literal_text.h"
#include "hlo/sharding.h"
#include "hlo/syntax.h"

namespace hlo {

// Checks the value of a known attribute key. nullopt when the value is well
// formed or the key is not one this layer knows. Does not allocate on the
// success path (it runs for every attribute of a 100 MB file).
std::optional<AttributeError> ValidateAttributeValue(std::string_view key,
                                                     std::string_view value);

// ------------------------------------------------------- single values --

absl::StatusOr<int64_t> DecodeInt(std::string_view value);
absl::StatusOr<double> DecodeFloat(std::string_view value);  // epsilon=
absl::StatusOr<bool> DecodeBool(std::string_view value);
absl::StatusOr<std::string> DecodeString(std::string_view value);  // unescaped
absl::StatusOr<std::vector<int64_t>> DecodeIntList(std::string_view value);
absl::StatusOr<std::vector<std::vector<int64_t>>> DecodeIntListList(
    std::string_view value);
absl::StatusOr<std::vector<bool>> DecodeBoolList(std::string_view value);

absl::StatusOr<Window> DecodeWindow(std::string_view value);
absl::StatusOr<ConvolutionDimensionNumbers> DecodeConvolutionDimensionNumbers(
    std::string_view dim_labels);
absl::StatusOr<SliceSpec> DecodeSlice(std::string_view value);
absl::StatusOr<PaddingConfig> DecodePadding(std::string_view value);

absl::StatusOr<ComparisonDirection> DecodeComparisonDirection(
    std::string_view value);
absl::StatusOr<ComparisonType> DecodeComparisonType(std::string_view value);
absl::StatusOr<FusionKind> DecodeFusionKind(std::string_view value);
absl::StatusOr<std::string> DecodeCustomCallTarget(std::string_view value);
absl::StatusOr<CustomCallApiVersion> DecodeCustomCallApiVersion(
    std::string_view value);
absl::StatusOr<int64_t> DecodeIotaDimension(std::string_view value);
absl::StatusOr<std::vector<Precision>> DecodeOperandPrecision(
    std::string_view value);
absl::StatusOr<DotAlgorithm> DecodeDotAlgorithm(std::string_view value);
absl::StatusOr<RandomDistribution> DecodeRandomDistribution(
    std::string_view value);
absl::StatusOr<RandomAlgorithm> DecodeRandomAlgorithm(std::string_view value);
absl::StatusOr<FftType> DecodeFftType(std::string_view value);
absl::StatusOr<TriangularTranspose> DecodeTriangularTranspose(
    std::string_view value);

absl::StatusOr<ReplicaGroups> DecodeReplicaGroups(std::string_view value);
// The groups of either form as explicit lists; fails past `max_devices`.
absl::StatusOr<std::vector<std::vector<int64_t>>> ExpandReplicaGroups(
    const ReplicaGroups& groups, int64_t max_devices = 1 << 22);
absl::StatusOr<std::vector<SourceTargetPair>> DecodeSourceTargetPairs(
    std::string_view value);
absl::StatusOr<std::vector<OutputOperandAlias>> DecodeOutputToOperandAliasing(
    std::string_view value);

absl::StatusOr<OpMetadata> DecodeMetadata(std::string_view value);
absl::StatusOr<FrontendAttributes> DecodeFrontendAttributes(
    std::string_view value);
absl::StatusOr<BackendConfig> DecodeBackendConfig(std::string_view value);
// Sharding: DecodeSharding in sharding.h. Literals: literal_text.h.

// ----------------------------------------- values spread over attributes --

using RawAttributes = std::span<const RawAttribute>;

absl::StatusOr<DotDimensionNumbers> DecodeDotDimensionNumbers(
    RawAttributes attributes);
absl::StatusOr<GatherDimensionNumbers> DecodeGatherDimensionNumbers(
    RawAttributes attributes);
absl::StatusOr<ScatterDimensionNumbers> DecodeScatterDimensionNumbers(
    RawAttributes attributes);
absl::StatusOr<PrecisionConfig> DecodePrecisionConfig(RawAttributes attributes);
absl::StatusOr<FftOptions> DecodeFftOptions(RawAttributes attributes);
absl::StatusOr<TriangularSolveOptions> DecodeTriangularSolveOptions(
    RawAttributes attributes);
absl::StatusOr<CholeskyOptions> DecodeCholeskyOptions(RawAttributes attributes);

// ------------------------------------------------------- the aggregate --

struct AttributeDecodeError {
  Span span;  // the attribute value (or operand list) in the file
  std::string message;
};

// Everything this layer decodes for one instruction. Fields are set when
// the attribute is present and decodes; `errors` lists the ones that did
// not; `others` keeps every attribute without a typed field, as written.
struct InstructionAttributes {
  std::optional<int64_t> parameter_number;  // parameter(N)
  std::optional<LiteralValue> literal;      // constant(...)
  std::optional<std::vector<int64_t>> dimensions;
  std::optional<int64_t> tuple_index;  // index=
  std::optional<int64_t> iota_dimension;
  std::optional<ComparisonDirection> comparison_direction;
  std::optional<ComparisonType> comparison_type;
  std::optional<FusionKind> fusion_kind;
  std::optional<std::string> custom_call_target;
  std::optional<CustomCallApiVersion> custom_call_api_version;
  std::optional<bool> custom_call_has_side_effect;
  std::optional<DotDimensionNumbers> dot_dimension_numbers;
  // ragged-dot (with dot_dimension_numbers): XLA's RaggedDotDimensionNumbers.
  std::optional<std::vector<int64_t>> lhs_ragged_dims;
  std::optional<std::vector<int64_t>> rhs_group_dims;
  std::optional<ConvolutionDimensionNumbers> convolution_dimension_numbers;
  std::optional<int64_t> feature_group_count;
  std::optional<int64_t> batch_group_count;
  std::optional<GatherDimensionNumbers> gather_dimension_numbers;
  std::optional<ScatterDimensionNumbers> scatter_dimension_numbers;
  std::optional<PrecisionConfig> precision_config;
  std::optional<Window> window;
  std::optional<SliceSpec> slice;
  std::optional<std::vector<int64_t>> dynamic_slice_sizes;
  std::optional<PaddingConfig> padding;
  std::optional<ReplicaGroups> replica_groups;
  std::optional<std::vector<SourceTargetPair>> source_target_pairs;
  std::optional<int64_t> channel_id;
  std::optional<bool> use_global_device_ids;
  std::optional<bool> constrain_layout;
  std::optional<bool> is_host_transfer;
  std::optional<std::vector<OutputOperandAlias>> output_to_operand_aliasing;
  std::optional<RandomDistribution> rng_distribution;
  std::optional<RandomAlgorithm> rng_algorithm;
  std::optional<FftOptions> fft;
  std::optional<TriangularSolveOptions> triangular_solve;
  std::optional<CholeskyOptions> cholesky;
  std::optional<double> epsilon;
  std::optional<int64_t> feature_index;
  std::optional<int64_t> exponent_bits;
  std::optional<int64_t> mantissa_bits;
  std::optional<bool> is_stable;
  std::optional<int64_t> k;  // topk
  std::optional<bool> largest;
  std::optional<std::vector<bool>> parameter_replication;
  std::optional<HloShardingValue> sharding;
  std::optional<OpMetadata> metadata;
  std::optional<BackendConfig> backend_config;
  std::optional<FrontendAttributes> frontend_attributes;
  // Attributes with no field above (computation references, layouts,
  // statistics, origin, ...), as written: views into the file's text.
  std::vector<RawAttribute> others;
  std::vector<AttributeDecodeError> errors;
};

InstructionAttributes DecodeInstructionAttributes(
    const ParsedFile& file, const Instruction& instruction);

}  // namespace hlo

#endif  // HLO_LSP_HLO_ATTRIBUTES_H_
