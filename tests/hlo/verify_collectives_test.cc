// hlo/verify_collective_permute.cc and hlo/verify_collective_shapes.cc: one
// small module per rule that draws XLA's finding, and a near miss that must
// stay clean.
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/parser.h"
#include "hlo/verify.h"
#include "tests/hlo/verify_findings.h"

namespace hlo {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

std::vector<std::string> CollectiveFindings(const std::string& text,
                                            bool todays = false) {
  VerifierOptions options;
  options.todays_rules = todays;
  return verify_test::Findings(text, options);
}

// In-place collective-permute: buffers, offsets, and pairs that may repeat
// once per offset (here two).
std::string InPlace(const std::string& in, const std::string& out,
                    const std::string& in_offset, const std::string& pairs) {
  return R"(HloModule m
ENTRY e {
  a = f32[2,8] parameter(0)
  b = f32[4,8] parameter(1)
  z = s32[] constant(0)
  o = (s32[], s32[]) tuple(z, z)
  oo = ((s32[], s32[]), (s32[], s32[])) tuple(o, o)
  ioo = (((s32[], s32[]), (s32[], s32[])), ((s32[], s32[]), (s32[], s32[]))) tuple(oo, oo)
  t1 = (s32[]) tuple(z)
  in = (f32[2,8], f32[2,8]) tuple(a, a)
  out = (f32[2,8], f32[4,8]) tuple(a, b)
  ROOT cp = f32[2,8] collective-permute()" +
         in + ", " + out + ", " + in_offset + R"(, oo), source_target_pairs=)" +
         pairs +
         R"(, slice_sizes={{1,8},{1,8}}
})";
}

TEST(VerifyCollectivePermuteTest, InPlaceRepeatsOncePerOffset) {
  EXPECT_THAT(
      CollectiveFindings(InPlace("a", "a", "oo", "{{0,1},{0,2},{1,0},{2,0}}")),
      IsEmpty());
  EXPECT_THAT(
      CollectiveFindings(InPlace("a", "a", "oo", "{{0,1},{0,2},{0,3}}")),
      ElementsAre("Source 0 appears more than 2 times in instruction's "
                  "source-target pairs: cp @ "
                  "source_target_pairs={{0,1},{0,2},{0,3}}"));
  EXPECT_THAT(
      CollectiveFindings(InPlace("a", "a", "oo", "{{1,0},{2,0},{3,0}}")),
      ElementsAre("Target 0 appears more than 2 times in instruction's "
                  "source-target pairs: cp @ "
                  "source_target_pairs={{1,0},{2,0},{3,0}}"));
}

TEST(VerifyCollectivePermuteTest, InPlaceBuffersAgainstOffsets) {
  EXPECT_THAT(CollectiveFindings(InPlace("in", "out", "ioo", "{{0,1}}")),
              IsEmpty());
  EXPECT_THAT(CollectiveFindings(InPlace("a", "out", "oo", "{{0,1}}")),
              ElementsAre("Unmatching input buffers and output buffers. @ "
                          "(a, out, oo, oo)"));
  EXPECT_THAT(CollectiveFindings(InPlace("in", "out", "z", "{{0,1}}")),
              ElementsAre("Unmatching input buffers and input offset. @ "
                          "(in, out, z, oo)"));
  // One index for a rank-2 buffer.
  EXPECT_THAT(CollectiveFindings(InPlace("a", "a", "t1", "{{0,1}}")),
              ElementsAre("Buffer offset index should have the same number of "
                          "elements as the buffer's rank. @ (a, a, t1, oo)"));
}

constexpr char kVerifyCollectivesAdd[] = R"(HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
)";

TEST(VerifyCollectiveShapesTest, ReduceScatterDimensionAndShardCount) {
  auto module = [](const std::string& out, const std::string& attrs) {
    return std::string(kVerifyCollectivesAdd) +
           "ENTRY e {\n  p = f32[8] parameter(0)\n" + "  ROOT rs = " + out +
           " reduce-scatter(p), to_apply=add, " + attrs + "\n}";
  };
  EXPECT_THAT(CollectiveFindings(
                  module("f32[4]", "replica_groups={{0,1}}, dimensions={0}")),
              IsEmpty());
  EXPECT_THAT(
      CollectiveFindings(
          module("f32[4]", "replica_groups={{0,1}}, dimensions={1}")),
      ElementsAre("RET_CHECK failure: ars->scatter_dimension() < "
                  "static_cast<int64_t>(ars->operand(i)->shape().dimensions()."
                  "size()) (operand 0 has rank 1) @ dimensions={1}"));
  // XLA checks the shard count before the shape: one finding, its words.
  EXPECT_THAT(CollectiveFindings(
                  module("f32[8]", "replica_groups={{0,1}}, dimensions={0}")),
              ElementsAre("shard_count = 1, subgroup_size = 2, rs @ f32[8]"));
  EXPECT_THAT(CollectiveFindings(module("f32[4]",
                                        "replica_groups={{0,1},{2,3,4}}, "
                                        "dimensions={0}")),
              ElementsAre("Replica groups expected to be of uniform size @ "
                          "replica_groups={{0,1},{2,3,4}}"));
}

TEST(VerifyCollectiveShapesTest, TorchXlaScalarTokenOnlyUnderTodaysRules) {
  const std::string text = std::string(kVerifyCollectivesAdd) + R"(ENTRY e {
  p = f32[8] parameter(0)
  t = f32[] parameter(1)
  ROOT rs = (f32[4], f32[]) reduce-scatter(p, t), replica_groups={{0,1}}, dimensions={0}, to_apply=add
})";
  EXPECT_THAT(CollectiveFindings(text), IsEmpty());
  EXPECT_EQ(CollectiveFindings(text, /*todays=*/true).size(), 1u);
}

TEST(VerifyCollectiveShapesTest, AllReduceGroupsMayDiffer) {
  EXPECT_THAT(
      CollectiveFindings(std::string(kVerifyCollectivesAdd) + R"(ENTRY e {
  p = f32[8] parameter(0)
  ROOT ar = f32[8] all-reduce(p), replica_groups={{0,1},{2}}, to_apply=add
})"),
      IsEmpty());
}

std::string Ragged(const std::string& offsets, const std::string& sizes) {
  return R"(HloModule m
ENTRY e {
  in = f32[4,8] parameter(0)
  out = f32[4,8] parameter(1)
  io = )" +
         offsets +
         R"( parameter(2)
  ss = )" +
         sizes +
         R"( parameter(3)
  oo = )" +
         offsets +
         R"( parameter(4)
  rs = )" +
         sizes +
         R"( parameter(5)
  ROOT r = f32[4,8] ragged-all-to-all(in, out, io, ss, oo, rs), replica_groups={{0,1}}
})";
}

TEST(VerifyCollectiveShapesTest, RaggedAllToAllOffsets) {
  EXPECT_THAT(CollectiveFindings(Ragged("s32[2]", "s32[2]")), IsEmpty());
  EXPECT_THAT(CollectiveFindings(Ragged("s32[2,2]", "s32[2,2]")), IsEmpty());
  EXPECT_THAT(
      CollectiveFindings(Ragged("s32[2,2,2]", "s32[2,2,2]")),
      ElementsAre("RaggedAllToAll operand 2 must be rank 1 or 2: r @ io"));
  EXPECT_THAT(CollectiveFindings(Ragged("s32[2,2]", "s32[2]")),
              ElementsAre("RaggedAllToAll operands have different shapes (2, "
                          "3): r @ ss"));
}

TEST(VerifyCollectiveShapesTest, AllReduceStartShapeUnderTodaysRules) {
  auto module = [](const std::string& start) {
    return std::string(kVerifyCollectivesAdd) +
           "ENTRY e {\n  p = f32[2,3] parameter(0)\n" + "  s = " + start +
           " all-reduce-start(p), to_apply=add\n" +
           "  ROOT d = f32[2,3] all-reduce-done(s)\n}";
  };
  EXPECT_THAT(CollectiveFindings(module("f32[2,3]"), true), IsEmpty());
  // Older XLA printed (operand, result): clean by the file's own choice.
  EXPECT_THAT(CollectiveFindings(module("(f32[2,3], f32[2,3])")), IsEmpty());
  EXPECT_THAT(CollectiveFindings(module("(f32[2,3], f32[2,3])"), true),
              ElementsAre("Expected instruction to have shape equal to "
                          "f32[2,3], actual shape is (f32[2,3], f32[2,3]) @ "
                          "(f32[2,3], f32[2,3])"));
}

TEST(VerifyCollectiveShapesTest, LayoutConstrainedAllReduceNotMixed) {
  auto module = [](const std::string& second) {
    return std::string(kVerifyCollectivesAdd) + R"(ENTRY e {
  p = f32[8] parameter(0)
  a = f32[8] all-reduce(p), to_apply=add, constrain_layout=true
  ROOT b = f32[8] all-reduce(p), to_apply=add)" +
           second + "\n}";
  };
  EXPECT_THAT(CollectiveFindings(module(", constrain_layout=true"), true),
              IsEmpty());
  EXPECT_THAT(CollectiveFindings(module("")),
              IsEmpty());  // torch_xla dumps mix them
  EXPECT_THAT(CollectiveFindings(module(""), true),
              ElementsAre("HloModule has a mix of layout constrained and "
                          "unconstrained AllReduce instructions. @ "
                          "all-reduce"));
}

}  // namespace
}  // namespace hlo
