// textDocument/foldingRange: computations ("region"), instructions and
// attributes that span lines; the marked ranges give the expected lines.
#include "gtest/gtest.h"
#include "server/features/features.h"
#include "tests/server/annotations.h"
#include "tests/server/feature_fixture.h"

namespace hlo_lsp {
namespace {

std::string Folds(const std::vector<FoldingRange>& folds) {
  std::string out;
  for (const FoldingRange& f : folds) {
    out += std::to_string(f.start_line) + "-" + std::to_string(f.end_line) +
           " '" + f.kind + "'\n";
  }
  return out;
}

std::string Fold(const Range& r, const std::string& kind) {
  return std::to_string(r.start.line) + "-" + std::to_string(r.end.line) +
         " '" + kind + "'\n";
}

TEST(FoldingTest, ComputationsAndMultiLineInstructionsAndAttributes) {
  // One-line instructions and attributes, and the one-line header, do not
  // fold.
  Annotations a(R"(HloModule m, entry_computation_layout={(f32[4]{0})->f32[]}

$region[[%add (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %s = f32[] add(%x, %y), metadata={op_name="s"}
}]]

$region[[ENTRY %main (p: f32[4]) -> f32[] {
  %p = f32[4]{0} parameter(0)
  %zero = f32[] constant(0)
  $inst[[ROOT %r = f32[] reduce(%p, %zero),
      dimensions={0},
      to_apply=%add, $attr[[metadata={op_name="r"
        source_line=3}]]]]
}]]
)");
  auto snap = Snap(a);
  std::vector<Range> regions = a.ranges("region");
  ASSERT_EQ(regions.size(), 2u);
  EXPECT_EQ(Folds(FoldingRanges(*snap)),
            Fold(regions[0], "region") + Fold(regions[1], "region") +
                Fold(a.range("inst"), "") + Fold(a.range("attr"), ""));
}

TEST(FoldingTest, OneLineComputationDoesNotFold) {
  auto snap = Snap(
      "HloModule m\n\nENTRY %main () -> f32[] { ROOT %c = f32[] constant(0) "
      "}\n");
  EXPECT_EQ(Folds(FoldingRanges(*snap)), "");
}

TEST(FoldingTest, BasicE2eFixture) {
  // Moved from features_test: basic.hlo's five computations fold, nothing
  // else spans lines.
  auto snap = Snap(ReadFixture("basic.hlo"));
  EXPECT_EQ(Folds(FoldingRanges(*snap)),
            "2-6 'region'\n8-12 'region'\n14-22 'region'\n24-29 "
            "'region'\n31-41 'region'\n");
}

}  // namespace
}  // namespace hlo_lsp
