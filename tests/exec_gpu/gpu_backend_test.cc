// GPU-vs-CPU differential tests of the CUDA backend: each module runs on
// the CPU evaluator and on the GPU with the same fake arguments, and the
// outputs must agree within the contracts' tolerance. Skips (with the
// reason) where no GPU answers, as on the development machines and CI.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "absl/strings/match.h"
#include "exec/fake_data.h"
#include "exec/npz.h"
#include "exec/platform.h"
#include "exec/replay.h"
#include "gpu_test_util.h"
#include "gtest/gtest.h"

namespace hlo::exec {
namespace {

struct Runs {
  BackendRun cpu, gpu;
};

// Runs `text` on both backends; fails the test on any error.
Runs RunBoth(const std::string& text, uint32_t seed = 1,
             bool compare_with_cpu = false, double tol = 1e-3) {
  Runs out;
  auto p = testing::ParseModule(text);
  EXPECT_FALSE(p.file->HasErrors()) << text;
  if (p.file->HasErrors()) return out;
  std::vector<std::string> notes;
  auto args = MakeFakeArguments(*p.file, 0, seed, &notes);
  EXPECT_TRUE(args.ok()) << args.status();
  if (!args.ok()) return out;
  BackendOptions o;
  o.eval.collect_stats = true;
  auto cpu = MakeCpuBackend()->Run(*p.file, 0, *args, o);
  EXPECT_TRUE(cpu.ok()) << cpu.status();
  o.compare_with_cpu = compare_with_cpu;
  o.atol = o.rtol = tol;
  auto gpu = MakeGpuBackend();
  EXPECT_NE(gpu, nullptr);
  if (!gpu) return out;
  auto g = gpu->Run(*p.file, 0, *args, o);
  EXPECT_TRUE(g.ok()) << g.status();
  if (cpu.ok()) out.cpu = *std::move(cpu);
  if (g.ok()) out.gpu = *std::move(g);
  return out;
}

bool WentToHost(const BackendRun& r) {
  return std::any_of(r.notes.begin(), r.notes.end(), [](const std::string& n) {
    return absl::StrContains(n, "went to the CPU evaluator");
  });
}

void ExpectSameOutputs(const Runs& r, const std::string& what) {
  ASSERT_TRUE(r.cpu.result && r.gpu.result) << what;
  auto mismatches =
      CompareOutputs(FlattenResult(r.cpu.result), FlattenResult(r.gpu.result));
  EXPECT_TRUE(mismatches.empty()) << what << ": " << mismatches[0];
  // The same instructions in the same order, with matching statistics.
  ASSERT_EQ(r.cpu.stats.size(), r.gpu.stats.size()) << what;
  for (size_t k = 0; k < r.cpu.stats.size(); ++k) {
    const InstructionStats &c = r.cpu.stats[k], &g = r.gpu.stats[k];
    EXPECT_EQ(c.instruction, g.instruction) << what;
    EXPECT_EQ(c.elements, g.elements) << what;
    EXPECT_EQ(c.nan_count, g.nan_count) << what;
    EXPECT_EQ(c.inf_count, g.inf_count) << what;
    if (c.elements > c.nan_count + c.inf_count) {
      EXPECT_NEAR(c.min, g.min, 1e-3 * std::max(1.0, std::fabs(c.min))) << what;
      EXPECT_NEAR(c.max, g.max, 1e-3 * std::max(1.0, std::fabs(c.max))) << what;
    }
  }
}

// Modules that run entirely on the device.
const char* const kDeviceModules[] = {
    // elementwise f32, unary and binary, NaN-propagating max
    R"(HloModule ew
ENTRY e {
  a = f32[33,65] parameter(0)
  b = f32[33,65] parameter(1)
  s = f32[33,65] add(a, b)
  m = f32[33,65] multiply(s, b)
  d = f32[33,65] divide(m, a)
  x = f32[33,65] maximum(d, b)
  t = f32[33,65] tanh(x)
  e = f32[33,65] exponential(t)
  l = f32[33,65] log(e)
  ROOT r = f32[33,65] subtract(l, a)
})",
    // integers: division by zero, shifts, compare/select, clamp
    R"(HloModule ints
ENTRY e {
  a = s32[1000] parameter(0)
  b = s32[1000] parameter(1)
  z = s32[] constant(0)
  zs = s32[1000] broadcast(z), dimensions={}
  d = s32[1000] divide(a, zs)
  r = s32[1000] remainder(a, b)
  sh = s32[1000] shift-right-arithmetic(a, b)
  c = pred[1000] compare(a, b), direction=LT
  s = s32[1000] select(c, d, r)
  lo = s32[] constant(-100)
  hi = s32[] constant(100)
  cl = s32[1000] clamp(lo, sh, hi)
  ROOT t = (s32[1000], s32[1000]) tuple(s, cl)
})",
    // data movement: transpose, broadcast, slice, reverse, concatenate, pad
    R"(HloModule moves
ENTRY e {
  a = f32[6,10,4] parameter(0)
  t = f32[4,6,10] transpose(a), dimensions={2,0,1}
  s = f32[2,3,10] slice(t), slice={[1:3], [0:6:2], [0:10]}
  r = f32[2,3,10] reverse(s), dimensions={0,2}
  v = f32[3] parameter(1)
  b = f32[2,3,10] broadcast(v), dimensions={1}
  c = f32[4,3,10] concatenate(r, b), dimensions={0}
  z = f32[] constant(-1)
  p = f32[7,7,13] pad(c, z), padding=1_2x-1_3_1x0_3
  ROOT rs = f32[49,13] reshape(p)
})",
    // dynamic-slice and dynamic-update-slice, clamped starts
    R"(HloModule dyn
ENTRY e {
  a = f32[16,8] parameter(0)
  u = f32[4,8] parameter(1)
  i = s32[] constant(14)
  j = s32[] constant(3)
  ds = f32[4,4] dynamic-slice(a, i, j), dynamic_slice_sizes={4,4}
  dus = f32[16,8] dynamic-update-slice(a, u, j, i)
  ROOT t = (f32[4,4], f32[16,8]) tuple(ds, dus)
})",
    // reduce (add over two dims, max over one), iota, convert
    R"(HloModule red
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
max {
  x = bf16[] parameter(0)
  y = bf16[] parameter(1)
  ROOT s = bf16[] maximum(x, y)
}
ENTRY e {
  a = f32[8,100,3] parameter(0)
  z = f32[] constant(0)
  r = f32[100] reduce(a, z), dimensions={0,2}, to_apply=add
  io = s32[8,100,3] iota(), iota_dimension=1
  f = f32[8,100,3] convert(io)
  m = f32[8,100,3] multiply(a, f)
  h = bf16[8,100,3] convert(m)
  lo = bf16[] constant(-inf)
  x = bf16[8,3] reduce(h, lo), dimensions={1}, to_apply=max
  ROOT t = (f32[100], bf16[8,3]) tuple(r, x)
})",
    // dot: plain, batched with transposed operands, bf16 into f32
    R"(HloModule dots
ENTRY e {
  a = f32[64,48] parameter(0)
  b = f32[48,32] parameter(1)
  d = f32[64,32] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  x = f32[5,7,3] parameter(2)
  y = f32[3,6,5] parameter(3)
  bd = f32[5,7,6] dot(x, y), lhs_batch_dims={0}, rhs_batch_dims={2}, lhs_contracting_dims={2}, rhs_contracting_dims={0}
  p = bf16[16,32] parameter(4)
  q = bf16[32,8] parameter(5)
  hd = f32[16,8] dot(p, q), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT t = (f32[64,32], f32[5,7,6], f32[16,8]) tuple(d, bd, hd)
})",
    // a fusion and a while loop (control flow on the host)
    R"(HloModule loop
fused {
  p = f32[128] parameter(0)
  q = f32[128] parameter(1)
  m = f32[128] multiply(p, q)
  ROOT s = f32[128] add(m, p)
}
cond {
  s = (s32[], f32[128]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(5)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[128]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[128] get-tuple-element(s), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  h = f32[] constant(0.5)
  hb = f32[128] broadcast(h), dimensions={}
  y = f32[128] fusion(x, hb), kind=kLoop, calls=fused
  ROOT t = (s32[], f32[128]) tuple(j, y)
}
ENTRY e {
  a = f32[128] parameter(0)
  z = s32[] constant(0)
  t = (s32[], f32[128]) tuple(z, a)
  w = (s32[], f32[128]) while(t), condition=cond, body=body
  ROOT r = f32[128] get-tuple-element(w), index=1
})",
};

TEST(GpuBackendTest, DeviceModulesMatchTheCpu) {
  REQUIRE_GPU();
  for (const char* text : kDeviceModules) {
    Runs r = RunBoth(text);
    const std::string name = std::string(text).substr(10, 8);
    ExpectSameOutputs(r, name);
    EXPECT_FALSE(WentToHost(r.gpu))
        << name << ": " << ::testing::PrintToString(r.gpu.notes);
  }
}

TEST(GpuBackendTest, OpsWithoutKernelsRunOnTheHostAndSaySo) {
  REQUIRE_GPU();
  Runs r = RunBoth(R"(HloModule host
less {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT lt = pred[] compare(a, b), direction=LT
}
ENTRY e {
  a = f32[4,50] parameter(0)
  e = f32[4,50] exponential(a)
  s = f32[4,50] sort(e), dimensions={1}, to_apply=less
  ROOT n = f32[4,50] negate(s)
})");
  ExpectSameOutputs(r, "host");
  EXPECT_TRUE(WentToHost(r.gpu)) << ::testing::PrintToString(r.gpu.notes);

  // Batch norm and the rng state run on the CPU op functions too.
  Runs bn = RunBoth(R"(HloModule bn
ENTRY e {
  x = f32[8,4] parameter(0)
  s = f32[4] parameter(1)
  o = f32[4] parameter(2)
  t = (f32[8,4], f32[4], f32[4]) batch-norm-training(x, s, o), epsilon=0.001, feature_index=1
  y = f32[8,4] get-tuple-element(t), index=0
  st = u64[2] rng-get-and-update-state(), delta=4
  ROOT r = (f32[8,4], u64[2]) tuple(y, st)
})");
  ExpectSameOutputs(bn, "bn");
  EXPECT_TRUE(WentToHost(bn.gpu)) << ::testing::PrintToString(bn.gpu.notes);
}

TEST(GpuBackendTest, CompareModeFindsNoDivergenceWithinTolerance) {
  REQUIRE_GPU();
  Runs r = RunBoth(kDeviceModules[0], 3, /*compare_with_cpu=*/true);
  ASSERT_TRUE(r.gpu.reference);
  EXPECT_FALSE(r.gpu.divergence.has_value()) << r.gpu.divergence->detail;
  EXPECT_TRUE(CompareOutputs(FlattenResult(r.gpu.reference),
                             FlattenResult(r.gpu.result))
                  .empty());
}

TEST(GpuBackendTest, CompareModeReportsTheFirstDivergence) {
  REQUIRE_GPU();
  // A sum of a million floats: the GPU's tree order and the CPU's sequential
  // order round differently, so with no tolerance the reduce is the first
  // instruction that differs (the parameter and the constant agree).
  Runs r = RunBoth(R"(HloModule sum
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  a = f32[1048576] parameter(0)
  z = f32[] constant(0)
  s = f32[] reduce(a, z), dimensions={0}, to_apply=add
  ROOT n = f32[] negate(s)
})",
                   5, /*compare_with_cpu=*/true, /*tol=*/0);
  ASSERT_TRUE(r.gpu.divergence.has_value());
  EXPECT_EQ(r.gpu.divergence->run, 1);
  EXPECT_NE(r.gpu.divergence->cpu.sum, r.gpu.divergence->device.sum);
  EXPECT_TRUE(
      absl::StrContains(r.gpu.divergence->detail, "1 of 1 elements differ"))
      << r.gpu.divergence->detail;
}

TEST(GpuBackendTest, ReplayOnGpuInProcess) {
  REQUIRE_GPU();
  auto p = testing::ParseModule(kDeviceModules[5]);
  ReplayOptions o;
  o.platform = Platform::kGpu;
  o.collect_stats = true;
  o.use_child_process = false;
  o.compare_with_cpu = true;
  ReplayResult r = Replay(*p.file, 0, o);
  ASSERT_EQ(r.outcome, ReplayOutcome::kOk) << r.error;
  EXPECT_EQ(r.outputs.size(), 3u);
  EXPECT_EQ(r.reference_outputs.size(), 3u);
  EXPECT_TRUE(CompareOutputs(r.reference_outputs, r.outputs).empty());
  for (const std::string& n : r.notes) std::printf("note: %s\n", n.c_str());
}

}  // namespace
}  // namespace hlo::exec
