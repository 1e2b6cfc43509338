// The replay driver: refusals up front, the child process (crash, timeout),
// statistics and the NaN origin.
#include "exec/replay.h"

#include <signal.h>

#include <chrono>

#include "exec/platform.h"
#include "exec_test_util.h"
#include "gtest/gtest.h"

namespace hlo::exec {
namespace {

constexpr char kNanModule[] = R"(HloModule nan
ENTRY e {
  x = f32[4] parameter(0)
  z = f32[4] constant({0, 1, 0, 2})
  d = f32[4] divide(z, z)
  l = f32[4] log(x)
  ROOT a = f32[4] add(d, l)
})";

TEST(ReplayTest, StatsAndFirstNanInExecutionOrder) {
  auto p = testing::ParseModule(kNanModule);
  ReplayOptions o;
  o.collect_stats = true;
  o.arguments = {testing::Array(PrimitiveType::kF32, {4}, {1, 1, 1, 1})};
  ReplayResult r = Replay(*p.file, 0, o);
  ASSERT_EQ(r.outcome, ReplayOutcome::kOk) << r.error;
  ASSERT_TRUE(r.first_nonfinite.has_value());
  EXPECT_EQ(r.first_nonfinite->name, "d");
  EXPECT_EQ(r.first_nonfinite->line, 5);
  EXPECT_EQ(r.first_nonfinite->stats.nan_count, 2);
  ASSERT_EQ(r.outputs.size(), 1u);
  EXPECT_EQ(r.outputs[0].first, "out0");
  bool found_z = false;
  for (const NamedStats& s : r.stats) {
    if (s.name != "z") continue;
    found_z = true;
    EXPECT_EQ(s.stats.min, 0);
    EXPECT_EQ(s.stats.max, 2);
    EXPECT_DOUBLE_EQ(s.stats.mean(), 0.75);
  }
  EXPECT_TRUE(found_z);
}

TEST(ReplayTest, HugeBroadcastRefusedQuicklyWithTheNumber) {
  auto p = testing::ParseModule(R"(HloModule big
ENTRY e {
  a = f32[] parameter(0)
  ROOT b = f32[1000000,1000000] broadcast(a), dimensions={}
})");
  ReplayOptions o;
  o.memory_limit = int64_t{8} << 30;
  const auto start = std::chrono::steady_clock::now();
  ReplayResult r = Replay(*p.file, 0, o);
  const double s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  EXPECT_EQ(r.outcome, ReplayOutcome::kRefused);
  EXPECT_NE(r.error.find("4000000000004 bytes"), std::string::npos) << r.error;
  EXPECT_LT(s, 0.5);
}

TEST(ReplayTest, UnsupportedOpRefusedBeforeRunning) {
  auto p = testing::ParseModule(R"(HloModule m
ENTRY e {
  a = f32[2] parameter(0)
  ROOT b = f32[2] custom-call(a), custom_call_target="VendorOpaqueKernel"
})");
  ReplayResult r = Replay(*p.file, 0, {});
  EXPECT_EQ(r.outcome, ReplayOutcome::kRefused);
  EXPECT_NE(r.error.find("VendorOpaqueKernel\" (line 4)"), std::string::npos)
      << r.error;
}

TEST(ReplayTest, NeuronStaticRingTransferPassesValuesThrough) {
  // torch-neuronx wraps weights in it, often with a layout change only.
  auto p = testing::ParseModule(R"(HloModule m
ENTRY e {
  a = f32[2,3]{0,1} parameter(0)
  ROOT b = f32[2,3]{1,0} custom-call(a), custom_call_target="AwsNeuronTransferWithStaticRing"
})");
  auto r = testing::RunHlo(p.text, {testing::Array(PrimitiveType::kF32, {2, 3},
                                                   {1, 2, 3, 4, 5, 6})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(testing::Values(**r), (std::vector<double>{1, 2, 3, 4, 5, 6}));
}

TEST(ReplayTest, NeuronGeluFamily) {
  // gelu(x) = x Phi(x) (erf form), its tanh approximation, and gelu'(x) =
  // Phi(x) + x phi(x); expected values from Python's math.erf/tanh/exp.
  const std::vector<double> xs = {-3, -1, -0.5, 0, 0.5, 1, 3};
  const std::pair<const char*, std::vector<double>> cases[] = {
      {"AwsNeuronGelu",
       {-0.004049694, -0.158655254, -0.154268769, 0.0, 0.345731231, 0.841344746,
        2.995950306}},
      {"AwsNeuronGeluApprxTanh",
       {-0.003637392, -0.158808009, -0.15428599, 0.0, 0.34571401, 0.841191991,
        2.996362608}},
      {"AwsNeuronGeluBackward",
       {-0.011945647, -0.083315471, 0.132504875, 0.5, 0.867495125, 1.083315471,
        1.011945647}},
  };
  for (const auto& [target, want] : cases) {
    const std::string t = target;
    auto r = testing::RunHlo(
        "HloModule m\nENTRY e {\n  a = f32[7] parameter(0)\n"
        "  ROOT b = f32[7] custom-call(a), custom_call_target=\"" +
            t + "\"\n}\n",
        {testing::Array(PrimitiveType::kF32, {7}, xs)});
    ASSERT_TRUE(r.ok()) << t << ": " << r.status();
    const std::vector<double> got = testing::Values(**r);
    for (size_t i = 0; i < xs.size(); ++i)
      EXPECT_NEAR(got[i], want[i], 1e-6) << t << "(" << xs[i] << ")";
  }
}

TEST(ReplayTest, CrashInTheChildIsReportedAndWeLiveOn) {
  auto p = testing::ParseModule(kNanModule);
  ReplayOptions o;
  o.crash_signal_for_testing = SIGSEGV;
  ReplayResult r = Replay(*p.file, 0, o);
  EXPECT_EQ(r.outcome, ReplayOutcome::kFailed);
  EXPECT_NE(r.error.find("crashed"), std::string::npos) << r.error;
  o.crash_signal_for_testing = 0;
  EXPECT_EQ(Replay(*p.file, 0, o).outcome, ReplayOutcome::kOk);
}

TEST(ReplayTest, EndlessLoopTimesOut) {
  auto p = testing::ParseModule(R"(HloModule loop
cond {
  p = s32[] parameter(0)
  ROOT t = pred[] constant(true)
}
body {
  p = s32[] parameter(0)
  one = s32[] constant(1)
  ROOT n = s32[] add(p, one)
}
ENTRY e {
  z = s32[] constant(0)
  ROOT w = s32[] while(z), condition=cond, body=body
})");
  ReplayOptions o;
  o.timeout_seconds = 1;
  const auto start = std::chrono::steady_clock::now();
  ReplayResult r = Replay(*p.file, 0, o);
  const double s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  EXPECT_EQ(r.outcome, ReplayOutcome::kFailed);
  EXPECT_NE(r.error.find("timed out"), std::string::npos) << r.error;
  EXPECT_LT(s, 5);
}

TEST(ReplayTest, MemoryEstimateIsExactAtTheLimit) {
  auto p = testing::ParseModule(R"(HloModule m
ENTRY e {
  a = f32[1000] parameter(0)
  ROOT b = f32[1000,1000] broadcast(a), dimensions={1}
})");
  ReplayOptions o;
  o.memory_limit = 4000 + 4000000 - 1;  // the estimate is exactly one over
  ReplayResult r = Replay(*p.file, 0, o);
  EXPECT_EQ(r.outcome, ReplayOutcome::kRefused);
  o.memory_limit = 4000 + 4000000;
  EXPECT_EQ(Replay(*p.file, 0, o).outcome, ReplayOutcome::kOk);
}

TEST(ReplayTest, GpuPlatformIsRefusedWithoutAGpu) {
  if (QueryGpuInChild().available()) GTEST_SKIP() << "a GPU is present";
  auto p = testing::ParseModule(kNanModule);
  ReplayOptions o;
  o.platform = Platform::kGpu;
  ReplayResult r = Replay(*p.file, 0, o);
  EXPECT_EQ(r.outcome, ReplayOutcome::kRefused);
  EXPECT_EQ(r.error.rfind("no GPU: ", 0), 0u) << r.error;
}

TEST(ReplayTest, CompareUsesAbsoluteAndRelativeTolerance) {
  NamedArrays a = {
      {"out0", testing::Array(PrimitiveType::kF32, {3}, {1, 1000, NAN})}};
  NamedArrays b = {{"out0", testing::Array(PrimitiveType::kF32, {3},
                                           {1.0005, 1000.5, NAN})}};
  EXPECT_TRUE(CompareOutputs(a, b).empty());  // 1000.5: abs > 1e-3, rel < 1e-3
  NamedArrays c = {
      {"out0", testing::Array(PrimitiveType::kF32, {3}, {1.01, 1000, NAN})}};
  EXPECT_EQ(CompareOutputs(a, c).size(), 1u);
}

}  // namespace
}  // namespace hlo::exec
