// Instruction attributes in XLA's order: the opcode's own, the called
// computations, then sharding, frontend attributes, control predecessors,
// statistics, result accuracy, origin, metadata and backend_config.
#include <map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "hlo/proto/literal_print.h"
#include "hlo/proto/print_internal.h"

namespace hlo::proto::internal {

void ModulePrinter::Key(std::string_view key) {
  out_.append(", ");
  out_.append(key);
  out_.push_back('=');
}

void ModulePrinter::Attr(std::string_view key, std::string_view value) {
  Key(key);
  out_.append(value);
}

void ModulePrinter::AttrInt(std::string_view key, int64_t value) {
  Key(key);
  AppendInt(value, &out_);
}

void ModulePrinter::AttrList(std::string_view key,
                             const RepeatedField<int64_t>& values) {
  Key(key);
  AppendList(values, &out_);
}

void ModulePrinter::PrintPrecision(const Instr& in) {
  const auto& p = in.precision_config();
  bool non_default = false;
  for (int v : p.operand_precision()) non_default |= v != 0;
  if (non_default) {
    out_.append(", operand_precision={");
    for (int i = 0; i < p.operand_precision_size(); ++i) {
      if (i > 0) out_.push_back(',');
      AppendLower(xla::PrecisionConfig::Precision_Name(p.operand_precision(i)),
                  &out_);
    }
    out_.push_back('}');
  }
  if (p.algorithm() != 0) {
    std::string_view name = xla::PrecisionConfig::Algorithm_Name(p.algorithm());
    if (name.substr(0, 4) == "ALG_") name.remove_prefix(4);
    Key("algorithm");
    AppendLower(name, &out_);
  }
}

void ModulePrinter::PrintConvolutionLike(const Instr& in) {
  if (in.window().dimensions_size() > 0) {
    Key("window");
    AppendWindow(in.window(), &out_);
  }
  if (in.has_convolution_dimension_numbers()) {
    Key("dim_labels");
    AppendDimLabels(in.convolution_dimension_numbers(), &out_);
  }
  if (in.feature_group_count() > 1) {
    AttrInt("feature_group_count", in.feature_group_count());
  }
  if (in.batch_group_count() > 1) {
    AttrInt("batch_group_count", in.batch_group_count());
  }
}

void ModulePrinter::PrintOutputOperandAliasing(const Instr& in) {
  if (in.output_operand_aliasing_size() == 0) return;
  out_.append(", output_to_operand_aliasing={");
  for (int i = 0; i < in.output_operand_aliasing_size(); ++i) {
    const auto& a = in.output_operand_aliasing(i);
    if (i > 0) out_.append(", ");
    AppendList(a.output_shape_index(), &out_);
    out_.append(": (");
    AppendInt(a.operand_index(), &out_);
    out_.append(", ");
    AppendList(a.operand_shape_index(), &out_);
    out_.push_back(')');
  }
  out_.push_back('}');
}

void ModulePrinter::PrintOpcodeAttributes(const Instr& in, const OpInfo& op) {
  if (in.channel_id() != 0) AttrInt("channel_id", in.channel_id());
  if (op.collective) {
    Key("replica_groups");
    AppendReplicaGroups(in, &out_);
    if (in.constrain_layout()) Attr("constrain_layout", "true");
  }
  if (op.kind == OpKind::kIota) {
    AttrInt("iota_dimension", in.dimensions_size() > 0 ? in.dimensions(0) : 0);
  } else if (op.always_dimensions ||
             (in.dimensions_size() > 0 && op.kind != OpKind::kFft)) {
    AttrList("dimensions", in.dimensions());
  }
  if (op.collective && in.use_global_device_ids()) {
    Attr("use_global_device_ids", "true");
  }
  switch (op.kind) {
    case OpKind::kGetTupleElement:
      AttrInt("index", in.tuple_index());
      break;
    case OpKind::kSlice: {
      bool strided = false;
      for (const auto& s : in.slice_dimensions()) strided |= s.stride() != 1;
      out_.append(", slice={");
      for (int i = 0; i < in.slice_dimensions_size(); ++i) {
        const auto& s = in.slice_dimensions(i);
        out_.append(i > 0 ? ", [" : "[");
        AppendInt(s.start(), &out_);
        out_.push_back(':');
        AppendInt(s.limit(), &out_);
        if (strided) {
          out_.push_back(':');
          AppendInt(s.stride(), &out_);
        }
        out_.push_back(']');
      }
      out_.push_back('}');
      break;
    }
    case OpKind::kDynamicSlice:
      AttrList("dynamic_slice_sizes", in.dynamic_slice_sizes());
      break;
    case OpKind::kPad: {
      bool interior = false;
      for (const auto& d : in.padding_config().dimensions()) {
        interior |= d.interior_padding() != 0;
      }
      Key("padding");
      for (int i = 0; i < in.padding_config().dimensions_size(); ++i) {
        const auto& d = in.padding_config().dimensions(i);
        if (i > 0) out_.push_back('x');
        AppendInt(d.edge_padding_low(), &out_);
        out_.push_back('_');
        AppendInt(d.edge_padding_high(), &out_);
        if (interior) {
          out_.push_back('_');
          AppendInt(d.interior_padding(), &out_);
        }
      }
      break;
    }
    case OpKind::kCompare: {
      Attr("direction", in.comparison_direction());
      int element_type = xla::F32;
      if (in.operand_ids_size() > 0) {
        if (const InstrRef* lhs = Find(in.operand_ids(0))) {
          element_type = ElementTypeOf(*lhs);
        }
      }
      if (!in.comparison_type().empty() &&
          in.comparison_type() != DefaultComparisonType(element_type)) {
        Attr("type", in.comparison_type());
      }
      break;
    }
    case OpKind::kConvolution:
      PrintConvolutionLike(in);
      PrintPrecision(in);
      break;
    case OpKind::kDot:
    case OpKind::kRaggedDot:
    case OpKind::kScaledDot: {
      const bool ragged = op.kind == OpKind::kRaggedDot;
      const auto& d =
          ragged ? in.ragged_dot_dimension_numbers().dot_dimension_numbers()
                 : in.dot_dimension_numbers();
      if (d.lhs_batch_dimensions_size() > 0) {
        AttrList("lhs_batch_dims", d.lhs_batch_dimensions());
      }
      AttrList("lhs_contracting_dims", d.lhs_contracting_dimensions());
      if (d.rhs_batch_dimensions_size() > 0) {
        AttrList("rhs_batch_dims", d.rhs_batch_dimensions());
      }
      AttrList("rhs_contracting_dims", d.rhs_contracting_dimensions());
      if (ragged) {
        const auto& r = in.ragged_dot_dimension_numbers();
        AttrList("lhs_ragged_dims", r.lhs_ragged_dimensions());
        AttrList("rhs_group_dims", r.rhs_group_dimensions());
      }
      PrintPrecision(in);
      break;
    }
    case OpKind::kGather: {
      const auto& g = in.gather_dimension_numbers();
      AttrList("offset_dims", g.offset_dims());
      AttrList("collapsed_slice_dims", g.collapsed_slice_dims());
      AttrList("start_index_map", g.start_index_map());
      if (g.operand_batching_dims_size() > 0) {
        AttrList("operand_batching_dims", g.operand_batching_dims());
        AttrList("start_indices_batching_dims",
                 g.start_indices_batching_dims());
      }
      AttrInt("index_vector_dim", g.index_vector_dim());
      AttrList("slice_sizes", in.gather_slice_sizes());
      if (in.indices_are_sorted()) Attr("indices_are_sorted", "true");
      break;
    }
    case OpKind::kScatter: {
      const auto& s = in.scatter_dimension_numbers();
      AttrList("update_window_dims", s.update_window_dims());
      AttrList("inserted_window_dims", s.inserted_window_dims());
      AttrList("scatter_dims_to_operand_dims",
               s.scatter_dims_to_operand_dims());
      if (s.input_batching_dims_size() > 0) {
        AttrList("input_batching_dims", s.input_batching_dims());
        AttrList("scatter_indices_batching_dims",
                 s.scatter_indices_batching_dims());
      }
      AttrInt("index_vector_dim", s.index_vector_dim());
      if (in.indices_are_sorted()) Attr("indices_are_sorted", "true");
      if (in.unique_indices()) Attr("unique_indices", "true");
      break;
    }
    case OpKind::kReduceWindow:
    case OpKind::kSelectAndScatter:
      if (in.window().dimensions_size() > 0) {
        Key("window");
        AppendWindow(in.window(), &out_);
      }
      break;
    case OpKind::kFusion:
      Attr("kind", in.fusion_kind());
      PrintOutputOperandAliasing(in);
      break;
    case OpKind::kCustomCall:
      PrintCustomCall(in);
      break;
    case OpKind::kRng:
      Key("distribution");
      AppendLower(xla::RandomDistribution_Name(in.distribution()), &out_);
      break;
    case OpKind::kRngBitGenerator:
      Key("algorithm");
      AppendLower(xla::RandomAlgorithm_Name(in.rng_algorithm()), &out_);
      break;
    case OpKind::kRngGetAndUpdateState:
      AttrInt("delta", in.delta());
      break;
    case OpKind::kReducePrecision:
      AttrInt("exponent_bits", in.exponent_bits());
      AttrInt("mantissa_bits", in.mantissa_bits());
      break;
    case OpKind::kBatchNorm:
      Attr("epsilon", absl::StrCat(in.epsilon()));
      AttrInt("feature_index", in.feature_index());
      break;
    case OpKind::kFft:
      Attr("fft_type", xla::FftType_Name(in.fft_type()));
      AttrList("fft_length", in.fft_length());
      break;
    case OpKind::kTriangularSolve: {
      const auto& t = in.triangular_solve_options();
      if (t.left_side()) Attr("left_side", "true");
      if (t.lower()) Attr("lower", "true");
      if (t.unit_diagonal()) Attr("unit_diagonal", "true");
      Attr("transpose_a",
           xla::TriangularSolveOptions::Transpose_Name(t.transpose_a()));
      break;
    }
    case OpKind::kCholesky:
      if (in.cholesky_options().lower()) Attr("lower", "true");
      break;
    case OpKind::kInfeed:
      if (!in.infeed_config().empty()) {
        Key("infeed_config");
        AppendQuoted(in.infeed_config(), &out_);
      }
      break;
    case OpKind::kOutfeed:
      Key("outfeed_shape");
      AppendShape(in.outfeed_shape(), true, &out_);
      if (!in.outfeed_config().empty()) {
        Key("outfeed_config");
        AppendQuoted(in.outfeed_config(), &out_);
      }
      break;
    case OpKind::kSendRecv:
      if (in.is_host_transfer()) Attr("is_host_transfer", "true");
      break;
    case OpKind::kCollectivePermute:
      out_.append(", source_target_pairs={");
      for (int i = 0; i < in.source_target_pairs_size(); ++i) {
        out_.append(i > 0 ? ",{" : "{");
        AppendInt(in.source_target_pairs(i).source(), &out_);
        out_.push_back(',');
        AppendInt(in.source_target_pairs(i).target(), &out_);
        out_.push_back('}');
      }
      out_.push_back('}');
      break;
    case OpKind::kSort:
      if (in.is_stable()) Attr("is_stable", "true");
      break;
    case OpKind::kTopK:
      AttrInt("k", in.k());
      Attr("largest", in.largest() ? "true" : "false");
      break;
    case OpKind::kCopyStart:
      if (in.has_cross_program_prefetch_index()) {
        AttrInt("cross_program_prefetch_index",
                in.cross_program_prefetch_index());
      }
      break;
    case OpKind::kParameter:
      if (in.has_parameter_replication()) {
        out_.append(", parameter_replication={");
        const auto& r = in.parameter_replication().replicated_at_leaf_buffers();
        for (int i = 0; i < r.size(); ++i) {
          if (i > 0) out_.push_back(',');
          out_.append(r[i] ? "true" : "false");
        }
        out_.push_back('}');
      }
      break;
    case OpKind::kDomain:
      out_.append(", domain={kind=\"sharding\", entry=");
      AppendSharding(in.domain_entry_sharding(), &out_);
      out_.append(", exit=");
      AppendSharding(in.domain_exit_sharding(), &out_);
      out_.push_back('}');
      break;
    case OpKind::kScan:
      AttrInt("num_carries", in.num_carries());
      if (in.is_reverse()) Attr("is_reverse", "true");
      if (in.is_associative() == xla::TRI_STATE_TRUE) {
        Attr("is_associative", "true");
      } else if (in.is_associative() == xla::TRI_STATE_FALSE) {
        Attr("is_associative", "false");
      }
      break;
    default:
      // async-start's thread and call's is_composite follow the called
      // computations (PrintCalledComputations).
      break;
  }
}

void ModulePrinter::PrintCustomCall(const Instr& in) {
  Key("custom_call_target");
  AppendQuoted(in.custom_call_target(), &out_);
  PrintConvolutionLike(in);
  PrintPrecision(in);
  if (in.operand_shapes_with_layout_size() > 0) {
    out_.append(", operand_layout_constraints={");
    for (int i = 0; i < in.operand_shapes_with_layout_size(); ++i) {
      if (i > 0) out_.append(", ");
      AppendShape(in.operand_shapes_with_layout(i), true, &out_);
    }
    out_.push_back('}');
  }
  if (in.custom_call_has_side_effect()) {
    Attr("custom_call_has_side_effect", "true");
  }
  if (in.has_literal()) {
    std::string literal;
    AppendShape(in.literal().shape(), true, &literal);
    literal.push_back(' ');
    if (AppendLiteralValues(in.literal(), &literal)) Attr("literal", literal);
  }
  if (in.custom_call_schedule() != xla::SCHEDULE_NONE) {
    Attr("schedule", xla::CustomCallSchedule_Name(in.custom_call_schedule()));
  }
  PrintOutputOperandAliasing(in);
  if (in.padding_type() != xla::PADDING_INVALID) {
    Attr("padding_type", xla::PaddingType_Name(in.padding_type()));
  }
  if (in.custom_call_api_version() != xla::API_VERSION_ORIGINAL &&
      in.custom_call_api_version() != xla::API_VERSION_UNSPECIFIED) {
    Attr("api_version",
         xla::CustomCallApiVersion_Name(in.custom_call_api_version()));
  }
}

void ModulePrinter::PrintCalledComputations(const Instr& in, const OpInfo& op) {
  const auto& ids = in.called_computation_ids();
  if (ids.empty()) return;
  auto list = [&](std::string_view key, bool braces) {
    Key(key);
    if (braces) out_.push_back('{');
    for (int k = 0; k < ids.size(); ++k) {
      if (k > 0) out_.append(", ");
      AppendComputationName(ids[k]);
    }
    if (braces) out_.push_back('}');
  };
  auto one = [&](std::string_view key, int k) {
    Key(key);
    AppendComputationName(ids[k]);
  };
  if (op.kind == OpKind::kWhile && ids.size() == 2) {
    one("condition", 1);
    one("body", 0);
  } else if (op.kind == OpKind::kSelectAndScatter && ids.size() == 2) {
    one("select", 0);
    one("scatter", 1);
  } else if (op.kind == OpKind::kConditional) {
    bool pred = false;
    if (in.operand_ids_size() > 0) {
      if (const InstrRef* selector = Find(in.operand_ids(0))) {
        pred = ElementTypeOf(*selector) == xla::PRED;
      }
    }
    if (pred && ids.size() == 2) {
      one("true_computation", 0);
      one("false_computation", 1);
    } else {
      list("branch_computations", true);
    }
  } else if (op.kind == OpKind::kFusion || op.kind == OpKind::kAsyncStart ||
             op.kind == OpKind::kAsyncUpdateDone) {
    one("calls", 0);
    if (op.kind == OpKind::kAsyncStart &&
        !in.async_execution_thread().empty() &&
        in.async_execution_thread() != "main") {
      Key("async_execution_thread");
      AppendQuoted(in.async_execution_thread(), &out_);
    }
  } else if (op.kind == OpKind::kCustomCall && ids.size() > 1) {
    list("called_computations", true);
  } else if (ids.size() == 1) {
    one("to_apply", 0);
    if (op.kind == OpKind::kCall && in.is_composite()) {
      Attr("is_composite", "true");
    }
  } else {
    list("calls", false);
  }
}

void ModulePrinter::PrintCommonAttributes(const Instr& in) {
  if (in.has_sharding()) {
    Key("sharding");
    AppendSharding(in.sharding(), &out_);
  }
  if (in.frontend_attributes().map_size() > 0) {
    out_.append(", frontend_attributes=");
    AppendFrontendAttributes(in.frontend_attributes());
  }
  if (in.control_predecessor_ids_size() > 0) {
    out_.append(", control-predecessors={");
    for (int k = 0; k < in.control_predecessor_ids_size(); ++k) {
      if (k > 0) out_.append(", ");
      out_.push_back('%');
      if (const InstrRef* p = Find(in.control_predecessor_ids(k))) {
        out_.append(p->name());
      } else {
        out_.append("unknown.operand.");
        AppendInt(in.control_predecessor_ids(k), &out_);
      }
    }
    out_.push_back('}');
  }
  if (in.statistics_viz().statistics_size() > 0) {
    out_.append(", statistics={visualizing_index=");
    AppendInt(in.statistics_viz().stat_index_to_visualize(), &out_);
    for (const auto& s : in.statistics_viz().statistics()) {
      absl::StrAppend(&out_, ",", s.stat_name(), "=", s.stat_val());
    }
    out_.push_back('}');
  }
  if (in.has_result_accuracy()) {
    const auto& r = in.result_accuracy();
    if (r.has_tolerance()) {
      absl::StrAppend(
          &out_, ", result_accuracy={tolerance={atol=", r.tolerance().atol(),
          ",rtol=", r.tolerance().rtol(), ",ulps=", r.tolerance().ulps(), "}}");
    } else if (r.mode() != xla::ResultAccuracy::DEFAULT) {
      out_.append(", result_accuracy={mode=");
      AppendLower(xla::ResultAccuracy::Mode_Name(r.mode()), &out_);
      out_.push_back('}');
    }
  }
  if (in.has_original_value()) PrintOriginalValue(in);
  if (options_.print_metadata && in.has_metadata()) {
    const size_t mark = out_.size();
    out_.append(", metadata=");
    if (!AppendMetadata(in.metadata(), &out_)) out_.resize(mark);
  }
  if (options_.print_backend_config && !in.backend_config().empty()) {
    out_.append(", backend_config=");
    AppendStringOrDict(in.backend_config(), &out_);
  }
}

namespace {

using Leaves = std::map<std::vector<int64_t>, const xla::OriginalArrayProto*>;

void AppendOriginalNode(const xla::ShapeProto& shape, const Leaves& leaves,
                        std::vector<int64_t>* index, int depth,
                        std::string* out) {
  if (shape.element_type() == xla::TUPLE && depth < 64) {
    out->push_back('(');
    index->push_back(0);
    for (int i = 0; i < shape.tuple_shapes_size(); ++i) {
      if (i > 0) out->append(", ");
      index->back() = i;
      AppendOriginalNode(shape.tuple_shapes(i), leaves, index, depth + 1, out);
    }
    index->pop_back();
    out->push_back(')');
    return;
  }
  auto it = leaves.find(*index);
  if (it == leaves.end()) {
    out->append("{}");
    return;
  }
  out->push_back('{');
  AppendQuoted(it->second->instruction_name(), out);
  if (it->second->shape_index_size() > 0) {
    out->push_back(' ');
    AppendList(it->second->shape_index(), out);
  }
  out->push_back('}');
}

}  // namespace

// `origin={...}`: the original-value tree over the instruction's shape,
// `{"name" {index}}` at each leaf that has one, `{}` where none.
void ModulePrinter::PrintOriginalValue(const Instr& in) {
  const xla::OriginalValueProto& value = in.original_value();
  if (value.is_synthetic_call()) {
    out_.append(", origin={[synthetic_call]}");
    return;
  }
  if (value.elements_size() == 0) return;
  Leaves leaves;
  for (const auto& e : value.elements()) {
    leaves[std::vector<int64_t>(e.shape_index().begin(),
                                e.shape_index().end())] = &e.original_array();
  }
  std::vector<int64_t> index;
  out_.append(", origin={");
  AppendOriginalNode(in.shape(), leaves, &index, 0, &out_);
  out_.push_back('}');
}

}  // namespace hlo::proto::internal
