// One CUDA kernel per loop fusion: the source of a kernel that computes
// each output element through the whole fused computation in one pass (a
// grid-stride loop; every intermediate stays in registers), for NVRTC to
// compile (nvrtc.h). Plain C++: no CUDA headers, runs without a GPU.
//
// An elemental emitter (XLA's idea): the output's linear index is
// unravelled into the root's row-major multi-index (buffers hold dense
// row-major logical values, literal.h), and each node's element is emitted
// at an index of that node, each op mapping its index to its operands'.
// Taken: computations whose root is one array (or a tuple of arrays of one
// element count: a multi-output fusion) made of parameters of any shape
// (read at their own linear index), scalar constants, iota, broadcast (any
// dimensions=), transpose, reshape and bitcast (relinearized row-major;
// bitcast through its layouts' physical orders, as the CPU does), copy,
// slice (starts, strides), concatenate, pad (edge low/high, negative too,
// and interior), reverse, dynamic-slice and dynamic-update-slice (starts
// clamped into [0, dim - size] as the CPU does), convert and the
// elementwise ops (unary, binary, compare, select, clamp, is-finite,
// real/imag of floats) on pred, s8..s64, u8..u64, f16, bf16, f32 and f64.
// Every node's value is its stored element (narrow floats round after each
// op, as the CPU evaluator does), and each op mirrors the CPU op functions'
// edge rules. A node read at several indices is recomputed per index (a
// memo shares equal (node, index) pairs); concatenate, pad and
// dynamic-update-slice branch, so only the chosen operand is read. Nodes of
// one element are computed once per thread, before the loop.
// Expansion limit: a kernel defining more than 4,096 values (fused::
// kMaxValues: a node counts once per distinct index it is emitted at) or
// walking more than 512 nested nodes is declined, so a pathological fusion
// runs op by op instead of producing a huge kernel. Anything else (reduce,
// gather, dot, non-scalar constants, complex types ...) is declined with
// an Unimplemented status naming the op (or the type), and the backend
// runs that fusion op by op.
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
// order (each holding that parameter's dense row-major elements), and one
// per result: the root, or each element of a tuple root (n elements each).
inline constexpr char kFusedKernelName[] = "hlo_fused";

struct FusedKernelSource {
  std::string kernel;    // the kernel alone (after kFusedPrelude, see below)
  std::string source;    // the prelude and the kernel, ready for NVRTC
  int64_t elements = 0;  // n: the root's element count
  int parameters = 0;    // input pointers after n
  int results = 1;       // output pointers after those
};

// `name`: the kernel's; kernels of several fusions can be compiled as one
// program (kFusedPrelude, then each kernel) when their names differ. Index
// arithmetic is 32-bit when every node has fewer than 2^30 elements (and
// pad offsets are as small), else 64-bit; `wide_index` asks for 64-bit
// always (the tests of that path).
absl::StatusOr<FusedKernelSource> GenerateFusedKernel(
    const Plan& plan, std::string_view name = kFusedKernelName,
    bool wide_index = false);

}  // namespace hlo::exec::gpu

#endif  // HLO_LSP_EXEC_GPU_FUSED_CODEGEN_H_
