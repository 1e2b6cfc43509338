// Result shapes that hand-written text omits and a proto always carries:
// elementwise ops, structural ops from their operands and attributes, and
// calls from the called computation's root.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "base/strings.h"
#include "hlo/proto/encode_internal.h"

namespace hlo::proto::internal {

// The operand's shape: written inline, or its definition's.
const xla::ShapeProto* Encoder::OperandShape(const Operand& operand) {
  const Id target =
      operand.nested != kNone ? operand.nested : operand.definition;
  if (auto it = shapes_.find(target); it != shapes_.end()) return it->second;
  if (operand.shape != kNone) {
    inline_shapes_.push_back(
        std::make_unique<xla::ShapeProto>(EncodeShape(file_, operand.shape)));
    return inline_shapes_.back().get();
  }
  return nullptr;
}

// Hand-written text may omit the result shape where XLA's parser infers
// it; a proto always carries one. The common cases: elementwise ops take
// their first operand's shape (compare gives pred), tuple and
// get-tuple-element follow their operands.
absl::Status Encoder::InferShape(const Instruction& inst, Instr* out) {
  std::vector<const xla::ShapeProto*> operands;
  for (Id o = inst.operands.begin; o < inst.operands.end(); ++o) {
    operands.push_back(OperandShape(file_.operands[o]));
  }
  auto fail = [&] {
    return absl::InvalidArgumentError(absl::StrCat(
        "instruction ", base::ToAbsl(file_.Name(inst)),
        " has no result shape and this converter cannot infer one for ",
        base::ToAbsl(file_.Text(inst.opcode_span)), "; write the shape"));
  };
  for (const xla::ShapeProto* s : operands) {
    if (!s) return fail();
  }
  if (inst.opcode == Opcode::kTuple) {
    auto* shape = out->mutable_shape();
    shape->set_element_type(xla::TUPLE);
    for (const xla::ShapeProto* s : operands) *shape->add_tuple_shapes() = *s;
    return absl::OkStatus();
  }
  if (inst.opcode == Opcode::kGetTupleElement && operands.size() == 1) {
    const Attribute* index = file_.FindAttribute(inst, "index");
    int64_t n = -1;
    if (index && ReadInt(file_.Text(index->value), &n) && n >= 0 &&
        n < operands[0]->tuple_shapes_size()) {
      *out->mutable_shape() = operands[0]->tuple_shapes(n);
      return absl::OkStatus();
    }
    return fail();
  }
  if (inst.opcode == Opcode::kAfterAll) {
    out->mutable_shape()->set_element_type(xla::TOKEN);
    return absl::OkStatus();
  }
  if ((inst.opcode == Opcode::kWhile ||
       inst.opcode == Opcode::kAddDependency) &&
      !operands.empty()) {
    *out->mutable_shape() = *operands[0];
    return absl::OkStatus();
  }
  static const absl::flat_hash_set<Opcode>* kElementwise =
      new absl::flat_hash_set<Opcode>{Opcode::kAbs,
                                      Opcode::kAdd,
                                      Opcode::kAnd,
                                      Opcode::kAtan2,
                                      Opcode::kCbrt,
                                      Opcode::kCeil,
                                      Opcode::kClamp,
                                      Opcode::kCopy,
                                      Opcode::kCosine,
                                      Opcode::kDivide,
                                      Opcode::kExponential,
                                      Opcode::kExponentialMinusOne,
                                      Opcode::kFloor,
                                      Opcode::kLog,
                                      Opcode::kLogPlusOne,
                                      Opcode::kLogistic,
                                      Opcode::kMaximum,
                                      Opcode::kMinimum,
                                      Opcode::kMultiply,
                                      Opcode::kNegate,
                                      Opcode::kNot,
                                      Opcode::kOr,
                                      Opcode::kPower,
                                      Opcode::kRemainder,
                                      Opcode::kRoundNearestAfz,
                                      Opcode::kRoundNearestEven,
                                      Opcode::kRsqrt,
                                      Opcode::kSign,
                                      Opcode::kSine,
                                      Opcode::kSqrt,
                                      Opcode::kSubtract,
                                      Opcode::kTan,
                                      Opcode::kTanh,
                                      Opcode::kXor,
                                      Opcode::kShiftLeft,
                                      Opcode::kShiftRightArithmetic,
                                      Opcode::kShiftRightLogical,
                                      Opcode::kPopcnt,
                                      Opcode::kCountLeadingZeros,
                                      Opcode::kErf,
                                      Opcode::kCompare,
                                      Opcode::kSelect,
                                      Opcode::kOptimizationBarrier,
                                      Opcode::kOptBarrier,
                                      Opcode::kIsFinite};
  if (kElementwise->contains(inst.opcode) && !operands.empty()) {
    // select/clamp: the shape of the value operands, not the predicate.
    const xla::ShapeProto* source =
        inst.opcode == Opcode::kSelect && operands.size() == 3  ? operands[1]
        : inst.opcode == Opcode::kClamp && operands.size() == 3 ? operands[1]
                                                                : operands[0];
    *out->mutable_shape() = *source;
    if (inst.opcode == Opcode::kCompare || inst.opcode == Opcode::kIsFinite) {
      out->mutable_shape()->set_element_type(xla::PRED);
    }
    return absl::OkStatus();
  }
  absl::Status structural = InferStructuralShape(inst, operands, out);
  if (structural.ok()) return structural;
  return fail();
}

// Result shapes that follow from the operands and attributes (dot from
// its dimension numbers, transpose, reduce, slice, concatenate, pad,
// dynamic-slice) or from a called computation's root (call, fusion, map).
// Not found = NotFound; the caller then reports the omission.
absl::Status Encoder::InferStructuralShape(
    const Instruction& inst,
    const std::vector<const xla::ShapeProto*>& operands, Instr* out) {
  const absl::Status not_found = absl::NotFoundError("");
  auto ints = [&](std::string_view key, std::vector<int64_t>* list) {
    const Attribute* attr = file_.FindAttribute(inst, key);
    list->clear();
    return attr != nullptr && ReadIntList(file_.Text(attr->value), list);
  };
  auto array = [&](const xla::ShapeProto& like,
                   const std::vector<int64_t>& dims) {
    xla::ShapeProto shape;
    shape.set_element_type(like.element_type());
    for (int64_t d : dims) shape.add_dimensions(d);
    if (like.has_layout()) {
      for (int64_t d = static_cast<int64_t>(dims.size()) - 1; d >= 0; --d) {
        shape.mutable_layout()->add_minor_to_major(d);
      }
    }
    return shape;
  };
  // Variadic reduce and reduce-window: one result is the shape itself,
  // several make a tuple.
  auto set_variadic_result = [&](std::vector<xla::ShapeProto>& results) {
    if (results.size() == 1) {
      *out->mutable_shape() = results[0];
      return;
    }
    out->mutable_shape()->set_element_type(xla::TUPLE);
    for (auto& r : results) *out->mutable_shape()->add_tuple_shapes() = r;
  };
  auto valid_dim = [](const xla::ShapeProto& s, int64_t d) {
    return d >= 0 && d < s.dimensions_size();
  };
  const xla::ShapeProto* first = operands.empty() ? nullptr : operands[0];
  if (first && first->element_type() == xla::TUPLE &&
      inst.opcode != Opcode::kCall && inst.opcode != Opcode::kFusion &&
      inst.opcode != Opcode::kConditional) {
    return not_found;
  }
  std::vector<int64_t> list;
  switch (inst.opcode) {
    case Opcode::kReal:
    case Opcode::kImag:
      if (!first) return not_found;
      *out->mutable_shape() = *first;
      out->mutable_shape()->set_element_type(
          first->element_type() == xla::C128 ? xla::F64 : xla::F32);
      return absl::OkStatus();
    case Opcode::kReduceWindow: {
      const size_t n = operands.size() / 2;
      if (n == 0 || operands.size() % 2 != 0) return not_found;
      std::vector<xla::ShapeProto> results;
      for (size_t k = 0; k < n; ++k) {
        const xla::ShapeProto& input = *operands[k];
        if (out->window().dimensions_size() != input.dimensions_size()) {
          return not_found;
        }
        std::vector<int64_t> dims;
        for (int d = 0; d < input.dimensions_size(); ++d) {
          const xla::WindowDimension& w = out->window().dimensions(d);
          const int64_t base = std::max<int64_t>(1, w.base_dilation());
          const int64_t padded =
              (input.dimensions(d) > 0 ? (input.dimensions(d) - 1) * base + 1
                                       : 0) +
              w.padding_low() + w.padding_high();
          const int64_t window =
              (w.size() - 1) * std::max<int64_t>(1, w.window_dilation()) + 1;
          const int64_t stride = std::max<int64_t>(1, w.stride());
          dims.push_back(padded < window ? 0 : (padded - window) / stride + 1);
        }
        results.push_back(array(*operands[n + k], dims));
      }
      set_variadic_result(results);
      return absl::OkStatus();
    }
    case Opcode::kConvolution: {
      if (operands.size() != 2 || !out->has_convolution_dimension_numbers()) {
        return not_found;
      }
      const xla::ShapeProto& input = *operands[0];
      const xla::ShapeProto& kernel = *operands[1];
      const auto& dn = out->convolution_dimension_numbers();
      const int rank = input.dimensions_size();
      const int spatial = dn.input_spatial_dimensions_size();
      if (kernel.dimensions_size() != rank ||
          dn.kernel_spatial_dimensions_size() != spatial ||
          dn.output_spatial_dimensions_size() != spatial ||
          !valid_dim(input, dn.input_batch_dimension()) ||
          !valid_dim(kernel, dn.kernel_output_feature_dimension()) ||
          dn.output_batch_dimension() < 0 ||
          dn.output_batch_dimension() >= rank ||
          dn.output_feature_dimension() < 0 ||
          dn.output_feature_dimension() >= rank) {
        return not_found;
      }
      std::vector<int64_t> dims(rank, 0);
      const int64_t batch_groups =
          std::max<int64_t>(1, out->batch_group_count());
      dims[dn.output_batch_dimension()] =
          input.dimensions(dn.input_batch_dimension()) / batch_groups;
      dims[dn.output_feature_dimension()] =
          kernel.dimensions(dn.kernel_output_feature_dimension());
      for (int k = 0; k < spatial; ++k) {
        const int64_t in_dim = dn.input_spatial_dimensions(k);
        const int64_t kernel_dim = dn.kernel_spatial_dimensions(k);
        const int64_t out_dim = dn.output_spatial_dimensions(k);
        if (!valid_dim(input, in_dim) || !valid_dim(kernel, kernel_dim) ||
            out_dim < 0 || out_dim >= rank) {
          return not_found;
        }
        xla::WindowDimension w;
        if (k < out->window().dimensions_size()) {
          w = out->window().dimensions(k);
        } else {
          w.set_size(kernel.dimensions(kernel_dim));
        }
        const int64_t size = input.dimensions(in_dim);
        const int64_t padded =
            (size > 0 ? (size - 1) * std::max<int64_t>(1, w.base_dilation()) + 1
                      : 0) +
            w.padding_low() + w.padding_high();
        const int64_t window =
            (w.size() - 1) * std::max<int64_t>(1, w.window_dilation()) + 1;
        const int64_t stride = std::max<int64_t>(1, w.stride());
        dims[out_dim] = padded < window ? 0 : (padded - window) / stride + 1;
      }
      *out->mutable_shape() = array(input, dims);
      return absl::OkStatus();
    }
    case Opcode::kGather: {
      // Offset dims carry the slice sizes not collapsed or batching; the
      // others carry the start indices' dims except index_vector_dim.
      if (operands.size() != 2) return not_found;
      const auto& gn = out->gather_dimension_numbers();
      auto listed = [](const auto& field, int64_t d) {
        return std::find(field.begin(), field.end(), d) != field.end();
      };
      std::vector<int64_t> offset_sizes, batch_sizes;
      for (int d = 0; d < out->gather_slice_sizes_size(); ++d) {
        if (!listed(gn.collapsed_slice_dims(), d) &&
            !listed(gn.operand_batching_dims(), d)) {
          offset_sizes.push_back(out->gather_slice_sizes(d));
        }
      }
      const xla::ShapeProto& indices = *operands[1];
      for (int d = 0; d < indices.dimensions_size(); ++d) {
        if (d != gn.index_vector_dim()) {
          batch_sizes.push_back(indices.dimensions(d));
        }
      }
      if (static_cast<int>(offset_sizes.size()) != gn.offset_dims_size()) {
        return not_found;
      }
      const size_t rank = offset_sizes.size() + batch_sizes.size();
      std::vector<int64_t> dims;
      size_t next_offset = 0, next_batch = 0;
      for (size_t d = 0; d < rank; ++d) {
        if (listed(gn.offset_dims(), static_cast<int64_t>(d))) {
          dims.push_back(offset_sizes[next_offset++]);
        } else if (next_batch < batch_sizes.size()) {
          dims.push_back(batch_sizes[next_batch++]);
        } else {
          return not_found;
        }
      }
      *out->mutable_shape() = array(*first, dims);
      return absl::OkStatus();
    }
    case Opcode::kConditional:
    case Opcode::kCall:
    case Opcode::kFusion: {
      const xla::ShapeProto* root = CalledRootShape(inst);
      if (!root) return not_found;
      *out->mutable_shape() = *root;
      return absl::OkStatus();
    }
    case Opcode::kMap: {
      const xla::ShapeProto* root = CalledRootShape(inst);
      if (!root || !first) return not_found;
      *out->mutable_shape() = *first;
      out->mutable_shape()->set_element_type(root->element_type());
      return absl::OkStatus();
    }
    case Opcode::kReverse:
    case Opcode::kReducePrecision:
    case Opcode::kDynamicUpdateSlice:
      if (!first) return not_found;
      *out->mutable_shape() = *first;
      return absl::OkStatus();
    case Opcode::kSort: {
      if (operands.size() == 1) {
        *out->mutable_shape() = *first;
      } else {
        out->mutable_shape()->set_element_type(xla::TUPLE);
        for (const xla::ShapeProto* s : operands) {
          *out->mutable_shape()->add_tuple_shapes() = *s;
        }
      }
      return absl::OkStatus();
    }
    case Opcode::kTranspose: {
      if (!first || !ints("dimensions", &list) ||
          static_cast<int>(list.size()) != first->dimensions_size()) {
        return not_found;
      }
      std::vector<int64_t> dims;
      for (int64_t p : list) {
        if (!valid_dim(*first, p)) return not_found;
        dims.push_back(first->dimensions(p));
      }
      *out->mutable_shape() = array(*first, dims);
      return absl::OkStatus();
    }
    case Opcode::kDot: {
      if (operands.size() < 2) return not_found;
      const xla::ShapeProto& lhs = *operands[0];
      const xla::ShapeProto& rhs = *operands[1];
      std::vector<int64_t> lb, rb, lc, rc;
      ints("lhs_batch_dims", &lb);
      ints("rhs_batch_dims", &rb);
      ints("lhs_contracting_dims", &lc);
      ints("rhs_contracting_dims", &rc);
      auto contains = [](const std::vector<int64_t>& v, int64_t d) {
        return std::find(v.begin(), v.end(), d) != v.end();
      };
      std::vector<int64_t> dims;
      for (int64_t d : lb) {
        if (!valid_dim(lhs, d)) return not_found;
        dims.push_back(lhs.dimensions(d));
      }
      for (int64_t d = 0; d < lhs.dimensions_size(); ++d) {
        if (!contains(lb, d) && !contains(lc, d)) {
          dims.push_back(lhs.dimensions(d));
        }
      }
      for (int64_t d = 0; d < rhs.dimensions_size(); ++d) {
        if (!contains(rb, d) && !contains(rc, d)) {
          dims.push_back(rhs.dimensions(d));
        }
      }
      *out->mutable_shape() = array(lhs, dims);
      return absl::OkStatus();
    }
    case Opcode::kReduce: {
      if (operands.size() < 2 || operands.size() % 2 != 0 ||
          !ints("dimensions", &list)) {
        return not_found;
      }
      const size_t n = operands.size() / 2;
      std::vector<xla::ShapeProto> results;
      for (size_t k = 0; k < n; ++k) {
        const xla::ShapeProto& input = *operands[k];
        std::vector<int64_t> dims;
        for (int64_t d = 0; d < input.dimensions_size(); ++d) {
          if (std::find(list.begin(), list.end(), d) == list.end()) {
            dims.push_back(input.dimensions(d));
          }
        }
        results.push_back(array(*operands[n + k], dims));
      }
      set_variadic_result(results);
      return absl::OkStatus();
    }
    case Opcode::kConcatenate: {
      if (!first || !ints("dimensions", &list) || list.size() != 1 ||
          !valid_dim(*first, list[0])) {
        return not_found;
      }
      std::vector<int64_t> dims(first->dimensions().begin(),
                                first->dimensions().end());
      dims[list[0]] = 0;
      for (const xla::ShapeProto* s : operands) {
        if (!valid_dim(*s, list[0])) return not_found;
        dims[list[0]] += s->dimensions(list[0]);
      }
      *out->mutable_shape() = array(*first, dims);
      return absl::OkStatus();
    }
    case Opcode::kSlice: {
      if (!first || out->slice_dimensions_size() != first->dimensions_size()) {
        return not_found;
      }
      std::vector<int64_t> dims;
      for (const auto& d : out->slice_dimensions()) {
        const int64_t stride = d.stride() > 0 ? d.stride() : 1;
        dims.push_back(std::max<int64_t>(
            0, (d.limit() - d.start() + stride - 1) / stride));
      }
      *out->mutable_shape() = array(*first, dims);
      return absl::OkStatus();
    }
    case Opcode::kDynamicSlice: {
      if (!first ||
          out->dynamic_slice_sizes_size() != first->dimensions_size()) {
        return not_found;
      }
      std::vector<int64_t> dims(out->dynamic_slice_sizes().begin(),
                                out->dynamic_slice_sizes().end());
      *out->mutable_shape() = array(*first, dims);
      return absl::OkStatus();
    }
    case Opcode::kPad: {
      if (!first ||
          out->padding_config().dimensions_size() != first->dimensions_size()) {
        return not_found;
      }
      std::vector<int64_t> dims;
      for (int d = 0; d < first->dimensions_size(); ++d) {
        const auto& p = out->padding_config().dimensions(d);
        const int64_t size = first->dimensions(d);
        dims.push_back(size + p.edge_padding_low() + p.edge_padding_high() +
                       std::max<int64_t>(0, size - 1) * p.interior_padding());
      }
      *out->mutable_shape() = array(*first, dims);
      return absl::OkStatus();
    }
    case Opcode::kGetDimensionSize:
      out->mutable_shape()->set_element_type(xla::S32);
      return absl::OkStatus();
    default:
      return not_found;
  }
}

// The root shape of the first computation `inst` calls (to_apply=,
// calls=): encoded already, or written in the text; else that of an inline
// body.
const xla::ShapeProto* Encoder::CalledRootShape(const Instruction& inst) {
  for (Id r = inst.called.begin; r < inst.called.end(); ++r) {
    const Id c = file_.computation_refs[r].computation;
    if (c == kNone) continue;
    const Computation& comp = file_.computations[c];
    if (comp.root != kNone) {
      if (auto it = shapes_.find(comp.root); it != shapes_.end()) {
        return it->second;
      }
      if (file_.instructions[comp.root].shape != kNone) {
        inline_shapes_.push_back(std::make_unique<xla::ShapeProto>(
            EncodeShape(file_, file_.instructions[comp.root].shape)));
        return inline_shapes_.back().get();
      }
    }
    if (comp.result_shape != kNone) {
      inline_shapes_.push_back(std::make_unique<xla::ShapeProto>(
          EncodeShape(file_, comp.result_shape)));
      return inline_shapes_.back().get();
    }
    return nullptr;
  }
  for (const InlineCall& call : inline_calls_) {
    for (const Instr& i : call.computation->instructions()) {
      if (i.id() == call.computation->root_id()) return &i.shape();
    }
  }
  return nullptr;
}

}  // namespace hlo::proto::internal
