// cholesky and triangular-solve over the two minor dimensions (leading
// dimensions are batch), computed in f64/complex<f64> and stored back.
// cholesky writes the factor into the requested triangle and zeros the
// other; a matrix that is not positive definite gives NaNs, as XLA does.
#include <complex>
#include <vector>

#include "exec/evaluator_internal.h"
#include "exec/strings.h"

namespace hlo::exec {
namespace {

using Cd = std::complex<double>;

}  // namespace

std::vector<Cd> LoadComplex(const Literal& x) {
  std::vector<Cd> out(x.count());
  VisitType(x.type(), [&]<typename T>() {
    const auto* d = x.data<typename T::S>();
    for (int64_t i = 0; i < x.count(); ++i) {
      auto c = T::Load(d[i]);
      if constexpr (T::kKind == Kind::kComplex) {
        out[i] = Cd(c.real(), c.imag());
      } else {
        out[i] = Cd(static_cast<double>(c), 0);
      }
    }
  });
  return out;
}

void StoreComplex(const std::vector<Cd>& v, Literal& out) {
  VisitType(out.type(), [&]<typename T>() {
    auto* d = out.data<typename T::S>();
    using C = typename T::C;
    for (int64_t i = 0; i < out.count(); ++i) {
      if constexpr (T::kKind == Kind::kComplex) {
        d[i] = C(v[i].real(), v[i].imag());
      } else if constexpr (T::kKind == Kind::kFloat) {
        d[i] = T::Store(static_cast<C>(v[i].real()));
      }
    }
  });
}

absl::StatusOr<Literal> EvalCholesky(const Node& node, const Literal& a) {
  if (a.rank() < 2 || a.dims()[a.rank() - 1] != a.dims()[a.rank() - 2])
    return Bad("cholesky needs square matrices");
  if (!IsFloatingPoint(a.type()) && !IsComplex(a.type()))
    return Bad("cholesky of a non-float type");
  const bool lower = node.attrs.cholesky ? node.attrs.cholesky->lower : false;
  const int64_t n = a.dims().back(), batch = n ? a.count() / (n * n) : 0;
  std::vector<Cd> m = LoadComplex(a), out(m.size(), Cd(0));
  for (int64_t b = 0; b < batch; ++b) {
    // Work on the lower triangle; the upper case reads A^H.
    auto at = [&](int64_t i, int64_t j) {
      const Cd v = lower ? m[b * n * n + i * n + j] : m[b * n * n + j * n + i];
      return lower ? v : std::conj(v);
    };
    std::vector<Cd> L(n * n, Cd(0));
    for (int64_t j = 0; j < n; ++j) {
      Cd s = at(j, j);
      for (int64_t k = 0; k < j; ++k)
        s -= L[j * n + k] * std::conj(L[j * n + k]);
      const double d = s.real() > 0 ? std::sqrt(s.real()) : std::nan("");
      L[j * n + j] = d;
      for (int64_t i = j + 1; i < n; ++i) {
        Cd t = at(i, j);
        for (int64_t k = 0; k < j; ++k)
          t -= L[i * n + k] * std::conj(L[j * n + k]);
        L[i * n + j] = t / d;
      }
    }
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j <= i; ++j) {
        if (lower) {
          out[b * n * n + i * n + j] = L[i * n + j];
        } else {
          out[b * n * n + j * n + i] = std::conj(L[i * n + j]);
        }
      }
  }
  auto lit = Literal::Create(node.shape);
  if (!lit.ok()) return lit;
  if (lit->count() != a.count()) return Bad("cholesky result shape differs");
  StoreComplex(out, *lit);
  return lit;
}

absl::StatusOr<Literal> EvalTriangularSolve(const Node& node, const Literal& a,
                                            const Literal& b) {
  if (!node.attrs.triangular_solve)
    return Bad("triangular-solve without options");
  const TriangularSolveOptions& o = *node.attrs.triangular_solve;
  if (a.rank() < 2 || b.rank() != a.rank())
    return Bad("triangular-solve ranks");
  const int64_t n = a.dims().back();
  const int64_t rows = b.dims()[b.rank() - 2], cols = b.dims().back();
  const int64_t batch = n ? a.count() / (n * n) : 0;
  if ((o.left_side ? rows : cols) != n)
    return Bad("triangular-solve sizes differ");
  std::vector<Cd> A = LoadComplex(a), B = LoadComplex(b);
  const bool transpose = o.transpose_a != TriangularTranspose::kNoTranspose;
  const bool conj = o.transpose_a == TriangularTranspose::kAdjoint;
  // op(A)[i][j], reading only the given triangle.
  auto op = [&](int64_t base, int64_t i, int64_t j) -> Cd {
    int64_t r = transpose ? j : i, c = transpose ? i : j;
    if (o.lower ? c > r : c < r) return 0;
    if (r == c && o.unit_diagonal) return 1;
    Cd v = A[base + r * n + c];
    return conj ? std::conj(v) : v;
  };
  // After op, the matrix is lower when exactly one of (lower, transpose).
  const bool op_lower = o.lower != transpose;
  for (int64_t bt = 0; bt < batch; ++bt) {
    const int64_t abase = bt * n * n, bbase = bt * rows * cols;
    if (o.left_side) {  // op(A) X = B, column by column
      for (int64_t c = 0; c < cols; ++c) {
        for (int64_t step = 0; step < n; ++step) {
          const int64_t i = op_lower ? step : n - 1 - step;
          Cd s = B[bbase + i * cols + c];
          for (int64_t k = 0; k < n; ++k) {
            if (op_lower ? k >= i : k <= i) continue;
            s -= op(abase, i, k) * B[bbase + k * cols + c];
          }
          B[bbase + i * cols + c] = s / op(abase, i, i);
        }
      }
    } else {  // X op(A) = B, row by row: x_j depends on later/earlier x_k
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t step = 0; step < n; ++step) {
          const int64_t j = op_lower ? n - 1 - step : step;
          Cd s = B[bbase + r * cols + j];
          for (int64_t k = 0; k < n; ++k) {
            if (op_lower ? k <= j : k >= j) continue;
            s -= B[bbase + r * cols + k] * op(abase, k, j);
          }
          B[bbase + r * cols + j] = s / op(abase, j, j);
        }
      }
    }
  }
  auto lit = Literal::Create(node.shape);
  if (!lit.ok()) return lit;
  if (lit->count() != b.count())
    return Bad("triangular-solve result shape differs");
  StoreComplex(B, *lit);
  return lit;
}

}  // namespace hlo::exec
