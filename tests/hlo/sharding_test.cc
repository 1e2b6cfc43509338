#include "hlo/sharding.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/attributes.h"

namespace hlo {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

HloShardingValue ShardingOk(std::string_view text) {
  absl::StatusOr<HloShardingValue> s = DecodeSharding(text);
  EXPECT_TRUE(s.ok()) << text << ": " << s.status();
  EXPECT_EQ(ValidateAttributeValue("sharding", text), std::nullopt) << text;
  return s.ok() ? *s : HloShardingValue{};
}

// The error offset from ValidateAttributeValue, and that the decoder fails
// with the same offset in its message.
uint32_t ShardingErrorAt(std::string_view text) {
  std::optional<AttributeError> e = ValidateAttributeValue("sharding", text);
  EXPECT_TRUE(e.has_value()) << text;
  absl::StatusOr<HloShardingValue> s = DecodeSharding(text);
  EXPECT_FALSE(s.ok()) << text;
  if (!e.has_value()) return 9999;
  EXPECT_THAT(std::string(s.status().message()),
              HasSubstr("offset " + std::to_string(e->offset) + ":"));
  return e->offset;
}

TEST(ShardingTest, SimpleKinds) {
  EXPECT_EQ(ShardingOk("{replicated}").type, ShardingType::kReplicated);
  EXPECT_EQ(ShardingOk("{manual}").type, ShardingType::kManual);
  EXPECT_EQ(ShardingOk("{unknown}").type, ShardingType::kUnknown);
  EXPECT_EQ(ShardingOk("{unreduced}").type, ShardingType::kUnreduced);
  HloShardingValue maximal = ShardingOk("{maximal device=0}");
  EXPECT_EQ(maximal.type, ShardingType::kMaximal);
  EXPECT_THAT(maximal.tile_assignment_devices, ElementsAre(0));
  // Seen in the corpus (a test of device -1).
  EXPECT_THAT(ShardingOk("{maximal device=-1}").tile_assignment_devices,
              ElementsAre(-1));
}

TEST(ShardingTest, ExplicitTiles) {
  HloShardingValue s = ShardingOk("{devices=[2,1]0,1}");
  EXPECT_EQ(s.type, ShardingType::kOther);
  EXPECT_THAT(s.tile_assignment_dimensions, ElementsAre(2, 1));
  EXPECT_THAT(s.tile_assignment_devices, ElementsAre(0, 1));
  EXPECT_FALSE(s.is_iota());

  s = ShardingOk("{devices=[2,1,2]0,1,2,3 last_tile_dim_replicate}");
  EXPECT_TRUE(s.replicate_on_last_tile_dim);
  EXPECT_THAT(s.tile_assignment_devices, ElementsAre(0, 1, 2, 3));

  // Printer line breaks inside a long device list (corpus).
  s = ShardingOk(
      "{devices=[8,1,1,4]0,16,24,8,2,18,26,10,4,20,28,12,6,22,30,14,7,23,\n"
      "    31,15,5,21,29,13,3,19,27,11,1,17,25,9}");
  EXPECT_EQ(s.tile_assignment_devices.size(), 32u);
  EXPECT_EQ(s.tile_assignment_devices.back(), 9);
}

TEST(ShardingTest, IotaTiles) {
  HloShardingValue s = ShardingOk("{devices=[2,4]<=[4,2]T(1,0)}");
  EXPECT_TRUE(s.is_iota());
  EXPECT_THAT(s.iota_reshape_dims, ElementsAre(4, 2));
  EXPECT_THAT(s.iota_transpose_perm, ElementsAre(1, 0));
  EXPECT_THAT(*TileAssignmentDevices(s), ElementsAre(0, 2, 4, 6, 1, 3, 5, 7));

  s = ShardingOk("{devices=[4]<=[4]}");
  EXPECT_THAT(s.iota_transpose_perm, IsEmpty());
  EXPECT_THAT(*TileAssignmentDevices(s), ElementsAre(0, 1, 2, 3));

  s = ShardingOk("{devices=[1,2,4]<=[2,2,2]T(1,0,2)}");
  EXPECT_THAT(*TileAssignmentDevices(s), ElementsAre(0, 1, 4, 5, 2, 3, 6, 7));

  s = ShardingOk("{devices=[2,2,2]<=[8] last_tile_dims={manual}}");
  EXPECT_THAT(s.last_tile_dims, ElementsAre(ShardingType::kManual));
  s = ShardingOk(
      "{devices=[2,2,2,2]<=[2,2,2,2]T(0,2,1,3) "
      "last_tile_dims={unreduced,replicated}}");
  EXPECT_THAT(s.last_tile_dims,
              ElementsAre(ShardingType::kUnreduced, ShardingType::kReplicated));
}

TEST(ShardingTest, TupleShardings) {
  HloShardingValue s =
      ShardingOk("{{replicated}, {maximal device=1}, {devices=[2]0,1}}");
  EXPECT_EQ(s.type, ShardingType::kTuple);
  ASSERT_EQ(s.tuple_shardings.size(), 3u);
  EXPECT_EQ(s.tuple_shardings[0].type, ShardingType::kReplicated);
  EXPECT_EQ(s.tuple_shardings[1].type, ShardingType::kMaximal);
  EXPECT_EQ(s.tuple_shardings[2].type, ShardingType::kOther);

  EXPECT_EQ(ShardingOk("{}").type, ShardingType::kTuple);
  EXPECT_EQ(ShardingOk("{{replicated}}").tuple_shardings.size(), 1u);
  // Operand index hints are comments (corpus).
  s = ShardingOk(
      "{{replicated}, {replicated}, {replicated}, {replicated}, "
      "{replicated}, /*index=5*/{replicated}}");
  EXPECT_EQ(s.tuple_shardings.size(), 6u);
}

TEST(ShardingTest, GroupsAndMetadata) {
  HloShardingValue s = ShardingOk("{unknown shard_as 1}");
  ASSERT_TRUE(s.shard_group.has_value());
  EXPECT_TRUE(s.shard_group->shard_as);
  EXPECT_EQ(s.shard_group->id, 1);
  s = ShardingOk("{devices=[2]0,1 shard_like 2}");
  EXPECT_FALSE(s.shard_group->shard_as);

  s = ShardingOk(
      "{devices=[1,2,2]0,1,2,3 last_tile_dims={manual} "
      "metadata={op_name=\"a\"}}");
  ASSERT_EQ(s.metadata.size(), 1u);
  EXPECT_EQ(s.metadata[0].op_name, "a");
  s = ShardingOk(
      "{maximal device=0 metadata={op_type=\"_TPUReplicate\" "
      "op_name=\"cluster\"}}");
  EXPECT_EQ(s.metadata[0].op_type, "_TPUReplicate");
  s = ShardingOk("{replicated metadata={{op_name=\"a\"}, {op_name=\"b\"}}}");
  ASSERT_EQ(s.metadata.size(), 2u);
  EXPECT_EQ(s.metadata[1].op_name, "b");
}

TEST(ShardingTest, OldTileShapeIsSkipped) {
  // 2018 XLA parser tests: the tile shape came first.
  HloShardingValue s = ShardingOk("{s32[5,6] devices=[2,3]1,2,3,4,5,6}");
  EXPECT_THAT(s.tile_assignment_dimensions, ElementsAre(2, 3));
  EXPECT_EQ(ShardingOk("{f32[4]{0} maximal device=1}").type,
            ShardingType::kMaximal);
}

TEST(ShardingTest, NamedShardingKeptRaw) {
  HloShardingValue s = ShardingOk("{mesh[a=2,b=4], [{a},{}], replicated={b}}");
  EXPECT_TRUE(s.is_named);
  EXPECT_EQ(s.named_text, "{mesh[a=2,b=4], [{a},{}], replicated={b}}");
  EXPECT_TRUE(ShardingOk("{maximal_mesh[device_id=3]}").is_named);
}

TEST(ShardingTest, Errors) {
  EXPECT_EQ(ShardingErrorAt("{replicated"), 11u);
  EXPECT_EQ(ShardingErrorAt("{replicated devices=[2]0,1}"), 0u);
  EXPECT_EQ(ShardingErrorAt("{maximal}"), 0u);
  EXPECT_EQ(ShardingErrorAt("{maximal device=0 device=1}"), 0u);
  EXPECT_EQ(ShardingErrorAt("{devices=[2,2]0,1,2}"),
            1u);                                     // 3 devices for 4 tiles
  EXPECT_EQ(ShardingErrorAt("{devices=[1]0}"), 1u);  // explicit list of one
  EXPECT_EQ(ShardingErrorAt("{devices=[2,4]<=[4,3]}"), 16u);  // 12 != 8
  EXPECT_EQ(ShardingErrorAt("{devices=[2,4]<=[4,2]T(0,0)}"), 25u);
  EXPECT_EQ(ShardingErrorAt("{devices=[2,4]<=[4,2]T(0)}"), 21u);
  EXPECT_EQ(ShardingErrorAt("{bogus}"), 1u);
  EXPECT_EQ(ShardingErrorAt("{colour=3}"), 1u);
  EXPECT_EQ(ShardingErrorAt("{last_tile_dims={sideways} devices=[2]0,1}"), 17u);
  EXPECT_EQ(ShardingErrorAt("{{replicated}, replicated}"), 15u);
  EXPECT_EQ(ShardingErrorAt("{{{replicated}}}"), 2u);  // tuples do not nest
  EXPECT_EQ(ShardingErrorAt("{replicated} extra"), 13u);
  EXPECT_EQ(ShardingErrorAt("{devices=[2]0,1 metadata={op_name=3}}"), 34u);
}

TEST(ShardingTest, ExpandIotaRejectsHugeLists) {
  EXPECT_FALSE(ExpandIotaDevices({1 << 20, 1 << 20}, {}).ok());
  EXPECT_FALSE(ExpandIotaDevices({2, 2}, {0, 0}).ok());
}

}  // namespace
}  // namespace hlo
