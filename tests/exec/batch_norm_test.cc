// batch-norm-training/-inference/-grad and rng-get-and-update-state against
// hand-computed values.
#include <gtest/gtest.h>

#include "tests/exec/exec_test_util.h"

namespace hlo::exec::testing {
namespace {

using P = PrimitiveType;
using V = std::vector<double>;

// x = [[1,2],[3,6]], features along dim 1: feature 0 holds {1,3} (mean 2,
// variance 1), feature 1 holds {2,6} (mean 4, variance 4).
Value X() { return Array(P::kF32, {2, 2}, {1, 2, 3, 6}); }

TEST(BatchNormTest, TrainingNormalizesPerFeature) {
  auto r =
      RunHlo(R"(HloModule m
ENTRY e {
  x = f32[2,2] parameter(0)
  s = f32[2] parameter(1)
  o = f32[2] parameter(2)
  ROOT bn = (f32[2,2], f32[2], f32[2]) batch-norm-training(x, s, o), epsilon=0, feature_index=1
})",
             {X(), Array(P::kF32, {2}, {1, 2}), Array(P::kF32, {2}, {0, 1})});
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ((*r)->elements().size(), 3u);
  // (x - mean) / sqrt(var) * scale + offset.
  EXPECT_EQ(Values(*(*r)->elements()[0]), (V{-1, -1, 1, 3}));
  EXPECT_EQ(Values(*(*r)->elements()[1]), (V{2, 4}));
  EXPECT_EQ(Values(*(*r)->elements()[2]), (V{1, 4}));
}

TEST(BatchNormTest, InferenceUsesGivenMoments) {
  auto r =
      RunHlo(R"(HloModule m
ENTRY e {
  x = f32[2,2] parameter(0)
  s = f32[2] parameter(1)
  o = f32[2] parameter(2)
  m = f32[2] parameter(3)
  v = f32[2] parameter(4)
  ROOT bn = f32[2,2] batch-norm-inference(x, s, o, m, v), epsilon=0, feature_index=1
})",
             {X(), Array(P::kF32, {2}, {1, 2}), Array(P::kF32, {2}, {0, 1}),
              Array(P::kF32, {2}, {0, 0}), Array(P::kF32, {2}, {1, 4})});
  ASSERT_TRUE(r.ok()) << r.status();
  // Feature 0: x * 1 + 0; feature 1: x / sqrt(4) * 2 + 1 = x + 1.
  EXPECT_EQ(Values(**r), (V{1, 3, 3, 7}));
}

TEST(BatchNormTest, EpsilonIsInsideTheSquareRoot) {
  auto r = RunHlo(R"(HloModule m
ENTRY e {
  x = f32[1,1] parameter(0)
  c = f32[1] parameter(1)
  z = f32[1] parameter(2)
  ROOT bn = f32[1,1] batch-norm-inference(x, c, z, z, z), epsilon=0.25, feature_index=0
})",
                  {Array(P::kF32, {1, 1}, {3}), Array(P::kF32, {1}, {1}),
                   Array(P::kF32, {1}, {0})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values(**r), (V{6}));  // 3 / sqrt(0 + 0.25)
}

TEST(BatchNormTest, GradFollowsTheExpanderFormula) {
  // One feature, x = {1, 3}, given mean 0 and variance 1, scale 2,
  // grad_output {1, 2}: sum(dy) = 3, sum(dy * (x - mean)) = 7, n = 2.
  // grad_x = 2 * (dy - 3/2 - x * 7/2) = {-8, -20}; grad_scale = 7;
  // grad_offset = 3.
  auto r = RunHlo(R"(HloModule m
ENTRY e {
  x = f32[2,1] parameter(0)
  s = f32[1] parameter(1)
  m = f32[1] parameter(2)
  v = f32[1] parameter(3)
  dy = f32[2,1] parameter(4)
  ROOT g = (f32[2,1], f32[1], f32[1]) batch-norm-grad(x, s, m, v, dy), epsilon=0, feature_index=1
})",
                  {Array(P::kF32, {2, 1}, {1, 3}), Array(P::kF32, {1}, {2}),
                   Array(P::kF32, {1}, {0}), Array(P::kF32, {1}, {1}),
                   Array(P::kF32, {2, 1}, {1, 2})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values(*(*r)->elements()[0]), (V{-8, -20}));
  EXPECT_EQ(Values(*(*r)->elements()[1]), (V{7}));
  EXPECT_EQ(Values(*(*r)->elements()[2]), (V{3}));
}

TEST(BatchNormTest, BadFeatureIndexIsAnError) {
  auto r = RunHlo(R"(HloModule m
ENTRY e {
  x = f32[2,2] parameter(0)
  s = f32[2] parameter(1)
  ROOT bn = (f32[2,2], f32[2], f32[2]) batch-norm-training(x, s, s), epsilon=0, feature_index=5
})",
                  {X(), Array(P::kF32, {2}, {1, 1})});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(std::string(r.status().message()).find("feature_index"),
            std::string::npos)
      << r.status();
}

TEST(RngStateTest, GetAndUpdateAdvancesByDelta) {
  auto r = RunHlo(R"(HloModule m
ENTRY e {
  a = u64[2] rng-get-and-update-state(), delta=5
  b = u64[2] rng-get-and-update-state(), delta=7
  ROOT t = (u64[2], u64[2]) tuple(a, b)
})");
  ASSERT_TRUE(r.ok()) << r.status();
  const V first = Values(*(*r)->elements()[0]);
  const V second = Values(*(*r)->elements()[1]);
  EXPECT_EQ(second[0] - first[0], 5);
}

}  // namespace
}  // namespace hlo::exec::testing
