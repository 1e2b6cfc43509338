// One CUDA kernel per elementwise fusion: the source of a kernel that
// computes each output element through the whole fused computation in one
// pass (a grid-stride loop; every intermediate stays in registers), for
// NVRTC to compile (nvrtc.h). Plain C++: no CUDA headers, runs without a GPU.
//
// Taken: computations whose root is one array of n elements (or a tuple of
// such arrays: a multi-output fusion) and whose nodes are parameters (n
// elements, or one that every element reads), scalar constants, broadcasts
// of a scalar or of a parameter (read at each element's operand index: bias
// vectors), iota, reshape/copy (dense row-major values: the identity),
// convert, and the elementwise ops (unary, binary, compare, select, clamp,
// is-finite, real/imag of floats) on pred, s8..s64, u8..u64, f16, bf16, f32
// and f64. Every node's value is its stored element (narrow floats round
// after each op, as the CPU evaluator does), and each op mirrors the CPU op
// functions' edge rules. Anything else is declined with an Unimplemented
// status naming the op (or the type), and the backend runs that fusion op
// by op.
#ifndef HLO_LSP_EXEC_GPU_FUSED_CODEGEN_H_
#define HLO_LSP_EXEC_GPU_FUSED_CODEGEN_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "exec/evaluator_internal.h"

namespace hlo::exec::gpu {

// The kernel's entry point: extern "C" __global__ void hlo_fused(
//     long long n, const P0* p0, ..., const Pk* pk, R0* out0, ..., Rm* outm)
// with one pointer per parameter of the computation, in parameter-number
// order (a parameter of one element, when n != 1, is read at index 0), and
// one per result: the root, or each element of a tuple root.
inline constexpr char kFusedKernelName[] = "hlo_fused";

struct FusedKernelSource {
  std::string kernel;  // the kernel alone (after kFusedPrelude, see below)
  std::string source;  // the prelude and the kernel, ready for NVRTC
  int64_t elements = 0;  // n: the root's element count
  int parameters = 0;    // input pointers after n
  int results = 1;       // output pointers after those
};

// `name`: the kernel's; kernels of several fusions can be compiled as one
// program (kFusedPrelude, then each kernel) when their names differ.
absl::StatusOr<FusedKernelSource> GenerateFusedKernel(
    const Plan& plan, std::string_view name = kFusedKernelName);

}  // namespace hlo::exec::gpu

#endif  // HLO_LSP_EXEC_GPU_FUSED_CODEGEN_H_
