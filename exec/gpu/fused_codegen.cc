// The elemental walk of a fused computation (fused_codegen.h): each node's
// element is emitted at a multi-index of that node, starting from the root
// at the unravelled output index; data movement maps the index to its
// operand's (no code of its own), elementwise ops read every operand at the
// same index. Values and index expressions are shared through a memo keyed
// by (node, index), scoped to the branch that defined them; nodes of one
// element are computed once, before the loop.
#include "exec/gpu/fused_codegen.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <optional>

#include "exec/gpu/fused_codegen_internal.h"
#include "exec/gpu/fused_prelude.h"
#include "exec/strings.h"

namespace hlo::exec::gpu::fused {

using O = Opcode;

absl::StatusOr<Generator::Kernel> Generator::Run() {
  const Node& root = plan_.nodes[plan_.root];
  // A multi-output fusion: a tuple of arrays of one size, none a tuple.
  std::vector<int> results = {plan_.root};
  if (root.shape.is_tuple()) {
    if (root.op != O::kTuple || root.operands.empty())
      return Decline(root, "a tuple root that is not a tuple instruction");
    results = root.operands;
  }
  std::string params, stores;
  for (size_t k = 0; k < plan_.parameters.size(); ++k) {
    const Node& p = plan_.nodes[plan_.parameters[k]];
    std::optional<Ty> t = TypeOf(p.shape.type);
    if (p.shape.is_tuple()) return Decline(p, "a tuple parameter");
    if (!t) return Decline(p, Cat(PrimitiveTypeName(p.shape.type), " values"));
    params += Cat("const ", t->s, "* __restrict__ p", k, ", ");
  }
  const int64_t n = Count(plan_.nodes[results[0]].shape.dims);
  const bool narrow = !wide_index_ && Narrow();
  if (narrow) {
    index_type_ = "s32";
    body_ += "    const s32 i32 = (s32)i;\n";
  }
  for (size_t k = 0; k < results.size(); ++k) {
    const Node& r = plan_.nodes[results[k]];
    if (r.shape.is_tuple()) return Decline(r, "a nested tuple");
    std::optional<Ty> t = TypeOf(r.shape.type);
    if (!t) return Decline(r, Cat(PrimitiveTypeName(r.shape.type), " values"));
    if (n < 0) return Decline(root, "the root's size overflows");
    if (Count(r.shape.dims) != n)
      return Decline(root, "results of different sizes");
    params += Cat(k ? ", " : "", t->s, "* __restrict__ out", k);
    if (n == 0) continue;
    absl::StatusOr<Val> v =
        At(results[k], Relinearize({narrow ? "i32" : "i"}, {n}, r.shape.dims));
    if (!v.ok()) return v.status();
    stores += Cat("    out", k, "[i] = ", v->var, ";\n");
  }
  Kernel out;
  out.elements = n;
  out.parameters = static_cast<int>(plan_.parameters.size());
  out.results = static_cast<int>(results.size());
  out.text = Cat("\nextern \"C\" __global__ void ", name_, "(long long n, ",
                 params, ") {\n", pre_,
                 "  for (long long i = (long long)blockIdx.x * blockDim.x + "
                 "threadIdx.x; i < n;\n       i += (long long)blockDim.x * "
                 "gridDim.x) {\n",
                 body_, stores, "  }\n}\n");
  return out;
}

// Whether every index value the walk computes fits in 32 bits: positions
// in each node and padding offsets below 2^30 (their sums below 2^31).
bool Generator::Narrow() const {
  constexpr int64_t kLimit = int64_t{1} << 30;
  for (const Node& node : plan_.nodes) {
    if (node.shape.is_tuple()) continue;
    std::optional<int64_t> count = CheckedElementCount(node.shape.dims);
    if (!count || *count >= kLimit) return false;
    if (node.op == O::kPad && node.attrs.padding) {
      for (const PaddingDimension& pd : node.attrs.padding->dimensions)
        if (std::abs(pd.edge_padding_low) >= kLimit ||
            std::abs(pd.edge_padding_high) >= kLimit ||
            std::abs(pd.interior_padding) >= kLimit)
          return false;
    }
  }
  return true;
}

// Node i's element at `index`: the memo's, or computed (nodes of one
// element before the loop).
absl::StatusOr<Val> Generator::At(int i, Index index) {
  const Node& node = plan_.nodes[i];
  const Dims& dims = node.shape.dims;
  if (node.shape.is_tuple()) return Decline(node, "a tuple value");
  if (index.size() != dims.size())
    return Decline(node, "an index of another rank");
  for (size_t d = 0; d < dims.size(); ++d)
    if (dims[d] == 1) index[d] = "0";
  std::string key = Cat(i);
  for (const std::string& x : index) key += Cat(",", x);
  if (std::optional<Val> v = Find(key)) return *v;
  if (nesting_ >= kMaxNesting)
    return Decline(node, Cat("more than ", kMaxNesting, " nested nodes"));
  // A node of one element is computed once, before the loop (unless a
  // branch there is open: then in it).
  const bool hoist = !in_pre_ && Count(dims) == 1;
  auto compute = [&]() -> absl::StatusOr<Val> {
    ++nesting_;
    absl::StatusOr<Val> v = Compute(i, index);
    --nesting_;
    if (v.ok() && values_ <= kMaxValues) Remember(key, *v);
    return v;
  };
  absl::StatusOr<Val> v = hoist ? BeforeTheLoop(compute) : compute();
  if (!v.ok()) return v;
  if (values_ > kMaxValues)
    return Decline(plan_.nodes[plan_.root],
                   Cat("more than ", kMaxValues, " values to compute"));
  return v;
}

absl::StatusOr<Val> Generator::Compute(int i, const Index& index) {
  const Node& node = plan_.nodes[i];
  const Dims& dims = node.shape.dims;
  const std::optional<Ty> t = TypeOf(node.shape.type);
  if (!t)
    return Decline(node, Cat(PrimitiveTypeName(node.shape.type), " values"));
  const int64_t count = Count(dims);
  if (count < 0) return Decline(node, "a size that overflows");
  if (count == 0)  // never read: a placeholder
    return Val{Cat("(", t->s, ")0"), node.shape.type, *t};
  const std::vector<int>& in = node.operands;
  const bool moves = node.op == O::kBroadcast || node.op == O::kTranspose ||
                     node.op == O::kReshape || node.op == O::kBitcast ||
                     node.op == O::kCopy || node.op == O::kSlice ||
                     node.op == O::kReverse;
  if (moves || node.op == O::kConcatenate || node.op == O::kPad ||
      node.op == O::kDynamicSlice || node.op == O::kDynamicUpdateSlice) {
    if (in.empty()) return Decline(node, "no operand");
    for (size_t k = 0; k < in.size(); ++k) {
      const bool is_start = (node.op == O::kDynamicSlice && k >= 1) ||
                            (node.op == O::kDynamicUpdateSlice && k >= 2);
      if (!is_start && plan_.nodes[in[k]].shape.type != node.shape.type)
        return Decline(node, "an operand of another type");
    }
  }
  const Dims& od = in.empty() ? dims : plan_.nodes[in[0]].shape.dims;
  Index at(od.size(), "0");  // the operand's index, for `moves`
  switch (node.op) {
    case O::kParameter: {
      const int64_t k = node.attrs.parameter_number.value_or(-1);
      if (k < 0 || k >= static_cast<int64_t>(plan_.parameters.size()))
        return Decline(node, "a parameter number out of range");
      return Define(node, *t, Cat("p", k, "[", Linear(index, dims), "]"));
    }
    case O::kConstant: {
      absl::StatusOr<std::string> e = fused::ConstantExpr(node);
      if (!e.ok()) return e.status();
      return Define(node, *t, *e);
    }
    case O::kIota: {
      const int64_t d = node.attrs.iota_dimension.value_or(-1);
      if (d < 0 || d >= static_cast<int64_t>(dims.size()))
        return Decline(node, "iota_dimension out of range");
      return Define(node, *t, fused::IotaExpr(*t, index[d]));
    }
    case O::kBroadcast: {
      const Dims map = node.attrs.dimensions.value_or(Dims{});
      if (map.size() != od.size())
        return Decline(node, "dimensions= do not match the operand");
      std::vector<bool> seen(dims.size(), false);
      for (size_t k = 0; k < od.size(); ++k) {
        if (map[k] < 0 || map[k] >= static_cast<int64_t>(dims.size()) ||
            seen[map[k]] || od[k] != dims[map[k]])
          return Decline(node, "dimensions= do not match the operand");
        seen[map[k]] = true;
        at[k] = index[map[k]];
      }
      break;
    }
    case O::kTranspose: {
      const Dims perm = node.attrs.dimensions.value_or(Dims{});
      if (!IsPermutation(perm, od.size()) || dims.size() != od.size())
        return Decline(node, "not a permutation");
      for (size_t k = 0; k < perm.size(); ++k) {
        if (od[perm[k]] != dims[k]) return Decline(node, "dims do not match");
        at[perm[k]] = index[k];
      }
      break;
    }
    case O::kReshape:
      if (Count(od) != count) return Decline(node, "another element count");
      at = Relinearize(index, dims, od);
      break;
    case O::kBitcast: {
      // Through the physical (major-to-minor) orders, as the CPU does: the
      // result's logical index to its physical one, reshaped to the
      // operand's physical dims, back to the operand's logical order.
      if (Count(od) != count) return Decline(node, "another element count");
      auto physical = [](const Dims& m2m, size_t rank) {
        Dims perm(rank);
        for (size_t k = 0; k < rank; ++k) perm[k] = static_cast<int64_t>(k);
        if (m2m.size() == rank) perm.assign(m2m.rbegin(), m2m.rend());
        return perm;
      };
      const Dims po = physical(node.minor_to_major, dims.size());
      const Dims pi = physical(
          node.operand_layouts.empty() ? Dims{} : node.operand_layouts[0],
          od.size());
      if (!IsPermutation(po, dims.size()) || !IsPermutation(pi, od.size()))
        return Decline(node, "a layout that is not a permutation");
      Index phys(dims.size());
      Dims phys_dims(dims.size()), in_phys_dims(od.size());
      for (size_t k = 0; k < po.size(); ++k) {
        phys[k] = index[po[k]];
        phys_dims[k] = dims[po[k]];
      }
      for (size_t k = 0; k < pi.size(); ++k) in_phys_dims[k] = od[pi[k]];
      const Index in_phys = Relinearize(phys, phys_dims, in_phys_dims);
      for (size_t k = 0; k < pi.size(); ++k) at[pi[k]] = in_phys[k];
      break;
    }
    case O::kCopy:
      if (od != dims) return Decline(node, "dims do not match");
      at = index;
      break;
    case O::kSlice: {
      if (!node.attrs.slice) return Decline(node, "no slice=");
      const SliceSpec& s = *node.attrs.slice;
      if (s.starts.size() != od.size() || s.limits.size() != od.size() ||
          dims.size() != od.size())
        return Decline(node, "slice= of another rank");
      for (size_t d = 0; d < od.size(); ++d) {
        const int64_t stride = d < s.strides.size() ? s.strides[d] : 1;
        if (s.starts[d] < 0 || s.limits[d] > od[d] || stride <= 0)
          return Decline(node, "a slice out of bounds");
        const int64_t size =
            s.limits[d] > s.starts[d]
                ? (s.limits[d] - s.starts[d] + stride - 1) / stride
                : 0;
        if (size != dims[d]) return Decline(node, "slice= of another size");
        at[d] = Idx(Affine(index[d], stride, s.starts[d]));
      }
      break;
    }
    case O::kReverse: {
      if (od != dims) return Decline(node, "dims do not match");
      std::vector<bool> flip(od.size(), false);
      for (int64_t d : node.attrs.dimensions.value_or(Dims{})) {
        if (d < 0 || d >= static_cast<int64_t>(od.size()))
          return Decline(node, "dimensions= out of range");
        flip[d] = !flip[d];  // as the CPU's strides: twice is none
      }
      for (size_t d = 0; d < od.size(); ++d)
        at[d] = flip[d] ? Idx(Affine(index[d], -1, od[d] - 1)) : index[d];
      break;
    }
    case O::kConcatenate:
      return Concatenate(node, *t, index);
    case O::kPad:
      return Pad(node, *t, index);
    case O::kDynamicSlice:
      return DynamicSlice(node, index, /*update=*/false);
    case O::kDynamicUpdateSlice:
      return DynamicSlice(node, index, /*update=*/true);
    default:
      return Elementwise(node, *t, index);
  }
  return At(in[0], std::move(at));
}

// Operands of the node's dims are read at its index, operands of one
// element at theirs.
absl::StatusOr<Val> Generator::Elementwise(const Node& node, const Ty& t,
                                           const Index& index) {
  if (!IsElementwise(node.op) && node.op != O::kConvert)
    return Decline(node, "not elementwise");
  std::vector<Val> in;
  for (int o : node.operands) {
    const Dims& od = plan_.nodes[o].shape.dims;
    if (od != node.shape.dims && Count(od) != 1)
      return Decline(node,
                     Cat("an operand of ", ShapeString(plan_.nodes[o].shape)));
    absl::StatusOr<Val> v =
        At(o, od == node.shape.dims ? index : Index(od.size(), "0"));
    if (!v.ok()) return v;
    in.push_back(*std::move(v));
  }
  absl::StatusOr<std::string> e = fused::ElementwiseExpr(node, in);
  if (!e.ok()) return e.status();
  return Define(node, t, *e);
}

}  // namespace hlo::exec::gpu::fused

namespace hlo::exec::gpu {

absl::StatusOr<FusedKernelSource> GenerateFusedKernel(const Plan& plan,
                                                      std::string_view name,
                                                      bool wide_index) {
  if (plan.root < 0 || plan.root >= static_cast<int>(plan.nodes.size()))
    return absl::InvalidArgumentError("a fused computation without a root");
  auto k = fused::Generator(plan, name, wide_index).Run();
  if (!k.ok()) return k.status();
  FusedKernelSource out;
  out.kernel = std::move(k->text);
  out.source = kFusedPrelude + out.kernel;
  out.elements = k->elements;
  out.parameters = k->parameters;
  out.results = k->results;
  return out;
}

}  // namespace hlo::exec::gpu
