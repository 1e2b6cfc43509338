// Measurements for scripts/gpu-check (GPU only): the backend's dot path
// against a bare cuBLAS call of the same shape, and an elementwise chain
// (a loop fusion, as one generated kernel and op by op) against a
// device-to-device copy of the same bytes. Operands
// stay on the device; times are per iteration from CUDA events.
#ifndef HLO_LSP_EXEC_GPU_BENCH_H_
#define HLO_LSP_EXEC_GPU_BENCH_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"

namespace hlo::exec::gpu {

struct DotBench {
  int64_t m = 0, n = 0, k = 0;
  double ours_ms = 0;    // the backend running `dot` (f32) on device operands
  double cublas_ms = 0;  // cublasSgemm on the same buffers
};
absl::StatusOr<DotBench> BenchDot(int64_t m, int64_t n, int64_t k,
                                  int iterations);

struct ChainBench {
  int64_t elements = 0;
  int ops = 0;
  double chain_ms = 0;     // the fused kernel
  double op_by_op_ms = 0;  // one kernel per op
  double copy_ms = 0;
  double chain_gbps = 0;  // (2 inputs + 1 output) bytes / time
  double op_by_op_gbps = 0;
  double copy_gbps = 0;  // (read + write) bytes / time, of a copy
                         // moving as many bytes as the chain
  std::string fused;     // the backend's note on how the fusion ran
};
absl::StatusOr<ChainBench> BenchElementwiseChain(int64_t elements,
                                                 int iterations);

}  // namespace hlo::exec::gpu

#endif  // HLO_LSP_EXEC_GPU_BENCH_H_
