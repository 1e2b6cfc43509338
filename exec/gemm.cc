// The GEMM: Goto/BLIS blocking. For each NC-wide column block of C and each
// KC-deep slice of the product, B's block is packed into NR-wide panels
// (kc x NR each, contiguous), then for each MC-tall row block A's block is
// packed into MR-tall panels (kc x MR each), and a register-tile
// micro-kernel computes each MR x NR tile of C from one A panel and one B
// panel. Packing copies any strides into this layout and zero-pads the
// edges; edge tiles are computed into a scratch tile and the valid part is
// copied out. Threads split the batch, or else the larger of M and N.
#include "exec/gemm.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string_view>
#include <type_traits>
#include <vector>

#include "exec/parallel.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define HLO_LSP_GEMM_X86 1
#endif

namespace hlo::exec {
namespace {

// kc: depth of the packed slices; the micro-kernel's inner loop count.
// MC rows of packed A stay in L2, a kc x NR panel of B in L1.
constexpr int64_t kKc = 256;
constexpr int64_t kMc = 240;   // a multiple of every MR below
constexpr int64_t kNc = 4096;  // a multiple of every NR below

// C[0..MR, 0..NR] (row stride ldc) = (accumulate ? C : 0) + Ap * Bp, where
// Ap holds kc columns of MR values and Bp kc rows of NR values.
template <typename T>
using KernelFn = void (*)(int64_t kc, const T* ap, const T* bp, T* c,
                          int64_t ldc, bool accumulate);

template <typename T>
struct Kernel {
  KernelFn<T> fn;
  int64_t mr, nr;
  const char* name;
};

// ------------------------------------------------------------ portable --
template <typename T, int MR, int NR>
void KernelPortable(int64_t kc, const T* ap, const T* bp, T* c, int64_t ldc,
                    bool accumulate) {
  T acc[MR][NR] = {};
  for (int64_t p = 0; p < kc; ++p) {
    for (int i = 0; i < MR; ++i) {
      const T av = ap[i];
      for (int j = 0; j < NR; ++j) acc[i][j] += av * bp[j];
    }
    ap += MR;
    bp += NR;
  }
  for (int i = 0; i < MR; ++i) {
    T* row = c + i * ldc;
    for (int j = 0; j < NR; ++j)
      row[j] = accumulate ? row[j] + acc[i][j] : acc[i][j];
  }
}

#ifdef HLO_LSP_GEMM_X86
// --------------------------------------------------------------- AVX2 --
// 6 x 16 floats: 12 ymm accumulators, 2 for B, 1 for the broadcast.
__attribute__((target("avx2,fma"))) void KernelF32Avx2(int64_t kc,
                                                       const float* ap,
                                                       const float* bp,
                                                       float* c, int64_t ldc,
                                                       bool accumulate) {
  constexpr int MR = 6;
  __m256 acc[MR][2];
#pragma GCC unroll 6
  for (int i = 0; i < MR; ++i) acc[i][0] = acc[i][1] = _mm256_setzero_ps();
  for (int64_t p = 0; p < kc; ++p) {
    const __m256 b0 = _mm256_loadu_ps(bp), b1 = _mm256_loadu_ps(bp + 8);
#pragma GCC unroll 6
    for (int i = 0; i < MR; ++i) {
      const __m256 a = _mm256_broadcast_ss(ap + i);
      acc[i][0] = _mm256_fmadd_ps(a, b0, acc[i][0]);
      acc[i][1] = _mm256_fmadd_ps(a, b1, acc[i][1]);
    }
    ap += MR;
    bp += 16;
  }
#pragma GCC unroll 6
  for (int i = 0; i < MR; ++i) {
    float* row = c + i * ldc;
    if (accumulate) {
      acc[i][0] = _mm256_add_ps(acc[i][0], _mm256_loadu_ps(row));
      acc[i][1] = _mm256_add_ps(acc[i][1], _mm256_loadu_ps(row + 8));
    }
    _mm256_storeu_ps(row, acc[i][0]);
    _mm256_storeu_ps(row + 8, acc[i][1]);
  }
}

// 6 x 8 doubles.
__attribute__((target("avx2,fma"))) void KernelF64Avx2(int64_t kc,
                                                       const double* ap,
                                                       const double* bp,
                                                       double* c, int64_t ldc,
                                                       bool accumulate) {
  constexpr int MR = 6;
  __m256d acc[MR][2];
#pragma GCC unroll 6
  for (int i = 0; i < MR; ++i) acc[i][0] = acc[i][1] = _mm256_setzero_pd();
  for (int64_t p = 0; p < kc; ++p) {
    const __m256d b0 = _mm256_loadu_pd(bp), b1 = _mm256_loadu_pd(bp + 4);
#pragma GCC unroll 6
    for (int i = 0; i < MR; ++i) {
      const __m256d a = _mm256_broadcast_sd(ap + i);
      acc[i][0] = _mm256_fmadd_pd(a, b0, acc[i][0]);
      acc[i][1] = _mm256_fmadd_pd(a, b1, acc[i][1]);
    }
    ap += MR;
    bp += 8;
  }
#pragma GCC unroll 6
  for (int i = 0; i < MR; ++i) {
    double* row = c + i * ldc;
    if (accumulate) {
      acc[i][0] = _mm256_add_pd(acc[i][0], _mm256_loadu_pd(row));
      acc[i][1] = _mm256_add_pd(acc[i][1], _mm256_loadu_pd(row + 4));
    }
    _mm256_storeu_pd(row, acc[i][0]);
    _mm256_storeu_pd(row + 4, acc[i][1]);
  }
}

// ------------------------------------------------------------- AVX-512 --
// 12 x 32 floats: 24 zmm accumulators, 2 for B, 1 for the broadcast.
__attribute__((target("avx512f,fma"))) void KernelF32Avx512(
    int64_t kc, const float* ap, const float* bp, float* c, int64_t ldc,
    bool accumulate) {
  constexpr int MR = 12;
  __m512 acc[MR][2];
#pragma GCC unroll 12
  for (int i = 0; i < MR; ++i) acc[i][0] = acc[i][1] = _mm512_setzero_ps();
  for (int64_t p = 0; p < kc; ++p) {
    const __m512 b0 = _mm512_loadu_ps(bp), b1 = _mm512_loadu_ps(bp + 16);
    _mm_prefetch(reinterpret_cast<const char*>(bp + 8 * 32), _MM_HINT_T0);
#pragma GCC unroll 12
    for (int i = 0; i < MR; ++i) {
      const __m512 a = _mm512_set1_ps(ap[i]);
      acc[i][0] = _mm512_fmadd_ps(a, b0, acc[i][0]);
      acc[i][1] = _mm512_fmadd_ps(a, b1, acc[i][1]);
    }
    ap += MR;
    bp += 32;
  }
#pragma GCC unroll 12
  for (int i = 0; i < MR; ++i) {
    float* row = c + i * ldc;
    if (accumulate) {
      acc[i][0] = _mm512_add_ps(acc[i][0], _mm512_loadu_ps(row));
      acc[i][1] = _mm512_add_ps(acc[i][1], _mm512_loadu_ps(row + 16));
    }
    _mm512_storeu_ps(row, acc[i][0]);
    _mm512_storeu_ps(row + 16, acc[i][1]);
  }
}

// 12 x 16 doubles.
__attribute__((target("avx512f,fma"))) void KernelF64Avx512(
    int64_t kc, const double* ap, const double* bp, double* c, int64_t ldc,
    bool accumulate) {
  constexpr int MR = 12;
  __m512d acc[MR][2];
#pragma GCC unroll 12
  for (int i = 0; i < MR; ++i) acc[i][0] = acc[i][1] = _mm512_setzero_pd();
  for (int64_t p = 0; p < kc; ++p) {
    const __m512d b0 = _mm512_loadu_pd(bp), b1 = _mm512_loadu_pd(bp + 8);
#pragma GCC unroll 12
    for (int i = 0; i < MR; ++i) {
      const __m512d a = _mm512_set1_pd(ap[i]);
      acc[i][0] = _mm512_fmadd_pd(a, b0, acc[i][0]);
      acc[i][1] = _mm512_fmadd_pd(a, b1, acc[i][1]);
    }
    ap += MR;
    bp += 16;
  }
#pragma GCC unroll 12
  for (int i = 0; i < MR; ++i) {
    double* row = c + i * ldc;
    if (accumulate) {
      acc[i][0] = _mm512_add_pd(acc[i][0], _mm512_loadu_pd(row));
      acc[i][1] = _mm512_add_pd(acc[i][1], _mm512_loadu_pd(row + 8));
    }
    _mm512_storeu_pd(row, acc[i][0]);
    _mm512_storeu_pd(row + 8, acc[i][1]);
  }
}
#endif  // HLO_LSP_GEMM_X86

enum class Isa { kPortable = 0, kAvx2 = 1, kAvx512 = 2 };

Isa BestIsa() {
#ifdef HLO_LSP_GEMM_X86
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma"))
    return Isa::kAvx512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    return Isa::kAvx2;
#endif
  return Isa::kPortable;
}

std::atomic<int> g_isa{-1};

Isa CurrentIsa() {
  int v = g_isa.load(std::memory_order_relaxed);
  if (v < 0) {
    v = static_cast<int>(BestIsa());
    g_isa.store(v, std::memory_order_relaxed);
  }
  return static_cast<Isa>(v);
}

template <typename T>
Kernel<T> PickKernel() {
  switch (CurrentIsa()) {
#ifdef HLO_LSP_GEMM_X86
    case Isa::kAvx512:
      if constexpr (std::is_same_v<T, float>)
        return {&KernelF32Avx512, 12, 32, "avx512"};
      else
        return {&KernelF64Avx512, 12, 16, "avx512"};
    case Isa::kAvx2:
      if constexpr (std::is_same_v<T, float>)
        return {&KernelF32Avx2, 6, 16, "avx2"};
      else
        return {&KernelF64Avx2, 6, 8, "avx2"};
#endif
    default:
      return {&KernelPortable<T, 4, 8>, 4, 8, "portable"};
  }
}

// 64-byte aligned scratch that grows and is kept per thread (pool workers
// live for the process, so packing buffers are allocated once).
template <typename T>
class Scratch {
 public:
  T* Get(size_t n) {
    if (n > size_) {
      data_.reset(static_cast<T*>(
          ::operator new[](n * sizeof(T), std::align_val_t(64))));
      size_ = n;
    }
    return data_.get();
  }

 private:
  struct Free {
    void operator()(T* p) const {
      ::operator delete[](p, std::align_val_t(64));
    }
  };
  std::unique_ptr<T, Free> data_;
  size_t size_ = 0;
};

// A[i0 .. i0+mc, p0 .. p0+kc] into MR-row panels: panel r, depth p, row i at
// out[(r * kc + p) * MR + i]; rows past mc are zero.
template <typename T>
void PackA(const T* a, int64_t rs, int64_t cs, int64_t mc, int64_t kc,
           int64_t mr, T* out) {
  for (int64_t r0 = 0; r0 < mc; r0 += mr) {
    const int64_t rows = std::min(mr, mc - r0);
    T* panel = out + r0 * kc;
    const T* src = a + r0 * rs;
    if (cs == 1 && rows == mr) {
      for (int64_t i = 0; i < mr; ++i) {
        const T* row = src + i * rs;
        for (int64_t p = 0; p < kc; ++p) panel[p * mr + i] = row[p];
      }
    } else {
      for (int64_t p = 0; p < kc; ++p) {
        const T* col = src + p * cs;
        T* dst = panel + p * mr;
        int64_t i = 0;
        for (; i < rows; ++i) dst[i] = col[i * rs];
        for (; i < mr; ++i) dst[i] = T(0);
      }
    }
  }
}

// B[p0 .. p0+kc, j0 .. j0+nc] into NR-column panels: panel s, depth p,
// column j at out[(s * kc + p) * NR + j]; columns past nc are zero.
template <typename T>
void PackB(const T* b, int64_t rs, int64_t cs, int64_t kc, int64_t nc,
           int64_t nr, T* out) {
  for (int64_t j0 = 0; j0 < nc; j0 += nr) {
    const int64_t cols = std::min(nr, nc - j0);
    T* panel = out + j0 * kc;
    const T* src = b + j0 * cs;
    if (cs == 1 && cols == nr) {
      for (int64_t p = 0; p < kc; ++p)
        std::memcpy(panel + p * nr, src + p * rs, nr * sizeof(T));
    } else if (rs == 1 && cols == nr) {
      for (int64_t j = 0; j < nr; ++j) {
        const T* col = src + j * cs;
        for (int64_t p = 0; p < kc; ++p) panel[p * nr + j] = col[p];
      }
    } else {
      for (int64_t p = 0; p < kc; ++p) {
        const T* row = src + p * rs;
        T* dst = panel + p * nr;
        int64_t j = 0;
        for (; j < cols; ++j) dst[j] = row[j * cs];
        for (; j < nr; ++j) dst[j] = T(0);
      }
    }
  }
}

// C (m x n, row stride ldc) = A * B for one matrix, on this thread.
template <typename T>
void GemmSerial(const Kernel<T>& kernel, int64_t m, int64_t n, int64_t k,
                const T* a, int64_t ars, int64_t acs, const T* b, int64_t brs,
                int64_t bcs, T* c, int64_t ldc) {
  if (m <= 0 || n <= 0) return;
  if (k <= 0) {
    for (int64_t i = 0; i < m; ++i)
      std::fill(c + i * ldc, c + i * ldc + n, T(0));
    return;
  }
  const int64_t mr = kernel.mr, nr = kernel.nr;
  thread_local Scratch<T> a_scratch, b_scratch;
  const int64_t kc_max = std::min(k, kKc);
  const int64_t mc_max = std::min((m + mr - 1) / mr * mr, kMc);
  const int64_t nc_max = std::min((n + nr - 1) / nr * nr, kNc);
  T* ap = a_scratch.Get(mc_max * kc_max);
  T* bp = b_scratch.Get(nc_max * kc_max);
  alignas(64) T edge[16 * 32];  // MR x NR of the widest kernel
  for (int64_t jc = 0; jc < n; jc += kNc) {
    const int64_t nc = std::min(kNc, n - jc);
    for (int64_t pc = 0; pc < k; pc += kKc) {
      const int64_t kc = std::min(kKc, k - pc);
      const bool accumulate = pc > 0;
      PackB(b + pc * brs + jc * bcs, brs, bcs, kc, nc, nr, bp);
      for (int64_t ic = 0; ic < m; ic += kMc) {
        const int64_t mc = std::min(kMc, m - ic);
        PackA(a + ic * ars + pc * acs, ars, acs, mc, kc, mr, ap);
        for (int64_t jr = 0; jr < nc; jr += nr) {
          const int64_t cols = std::min(nr, nc - jr);
          for (int64_t ir = 0; ir < mc; ir += mr) {
            const int64_t rows = std::min(mr, mc - ir);
            T* tile = c + (ic + ir) * ldc + jc + jr;
            if (rows == mr && cols == nr) {
              kernel.fn(kc, ap + ir * kc, bp + jr * kc, tile, ldc, accumulate);
              continue;
            }
            kernel.fn(kc, ap + ir * kc, bp + jr * kc, edge, nr, false);
            for (int64_t i = 0; i < rows; ++i) {
              T* row = tile + i * ldc;
              const T* e = edge + i * nr;
              for (int64_t j = 0; j < cols; ++j)
                row[j] = accumulate ? row[j] + e[j] : e[j];
            }
          }
        }
      }
    }
  }
}

template <typename T>
void GemmImpl(int64_t batch, int64_t m, int64_t n, int64_t k,
              StridedMatrix<T> a, StridedMatrix<T> b, T* c, int threads) {
  if (batch <= 0 || m <= 0 || n <= 0) return;
  const Kernel<T> kernel = PickKernel<T>();
  if (threads <= 0) threads = ExecThreads();
  // Below ~4M multiply-adds per thread, waking workers costs more than it
  // saves.
  const double work =
      static_cast<double>(batch) * m * n * std::max<int64_t>(k, 1);
  threads = static_cast<int>(
      std::clamp<double>(work / (1 << 22), 1.0, static_cast<double>(threads)));
  auto run = [&](int64_t b0, int64_t b1, int64_t m0, int64_t m1, int64_t n0,
                 int64_t n1) {
    for (int64_t bi = b0; bi < b1; ++bi) {
      GemmSerial(kernel, m1 - m0, n1 - n0, k,
                 a.data + bi * a.batch_stride + m0 * a.row_stride, a.row_stride,
                 a.col_stride, b.data + bi * b.batch_stride + n0 * b.col_stride,
                 b.row_stride, b.col_stride, c + (bi * m + m0) * n + n0, n);
    }
  };
  if (threads <= 1) {
    run(0, batch, 0, m, 0, n);
    return;
  }
  if (batch >= threads) {
    ParallelFor(threads, [&](int t) {
      const Range r = SplitRange(batch, threads, 1, t);
      run(r.begin, r.end, 0, m, 0, n);
    });
  } else if (m >= n) {
    ParallelFor(threads, [&](int t) {
      const Range r = SplitRange(m, threads, kernel.mr, t);
      run(0, batch, r.begin, r.end, 0, n);
    });
  } else {
    ParallelFor(threads, [&](int t) {
      const Range r = SplitRange(n, threads, kernel.nr, t);
      run(0, batch, 0, m, r.begin, r.end);
    });
  }
}

}  // namespace

void Gemm(int64_t batch, int64_t m, int64_t n, int64_t k,
          StridedMatrix<float> a, StridedMatrix<float> b, float* c,
          int threads) {
  GemmImpl<float>(batch, m, n, k, a, b, c, threads);
}

void Gemm(int64_t batch, int64_t m, int64_t n, int64_t k,
          StridedMatrix<double> a, StridedMatrix<double> b, double* c,
          int threads) {
  GemmImpl<double>(batch, m, n, k, a, b, c, threads);
}

int GemmThreads() { return ExecThreads(); }

const char* GemmKernelName() { return PickKernel<float>().name; }

bool SetGemmKernel(const char* name) {
  const std::string_view want(name);
  Isa isa;
  if (want == "avx512") {
    isa = Isa::kAvx512;
  } else if (want == "avx2") {
    isa = Isa::kAvx2;
  } else if (want == "portable") {
    isa = Isa::kPortable;
  } else {
    return false;
  }
  if (static_cast<int>(isa) > static_cast<int>(BestIsa())) return false;
  g_isa.store(static_cast<int>(isa), std::memory_order_relaxed);
  return true;
}

}  // namespace hlo::exec
