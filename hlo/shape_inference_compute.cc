// Ops that compute over windows and contractions, after XLA's
// InferReduceShape, InferReduceWindowShape (InferWindowOutputShape),
// InferDotOpShape, InferConvolveShape, InferSelectAndScatterShape and the
// sort, fft, triangular-solve, cholesky, batch-norm and top-k rules.
#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "hlo/attributes.h"
#include "hlo/shape_inference_internal.h"

namespace hlo::shape_inference_internal {
namespace {

bool Contains(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

bool InRank(const std::vector<int64_t>& dims, size_t rank) {
  return std::all_of(dims.begin(), dims.end(), [&](int64_t d) {
    return d >= 0 && d < static_cast<int64_t>(rank);
  });
}

// window_util::StridedBound over the dilated, padded base.
std::optional<int64_t> WindowOutput(int64_t base, const WindowDimension& w) {
  if (w.stride <= 0 || w.base_dilation <= 0 || w.window_dilation <= 0 ||
      w.size < 0) {
    return std::nullopt;
  }
  __int128 dilated_base =
      base == 0 ? 0 : static_cast<__int128>(base - 1) * w.base_dilation + 1;
  __int128 padded = dilated_base + w.padding_low + w.padding_high;
  __int128 dilated_window =
      w.size == 0 ? 0
                  : static_cast<__int128>(w.size - 1) * w.window_dilation + 1;
  if (padded < dilated_window) return 0;
  __int128 out = (padded - dilated_window) / w.stride + 1;
  if (out > INT64_MAX) return std::nullopt;
  return static_cast<int64_t>(out);
}

std::optional<Window> WindowAttr(const OpContext& ctx) {
  std::string_view value = ctx.Attr("window");
  if (value.empty()) return Window{};  // no window: every size 1
  absl::StatusOr<Window> window = DecodeWindow(value);
  if (!window.ok()) return std::nullopt;
  return *std::move(window);
}

// One result per input; a tuple when there are several or when the reducer
// returns a tuple (a variadic reduce of one input).
InferredShape ReducerResult(const OpContext& ctx,
                            std::vector<InferredShape> outs) {
  std::optional<InferredShape> root = ctx.CalledRoot("to_apply");
  if (outs.size() == 1 && root && root->is_tuple()) return Tuple(outs);
  return OneOrTuple(std::move(outs));
}

Inference Reduce(const OpContext& ctx) {
  const size_t n = ctx.operands.size();
  if (n < 2 || n % 2 != 0) return CannotInfer();
  std::string_view value = ctx.Attr("dimensions");
  if (value.empty()) return CannotInfer();
  absl::StatusOr<std::vector<int64_t>> dims = DecodeIntList(value);
  if (!dims.ok()) return CannotInfer();
  const InferredShape& first = ctx.operands[0];
  std::vector<InferredShape> outs;
  for (size_t i = 0; i < n / 2; ++i) {
    const InferredShape& in = ctx.operands[i];
    const InferredShape& init = ctx.operands[n / 2 + i];
    if (!IsArray(in) || !IsArray(init) || !init.dims.empty() ||
        in.dims != first.dims || !InRank(*dims, in.dims.size())) {
      return CannotInfer();
    }
    InferredShape out = Array(init.element_type, {});
    for (size_t d = 0; d < in.dims.size(); ++d) {
      if (!Contains(*dims, d)) out.dims.push_back(in.dims[d]);
    }
    outs.push_back(std::move(out));
  }
  return Ok(ReducerResult(ctx, std::move(outs)));
}

Inference ReduceWindow(const OpContext& ctx) {
  const size_t n = ctx.operands.size();
  if (n < 2 || n % 2 != 0) return CannotInfer();
  std::optional<Window> window = WindowAttr(ctx);
  if (!window) return CannotInfer();
  std::vector<InferredShape> outs;
  for (size_t i = 0; i < n / 2; ++i) {
    const InferredShape& in = ctx.operands[i];
    const InferredShape& init = ctx.operands[n / 2 + i];
    if (!IsArray(in) || !IsArray(init) || !init.dims.empty() ||
        window->dimensions.size() != in.dims.size()) {
      return CannotInfer();
    }
    InferredShape out = Array(init.element_type, {});
    for (size_t d = 0; d < in.dims.size(); ++d) {
      std::optional<int64_t> size =
          WindowOutput(in.dims[d], window->dimensions[d]);
      if (!size) return CannotInfer();
      out.dims.push_back(*size);
    }
    outs.push_back(std::move(out));
  }
  return Ok(ReducerResult(ctx, std::move(outs)));
}

// The declared element type wins (XLA passes it as preferred_element_type).
PrimitiveType ResultType(const OpContext& ctx, PrimitiveType lhs,
                         PrimitiveType rhs) {
  if (ctx.declared && IsArray(*ctx.declared)) {
    return ctx.declared->element_type;
  }
  return HigherPrecision(lhs, rhs);
}

Inference Dot(const OpContext& ctx) {
  // Sparse dots carry metadata operands and a `sparsity` attribute.
  if (ctx.operands.size() != 2 || !ctx.Attr("sparsity").empty()) {
    return CannotInfer();
  }
  const InferredShape& lhs = ctx.operands[0];
  const InferredShape& rhs = ctx.operands[1];
  if (!IsArray(lhs) || !IsArray(rhs)) return CannotInfer();
  // Old dumps write `dot(a, b)` with no dimension numbers, read then as a
  // vector dot: which rule applies depends on the version, so stay silent.
  if (ctx.Attr("lhs_contracting_dims").empty()) return CannotInfer();
  std::vector<RawAttribute> raw = ctx.RawAttrs();
  absl::StatusOr<DotDimensionNumbers> dn = DecodeDotDimensionNumbers(raw);
  if (!dn.ok()) return CannotInfer();
  const size_t lr = lhs.dims.size(), rr = rhs.dims.size();
  if (!InRank(dn->lhs_contracting_dimensions, lr) ||
      !InRank(dn->lhs_batch_dimensions, lr) ||
      !InRank(dn->rhs_contracting_dimensions, rr) ||
      !InRank(dn->rhs_batch_dimensions, rr) ||
      dn->lhs_contracting_dimensions.size() !=
          dn->rhs_contracting_dimensions.size() ||
      dn->lhs_batch_dimensions.size() != dn->rhs_batch_dimensions.size()) {
    return CannotInfer();
  }
  for (size_t i = 0; i < dn->lhs_contracting_dimensions.size(); ++i) {
    if (lhs.dims[dn->lhs_contracting_dimensions[i]] !=
        rhs.dims[dn->rhs_contracting_dimensions[i]]) {
      return Fail("Contracting dimension sizes are not compatible.");
    }
  }
  for (size_t i = 0; i < dn->lhs_batch_dimensions.size(); ++i) {
    if (lhs.dims[dn->lhs_batch_dimensions[i]] !=
        rhs.dims[dn->rhs_batch_dimensions[i]]) {
      return Fail("Batch dimension sizes are not compatible.");
    }
  }
  InferredShape out =
      Array(ResultType(ctx, lhs.element_type, rhs.element_type), {});
  for (int64_t d : dn->lhs_batch_dimensions) out.dims.push_back(lhs.dims[d]);
  for (size_t d = 0; d < lr; ++d) {
    if (!Contains(dn->lhs_batch_dimensions, d) &&
        !Contains(dn->lhs_contracting_dimensions, d)) {
      out.dims.push_back(lhs.dims[d]);
    }
  }
  for (size_t d = 0; d < rr; ++d) {
    if (!Contains(dn->rhs_batch_dimensions, d) &&
        !Contains(dn->rhs_contracting_dimensions, d)) {
      out.dims.push_back(rhs.dims[d]);
    }
  }
  return Ok(std::move(out));
}

std::optional<int64_t> IntAttr(const OpContext& ctx, std::string_view key,
                               int64_t fallback) {
  std::string_view value = ctx.Attr(key);
  if (value.empty()) return fallback;
  absl::StatusOr<int64_t> n = DecodeInt(value);
  if (!n.ok()) return std::nullopt;
  return *n;
}

// Each of the N dimensions exactly once.
bool IsPermutationOfRank(std::vector<int64_t> dims, size_t rank) {
  if (dims.size() != rank) return false;
  std::sort(dims.begin(), dims.end());
  for (size_t i = 0; i < rank; ++i) {
    if (dims[i] != static_cast<int64_t>(i)) return false;
  }
  return true;
}

Inference Convolution(const OpContext& ctx) {
  if (ctx.operands.size() != 2) return CannotInfer();
  const InferredShape& lhs = ctx.operands[0];
  const InferredShape& rhs = ctx.operands[1];
  if (!IsArray(lhs) || !IsArray(rhs)) return CannotInfer();
  std::string_view labels = ctx.Attr("dim_labels");
  if (labels.empty()) return CannotInfer();
  absl::StatusOr<ConvolutionDimensionNumbers> dn =
      DecodeConvolutionDimensionNumbers(labels);
  std::optional<Window> window = WindowAttr(ctx);
  std::optional<int64_t> fgc = IntAttr(ctx, "feature_group_count", 1);
  std::optional<int64_t> bgc = IntAttr(ctx, "batch_group_count", 1);
  if (!dn.ok() || !window || !fgc || !bgc || *fgc <= 0 || *bgc <= 0) {
    return CannotInfer();
  }
  const size_t spatial = dn->input_spatial_dimensions.size();
  const size_t rank = spatial + 2;
  if (dn->kernel_spatial_dimensions.size() != spatial ||
      dn->output_spatial_dimensions.size() != spatial ||
      lhs.dims.size() != rank || rhs.dims.size() != rank) {
    return CannotInfer();
  }
  // `window` may be left out for a 0-d convolution only.
  if (window->dimensions.empty() && spatial > 0) {
    window->dimensions.resize(spatial);
    for (size_t i = 0; i < spatial; ++i) {
      window->dimensions[i].size = rhs.dims[dn->kernel_spatial_dimensions[i]];
    }
  }
  if (window->dimensions.size() != spatial) return CannotInfer();
  std::vector<int64_t> in = dn->input_spatial_dimensions;
  in.push_back(dn->input_batch_dimension);
  in.push_back(dn->input_feature_dimension);
  std::vector<int64_t> kernel = dn->kernel_spatial_dimensions;
  kernel.push_back(dn->kernel_input_feature_dimension);
  kernel.push_back(dn->kernel_output_feature_dimension);
  std::vector<int64_t> output = dn->output_spatial_dimensions;
  output.push_back(dn->output_batch_dimension);
  output.push_back(dn->output_feature_dimension);
  if (!IsPermutationOfRank(in, rank) || !IsPermutationOfRank(kernel, rank) ||
      !IsPermutationOfRank(output, rank)) {
    return CannotInfer();
  }
  const int64_t input_features = lhs.dims[dn->input_feature_dimension];
  const int64_t input_batch = lhs.dims[dn->input_batch_dimension];
  const int64_t kernel_input_features =
      rhs.dims[dn->kernel_input_feature_dimension];
  const int64_t kernel_output_features =
      rhs.dims[dn->kernel_output_feature_dimension];
  if (kernel_output_features % *bgc != 0 || input_batch % *bgc != 0 ||
      kernel_output_features % *fgc != 0) {
    return CannotInfer();
  }
  if (input_features % *fgc != 0 ||
      input_features / *fgc != kernel_input_features) {
    return Fail(absl::StrCat(
        "Expected LHS feature dimension (value ", input_features,
        ") to be a multiple of feature_group_count (value ", *fgc,
        "), and LHS feature dimension / feature_group_count = RHS feature "
        "dimension (value ",
        kernel_input_features, "); got <conv>(", ShapeString(lhs), ", ",
        ShapeString(rhs), ")"));
  }
  InferredShape out = Array(ResultType(ctx, lhs.element_type, rhs.element_type),
                            std::vector<int64_t>(rank, 0));
  out.dims[dn->output_batch_dimension] = input_batch / *bgc;
  out.dims[dn->output_feature_dimension] = kernel_output_features;
  for (size_t i = 0; i < spatial; ++i) {
    const WindowDimension& w = window->dimensions[i];
    if (w.size != rhs.dims[dn->kernel_spatial_dimensions[i]]) {
      return Fail(absl::StrCat("Window dimensions do not match RHS shape: ",
                               ShapeString(rhs)));
    }
    std::optional<int64_t> size =
        WindowOutput(lhs.dims[dn->input_spatial_dimensions[i]], w);
    if (!size) return CannotInfer();
    out.dims[dn->output_spatial_dimensions[i]] = *size;
  }
  return Ok(std::move(out));
}

Inference Fft(const OpContext& ctx) {
  if (ctx.operands.size() != 1 || !IsArray(ctx.operands[0])) {
    return CannotInfer();
  }
  absl::StatusOr<FftOptions> fft = DecodeFftOptions(ctx.RawAttrs());
  if (!fft.ok()) return CannotInfer();
  InferredShape out = ctx.operands[0];
  const size_t n = fft->length.size();
  if (n == 0 || n > out.dims.size()) return CannotInfer();
  const bool is64 = out.element_type == PrimitiveType::kF64 ||
                    out.element_type == PrimitiveType::kC128;
  switch (fft->type) {
    case FftType::kFft:
    case FftType::kIfft:
      break;
    case FftType::kRfft:
      out.element_type = is64 ? PrimitiveType::kC128 : PrimitiveType::kC64;
      out.dims.back() = fft->length.back() / 2 + 1;
      break;
    case FftType::kIrfft:
      out.element_type = is64 ? PrimitiveType::kF64 : PrimitiveType::kF32;
      out.dims.back() = fft->length.back();
      break;
  }
  return Ok(std::move(out));
}

Inference BatchNorm(const OpContext& ctx) {
  if (ctx.operands.empty() || !IsArray(ctx.operands[0])) return CannotInfer();
  const InferredShape& in = ctx.operands[0];
  std::string_view value = ctx.Attr("feature_index");
  if (value.empty()) return CannotInfer();
  absl::StatusOr<int64_t> index = DecodeInt(value);
  if (!index.ok() || *index < 0 ||
      *index >= static_cast<int64_t>(in.dims.size())) {
    return CannotInfer();
  }
  if (ctx.opcode() == Opcode::kBatchNormInference) return Ok(in);
  InferredShape feature = Array(in.element_type, {in.dims[*index]});
  return Ok(Tuple({in, feature, feature}));
}

Inference TopK(const OpContext& ctx) {
  if (ctx.operands.size() != 1 || !IsArray(ctx.operands[0]) ||
      ctx.operands[0].dims.empty()) {
    return CannotInfer();
  }
  std::string_view value = ctx.Attr("k");
  if (value.empty()) return CannotInfer();
  absl::StatusOr<int64_t> k = DecodeInt(value);
  if (!k.ok() || *k < 0 || *k > ctx.operands[0].dims.back()) {
    return CannotInfer();
  }
  InferredShape values = ctx.operands[0];
  values.dims.back() = *k;
  InferredShape indices = values;
  indices.element_type = PrimitiveType::kS32;
  return Ok(Tuple({values, indices}));
}

}  // namespace

std::optional<Inference> InferCompute(const OpContext& ctx) {
  switch (ctx.opcode()) {
    case Opcode::kReduce:
      return Reduce(ctx);
    case Opcode::kReduceWindow:
      return ReduceWindow(ctx);
    case Opcode::kDot:
      return Dot(ctx);
    case Opcode::kConvolution:
      return Convolution(ctx);
    case Opcode::kSelectAndScatter:
      if (ctx.operands.size() != 3) return CannotInfer();
      return Ok(ctx.operands[0]);
    case Opcode::kSort: {
      if (ctx.operands.empty()) return CannotInfer();
      return Ok(OneOrTuple(ctx.OperandVector()));
    }
    case Opcode::kFft:
      return Fft(ctx);
    case Opcode::kCholesky:
      if (ctx.operands.size() != 1) return CannotInfer();
      return Ok(ctx.operands[0]);
    case Opcode::kTriangularSolve:
      if (ctx.operands.size() != 2) return CannotInfer();
      return Ok(ctx.operands[1]);
    case Opcode::kBatchNormTraining:
    case Opcode::kBatchNormInference:
    case Opcode::kBatchNormGrad:
      return BatchNorm(ctx);
    case Opcode::kTopk:
      return TopK(ctx);
    default:
      return std::nullopt;
  }
}

}  // namespace hlo::shape_inference_internal
