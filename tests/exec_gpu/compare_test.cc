// Host-side logic of the device replay: the tolerance rule of the first
// divergence, per-value statistics, the notes/reference/divergence wire
// format, the CPU backend and the no-GPU description. Runs without a GPU.
#include <cmath>
#include <limits>

#include "exec/evaluator.h"
#include "exec/npz.h"
#include "exec/platform.h"
#include "gpu_test_util.h"
#include "gtest/gtest.h"

namespace hlo::exec {
namespace {

Value Array(PrimitiveType t, std::vector<int64_t> dims,
            const std::vector<double>& values) {
  auto lit = Literal::CreateArray(t, std::move(dims));
  EXPECT_TRUE(lit.ok());
  for (size_t i = 0; i < values.size(); ++i) lit->SetDouble(i, values[i]);
  return std::make_shared<const Literal>(*std::move(lit));
}

TEST(DescribeDifferenceTest, NeedsBothAbsoluteAndRelativeExcess) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto cpu = Array(PrimitiveType::kF32, {4}, {1000, 0.0001, nan, 5});
  // 1000 vs 1000.5: 0.5 absolute but 5e-4 relative -> agrees.
  // 0.0001 vs 0.0009: 800% relative but 8e-4 absolute -> agrees.
  auto close = Array(PrimitiveType::kF32, {4}, {1000.5, 0.0009, nan, 5});
  EXPECT_FALSE(DescribeDifference(*cpu, *close, 1e-3, 1e-3).has_value());
  auto far = Array(PrimitiveType::kF32, {4}, {1000, 0.0001, nan, 5.5});
  auto d = DescribeDifference(*cpu, *far, 1e-3, 1e-3);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(*d,
            "1 of 4 elements differ (first at 3: cpu 5, gpu 5.5; largest "
            "difference 0.5)");
  // A NaN on one side only differs.
  auto one_nan = Array(PrimitiveType::kF32, {4}, {1000, 0.0001, 1, 5});
  EXPECT_TRUE(DescribeDifference(*cpu, *one_nan, 1e-3, 1e-3).has_value());
  // Looser tolerances accept the 0.5.
  EXPECT_FALSE(DescribeDifference(*cpu, *far, 1, 1e-3).has_value());
}

TEST(DescribeDifferenceTest, ShapesMustAgree) {
  auto a = Array(PrimitiveType::kF32, {2}, {1, 2});
  auto b = Array(PrimitiveType::kF32, {1, 2}, {1, 2});
  auto d = DescribeDifference(*a, *b, 1e-3, 1e-3);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(*d, "shape f32[1,2], the CPU has f32[2]");
}

TEST(StatsOfTest, CountsNonFiniteApart) {
  const double inf = std::numeric_limits<double>::infinity();
  auto v = Array(PrimitiveType::kF32, {5},
                 {1, -2, std::numeric_limits<double>::quiet_NaN(), inf, 4});
  InstructionStats s = StatsOf(7, *v);
  EXPECT_EQ(s.instruction, 7u);
  EXPECT_EQ(s.runs, 1);
  EXPECT_EQ(s.elements, 5);
  EXPECT_EQ(s.nan_count, 1);
  EXPECT_EQ(s.inf_count, 1);
  EXPECT_EQ(s.min, -2);
  EXPECT_EQ(s.max, 4);
  EXPECT_EQ(s.sum, 3);
  EXPECT_EQ(s.mean(), 1);
}

TEST(RunExtrasTest, RoundTrip) {
  BackendRun run;
  run.notes = {"ran on X", "2 instruction runs went to the CPU evaluator"};
  run.reference = std::make_shared<const Literal>(
      Literal::MakeTuple({Array(PrimitiveType::kF32, {2}, {1.5, 2.5}),
                          Array(PrimitiveType::kS32, {}, {7})}));
  Divergence d;
  d.instruction = 3;
  d.run = 2;
  d.detail = "1 of 2 elements differ";
  d.cpu = StatsOf(3, *Array(PrimitiveType::kF32, {2}, {1, 2}));
  d.device = StatsOf(3, *Array(PrimitiveType::kF32, {2}, {1, 3}));
  run.divergence = d;
  BackendRun back;
  ASSERT_TRUE(DecodeRunExtras(EncodeRunExtras(run), &back));
  EXPECT_EQ(back.notes, run.notes);
  ASSERT_TRUE(back.reference);
  NamedArrays flat = FlattenResult(back.reference);
  ASSERT_EQ(flat.size(), 2u);
  EXPECT_EQ(flat[0].first, "out0");
  EXPECT_EQ(flat[0].second->GetDouble(1), 2.5);
  EXPECT_EQ(flat[1].second->GetInt(0), 7);
  ASSERT_TRUE(back.divergence.has_value());
  EXPECT_EQ(back.divergence->instruction, 3u);
  EXPECT_EQ(back.divergence->run, 2);
  EXPECT_EQ(back.divergence->detail, d.detail);
  EXPECT_EQ(back.divergence->cpu.max, 2);
  EXPECT_EQ(back.divergence->device.max, 3);
  // Truncated bytes are refused, not read past.
  std::string bytes = EncodeRunExtras(run);
  BackendRun cut;
  EXPECT_FALSE(DecodeRunExtras(bytes.substr(0, bytes.size() - 3), &cut));
}

TEST(RunExtrasTest, EmptyRun) {
  BackendRun back;
  ASSERT_TRUE(DecodeRunExtras(EncodeRunExtras(BackendRun{}), &back));
  EXPECT_TRUE(back.notes.empty());
  EXPECT_FALSE(back.reference);
  EXPECT_FALSE(back.divergence.has_value());
}

TEST(CpuBackendTest, RunsTheEvaluator) {
  auto p = testing::ParseModule(R"(HloModule m
ENTRY e {
  a = f32[3] parameter(0)
  ROOT m = f32[3] multiply(a, a)
})");
  ASSERT_FALSE(p.file->HasErrors());
  auto backend = MakeCpuBackend();
  EXPECT_STREQ(backend->name(), "cpu");
  BackendOptions o;
  o.eval.collect_stats = true;
  auto r = backend->Run(*p.file, 0,
                        {Array(PrimitiveType::kF32, {3}, {1, -2, 3})}, o);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->result->GetDouble(1), 4);
  ASSERT_EQ(r->stats.size(), 1u);
  EXPECT_EQ(r->stats[0].max, 9);
}

TEST(GpuInfoTest, DescribesTheMissingDevice) {
  GpuInfo none;
  none.error = "cudaErrorNoDevice: no CUDA-capable device is detected";
  EXPECT_FALSE(none.available());
  EXPECT_EQ(none.Describe(),
            "no GPU: cudaErrorNoDevice: no CUDA-capable device is detected");
  GpuInfo h200;
  h200.built = true;
  h200.device_count = 1;
  h200.name = "NVIDIA H200";
  h200.compute_major = 9;
  h200.memory_bytes = int64_t{140} << 30;
  EXPECT_EQ(h200.Describe(), "NVIDIA H200 (sm_90, 140.0 GiB)");
  // What this machine says (either a device or why there is none).
  const GpuInfo& here = testing::Gpu();
  EXPECT_EQ(here.built, GpuBackendBuilt());
  if (!here.available()) EXPECT_FALSE(here.error.empty());
  std::printf("GPU here: %s\n", here.Describe().c_str());
}

}  // namespace
}  // namespace hlo::exec
