// Every feature on text that is not HLO: no crash, and nothing to answer
// where there is nothing (moved from features_test.cc).
#include "gtest/gtest.h"
#include "server/features/features.h"
#include "tests/server/feature_fixture.h"

namespace hlo_lsp {
namespace {

TEST(FeaturesGarbageTest, GarbageTextNeverCrashesFeatures) {
  for (std::string text :
       {std::string(""), std::string("}}}{{{ %% ( ) = ,"),
        std::string("HloModule m\nENTRY %e {\n %a = f32[ add(%a, %b"),
        std::string("\xff\xfe\x00\x01", 4)}) {
    auto snap = Snap(text, hlo::ColumnUnit::kUtf16CodeUnits);
    for (uint32_t line = 0; line < 4; ++line) {
      for (uint32_t ch = 0; ch < 30; ch += 3) {
        Position p{line, ch};
        Definition(*snap, p);
        References(*snap, p, true);
        DocumentHighlights(*snap, p);
        HoverAt(*snap, p);
        PrepareCallHierarchy(*snap, p);
      }
    }
    DocumentSymbols(*snap);
    InlayHints(*snap, Range{{0, 0}, {100, 0}});
    FoldingRanges(*snap);
    SemanticTokensFull(*snap);
    SemanticTokensRange(*snap, Range{{2, 0}, {0, 0}});
    DocumentLinks(*snap);
    Diagnostics(*snap);
  }
}

TEST(FeaturesGarbageTest, EmptyTextAnswersNothing) {
  auto snap = Snap("");
  EXPECT_TRUE(Definition(*snap, Position{0, 0}).empty());
  EXPECT_TRUE(References(*snap, Position{0, 0}, true).empty());
  EXPECT_TRUE(DocumentHighlights(*snap, Position{0, 0}).empty());
  EXPECT_FALSE(HoverAt(*snap, Position{0, 0}).has_value());
  EXPECT_TRUE(PrepareCallHierarchy(*snap, Position{0, 0}).empty());
  EXPECT_TRUE(DocumentSymbols(*snap).empty());
  EXPECT_TRUE(InlayHints(*snap, Range{{0, 0}, {100, 0}}).empty());
  EXPECT_TRUE(FoldingRanges(*snap).empty());
  EXPECT_TRUE(SemanticTokensFull(*snap).data.empty());
  EXPECT_TRUE(DocumentLinks(*snap).empty());
}

}  // namespace
}  // namespace hlo_lsp
