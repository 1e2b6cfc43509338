// Decoders over several attributes of one instruction (dot, gather,
// scatter, precision, fft, triangular-solve, cholesky) and the aggregate
// DecodeInstructionAttributes.
#include <utility>

#include "absl/status/status.h"
#include "hlo/attr_grammar.h"
#include "hlo/attributes.h"

namespace hlo {
namespace {

const RawAttribute* Find(RawAttributes attributes, std::string_view key) {
  for (const RawAttribute& a : attributes) {
    if (a.key == key) return &a;
  }
  return nullptr;
}

// Decodes attribute `key` into *out with `decode`; a missing required key
// is an error, a missing optional one leaves *out alone. Errors name the key.
template <typename T, typename Decoder>
absl::Status Field(RawAttributes attributes, std::string_view key,
                   bool required, Decoder decode, T* out) {
  const RawAttribute* a = Find(attributes, key);
  if (a == nullptr) {
    if (!required) return absl::OkStatus();
    return absl::InvalidArgumentError(attr_internal::Cat("missing ", key, "="));
  }
  auto value = decode(a->value);
  if (!value.ok()) {
    return absl::InvalidArgumentError(
        attr_internal::Cat(key, "=: ", value.status().message()));
  }
  *out = *std::move(value);
  return absl::OkStatus();
}

#define HLO_RETURN_IF_ERROR(expr)      \
  do {                                 \
    absl::Status status_ = (expr);     \
    if (!status_.ok()) return status_; \
  } while (false)

}  // namespace

absl::StatusOr<DotDimensionNumbers> DecodeDotDimensionNumbers(
    RawAttributes attributes) {
  DotDimensionNumbers dot;
  HLO_RETURN_IF_ERROR(Field(attributes, "lhs_batch_dims", false, DecodeIntList,
                            &dot.lhs_batch_dimensions));
  HLO_RETURN_IF_ERROR(Field(attributes, "lhs_contracting_dims", false,
                            DecodeIntList, &dot.lhs_contracting_dimensions));
  HLO_RETURN_IF_ERROR(Field(attributes, "rhs_batch_dims", false, DecodeIntList,
                            &dot.rhs_batch_dimensions));
  HLO_RETURN_IF_ERROR(Field(attributes, "rhs_contracting_dims", false,
                            DecodeIntList, &dot.rhs_contracting_dimensions));
  if (dot.lhs_batch_dimensions.size() != dot.rhs_batch_dimensions.size()) {
    return absl::InvalidArgumentError(
        "lhs_batch_dims and rhs_batch_dims must have the same length");
  }
  return dot;
}

absl::StatusOr<GatherDimensionNumbers> DecodeGatherDimensionNumbers(
    RawAttributes attributes) {
  GatherDimensionNumbers g;
  HLO_RETURN_IF_ERROR(
      Field(attributes, "offset_dims", true, DecodeIntList, &g.offset_dims));
  HLO_RETURN_IF_ERROR(Field(attributes, "collapsed_slice_dims", true,
                            DecodeIntList, &g.collapsed_slice_dims));
  HLO_RETURN_IF_ERROR(Field(attributes, "start_index_map", true, DecodeIntList,
                            &g.start_index_map));
  HLO_RETURN_IF_ERROR(Field(attributes, "index_vector_dim", true, DecodeInt,
                            &g.index_vector_dim));
  HLO_RETURN_IF_ERROR(
      Field(attributes, "slice_sizes", true, DecodeIntList, &g.slice_sizes));
  HLO_RETURN_IF_ERROR(Field(attributes, "operand_batching_dims", false,
                            DecodeIntList, &g.operand_batching_dims));
  HLO_RETURN_IF_ERROR(Field(attributes, "start_indices_batching_dims", false,
                            DecodeIntList, &g.start_indices_batching_dims));
  HLO_RETURN_IF_ERROR(Field(attributes, "indices_are_sorted", false, DecodeBool,
                            &g.indices_are_sorted));
  return g;
}

absl::StatusOr<ScatterDimensionNumbers> DecodeScatterDimensionNumbers(
    RawAttributes attributes) {
  ScatterDimensionNumbers s;
  HLO_RETURN_IF_ERROR(Field(attributes, "update_window_dims", true,
                            DecodeIntList, &s.update_window_dims));
  HLO_RETURN_IF_ERROR(Field(attributes, "inserted_window_dims", true,
                            DecodeIntList, &s.inserted_window_dims));
  HLO_RETURN_IF_ERROR(Field(attributes, "scatter_dims_to_operand_dims", true,
                            DecodeIntList, &s.scatter_dims_to_operand_dims));
  HLO_RETURN_IF_ERROR(Field(attributes, "index_vector_dim", true, DecodeInt,
                            &s.index_vector_dim));
  HLO_RETURN_IF_ERROR(Field(attributes, "input_batching_dims", false,
                            DecodeIntList, &s.input_batching_dims));
  HLO_RETURN_IF_ERROR(Field(attributes, "scatter_indices_batching_dims", false,
                            DecodeIntList, &s.scatter_indices_batching_dims));
  HLO_RETURN_IF_ERROR(Field(attributes, "indices_are_sorted", false, DecodeBool,
                            &s.indices_are_sorted));
  HLO_RETURN_IF_ERROR(Field(attributes, "unique_indices", false, DecodeBool,
                            &s.unique_indices));
  return s;
}

absl::StatusOr<PrecisionConfig> DecodePrecisionConfig(
    RawAttributes attributes) {
  PrecisionConfig p;
  HLO_RETURN_IF_ERROR(Field(attributes, "operand_precision", false,
                            DecodeOperandPrecision, &p.operand_precision));
  HLO_RETURN_IF_ERROR(
      Field(attributes, "algorithm", false, DecodeDotAlgorithm, &p.algorithm));
  return p;
}

absl::StatusOr<FftOptions> DecodeFftOptions(RawAttributes attributes) {
  FftOptions f;
  HLO_RETURN_IF_ERROR(
      Field(attributes, "fft_type", true, DecodeFftType, &f.type));
  HLO_RETURN_IF_ERROR(
      Field(attributes, "fft_length", true, DecodeIntList, &f.length));
  return f;
}

absl::StatusOr<TriangularSolveOptions> DecodeTriangularSolveOptions(
    RawAttributes attributes) {
  TriangularSolveOptions t;
  HLO_RETURN_IF_ERROR(
      Field(attributes, "left_side", false, DecodeBool, &t.left_side));
  HLO_RETURN_IF_ERROR(Field(attributes, "lower", false, DecodeBool, &t.lower));
  HLO_RETURN_IF_ERROR(
      Field(attributes, "unit_diagonal", false, DecodeBool, &t.unit_diagonal));
  HLO_RETURN_IF_ERROR(Field(attributes, "transpose_a", false,
                            DecodeTriangularTranspose, &t.transpose_a));
  return t;
}

absl::StatusOr<CholeskyOptions> DecodeCholeskyOptions(
    RawAttributes attributes) {
  CholeskyOptions c;
  HLO_RETURN_IF_ERROR(Field(attributes, "lower", false, DecodeBool, &c.lower));
  return c;
}

// ------------------------------------------------------------ aggregate --

namespace {

class Gatherer {
 public:
  Gatherer(const ParsedFile& file, const Instruction& instruction,
           InstructionAttributes* out)
      : out_(out) {
    for (Id i = instruction.attributes.begin;
         i < instruction.attributes.end() && i < file.attributes.size(); ++i) {
      const Attribute& a = file.attributes[i];
      raw_.push_back({file.Text(a.key), file.Text(a.value)});
      spans_.push_back(a.value);
    }
    used_.assign(raw_.size(), false);
  }

  RawAttributes raw() const { return raw_; }

  // One attribute into one optional field.
  template <typename T, typename Decoder>
  void One(std::string_view key, Decoder decode, std::optional<T>* field) {
    for (size_t i = 0; i < raw_.size(); ++i) {
      if (raw_[i].key != key) continue;
      used_[i] = true;
      auto value = decode(raw_[i].value);
      if (value.ok()) {
        *field = *std::move(value);
      } else {
        AddError(spans_[i], key, value.status());
      }
      return;
    }
  }

  // A group decoder over several keys; runs when any key is present.
  template <typename T, typename Decoder>
  void Group(std::initializer_list<std::string_view> keys, bool force,
             Decoder decode, std::optional<T>* field) {
    bool present = force;
    Span first{};
    for (size_t i = 0; i < raw_.size(); ++i) {
      for (std::string_view k : keys) {
        if (raw_[i].key != k) continue;
        if (first.empty()) first = spans_[i];
        present = true;
        used_[i] = true;
      }
    }
    if (!present) return;
    auto value = decode(raw());
    if (value.ok()) {
      *field = *std::move(value);
    } else {
      out_->errors.push_back({first, std::string(value.status().message())});
    }
  }

  void AddError(Span span, std::string_view key, const absl::Status& status) {
    out_->errors.push_back(
        {span, attr_internal::Cat(key, "=: ", status.message())});
  }

  void Finish() {
    for (size_t i = 0; i < raw_.size(); ++i) {
      if (!used_[i]) out_->others.push_back(raw_[i]);
    }
  }

 private:
  InstructionAttributes* out_;
  std::vector<RawAttribute> raw_;
  std::vector<Span> spans_;
  std::vector<bool> used_;
};

absl::StatusOr<int64_t> DecodeParameterNumber(std::string_view operand_list) {
  attr_internal::Scanner s(operand_list);
  int64_t n = 0;
  if (s.Expect('(') && s.NonNegativeInt(&n) && s.Expect(')') && s.ExpectEnd()) {
    return n;
  }
  return attr_internal::ToStatus(*s.error());
}

}  // namespace

InstructionAttributes DecodeInstructionAttributes(
    const ParsedFile& file, const Instruction& instruction) {
  InstructionAttributes out;
  Gatherer g(file, instruction, &out);
  Opcode op = instruction.wrapped_opcode != Opcode::kUnknown
                  ? instruction.wrapped_opcode
                  : instruction.opcode;

  if (op == Opcode::kParameter && !instruction.operand_list.empty()) {
    absl::StatusOr<int64_t> n =
        DecodeParameterNumber(file.Text(instruction.operand_list));
    if (n.ok()) {
      out.parameter_number = *n;
    } else {
      out.errors.push_back(
          {instruction.operand_list,
           attr_internal::Cat("parameter number: ", n.status().message())});
    }
  }
  if (op == Opcode::kConstant && !instruction.operand_list.empty()) {
    absl::StatusOr<LiteralShape> shape =
        instruction.shape == kNone
            ? absl::StatusOr<LiteralShape>(
                  absl::InvalidArgumentError("a constant needs a result shape"))
            : LiteralShapeFromParsed(file, instruction.shape);
    absl::StatusOr<LiteralValue> literal =
        shape.ok() ? DecodeConstantOperandList(
                         file.Text(instruction.operand_list), *shape)
                   : absl::StatusOr<LiteralValue>(shape.status());
    if (literal.ok()) {
      out.literal = *std::move(literal);
    } else {
      out.errors.push_back(
          {instruction.operand_list,
           attr_internal::Cat("constant: ", literal.status().message())});
    }
  }

  g.One("dimensions", DecodeIntList, &out.dimensions);
  g.One("index", DecodeInt, &out.tuple_index);
  g.One("iota_dimension", DecodeIotaDimension, &out.iota_dimension);
  g.One("direction", DecodeComparisonDirection, &out.comparison_direction);
  g.One("type", DecodeComparisonType, &out.comparison_type);
  g.One("kind", DecodeFusionKind, &out.fusion_kind);
  g.One("custom_call_target", DecodeCustomCallTarget, &out.custom_call_target);
  g.One("api_version", DecodeCustomCallApiVersion,
        &out.custom_call_api_version);
  g.One("custom_call_has_side_effect", DecodeBool,
        &out.custom_call_has_side_effect);
  g.One("dim_labels", DecodeConvolutionDimensionNumbers,
        &out.convolution_dimension_numbers);
  g.One("feature_group_count", DecodeInt, &out.feature_group_count);
  g.One("batch_group_count", DecodeInt, &out.batch_group_count);
  g.One("window", DecodeWindow, &out.window);
  g.One("slice", DecodeSlice, &out.slice);
  g.One("dynamic_slice_sizes", DecodeIntList, &out.dynamic_slice_sizes);
  g.One("lhs_ragged_dims", DecodeIntList, &out.lhs_ragged_dims);
  g.One("rhs_group_dims", DecodeIntList, &out.rhs_group_dims);
  g.One("padding", DecodePadding, &out.padding);
  g.One("replica_groups", DecodeReplicaGroups, &out.replica_groups);
  g.One("source_target_pairs", DecodeSourceTargetPairs,
        &out.source_target_pairs);
  g.One("channel_id", DecodeInt, &out.channel_id);
  g.One("use_global_device_ids", DecodeBool, &out.use_global_device_ids);
  g.One("constrain_layout", DecodeBool, &out.constrain_layout);
  g.One("is_host_transfer", DecodeBool, &out.is_host_transfer);
  g.One("output_to_operand_aliasing", DecodeOutputToOperandAliasing,
        &out.output_to_operand_aliasing);
  g.One("distribution", DecodeRandomDistribution, &out.rng_distribution);
  g.One("epsilon", DecodeFloat, &out.epsilon);
  g.One("feature_index", DecodeInt, &out.feature_index);
  g.One("exponent_bits", DecodeInt, &out.exponent_bits);
  g.One("mantissa_bits", DecodeInt, &out.mantissa_bits);
  g.One("is_stable", DecodeBool, &out.is_stable);
  g.One("k", DecodeInt, &out.k);
  g.One("largest", DecodeBool, &out.largest);
  g.One("parameter_replication", DecodeBoolList, &out.parameter_replication);
  g.One("sharding", DecodeSharding, &out.sharding);
  g.One("metadata", DecodeMetadata, &out.metadata);
  g.One("backend_config", DecodeBackendConfig, &out.backend_config);
  g.One("frontend_attributes", DecodeFrontendAttributes,
        &out.frontend_attributes);

  g.Group({"lhs_batch_dims", "lhs_contracting_dims", "rhs_batch_dims",
           "rhs_contracting_dims"},
          op == Opcode::kDot || op == Opcode::kRaggedDot,
          DecodeDotDimensionNumbers, &out.dot_dimension_numbers);
  if (op == Opcode::kGather) {
    g.Group({"offset_dims", "collapsed_slice_dims", "start_index_map",
             "index_vector_dim", "slice_sizes", "operand_batching_dims",
             "start_indices_batching_dims", "indices_are_sorted"},
            true, DecodeGatherDimensionNumbers, &out.gather_dimension_numbers);
  }
  if (op == Opcode::kScatter) {
    g.Group({"update_window_dims", "inserted_window_dims",
             "scatter_dims_to_operand_dims", "index_vector_dim",
             "input_batching_dims", "scatter_indices_batching_dims",
             "indices_are_sorted", "unique_indices"},
            true, DecodeScatterDimensionNumbers,
            &out.scatter_dimension_numbers);
  }
  if (op == Opcode::kRngBitGenerator) {
    g.One("algorithm", DecodeRandomAlgorithm, &out.rng_algorithm);
  } else {
    g.Group({"operand_precision", "algorithm"}, false, DecodePrecisionConfig,
            &out.precision_config);
  }
  if (op == Opcode::kFft) {
    g.Group({"fft_type", "fft_length"}, true, DecodeFftOptions, &out.fft);
  }
  if (op == Opcode::kTriangularSolve) {
    g.Group({"left_side", "lower", "unit_diagonal", "transpose_a"}, true,
            DecodeTriangularSolveOptions, &out.triangular_solve);
  }
  if (op == Opcode::kCholesky) {
    g.Group({"lower"}, true, DecodeCholeskyOptions, &out.cholesky);
  }
  g.Finish();
  return out;
}

}  // namespace hlo
