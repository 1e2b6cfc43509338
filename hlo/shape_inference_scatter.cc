// XLA's InferScatterShape checks on the operands and the dimension numbers
// (ValidateScatterDimensionNumbers included), with its messages. The
// to_apply reducer's signature is the called-computation checks' business.
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "base/strings.h"
#include "hlo/attributes.h"
#include "hlo/shape_inference_internal.h"

namespace hlo::shape_inference_internal {
namespace {

bool Compatible(int64_t a, int64_t b) {
  return a == kUnboundedDim || b == kUnboundedDim || a == b;
}

std::string Join(const std::vector<int64_t>& v) {
  return absl::StrJoin(v, ", ");
}

bool Repeats(std::vector<int64_t> v, bool sort) {
  if (sort) std::sort(v.begin(), v.end());
  return std::adjacent_find(v.begin(), v.end()) != v.end();
}

// A sorted, unique list of dims within [0, rank); its error or "".
std::string CheckDimList(const std::vector<int64_t>& dims,
                         std::string_view name, int64_t rank,
                         std::string_view range_text) {
  if (!std::is_sorted(dims.begin(), dims.end())) {
    return base::Cat(name, " in scatter op must be sorted; got: ", Join(dims),
                     ".");
  }
  if (Repeats(dims, false)) {
    return base::Cat(name, " in scatter op must not repeat; got: ", Join(dims),
                     ".");
  }
  for (int64_t d : dims) {
    if (d < 0 || d >= rank) {
      return base::Cat("Invalid ", name,
                       " set in scatter op; valid range is "
                       "[0, ",
                       rank, range_text, d, ".");
    }
  }
  return "";
}

std::string ValidateNumbers(const InferredShape& operand,
                            const std::vector<int64_t>& indices,
                            const InferredShape& updates,
                            const ScatterDimensionNumbers& dn) {
  const int64_t rank = static_cast<int64_t>(operand.dims.size());
  std::string e = CheckDimList(dn.update_window_dims, "update_window_dims",
                               updates.dims.size(), "). got: ");
  if (e.empty()) {
    e = CheckDimList(dn.inserted_window_dims, "inserted_window_dims", rank,
                     "), got: ");
  }
  if (!e.empty()) return e;
  const size_t window = dn.update_window_dims.size() +
                        dn.inserted_window_dims.size() +
                        dn.input_batching_dims.size();
  if (static_cast<int64_t>(window) != rank) {
    return base::Cat("Scatter op has window of size ", window,
                     "; doesn't match operand of rank ", rank, ".");
  }
  const int64_t ivd = dn.index_vector_dim;
  if (!Compatible(dn.scatter_dims_to_operand_dims.size(), indices[ivd])) {
    return base::Cat("Scatter op has ", dn.scatter_dims_to_operand_dims.size(),
                     " elements in scatter_dims_to_operand_dims and the bound "
                     "of dimension index_vector_dim=",
                     ivd, " of scatter_indices is ", indices[ivd],
                     ". These two numbers must be equal.");
  }
  for (size_t i = 0; i < dn.scatter_dims_to_operand_dims.size(); ++i) {
    const int64_t d = dn.scatter_dims_to_operand_dims[i];
    if (d < 0 || d >= rank) {
      return base::Cat(
          "Invalid scatter_dims_to_operand_dims mapping; domain "
          "is [0, ",
          rank, "), got: ", i, "->", d, ".");
    }
  }
  if (Repeats(dn.scatter_dims_to_operand_dims, true)) {
    return base::Cat(
        "Repeated dimensions not allowed in "
        "scatter_dims_to_operand_dims; got: ",
        Join(dn.scatter_dims_to_operand_dims), ".");
  }
  if (dn.input_batching_dims.size() !=
      dn.scatter_indices_batching_dims.size()) {
    return base::Cat(
        "input_batching_dims and scatter_indices_batching_dims in "
        "scatter op must be of the same size; got: ",
        dn.input_batching_dims.size(), " and ",
        dn.scatter_indices_batching_dims.size(), ".");
  }
  e = CheckDimList(dn.input_batching_dims, "input_batching_dims", rank,
                   "), got: ");
  if (!e.empty()) return e;
  for (int64_t d : dn.scatter_indices_batching_dims) {
    if (d < 0 || d >= static_cast<int64_t>(indices.size())) {
      return base::Cat(
          "Invalid scatter_indices_batching_dims set in scatter "
          "op; valid range is [0, ",
          indices.size(), "), got: ", d, ".");
    }
  }
  if (Repeats(dn.scatter_indices_batching_dims, true)) {
    return base::Cat(
        "scatter_indices_batching_dims in scatter op must not "
        "repeat; got: ",
        Join(dn.scatter_indices_batching_dims), ".");
  }
  return "";
}

bool Has(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// The operand's dims that are neither inserted nor batching, in order.
std::vector<int64_t> MaxUpdateSliceSizes(const InferredShape& operand,
                                         const ScatterDimensionNumbers& dn) {
  std::vector<int64_t> out;
  size_t inserted = 0, batching = 0;
  for (size_t i = 0; i < operand.dims.size(); ++i) {
    const int64_t d = static_cast<int64_t>(i);
    if (inserted < dn.inserted_window_dims.size() &&
        dn.inserted_window_dims[inserted] == d) {
      ++inserted;
    } else if (batching < dn.input_batching_dims.size() &&
               dn.input_batching_dims[batching] == d) {
      ++batching;
    } else {
      out.push_back(operand.dims[i]);
    }
  }
  return out;
}

}  // namespace

std::string ScatterError(const OpContext& ctx) {
  const size_t n = ctx.operands.size();
  if (n < 3 || (n - 1) % 2 != 0) return "";
  const size_t count = (n - 1) / 2;
  const InferredShape& indices_shape = ctx.operands[count];
  absl::StatusOr<ScatterDimensionNumbers> dn =
      DecodeScatterDimensionNumbers(ctx.RawAttrs());
  if (!dn.ok() || !IsArray(indices_shape)) return "";
  const PrimitiveType t = indices_shape.element_type;
  if (!IsSignedInteger(t) && !IsUnsignedInteger(t)) {
    return base::Cat(
        "Scatter indices parameter must be an integral tensor; "
        "got ",
        ShapeString(indices_shape), ".");
  }
  const int64_t ivd = dn->index_vector_dim;
  std::vector<int64_t> indices = indices_shape.dims;
  if (static_cast<int64_t>(indices.size()) < ivd || ivd < 0) {
    return base::Cat(
        "Scatter index leaf dimension must be within [0, "
        "rank(scatter_indices) + 1). rank(scatter_indices) is ",
        indices.size(), " and scatter index leaf dimension is ", ivd, ".");
  }
  if (static_cast<int64_t>(indices.size()) == ivd) indices.push_back(1);
  for (size_t i = 0; i < count; ++i) {
    const InferredShape& operand = ctx.operands[i];
    const InferredShape& updates = ctx.operands[count + 1 + i];
    if (!IsArray(operand) || !IsArray(updates)) return "";
    const size_t want_rank = indices.size() - 1 + dn->update_window_dims.size();
    if (updates.dims.size() != want_rank) {
      return base::Cat("Updates tensor must be of rank ", want_rank, "; got ",
                       updates.dims.size(), ".");
    }
    std::string e = ValidateNumbers(operand, indices, updates, *dn);
    if (!e.empty()) return e;
    const std::vector<int64_t> max = MaxUpdateSliceSizes(operand, *dn);
    for (size_t w = 0; w < dn->update_window_dims.size() && w < max.size();
         ++w) {
      const int64_t d = dn->update_window_dims[w];
      if (updates.dims[d] != kUnboundedDim && max[w] != kUnboundedDim &&
          updates.dims[d] > max[w]) {
        return base::Cat(
            "Bounds of the window dimensions of updates must not "
            "exceed the bounds of the corresponding dimensions of "
            "operand. For dimension ",
            d, ", updates bound is ", updates.dims[d], ", operand bound is ",
            max[w], ".");
      }
    }
    int64_t seen = 0;
    for (size_t d = 0; d < updates.dims.size(); ++d) {
      if (Has(dn->update_window_dims, static_cast<int64_t>(d))) continue;
      if (seen == ivd) ++seen;
      if (seen >= static_cast<int64_t>(indices.size())) return "";
      if (!Compatible(updates.dims[d], indices[seen])) {
        return base::Cat(
            "Bounds of the scatter dimensions of updates must be "
            "same as the bounds of the corresponding dimensions "
            "of scatter indices. For scatter dimension ",
            d, ", updates bound is ", updates.dims[d],
            ", scatter_indices bound is ", indices[seen], ".");
      }
      ++seen;
    }
  }
  return "";
}

}  // namespace hlo::shape_inference_internal
