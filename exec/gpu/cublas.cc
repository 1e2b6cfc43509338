#include "exec/gpu/cublas.h"

#include <dlfcn.h>

#include <cstdlib>
#include <string>
#include <type_traits>

namespace hlo::exec::gpu {
namespace {

// The soname of the toolkit we were built against (cmake/Cuda.cmake), and
// the toolkit's folder as a fallback when the loader's paths lack it.
#ifndef HLO_LSP_CUBLAS_SONAME
#define HLO_LSP_CUBLAS_SONAME "libcublas.so"
#endif
#ifndef HLO_LSP_CUBLAS_DIR
#define HLO_LSP_CUBLAS_DIR ""
#endif

std::string LastDlError() {
  const char* e = dlerror();
  return e != nullptr ? e : "unknown error";
}

absl::StatusOr<CublasApi> Load() {
  // HLO_LSP_CUBLAS names another library file (tests, odd installs).
  const char* chosen = std::getenv("HLO_LSP_CUBLAS");
  const bool overridden = chosen != nullptr && *chosen != '\0';
  void* lib = dlopen(overridden ? chosen : HLO_LSP_CUBLAS_SONAME,
                     RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    std::string first = LastDlError();
    const std::string dir = HLO_LSP_CUBLAS_DIR;
    if (!overridden && !dir.empty()) {
      lib = dlopen((dir + "/" HLO_LSP_CUBLAS_SONAME).c_str(),
                   RTLD_NOW | RTLD_LOCAL);
    }
    if (lib == nullptr) {
      return absl::FailedPreconditionError("cuBLAS not found: " + first);
    }
  }
  CublasApi api;
  std::string missing;
  auto resolve = [&](auto* slot, const char* name) {
    void* f = dlsym(lib, name);
    if (f == nullptr && missing.empty()) missing = LastDlError();
    *slot = reinterpret_cast<std::remove_pointer_t<decltype(slot)>>(f);
  };
  resolve(&api.create, "cublasCreate_v2");
  resolve(&api.destroy, "cublasDestroy_v2");
  resolve(&api.set_math_mode, "cublasSetMathMode");
  resolve(&api.status_name, "cublasGetStatusName");
  resolve(&api.sgemm, "cublasSgemm_v2");
  resolve(&api.sgemm_strided_batched, "cublasSgemmStridedBatched");
  resolve(&api.dgemm_strided_batched, "cublasDgemmStridedBatched");
  resolve(&api.gemm_strided_batched_ex, "cublasGemmStridedBatchedEx");
  if (!missing.empty()) {
    dlclose(lib);
    return absl::FailedPreconditionError("cuBLAS not found: " + missing);
  }
  return api;
}

}  // namespace

absl::StatusOr<const CublasApi*> Cublas() {
  static const absl::StatusOr<CublasApi>* loaded =
      new absl::StatusOr<CublasApi>(Load());
  if (!loaded->ok()) return loaded->status();
  return &**loaded;
}

}  // namespace hlo::exec::gpu
