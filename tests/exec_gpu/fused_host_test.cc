// The generated fused kernels' semantics, checked without a GPU: the
// kernel source (prelude and all) is compiled by the host's C++ compiler
// with a few lines standing in for CUDA's built-ins, run on edge-value
// inputs, and held to the CPU evaluator's results: bit for bit for every op
// but the transcendental float ones (there the host's libm stands in for
// CUDA's, so those agree within a few units in the last place only). This
// checks the code generator's edge rules (integer division by zero, shifts
// past the width, NaN-propagating max/min, f16/bf16 rounding, saturating
// converts, select of NaN payloads ...); the device's own math library is
// checked by fused_kernel_test on a GPU. Skips when no C++ compiler runs.
#ifdef HLO_LSP_WITH_CUDA
#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "exec/gpu/fused_codegen.h"
#include "exec/platform.h"
#include "fused_test_util.h"
#include "gtest/gtest.h"

namespace hlo::exec::gpu {
namespace {

using P = PrimitiveType;

// CUDA's built-ins for one host thread running the whole grid-stride loop.
constexpr char kHostShims[] = R"(
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

const char* StorageName(P t) {
  switch (t) {
    case P::kPred: case P::kU8: return "u8";
    case P::kS8: return "s8";
    case P::kS16: return "s16";
    case P::kS32: return "s32";
    case P::kS64: return "s64";
    case P::kU16: case P::kF16: case P::kBF16: return "u16";
    case P::kU32: return "u32";
    case P::kU64: return "u64";
    case P::kF32: return "float";
    default: return "double";
  }
}

std::string Compiler() {
  const char* cxx = std::getenv("CXX");
  return cxx != nullptr && *cxx != '\0' ? cxx : "c++";
}

bool CompilerRuns() {
  return std::system((Compiler() + " --version >/dev/null 2>&1").c_str()) == 0;
}

// The kernel of `plan` built as a host library; hlo_call(n, pointers)
// calls it with the parameters' then the results' pointers.
using HostCall = void (*)(long long, void**);
HostCall BuildOnHost(const Plan& plan, const std::string& dir,
                     const std::string& tag) {
  auto src = GenerateFusedKernel(plan);
  EXPECT_TRUE(src.ok()) << src.status();
  if (!src.ok()) return nullptr;
  std::string call = "\nextern \"C\" void hlo_call(long long n, void** p) {\n"
                     "  hlo_fused(n";
  int k = 0;
  for (int param : plan.parameters)
    call += Cat(", (const ", StorageName(plan.nodes[param].shape.type),
                "*)p[", k++, "]");
  const Node& root = plan.nodes[plan.root];
  std::vector<LiteralShape> results = {root.shape};
  if (root.shape.is_tuple()) results = root.shape.tuple_elements;
  for (const LiteralShape& r : results)
    call += Cat(", (", StorageName(r.type), "*)p[", k++, "]");
  call += ");\n}\n";
  const std::string cc = Cat(dir, "/", tag, ".cc"), so = Cat(dir, "/", tag, ".so");
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

TEST(FusedHostTest, GeneratedKernelsMatchTheCpuEvaluatorOnEdgeValues) {
  if (!CompilerRuns()) GTEST_SKIP() << "no C++ compiler (" << Compiler() << ")";
  std::string dir = ::testing::TempDir() + "fused_host_XXXXXX";
  ASSERT_NE(mkdtemp(dir.data()), nullptr);
  constexpr int64_t kN = 2048;
  for (P t : testing::kTypes) {
    const std::string ty(PrimitiveTypeName(t));
    const testing::TypeModule m = testing::MakeTypeModule(t, kN);
    testing::Planned p = testing::PlanOf(m.text);
    ASSERT_NE(p.plan, nullptr);
    HostCall call = BuildOnHost(*p.plan, dir, ty);
    ASSERT_NE(call, nullptr) << ty;
    for (uint32_t seed : {1u, 2u}) {
      const std::vector<Value> args = testing::EdgeArguments(t, kN, seed);
      BackendOptions o;
      auto cpu = MakeCpuBackend()->Run(*p.parsed.file, 0, args, o);
      ASSERT_TRUE(cpu.ok()) << ty << ": " << cpu.status();
      std::vector<void*> pointers;
      for (const Value& a : args)
        pointers.push_back(const_cast<uint8_t*>(a->raw()));
      std::vector<Value> results;
      for (const Value& r : cpu->result->elements()) {
        auto lit = Literal::CreateArray(r->type(), r->dims());
        ASSERT_TRUE(lit.ok());
        results.push_back(std::make_shared<const Literal>(*std::move(lit)));
        pointers.push_back(const_cast<uint8_t*>(results.back()->raw()));
      }
      call(kN, pointers.data());
      const Value host =
          std::make_shared<const Literal>(Literal::MakeTuple(results));
      testing::ExpectSameResults(cpu->result, host, m.labels,
                                 Cat(ty, " seed ", seed));
    }
  }
}

}  // namespace
}  // namespace hlo::exec::gpu
#endif  // HLO_LSP_WITH_CUDA
