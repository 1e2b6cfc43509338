// Run-time compilation of generated kernels (fused_codegen.h): NVRTC is
// opened with dlopen on first use, like cuBLAS (cublas.h), so that only a
// process that compiles a kernel maps it; source becomes PTX, which the
// CUDA runtime loads (cudaLibraryLoadData, the driver JIT-compiles it for
// the device) and launches (cudaLaunchKernel), all through cudart_static.
// Compiling needs no GPU; loading and launching do.
#ifndef HLO_LSP_EXEC_GPU_NVRTC_H_
#define HLO_LSP_EXEC_GPU_NVRTC_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace hlo::exec::gpu {

// NVRTC's version ("13.0"); FailedPrecondition "NVRTC not found: ..." with
// dlerror's words when the library or one of its functions is missing. The
// environment variable HLO_LSP_NVRTC, when set, names the file to open.
absl::StatusOr<std::string> NvrtcVersion();

// `source` compiled to PTX for compute_<arch> (90: H100/H200), with IEEE
// float semantics (no fast math, no fused multiply-add contraction, so each
// op rounds as the CPU's does). InvalidArgument with NVRTC's log when it
// does not compile.
absl::StatusOr<std::string> CompileToPtx(const std::string& source,
                                         int arch = 90);

// The kernel `name` of `source`, compiled for device 0 and loaded into the
// current context. Compiled once per process: kernels are cached by the
// source's hash (XXH3) and never unloaded. *compiled (when given) is set
// when this call compiled it, false when it came from the cache.
absl::StatusOr<const void*> LoadKernel(const std::string& source,
                                       const char* name,
                                       bool* compiled = nullptr);
// The same for several kernels of one program (one NVRTC compilation: each
// costs ~40 ms however small), in the order of `names`.
absl::StatusOr<std::vector<const void*>> LoadKernels(
    const std::string& source, const std::vector<std::string>& names,
    bool* compiled = nullptr);

// Launches a kernel of signature (long long n, const void* p0, ...,
// void* out0, ...) over n elements on the default stream: a grid-stride
// loop, 256 threads a block. Returns a cudaError_t as int (0: launched).
int LaunchElementwise(const void* kernel, int64_t n,
                      const std::vector<const void*>& params,
                      const std::vector<void*>& outs);

}  // namespace hlo::exec::gpu

#endif  // HLO_LSP_EXEC_GPU_NVRTC_H_
