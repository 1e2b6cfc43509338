// fft: FFT / IFFT / RFFT / IRFFT over the last 1-3 dimensions, one line at a
// time in complex<double> (radix 2 for powers of two, a plain DFT otherwise),
// lines split over the worker pool, twiddles tabulated once per length.
#include <algorithm>
#include <cmath>
#include <complex>
#include <numbers>
#include <vector>

#include "exec/evaluator_internal.h"
#include "exec/parallel.h"
#include "exec/strings.h"

namespace hlo::exec {
namespace {

using Cd = std::complex<double>;

// Twiddles of one transform length: w[j] = exp(sign * 2 pi i j / n), each
// from cos/sin directly (no drifting recurrence).
struct Twiddles {
  bool inverse;
  std::vector<Cd> w;
};
Twiddles MakeTwiddles(size_t n, bool inverse) {
  Twiddles t{inverse, std::vector<Cd>(n)};
  const double sign = inverse ? 1 : -1;
  for (size_t j = 0; j < n; ++j) {
    const double ang = sign * 2 * std::numbers::pi * static_cast<double>(j) /
                       static_cast<double>(n);
    t.w[j] = Cd(std::cos(ang), std::sin(ang));
  }
  return t;
}

// a * b without the NaN/inf recovery of std::complex's operator* (a
// library call per product); IEEE rules still hold for finite values.
inline Cd Mul(Cd a, Cd b) {
  return Cd(a.real() * b.real() - a.imag() * b.imag(),
            a.real() * b.imag() + a.imag() * b.real());
}

// `scratch` holds n elements for the non-power-of-two DFT.
void Transform(std::vector<Cd>& a, const Twiddles& tw,
               std::vector<Cd>& scratch) {
  const size_t n = a.size();
  if (n <= 1) return;
  if ((n & (n - 1)) == 0) {
    for (size_t i = 1, j = 0; i < n; ++i) {
      size_t bit = n >> 1;
      for (; j & bit; bit >>= 1) j ^= bit;
      j ^= bit;
      if (i < j) std::swap(a[i], a[j]);
    }
    for (size_t len = 2; len <= n; len <<= 1) {
      const size_t half = len / 2, step = n / len;
      for (size_t i = 0; i < n; i += len) {
        for (size_t k = 0; k < half; ++k) {
          const Cd u = a[i + k], v = Mul(a[i + k + half], tw.w[k * step]);
          a[i + k] = u + v;
          a[i + k + half] = u - v;
        }
      }
    }
  } else {
    scratch.resize(n);
    for (size_t k = 0; k < n; ++k) {
      Cd s = 0;
      for (size_t t = 0; t < n; ++t) s += Mul(a[t], tw.w[(k * t) % n]);
      scratch[k] = s;
    }
    std::swap(a, scratch);
  }
  if (tw.inverse)
    for (Cd& x : a) x /= static_cast<double>(n);
}

// Transforms `data` (row-major `dims`) along `axis` in place; the lines
// are independent and split over the worker pool.
void AlongAxis(std::vector<Cd>& data, const std::vector<int64_t>& dims,
               int axis, bool inverse) {
  int64_t inner = 1, outer = 1;
  for (size_t d = axis + 1; d < dims.size(); ++d) inner *= dims[d];
  for (int d = 0; d < axis; ++d) outer *= dims[d];
  const int64_t n = dims[axis];
  const Twiddles tw = MakeTwiddles(n, inverse);
  const int64_t lines = outer * inner;
  const int threads = static_cast<int>(std::min<int64_t>(
      ExecThreads(), std::max<int64_t>(1, lines * n / (int64_t{1} << 16))));
  ParallelFor(threads, [&](int t) {
    const Range r = SplitRange(lines, threads, 1, t);
    std::vector<Cd> line(n), scratch;
    for (int64_t l = r.begin; l < r.end; ++l) {
      const int64_t o = l / inner, i = l % inner;
      const int64_t base = o * n * inner + i;
      for (int64_t k = 0; k < n; ++k) line[k] = data[base + k * inner];
      Transform(line, tw, scratch);
      for (int64_t k = 0; k < n; ++k) data[base + k * inner] = line[k];
    }
  });
}

}  // namespace

absl::StatusOr<Literal> EvalFft(const Node& node, const Literal& x) {
  if (!node.attrs.fft) return Bad("fft without fft_type/fft_length");
  const FftOptions& o = *node.attrs.fft;
  const int k = static_cast<int>(o.length.size());
  const int rank = x.rank();
  if (k < 1 || k > 3 || k > rank)
    return Bad("fft_length must name 1 to 3 dimensions");
  auto out = Literal::Create(node.shape);
  if (!out.ok()) return out;
  // A zero fft_length transforms nothing: XLA answers zeros.
  if (std::find(o.length.begin(), o.length.end(), 0) != o.length.end()) {
    return out;
  }
  std::vector<int64_t> dims = x.dims();
  std::vector<Cd> data = LoadComplex(x);
  const int first = rank - k;
  if (o.type == FftType::kFft || o.type == FftType::kIfft) {
    for (int a = first; a < rank; ++a)
      AlongAxis(data, dims, a, o.type == FftType::kIfft);
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
    const int64_t m = dims.back(), n = o.length.back(),
                  rows = m ? x.count() / m : 0;
    std::vector<Cd> full(rows * n);
    std::vector<Cd> line(n), scratch;
    const Twiddles tw = MakeTwiddles(n, true);
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t j = 0; j < n; ++j) {
        line[j] = j < m ? data[r * m + j] : std::conj(data[r * m + (n - j)]);
        if (j >= m && n - j >= m) line[j] = 0;
      }
      Transform(line, tw, scratch);
      for (int64_t j = 0; j < n; ++j) full[r * n + j] = line[j];
    }
    data = std::move(full);
    dims.back() = n;
  }
  if (static_cast<int64_t>(data.size()) != out->count())
    return Bad(Cat("fft result has ", data.size(), " elements, the shape ",
                   out->count()));
  StoreComplex(data, *out);
  return out;
}

}  // namespace hlo::exec
