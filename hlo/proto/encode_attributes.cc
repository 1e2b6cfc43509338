// Instruction attributes (`key=value` as the parser keeps them) into the
// HloInstructionProto's fields.
#include <charconv>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "base/strings.h"
#include "hlo/proto/encode_internal.h"

namespace hlo::proto::internal {

void Encoder::EncodeAttribute(const Instruction& inst, std::string_view key,
                              std::string_view value, Instr* out) {
  std::vector<int64_t> list;
  int64_t n = 0;
  std::string s;
  const bool is_true = Trim(value) == "true";
  if (key == "dimensions" && ReadIntList(value, &list)) {
    SetList(list, out->mutable_dimensions());
  } else if (key == "index" && ReadInt(value, &n)) {
    out->set_tuple_index(n);
  } else if (key == "iota_dimension" && ReadInt(value, &n)) {
    out->add_dimensions(n);
  } else if (key == "direction") {
    out->set_comparison_direction(std::string(Trim(value)));
  } else if (key == "type" && inst.opcode == Opcode::kCompare) {
    out->set_comparison_type(std::string(Trim(value)));
  } else if (key == "kind" && inst.opcode == Opcode::kFusion) {
    out->set_fusion_kind(std::string(Trim(value)));
  } else if (key == "custom_call_target" && ReadString(value, &s)) {
    out->set_custom_call_target(s);
  } else if (key == "slice") {
    for (std::string_view part : Split(StripBraces(value), ',')) {
      std::string_view dim = Trim(part);
      if (dim.size() < 2) continue;
      std::vector<int64_t> bounds;
      for (std::string_view b : Split(dim.substr(1, dim.size() - 2), ':')) {
        if (ReadInt(b, &n)) bounds.push_back(n);
      }
      if (bounds.size() < 2) continue;
      auto* d = out->add_slice_dimensions();
      d->set_start(bounds[0]);
      d->set_limit(bounds[1]);
      d->set_stride(bounds.size() > 2 ? bounds[2] : 1);
    }
  } else if (key == "dynamic_slice_sizes" && ReadIntList(value, &list)) {
    SetList(list, out->mutable_dynamic_slice_sizes());
  } else if (key == "padding") {
    std::vector<std::vector<int64_t>> pads;
    if (ReadPads(value, &pads)) {
      for (const auto& p : pads) {
        auto* d = out->mutable_padding_config()->add_dimensions();
        d->set_edge_padding_low(p[0]);
        d->set_edge_padding_high(p[1]);
        if (p.size() > 2) d->set_interior_padding(p[2]);
      }
    }
  } else if (key == "lhs_batch_dims" && ReadIntList(value, &list)) {
    SetList(list, DotDims(inst, out)->mutable_lhs_batch_dimensions());
  } else if (key == "lhs_contracting_dims" && ReadIntList(value, &list)) {
    SetList(list, DotDims(inst, out)->mutable_lhs_contracting_dimensions());
  } else if (key == "rhs_batch_dims" && ReadIntList(value, &list)) {
    SetList(list, DotDims(inst, out)->mutable_rhs_batch_dimensions());
  } else if (key == "rhs_contracting_dims" && ReadIntList(value, &list)) {
    SetList(list, DotDims(inst, out)->mutable_rhs_contracting_dimensions());
  } else if (key == "lhs_ragged_dims" && ReadIntList(value, &list)) {
    SetList(list, out->mutable_ragged_dot_dimension_numbers()
                      ->mutable_lhs_ragged_dimensions());
  } else if (key == "rhs_group_dims" && ReadIntList(value, &list)) {
    SetList(list, out->mutable_ragged_dot_dimension_numbers()
                      ->mutable_rhs_group_dimensions());
  } else if (key == "offset_dims" && ReadIntList(value, &list)) {
    SetList(list,
            out->mutable_gather_dimension_numbers()->mutable_offset_dims());
  } else if (key == "collapsed_slice_dims" && ReadIntList(value, &list)) {
    SetList(list, out->mutable_gather_dimension_numbers()
                      ->mutable_collapsed_slice_dims());
  } else if (key == "start_index_map" && ReadIntList(value, &list)) {
    SetList(list,
            out->mutable_gather_dimension_numbers()->mutable_start_index_map());
  } else if (key == "operand_batching_dims" && ReadIntList(value, &list)) {
    SetList(list, out->mutable_gather_dimension_numbers()
                      ->mutable_operand_batching_dims());
  } else if (key == "start_indices_batching_dims" &&
             ReadIntList(value, &list)) {
    SetList(list, out->mutable_gather_dimension_numbers()
                      ->mutable_start_indices_batching_dims());
  } else if (key == "slice_sizes" && inst.opcode == Opcode::kGather &&
             ReadIntList(value, &list)) {
    SetList(list, out->mutable_gather_slice_sizes());
  } else if (key == "index_vector_dim" && ReadInt(value, &n)) {
    if (inst.opcode == Opcode::kScatter) {
      out->mutable_scatter_dimension_numbers()->set_index_vector_dim(n);
    } else {
      out->mutable_gather_dimension_numbers()->set_index_vector_dim(n);
    }
  } else if (key == "update_window_dims" && ReadIntList(value, &list)) {
    SetList(
        list,
        out->mutable_scatter_dimension_numbers()->mutable_update_window_dims());
  } else if (key == "inserted_window_dims" && ReadIntList(value, &list)) {
    SetList(list, out->mutable_scatter_dimension_numbers()
                      ->mutable_inserted_window_dims());
  } else if (key == "scatter_dims_to_operand_dims" &&
             ReadIntList(value, &list)) {
    SetList(list, out->mutable_scatter_dimension_numbers()
                      ->mutable_scatter_dims_to_operand_dims());
  } else if (key == "input_batching_dims" && ReadIntList(value, &list)) {
    SetList(list, out->mutable_scatter_dimension_numbers()
                      ->mutable_input_batching_dims());
  } else if (key == "scatter_indices_batching_dims" &&
             ReadIntList(value, &list)) {
    SetList(list, out->mutable_scatter_dimension_numbers()
                      ->mutable_scatter_indices_batching_dims());
  } else if (key == "indices_are_sorted") {
    out->set_indices_are_sorted(is_true);
  } else if (key == "unique_indices") {
    out->set_unique_indices(is_true);
  } else if (key == "channel_id" && ReadInt(value, &n)) {
    out->set_channel_id(n);
  } else if (key == "replica_groups") {
    EncodeReplicaGroups(value, out);
  } else if (key == "source_target_pairs") {
    std::vector<std::vector<int64_t>> pairs;
    if (ReadIntListList(value, &pairs)) {
      for (const auto& p : pairs) {
        if (p.size() != 2) continue;
        auto* pair = out->add_source_target_pairs();
        pair->set_source(p[0]);
        pair->set_target(p[1]);
      }
    }
  } else if (key == "constrain_layout") {
    out->set_constrain_layout(is_true);
  } else if (key == "use_global_device_ids") {
    out->set_use_global_device_ids(is_true);
  } else if (key == "is_stable") {
    out->set_is_stable(is_true);
  } else if (key == "is_host_transfer") {
    out->set_is_host_transfer(is_true);
  } else if (key == "custom_call_has_side_effect") {
    out->set_custom_call_has_side_effect(is_true);
  } else if (key == "is_composite") {
    out->set_is_composite(is_true);
  } else if (key == "epsilon") {
    double d = 0;
    std::string_view t = Trim(value);
    auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), d);
    if (ec == std::errc()) out->set_epsilon(static_cast<float>(d));
  } else if (key == "feature_index" && ReadInt(value, &n)) {
    out->set_feature_index(n);
  } else if (key == "exponent_bits" && ReadInt(value, &n)) {
    out->set_exponent_bits(n);
  } else if (key == "mantissa_bits" && ReadInt(value, &n)) {
    out->set_mantissa_bits(n);
  } else if (key == "feature_group_count" && ReadInt(value, &n)) {
    out->set_feature_group_count(n);
  } else if (key == "batch_group_count" && ReadInt(value, &n)) {
    out->set_batch_group_count(n);
  } else if (key == "k" && ReadInt(value, &n)) {
    out->set_k(n);
  } else if (key == "largest") {
    out->set_largest(is_true);
  } else if (key == "delta" && ReadInt(value, &n)) {
    out->set_delta(n);
  } else if (key == "num_carries" && ReadInt(value, &n)) {
    out->set_num_carries(n);
  } else if (key == "is_reverse") {
    out->set_is_reverse(is_true);
  } else if (key == "cross_program_prefetch_index" && ReadInt(value, &n)) {
    out->set_cross_program_prefetch_index(n);
  } else if (key == "async_execution_thread" && ReadString(value, &s)) {
    out->set_async_execution_thread(s);
  } else if (key == "infeed_config" && ReadString(value, &s)) {
    out->set_infeed_config(s);
  } else if (key == "outfeed_config" && ReadString(value, &s)) {
    out->set_outfeed_config(s);
  } else if (key == "fft_length" && ReadIntList(value, &list)) {
    SetList(list, out->mutable_fft_length());
  } else if (key == "fft_type") {
    xla::FftType type;
    if (xla::FftType_Parse(std::string(Trim(value)), &type))
      out->set_fft_type(type);
  } else if (key == "distribution") {
    xla::RandomDistribution d;
    if (xla::RandomDistribution_Parse(
            absl::AsciiStrToUpper(base::ToAbsl(Trim(value))), &d)) {
      out->set_distribution(d);
    }
  } else if (key == "algorithm") {
    const std::string upper = absl::AsciiStrToUpper(base::ToAbsl(Trim(value)));
    xla::RandomAlgorithm r;
    xla::PrecisionConfig::Algorithm a;
    if (inst.opcode == Opcode::kRngBitGenerator) {
      if (xla::RandomAlgorithm_Parse(upper, &r)) out->set_rng_algorithm(r);
    } else if (xla::PrecisionConfig::Algorithm_Parse("ALG_" + upper, &a)) {
      out->mutable_precision_config()->set_algorithm(a);
    }
  } else if (key == "operand_precision") {
    for (std::string_view p : Split(StripBraces(value), ',')) {
      xla::PrecisionConfig::Precision precision;
      if (xla::PrecisionConfig::Precision_Parse(
              absl::AsciiStrToUpper(base::ToAbsl(Trim(p))), &precision)) {
        out->mutable_precision_config()->add_operand_precision(precision);
      }
    }
  } else if (key == "api_version") {
    xla::CustomCallApiVersion v;
    if (xla::CustomCallApiVersion_Parse(
            absl::AsciiStrToUpper(base::ToAbsl(Trim(value))), &v)) {
      out->set_custom_call_api_version(v);
    }
  } else if (key == "schedule") {
    xla::CustomCallSchedule v;
    if (xla::CustomCallSchedule_Parse(
            absl::AsciiStrToUpper(base::ToAbsl(Trim(value))), &v)) {
      out->set_custom_call_schedule(v);
    }
  } else if (key == "transpose_a") {
    xla::TriangularSolveOptions::Transpose t;
    if (xla::TriangularSolveOptions::Transpose_Parse(std::string(Trim(value)),
                                                     &t)) {
      out->mutable_triangular_solve_options()->set_transpose_a(t);
    }
  } else if (key == "left_side") {
    out->mutable_triangular_solve_options()->set_left_side(is_true);
  } else if (key == "unit_diagonal") {
    out->mutable_triangular_solve_options()->set_unit_diagonal(is_true);
  } else if (key == "lower") {
    if (inst.opcode == Opcode::kCholesky) {
      out->mutable_cholesky_options()->set_lower(is_true);
    } else {
      out->mutable_triangular_solve_options()->set_lower(is_true);
    }
  } else if (key == "window") {
    EncodeWindow(value, out->mutable_window());
  } else if (key == "dim_labels") {
    EncodeDimLabels(Trim(value), out->mutable_convolution_dimension_numbers());
  } else if (key == "outfeed_shape") {
    // Shapes inside attributes are not in the syntax model's tables.
  } else if (key == "parameter_replication") {
    for (std::string_view b : Split(StripBraces(value), ',')) {
      out->mutable_parameter_replication()->add_replicated_at_leaf_buffers(
          Trim(b) == "true");
    }
  } else if (key == "metadata") {
    EncodeMetadata(value, out->mutable_metadata());
  } else if (key == "backend_config") {
    out->set_backend_config(ReadStringOrDict(value));
  } else if (key == "frontend_attributes") {
    EncodeFrontendAttributes(value, out->mutable_frontend_attributes());
  } else if (key == "statistics") {
    EncodeStatistics(value, out->mutable_statistics_viz());
  } else if (key == "result_accuracy") {
    EncodeResultAccuracy(value, out->mutable_result_accuracy());
  } else if (key == "origin") {
    EncodeOriginalValue(value, out->mutable_original_value());
  } else if (key == "output_to_operand_aliasing") {
    EncodeOutputOperandAliasing(value, out);
  } else if (key == "sharding") {
    absl::StatusOr<HloShardingValue> sharding = DecodeSharding(Trim(value));
    if (sharding.ok() && !sharding->is_named) {
      EncodeSharding(*sharding, out->mutable_sharding());
    }
  }
}

xla::DotDimensionNumbers* Encoder::DotDims(const Instruction& inst,
                                           Instr* out) {
  if (inst.opcode == Opcode::kRaggedDot) {
    return out->mutable_ragged_dot_dimension_numbers()
        ->mutable_dot_dimension_numbers();
  }
  return out->mutable_dot_dimension_numbers();
}

void Encoder::EncodeReplicaGroups(std::string_view value, Instr* out) {
  value = Trim(value);
  if (!value.empty() && value.front() == '[') {
    // [G,S]<=[dims]T(perm)
    auto* iota = out->mutable_iota_collective_device_list();
    size_t close = value.find(']');
    std::vector<int64_t> gs;
    if (close == std::string_view::npos ||
        !ReadIntList(value.substr(1, close - 1), &gs) || gs.size() != 2) {
      return;
    }
    iota->set_num_replica_groups(gs[0]);
    iota->set_num_devices_per_group(gs[1]);
    size_t open = value.find('[', close);
    size_t end = value.find(']', open);
    if (open == std::string_view::npos || end == std::string_view::npos) return;
    std::vector<int64_t> dims;
    if (ReadIntList(value.substr(open + 1, end - open - 1), &dims)) {
      SetList(dims, iota->mutable_iota_reshape_dims());
    }
    size_t t = value.find("T(", end);
    if (t != std::string_view::npos) {
      size_t t_end = value.find(')', t);
      std::vector<int64_t> perm;
      if (t_end != std::string_view::npos &&
          ReadIntList(value.substr(t + 2, t_end - t - 2), &perm)) {
        for (int64_t p : perm) iota->add_iota_transpose_perm(p);
      }
    }
    return;
  }
  std::vector<std::vector<int64_t>> groups;
  if (!ReadIntListList(value, &groups)) return;
  auto* list = out->mutable_collective_device_list();
  for (const auto& g : groups)
    SetList(g, list->add_replica_groups()->mutable_replica_ids());
}

void Encoder::EncodeWindow(std::string_view value, xla::Window* window) {
  std::vector<int64_t> size, stride, lhs, rhs, reversal;
  std::vector<std::vector<int64_t>> pads;
  for (auto [key, v] : ReadKeyValues(value)) {
    if (key == "size")
      ReadDxD(v, &size);
    else if (key == "stride")
      ReadDxD(v, &stride);
    else if (key == "lhs_dilate")
      ReadDxD(v, &lhs);
    else if (key == "rhs_dilate")
      ReadDxD(v, &rhs);
    else if (key == "rhs_reversal")
      ReadDxD(v, &reversal);
    else if (key == "pad")
      ReadPads(v, &pads);
  }
  for (size_t i = 0; i < size.size(); ++i) {
    auto* d = window->add_dimensions();
    d->set_size(size[i]);
    d->set_stride(i < stride.size() ? stride[i] : 1);
    d->set_base_dilation(i < lhs.size() ? lhs[i] : 1);
    d->set_window_dilation(i < rhs.size() ? rhs[i] : 1);
    d->set_window_reversal(i < reversal.size() && reversal[i] != 0);
    if (i < pads.size()) {
      d->set_padding_low(pads[i][0]);
      d->set_padding_high(pads[i][1]);
    }
  }
}

// b01f_01io->b01f: each character's position is its dimension number.
void Encoder::EncodeDimLabels(std::string_view labels,
                              xla::ConvolutionDimensionNumbers* d) {
  size_t underscore = labels.find('_');
  size_t arrow = labels.find("->");
  if (underscore == std::string_view::npos || arrow == std::string_view::npos ||
      arrow < underscore) {
    return;
  }
  std::string_view lhs = labels.substr(0, underscore);
  std::string_view rhs = labels.substr(underscore + 1, arrow - underscore - 1);
  std::string_view out = labels.substr(arrow + 2);
  // A side of rank r has r - 2 spatial dimensions; one whose digit is
  // missing (`?b01f` has a '?' for spatial dimension 2) stays -1, which
  // the printer writes back as '?'.
  auto spatial = [](std::string_view side, auto* field) {
    const int64_t count = static_cast<int64_t>(side.size()) - 2;
    for (int64_t k = 0; k < count; ++k) {
      const size_t at = k < 10 ? side.find(static_cast<char>('0' + k))
                               : std::string_view::npos;
      field->Add(at == std::string_view::npos ? -1 : static_cast<int64_t>(at));
    }
  };
  auto pos = [](std::string_view side, char c) -> int64_t {
    size_t at = side.find(c);
    return at == std::string_view::npos ? 0 : static_cast<int64_t>(at);
  };
  d->set_input_batch_dimension(pos(lhs, 'b'));
  d->set_input_feature_dimension(pos(lhs, 'f'));
  spatial(lhs, d->mutable_input_spatial_dimensions());
  d->set_kernel_input_feature_dimension(pos(rhs, 'i'));
  d->set_kernel_output_feature_dimension(pos(rhs, 'o'));
  spatial(rhs, d->mutable_kernel_spatial_dimensions());
  d->set_output_batch_dimension(pos(out, 'b'));
  d->set_output_feature_dimension(pos(out, 'f'));
  spatial(out, d->mutable_output_spatial_dimensions());
}

// `{{0}: (1, {}), {1}: (0, {})}`.
void Encoder::EncodeOutputOperandAliasing(std::string_view value, Instr* out) {
  std::vector<AliasEntry> entries;
  if (!ReadAliasEntries(value, &entries)) return;
  for (const AliasEntry& e : entries) {
    auto* alias = out->add_output_operand_aliasing();
    SetList(e.output_index, alias->mutable_output_shape_index());
    alias->set_operand_index(e.number);
    SetList(e.operand_index, alias->mutable_operand_shape_index());
  }
}

}  // namespace hlo::proto::internal
