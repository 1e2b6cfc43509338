// dot (batch and contracting dims; f32/f64 accumulation through the packed
// GEMM of gemm.h reading the operands in place as strided [B,M,K] x [B,K,N]
// views, other accumulators transposed and multiplied row by row) and
// convolution
// (dim_labels, window with padding/strides/dilations/reversal, feature
// and batch groups). Accumulation is in f32 for f32 and narrower floats,
// f64 for f64, int64 for integers (wrapped on store), complex as is.
#include <algorithm>
#include <complex>
#include <optional>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "exec/evaluator_internal.h"
#include "exec/gemm.h"
#include "exec/strings.h"

namespace hlo::exec {
namespace {

// Loads every element of `lit` as Acc.
template <typename Acc>
std::vector<Acc> LoadAs(const Literal& lit) {
  std::vector<Acc> out(lit.count());
  VisitType(lit.type(), [&]<typename T>() {
    const auto* d = lit.data<typename T::S>();
    for (int64_t i = 0; i < lit.count(); ++i) {
      auto c = T::Load(d[i]);
      if constexpr (T::kKind == Kind::kComplex) {
        if constexpr (std::is_same_v<Acc, std::complex<float>> ||
                      std::is_same_v<Acc, std::complex<double>>) {
          out[i] = Acc(c.real(), c.imag());
        } else {
          out[i] = static_cast<Acc>(c.real());
        }
      } else {
        out[i] = static_cast<Acc>(c);
      }
    }
  });
  return out;
}

template <typename Acc>
void StoreFrom(const std::vector<Acc>& acc, Literal& out) {
  VisitType(out.type(), [&]<typename T>() {
    auto* d = out.data<typename T::S>();
    using C = typename T::C;
    for (int64_t i = 0; i < out.count(); ++i) {
      if constexpr (T::kKind == Kind::kComplex) {
        if constexpr (std::is_same_v<Acc, std::complex<float>> ||
                      std::is_same_v<Acc, std::complex<double>>) {
          d[i] = C(acc[i].real(), acc[i].imag());
        } else {
          d[i] = C(static_cast<typename C::value_type>(acc[i]), 0);
        }
      } else if constexpr (std::is_same_v<Acc, std::complex<float>> ||
                           std::is_same_v<Acc, std::complex<double>>) {
        d[i] = T::Store(static_cast<C>(acc[i].real()));
      } else if constexpr (T::kKind == Kind::kPred) {
        d[i] = acc[i] != Acc(0);
      } else if constexpr (T::kKind == Kind::kFloat) {
        d[i] = T::Store(static_cast<C>(acc[i]));
      } else if constexpr (std::is_floating_point_v<Acc>) {
        d[i] = T::Store(SaturatingFloatToInt<C>(acc[i]));
      } else {
        d[i] = T::Store(static_cast<C>(acc[i]));
      }
    }
  });
}

// C[b] = A[b] (MxK) * B[b] (KxN) for the accumulators Gemm does not cover
// (integers, complex): row by row over contiguous memory, blocked over K.
template <typename Acc>
void MatMul(const Acc* a, const Acc* b, Acc* c, int64_t batch, int64_t m,
            int64_t k, int64_t n) {
  for (int64_t bi = 0; bi < batch; ++bi) {
    const Acc* A = a + bi * m * k;
    const Acc* B = b + bi * k * n;
    Acc* Cm = c + bi * m * n;
    constexpr int64_t kBlock = 256;
    for (int64_t k0 = 0; k0 < k; k0 += kBlock) {
      const int64_t k1 = std::min(k, k0 + kBlock);
      for (int64_t i = 0; i < m; ++i) {
        Acc* crow = Cm + i * n;
        for (int64_t kk = k0; kk < k1; ++kk) {
          const Acc av = A[i * k + kk];
          const Acc* brow = B + kk * n;
          for (int64_t j = 0; j < n; ++j) crow[j] += av * brow[j];
        }
      }
    }
  }
}

// The dims `group` of a row-major array taken together as one index (in
// the group's order): its stride when they collapse to one (each dim's
// stride is the next one's stride times its size, size-1 dims aside),
// nullopt when they do not.
std::optional<int64_t> GroupStride(const std::vector<int64_t>& dims,
                                   const std::vector<int64_t>& strides,
                                   const std::vector<int64_t>& group) {
  int64_t last = -1;
  for (int64_t d : group) {
    if (dims[d] == 1) continue;
    if (last >= 0 && strides[last] != strides[d] * dims[d]) return std::nullopt;
    last = d;
  }
  return last < 0 ? 0 : strides[last];
}

// An operand of a dot as a strided [batch, rows, cols] view. `holder` keeps
// a transposed copy when the dims do not collapse to three strides.
struct DotOperand {
  std::optional<Literal> holder;
  const Literal* lit = nullptr;
  int64_t batch_stride = 0, row_stride = 0, col_stride = 0;
};

absl::Status MakeDotOperand(const Literal& x, const std::vector<int64_t>& batch,
                            const std::vector<int64_t>& rows,
                            const std::vector<int64_t>& cols, int64_t nrows,
                            int64_t ncols, DotOperand* op) {
  const std::vector<int64_t> strides = RowMajorStrides(x.dims());
  auto bs = GroupStride(x.dims(), strides, batch);
  auto rs = GroupStride(x.dims(), strides, rows);
  auto cs = GroupStride(x.dims(), strides, cols);
  if (bs && rs && cs) {
    op->lit = &x;
    op->batch_stride = *bs;
    op->row_stride = *rs;
    op->col_stride = *cs;
    return absl::OkStatus();
  }
  std::vector<int64_t> perm = batch;
  perm.insert(perm.end(), rows.begin(), rows.end());
  perm.insert(perm.end(), cols.begin(), cols.end());
  auto t = Transpose(x, perm);
  if (!t.ok()) return t.status();
  op->holder = std::move(*t);
  op->lit = &*op->holder;
  op->batch_stride = nrows * ncols;
  op->row_stride = ncols;
  op->col_stride = 1;
  return absl::OkStatus();
}

template <typename Acc>
constexpr PrimitiveType AccType() {
  return std::is_same_v<Acc, float> ? PrimitiveType::kF32 : PrimitiveType::kF64;
}

// f32 and f64 accumulation through the packed GEMM: operands of the
// accumulator's type are read in place; others are converted first.
template <typename Acc>
absl::StatusOr<Literal> DotGemm(const Node& node, const DotOperand& l,
                                const DotOperand& r, int64_t batch, int64_t m,
                                int64_t k, int64_t n) {
  // Gemm (or StoreFrom) writes every element.
  auto out = node.shape.is_tuple() ? Literal::Create(node.shape)
                                   : Literal::CreateArrayForOverwrite(
                                         node.shape.type, node.shape.dims);
  if (!out.ok()) return out;
  if (out->count() != batch * m * n)
    return Bad(Cat("dot result has ", batch * m * n, " elements, shape says ",
                   out->count()));
  std::vector<Acc> lconv, rconv, cbuf;
  auto view = [](const DotOperand& op, std::vector<Acc>& conv) {
    const Acc* data;
    if (op.lit->type() == AccType<Acc>()) {
      data = op.lit->data<Acc>();
    } else {
      conv = LoadAs<Acc>(*op.lit);
      data = conv.data();
    }
    return StridedMatrix<Acc>{data, op.batch_stride, op.row_stride,
                              op.col_stride};
  };
  const StridedMatrix<Acc> a = view(l, lconv), b = view(r, rconv);
  const bool direct = out->type() == AccType<Acc>();
  if (!direct) cbuf.resize(out->count());
  Acc* c = direct ? out->data<Acc>() : cbuf.data();
  Gemm(batch, m, n, k, a, b, c);
  if (!direct) StoreFrom<Acc>(cbuf, *out);
  return out;
}

template <typename Acc>
absl::StatusOr<Literal> DotWith(const Node& node, const Literal& lt,
                                const Literal& rt, int64_t batch, int64_t m,
                                int64_t k, int64_t n) {
  std::vector<Acc> a = LoadAs<Acc>(lt), b = LoadAs<Acc>(rt);
  std::vector<Acc> c(batch * m * n, Acc(0));
  MatMul<Acc>(a.data(), b.data(), c.data(), batch, m, k, n);
  auto out = Literal::Create(node.shape);
  if (!out.ok()) return out;
  if (out->count() != static_cast<int64_t>(c.size()))
    return Bad(Cat("dot result has ", c.size(), " elements, shape says ",
                   out->count()));
  StoreFrom<Acc>(c, *out);
  return out;
}

template <typename F>
auto WithAcc(PrimitiveType out, F f) {
  using P = PrimitiveType;
  switch (out) {
    case P::kF64:
      return f(double{});
    case P::kC64:
      return f(std::complex<float>{});
    case P::kC128:
      return f(std::complex<double>{});
    default:
      if (IsSignedInteger(out) || IsUnsignedInteger(out) || out == P::kPred)
        return f(int64_t{});
      return f(float{});
  }
}

}  // namespace

absl::StatusOr<Literal> EvalDot(const Node& node, const Literal& lhs,
                                const Literal& rhs,
                                const DotDimensionNumbers& dn) {
  if (lhs.is_tuple() || rhs.is_tuple()) return Bad("dot of a tuple");
  auto split = [](const Literal& x, const std::vector<int64_t>& batch,
                  const std::vector<int64_t>& contract,
                  std::vector<int64_t>* free) -> absl::Status {
    std::vector<bool> used(x.rank(), false);
    for (int64_t d : batch) {
      if (d < 0 || d >= x.rank() || used[d]) return Bad("bad dot dimension");
      used[d] = true;
    }
    for (int64_t d : contract) {
      if (d < 0 || d >= x.rank() || used[d]) return Bad("bad dot dimension");
      used[d] = true;
    }
    for (int d = 0; d < x.rank(); ++d)
      if (!used[d]) free->push_back(d);
    return absl::OkStatus();
  };
  std::vector<int64_t> lf, rf;
  if (auto s = split(lhs, dn.lhs_batch_dimensions,
                     dn.lhs_contracting_dimensions, &lf);
      !s.ok())
    return s;
  if (auto s = split(rhs, dn.rhs_batch_dimensions,
                     dn.rhs_contracting_dimensions, &rf);
      !s.ok())
    return s;
  if (dn.lhs_contracting_dimensions.size() !=
      dn.rhs_contracting_dimensions.size())
    return Bad("contracting dimension counts differ");
  int64_t batch = 1, m = 1, k = 1, n = 1;
  for (size_t i = 0; i < dn.lhs_batch_dimensions.size(); ++i) {
    int64_t a = lhs.dims()[dn.lhs_batch_dimensions[i]];
    if (a != rhs.dims()[dn.rhs_batch_dimensions[i]])
      return Bad("batch sizes differ");
    batch *= a;
  }
  for (size_t i = 0; i < dn.lhs_contracting_dimensions.size(); ++i) {
    int64_t a = lhs.dims()[dn.lhs_contracting_dimensions[i]];
    if (a != rhs.dims()[dn.rhs_contracting_dimensions[i]])
      return Bad("contracting sizes differ");
    k *= a;
  }
  for (int64_t d : lf) m *= lhs.dims()[d];
  for (int64_t d : rf) n *= rhs.dims()[d];
  return WithAcc(node.shape.type, [&](auto acc) -> absl::StatusOr<Literal> {
    using Acc = decltype(acc);
    if constexpr (std::is_same_v<Acc, float> || std::is_same_v<Acc, double>) {
      DotOperand l, r;
      if (auto s = MakeDotOperand(lhs, dn.lhs_batch_dimensions, lf,
                                  dn.lhs_contracting_dimensions, m, k, &l);
          !s.ok())
        return s;
      if (auto s = MakeDotOperand(rhs, dn.rhs_batch_dimensions,
                                  dn.rhs_contracting_dimensions, rf, k, n, &r);
          !s.ok())
        return s;
      return DotGemm<Acc>(node, l, r, batch, m, k, n);
    } else {
      std::vector<int64_t> lp = dn.lhs_batch_dimensions,
                           rp = dn.rhs_batch_dimensions;
      lp.insert(lp.end(), lf.begin(), lf.end());
      lp.insert(lp.end(), dn.lhs_contracting_dimensions.begin(),
                dn.lhs_contracting_dimensions.end());
      rp.insert(rp.end(), dn.rhs_contracting_dimensions.begin(),
                dn.rhs_contracting_dimensions.end());
      rp.insert(rp.end(), rf.begin(), rf.end());
      auto lt = Transpose(lhs, lp);
      if (!lt.ok()) return lt;
      auto rt = Transpose(rhs, rp);
      if (!rt.ok()) return rt;
      return DotWith<Acc>(node, *lt, *rt, batch, m, k, n);
    }
  });
}

namespace {

template <typename Acc>
absl::StatusOr<Literal> ConvWith(const Node& node, const Literal& in,
                                 const Literal& ker) {
  const ConvolutionDimensionNumbers& dn =
      *node.attrs.convolution_dimension_numbers;
  const int ns = static_cast<int>(dn.input_spatial_dimensions.size());
  if (static_cast<int>(dn.kernel_spatial_dimensions.size()) != ns ||
      static_cast<int>(dn.output_spatial_dimensions.size()) != ns)
    return Bad("convolution spatial ranks differ");
  Window window;
  if (node.attrs.window) window = *node.attrs.window;
  window.dimensions.resize(ns);
  // Canonical layouts: input [N, C, S...], kernel [O, I, S...].
  std::vector<int64_t> ip = {dn.input_batch_dimension,
                             dn.input_feature_dimension};
  ip.insert(ip.end(), dn.input_spatial_dimensions.begin(),
            dn.input_spatial_dimensions.end());
  std::vector<int64_t> kp = {dn.kernel_output_feature_dimension,
                             dn.kernel_input_feature_dimension};
  kp.insert(kp.end(), dn.kernel_spatial_dimensions.begin(),
            dn.kernel_spatial_dimensions.end());
  auto it = Transpose(in, ip);
  if (!it.ok()) return it;
  auto kt = Transpose(ker, kp);
  if (!kt.ok()) return kt;
  std::vector<int64_t> op = {dn.output_batch_dimension,
                             dn.output_feature_dimension};
  op.insert(op.end(), dn.output_spatial_dimensions.begin(),
            dn.output_spatial_dimensions.end());
  if (static_cast<int>(op.size()) != static_cast<int>(node.shape.dims.size()))
    return Bad("convolution output rank mismatch");
  std::vector<int64_t> out_dims;
  for (int64_t d : op) {
    if (d < 0 || d >= static_cast<int64_t>(node.shape.dims.size()))
      return Bad("bad output dim");
    out_dims.push_back(node.shape.dims[d]);
  }
  const int64_t fgc = node.attrs.feature_group_count.value_or(1);
  const int64_t bgc = node.attrs.batch_group_count.value_or(1);
  const std::vector<int64_t>& idims = it->dims();
  const std::vector<int64_t>& kdims = kt->dims();
  const int64_t N_in = idims[0], C = idims[1];
  const int64_t O = kdims[0], I = kdims[1];
  const int64_t N = out_dims[0];
  if (fgc < 1 || bgc < 1 || C != I * fgc || O % fgc || O % bgc ||
      N_in != N * bgc || out_dims[1] != O)
    return Bad("convolution feature/batch group sizes do not fit");
  for (int s = 0; s < ns; ++s)
    if (kdims[2 + s] != window.dimensions[s].size && node.attrs.window)
      return Bad("window size differs from the kernel");
  std::vector<Acc> x = LoadAs<Acc>(*it), w = LoadAs<Acc>(*kt);
  auto out_c = Literal::CreateArray(node.shape.type, out_dims);
  if (!out_c.ok()) return out_c;
  std::vector<Acc> y(out_c->count(), Acc(0));
  const std::vector<int64_t> xs = RowMajorStrides(idims),
                             ws = RowMajorStrides(kdims);
  std::vector<int64_t> osp(out_dims.begin() + 2, out_dims.end());
  std::vector<int64_t> ksp(kdims.begin() + 2, kdims.end());
  const int64_t o_per_fg = O / fgc, o_per_bg = O / bgc;
  int64_t yi = 0;
  std::vector<int64_t> opos(ns, 0), kpos(ns, 0);
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t o = 0; o < O; ++o) {
      const int64_t g = o / o_per_fg;
      const int64_t nb = (o / o_per_bg) * N + n;
      std::fill(opos.begin(), opos.end(), 0);
      do {
        Acc sum(0);
        std::fill(kpos.begin(), kpos.end(), 0);
        if (!ksp.empty() && std::any_of(ksp.begin(), ksp.end(),
                                        [](int64_t d) { return d == 0; })) {
          y[yi++] = sum;
          continue;
        }
        do {
          int64_t xoff = nb * xs[0], woff = o * ws[0];
          bool valid = true;
          for (int s = 0; s < ns && valid; ++s) {
            const WindowDimension& wd = window.dimensions[s];
            int64_t kk = wd.window_reversal ? ksp[s] - 1 - kpos[s] : kpos[s];
            int64_t pos = opos[s] * wd.stride - wd.padding_low +
                          kpos[s] * wd.window_dilation;
            if (pos % wd.base_dilation) {
              valid = false;
              break;
            }
            pos /= wd.base_dilation;
            if (pos < 0 || pos >= idims[2 + s]) {
              valid = false;
              break;
            }
            xoff += pos * xs[2 + s];
            woff += kk * ws[2 + s];
          }
          if (!valid) continue;
          for (int64_t i = 0; i < I; ++i)
            sum += x[xoff + (g * I + i) * xs[1]] * w[woff + i * ws[1]];
        } while (ns > 0 && NextIndex(kpos, ksp));
        y[yi++] = sum;
      } while (ns > 0 && NextIndex(opos, osp));
    }
  }
  StoreFrom<Acc>(y, *out_c);
  std::vector<int64_t> inverse(op.size());
  for (size_t j = 0; j < op.size(); ++j) inverse[op[j]] = j;
  return Transpose(*out_c, inverse);
}

}  // namespace

absl::StatusOr<Literal> EvalConvolution(const Node& node, const Literal& lhs,
                                        const Literal& rhs) {
  if (!node.attrs.convolution_dimension_numbers)
    return Bad("convolution without dim_labels=");
  if (lhs.is_tuple() || rhs.is_tuple()) return Bad("convolution of a tuple");
  return WithAcc(node.shape.type, [&](auto acc) {
    return ConvWith<decltype(acc)>(node, lhs, rhs);
  });
}

}  // namespace hlo::exec
