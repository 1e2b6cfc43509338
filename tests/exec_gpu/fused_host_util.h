// The fused-kernel host tests' machinery: a generated kernel compiled by
// the host's C++ compiler (a few lines stand in for CUDA's built-ins) and
// loaded as a library, to run without a GPU.
#ifndef HLO_LSP_TESTS_EXEC_GPU_FUSED_HOST_UTIL_H_
#define HLO_LSP_TESTS_EXEC_GPU_FUSED_HOST_UTIL_H_

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "exec/evaluator_internal.h"
#include "exec/gpu/fused_codegen.h"
#include "exec/strings.h"
#include "gtest/gtest.h"

namespace hlo::exec::testing {

// CUDA's built-ins for one host thread running the whole grid-stride loop.
inline constexpr char kHostShims[] = R"(
#include <math.h>
#include <string.h>
#define __global__
#define __device__
#define __forceinline__ inline
#define __restrict__ __restrict
struct HostDim { unsigned x; };
static const HostDim blockIdx{0}, threadIdx{0}, blockDim{1}, gridDim{1};
inline float __uint_as_float(unsigned u) { float f; memcpy(&f, &u, 4); return f; }
inline unsigned __float_as_uint(float f) { unsigned u; memcpy(&u, &f, 4); return u; }
inline double __longlong_as_double(long long v) { double d; memcpy(&d, &v, 8); return d; }
inline int __popcll(unsigned long long v) { return __builtin_popcountll(v); }
inline int __clzll(long long v) {
  return v == 0 ? 64 : __builtin_clzll((unsigned long long)v);
}
)";

inline const char* StorageName(PrimitiveType t) {
  switch (t) {
    case PrimitiveType::kPred:
    case PrimitiveType::kU8:
      return "u8";
    case PrimitiveType::kS8:
      return "s8";
    case PrimitiveType::kS16:
      return "s16";
    case PrimitiveType::kS32:
      return "s32";
    case PrimitiveType::kS64:
      return "s64";
    case PrimitiveType::kU16:
    case PrimitiveType::kF16:
    case PrimitiveType::kBF16:
      return "u16";
    case PrimitiveType::kU32:
      return "u32";
    case PrimitiveType::kU64:
      return "u64";
    case PrimitiveType::kF32:
      return "float";
    default:
      return "double";
  }
}

inline std::string Compiler() {
  const char* cxx = std::getenv("CXX");
  return cxx != nullptr && *cxx != '\0' ? cxx : "c++";
}

inline bool CompilerRuns() {
  return std::system((Compiler() + " --version >/dev/null 2>&1").c_str()) == 0;
}

// The kernel of `plan` built as a host library; hlo_call(n, pointers)
// calls it with the parameters' then the results' pointers.
using HostCall = void (*)(long long, void**);
inline HostCall BuildOnHost(const Plan& plan, const std::string& dir,
                            const std::string& tag, bool wide_index = false) {
  auto src = gpu::GenerateFusedKernel(plan, gpu::kFusedKernelName, wide_index);
  EXPECT_TRUE(src.ok()) << src.status();
  if (!src.ok()) return nullptr;
  std::string call =
      "\nextern \"C\" void hlo_call(long long n, void** p) {\n"
      "  hlo_fused(n";
  int k = 0;
  for (int param : plan.parameters)
    call += Cat(", (const ", StorageName(plan.nodes[param].shape.type), "*)p[",
                k++, "]");
  const Node& root = plan.nodes[plan.root];
  std::vector<LiteralShape> results = {root.shape};
  if (root.shape.is_tuple()) results = root.shape.tuple_elements;
  for (const LiteralShape& r : results)
    call += Cat(", (", StorageName(r.type), "*)p[", k++, "]");
  call += ");\n}\n";
  const std::string cc = Cat(dir, "/", tag, ".cc"),
                    so = Cat(dir, "/", tag, ".so");
  std::ofstream(cc) << kHostShims << src->source << call;
  // IEEE arithmetic as on the device: no contraction into FMAs.
  const std::string cmd =
      Cat(Compiler(), " -std=c++17 -O1 -ffp-contract=off -w -shared -fPIC -o ",
          so, " ", cc, " 2>&1");
  FILE* out = popen(cmd.c_str(), "r");
  std::string log;
  char buf[512];
  while (out && fgets(buf, sizeof buf, out)) log += buf;
  const int rc = out ? pclose(out) : -1;
  EXPECT_EQ(rc, 0) << cmd << "\n" << log.substr(0, 4000);
  if (rc != 0) return nullptr;
  void* lib = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  EXPECT_NE(lib, nullptr) << dlerror();
  if (!lib) return nullptr;
  return reinterpret_cast<HostCall>(dlsym(lib, "hlo_call"));
}

}  // namespace hlo::exec::testing

#endif  // HLO_LSP_TESTS_EXEC_GPU_FUSED_HOST_UTIL_H_
