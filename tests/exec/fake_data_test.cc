#include "exec/fake_data.h"

#include <set>

#include "exec_test_util.h"
#include "gtest/gtest.h"

namespace hlo::exec {
namespace {

TEST(FakeDataTest, DefaultRangesAndDeterminism) {
  auto p = testing::ParseModule(R"(HloModule m
ENTRY e {
  a = f32[1000] parameter(0)
  b = bf16[100] parameter(1)
  c = s8[1000] parameter(2)
  ROOT t = (f32[1000], bf16[100], s8[1000]) tuple(a, b, c)
})");
  auto args = MakeFakeArguments(*p.file, 0, 0, nullptr);
  ASSERT_TRUE(args.ok()) << args.status();
  ASSERT_EQ(args->size(), 3u);
  for (int k = 0; k < 2; ++k) {
    const Literal& f = *(*args)[k];
    for (int64_t i = 0; i < f.count(); ++i) {
      EXPECT_GE(f.GetDouble(i), -0.1 - 1e-3);
      EXPECT_LT(f.GetDouble(i), 0.2 + 1e-3);
    }
  }
  int64_t lo = 0, hi = 0;
  for (int64_t i = 0; i < 1000; ++i) {
    lo = std::min(lo, (*args)[2]->GetInt(i));
    hi = std::max(hi, (*args)[2]->GetInt(i));
  }
  EXPECT_LT(lo, -100);  // the whole s8 range is used
  EXPECT_GT(hi, 100);
  auto again = MakeFakeArguments(*p.file, 0, 0, nullptr);
  EXPECT_EQ((*again)[0]->GetDouble(7), (*args)[0]->GetDouble(7));
  auto other =
      MakeFakeArguments(*p.file, 0, 2, nullptr);  // minstd: seeds 0 and 1 agree
  EXPECT_NE((*other)[0]->GetDouble(7), (*args)[0]->GetDouble(7));
}

TEST(FakeDataTest, ConstrainedUses) {
  auto p = testing::ParseModule(R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
mul {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] multiply(a, b)
}
cmp {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  c = f32[] parameter(2)
  d = f32[] parameter(3)
  ROOT lt = pred[] compare(a, b), direction=LT
}
fused_ds {
  x = f32[10] parameter(0)
  i = s32[] parameter(1)
  ROOT ds = f32[3] dynamic-slice(x, i), dynamic_slice_sizes={3}
}
ENTRY e {
  x = f32[10] parameter(0)
  i = s32[] parameter(1)
  f = f32[3] fusion(x, i), kind=kLoop, calls=fused_ds
  z = f32[] parameter(2)
  r = f32[] reduce(x, z), dimensions={0}, to_apply=add
  o = f32[] parameter(3)
  m = f32[] reduce(x, o), dimensions={0}, to_apply=mul
  k = s32[50] parameter(4)
  s = (s32[50], f32[50]) sort(k, k2), dimensions={0}, to_apply=cmp
  k2 = f32[50] parameter(5)
  ROOT t = (f32[3], f32[], f32[], (s32[50], f32[50])) tuple(f, r, m, s)
})");
  ASSERT_FALSE(p.file->HasErrors());
  std::vector<std::string> notes;
  auto args = MakeFakeArguments(*p.file, 0, 0, &notes);
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_EQ((*args)[2]->GetDouble(0), 0);  // add init
  EXPECT_EQ((*args)[3]->GetDouble(0), 1);  // multiply init
  // Many seeds: the dynamic-slice index always lies in [0, 7].
  for (uint32_t seed = 0; seed < 50; ++seed) {
    auto a = MakeFakeArguments(*p.file, 0, seed, nullptr);
    int64_t v = (*a)[1]->GetInt(0);
    EXPECT_GE(v, 0);
    EXPECT_LE(v, 7);
  }
  std::set<int64_t> keys;
  for (int64_t i = 0; i < 50; ++i) keys.insert((*args)[4]->GetInt(i));
  EXPECT_EQ(keys.size(), 50u);  // no duplicate sort keys
  ASSERT_GE(notes.size(), 3u);
  EXPECT_NE(notes[0].find("arg1: dynamic-slice index in [0, 7]"),
            std::string::npos)
      << notes[0];
}

}  // namespace
}  // namespace hlo::exec
