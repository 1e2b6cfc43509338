// Data movement after XLA's InferBroadcastShape (and the verifier's
// HandleBroadcast), HandleReshape, InferTransposeShape, InferSliceShape,
// InferDynamicSliceShape, InferDynamicUpdateSliceShape, InferConcatOpShape,
// InferPadShape, InferReverseShape, InferGatherShape and InferScatterShape.
#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hlo/attributes.h"
#include "hlo/shape_inference_internal.h"

namespace hlo::shape_inference_internal {
namespace {

std::optional<std::vector<int64_t>> Dimensions(const OpContext& ctx,
                                               std::string_view key) {
  std::string_view value = ctx.Attr(key);
  if (value.empty()) return std::nullopt;
  absl::StatusOr<std::vector<int64_t>> dims = DecodeIntList(value);
  if (!dims.ok()) return std::nullopt;
  return *std::move(dims);
}

std::optional<int64_t> Elements(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0 || __builtin_mul_overflow(n, d, &n)) return std::nullopt;
  }
  return n;
}

// The result shape is the instruction's own; the operand decides the type.
Inference Broadcast(const OpContext& ctx) {
  if (ctx.operands.size() != 1 || !IsArray(ctx.operands[0]) || !ctx.declared ||
      !IsArray(*ctx.declared)) {
    return CannotInfer();
  }
  const InferredShape& in = ctx.operands[0];
  const InferredShape& out = *ctx.declared;
  std::optional<std::vector<int64_t>> dims = Dimensions(ctx, "dimensions");
  if (!dims) return CannotInfer();
  if (dims->size() != in.dims.size()) {
    return Fail(absl::StrCat(
        "Size of broadcast_dimensions has to match operand's rank; operand "
        "rank: ",
        in.dims.size(), ", size of broadcast_dimensions ", dims->size(), "."));
  }
  for (size_t i = 0; i < dims->size(); ++i) {
    int64_t d = (*dims)[i];
    if (d < 0 || d >= static_cast<int64_t>(out.dims.size())) {
      return Fail(absl::StrCat("Broadcast dimension ", d, " is out of bound"));
    }
    // The verifier wants equal sizes; ShapeInference also takes a 1, which
    // old dumps use: only a size that neither allows is an error.
    if (out.dims[d] != in.dims[i] && in.dims[i] != 1) {
      return Fail(absl::StrCat("Broadcast dimension ", i, " of operand ",
                               ShapeString(in), " has size ", in.dims[i],
                               ", output dimension ", d, " of ",
                               ShapeString(out), " has size ", out.dims[d]));
    }
  }
  return Ok(Array(in.element_type, out.dims));
}

Inference Reshape(const OpContext& ctx) {
  if (ctx.operands.size() != 1 || !IsArray(ctx.operands[0]) || !ctx.declared ||
      !IsArray(*ctx.declared) || !IsBounded(*ctx.declared)) {
    return CannotInfer();
  }
  const InferredShape& in = ctx.operands[0];
  std::optional<int64_t> from = Elements(in.dims);
  std::optional<int64_t> to = Elements(ctx.declared->dims);
  if (!from || !to) return CannotInfer();
  if (*from != *to) {
    return Fail(absl::StrCat(
        "Reshape operation has mismatched element counts: from=", *from, " (",
        ShapeString(in), ") to=", *to, " (", ShapeString(*ctx.declared), ")."));
  }
  return Ok(Array(in.element_type, ctx.declared->dims));
}

bool IsPermutation(const std::vector<int64_t>& perm, size_t rank) {
  if (perm.size() != rank) return false;
  std::vector<bool> seen(rank, false);
  for (int64_t p : perm) {
    if (p < 0 || p >= static_cast<int64_t>(rank) || seen[p]) return false;
    seen[p] = true;
  }
  return true;
}

Inference Transpose(const OpContext& ctx) {
  if (ctx.operands.size() != 1 || !IsArray(ctx.operands[0])) {
    return CannotInfer();
  }
  const InferredShape& in = ctx.operands[0];
  std::optional<std::vector<int64_t>> perm = Dimensions(ctx, "dimensions");
  if (!perm) return CannotInfer();
  if (!IsPermutation(*perm, in.dims.size())) {
    return Fail(absl::StrCat("Transpose dimensions [",
                             absl::StrJoin(*perm, ","),
                             "] are not a permutation of the operand "
                             "dimensions (operand shape is ",
                             ShapeString(in), ")."));
  }
  InferredShape out = Array(in.element_type, {});
  for (int64_t p : *perm) out.dims.push_back(in.dims[p]);
  return Ok(std::move(out));
}

Inference SliceOp(const OpContext& ctx) {
  if (ctx.operands.size() != 1 || !IsArray(ctx.operands[0])) {
    return CannotInfer();
  }
  const InferredShape& in = ctx.operands[0];
  std::string_view value = ctx.Attr("slice");
  if (value.empty()) return CannotInfer();
  absl::StatusOr<SliceSpec> spec = DecodeSlice(value);
  if (!spec.ok() || spec->starts.size() != in.dims.size() ||
      spec->limits.size() != in.dims.size()) {
    return CannotInfer();
  }
  InferredShape out = Array(in.element_type, {});
  for (size_t i = 0; i < in.dims.size(); ++i) {
    int64_t start = spec->starts[i], limit = spec->limits[i];
    int64_t stride = i < spec->strides.size() ? spec->strides[i] : 1;
    if (start < 0 || limit < start || limit > in.dims[i] || stride <= 0) {
      return Fail(absl::StrCat("Slice dimension ", i, " [", start, ":", limit,
                               ":", stride, "] is out of bounds of ",
                               ShapeString(in), "."));
    }
    out.dims.push_back((limit - start + stride - 1) / stride);
  }
  return Ok(std::move(out));
}

Inference DynamicSlice(const OpContext& ctx) {
  if (ctx.operands.empty() || !IsArray(ctx.operands[0])) return CannotInfer();
  const InferredShape& in = ctx.operands[0];
  std::optional<std::vector<int64_t>> sizes =
      Dimensions(ctx, "dynamic_slice_sizes");
  if (!sizes || sizes->size() != in.dims.size()) return CannotInfer();
  for (size_t i = 0; i < sizes->size(); ++i) {
    if ((*sizes)[i] < 0 || (*sizes)[i] > in.dims[i]) {
      return Fail(absl::StrCat(
          "Slice dim size ", (*sizes)[i],
          " greater than dynamic slice dimension: ", in.dims[i], "."));
    }
  }
  return Ok(Array(in.element_type, *sizes));
}

Inference DynamicUpdateSlice(const OpContext& ctx) {
  if (ctx.operands.size() < 2 || !IsArray(ctx.operands[0]) ||
      !IsArray(ctx.operands[1])) {
    return CannotInfer();
  }
  const InferredShape& in = ctx.operands[0];
  const InferredShape& update = ctx.operands[1];
  if (update.dims.size() != in.dims.size()) return CannotInfer();
  for (size_t i = 0; i < in.dims.size(); ++i) {
    if (update.dims[i] > in.dims[i]) {
      return Fail(
          absl::StrCat("Size of update dimension ", i, " (", update.dims[i],
                       ") is greater than the size of the operand dimension (",
                       in.dims[i], ")."));
    }
  }
  return Ok(in);
}

Inference Concatenate(const OpContext& ctx) {
  if (ctx.operands.empty()) return CannotInfer();
  std::optional<std::vector<int64_t>> dims = Dimensions(ctx, "dimensions");
  if (!dims || dims->size() != 1) return CannotInfer();
  const int64_t dim = (*dims)[0];
  InferredShape out = ctx.operands[0];
  if (!IsArray(out) || dim < 0 ||
      dim >= static_cast<int64_t>(out.dims.size())) {
    return CannotInfer();
  }
  for (size_t k = 1; k < ctx.operands.size(); ++k) {
    const InferredShape& arg = ctx.operands[k];
    if (!IsArray(arg) || arg.dims.size() != out.dims.size()) {
      return CannotInfer();
    }
    for (size_t i = 0; i < arg.dims.size(); ++i) {
      if (static_cast<int64_t>(i) == dim) continue;
      if (arg.dims[i] != out.dims[i]) {
        return Fail(absl::StrCat(
            "Cannot concatenate arrays that differ in dimensions other than "
            "the one being concatenated. Dimension ",
            i, " in both shapes must be equal: ", ShapeString(ctx.operands[0]),
            " vs ", ShapeString(arg), "."));
      }
    }
    if (__builtin_add_overflow(out.dims[dim], arg.dims[dim], &out.dims[dim])) {
      return CannotInfer();
    }
    out.element_type = HigherPrecision(out.element_type, arg.element_type);
  }
  return Ok(std::move(out));
}

Inference Pad(const OpContext& ctx) {
  if (ctx.operands.size() != 2 || !IsArray(ctx.operands[0])) {
    return CannotInfer();
  }
  const InferredShape& in = ctx.operands[0];
  std::string_view value = ctx.Attr("padding");
  if (value.empty()) return CannotInfer();
  absl::StatusOr<PaddingConfig> padding = DecodePadding(value);
  if (!padding.ok() || padding->dimensions.size() != in.dims.size()) {
    return CannotInfer();
  }
  InferredShape out =
      Array(HigherPrecision(in.element_type, ctx.operands[1].element_type), {});
  for (size_t i = 0; i < in.dims.size(); ++i) {
    const PaddingDimension& p = padding->dimensions[i];
    if (p.interior_padding < 0) return CannotInfer();
    int64_t d = in.dims[i];
    __int128 size =
        static_cast<__int128>(p.edge_padding_low) + p.edge_padding_high + d +
        static_cast<__int128>(std::max<int64_t>(d - 1, 0)) * p.interior_padding;
    if (size < 0 || size > INT64_MAX) return CannotInfer();
    out.dims.push_back(static_cast<int64_t>(size));
  }
  return Ok(std::move(out));
}

bool ContainsDim(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

Inference Gather(const OpContext& ctx) {
  if (ctx.operands.size() != 2 || !IsArray(ctx.operands[0]) ||
      !IsArray(ctx.operands[1])) {
    return CannotInfer();
  }
  const InferredShape& in = ctx.operands[0];
  const InferredShape& indices = ctx.operands[1];
  std::vector<RawAttribute> raw = ctx.RawAttrs();
  absl::StatusOr<GatherDimensionNumbers> dn = DecodeGatherDimensionNumbers(raw);
  if (!dn.ok() || dn->slice_sizes.size() != in.dims.size()) {
    return CannotInfer();
  }
  std::vector<int64_t> expanded = indices.dims;
  if (dn->index_vector_dim == static_cast<int64_t>(expanded.size())) {
    expanded.push_back(1);
  }
  if (dn->index_vector_dim < 0 ||
      dn->index_vector_dim >= static_cast<int64_t>(expanded.size())) {
    return CannotInfer();
  }
  std::vector<int64_t> batch_bounds;
  for (size_t i = 0; i < expanded.size(); ++i) {
    if (static_cast<int64_t>(i) != dn->index_vector_dim) {
      batch_bounds.push_back(expanded[i]);
    }
  }
  const size_t rank = dn->offset_dims.size() + batch_bounds.size();
  InferredShape out = Array(in.element_type, {});
  size_t offset_seen = 0, batch_seen = 0;
  for (size_t i = 0; i < rank; ++i) {
    if (ContainsDim(dn->offset_dims, static_cast<int64_t>(i))) {
      while (offset_seen < dn->slice_sizes.size() &&
             (ContainsDim(dn->collapsed_slice_dims, offset_seen) ||
              ContainsDim(dn->operand_batching_dims, offset_seen))) {
        ++offset_seen;
      }
      if (offset_seen >= dn->slice_sizes.size()) return CannotInfer();
      out.dims.push_back(dn->slice_sizes[offset_seen++]);
    } else {
      if (batch_seen >= batch_bounds.size()) return CannotInfer();
      out.dims.push_back(batch_bounds[batch_seen++]);
    }
  }
  return Ok(std::move(out));
}

// Scatter writes into its operands: (operands..., indices, updates...).
Inference Scatter(const OpContext& ctx) {
  const size_t n = ctx.operands.size();
  if (n < 3 || (n - 1) % 2 != 0) return CannotInfer();
  if (std::string error = ScatterError(ctx); !error.empty()) {
    return Fail(std::move(error));
  }
  std::vector<InferredShape> outs(ctx.operands.begin(),
                                  ctx.operands.begin() + (n - 1) / 2);
  for (const InferredShape& s : outs) {
    if (!IsArray(s)) return CannotInfer();
  }
  return Ok(OneOrTuple(std::move(outs)));
}

}  // namespace

std::optional<Inference> InferDataMovement(const OpContext& ctx) {
  switch (ctx.opcode()) {
    case Opcode::kBroadcast:
      return Broadcast(ctx);
    case Opcode::kReshape:
      return Reshape(ctx);
    case Opcode::kTranspose:
      return Transpose(ctx);
    case Opcode::kSlice:
      return SliceOp(ctx);
    case Opcode::kDynamicSlice:
      return DynamicSlice(ctx);
    case Opcode::kDynamicUpdateSlice:
      return DynamicUpdateSlice(ctx);
    case Opcode::kConcatenate:
      return Concatenate(ctx);
    case Opcode::kPad:
      return Pad(ctx);
    case Opcode::kGather:
      return Gather(ctx);
    case Opcode::kScatter:
      return Scatter(ctx);
    case Opcode::kReverse:
    case Opcode::kCopy:
    case Opcode::kSetDimensionSize:
      if (ctx.operands.empty()) return CannotInfer();
      return Ok(ctx.operands[0]);
    case Opcode::kGetDimensionSize:
      return Ok(Array(PrimitiveType::kS32, {}));
    default:
      return std::nullopt;
  }
}

}  // namespace hlo::shape_inference_internal
