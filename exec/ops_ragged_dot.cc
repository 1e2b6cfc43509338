// ragged-dot(lhs, rhs, group_sizes) with XLA's evaluator semantics
// (hlo_evaluator_typed_visitor.h, HandleRaggedDot*). The lhs ragged dim
// (lhs_ragged_dims={d}) is cut into consecutive groups of group_sizes rows;
// by where d is, three modes:
//   non-contracting: group i's rows multiply rhs's group i (rhs_group_dims
//     names that rhs dim); rows past the groups give zeros.
//     Result: [batch..., lhs free..., rhs free...].
//   contracting: each group contracts only its own range of d, one result
//     per group. Result: [group, batch..., lhs free..., rhs free...].
//   batch: an ordinary batched dot whose batches past the groups give zeros.
// group_sizes is [g] or has the batch dims (and, non-contracting, the lhs
// free dims before d) in front of g. Element by element in double: ragged
// dots are rare enough that clarity wins here.
#include <algorithm>

#include "exec/evaluator_internal.h"
#include "exec/strings.h"

namespace hlo::exec {
namespace {

bool Contains(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// Dims of a rank-`rank` operand that are in neither list, in order.
std::vector<int64_t> FreeDims(int rank, const std::vector<int64_t>& a,
                              const std::vector<int64_t>& b) {
  std::vector<int64_t> out;
  for (int64_t d = 0; d < rank; ++d)
    if (!Contains(a, d) && !Contains(b, d)) out.push_back(d);
  return out;
}

int64_t Offset(const std::vector<int64_t>& index,
               const std::vector<int64_t>& strides) {
  int64_t at = 0;
  for (size_t k = 0; k < index.size(); ++k) at += index[k] * strides[k];
  return at;
}

// Advances `index` over `dims` (row-major); false after the last.
bool Next(std::vector<int64_t>& index, const std::vector<int64_t>& dims) {
  for (int k = static_cast<int>(index.size()) - 1; k >= 0; --k) {
    if (++index[k] < dims[k]) return true;
    index[k] = 0;
  }
  return false;
}

struct RaggedDot {
  const Literal& lhs;
  const Literal& rhs;
  const Literal& sizes;
  std::vector<int64_t> lhs_batch, rhs_batch, lhs_contract, rhs_contract;
  int64_t ragged = 0;      // lhs dim
  int64_t rhs_group = -1;  // rhs dim (non-contracting mode)
  std::vector<int64_t> lhs_free, rhs_free;
  std::vector<int64_t> ls, rs, gs;  // strides
  int64_t groups = 0;

  // group_sizes[prefix..., g]; prefix entries past its rank are ignored.
  int64_t GroupSize(const std::vector<int64_t>& prefix, int64_t g) const {
    std::vector<int64_t> index(sizes.rank(), 0);
    for (size_t k = 0; k + 1 < index.size() && k < prefix.size(); ++k)
      index[k] = prefix[k];
    index.back() = g;
    return sizes.GetInt(Offset(index, gs));
  }

  // Sum over the contracting dims with lhs/rhs at `li`/`ri` elsewhere; the
  // contracting dim number `cut` (if >= 0) only over [begin, end).
  double Contract(std::vector<int64_t> li, std::vector<int64_t> ri, int cut,
                  int64_t begin, int64_t end) const {
    std::vector<int64_t> dims, at(lhs_contract.size(), 0);
    for (int64_t d : lhs_contract) dims.push_back(lhs.dims()[d]);
    if (cut >= 0) {
      dims[cut] = std::max<int64_t>(0, end - begin);
      if (dims[cut] == 0) return 0;
    }
    for (int64_t d : dims)
      if (d == 0) return 0;
    double sum = 0;
    do {
      for (size_t k = 0; k < at.size(); ++k) {
        int64_t v = at[k] + (static_cast<int>(k) == cut ? begin : 0);
        li[lhs_contract[k]] = v;
        ri[rhs_contract[k]] = v;
      }
      sum += lhs.GetDouble(Offset(li, ls)) * rhs.GetDouble(Offset(ri, rs));
    } while (Next(at, dims));
    return sum;
  }
};

}  // namespace

absl::StatusOr<Literal> EvalRaggedDot(const Node& node, const Literal& lhs,
                                      const Literal& rhs,
                                      const Literal& group_sizes) {
  const auto& a = node.attrs;
  if (!a.dot_dimension_numbers || !a.lhs_ragged_dims ||
      a.lhs_ragged_dims->size() != 1)
    return Bad("ragged-dot needs one lhs_ragged_dims and dot dimensions");
  if (lhs.is_tuple() || rhs.is_tuple() || group_sizes.is_tuple() ||
      group_sizes.rank() < 1)
    return Bad("ragged-dot needs array operands and group sizes");
  const DotDimensionNumbers& dn = *a.dot_dimension_numbers;
  RaggedDot r{lhs, rhs, group_sizes};
  r.lhs_batch = dn.lhs_batch_dimensions;
  r.rhs_batch = dn.rhs_batch_dimensions;
  r.lhs_contract = dn.lhs_contracting_dimensions;
  r.rhs_contract = dn.rhs_contracting_dimensions;
  r.ragged = (*a.lhs_ragged_dims)[0];
  if (r.lhs_batch.size() != r.rhs_batch.size() ||
      r.lhs_contract.size() != r.rhs_contract.size() || r.ragged < 0 ||
      r.ragged >= lhs.rank())
    return Bad("bad ragged-dot dimension numbers");
  const bool contracting = Contains(r.lhs_contract, r.ragged);
  const bool batch = Contains(r.lhs_batch, r.ragged);
  std::vector<int64_t> rhs_skip = r.rhs_contract;
  if (!contracting && !batch) {
    if (!a.rhs_group_dims || a.rhs_group_dims->size() != 1)
      return Bad("ragged-dot needs one rhs_group_dims here");
    r.rhs_group = (*a.rhs_group_dims)[0];
    if (r.rhs_group < 0 || r.rhs_group >= rhs.rank())
      return Bad("bad rhs_group_dims");
    rhs_skip.push_back(r.rhs_group);
  }
  r.lhs_free = FreeDims(lhs.rank(), r.lhs_contract, r.lhs_batch);
  r.rhs_free = FreeDims(rhs.rank(), rhs_skip, r.rhs_batch);
  r.ls = RowMajorStrides(lhs.dims());
  r.rs = RowMajorStrides(rhs.dims());
  r.gs = RowMajorStrides(group_sizes.dims());
  r.groups = group_sizes.dims().back();
  for (size_t k = 0; k < r.lhs_contract.size(); ++k)
    if (lhs.dims()[r.lhs_contract[k]] != rhs.dims()[r.rhs_contract[k]])
      return Bad("ragged-dot contracting dims differ");

  std::vector<int64_t> dims;
  if (contracting) dims.push_back(r.groups);
  for (int64_t d : r.lhs_batch) dims.push_back(lhs.dims()[d]);
  for (int64_t d : r.lhs_free) dims.push_back(lhs.dims()[d]);
  for (int64_t d : r.rhs_free) dims.push_back(rhs.dims()[d]);
  if (dims != node.shape.dims)
    return Bad(Cat("ragged-dot computes ",
                   ShapeString(LiteralShape::Array(node.shape.type, dims)),
                   " where the instruction declares ",
                   ShapeString(node.shape)));
  auto out = Literal::CreateArray(node.shape.type, dims);
  if (!out.ok() || out->count() == 0) return out;
  const int cut =
      contracting ? static_cast<int>(std::find(r.lhs_contract.begin(),
                                               r.lhs_contract.end(), r.ragged) -
                                     r.lhs_contract.begin())
                  : -1;
  std::vector<int64_t> at(dims.size(), 0);
  int64_t n = 0;
  do {
    std::vector<int64_t> li(lhs.rank(), 0), ri(rhs.rank(), 0), prefix;
    size_t k = contracting ? 1 : 0;
    for (size_t b = 0; b < r.lhs_batch.size(); ++b, ++k) {
      li[r.lhs_batch[b]] = ri[r.rhs_batch[b]] = at[k];
      prefix.push_back(at[k]);
    }
    for (int64_t d : r.lhs_free) {
      li[d] = at[k++];
      if (!contracting && !batch && d != r.ragged) prefix.push_back(li[d]);
    }
    for (int64_t d : r.rhs_free) ri[d] = at[k++];
    double value = 0;
    if (contracting) {
      int64_t begin = 0, end = 0;
      for (int64_t g = 0; g <= at[0]; ++g) {
        begin = end;
        end += r.GroupSize(prefix, g);
      }
      const int64_t size = lhs.dims()[r.ragged];
      begin = std::clamp<int64_t>(begin, 0, size);
      end = std::clamp<int64_t>(end, 0, size);
      value = r.Contract(li, ri, cut, begin, end);
    } else if (batch) {
      // The batch dim number rank(group_sizes)-1 is the ragged one.
      int64_t total = 0;
      prefix.resize(std::min<size_t>(prefix.size(), group_sizes.rank() - 1));
      for (int64_t g = 0; g < r.groups; ++g) total += r.GroupSize(prefix, g);
      size_t which =
          std::min<size_t>(group_sizes.rank() - 1, r.lhs_batch.size() - 1);
      if (li[r.lhs_batch[which]] < total) value = r.Contract(li, ri, -1, 0, 0);
    } else {
      int64_t end = 0, g = 0;
      for (; g < r.groups; ++g) {
        end += r.GroupSize(prefix, g);
        if (li[r.ragged] < end) break;
      }
      if (g < r.groups) {
        ri[r.rhs_group] = g;
        value = r.Contract(li, ri, -1, 0, 0);
      }
    }
    out->SetDouble(n++, value);
  } while (Next(at, dims));
  return out;
}

}  // namespace hlo::exec
