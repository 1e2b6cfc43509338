// Data movement: broadcast, reshape, transpose, bitcast (through the
// physical layouts), copy, slice, dynamic-slice / dynamic-update-slice
// (clamped starts), concatenate, pad (negative and interior), reverse,
// iota, convert, bitcast-convert, reduce-precision, get-dimension-size.
#include <algorithm>
#include <cstring>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "exec/evaluator_internal.h"
#include "exec/strings.h"

namespace hlo::exec {
namespace {

using O = Opcode;

template <int EB>
struct Elem {
  uint8_t b[EB];
};

// out[j] = in[offset + sum_d j_d * strides[d]] over out's row-major index.
template <int EB>
void StridedCopyT(uint8_t* out_raw, const std::vector<int64_t>& dims,
                  const uint8_t* in_raw, int64_t offset,
                  const std::vector<int64_t>& strides) {
  using E = Elem<EB>;
  E* out = reinterpret_cast<E*>(out_raw);
  const E* in = reinterpret_cast<const E*>(in_raw);
  const int rank = static_cast<int>(dims.size());
  if (rank == 0) {
    out[0] = in[offset];
    return;
  }
  for (int64_t d : dims)
    if (d == 0) return;
  const int64_t inner = dims[rank - 1], inner_stride = strides[rank - 1];
  std::vector<int64_t> index(rank - 1, 0);
  std::vector<int64_t> outer_dims(dims.begin(), dims.end() - 1);
  int64_t o = 0;
  while (true) {
    int64_t base = offset;
    for (int d = 0; d < rank - 1; ++d) base += index[d] * strides[d];
    const E* src = in + base;
    if (inner_stride == 1) {
      std::memcpy(out + o, src, inner * EB);
    } else {
      for (int64_t i = 0; i < inner; ++i) out[o + i] = src[i * inner_stride];
    }
    o += inner;
    if (rank == 1 || !NextIndex(index, outer_dims)) break;
  }
}

void StridedCopy(uint8_t* out, const std::vector<int64_t>& dims,
                 const uint8_t* in, int64_t offset,
                 const std::vector<int64_t>& strides, int eb) {
  switch (eb) {
    case 1:
      return StridedCopyT<1>(out, dims, in, offset, strides);
    case 2:
      return StridedCopyT<2>(out, dims, in, offset, strides);
    case 4:
      return StridedCopyT<4>(out, dims, in, offset, strides);
    case 8:
      return StridedCopyT<8>(out, dims, in, offset, strides);
    case 16:
      return StridedCopyT<16>(out, dims, in, offset, strides);
  }
}

absl::StatusOr<Literal> Broadcast(const Node& node, const Literal& in) {
  auto out = Literal::Create(node.shape);
  if (!out.ok()) return out;
  std::vector<int64_t> dims =
      node.attrs.dimensions.value_or(std::vector<int64_t>{});
  if (static_cast<int>(dims.size()) != in.rank())
    return Bad("broadcast dimensions= does not match the operand rank");
  std::vector<int64_t> in_strides = RowMajorStrides(in.dims());
  std::vector<int64_t> strides(out->rank(), 0);
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0 || dims[i] >= out->rank() ||
        in.dims()[i] != out->dims()[dims[i]])
      return Bad("broadcast dimension mismatch");
    strides[dims[i]] = in_strides[i];
  }
  StridedCopy(out->raw(), out->dims(), in.raw(), 0, strides,
              in.element_bytes());
  return out;
}

absl::StatusOr<Literal> Reshape(const Literal& in, const LiteralShape& shape) {
  auto out = Literal::Create(shape);
  if (!out.ok()) return out;
  if (out->count() != in.count())
    return Bad(Cat("reshape of ", in.count(), " elements to ", out->count()));
  std::memcpy(out->raw(), in.raw(), in.byte_size());
  return out;
}

// Physical (major-to-minor) order of a logical array with `minor_to_major`.
absl::StatusOr<Literal> ToPhysical(const Literal& in,
                                   const std::vector<int64_t>& m2m) {
  if (m2m.empty() || static_cast<int>(m2m.size()) != in.rank())
    return in.Clone();
  std::vector<int64_t> perm(m2m.rbegin(), m2m.rend());
  return Transpose(in, perm);
}

absl::StatusOr<Literal> Bitcast(const Node& node, const Literal& in) {
  const std::vector<int64_t>& in_m2m = node.operand_layouts[0];
  const std::vector<int64_t>& out_m2m = node.minor_to_major;
  auto phys = ToPhysical(in, in_m2m);
  if (!phys.ok()) return phys;
  if (out_m2m.empty() || static_cast<int>(out_m2m.size()) !=
                             static_cast<int>(node.shape.dims.size()))
    return Reshape(*phys, node.shape);
  // Output physical dims, then back to logical order.
  std::vector<int64_t> perm(out_m2m.rbegin(), out_m2m.rend());
  std::vector<int64_t> phys_dims;
  for (int64_t p : perm) phys_dims.push_back(node.shape.dims[p]);
  auto as_out = Reshape(*phys, LiteralShape::Array(node.shape.type, phys_dims));
  if (!as_out.ok()) return as_out;
  std::vector<int64_t> inverse(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) inverse[perm[i]] = i;
  return Transpose(*as_out, inverse);
}

absl::StatusOr<Literal> SliceOp(const Node& node, const Literal& in) {
  if (!node.attrs.slice) return Bad("slice without slice=");
  const SliceSpec& s = *node.attrs.slice;
  auto out = Literal::Create(node.shape);
  if (!out.ok()) return out;
  if (static_cast<int>(s.starts.size()) != in.rank())
    return Bad("slice= rank differs from the operand");
  std::vector<int64_t> in_strides = RowMajorStrides(in.dims());
  std::vector<int64_t> strides(in.rank());
  int64_t offset = 0;
  for (int d = 0; d < in.rank(); ++d) {
    int64_t stride = d < static_cast<int>(s.strides.size()) ? s.strides[d] : 1;
    if (s.starts[d] < 0 || s.limits[d] > in.dims()[d] || stride <= 0)
      return Bad("slice out of bounds");
    int64_t n = s.limits[d] > s.starts[d]
                    ? (s.limits[d] - s.starts[d] + stride - 1) / stride
                    : 0;
    if (n != out->dims()[d]) return Bad("slice size differs from the result");
    offset += s.starts[d] * in_strides[d];
    strides[d] = stride * in_strides[d];
  }
  StridedCopy(out->raw(), out->dims(), in.raw(), offset, strides,
              in.element_bytes());
  return out;
}

// Start indices from scalar operands (or one index vector), clamped into
// [0, dim - size].
std::vector<int64_t> ClampedStarts(Operands in, size_t first,
                                   const std::vector<int64_t>& dims,
                                   const std::vector<int64_t>& sizes) {
  std::vector<int64_t> starts(dims.size(), 0);
  const bool vector_form =
      in.size() == first + 1 && in[first]->rank() == 1 && dims.size() != 1;
  for (size_t d = 0; d < dims.size(); ++d) {
    int64_t v = 0;
    if (vector_form) {
      if (static_cast<int64_t>(d) < in[first]->count())
        v = in[first]->GetInt(d);
    } else if (first + d < in.size()) {
      v = in[first + d]->GetInt(0);
    }
    starts[d] =
        std::clamp<int64_t>(v, 0, std::max<int64_t>(0, dims[d] - sizes[d]));
  }
  return starts;
}

absl::StatusOr<Literal> DynamicSlice(const Node& node, Operands in) {
  const Literal& op = *in[0];
  auto out = Literal::Create(node.shape);
  if (!out.ok()) return out;
  if (out->rank() != op.rank()) return Bad("dynamic-slice rank mismatch");
  std::vector<int64_t> starts = ClampedStarts(in, 1, op.dims(), out->dims());
  std::vector<int64_t> strides = RowMajorStrides(op.dims());
  int64_t offset = 0;
  for (int d = 0; d < op.rank(); ++d) offset += starts[d] * strides[d];
  StridedCopy(out->raw(), out->dims(), op.raw(), offset, strides,
              op.element_bytes());
  return out;
}

absl::StatusOr<Literal> DynamicUpdateSlice(const Node& node, Operands in) {
  const Literal& op = *in[0];
  const Literal& update = *in[1];
  auto out = op.Clone();
  if (!out.ok()) return out;
  if (update.rank() != op.rank())
    return Bad("dynamic-update-slice rank mismatch");
  for (int d = 0; d < op.rank(); ++d)
    if (update.dims()[d] > op.dims()[d])
      return Bad("update larger than operand");
  std::vector<int64_t> starts = ClampedStarts(in, 2, op.dims(), update.dims());
  if (update.count() == 0) return out;
  std::vector<int64_t> strides = RowMajorStrides(op.dims());
  const int eb = op.element_bytes();
  const int rank = op.rank();
  if (rank == 0) {
    std::memcpy(out->raw(), update.raw(), eb);
    return out;
  }
  // Row by row along the innermost dimension.
  const int64_t inner = update.dims()[rank - 1];
  std::vector<int64_t> outer(update.dims().begin(), update.dims().end() - 1);
  std::vector<int64_t> index(rank - 1, 0);
  const uint8_t* src = update.raw();
  while (true) {
    int64_t off = starts[rank - 1];
    for (int d = 0; d < rank - 1; ++d)
      off += (starts[d] + index[d]) * strides[d];
    std::memcpy(out->raw() + off * eb, src, inner * eb);
    src += inner * eb;
    if (rank == 1 || !NextIndex(index, outer)) break;
  }
  (void)node;
  return out;
}

absl::StatusOr<Literal> Concatenate(const Node& node, Operands in) {
  auto out = Literal::Create(node.shape);
  if (!out.ok()) return out;
  if (!node.attrs.dimensions || node.attrs.dimensions->size() != 1)
    return Bad("concatenate needs dimensions={d}");
  const int64_t dim = (*node.attrs.dimensions)[0];
  if (dim < 0 || dim >= out->rank())
    return Bad("concatenate dimension out of range");
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < dim; ++d) outer *= out->dims()[d];
  for (int d = dim + 1; d < out->rank(); ++d) inner *= out->dims()[d];
  const int eb = out->element_bytes();
  const int64_t out_row = out->dims()[dim] * inner * eb;
  int64_t col = 0, total = 0;
  for (const Value& v : in)
    total += v->rank() == out->rank() ? v->dims()[dim] : -1;
  if (total != out->dims()[dim]) return Bad("concatenate sizes do not add up");
  for (const Value& v : in) {
    const int64_t row = v->dims()[dim] * inner * eb;
    for (int64_t o = 0; o < outer; ++o)
      std::memcpy(out->raw() + o * out_row + col, v->raw() + o * row, row);
    col += row;
  }
  return out;
}

absl::StatusOr<Literal> Pad(const Node& node, const Literal& in,
                            const Literal& value) {
  if (!node.attrs.padding) return Bad("pad without padding=");
  const PaddingConfig& p = *node.attrs.padding;
  auto out = Literal::Create(node.shape);
  if (!out.ok()) return out;
  if (static_cast<int>(p.dimensions.size()) != in.rank())
    return Bad("padding= rank differs from the operand");
  const int eb = out->element_bytes();
  for (int64_t i = 0; i < out->count(); ++i)
    std::memcpy(out->raw() + i * eb, value.raw(), eb);
  if (in.count() == 0) return out;
  std::vector<int64_t> out_strides = RowMajorStrides(out->dims());
  std::vector<int64_t> index(in.rank(), 0);
  int64_t i = 0;
  do {
    int64_t off = 0;
    bool inside = true;
    for (int d = 0; d < in.rank(); ++d) {
      const PaddingDimension& pd = p.dimensions[d];
      int64_t pos = pd.edge_padding_low + index[d] * (pd.interior_padding + 1);
      if (pos < 0 || pos >= out->dims()[d]) {
        inside = false;
        break;
      }
      off += pos * out_strides[d];
    }
    if (inside) std::memcpy(out->raw() + off * eb, in.raw() + i * eb, eb);
    ++i;
  } while (NextIndex(index, in.dims()));
  return out;
}

absl::StatusOr<Literal> Reverse(const Node& node, const Literal& in) {
  auto out = Literal::Create(node.shape);
  if (!out.ok()) return out;
  std::vector<int64_t> strides = RowMajorStrides(in.dims());
  int64_t offset = 0;
  for (int64_t d : node.attrs.dimensions.value_or(std::vector<int64_t>{})) {
    if (d < 0 || d >= in.rank()) return Bad("reverse dimension out of range");
    offset += (in.dims()[d] - 1) * strides[d];
    strides[d] = -strides[d];
  }
  if (in.count() == 0) return out;
  StridedCopy(out->raw(), out->dims(), in.raw(), offset, strides,
              in.element_bytes());
  return out;
}

absl::StatusOr<Literal> Iota(const Node& node) {
  auto out = Literal::Create(node.shape);
  if (!out.ok()) return out;
  const int64_t dim = node.attrs.iota_dimension.value_or(0);
  if (out->rank() == 0 || dim < 0 || dim >= out->rank())
    return Bad("iota_dimension out of range");
  std::vector<int64_t> strides = RowMajorStrides(out->dims());
  const int64_t size = out->dims()[dim], stride = strides[dim];
  VisitType(out->type(), [&]<typename T>() {
    using C = typename T::C;
    auto* o = out->data<typename T::S>();
    for (int64_t i = 0; i < out->count(); ++i) {
      int64_t v = (i / stride) % size;
      if constexpr (T::kKind == Kind::kComplex) {
        o[i] = C(static_cast<typename C::value_type>(v), 0);
      } else if constexpr (T::kKind == Kind::kPred) {
        o[i] = v != 0;
      } else {
        o[i] = T::Store(static_cast<C>(v));
      }
    }
  });
  return out;
}

template <typename F, typename B>
F ReducePrecisionValue(F input, int exponent_bits, int mantissa_bits) {
  constexpr int kBits = sizeof(F) * 8;
  constexpr int kMantissa = std::numeric_limits<F>::digits - 1;
  constexpr int kExponent = kBits - kMantissa - 1;
  B x;
  std::memcpy(&x, &input, sizeof(F));
  if (mantissa_bits < kMantissa) {
    const B last = B{1} << (kMantissa - mantissa_bits);
    const B base_bias = (last >> 1) - 1;
    const B x_last = (x & last) >> (kMantissa - mantissa_bits);
    x = (x + x_last + base_bias) & ~(last - 1);
  }
  if (exponent_bits < kExponent) {
    const B sign = B{1} << (kBits - 1);
    const B exp_mask = ((B{1} << kExponent) - 1) << kMantissa;
    const B bias = (B{1} << (kExponent - 1)) - 1;
    const B reduced_bias = (B{1} << (exponent_bits - 1)) - 1;
    const B max_e = bias + reduced_bias, min_e = bias - reduced_bias;
    const B e = x & exp_mask;
    if (e > (max_e << kMantissa)) {
      x = (x & sign) | exp_mask;
    } else if (e <= (min_e << kMantissa)) {
      x = x & sign;
    }
  }
  F out;
  std::memcpy(&out, &x, sizeof(F));
  if (std::isnan(input))
    return mantissa_bits > 0 ? input : std::numeric_limits<F>::infinity();
  return out;
}

absl::StatusOr<Literal> ReducePrecision(const Node& node, const Literal& in) {
  auto out = in.Clone();
  if (!out.ok()) return out;
  const int e = static_cast<int>(node.attrs.exponent_bits.value_or(8));
  const int m = static_cast<int>(node.attrs.mantissa_bits.value_or(23));
  if (e < 1 || m < 0) return Bad("reduce-precision bits out of range");
  absl::Status st = absl::OkStatus();
  VisitType(in.type(), [&]<typename T>() {
    using C = typename T::C;
    if constexpr (T::kKind == Kind::kFloat) {
      auto* o = out->data<typename T::S>();
      for (int64_t i = 0; i < in.count(); ++i) {
        C v = T::Load(o[i]);
        if constexpr (std::is_same_v<C, double>) {
          v = ReducePrecisionValue<double, uint64_t>(v, e, m);
        } else {
          v = ReducePrecisionValue<float, uint32_t>(v, e, m);
        }
        o[i] = T::Store(v);
      }
    } else {
      st = Bad("reduce-precision of a non-float type");
    }
  });
  if (!st.ok()) return st;
  return out;
}

}  // namespace

std::vector<int64_t> RowMajorStrides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (int d = static_cast<int>(dims.size()) - 2; d >= 0; --d)
    s[d] = s[d + 1] * dims[d + 1];
  return s;
}

absl::StatusOr<Literal> Transpose(const Literal& in,
                                  const std::vector<int64_t>& perm) {
  if (static_cast<int>(perm.size()) != in.rank())
    return Bad("transpose permutation rank mismatch");
  std::vector<int64_t> in_strides = RowMajorStrides(in.dims());
  std::vector<int64_t> dims(perm.size()), strides(perm.size());
  std::vector<bool> seen(perm.size(), false);
  for (size_t i = 0; i < perm.size(); ++i) {
    if (perm[i] < 0 || perm[i] >= in.rank() || seen[perm[i]])
      return Bad("bad transpose permutation");
    seen[perm[i]] = true;
    dims[i] = in.dims()[perm[i]];
    strides[i] = in_strides[perm[i]];
  }
  auto out = Literal::CreateArray(in.type(), dims);
  if (!out.ok()) return out;
  if (in.count() == 0) return out;
  StridedCopy(out->raw(), dims, in.raw(), 0, strides, in.element_bytes());
  return out;
}

bool IsShapeOp(Opcode op) {
  switch (op) {
    case O::kBroadcast:
    case O::kReshape:
    case O::kTranspose:
    case O::kBitcast:
    case O::kCopy:
    case O::kSlice:
    case O::kDynamicSlice:
    case O::kDynamicUpdateSlice:
    case O::kConcatenate:
    case O::kPad:
    case O::kReverse:
    case O::kIota:
    case O::kConvert:
    case O::kBitcastConvert:
    case O::kReducePrecision:
      return true;
    default:
      return false;
  }
}

absl::StatusOr<Literal> EvalShapeOp(const ParsedFile& file, const Node& node,
                                    Operands in) {
  (void)file;
  auto need = [&](size_t n) -> absl::Status {
    if (in.size() < n)
      return Bad(Cat(OpcodeName(node.op), " needs ", n, " operands"));
    for (size_t i = 0; i < n; ++i)
      if (in[i]->is_tuple()) return Bad("tuple operand");
    return absl::OkStatus();
  };
  absl::Status st = need(node.op == O::kIota ? 0 : 1);
  if (!st.ok()) return st;
  switch (node.op) {
    case O::kBroadcast:
      return Broadcast(node, *in[0]);
    case O::kReshape:
      return Reshape(*in[0], node.shape);
    case O::kTranspose:
      return Transpose(*in[0],
                       node.attrs.dimensions.value_or(std::vector<int64_t>{}));
    case O::kBitcast:
      if (in[0]->type() != node.shape.type) {
        return BitcastConvertLiteral(*in[0], node.shape);
      }
      return Bitcast(node, *in[0]);
    case O::kCopy:
      return in[0]->Clone();
    case O::kSlice:
      return SliceOp(node, *in[0]);
    case O::kDynamicSlice:
      return DynamicSlice(node, in);
    case O::kDynamicUpdateSlice:
      if (!(st = need(2)).ok()) return st;
      return DynamicUpdateSlice(node, in);
    case O::kConcatenate:
      return Concatenate(node, in);
    case O::kPad:
      if (!(st = need(2)).ok()) return st;
      return Pad(node, *in[0], *in[1]);
    case O::kReverse:
      return Reverse(node, *in[0]);
    case O::kIota:
      return Iota(node);
    case O::kConvert:
      return ConvertLiteral(*in[0], node.shape.type);
    case O::kBitcastConvert:
      return BitcastConvertLiteral(*in[0], node.shape);
    case O::kReducePrecision:
      return ReducePrecision(node, *in[0]);
    default:
      return absl::UnimplementedError(
          Cat("not a shape op: ", OpcodeName(node.op)));
  }
}

}  // namespace hlo::exec
