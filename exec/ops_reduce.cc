// Ops that apply a computation: reduce (multi-operand; a fast path for
// add/multiply/max/min/and/or reducers), reduce-window, select-and-scatter,
// sort (stable, multi-operand comparator), map; and the random ops.
#include <algorithm>
#include <cstring>
#include <numeric>
#include <random>

#include "absl/strings/str_cat.h"
#include "exec/evaluator_internal.h"
#include "exec/strings.h"

namespace hlo::exec {
namespace {

using O = Opcode;

Value Share(Literal lit) {
  return std::make_shared<const Literal>(std::move(lit));
}

// A rank-0 literal holding element i of `lit`.
Value ScalarAt(const Literal& lit, int64_t i) {
  auto s = Literal::CreateArray(lit.type(), {});
  std::memcpy(s->raw(), lit.raw() + i * lit.element_bytes(),
              lit.element_bytes());
  return Share(*std::move(s));
}

void StoreAt(Literal& out, int64_t i, const Literal& scalar) {
  std::memcpy(out.raw() + i * out.element_bytes(), scalar.raw(),
              out.element_bytes());
}

// When `computation` is `op(p0, p1)` with op a commutative reducer, the op.
std::optional<Opcode> SimpleReducer(Evaluator& ev, Id computation) {
  auto plan = ev.GetPlan(computation);
  if (!plan.ok()) return std::nullopt;
  const Plan& p = **plan;
  if (p.parameters.size() != 2 || p.root < 0) return std::nullopt;
  const Node& root = p.nodes[p.root];
  switch (root.op) {
    case O::kAdd:
    case O::kMultiply:
    case O::kMaximum:
    case O::kMinimum:
    case O::kAnd:
    case O::kOr:
      break;
    default:
      return std::nullopt;
  }
  if (root.operands.size() != 2) return std::nullopt;
  std::vector<int64_t> nums;
  for (int o : root.operands) {
    if (p.nodes[o].op != O::kParameter) return std::nullopt;
    nums.push_back(p.nodes[o].attrs.parameter_number.value_or(-1));
  }
  if (!((nums[0] == 0 && nums[1] == 1) || (nums[0] == 1 && nums[1] == 0)))
    return std::nullopt;
  return root.op;
}

template <typename C>
C Combine(Opcode op, C a, C b) {
  if constexpr (std::is_same_v<C, bool>) {
    switch (op) {
      case O::kAdd:
      case O::kOr:
      case O::kMaximum:
        return a || b;
      default:
        return a && b;
    }
  } else if constexpr (std::is_floating_point_v<C>) {
    switch (op) {
      case O::kAdd:
        return a + b;
      case O::kMultiply:
        return a * b;
      case O::kMaximum:
        return std::isnan(a) ? a : std::isnan(b) ? b : (a > b ? a : b);
      case O::kMinimum:
        return std::isnan(a) ? a : std::isnan(b) ? b : (a < b ? a : b);
      default:
        return a;
    }
  } else if constexpr (std::is_integral_v<C>) {
    using U = std::make_unsigned_t<C>;
    switch (op) {
      case O::kAdd:
        return static_cast<C>(U(a) + U(b));
      case O::kMultiply:
        return static_cast<C>(U(a) * U(b));
      case O::kMaximum:
        return a > b ? a : b;
      case O::kMinimum:
        return a < b ? a : b;
      case O::kAnd:
        return static_cast<C>(a & b);
      case O::kOr:
        return static_cast<C>(a | b);
      default:
        return a;
    }
  } else {  // complex
    switch (op) {
      case O::kAdd:
        return a + b;
      case O::kMultiply:
        return a * b;
      default:
        return a;
    }
  }
}

absl::StatusOr<Value> Reduce(Evaluator& ev, const Node& node, Operands in,
                             int depth) {
  if (in.size() % 2 != 0 || in.empty())
    return Bad("reduce needs inputs and inits");
  const size_t n = in.size() / 2;
  const Id reducer = node.Call("to_apply");
  if (reducer == kNone) return Bad("reduce without to_apply=");
  const std::vector<int64_t> rdims =
      node.attrs.dimensions.value_or(std::vector<int64_t>{});
  const Literal& first = *in[0];
  const int rank = first.rank();
  std::vector<bool> reduced(rank, false);
  for (int64_t d : rdims) {
    if (d < 0 || d >= rank) return Bad("reduce dimension out of range");
    reduced[d] = true;
  }
  std::vector<int64_t> out_dims;
  for (int d = 0; d < rank; ++d)
    if (!reduced[d]) out_dims.push_back(first.dims()[d]);
  // Output stride of each input dim (0 for reduced dims).
  std::vector<int64_t> out_strides_full = RowMajorStrides(out_dims);
  std::vector<int64_t> in_to_out(rank, 0);
  for (int d = 0, k = 0; d < rank; ++d)
    if (!reduced[d]) in_to_out[d] = out_strides_full[k++];
  std::vector<Literal> outs;
  for (size_t k = 0; k < n; ++k) {
    if (in[k]->is_tuple() || in[k]->dims() != first.dims())
      return Bad("reduce inputs differ in shape");
    auto o = Literal::CreateArray(in[n + k]->type(), out_dims);
    if (!o.ok()) return o.status();
    for (int64_t i = 0; i < o->count(); ++i) StoreAt(*o, i, *in[n + k]);
    outs.push_back(*std::move(o));
  }
  auto fast = n == 1 && in[0]->type() == outs[0].type()
                  ? SimpleReducer(ev, reducer)
                  : std::nullopt;
  if (first.count() > 0 && fast) {
    const Opcode op = *fast;
    VisitType(first.type(), [&]<typename T>() {
      const auto* x = first.data<typename T::S>();
      auto* o = outs[0].data<typename T::S>();
      const int64_t inner = rank ? first.dims()[rank - 1] : 1;
      const int64_t s_last = rank ? in_to_out[rank - 1] : 0;
      std::vector<int64_t> outer(
          first.dims().begin(),
          rank ? first.dims().end() - 1 : first.dims().end());
      std::vector<int64_t> index(outer.size(), 0);
      int64_t src = 0;
      while (true) {
        int64_t base = 0;
        for (size_t d = 0; d < outer.size(); ++d)
          base += index[d] * in_to_out[d];
        if (s_last == 0) {
          auto acc = T::Load(o[base]);
          for (int64_t i = 0; i < inner; ++i)
            acc = T::Load(T::Store(Combine(op, acc, T::Load(x[src + i]))));
          o[base] = T::Store(acc);
        } else {
          for (int64_t i = 0; i < inner; ++i)
            o[base + i] = T::Store(
                Combine(op, T::Load(o[base + i]), T::Load(x[src + i])));
        }
        src += inner;
        if (outer.empty() || !NextIndex(index, outer)) break;
      }
    });
  } else if (first.count() > 0) {
    std::vector<int64_t> index(rank, 0);
    int64_t src = 0;
    std::vector<Value> args(2 * n);
    do {
      int64_t dst = 0;
      for (int d = 0; d < rank; ++d) dst += index[d] * in_to_out[d];
      for (size_t k = 0; k < n; ++k) {
        args[k] = ScalarAt(outs[k], dst);
        args[n + k] = ScalarAt(*in[k], src);
      }
      auto r = ev.CallScalar(reducer, args, depth);
      if (!r.ok()) return r.status();
      if (n == 1) {
        StoreAt(outs[0], dst, (*r)->is_tuple() ? *(*r)->elements()[0] : **r);
      } else {
        if (!(*r)->is_tuple() || (*r)->elements().size() != n)
          return Bad("reducer result is not a tuple of the right size");
        for (size_t k = 0; k < n; ++k)
          StoreAt(outs[k], dst, *(*r)->elements()[k]);
      }
      ++src;
    } while (rank > 0 && NextIndex(index, first.dims()));
  }
  if (n == 1) return Share(std::move(outs[0]));
  std::vector<Value> elements;
  for (Literal& o : outs) elements.push_back(Share(std::move(o)));
  return Share(Literal::MakeTuple(std::move(elements)));
}

// Visits the input positions of the window at `out_index`; `f(linear)`.
template <typename F>
void ForWindow(const Window& window, const std::vector<int64_t>& in_dims,
               const std::vector<int64_t>& in_strides,
               const std::vector<int64_t>& out_index, F f) {
  const int rank = static_cast<int>(in_dims.size());
  std::vector<int64_t> wdims(rank), w(rank, 0);
  for (int d = 0; d < rank; ++d) wdims[d] = window.dimensions[d].size;
  for (int64_t d : wdims)
    if (d == 0) return;
  do {
    int64_t linear = 0;
    bool valid = true;
    for (int d = 0; d < rank && valid; ++d) {
      const WindowDimension& wd = window.dimensions[d];
      int64_t pos =
          out_index[d] * wd.stride - wd.padding_low + w[d] * wd.window_dilation;
      if (pos % wd.base_dilation != 0) {
        valid = false;
        break;
      }
      pos /= wd.base_dilation;
      if (pos < 0 || pos >= in_dims[d]) valid = false;
      linear += pos * in_strides[d];
    }
    if (valid) f(linear);
  } while (rank > 0 && NextIndex(w, wdims));
}

absl::StatusOr<Value> ReduceWindow(Evaluator& ev, const Node& node, Operands in,
                                   int depth) {
  if (in.size() % 2 != 0 || in.empty())
    return Bad("reduce-window needs inputs and inits");
  const size_t n = in.size() / 2;
  if (!node.attrs.window) return Bad("reduce-window without window=");
  const Window& window = *node.attrs.window;
  const Literal& first = *in[0];
  if (static_cast<int>(window.dimensions.size()) != first.rank())
    return Bad("window rank differs from the operand");
  const Id reducer = node.Call("to_apply");
  if (reducer == kNone) return Bad("reduce-window without to_apply=");
  std::vector<Literal> outs;
  for (size_t k = 0; k < n; ++k) {
    const LiteralShape& s =
        node.shape.is_tuple() ? node.shape.tuple_elements[k] : node.shape;
    auto o = Literal::Create(s);
    if (!o.ok()) return o.status();
    outs.push_back(*std::move(o));
  }
  const std::vector<int64_t> in_strides = RowMajorStrides(first.dims());
  auto fast = n == 1 ? SimpleReducer(ev, reducer) : std::nullopt;
  std::vector<int64_t> index(outs[0].rank(), 0);
  int64_t dst = 0;
  if (outs[0].count() == 0) goto done;
  do {
    if (fast) {
      VisitType(first.type(), [&]<typename T>() {
        const auto* x = first.data<typename T::S>();
        auto acc = T::Load(in[1]->data<typename T::S>()[0]);
        ForWindow(window, first.dims(), in_strides, index, [&](int64_t j) {
          acc = T::Load(T::Store(Combine(*fast, acc, T::Load(x[j]))));
        });
        outs[0].data<typename T::S>()[dst] = T::Store(acc);
      });
    } else {
      std::vector<Value> acc(in.begin() + n, in.end());
      absl::Status st = absl::OkStatus();
      ForWindow(window, first.dims(), in_strides, index, [&](int64_t j) {
        if (!st.ok()) return;
        std::vector<Value> args = acc;
        for (size_t k = 0; k < n; ++k) args.push_back(ScalarAt(*in[k], j));
        auto r = ev.CallScalar(reducer, args, depth);
        if (!r.ok()) {
          st = r.status();
          return;
        }
        if (n == 1) {
          acc[0] = (*r)->is_tuple() ? (*r)->elements()[0] : *r;
        } else {
          for (size_t k = 0; k < n; ++k) acc[k] = (*r)->elements()[k];
        }
      });
      if (!st.ok()) return st;
      for (size_t k = 0; k < n; ++k) StoreAt(outs[k], dst, *acc[k]);
    }
    ++dst;
  } while (outs[0].rank() > 0 && NextIndex(index, outs[0].dims()));
done:
  if (n == 1) return Share(std::move(outs[0]));
  std::vector<Value> elements;
  for (Literal& o : outs) elements.push_back(Share(std::move(o)));
  return Share(Literal::MakeTuple(std::move(elements)));
}

absl::StatusOr<Value> SelectAndScatter(Evaluator& ev, const Node& node,
                                       Operands in, int depth) {
  if (in.size() != 3) return Bad("select-and-scatter needs 3 operands");
  if (!node.attrs.window) return Bad("select-and-scatter without window=");
  const Literal& operand = *in[0];
  const Literal& source = *in[1];
  const Id select = node.Call("select"), scatter = node.Call("scatter");
  if (select == kNone || scatter == kNone)
    return Bad("select= and scatter= needed");
  auto out = Literal::Create(node.shape);
  if (!out.ok()) return out.status();
  for (int64_t i = 0; i < out->count(); ++i) StoreAt(*out, i, *in[2]);
  const std::vector<int64_t> strides = RowMajorStrides(operand.dims());
  std::vector<int64_t> index(source.rank(), 0);
  int64_t s = 0;
  if (source.count() == 0) return Share(*std::move(out));
  do {
    int64_t selected = -1;
    absl::Status st = absl::OkStatus();
    ForWindow(
        *node.attrs.window, operand.dims(), strides, index, [&](int64_t j) {
          if (!st.ok()) return;
          if (selected < 0) {
            selected = j;
            return;
          }
          Value args[2] = {ScalarAt(operand, selected), ScalarAt(operand, j)};
          auto r = ev.CallScalar(select, args, depth);
          if (!r.ok()) {
            st = r.status();
            return;
          }
          if (!(*r)->GetInt(0)) selected = j;
        });
    if (!st.ok()) return st;
    if (selected >= 0) {
      Value args[2] = {ScalarAt(*out, selected), ScalarAt(source, s)};
      auto r = ev.CallScalar(scatter, args, depth);
      if (!r.ok()) return r.status();
      StoreAt(*out, selected, **r);
    }
    ++s;
  } while (source.rank() > 0 && NextIndex(index, source.dims()));
  return Share(*std::move(out));
}

// The comparator's direction when it is compare(p0, p1) on plain types.
std::optional<ComparisonDirection> SimpleComparator(Evaluator& ev,
                                                    Id comparator) {
  auto plan = ev.GetPlan(comparator);
  if (!plan.ok()) return std::nullopt;
  const Plan& p = **plan;
  const Node& root = p.nodes[p.root];
  if (root.op != O::kCompare || root.operands.size() != 2) return std::nullopt;
  if (root.attrs.comparison_type == ComparisonType::kTotalOrder)
    return std::nullopt;
  const Node& a = p.nodes[root.operands[0]];
  const Node& b = p.nodes[root.operands[1]];
  if (a.op != O::kParameter || b.op != O::kParameter) return std::nullopt;
  if (a.attrs.parameter_number != 0 || b.attrs.parameter_number != 1)
    return std::nullopt;
  auto dir = root.attrs.comparison_direction;
  if (dir != ComparisonDirection::kLt && dir != ComparisonDirection::kGt)
    return std::nullopt;
  return dir;
}

absl::StatusOr<Value> Sort(Evaluator& ev, const Node& node, Operands in,
                           int depth) {
  if (in.empty()) return Bad("sort needs operands");
  const Literal& keys = *in[0];
  const int64_t dim = node.attrs.dimensions && !node.attrs.dimensions->empty()
                          ? (*node.attrs.dimensions)[0]
                          : keys.rank() - 1;
  if (dim < 0 || dim >= keys.rank()) return Bad("sort dimension out of range");
  const Id comparator = node.Call("to_apply");
  if (comparator == kNone) return Bad("sort without to_apply=");
  for (const Value& v : in)
    if (v->is_tuple() || v->dims() != keys.dims())
      return Bad("sort operands differ in shape");
  const int64_t len = keys.dims()[dim];
  const int64_t stride = RowMajorStrides(keys.dims())[dim];
  std::vector<int64_t> outer_dims = keys.dims();
  outer_dims[dim] = 1;
  std::vector<Literal> outs;
  for (const Value& v : in) {
    auto o = v->Clone();
    if (!o.ok()) return o.status();
    outs.push_back(*std::move(o));
  }
  if (keys.count() == 0) goto done;
  {
    auto fast = in.size() >= 1 && !IsComplex(keys.type())
                    ? SimpleComparator(ev, comparator)
                    : std::nullopt;
    std::vector<int64_t> perm(len);
    std::vector<int64_t> index(keys.rank(), 0);
    const std::vector<int64_t> strides = RowMajorStrides(keys.dims());
    absl::Status st = absl::OkStatus();
    do {
      int64_t base = 0;
      for (int d = 0; d < keys.rank(); ++d) base += index[d] * strides[d];
      std::iota(perm.begin(), perm.end(), 0);
      if (fast) {
        std::vector<double> k(len);
        for (int64_t i = 0; i < len; ++i)
          k[i] = keys.GetDouble(base + i * stride);
        const bool lt = *fast == ComparisonDirection::kLt;
        std::stable_sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) {
          return lt ? k[a] < k[b] : k[a] > k[b];
        });
      } else {
        std::stable_sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) {
          if (!st.ok()) return false;
          std::vector<Value> args;
          for (const Value& v : in) {
            args.push_back(ScalarAt(*v, base + a * stride));
            args.push_back(ScalarAt(*v, base + b * stride));
          }
          auto r = ev.CallScalar(comparator, args, depth);
          if (!r.ok()) {
            st = r.status();
            return false;
          }
          return (*r)->GetInt(0) != 0;
        });
        if (!st.ok()) return st;
      }
      for (size_t k = 0; k < in.size(); ++k) {
        const int eb = in[k]->element_bytes();
        for (int64_t i = 0; i < len; ++i)
          std::memcpy(outs[k].raw() + (base + i * stride) * eb,
                      in[k]->raw() + (base + perm[i] * stride) * eb, eb);
      }
    } while (NextIndex(index, outer_dims));
  }
done:
  if (in.size() == 1 && !node.shape.is_tuple())
    return Share(std::move(outs[0]));
  std::vector<Value> elements;
  for (Literal& o : outs) elements.push_back(Share(std::move(o)));
  return Share(Literal::MakeTuple(std::move(elements)));
}

absl::StatusOr<Value> Map(Evaluator& ev, const Node& node, Operands in,
                          int depth) {
  const Id f = node.Call("to_apply");
  if (f == kNone) return Bad("map without to_apply=");
  auto out = Literal::Create(node.shape);
  if (!out.ok()) return out.status();
  for (const Value& v : in)
    if (v->is_tuple() || v->count() != out->count())
      return Bad("map operand shape");
  std::vector<Value> args(in.size());
  for (int64_t i = 0; i < out->count(); ++i) {
    for (size_t k = 0; k < in.size(); ++k) args[k] = ScalarAt(*in[k], i);
    auto r = ev.CallScalar(f, args, depth);
    if (!r.ok()) return r.status();
    StoreAt(*out, i, **r);
  }
  return Share(*std::move(out));
}

absl::StatusOr<Value> Rng(Evaluator& ev, const Node& node, Operands in) {
  if (in.size() < 2) return Bad("rng needs 2 operands");
  auto out = Literal::Create(node.shape);
  if (!out.ok()) return out.status();
  std::minstd_rand0 engine(static_cast<uint32_t>(ev.NextRngState() * 7919 + 1));
  const double a = in[0]->GetDouble(0), b = in[1]->GetDouble(0);
  const bool normal =
      node.attrs.rng_distribution == RandomDistribution::kNormal;
  std::uniform_real_distribution<double> uniform(a, b);
  std::normal_distribution<double> gauss(a, b);
  for (int64_t i = 0; i < out->count(); ++i) {
    if (IsFloatingPoint(out->type())) {
      out->SetDouble(i, normal ? gauss(engine) : uniform(engine));
    } else {
      int64_t lo = in[0]->GetInt(0), hi = in[1]->GetInt(0);
      std::uniform_int_distribution<int64_t> d(lo, std::max(lo, hi - 1));
      out->SetInt(i, d(engine));
    }
  }
  return Share(*std::move(out));
}

// Not bit-identical to XLA's Philox/ThreeFry: deterministic splitmix64 bits
// seeded from the state (the report says so).
absl::StatusOr<Value> RngBitGenerator(const Node& node, Operands in) {
  if (in.size() != 1 || !node.shape.is_tuple() ||
      node.shape.tuple_elements.size() != 2)
    return Bad("rng-bit-generator needs a state and a (state, bits) result");
  auto state = in[0]->Clone();
  if (!state.ok()) return state.status();
  auto bits = Literal::Create(node.shape.tuple_elements[1]);
  if (!bits.ok()) return bits.status();
  uint64_t seed = 0;
  for (int64_t i = 0; i < in[0]->count(); ++i)
    seed =
        seed * 0x9e3779b97f4a7c15ULL + static_cast<uint64_t>(in[0]->GetInt(i));
  auto next = [&]() {
    uint64_t z = (seed += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  };
  uint8_t* p = bits->raw();
  for (int64_t i = 0; i + 8 <= bits->byte_size(); i += 8) {
    uint64_t v = next();
    std::memcpy(p + i, &v, 8);
  }
  for (int64_t i = bits->byte_size() / 8 * 8; i < bits->byte_size(); ++i)
    p[i] = static_cast<uint8_t>(next());
  if (state->count() > 0)
    state->SetInt(state->count() - 1, state->GetInt(state->count() - 1) + 1);
  return Share(
      Literal::MakeTuple({Share(*std::move(state)), Share(*std::move(bits))}));
}

}  // namespace

absl::StatusOr<Value> TopK(const Node& node, const Literal& x, int64_t k,
                           bool largest) {
  if (x.rank() < 1 || !node.shape.is_tuple() ||
      node.shape.tuple_elements.size() != 2)
    return Bad("topk needs an array and a (values, indices) result");
  const int64_t n = x.dims().back();
  if (k < 0 || k > n) return Bad("topk k out of range");
  auto values = Literal::Create(node.shape.tuple_elements[0]);
  auto indices = Literal::Create(node.shape.tuple_elements[1]);
  if (!values.ok()) return values.status();
  if (!indices.ok()) return indices.status();
  const int64_t rows = n ? x.count() / n : 0;
  std::vector<int64_t> perm(n);
  const int eb = x.element_bytes();
  for (int64_t r = 0; r < rows; ++r) {
    std::iota(perm.begin(), perm.end(), 0);
    std::vector<double> v(n);
    for (int64_t i = 0; i < n; ++i) v[i] = x.GetDouble(r * n + i);
    std::stable_sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) {
      // NaN sorts first when largest (XLA's total order puts NaN on top).
      if (std::isnan(v[a]) || std::isnan(v[b]))
        return std::isnan(v[a]) && !std::isnan(v[b]);
      return largest ? v[a] > v[b] : v[a] < v[b];
    });
    for (int64_t i = 0; i < k; ++i) {
      std::memcpy(values->raw() + (r * k + i) * eb,
                  x.raw() + (r * n + perm[i]) * eb, eb);
      indices->SetInt(r * k + i, perm[i]);
    }
  }
  return Share(Literal::MakeTuple(
      {Share(*std::move(values)), Share(*std::move(indices))}));
}

bool IsReduceFamily(Opcode op) {
  switch (op) {
    case O::kReduce:
    case O::kReduceWindow:
    case O::kSelectAndScatter:
    case O::kSort:
    case O::kMap:
    case O::kRng:
    case O::kRngBitGenerator:
    case O::kTopk:
      return true;
    default:
      return false;
  }
}

absl::StatusOr<Value> EvalReduceFamily(Evaluator& ev, const Node& node,
                                       Operands in, int depth) {
  for (const Value& v : in)
    if (v->is_tuple()) return Bad("tuple operand");
  switch (node.op) {
    case O::kReduce:
      return Reduce(ev, node, in, depth);
    case O::kReduceWindow:
      return ReduceWindow(ev, node, in, depth);
    case O::kSelectAndScatter:
      return SelectAndScatter(ev, node, in, depth);
    case O::kSort:
      return Sort(ev, node, in, depth);
    case O::kMap:
      return Map(ev, node, in, depth);
    case O::kRng:
      return Rng(ev, node, in);
    case O::kRngBitGenerator:
      return RngBitGenerator(node, in);
    case O::kTopk:
      if (in.size() != 1) return Bad("topk needs 1 operand");
      return TopK(node, *in[0], node.attrs.k.value_or(1),
                  node.attrs.largest.value_or(true));
    default:
      return Bad("not a reduce-family op");
  }
}

}  // namespace hlo::exec
