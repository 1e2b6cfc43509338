// Dynamic dimensions with XLA's evaluator semantics (issue 22): the size
// set-dimension-size records is what get-dimension-size answers and what the
// result is cut to; dynamic-reshape reshapes the logical elements.
#include "exec_test_util.h"
#include "gtest/gtest.h"

namespace hlo::exec {
namespace {

using ::hlo::exec::testing::Array;
using ::hlo::exec::testing::RunHlo;
using ::hlo::exec::testing::Values;
using P = PrimitiveType;
using V = std::vector<double>;

// hlo_evaluator_test's GetDimensionSize: 3, not the bound 4, also after an
// add passes the dynamic size on.
TEST(DynamicSizeTest, GetDimensionSizeAnswersTheSetSize) {
  auto r = RunHlo(R"(HloModule m
ENTRY e {
  size = s32[] parameter(0)
  data = s32[4] parameter(1)
  dyn = s32[<=4] set-dimension-size(data, size), dimensions={0}
  sum = s32[<=4] add(dyn, data)
  ROOT n = s32[] get-dimension-size(sum), dimensions={0}
})",
                  {Array(P::kS32, {}, {3}), Array(P::kS32, {4}, {1, 2, 3, 4})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values(**r), (V{3}));
}

// dynamic_reshape_test's SingleDynamicDimension: [9], not the padded [18].
TEST(DynamicSizeTest, DynamicReshapeGivesTheLogicalShape) {
  V data;
  for (int i = 0; i < 18; ++i) data.push_back(i);
  auto r = RunHlo(R"(HloModule m
ENTRY e {
  p = s32[2,3,3] parameter(0)
  two = s32[] parameter(1)
  padded = s32[2,<=3,3] set-dimension-size(p, two), dimensions={1}
  nine = s32[] parameter(2)
  ROOT r = s32[<=18] dynamic-reshape(padded, nine)
})",
                  {Array(P::kS32, {2, 3, 3}, data), Array(P::kS32, {}, {2}),
                   Array(P::kS32, {}, {9})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ((*r)->dims(), (std::vector<int64_t>{9}));
  EXPECT_EQ(Values(**r), (V{0, 1, 2, 3, 4, 5, 9, 10, 11}));
}

TEST(DynamicSizeTest, ASizeOverTheBoundIsAnError) {
  auto r = RunHlo(R"(HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  n = s32[] parameter(1)
  ROOT d = f32[<=4] set-dimension-size(p, n), dimensions={0}
})",
                  {Array(P::kF32, {4}, {1, 2, 3, 4}), Array(P::kS32, {}, {5})});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("size 5 is outside [0, 4]"),
            std::string::npos)
      << r.status();
}

}  // namespace
}  // namespace hlo::exec
