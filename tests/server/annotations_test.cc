// The fixture marker parser used by the feature tests.
#include "tests/server/annotations.h"

#include "gtest/gtest-spi.h"
#include "gtest/gtest.h"

namespace hlo_lsp {
namespace {

using Offsets = Annotations::Offsets;

TEST(AnnotationsTest, PlainTextHasNoMarkers) {
  Annotations a("%a = f32[2,3]{1,0} parameter(0)");
  EXPECT_EQ(a.code(), "%a = f32[2,3]{1,0} parameter(0)");
  EXPECT_TRUE(a.PointOffsets().empty());
  EXPECT_TRUE(a.AllRangeOffsets().empty());
}

TEST(AnnotationsTest, PointsAndRangesAreStripped) {
  Annotations a("x = f32[2] [[ad^d]](%[[y]])\n  ^z");
  EXPECT_EQ(a.code(), "x = f32[2] add(%y)\n  z");
  EXPECT_EQ(a.PointOffsets(), (std::vector<size_t>{13, 21}));
  EXPECT_EQ(a.AllRangeOffsets(), (std::vector<Offsets>{{11, 14}, {16, 17}}));
  EXPECT_EQ(a.points()[1], (Position{1, 2}));
  EXPECT_EQ(a.ranges()[1], (Range{{0, 16}, {0, 17}}));
}

TEST(AnnotationsTest, NamedMarkers) {
  Annotations a("$def[[a]] = b($use^a, $use^a)\n$all[[c\nd]]");
  EXPECT_EQ(a.code(), "a = b(a, a)\nc\nd");
  EXPECT_EQ(a.range("def"), (Range{{0, 0}, {0, 1}}));
  EXPECT_EQ(a.points("use"), (std::vector<Position>{{0, 6}, {0, 9}}));
  EXPECT_EQ(a.range("all"), (Range{{1, 0}, {2, 1}}));
  EXPECT_TRUE(a.points().empty());  // unnamed ones are their own set
}

TEST(AnnotationsTest, NestedRangesComeInTextOrder) {
  Annotations a("[[a [[b]] c]] [[d]]");
  EXPECT_EQ(a.code(), "a b c d");
  EXPECT_EQ(a.AllRangeOffsets(),
            (std::vector<Offsets>{{0, 5}, {2, 3}, {6, 7}}));
}

TEST(AnnotationsTest, SingleBracketsAndBracesAreText) {
  Annotations a("(f32[2], s32[]) tuple(), dims={0}, x=[1]<=[2]");
  EXPECT_EQ(a.code(), "(f32[2], s32[]) tuple(), dims={0}, x=[1]<=[2]");
}

TEST(AnnotationsTest, RangeEndingOnAShape) {
  Annotations a("[[f32[]]] %x, [[[[f32[2]]]]]");
  EXPECT_EQ(a.code(), "f32[] %x, f32[2]");
  EXPECT_EQ(a.AllRangeOffsets(),
            (std::vector<Offsets>{{0, 5}, {10, 16}, {10, 16}}));
}

TEST(AnnotationsTest, ColumnsAreUtf8Bytes) {
  Annotations a("\"ü\"^x");
  EXPECT_EQ(a.point(), (Position{0, 4}));
}

TEST(AnnotationsTest, MisuseFails) {
  EXPECT_NONFATAL_FAILURE(Annotations("a]]"), "without `[[`");
  EXPECT_NONFATAL_FAILURE(Annotations("[[a"), "left open");
  EXPECT_NONFATAL_FAILURE(Annotations("$x a"), "must name");
  EXPECT_NONFATAL_FAILURE(Annotations("^a^").point(), "found 2");
  EXPECT_NONFATAL_FAILURE(Annotations("a").range("r"), "found 0");
}

}  // namespace
}  // namespace hlo_lsp
