// Whole arguments assembled from per-partition shards, by tiled shardings.
#include "exec/sharded_args.h"

#include <gtest/gtest.h>

#include "tests/exec/exec_test_util.h"

namespace hlo::exec::testing {
namespace {

using P = PrimitiveType;
using V = std::vector<double>;

absl::StatusOr<std::vector<Value>> AssembleFor(
    const std::string& params, const std::vector<std::vector<Value>>& parts) {
  Parsed p = ParseModule("HloModule m\nENTRY e {\n" + params + "}\n");
  return AssembleShardedArguments(*p.file, 0, parts);
}

TEST(ShardedArgsTest, RowShardsAreStacked) {
  auto r = AssembleFor(
      "  ROOT a = s64[4,1] parameter(0), sharding={devices=[2,1]<=[2]}\n",
      {{Array(P::kS64, {2, 1}, {0, 1})}, {Array(P::kS64, {2, 1}, {2, 3})}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ((*r)[0]->dims(), (std::vector<int64_t>{4, 1}));
  EXPECT_EQ(Values(*(*r)[0]), (V{0, 1, 2, 3}));
}

TEST(ShardedArgsTest, ExplicitDevicesAndTwoTiledDimensions) {
  // Tiles in order (0,0) (0,1) (1,0) (1,1) live on devices 3, 2, 1, 0.
  auto r = AssembleFor(
      "  ROOT a = f32[2,4] parameter(0), sharding={devices=[2,2]3,2,1,0}\n",
      {{Array(P::kF32, {1, 2}, {7, 8})},
       {Array(P::kF32, {1, 2}, {5, 6})},
       {Array(P::kF32, {1, 2}, {3, 4})},
       {Array(P::kF32, {1, 2}, {1, 2})}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values(*(*r)[0]), (V{1, 2, 3, 4, 5, 6, 7, 8}));
}

TEST(ShardedArgsTest, UnevenTilesDropThePadding) {
  // 3 rows over 2 shards of 2 rows each: the last row of shard 1 is padding.
  auto r = AssembleFor(
      "  ROOT a = f32[3] parameter(0), sharding={devices=[2]0,1}\n",
      {{Array(P::kF32, {2}, {1, 2})}, {Array(P::kF32, {2}, {3, 99})}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values(*(*r)[0]), (V{1, 2, 3}));
}

TEST(ShardedArgsTest, ReplicatedLastTileDimTakesEachTileOnce) {
  auto r = AssembleFor(
      "  ROOT a = f32[2] parameter(0), "
      "sharding={devices=[2,2]<=[4] last_tile_dim_replicate}\n",
      {{Array(P::kF32, {1}, {1})},
       {Array(P::kF32, {1}, {1})},
       {Array(P::kF32, {1}, {2})},
       {Array(P::kF32, {1}, {2})}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values(*(*r)[0]), (V{1, 2}));
}

TEST(ShardedArgsTest, FullShapedArgumentsComeFromPartitionZero) {
  auto r = AssembleFor(
      "  ROOT a = f32[2] parameter(0), sharding={replicated}\n",
      {{Array(P::kF32, {2}, {1, 2})}, {Array(P::kF32, {2}, {3, 4})}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values(*(*r)[0]), (V{1, 2}));
}

TEST(ShardedArgsTest, MismatchesAreErrorsThatSayWhy) {
  auto no_sharding = AssembleFor(
      "  ROOT a = f32[4] parameter(0)\n",
      {{Array(P::kF32, {2}, {1, 2})}, {Array(P::kF32, {2}, {3, 4})}});
  ASSERT_FALSE(no_sharding.ok());
  EXPECT_NE(no_sharding.status().message().find("no sharding"),
            std::string::npos)
      << no_sharding.status();
  auto wrong_shard = AssembleFor(
      "  ROOT a = f32[4] parameter(0), sharding={devices=[2]0,1}\n",
      {{Array(P::kF32, {3}, {1, 2, 3})}, {Array(P::kF32, {3}, {3, 4, 5})}});
  ASSERT_FALSE(wrong_shard.ok());
  EXPECT_NE(wrong_shard.status().message().find("wants shards of f32[2]"),
            std::string::npos)
      << wrong_shard.status();
  auto too_few = AssembleFor(
      "  ROOT a = f32[4] parameter(0), sharding={devices=[4]<=[4]}\n",
      {{Array(P::kF32, {1}, {1})}, {Array(P::kF32, {1}, {2})}});
  ASSERT_FALSE(too_few.ok());
  EXPECT_NE(too_few.status().message().find("2 partitions"), std::string::npos)
      << too_few.status();
  auto count = AssembleFor("  ROOT a = f32[4] parameter(0)\n",
                           {{Array(P::kF32, {4}, {1, 2, 3, 4})}, {}});
  ASSERT_FALSE(count.ok());
  EXPECT_NE(count.status().message().find("partition 1 has 0 arguments"),
            std::string::npos)
      << count.status();
}

}  // namespace
}  // namespace hlo::exec::testing
