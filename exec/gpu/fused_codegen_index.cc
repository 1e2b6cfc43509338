// The fused-kernel generator's index arithmetic (common-factor
// relinearization for reshapes and bitcasts, shared s64 atoms) and the ops
// whose element comes from a branch: concatenate, pad, dynamic-slice (and
// its clamped starts) and dynamic-update-slice.
#include <algorithm>
#include <cctype>

#include "exec/gpu/fused_codegen_internal.h"
#include "exec/strings.h"

namespace hlo::exec::gpu::fused {

std::optional<int64_t> IntOf(const std::string& a) {
  if (a.empty() || !(a[0] == '-' || (a[0] >= '0' && a[0] <= '9')))
    return std::nullopt;
  return std::stoll(a);
}

// a * k + c, folded where a is a literal.
std::string Affine(const std::string& a, int64_t k, int64_t c) {
  if (std::optional<int64_t> v = IntOf(a)) return Cat(*v * k + c);
  std::string e = k == 1 ? a : Cat(a, " * ", k);
  if (c > 0) e += Cat(" + ", c);
  if (c < 0) e += Cat(" - ", -c);
  return e;
}

// a + sign * b for atoms a and b.
std::string Plus(const std::string& a, const std::string& b, int sign) {
  const std::optional<int64_t> x = IntOf(a), y = IntOf(b);
  if (y) return Affine(a, 1, sign * *y);
  if (x) return Affine(b, sign, *x);
  return Cat(a, sign > 0 ? " + " : " - ", b);
}

bool IsPermutation(const Dims& p, size_t rank) {
  if (p.size() != rank) return false;
  std::vector<bool> seen(rank, false);
  for (int64_t d : p) {
    if (d < 0 || d >= static_cast<int64_t>(rank) || seen[d]) return false;
    seen[d] = true;
  }
  return true;
}

// The operand whose range along the dimension holds the index: a branch
// per operand (the index decides statically when it is a literal).
absl::StatusOr<Val> Generator::Concatenate(const Node& node, const Ty& t,
                                           const Index& index) {
  const Dims& dims = node.shape.dims;
  const Dims cat = node.attrs.dimensions.value_or(Dims{});
  if (cat.size() != 1 || cat[0] < 0 ||
      cat[0] >= static_cast<int64_t>(dims.size()))
    return Decline(node, "dimensions= is not one dimension");
  const size_t d = static_cast<size_t>(cat[0]);
  struct Part {
    int node;
    int64_t begin, end;
  };
  std::vector<Part> parts;
  int64_t total = 0;
  for (int o : node.operands) {
    const Dims& od = plan_.nodes[o].shape.dims;
    if (od.size() != dims.size())
      return Decline(node, "operands of another rank");
    for (size_t k = 0; k < dims.size(); ++k)
      if (k != d && od[k] != dims[k])
        return Decline(node, "operands of other dims");
    if (od[d] > 0) parts.push_back({o, total, total + od[d]});
    total += od[d];
  }
  if (total != dims[d]) return Decline(node, "sizes that do not add up");
  auto part_at = [&](const Part& p) {
    Index at = index;
    at[d] = Idx(Affine(index[d], 1, -p.begin));
    return At(p.node, std::move(at));
  };
  if (std::optional<int64_t> c = IntOf(index[d])) {
    for (const Part& p : parts)
      if (*c >= p.begin && *c < p.end) return part_at(p);
  }
  if (parts.size() == 1) return part_at(parts[0]);
  const Val r = Declare(node, t);
  for (size_t k = 0; k < parts.size(); ++k) {
    const std::string cond =
        k + 1 == parts.size() ? "" : Cat(index[d], " < ", parts[k].end);
    if (k == 0) {
      Open(cond);
    } else {
      Next(cond);
    }
    absl::StatusOr<Val> v = part_at(parts[k]);
    if (!v.ok()) return v;
    Line(Cat(r.var, " = ", v->var, ";"));
  }
  Close();
  ++values_;
  return r;
}

// The operand's element where the index falls on one (edge padding low
// and high, negative too, and interior), else the padding value.
absl::StatusOr<Val> Generator::Pad(const Node& node, const Ty& t,
                                   const Index& index) {
  if (!node.attrs.padding) return Decline(node, "no padding=");
  if (node.operands.size() != 2) return Decline(node, "not two operands");
  const PaddingConfig& p = *node.attrs.padding;
  const Dims& dims = node.shape.dims;
  const Dims& od = plan_.nodes[node.operands[0]].shape.dims;
  if (p.dimensions.size() != od.size() || dims.size() != od.size())
    return Decline(node, "padding= of another rank");
  const Node& pad_value = plan_.nodes[node.operands[1]];
  absl::StatusOr<Val> pv =
      At(node.operands[1], Index(pad_value.shape.dims.size(), "0"));
  if (!pv.ok()) return pv;
  if (Count(od) == 0) return pv;
  Index at(od.size());
  std::vector<std::string> conds;
  for (size_t d = 0; d < od.size(); ++d) {
    const PaddingDimension& pd = p.dimensions[d];
    if (pd.interior_padding < 0) return Decline(node, "negative interior");
    const int64_t step = pd.interior_padding + 1, low = pd.edge_padding_low;
    const std::string x = Idx(Affine(index[d], 1, -low));  // index - low
    if (std::optional<int64_t> c = IntOf(x)) {
      if (*c < 0 || *c % step != 0 || *c / step >= od[d]) return pv;
      at[d] = Cat(*c / step);
      continue;
    }
    // index - low ranges over [-low, dims[d] - 1 - low].
    if (low > 0) conds.push_back(Cat(x, " >= 0"));
    if (step > 1) conds.push_back(Cat(x, " % ", step, " == 0"));
    if ((dims[d] - 1 - low) / step >= od[d])
      conds.push_back(Cat(x, " / ", step, " < ", od[d]));
    at[d] = Idx(step == 1 ? x : Cat(x, " / ", step));
  }
  if (conds.empty()) return At(node.operands[0], std::move(at));
  std::string cond;
  for (const std::string& c : conds) cond += Cat(cond.empty() ? "" : " && ", c);
  const Val r = Declare(node, t);
  Open(cond);
  absl::StatusOr<Val> v = At(node.operands[0], std::move(at));
  if (!v.ok()) return v;
  Line(Cat(r.var, " = ", v->var, ";"));
  Next("");
  Line(Cat(r.var, " = ", pv->var, ";"));
  Close();
  ++values_;
  return r;
}

// Start indices from scalar operands (or one index vector), clamped into
// [0, dim - size] as the CPU's ClampedStarts does.
absl::StatusOr<std::vector<std::string>> Generator::Starts(const Node& node,
                                                           size_t first,
                                                           const Dims& dims,
                                                           const Dims& sizes) {
  const std::vector<int>& in = node.operands;
  const bool vector_form = in.size() == first + 1 &&
                           plan_.nodes[in[first]].shape.dims.size() == 1 &&
                           dims.size() != 1;
  std::vector<std::string> starts(dims.size(), "0");
  for (size_t d = 0; d < dims.size(); ++d) {
    const int o = vector_form             ? in[first]
                  : first + d < in.size() ? in[first + d]
                                          : -1;
    const Dims& od = o < 0 ? dims : plan_.nodes[o].shape.dims;
    if (o < 0 || (vector_form && static_cast<int64_t>(d) >= od[0])) continue;
    if (Count(od) <= 0) return Decline(node, "an empty start index");
    Index at(od.size(), "0");
    if (vector_form) at[0] = Cat(d);
    absl::StatusOr<Val> v = At(o, std::move(at));
    if (!v.ok()) return v.status();
    if (v->ty.kind == K::kFloat) return Decline(node, "a float start index");
    const int64_t hi = std::max<int64_t>(0, dims[d] - sizes[d]);
    const std::string x = Cat("(s64)", v->var);
    auto clamp = [&] {
      return Idx(
          Cat("(", x, " < 0 ? 0 : ", x, " > ", hi, " ? ", hi, " : ", x, ")"));
    };
    // With the start's value when it is computed before the loop.
    starts[d] = Count(od) == 1 && !in_pre_ ? BeforeTheLoop(clamp) : clamp();
  }
  return starts;
}

// dynamic-slice: the operand at start + index; dynamic-update-slice: the
// update where the index falls in its window, else the operand.
absl::StatusOr<Val> Generator::DynamicSlice(const Node& node,
                                            const Index& index, bool update) {
  const std::vector<int>& in = node.operands;
  const Dims& dims = node.shape.dims;
  const Dims& od = plan_.nodes[in[0]].shape.dims;
  if (od.size() != dims.size())
    return Decline(node, "an operand of another rank");
  if (update && (in.size() < 2 || od != dims))
    return Decline(node, "an operand of other dims");
  const Dims& window = update ? plan_.nodes[in[1]].shape.dims : dims;
  if (window.size() != od.size())
    return Decline(node, "a window of another rank");
  for (size_t d = 0; d < od.size(); ++d)
    if (window[d] > od[d])
      return Decline(node, "a window larger than the operand");
  absl::StatusOr<std::vector<std::string>> starts =
      Starts(node, update ? 2 : 1, od, window);
  if (!starts.ok()) return starts.status();
  Index at(od.size());  // dynamic-slice: the operand's; else the update's
  for (size_t d = 0; d < od.size(); ++d)
    at[d] = Idx(Plus(index[d], (*starts)[d], update ? -1 : 1));
  if (!update) return At(in[0], std::move(at));
  if (Count(window) == 0) return At(in[0], index);
  std::string cond;
  for (size_t d = 0; d < od.size(); ++d)
    cond += Cat(d ? " && " : "", at[d], " >= 0 && ", at[d], " < ", window[d]);
  const Val r = Declare(node, *TypeOf(node.shape.type));
  Open(cond);
  absl::StatusOr<Val> u = At(in[1], at);
  if (!u.ok()) return u;
  Line(Cat(r.var, " = ", u->var, ";"));
  Next("");
  absl::StatusOr<Val> o = At(in[0], index);
  if (!o.ok()) return o;
  Line(Cat(r.var, " = ", o->var, ";"));
  Close();
  ++values_;
  return r;
}

std::string Generator::Idx(const std::string& expr) {
  if (IntOf(expr)) return expr;
  bool atom = true;
  for (char c : expr) atom = atom && (std::isalnum(c) || c == '_');
  if (atom) return expr;
  const std::string key = Cat("=", expr);
  if (std::optional<Val> v = Find(key)) return v->var;
  Val v{Cat("j", next_var_++), PrimitiveType::kS64,
        *TypeOf(PrimitiveType::kS64)};
  Line(Cat("const ", index_type_, " ", v.var, " = ", expr, ";"));
  Remember(key, v);
  return v.var;
}

Index Generator::Relinearize(const Index& index, const Dims& to,
                             const Dims& from) {
  Index out(from.size(), "0");
  std::vector<size_t> a, b;  // the dimensions larger than 1
  for (size_t d = 0; d < to.size(); ++d)
    if (to[d] != 1) a.push_back(d);
  for (size_t d = 0; d < from.size(); ++d)
    if (from[d] != 1) b.push_back(d);
  // Groups of dimensions with equal products (XLA's common factors): each
  // group's position is linearized and unravelled alone.
  size_t x = 0, y = 0;
  while (x < a.size() && y < b.size()) {
    const size_t x0 = x, y0 = y;
    int64_t pa = to[a[x++]], pb = from[b[y++]];
    while (pa != pb) {
      if (pa < pb && x < a.size()) {
        pa *= to[a[x++]];
      } else if (pb < pa && y < b.size()) {
        pb *= from[b[y++]];
      } else {
        break;  // unequal counts: the callers check them
      }
    }
    if (x - x0 == 1 && y - y0 == 1) {
      out[b[y0]] = index[a[x0]];
      continue;
    }
    // The group's linear position: known when this index was unravelled
    // from it (the output index, above all: parameters of the root's dims
    // are then read at i), else summed.
    auto group_key = [](const Index& idx, const Dims& dims,
                        const std::vector<size_t>& ds, size_t lo, size_t hi) {
      std::string key = "#";
      for (size_t k = lo; k < hi; ++k) key += Cat(idx[ds[k]], ",");
      for (size_t k = lo; k < hi; ++k) key += Cat("|", dims[ds[k]]);
      return key;
    };
    std::string linear;
    if (std::optional<Val> known = Find(group_key(index, to, a, x0, x))) {
      linear = known->var;
    } else {
      std::string sum;
      int64_t stride = 1, constant = 0, terms = 0;
      for (size_t k = x; k-- > x0;) {
        const std::string& v = index[a[k]];
        if (std::optional<int64_t> c = IntOf(v)) {
          constant += *c * stride;
        } else {
          sum = Cat(Affine(v, stride, 0), sum.empty() ? "" : " + ", sum);
          ++terms;
        }
        stride *= to[a[k]];
      }
      linear =
          terms == 0
              ? Cat(constant)
              : Idx(Affine(terms == 1 ? sum : Cat("(", sum, ")"), 1, constant));
    }
    int64_t stride = 1;
    for (size_t k = y; k-- > y0;) {
      const int64_t c = IntOf(linear).value_or(-1);
      std::string e;
      if (c >= 0) {
        e = Cat(k == y0 ? c / stride : (c / stride) % from[b[k]]);
      } else if (stride == 1) {
        e = k == y0 ? linear : Cat(linear, " % ", from[b[k]]);
      } else {
        e = Cat(linear, " / ", stride);
        if (k != y0) e = Cat("(", e, ") % ", from[b[k]]);
      }
      out[b[k]] = Idx(e);
      stride *= from[b[k]];
    }
    if (!IntOf(linear))
      Remember(group_key(out, from, b, y0, y),
               Val{linear, PrimitiveType::kS64, *TypeOf(PrimitiveType::kS64)});
  }
  return out;
}

}  // namespace hlo::exec::gpu::fused
