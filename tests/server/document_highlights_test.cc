// textDocument/documentHighlight: the definition as a write (3), every use
// as a read (2), in the marked ranges.
#include <algorithm>

#include "gtest/gtest.h"
#include "server/features/features.h"
#include "tests/server/annotations.h"
#include "tests/server/feature_fixture.h"

namespace hlo_lsp {
namespace {

struct Mark {
  Range range;
  int kind;
  friend bool operator==(const Mark&, const Mark&) = default;
};

void PrintTo(const Mark& m, std::ostream* os) {
  *os << Show(m.range);
  *os << (m.kind == 3 ? " write" : m.kind == 2 ? " read" : " text");
}

std::vector<Mark> Highlights(const Snapshot& snap, Position p) {
  std::vector<Mark> out;
  for (const DocumentHighlight& h : DocumentHighlights(snap, p)) {
    out.push_back(Mark{h.range, h.kind});
  }
  return out;
}

// The write at `decl`, then reads at `uses`, in that order.
std::vector<Mark> Expected(Range decl, const std::vector<Range>& uses) {
  std::vector<Mark> out = {{decl, 3}};
  for (const Range& r : uses) out.push_back({r, 2});
  return out;
}

TEST(DocumentHighlightsTest, InstructionFromItsDefinitionOrAUse) {
  Annotations a(R"(HloModule m

ENTRY %main (p: f32[2]) -> f32[2] {
  %$def[[$on_def^p]] = f32[2]{0} parameter(0)
  %n = f32[2]{0} negate(f32[2]{0} %$use[[p]])
  ROOT %r = f32[2]{0} add($use[[$on_use^p]], %$use[[p]])
})");
  auto snap = Snap(a);
  std::vector<Mark> want = Expected(a.range("def"), a.ranges("use"));
  EXPECT_EQ(Highlights(*snap, a.point("on_def")), want);
  EXPECT_EQ(Highlights(*snap, a.point("on_use")), want);
}

TEST(DocumentHighlightsTest, ComputationAcrossCallers) {
  Annotations a(R"(HloModule m

%$def[[neg]] (v: f32[]) -> f32[] {
  %v = f32[] parameter(0)
  ROOT %n = f32[] negate(%v)
}

ENTRY %main () -> f32[] {
  %a = f32[] constant(1)
  %c1 = f32[] call(%a), to_apply=%$use[[n^eg]]
  ROOT %c2 = f32[] call(%c1), to_apply=$use[[neg]]
})");
  auto snap = Snap(a);
  EXPECT_EQ(Highlights(*snap, a.point()),
            Expected(a.range("def"), a.ranges("use")));
}

TEST(DocumentHighlightsTest, NothingOnWhitespaceOrUndefinedName) {
  Annotations a(R"(HloModule m

ENTRY %main () -> f32[] {
^  %a = f32[] constant(1)
  ROOT %b = f32[] add(%a, %^missing)
})");
  auto snap = Snap(a);
  for (Position p : a.points()) EXPECT_TRUE(Highlights(*snap, p).empty());
}

TEST(DocumentHighlightsTest, Utf16Columns) {
  // Moved from features_test: comment text before the operand is 9 bytes
  // but 5 UTF-16 units ("ü" 2 bytes / 1 unit, "😀" 4 bytes / 2 units).
  Annotations a(R"(HloModule unicode

ENTRY %main (p: f32[2]) -> f32[2] {
  %$def[[p]] = f32[2]{0} parameter(0), metadata={op_name="héllo/😀"}
  ROOT %r = f32[2]{0} /* ü😀 */ negate(f32[2]{0} %$use[[^p]])
})");
  auto snap = Snap(a.code(), hlo::ColumnUnit::kUtf16CodeUnits);
  auto utf16 = [&](Annotations::Offsets r) {
    return Range{snap->ToPosition(static_cast<hlo::Offset>(r.begin)),
                 snap->ToPosition(static_cast<hlo::Offset>(r.end))};
  };
  Range use = utf16(a.RangeOffsets("use"));
  Position at = use.start;
  EXPECT_EQ(at.character + 3, a.point().character);  // 3 bytes more than units
  EXPECT_EQ(Highlights(*snap, at),
            Expected(utf16(a.RangeOffsets("def")), {use}));
  std::vector<Location> defs = Definition(*snap, at);
  ASSERT_EQ(defs.size(), 1u);
  EXPECT_EQ(Show(defs[0].range), Show(utf16(a.RangeOffsets("def"))));
}

}  // namespace
}  // namespace hlo_lsp
