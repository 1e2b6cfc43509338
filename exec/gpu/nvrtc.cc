#include "exec/gpu/nvrtc.h"

#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <nvrtc.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <type_traits>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "exec/strings.h"

namespace hlo::exec::gpu {
namespace {

// The soname of the toolkit we were built against (exec/gpu/CMakeLists.txt)
// and the toolkit's folder, tried when the loader's paths lack it.
#ifndef HLO_LSP_NVRTC_SONAME
#define HLO_LSP_NVRTC_SONAME "libnvrtc.so"
#endif
#ifndef HLO_LSP_NVRTC_DIR
#define HLO_LSP_NVRTC_DIR ""
#endif

struct NvrtcApi {
  nvrtcResult (*version)(int* major, int* minor);
  const char* (*error_string)(nvrtcResult result);
  nvrtcResult (*num_archs)(int* n);
  nvrtcResult (*archs)(int* archs);
  nvrtcResult (*create)(nvrtcProgram* prog, const char* src, const char* name,
                        int headers, const char* const* sources,
                        const char* const* names);
  nvrtcResult (*compile)(nvrtcProgram prog, int n, const char* const* options);
  nvrtcResult (*log_size)(nvrtcProgram prog, size_t* size);
  nvrtcResult (*log)(nvrtcProgram prog, char* log);
  nvrtcResult (*ptx_size)(nvrtcProgram prog, size_t* size);
  nvrtcResult (*ptx)(nvrtcProgram prog, char* ptx);
  nvrtcResult (*destroy)(nvrtcProgram* prog);
};

std::string LastDlError() {
  const char* e = dlerror();
  return e != nullptr ? e : "unknown error";
}

absl::StatusOr<NvrtcApi> Load() {
  const char* chosen = std::getenv("HLO_LSP_NVRTC");
  const bool overridden = chosen != nullptr && *chosen != '\0';
  void* lib =
      dlopen(overridden ? chosen : HLO_LSP_NVRTC_SONAME, RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    std::string first = LastDlError();
    const std::string dir = HLO_LSP_NVRTC_DIR;
    if (!overridden && !dir.empty())
      lib = dlopen((dir + "/" HLO_LSP_NVRTC_SONAME).c_str(),
                   RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr)
      return absl::FailedPreconditionError("NVRTC not found: " + first);
  }
  NvrtcApi api;
  std::string missing;
  auto resolve = [&](auto* slot, const char* name) {
    void* f = dlsym(lib, name);
    if (f == nullptr && missing.empty()) missing = LastDlError();
    *slot = reinterpret_cast<std::remove_pointer_t<decltype(slot)>>(f);
  };
  resolve(&api.version, "nvrtcVersion");
  resolve(&api.error_string, "nvrtcGetErrorString");
  resolve(&api.num_archs, "nvrtcGetNumSupportedArchs");
  resolve(&api.archs, "nvrtcGetSupportedArchs");
  resolve(&api.create, "nvrtcCreateProgram");
  resolve(&api.compile, "nvrtcCompileProgram");
  resolve(&api.log_size, "nvrtcGetProgramLogSize");
  resolve(&api.log, "nvrtcGetProgramLog");
  resolve(&api.ptx_size, "nvrtcGetPTXSize");
  resolve(&api.ptx, "nvrtcGetPTX");
  resolve(&api.destroy, "nvrtcDestroyProgram");
  if (!missing.empty()) {
    dlclose(lib);
    return absl::FailedPreconditionError("NVRTC not found: " + missing);
  }
  return api;
}

absl::StatusOr<const NvrtcApi*> Api() {
  static const absl::StatusOr<NvrtcApi>* loaded =
      new absl::StatusOr<NvrtcApi>(Load());
  if (!loaded->ok()) return loaded->status();
  return &**loaded;
}

absl::Status CudaError(cudaError_t e, std::string_view what) {
  if (e == cudaSuccess) return absl::OkStatus();
  return absl::InternalError(Cat("CUDA error in ", what, ": ",
                                 cudaGetErrorName(e), " (",
                                 cudaGetErrorString(e), ")"));
}

// The newest architecture NVRTC compiles for that device 0 runs (PTX of
// an older one is JIT-compiled forward by the driver).
absl::StatusOr<int> DeviceArch(const NvrtcApi& api) {
  int device = 0, major = 0, minor = 0;
  absl::Status st = CudaError(cudaGetDevice(&device), "cudaGetDevice");
  if (st.ok())
    st = CudaError(cudaDeviceGetAttribute(
                       &major, cudaDevAttrComputeCapabilityMajor, device),
                   "the compute capability");
  if (st.ok())
    st = CudaError(cudaDeviceGetAttribute(
                       &minor, cudaDevAttrComputeCapabilityMinor, device),
                   "the compute capability");
  if (!st.ok()) return st;
  const int want = major * 10 + minor;
  int n = 0;
  if (api.num_archs(&n) != NVRTC_SUCCESS || n <= 0) return want;
  std::vector<int> archs(n);
  if (api.archs(archs.data()) != NVRTC_SUCCESS) return want;
  int best = -1;
  for (int a : archs)
    if (a <= want) best = std::max(best, a);
  if (best < 0)
    return absl::FailedPreconditionError(
        Cat("NVRTC compiles for no architecture up to sm_", want));
  return best;
}

struct Loaded {
  std::string source;
  std::vector<std::string> names;
  cudaLibrary_t library = nullptr;
  std::vector<const void*> kernels;
};

}  // namespace

absl::StatusOr<std::string> NvrtcVersion() {
  auto api = Api();
  if (!api.ok()) return api.status();
  int major = 0, minor = 0;
  if ((*api)->version(&major, &minor) != NVRTC_SUCCESS)
    return absl::InternalError("nvrtcVersion failed");
  return Cat(major, ".", minor);
}

absl::StatusOr<std::string> CompileToPtx(const std::string& source, int arch) {
  auto api_or = Api();
  if (!api_or.ok()) return api_or.status();
  const NvrtcApi& api = **api_or;
  nvrtcProgram prog = nullptr;
  nvrtcResult r =
      api.create(&prog, source.c_str(), "hlo_fused.cu", 0, nullptr, nullptr);
  if (r != NVRTC_SUCCESS)
    return absl::InternalError(
        Cat("nvrtcCreateProgram: ", api.error_string(r)));
  const std::string arch_flag = Cat("--gpu-architecture=compute_", arch);
  const char* options[] = {arch_flag.c_str(), "--fmad=false", "--std=c++17"};
  r = api.compile(prog, 3, options);
  std::string log;
  size_t size = 0;
  if (api.log_size(prog, &size) == NVRTC_SUCCESS && size > 1) {
    log.resize(size);
    if (api.log(prog, log.data()) != NVRTC_SUCCESS) log.clear();
    while (!log.empty() && (log.back() == '\0' || log.back() == '\n'))
      log.pop_back();
  }
  std::string ptx;
  if (r == NVRTC_SUCCESS && api.ptx_size(prog, &size) == NVRTC_SUCCESS) {
    ptx.resize(size);
    if (api.ptx(prog, ptx.data()) != NVRTC_SUCCESS) ptx.clear();
  }
  api.destroy(&prog);
  if (r != NVRTC_SUCCESS)
    return absl::InvalidArgumentError(
        Cat("NVRTC: ", api.error_string(r), log.empty() ? "" : ":\n", log));
  if (ptx.empty()) return absl::InternalError("NVRTC returned no PTX");
  return ptx;  // NUL-terminated: cudaLibraryLoadData takes it as PTX text
}

absl::StatusOr<const void*> LoadKernel(const std::string& source,
                                       const char* name, bool* compiled) {
  auto kernels = LoadKernels(source, {name}, compiled);
  if (!kernels.ok()) return kernels.status();
  return (*kernels)[0];
}

absl::StatusOr<std::vector<const void*>> LoadKernels(
    const std::string& source, const std::vector<std::string>& names,
    bool* compiled) {
  static std::mutex* mu = new std::mutex;
  static auto* cache = new std::multimap<uint64_t, std::unique_ptr<Loaded>>;
  if (compiled) *compiled = false;
  const uint64_t key = XXH3_64bits(source.data(), source.size());
  std::lock_guard<std::mutex> lock(*mu);
  for (auto [it, end] = cache->equal_range(key); it != end; ++it)
    if (it->second->source == source && it->second->names == names)
      return it->second->kernels;
  auto api = Api();
  if (!api.ok()) return api.status();
  auto arch = DeviceArch(**api);
  if (!arch.ok()) return arch.status();
  auto ptx = CompileToPtx(source, *arch);
  if (!ptx.ok()) return ptx.status();
  auto entry = std::make_unique<Loaded>();
  entry->source = source;
  entry->names = names;
  absl::Status st =
      CudaError(cudaLibraryLoadData(&entry->library, ptx->c_str(), nullptr,
                                    nullptr, 0, nullptr, nullptr, 0),
                "loading a generated kernel");
  if (!st.ok()) return st;
  for (const std::string& name : names) {
    cudaKernel_t kernel = nullptr;
    st = CudaError(cudaLibraryGetKernel(&kernel, entry->library, name.c_str()),
                   Cat("finding kernel ", name));
    if (!st.ok()) {
      cudaLibraryUnload(entry->library);
      return st;
    }
    entry->kernels.push_back(kernel);
  }
  std::vector<const void*> kernels = entry->kernels;
  cache->emplace(key, std::move(entry));
  if (compiled) *compiled = true;
  return kernels;
}

int LaunchElementwise(const void* kernel, int64_t n,
                      const std::vector<const void*>& params,
                      const std::vector<void*>& outs) {
  if (n <= 0) return 0;
  constexpr int kThreads = 256;
  const int64_t blocks =
      std::clamp<int64_t>((n + kThreads - 1) / kThreads, 1, 65535 * 8);
  long long count = n;
  std::vector<const void*> pointers = params;
  pointers.insert(pointers.end(), outs.begin(), outs.end());
  std::vector<void*> args;
  args.push_back(&count);
  for (const void*& p : pointers) args.push_back(&p);
  const cudaError_t e =
      cudaLaunchKernel(kernel, dim3(static_cast<unsigned>(blocks)),
                       dim3(kThreads), args.data(), 0, nullptr);
  return static_cast<int>(e);
}

}  // namespace hlo::exec::gpu
