// Packed, cache-blocked matrix multiply for the evaluator's dot: f32 and f64
// with accumulation in the element type. Operands are strided views, so
// transposed or batched operands need no copy (packing reads any strides).
// The micro-kernel is picked at run time: AVX-512, AVX2+FMA or portable C++,
// so the binary runs on any x86-64 (and builds elsewhere).
#ifndef HLO_LSP_EXEC_GEMM_H_
#define HLO_LSP_EXEC_GEMM_H_

#include <cstdint>

namespace hlo::exec {

// Element (i, j) of matrix b of a strided batch is at
// data[b * batch_stride + i * row_stride + j * col_stride].
template <typename T>
struct StridedMatrix {
  const T* data = nullptr;
  int64_t batch_stride = 0;
  int64_t row_stride = 0;
  int64_t col_stride = 0;
};

// For every b < batch: C[b] = A[b] (m x k) * B[b] (k x n), C dense row-major
// [batch, m, n] and overwritten. `threads` <= 0: GemmThreads(). Small
// products run on the calling thread only.
void Gemm(int64_t batch, int64_t m, int64_t n, int64_t k,
          StridedMatrix<float> a, StridedMatrix<float> b, float* c,
          int threads = 0);
void Gemm(int64_t batch, int64_t m, int64_t n, int64_t k,
          StridedMatrix<double> a, StridedMatrix<double> b, double* c,
          int threads = 0);

// Threads a large product uses by default: std::thread::hardware_concurrency,
// or HLO_LSP_THREADS when set to a positive number.
int GemmThreads();

// Which micro-kernel Gemm uses: "avx512", "avx2" or "portable"; the widest
// the CPU supports unless SetGemmKernel chose another.
const char* GemmKernelName();
// Selects a kernel by name (tests cover every kernel the machine can run);
// false, and no change, when the CPU lacks it or the name is unknown.
bool SetGemmKernel(const char* name);

}  // namespace hlo::exec

#endif  // HLO_LSP_EXEC_GEMM_H_
