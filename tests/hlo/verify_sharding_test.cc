// hlo/verify_sharding.cc: the tile rank rule and one sharding across a
// while or conditional, each with a near miss that must stay clean.
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

using verify_test::Findings;

std::string Param(const std::string& shape, const std::string& sharding) {
  return "HloModule m\nENTRY e {\n  ROOT p = " + shape +
         " parameter(0), sharding=" + sharding + "\n}";
}

TEST(VerifyShardingTest, TileRankMatchesShape) {
  EXPECT_THAT(Findings(Param("f32[4,2]", "{devices=[2,2]0,1,2,3}")), IsEmpty());
  // The last dimension is a replication subgroup, not a data dimension.
  EXPECT_THAT(Findings(Param("f32[4,2]",
                             "{devices=[2,1,2]0,1,2,3 "
                             "last_tile_dim_replicate}")),
              IsEmpty());
  EXPECT_THAT(Findings(Param("f32[4,2]", "{maximal device=1}")), IsEmpty());
  EXPECT_THAT(
      Findings(Param("f32[4,2]", "{devices=[1,2,2,1]0,1,2,3}")),
      ElementsAre(
          "Invalid sharding for instruction: p: Number of tile "
          "assignment dimensions (excluding subgroups) is different "
          "than the input rank. sharding={devices=[1,2,2,1]0,1,2,3}, "
          "input_shape=f32[4,2] @ sharding={devices=[1,2,2,1]0,1,2,3}"));
  // A plain sharding on a tuple applies to each leaf.
  EXPECT_EQ(
      Findings(Param("(f32[4,2], f32[4])", "{devices=[2,2]0,1,2,3}")).size(),
      1u);
  EXPECT_THAT(Findings(Param("(f32[4,2], f32[4])",
                             "{{devices=[2,2]0,1,2,3}, {devices=[4]0,1,2,3}}")),
              IsEmpty());
}

// A while loop with BP, CP, WP where the body parameter, the condition
// parameter and the loop itself take their sharding.
constexpr char kWhile[] = R"(HloModule m
body {
  a = s32[] parameter(0)BP
  ROOT b = s32[] add(a, a)
}
cond {
  c = s32[] parameter(0)CP
  ROOT d = pred[] constant(true)
}
ENTRY e {
  z = s32[] constant(0)
  ROOT w = s32[] while(z), condition=cond, body=bodyWP
})";

std::string Fill(std::string text, const std::string& bp, const std::string& cp,
                 const std::string& wp) {
  text.replace(text.find("BP"), 2, bp);
  text.replace(text.find("CP"), 2, cp);
  text.replace(text.find("WP"), 2, wp);
  return text;
}

TEST(VerifyShardingTest, WhileShardingConsistent) {
  const std::string t = kWhile;
  EXPECT_THAT(Findings(Fill(t, ", sharding={replicated}", "",
                            ", sharding={replicated}")),
              IsEmpty());
  // Metadata is no part of the sharding.
  EXPECT_THAT(
      Findings(Fill(t, ", sharding={maximal device=0}",
                    ", sharding={maximal device=0 metadata={op_name=\"x\"}}",
                    "")),
      IsEmpty());
  EXPECT_THAT(Findings(Fill(t, ", sharding={replicated}",
                            ", sharding={maximal device=0}", "")),
              ElementsAre("Inconsistent while sharding among instructions: a "
                          "and c @ sharding={maximal device=0}"));
}

TEST(VerifyShardingTest, ConditionalShardingConsistent) {
  auto module = [](const std::string& sharding) {
    return R"(HloModule m
t {
  tp = f32[4] parameter(0)
  ROOT tr = f32[4] negate(tp), sharding={maximal device=0}
}
f {
  fp = f32[4] parameter(0)
  ROOT fr = f32[4] abs(fp), sharding=)" +
           sharding + R"(
}
ENTRY e {
  p = f32[4] parameter(0)
  c = pred[] constant(true)
  ROOT r = f32[4] conditional(c, p, p), true_computation=t, false_computation=f
})";
  };
  EXPECT_THAT(Findings(module("{maximal device=0}")), IsEmpty());
  EXPECT_THAT(Findings(module("{replicated}")),
              ElementsAre("Inconsistent conditional sharding among "
                          "instructions: tr and fr @ sharding={replicated}"));
}

}  // namespace
}  // namespace hlo
