// f32 transcendental functions over arrays, for the evaluator's elementwise
// ops: branch-free range reduction plus Cephes-style polynomials, written so
// that the compiler vectorizes the loops; AVX-512 and AVX2+FMA versions are
// chosen at run time (as exec/gemm.cc picks its kernels). XLA's CPU backend
// also evaluates these with polynomials. Results stay within a few ulp of
// std:: (tests/exec/vector_math_test.cc asserts the bound), with IEEE edge
// cases kept: NaN propagates, overflow gives inf, underflow 0 (through
// subnormals), log(0) = -inf, log(x < 0) = NaN.
#ifndef HLO_LSP_EXEC_VECTOR_MATH_H_
#define HLO_LSP_EXEC_VECTOR_MATH_H_

#include <cstdint>

namespace hlo::exec {

enum class VecFn : uint8_t {
  kExp,
  kExpm1,
  kLog,
  kLog1p,
  kTanh,
  kLogistic,  // 1 / (1 + exp(-x))
  kSqrt,
  kRsqrt,  // 1 / sqrt(x)
};

// y[i] = f(x[i]) for i in [0, n), single-threaded, on the best ISA of this
// CPU. x and y may be the same array (otherwise they must not overlap).
void VecMathF32(VecFn f, const float* x, float* y, int64_t n);

// The same on one ISA: 0 portable (SSE2 on x86-64), 1 AVX2+FMA,
// 2 AVX-512. Returns false, doing nothing, when this CPU lacks it.
bool VecMathF32OnIsa(int isa, VecFn f, const float* x, float* y, int64_t n);

// Name of the ISA VecMathF32 uses ("avx512", "avx2", "portable").
const char* VecMathIsaName();

}  // namespace hlo::exec

#endif  // HLO_LSP_EXEC_VECTOR_MATH_H_
