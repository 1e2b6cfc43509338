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
#include <unistd.h>

#include <string>
#include <vector>

#include "exec/platform.h"
#include "fused_host_util.h"
#include "fused_test_util.h"
#include "gtest/gtest.h"

namespace hlo::exec::gpu {
namespace {

using P = PrimitiveType;
using testing::BuildOnHost;
using testing::Compiler;
using testing::CompilerRuns;
using testing::HostCall;

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
