// Typed values of HLO instruction attributes, decoded from their text by
// attributes.h. Field meanings and enum numbers follow xla_data.proto so the
// proto encoder can copy them without tables.
#ifndef HLO_LSP_HLO_ATTR_VALUES_H_
#define HLO_LSP_HLO_ATTR_VALUES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hlo {

// An error inside an attribute value; offset/length are relative to the
// start of the value text.
struct AttributeError {
  uint32_t offset = 0;
  uint32_t length = 0;
  std::string message;
};

// One raw attribute: key and value text as written (value braces/quotes
// included). Views into the caller's buffer.
struct RawAttribute {
  std::string_view key;
  std::string_view value;
};

// ------------------------------------------------------------- windows --

struct WindowDimension {
  int64_t size = 1;
  int64_t stride = 1;
  int64_t padding_low = 0;
  int64_t padding_high = 0;
  int64_t window_dilation = 1;   // rhs_dilate
  int64_t base_dilation = 1;     // lhs_dilate
  bool window_reversal = false;  // rhs_reversal
};
struct Window {
  std::vector<WindowDimension> dimensions;
};

struct ConvolutionDimensionNumbers {
  int64_t input_batch_dimension = 0;
  int64_t input_feature_dimension = 0;
  std::vector<int64_t> input_spatial_dimensions;
  int64_t kernel_input_feature_dimension = 0;
  int64_t kernel_output_feature_dimension = 0;
  std::vector<int64_t> kernel_spatial_dimensions;
  int64_t output_batch_dimension = 0;
  int64_t output_feature_dimension = 0;
  std::vector<int64_t> output_spatial_dimensions;
};

struct DotDimensionNumbers {
  std::vector<int64_t> lhs_contracting_dimensions;
  std::vector<int64_t> rhs_contracting_dimensions;
  std::vector<int64_t> lhs_batch_dimensions;
  std::vector<int64_t> rhs_batch_dimensions;
};

struct GatherDimensionNumbers {
  std::vector<int64_t> offset_dims;
  std::vector<int64_t> collapsed_slice_dims;
  std::vector<int64_t> start_index_map;
  int64_t index_vector_dim = 0;
  std::vector<int64_t> operand_batching_dims;
  std::vector<int64_t> start_indices_batching_dims;
  // Instruction-level fields that travel with the dimension numbers.
  std::vector<int64_t> slice_sizes;
  bool indices_are_sorted = false;
};

struct ScatterDimensionNumbers {
  std::vector<int64_t> update_window_dims;
  std::vector<int64_t> inserted_window_dims;
  std::vector<int64_t> scatter_dims_to_operand_dims;
  int64_t index_vector_dim = 0;
  std::vector<int64_t> input_batching_dims;
  std::vector<int64_t> scatter_indices_batching_dims;
  bool indices_are_sorted = false;
  bool unique_indices = false;
};

// slice={[0:2], [1:5:2]}
struct SliceSpec {
  std::vector<int64_t> starts;
  std::vector<int64_t> limits;
  std::vector<int64_t> strides;
};

// padding=0_0x1_2_1
struct PaddingDimension {
  int64_t edge_padding_low = 0;
  int64_t edge_padding_high = 0;
  int64_t interior_padding = 0;
};
struct PaddingConfig {
  std::vector<PaddingDimension> dimensions;
};

// --------------------------------------------------------------- enums --
// Numbers are the proto enum numbers.

enum class ComparisonDirection : uint8_t { kEq, kNe, kGe, kGt, kLe, kLt };
enum class ComparisonType : uint8_t { kFloat, kTotalOrder, kSigned, kUnsigned };
enum class FusionKind : uint8_t { kLoop, kInput, kOutput, kCustom };
enum class CustomCallApiVersion : uint8_t {
  kUnspecified = 0,  // rejected by new XLA, but old dumps print it
  kOriginal = 1,
  kStatusReturning = 2,
  kStatusReturningUnified = 3,
  kTypedFfi = 4,
};
enum class Precision : uint8_t {
  kDefault = 0,
  kHigh = 1,
  kHighest = 2,
  kPackedNibble = 3,  // older XLA
};
enum class DotAlgorithm : uint8_t {
  kUnset = 0,
  kAnyF8AnyF8F32 = 1,
  kAnyF8AnyF8F32FastAccum = 2,
  kF16F16F16 = 3,
  kF16F16F32 = 4,
  kBF16BF16BF16 = 5,
  kBF16BF16F32 = 6,
  kBF16BF16F32X3 = 7,
  kBF16BF16F32X6 = 8,
  kTF32TF32F32 = 9,
  kTF32TF32F32X3 = 10,
  kF32F32F32 = 11,
  kF64F64F64 = 12,
  kBF16BF16F32X9 = 13,
};
enum class RandomDistribution : uint8_t { kUniform = 1, kNormal = 2 };
enum class RandomAlgorithm : uint8_t {
  kDefault = 0,
  kThreeFry = 1,
  kPhilox = 2
};
enum class FftType : uint8_t { kFft = 0, kIfft = 1, kRfft = 2, kIrfft = 3 };
enum class TriangularTranspose : uint8_t {
  kNoTranspose = 1,
  kTranspose = 2,
  kAdjoint = 3,
};

struct PrecisionConfig {
  std::vector<Precision> operand_precision;
  DotAlgorithm algorithm = DotAlgorithm::kUnset;
};

struct TriangularSolveOptions {
  bool left_side = false;
  bool lower = false;
  bool unit_diagonal = false;
  TriangularTranspose transpose_a = TriangularTranspose::kNoTranspose;
};

struct CholeskyOptions {
  bool lower = false;
};

struct FftOptions {
  FftType type = FftType::kFft;
  std::vector<int64_t> length;
};

// --------------------------------------------------------- collectives --

// replica_groups: explicit {{0,1},{2,3}} or iota [G,S]<=[dims]T(perm).
struct ReplicaGroups {
  bool is_iota = false;
  std::vector<std::vector<int64_t>> groups;  // explicit form only
  int64_t num_groups = 0;                    // iota form
  int64_t group_size = 0;                    // iota form
  std::vector<int64_t> reshape_dims;         // iota form
  std::vector<int64_t> transpose_perm;       // iota form; empty = identity
};

struct SourceTargetPair {
  int64_t source = 0;
  int64_t target = 0;
};

// output_to_operand_aliasing={{0}: (1, {})}
struct OutputOperandAlias {
  std::vector<int64_t> output_shape_index;
  int64_t operand_index = 0;
  std::vector<int64_t> operand_shape_index;
};

// ---------------------------------------------------- metadata & configs --

struct OpMetadata {
  std::string op_type;
  std::string op_name;
  std::string source_file;
  int64_t source_line = 0;
  int64_t source_end_line = 0;
  int64_t source_column = 0;
  int64_t source_end_column = 0;
  std::vector<int64_t> profile_type;
  std::string deduplicated_name;
  std::string scheduling_name;
  int64_t stack_frame_id = 0;
  // Keys this decoder does not know (newer XLA), kept as written.
  std::vector<std::pair<std::string, std::string>> unknown;
};

// frontend_attributes={k="v", k2={json}}; values unescaped, or the raw
// braced text for dict values. Order as written.
struct FrontendAttributes {
  std::vector<std::pair<std::string, std::string>> entries;
  const std::string* Find(std::string_view key) const {
    for (const auto& [k, v] : entries) {
      if (k == key) return &v;
    }
    return nullptr;
  }
};

// backend_config: a C-escaped string, or a raw {...} dict kept verbatim.
struct BackendConfig {
  std::string text;  // unescaped string, or the braces and contents
  bool was_string = false;
};

}  // namespace hlo

#endif  // HLO_LSP_HLO_ATTR_VALUES_H_
