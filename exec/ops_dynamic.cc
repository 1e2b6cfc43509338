// Dynamic dimensions, with XLA's evaluator semantics: set-dimension-size
// records a dimension's logical size on the literal (the data keeps the
// bound shape, like XLA's Literal::SetDynamicSize), get-dimension-size
// answers that size, dynamic-reshape reshapes the logical elements, ops
// declared with a dynamic dimension pass an operand's size on (what XLA's
// DynamicDimensionInference gives the evaluator), and the entry's result is
// cut to its logical shape (XLA compares literals by their dynamic shape).
#include <cstring>

#include "exec/evaluator_internal.h"
#include "exec/strings.h"

namespace hlo::exec {
namespace {

using O = Opcode;

// The logical size of every dim of `lit` (its dims when none is dynamic).
std::vector<int64_t> Sizes(const Literal& lit) {
  return lit.dynamic_sizes().empty() ? lit.dims() : lit.dynamic_sizes();
}

// Copies the block [0, extent) of every dim from `src` to `dst` (same rank,
// each addressed with the row-major strides of its own dims).
void CopyCorner(const Literal& src, Literal* dst,
                const std::vector<int64_t>& extent) {
  int64_t count = 1;
  for (int64_t e : extent) count *= e;
  if (count == 0) return;
  const std::vector<int64_t> s = RowMajorStrides(src.dims());
  const std::vector<int64_t> d = RowMajorStrides(dst->dims());
  const int bytes = src.element_bytes();
  std::vector<int64_t> index(extent.size(), 0);
  for (int64_t n = 0; n < count; ++n) {
    int64_t from = 0, to = 0;
    for (size_t k = 0; k < index.size(); ++k) {
      from += index[k] * s[k];
      to += index[k] * d[k];
    }
    std::memcpy(dst->raw() + to * bytes, src.raw() + from * bytes, bytes);
    for (int k = static_cast<int>(index.size()) - 1; k >= 0; --k) {
      if (++index[k] < extent[k]) break;
      index[k] = 0;
    }
  }
}

// `lit` cut to its logical shape (a copy without dynamic sizes).
absl::StatusOr<Literal> Logical(const Literal& lit) {
  if (lit.dynamic_sizes().empty()) return lit.Clone();
  auto out = Literal::CreateArray(lit.type(), lit.dynamic_sizes());
  if (!out.ok()) return out;
  CopyCorner(lit, &*out, lit.dynamic_sizes());
  return out;
}

// The scalar size operand `in[i]`, checked against the bound.
absl::StatusOr<int64_t> SizeOperand(Operands in, size_t i, int64_t bound) {
  if (in.size() <= i || in[i]->is_tuple() || in[i]->count() != 1)
    return Bad(Cat("operand ", i, " must be a scalar size"));
  int64_t size = in[i]->GetInt(0);
  if (size < 0 || size > bound)
    return Bad(Cat("size ", size, " is outside [0, ", bound, "]"));
  return size;
}

absl::StatusOr<Literal> SetDimensionSize(const Node& node, Operands in) {
  int64_t d = node.attrs.dimensions && !node.attrs.dimensions->empty()
                  ? (*node.attrs.dimensions)[0]
                  : -1;
  if (d < 0 || d >= in[0]->rank()) return Bad("dimension out of range");
  auto size = SizeOperand(in, 1, in[0]->dims()[d]);
  if (!size.ok()) return size.status();
  auto out = in[0]->Clone();
  if (!out.ok()) return out;
  std::vector<int64_t> sizes = Sizes(*out);
  sizes[d] = *size;
  out->set_dynamic_sizes(std::move(sizes));
  return out;
}

absl::StatusOr<Literal> GetDimensionSize(const Node& node, Operands in) {
  int64_t d = node.attrs.dimensions && !node.attrs.dimensions->empty()
                  ? (*node.attrs.dimensions)[0]
                  : 0;
  if (d < 0 || d >= in[0]->rank()) return Bad("dimension out of range");
  return Literal::ScalarFromInt(node.shape.type, Sizes(*in[0])[d]);
}

// The operand's logical elements in the shape given by the size operands,
// stored in the declared (bound) shape.
absl::StatusOr<Literal> DynamicReshape(const Node& node, Operands in) {
  const std::vector<int64_t>& bound = node.shape.dims;
  if (in.size() != bound.size() + 1)
    return Bad(Cat("dynamic-reshape needs ", bound.size(), " size operands"));
  std::vector<int64_t> sizes;
  int64_t count = 1;
  for (size_t k = 0; k < bound.size(); ++k) {
    auto size = SizeOperand(in, k + 1, bound[k]);
    if (!size.ok()) return size.status();
    sizes.push_back(*size);
    count *= *size;
  }
  auto logical = Logical(*in[0]);
  if (!logical.ok()) return logical;
  // XLA takes the first `count` logical elements (dynamic_reshape_test's
  // SingleDynamicDimension: 9 of a [2,<=3 (2),3]'s 12).
  if (logical->count() < count)
    return Bad(
        Cat("dynamic-reshape of ", logical->count(), " elements to ", count));
  auto flat = Literal::CreateArray(in[0]->type(), sizes);
  if (!flat.ok()) return flat;
  if (count > 0)
    std::memcpy(flat->raw(), logical->raw(), count * logical->element_bytes());
  auto out = Literal::CreateArray(in[0]->type(), bound);
  if (!out.ok()) return out;
  CopyCorner(*flat, &*out, sizes);
  if (sizes != bound) out->set_dynamic_sizes(std::move(sizes));
  return out;
}

}  // namespace

bool IsDynamicOp(Opcode op) {
  return op == O::kSetDimensionSize || op == O::kGetDimensionSize ||
         op == O::kDynamicReshape;
}

absl::StatusOr<Literal> EvalDynamicOp(const Node& node, Operands in) {
  if (in.empty() || in[0]->is_tuple())
    return Bad(Cat(OpcodeName(node.op), " needs an array operand"));
  switch (node.op) {
    case O::kSetDimensionSize:
      return SetDimensionSize(node, in);
    case O::kGetDimensionSize:
      return GetDimensionSize(node, in);
    case O::kDynamicReshape:
      return DynamicReshape(node, in);
    default:
      return absl::UnimplementedError(
          Cat("not a dynamic op: ", OpcodeName(node.op)));
  }
}

absl::StatusOr<Value> InheritDynamicSizes(const Node& node, Operands in,
                                          Value result) {
  if (result->is_tuple() || !result->dynamic_sizes().empty() ||
      node.dynamic_dims.size() != result->dims().size())
    return result;
  std::vector<int64_t> sizes = result->dims();
  bool any = false;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (!node.dynamic_dims[d]) continue;
    for (const Value& v : in) {
      if (v->is_tuple() || v->dims() != result->dims() ||
          v->dynamic_sizes().empty() || v->dynamic_sizes()[d] == sizes[d])
        continue;
      sizes[d] = v->dynamic_sizes()[d];
      any = true;
      break;
    }
  }
  if (!any) return result;
  auto copy = result->Clone();
  if (!copy.ok()) return copy.status();
  copy->set_dynamic_sizes(std::move(sizes));
  return std::make_shared<const Literal>(*std::move(copy));
}

absl::StatusOr<Value> LogicalResult(Value result) {
  if (result->is_tuple()) {
    std::vector<Value> elements;
    bool changed = false;
    for (const Value& e : result->elements()) {
      auto l = LogicalResult(e);
      if (!l.ok()) return l;
      changed |= *l != e;
      elements.push_back(*std::move(l));
    }
    if (!changed) return result;
    return std::make_shared<const Literal>(
        Literal::MakeTuple(std::move(elements)));
  }
  if (result->dynamic_sizes().empty()) return result;
  auto l = Logical(*result);
  if (!l.ok()) return l.status();
  return std::make_shared<const Literal>(*std::move(l));
}

}  // namespace hlo::exec
