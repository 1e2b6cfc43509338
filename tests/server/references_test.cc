// textDocument/references on annotated fixtures: the declaration (when
// asked for) and every use, exactly the marked ranges.
#include <algorithm>

#include "gtest/gtest.h"
#include "server/features/features.h"
#include "tests/server/annotations.h"
#include "tests/server/feature_fixture.h"

namespace hlo_lsp {
namespace {

bool Before(const Range& a, const Range& b) {
  return a.start.line != b.start.line ? a.start.line < b.start.line
                                      : a.start.character < b.start.character;
}

// The reply's ranges: the declaration first when included (the server puts
// it there), then the uses in text order (LSP gives them no order).
std::string Refs(const Snapshot& snap, Position p, bool with_declaration) {
  std::vector<Location> got = References(snap, p, with_declaration);
  for (const Location& l : got) EXPECT_EQ(l.uri, kFixtureUri);
  std::vector<Range> out = RangesOf(got);
  std::sort(out.begin() + (with_declaration && !out.empty() ? 1 : 0), out.end(),
            Before);
  return Show(out);
}

std::string Concat(Range first, std::vector<Range> rest) {
  rest.insert(rest.begin(), first);
  return Show(rest);
}

constexpr char kReferencesModule[] = R"(HloModule m

%$add_decl[[add]] (x: f32[], y: f32[]) -> f32[] {
  %$x_decl[[x]] = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %s = f32[] add(%$x_use[[$x^x]], %y)
}

ENTRY %main (p: f32[4]) -> f32[] {
  %p = f32[4]{0} parameter(0)
  %x = f32[] constant(5)
  %$zero_decl[[$zero^zero]] = f32[] constant(0)
  %r1 = f32[] reduce(f32[4]{0} %p, f32[] %$zero_use[[zero]]), dimensions={0}, to_apply=%$add_use[[add]]
  %r2 = f32[] reduce(p, $zero_use[[zero]]), dimensions={0}, to_apply=$add_use[[a$add^dd]]
  ROOT %t = (f32[], f32[]) tuple(%r1, %r2), control-predecessors={%$zero_use[[zero]]}
})";

TEST(ReferencesTest, InstructionUsesWithAndWithoutPercentAndControlEdges) {
  Annotations a(kReferencesModule);
  auto snap = Snap(a);
  EXPECT_EQ(Refs(*snap, a.point("zero"), true),
            Concat(a.range("zero_decl"), a.ranges("zero_use")));
  EXPECT_EQ(Refs(*snap, a.point("zero"), false), Show(a.ranges("zero_use")));
  // From a use, the same answer.
  Position use = a.ranges("zero_use")[1].end;
  EXPECT_EQ(Refs(*snap, use, true),
            Concat(a.range("zero_decl"), a.ranges("zero_use")));
}

TEST(ReferencesTest, SameNameInAnotherComputationIsNotAReference) {
  Annotations a(kReferencesModule);
  auto snap = Snap(a);
  EXPECT_EQ(Refs(*snap, a.point("x"), true),
            Concat(a.range("x_decl"), a.ranges("x_use")));
}

TEST(ReferencesTest, ComputationCalledFromToApply) {
  Annotations a(kReferencesModule);
  auto snap = Snap(a);
  EXPECT_EQ(Refs(*snap, a.point("add"), true),
            Concat(a.range("add_decl"), a.ranges("add_use")));
  EXPECT_EQ(Refs(*snap, a.range("add_decl").start, false),
            Show(a.ranges("add_use")));
}

TEST(ReferencesTest, NothingOnWhitespaceOrUndefinedName) {
  Annotations a(R"(HloModule m

ENTRY %main () -> f32[] {
  %a = f32[] constant(1) ^
  ROOT %b = f32[] add(%a, %mis^sing)
})");
  auto snap = Snap(a);
  for (Position p : a.points()) {
    EXPECT_TRUE(References(*snap, p, true).empty());
    EXPECT_TRUE(References(*snap, p, false).empty());
  }
}

TEST(ReferencesTest, UnusedInstructionHasOnlyItsDeclaration) {
  Annotations a(R"(HloModule m

ENTRY %main () -> f32[] {
  %[[un^used]] = f32[] constant(1)
  ROOT %b = f32[] constant(2)
})");
  auto snap = Snap(a);
  EXPECT_EQ(Refs(*snap, a.point(), true), Show(a.range()));
  EXPECT_EQ(Refs(*snap, a.point(), false), "");
}

}  // namespace
}  // namespace hlo_lsp
