// ragged-dot in its three modes, against the expected results of XLA's
// hlo_evaluator_test (RaggedDot*; issue 22).
#include <string>

#include "exec_test_util.h"
#include "gtest/gtest.h"

namespace hlo::exec {
namespace {

using ::hlo::exec::testing::Array;
using ::hlo::exec::testing::RunHlo;
using ::hlo::exec::testing::Values;
using P = PrimitiveType;
using V = std::vector<double>;

std::string Module(const std::string& lhs, const std::string& rhs,
                   const std::string& out, const std::string& attrs) {
  return "HloModule m\nENTRY e {\n  l = " + lhs +
         " parameter(0)\n  r = " + rhs +
         " parameter(1)\n  g = s64[2] parameter(2)\n  ROOT d = " + out +
         " ragged-dot(l, r, g), " + attrs + "\n}\n";
}

V Iota(int n, double from) {
  V v;
  for (int i = 0; i < n; ++i) v.push_back(from + i);
  return v;
}

// Rows of lhs's ragged dim go to rhs's groups; rows past the groups are 0.
TEST(RaggedDotTest, NonContractingMode) {
  std::string text =
      Module("f32[4,1]", "f32[2,1,3]", "f32[4,3]",
             "lhs_contracting_dims={1}, rhs_contracting_dims={1}, "
             "lhs_ragged_dims={0}, rhs_group_dims={0}");
  auto lhs = Array(P::kF32, {4, 1}, {1, 2, 3, 4});
  auto rhs = Array(P::kF32, {2, 1, 3}, {1, 2, 3, 4, 5, 6});
  auto r = RunHlo(text, {lhs, rhs, Array(P::kS64, {2}, {2, 2})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values(**r), (V{1, 2, 3, 2, 4, 6, 12, 15, 18, 16, 20, 24}));
  r = RunHlo(text, {lhs, rhs, Array(P::kS64, {2}, {2, 1})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values(**r), (V{1, 2, 3, 2, 4, 6, 12, 15, 18, 0, 0, 0}));
}

// Each group contracts its own range of k: one result per group.
TEST(RaggedDotTest, ContractingMode) {
  std::string text =
      Module("f32[4,5]", "f32[5,3]", "f32[2,4,3]",
             "lhs_contracting_dims={1}, rhs_contracting_dims={0}, "
             "lhs_ragged_dims={1}");
  auto lhs = Array(P::kF32, {4, 5}, Iota(20, 1));
  auto rhs = Array(P::kF32, {5, 3}, Iota(15, 1));
  auto r = RunHlo(text, {lhs, rhs, Array(P::kS64, {2}, {2, 3})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values(**r),
            (V{9,   12,  15,  34,  47,  60,  59,  82,  105, 84,  117, 150,  //
               126, 138, 150, 276, 303, 330, 426, 468, 510, 576, 633, 690}));
  r = RunHlo(text, {lhs, rhs, Array(P::kS64, {2}, {2, 2})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values(**r)[12], 61);
  EXPECT_EQ(Values(**r)[15], 146);
}

// A batched dot whose batches past the groups are 0.
TEST(RaggedDotTest, BatchMode) {
  std::string text =
      Module("f32[3,4,1]", "f32[3,1,2]", "f32[3,4,2]",
             "lhs_batch_dims={0}, rhs_batch_dims={0}, "
             "lhs_contracting_dims={2}, rhs_contracting_dims={1}, "
             "lhs_ragged_dims={0}");
  auto lhs = Array(P::kF32, {3, 4, 1}, Iota(12, 1));
  auto rhs = Array(P::kF32, {3, 1, 2}, Iota(6, 0));
  V full = {0,  1,  0,  2,  0,  3,  0,  4,  10, 15, 12, 18,
            14, 21, 16, 24, 36, 45, 40, 50, 44, 55, 48, 60};
  auto r = RunHlo(text, {lhs, rhs, Array(P::kS64, {2}, {2, 1})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values(**r), full);
  r = RunHlo(text, {lhs, rhs, Array(P::kS64, {2}, {1, 1})});
  ASSERT_TRUE(r.ok()) << r.status();
  for (int i = 16; i < 24; ++i) full[i] = 0;
  EXPECT_EQ(Values(**r), full);
}

}  // namespace
}  // namespace hlo::exec
