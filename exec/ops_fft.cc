// fft: FFT / IFFT / RFFT / IRFFT over the last 1-3 dimensions, one line at a
// time in complex<double> (radix 2 for powers of two, a plain DFT otherwise).
#include <cmath>
#include <complex>
#include <numbers>
#include <vector>

#include "exec/evaluator_internal.h"
#include "exec/strings.h"

namespace hlo::exec {
namespace {

using Cd = std::complex<double>;

absl::Status Bad(const std::string& m) { return absl::InvalidArgumentError(m); }

void Transform(std::vector<Cd>& a, bool inverse) {
  const size_t n = a.size();
  if (n <= 1) return;
  const double sign = inverse ? 1 : -1;
  if ((n & (n - 1)) == 0) {
    for (size_t i = 1, j = 0; i < n; ++i) {
      size_t bit = n >> 1;
      for (; j & bit; bit >>= 1) j ^= bit;
      j ^= bit;
      if (i < j) std::swap(a[i], a[j]);
    }
    for (size_t len = 2; len <= n; len <<= 1) {
      const double ang = sign * 2 * std::numbers::pi / static_cast<double>(len);
      const Cd w(std::cos(ang), std::sin(ang));
      for (size_t i = 0; i < n; i += len) {
        Cd wk(1);
        for (size_t k = 0; k < len / 2; ++k) {
          const Cd u = a[i + k], v = a[i + k + len / 2] * wk;
          a[i + k] = u + v;
          a[i + k + len / 2] = u - v;
          wk *= w;
        }
      }
    }
  } else {
    std::vector<Cd> out(n);
    for (size_t k = 0; k < n; ++k) {
      Cd s = 0;
      for (size_t t = 0; t < n; ++t) {
        const double ang = sign * 2 * std::numbers::pi * static_cast<double>((k * t) % n) /
                           static_cast<double>(n);
        s += a[t] * Cd(std::cos(ang), std::sin(ang));
      }
      out[k] = s;
    }
    a = std::move(out);
  }
  if (inverse)
    for (Cd& x : a) x /= static_cast<double>(n);
}

// Transforms `data` (row-major `dims`) along `axis` in place.
void AlongAxis(std::vector<Cd>& data, const std::vector<int64_t>& dims, int axis,
               bool inverse) {
  int64_t inner = 1, outer = 1;
  for (size_t d = axis + 1; d < dims.size(); ++d) inner *= dims[d];
  for (int d = 0; d < axis; ++d) outer *= dims[d];
  const int64_t n = dims[axis];
  std::vector<Cd> line(n);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      const int64_t base = o * n * inner + i;
      for (int64_t k = 0; k < n; ++k) line[k] = data[base + k * inner];
      Transform(line, inverse);
      for (int64_t k = 0; k < n; ++k) data[base + k * inner] = line[k];
    }
}

std::vector<Cd> Load(const Literal& x) {
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

}  // namespace

absl::StatusOr<Literal> EvalFft(const Node& node, const Literal& x) {
  if (!node.attrs.fft) return Bad("fft without fft_type/fft_length");
  const FftOptions& o = *node.attrs.fft;
  const int k = static_cast<int>(o.length.size());
  const int rank = x.rank();
  if (k < 1 || k > 3 || k > rank) return Bad("fft_length must name 1 to 3 dimensions");
  auto out = Literal::Create(node.shape);
  if (!out.ok()) return out;
  std::vector<int64_t> dims = x.dims();
  std::vector<Cd> data = Load(x);
  const int first = rank - k;
  if (o.type == FftType::kFft || o.type == FftType::kIfft) {
    for (int a = first; a < rank; ++a) AlongAxis(data, dims, a, o.type == FftType::kIfft);
  } else if (o.type == FftType::kRfft) {
    for (int a = first; a < rank; ++a) AlongAxis(data, dims, a, false);
    // Keep the first n/2 + 1 bins of the last dimension.
    const int64_t n = dims.back(), m = n / 2 + 1, rows = n ? x.count() / n : 0;
    std::vector<Cd> kept(rows * m);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t j = 0; j < m; ++j) kept[r * m + j] = data[r * n + j];
    data = std::move(kept);
    dims.back() = m;
  } else {  // IRFFT: inverse on leading fft dims, then Hermitian last dim
    for (int a = first; a < rank - 1; ++a) AlongAxis(data, dims, a, true);
    const int64_t m = dims.back(), n = o.length.back(), rows = m ? x.count() / m : 0;
    std::vector<Cd> full(rows * n);
    std::vector<Cd> line(n);
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t j = 0; j < n; ++j) {
        line[j] = j < m ? data[r * m + j] : std::conj(data[r * m + (n - j)]);
        if (j >= m && n - j >= m) line[j] = 0;
      }
      Transform(line, true);
      for (int64_t j = 0; j < n; ++j) full[r * n + j] = line[j];
    }
    data = std::move(full);
    dims.back() = n;
  }
  if (static_cast<int64_t>(data.size()) != out->count())
    return Bad(Cat("fft result has ", data.size(), " elements, the shape ", out->count()));
  VisitType(out->type(), [&]<typename T>() {
    auto* d = out->data<typename T::S>();
    using C = typename T::C;
    for (int64_t i = 0; i < out->count(); ++i) {
      if constexpr (T::kKind == Kind::kComplex) {
        d[i] = C(data[i].real(), data[i].imag());
      } else if constexpr (T::kKind == Kind::kFloat) {
        d[i] = T::Store(static_cast<C>(data[i].real()));
      }
    }
  });
  return out;
}

}  // namespace hlo::exec
