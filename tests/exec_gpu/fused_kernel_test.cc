// Fused loop kernels (exec/gpu/fused_codegen.h, exec/gpu/nvrtc.h).
// Without a GPU: the generated source of every supported op on every
// element type, and of data movement fusions with both index widths,
// compiles with NVRTC (skipped only when libnvrtc cannot be opened), and
// fusions the generator cannot take are declined naming the op. On a GPU
// (skipped without): fused results equal the CPU evaluator's on inputs full of
// edge values (NaN, inf, -0, subnormals, integer extremes, zero divisors,
// shifts past the width): bit for bit, except the transcendental float ops,
// which agree within a few units in the last place.
#ifdef HLO_LSP_WITH_CUDA
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "exec/element.h"
#include "exec/evaluator_internal.h"
#include "exec/gpu/fused_codegen.h"
#include "exec/gpu/fused_prelude.h"
#include "exec/gpu/nvrtc.h"
#include "exec/platform.h"
#include "exec/strings.h"
#include "fused_test_util.h"
#include "gpu_test_util.h"
#include "gtest/gtest.h"

namespace hlo::exec::gpu {
namespace {

using P = PrimitiveType;
using testing::kTypes;
using testing::MakeTypeModule;
using testing::Planned;
using testing::PlanOf;
using testing::TypeModule;

TEST(FusedCodegenTest, EveryOpOnEveryTypeCompilesWithNvrtc) {
  auto version = NvrtcVersion();
  if (!version.ok()) GTEST_SKIP() << version.status().message();
  for (P t : kTypes) {
    const TypeModule m = MakeTypeModule(t, 64);
    Planned p = PlanOf(m.text);
    ASSERT_NE(p.plan, nullptr);
    auto src = GenerateFusedKernel(*p.plan);
    ASSERT_TRUE(src.ok()) << PrimitiveTypeName(t) << ": " << src.status();
    EXPECT_EQ(src->elements, 64);
    EXPECT_EQ(src->parameters, 6);
    EXPECT_EQ(src->results, static_cast<int>(m.labels.size()));
    auto ptx = CompileToPtx(src->source);
    ASSERT_TRUE(ptx.ok()) << PrimitiveTypeName(t) << ": " << ptx.status();
    EXPECT_TRUE(absl::StrContains(*ptx, Cat(".entry ", kFusedKernelName)))
        << PrimitiveTypeName(t);
  }
}

// The backend compiles a module's fusions as one program: the prelude
// once, then each kernel under its own name.
TEST(FusedCodegenTest, KernelsOfManyFusionsCompileAsOneProgram) {
  auto version = NvrtcVersion();
  if (!version.ok()) GTEST_SKIP() << version.status().message();
  std::string source = kFusedPrelude;
  std::vector<Planned> planned;
  for (P t : kTypes) {
    planned.push_back(PlanOf(MakeTypeModule(t, 64).text));
    ASSERT_NE(planned.back().plan, nullptr);
    auto src = GenerateFusedKernel(*planned.back().plan,
                                   Cat("k_", PrimitiveTypeName(t)));
    ASSERT_TRUE(src.ok()) << src.status();
    EXPECT_EQ(src->source, kFusedPrelude + src->kernel);
    source += src->kernel;
  }
  auto ptx = CompileToPtx(source);
  ASSERT_TRUE(ptx.ok()) << ptx.status();
  for (P t : kTypes)
    EXPECT_TRUE(absl::StrContains(*ptx, Cat(".entry k_", PrimitiveTypeName(t))))
        << PrimitiveTypeName(t);
}

TEST(FusedCodegenTest, CompileErrorsCarryNvrtcsLog) {
  auto version = NvrtcVersion();
  if (!version.ok()) GTEST_SKIP() << version.status().message();
  auto ptx = CompileToPtx("extern \"C\" __global__ void k() { undeclared(); }");
  ASSERT_FALSE(ptx.ok());
  EXPECT_EQ(ptx.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(ptx.status().message(), "undeclared"))
      << ptx.status();
}

TEST(FusedCodegenTest, DeclinesWhatItCannotFuseNamingTheOp) {
  struct Case {
    const char* body;
    const char* want;  // in the message
  };
  const Case cases[] = {
      {"  a = f32[4,8] parameter(0)\n  z = f32[] constant(0)\n"
       "  ROOT r = f32[4] reduce(a, z), dimensions={1}, to_apply=add\n}\n"
       "add {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n"
       "  ROOT s = f32[] add(x, y)",
       "no fused kernel for reduce: not elementwise"},
      {"  a = f32[8,4] parameter(0)\n  i = s32[3,1] parameter(1)\n"
       "  ROOT g = f32[3,4] gather(a, i), offset_dims={1}, "
       "collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, "
       "slice_sizes={1,4}",
       "no fused kernel for gather: not elementwise"},
      {"  a = f32[4,4] parameter(0)\n"
       "  ROOT b = f32[4,4] broadcast(a), dimensions={1,1}",
       "no fused kernel for broadcast: dimensions= do not match the operand"},
      {"  a = c64[8] parameter(0)\n  ROOT n = c64[8] negate(a)",
       "no fused kernel for parameter: c64 values"},
      {"  a = f32[3] parameter(0)\n"
       "  k = f32[3] constant({1, 2, 3})\n  ROOT s = f32[3] add(a, k)",
       "no fused kernel for constant"},
      {"  a = s32[8] parameter(0)\n  ROOT e = s32[8] exponential(a)",
       "no fused kernel for exponential: not defined for s32"},
      {"  a = f32[8] parameter(0)\n  ROOT c = f32[8] popcnt(a)",
       "no fused kernel for popcnt: not defined for f32"},
      {"  a = f32[8] parameter(0)\n  b = f32[4] parameter(1)\n"
       "  ROOT t = (f32[8], f32[4]) tuple(a, b)",
       "results of different sizes"},
      {"  a = f32[8] parameter(0)\n  ROOT s = f32[4] slice(a), slice={[0:9]}",
       "no fused kernel for slice: a slice out of bounds"},
  };
  for (const Case& c : cases) {
    Planned p = PlanOf(Cat("HloModule d\n\nfused {\n", c.body, "\n}\n"));
    ASSERT_NE(p.plan, nullptr) << c.body;
    auto src = GenerateFusedKernel(*p.plan);
    ASSERT_FALSE(src.ok()) << c.body;
    EXPECT_EQ(src.status().code(), absl::StatusCode::kUnimplemented);
    EXPECT_TRUE(absl::StrContains(src.status().message(), c.want))
        << src.status() << " (want: " << c.want << ")";
  }
}

TEST(FusedCodegenTest, MissingNvrtcIsAClearError) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        setenv("HLO_LSP_NVRTC", "/nonexistent/libnvrtc.so.0", 1);
        auto v = NvrtcVersion();
        std::exit(!v.ok() &&
                          absl::StartsWith(v.status().message(),
                                           "NVRTC not found: ") &&
                          absl::StrContains(v.status().message(),
                                            "/nonexistent/libnvrtc.so.0")
                      ? 0
                      : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(FusedCodegenTest, NvrtcIsNotMappedAtStart) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        std::ifstream maps("/proc/self/maps");
        std::string text((std::istreambuf_iterator<char>(maps)),
                         std::istreambuf_iterator<char>());
        std::exit(text.find("libnvrtc") == std::string::npos ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

// Data movement inside fusions (the elemental walk): a transpose, a
// dynamic-slice with a start past the end (clamped) padded with negative
// and interior padding, a reverse concatenated and bitcast through a
// column-major layout.
constexpr char kMovesModule[] = R"(HloModule moves
f1 {
  a = f32[30,40] parameter(0)
  t = f32[40,30] transpose(a), dimensions={1,0}
  ROOT n = f32[40,30] negate(t)
}
f2 {
  a = f32[40,30] parameter(0)
  i = s32[] parameter(1)
  z = s32[] constant(0)
  d = f32[8,30] dynamic-slice(a, i, z), dynamic_slice_sizes={8,30}
  k = f32[] constant(-1)
  ROOT p = f32[16,60] pad(d, k), padding=2_-1_1x-1_2_1
}
f3 {
  a = f32[16,60] parameter(0)
  r = f32[16,60] reverse(a), dimensions={1}
  c = f32[32,60] concatenate(a, r), dimensions={0}
  ROOT b = f32[60,32]{0,1} bitcast(c)
}
ENTRY e {
  a = f32[30,40] parameter(0)
  i = s32[] parameter(1)
  t = f32[40,30] fusion(a), kind=kLoop, calls=f1
  p = f32[16,60] fusion(t, i), kind=kLoop, calls=f2
  ROOT b = f32[60,32]{0,1} fusion(p), kind=kLoop, calls=f3
})";

TEST(FusedCodegenTest, DataMovementKernelsCompileWithNvrtc) {
  auto version = NvrtcVersion();
  if (!version.ok()) GTEST_SKIP() << version.status().message();
  for (const char* f : {"f1", "f2", "f3"}) {
    Planned p = PlanOf(kMovesModule, f);
    ASSERT_NE(p.plan, nullptr);
    for (bool wide : {false, true}) {
      auto src = GenerateFusedKernel(*p.plan, kFusedKernelName, wide);
      ASSERT_TRUE(src.ok()) << f << ": " << src.status();
      EXPECT_EQ(absl::StrContains(src->kernel, "const s64 j"), wide) << f;
      auto ptx = CompileToPtx(src->source);
      EXPECT_TRUE(ptx.ok())
          << f << (wide ? " (64-bit)" : "") << ": " << ptx.status();
    }
  }
}

// ------------------------------------------------------------- on a GPU --

std::string Notes(const BackendRun& r) {
  std::string all;
  for (const std::string& n : r.notes) all += n + "\n";
  return all;
}

absl::StatusOr<BackendRun> RunOn(Backend& backend, const ParsedFile& file,
                                 const std::vector<Value>& args,
                                 bool stats = false, bool compare = false) {
  BackendOptions o;
  o.eval.collect_stats = stats;
  o.compare_with_cpu = compare;
  return backend.Run(file, 0, args, o);
}

TEST(FusedKernelGpuTest, EveryOpOnEveryTypeMatchesTheCpuOnEdgeValues) {
  REQUIRE_GPU();
  constexpr int64_t kN = 100002;  // more than one grid-stride step
  auto gpu = MakeGpuBackend();
  ASSERT_NE(gpu, nullptr);
  for (P t : kTypes) {
    const std::string ty(PrimitiveTypeName(t));
    const TypeModule m = MakeTypeModule(t, kN);
    auto parsed = ::hlo::exec::testing::ParseModule(m.text);
    ASSERT_FALSE(parsed.file->HasErrors()) << ty;
    const std::vector<Value> args = testing::EdgeArguments(t, kN, 7);
    auto cpu = RunOn(*MakeCpuBackend(), *parsed.file, args);
    ASSERT_TRUE(cpu.ok()) << ty << ": " << cpu.status();
    auto g = RunOn(*gpu, *parsed.file, args);
    ASSERT_TRUE(g.ok()) << ty << ": " << g.status();
    EXPECT_TRUE(absl::StrContains(Notes(*g), "fusions: 1 run as fused kernels"))
        << ty << ": " << Notes(*g);
    // CUDA's math library against the CPU's: up to 8 units in the last place.
    testing::ExpectSameResults(cpu->result, g->result, m.labels, ty, 8);
  }
}

constexpr char kLoop[] = R"(HloModule loop
fused {
  p = f32[1000] parameter(0)
  k = f32[] constant(0.8125)
  kb = f32[1000] broadcast(k), dimensions={}
  m = f32[1000] multiply(p, kb)
  ROOT s = f32[1000] add(m, p)
}
cond {
  s = (s32[], f32[1000]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[1000]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[1000] get-tuple-element(s), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  y = f32[1000] fusion(x), kind=kLoop, calls=fused
  ROOT t = (s32[], f32[1000]) tuple(j, y)
}
ENTRY e {
  a = f32[1000] parameter(0)
  z = s32[] constant(0)
  t = (s32[], f32[1000]) tuple(z, a)
  w = (s32[], f32[1000]) while(t), condition=cond, body=body
  ROOT r = f32[1000] get-tuple-element(w), index=1
})";

TEST(FusedKernelGpuTest, AFusionInALoopIsCompiledOnce) {
  REQUIRE_GPU();
  auto parsed = ::hlo::exec::testing::ParseModule(kLoop);
  auto a = Literal::CreateArray(P::kF32, {1000});
  ASSERT_TRUE(a.ok());
  for (int i = 0; i < 1000; ++i) a->data<float>()[i] = 0.25f * i - 100;
  const std::vector<Value> args = {
      std::make_shared<const Literal>(*std::move(a))};
  auto cpu = RunOn(*MakeCpuBackend(), *parsed.file, args);
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  auto g = RunOn(*MakeGpuBackend(), *parsed.file, args);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_TRUE(absl::StrContains(Notes(*g),
                                "fusions: 3 runs as fused kernels (1 compiled "
                                "with NVRTC in 1 program)"))
      << Notes(*g);
  EXPECT_EQ(std::memcmp(cpu->result->raw(), g->result->raw(), 4000), 0);
}

TEST(FusedKernelGpuTest, AModulesFusionsAreCompiledAsOneProgram) {
  REQUIRE_GPU();
  auto parsed = ::hlo::exec::testing::ParseModule(R"(HloModule two
f1 {
  a = s32[300] parameter(0)
  k = s32[] constant(-77)
  kb = s32[300] broadcast(k), dimensions={}
  ROOT d = s32[300] divide(a, kb)
}
f2 {
  a = s32[300] parameter(0)
  b = s32[300] parameter(1)
  ROOT x = s32[300] shift-left(a, b)
}
ENTRY e {
  a = s32[300] parameter(0)
  q = s32[300] fusion(a), kind=kLoop, calls=f1
  ROOT r = s32[300] fusion(q, a), kind=kLoop, calls=f2
})");
  auto args = testing::EdgeArguments(P::kS32, 300, 9);
  args.resize(1);
  auto cpu = RunOn(*MakeCpuBackend(), *parsed.file, args);
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  auto g = RunOn(*MakeGpuBackend(), *parsed.file, args);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_TRUE(absl::StrContains(Notes(*g),
                                "fusions: 2 runs as fused kernels (2 compiled "
                                "with NVRTC in 1 program)"))
      << Notes(*g);
  EXPECT_EQ(std::memcmp(cpu->result->raw(), g->result->raw(), 1200), 0);
}

// kMovesModule's fusions: one kernel each, bit for bit the CPU's.
TEST(FusedKernelGpuTest, DataMovementFusionsRunAsOneKernelEach) {
  REQUIRE_GPU();
  auto parsed = ::hlo::exec::testing::ParseModule(kMovesModule);
  auto edge = testing::EdgeArguments(P::kF32, 1200, 4);
  auto a = Literal::CreateArray(P::kF32, {30, 40});
  ASSERT_TRUE(a.ok());
  std::memcpy(a->raw(), edge[0]->raw(), 4800);
  const std::vector<Value> in = {
      std::make_shared<const Literal>(*std::move(a)),
      std::make_shared<const Literal>(Literal::ScalarFromInt(P::kS32, 35))};
  auto cpu = RunOn(*MakeCpuBackend(), *parsed.file, in);
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  auto g = RunOn(*MakeGpuBackend(), *parsed.file, in);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_TRUE(absl::StrContains(Notes(*g), "fusions: 3 runs as fused kernels"))
      << Notes(*g);
  ASSERT_EQ(g->result->count(), 1920);
  EXPECT_EQ(std::memcmp(cpu->result->raw(), g->result->raw(), 7680), 0);
}

TEST(FusedKernelGpuTest, DeclinedFusionsRunOpByOpAndSaySo) {
  REQUIRE_GPU();
  auto parsed = ::hlo::exec::testing::ParseModule(R"(HloModule t
add {
  x = s32[] parameter(0)
  y = s32[] parameter(1)
  ROOT s = s32[] add(x, y)
}
fused {
  a = s32[30,40] parameter(0)
  z = s32[] constant(0)
  r = s32[30] reduce(a, z), dimensions={1}, to_apply=add
  ROOT n = s32[30] negate(r)
}
ENTRY e {
  a = s32[30,40] parameter(0)
  ROOT f = s32[30] fusion(a), kind=kLoop, calls=fused
})");
  auto args = testing::EdgeArguments(P::kS32, 1200, 3);
  auto a = Literal::CreateArray(P::kS32, {30, 40});
  ASSERT_TRUE(a.ok());
  std::memcpy(a->raw(), args[0]->raw(), 4800);
  const std::vector<Value> in = {
      std::make_shared<const Literal>(*std::move(a))};
  auto cpu = RunOn(*MakeCpuBackend(), *parsed.file, in);
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  auto g = RunOn(*MakeGpuBackend(), *parsed.file, in);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_TRUE(absl::StrContains(Notes(*g), "fusions: 0 runs as fused kernels"))
      << Notes(*g);
  EXPECT_TRUE(
      absl::StrContains(Notes(*g), "1 op by op: no fused kernel for reduce"))
      << Notes(*g);
  EXPECT_EQ(std::memcmp(cpu->result->raw(), g->result->raw(), 120), 0);
}

TEST(FusedKernelGpuTest, StatisticsKeepFusionsOpByOp) {
  REQUIRE_GPU();
  const TypeModule m = MakeTypeModule(P::kS32, 500);
  auto parsed = ::hlo::exec::testing::ParseModule(m.text);
  auto g = RunOn(*MakeGpuBackend(), *parsed.file,
                 testing::EdgeArguments(P::kS32, 500, 1), /*stats=*/true);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_TRUE(absl::StrContains(
      Notes(*g), "1 op by op: per-instruction statistics asked for"))
      << Notes(*g);
}

TEST(FusedKernelGpuTest, CompareModeChecksTheFusedKernelAgainstTheCpu) {
  REQUIRE_GPU();
  auto parsed = ::hlo::exec::testing::ParseModule(kLoop);
  auto a = Literal::CreateArray(P::kF32, {1000});
  ASSERT_TRUE(a.ok());
  const std::vector<Value> args = {
      std::make_shared<const Literal>(*std::move(a))};
  auto g = RunOn(*MakeGpuBackend(), *parsed.file, args, false,
                 /*compare=*/true);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_FALSE(g->divergence.has_value()) << g->divergence->detail;
  EXPECT_TRUE(absl::StrContains(Notes(*g), "3 runs as fused kernels"))
      << Notes(*g);
  // A multi-output fusion: each result compared.
  const TypeModule m = MakeTypeModule(P::kS32, 5000);
  auto multi = ::hlo::exec::testing::ParseModule(m.text);
  auto r = RunOn(*MakeGpuBackend(), *multi.file,
                 testing::EdgeArguments(P::kS32, 5000, 5), false, true);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(r->divergence.has_value()) << r->divergence->detail;
  EXPECT_TRUE(absl::StrContains(Notes(*r), "1 run as fused kernels"))
      << Notes(*r);
}

}  // namespace
}  // namespace hlo::exec::gpu
#endif  // HLO_LSP_WITH_CUDA
