// cuBLAS, opened with dlopen on first use instead of linked: every hlo-lsp
// process (LSP, search, check) would otherwise pay the dynamic loader's
// mapping of libcublas and libcublasLt (~0.1 s) at start, while only a GPU
// dot needs them. The header is cuBLAS's own (types and enums); only the
// few functions the backend calls are resolved, through dlsym.
#ifndef HLO_LSP_EXEC_GPU_CUBLAS_H_
#define HLO_LSP_EXEC_GPU_CUBLAS_H_

#include <cublas_v2.h>

#include "absl/status/statusor.h"

namespace hlo::exec::gpu {

struct CublasApi {
  cublasStatus_t (*create)(cublasHandle_t* handle);
  cublasStatus_t (*destroy)(cublasHandle_t handle);
  cublasStatus_t (*set_math_mode)(cublasHandle_t handle, cublasMath_t mode);
  const char* (*status_name)(cublasStatus_t status);
  cublasStatus_t (*sgemm)(cublasHandle_t handle, cublasOperation_t transa,
                          cublasOperation_t transb, int m, int n, int k,
                          const float* alpha, const float* a, int lda,
                          const float* b, int ldb, const float* beta, float* c,
                          int ldc);
  cublasStatus_t (*sgemm_strided_batched)(
      cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,
      int m, int n, int k, const float* alpha, const float* a, int lda,
      long long stride_a, const float* b, int ldb, long long stride_b,
      const float* beta, float* c, int ldc, long long stride_c, int batch);
  cublasStatus_t (*dgemm_strided_batched)(
      cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,
      int m, int n, int k, const double* alpha, const double* a, int lda,
      long long stride_a, const double* b, int ldb, long long stride_b,
      const double* beta, double* c, int ldc, long long stride_c, int batch);
  cublasStatus_t (*gemm_strided_batched_ex)(
      cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,
      int m, int n, int k, const void* alpha, const void* a,
      cudaDataType a_type, int lda, long long stride_a, const void* b,
      cudaDataType b_type, int ldb, long long stride_b, const void* beta,
      void* c, cudaDataType c_type, int ldc, long long stride_c, int batch,
      cublasComputeType_t compute, cublasGemmAlgo_t algo);
};

// The library, loaded once (thread-safe) and never unloaded; when it or one
// of its functions is missing, a FailedPrecondition "cuBLAS not found: ..."
// with dlerror's words (returned again on every later call). The
// environment variable HLO_LSP_CUBLAS, when set, names the file to open.
absl::StatusOr<const CublasApi*> Cublas();

}  // namespace hlo::exec::gpu

#endif  // HLO_LSP_EXEC_GPU_CUBLAS_H_
