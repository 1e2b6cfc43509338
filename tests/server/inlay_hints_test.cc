// textDocument/inlayHint: the shape of an operand whose shape the text does
// not write, at the operand's start (its '%' when written).
#include "gtest/gtest.h"
#include "server/features/features.h"
#include "tests/server/annotations.h"
#include "tests/server/feature_fixture.h"

namespace hlo_lsp {
namespace {

std::string Hints(const Snapshot& snap, Range range) {
  std::string out;
  for (const InlayHint& h : InlayHints(snap, range)) {
    out += Show(h.position) + " " + h.label + (h.padding_right ? " +pad" : "") +
           "\n";
  }
  return out;
}

constexpr char kInlayHintsModule[] = R"(HloModule m

%add (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %s = f32[] add($s32^%x, $s32^y)
}

ENTRY %main (p: f32[2,3]) -> f32[] {
  %p = f32[2,3]{1,0} parameter(0)
  %n = f32[2,3]{1,0} negate(f32[2,3]{1,0} %p)
  %t = (f32[2,3]{1,0}, f32[]) tuple($m23^%n, $m23^p, %undefined, f32[] constant(0))
  ROOT %r = f32[] reduce($m23^n, $m^zero), dimensions={0,1}, to_apply=%add
  %zero = f32[] constant(0)
}
)";

TEST(InlayHintsTest, ShapesOfBareOperandsOnly) {
  // No hint where the shape is written, for an undefined name, or for a
  // nested op; the label has no layout.
  Annotations a(kInlayHintsModule);
  auto snap = Snap(a);
  std::string want;
  for (Position p : a.points("s32")) want += Show(p) + " f32[] +pad\n";
  std::vector<Position> m23 = a.points("m23");
  want += Show(m23[0]) + " f32[2,3] +pad\n" + Show(m23[1]) + " f32[2,3] +pad\n";
  want +=
      Show(m23[2]) + " f32[2,3] +pad\n" + Show(a.point("m")) + " f32[] +pad\n";
  EXPECT_EQ(Hints(*snap, Range{{0, 0}, {100, 0}}), want);
}

TEST(InlayHintsTest, OnlyInsideTheRequestedRange) {
  Annotations a(kInlayHintsModule);
  auto snap = Snap(a);
  Position r = a.point("m");  // the line of %r
  std::vector<Position> m23 = a.points("m23");
  EXPECT_EQ(Hints(*snap, Range{{r.line, 0}, {r.line + 1, 0}}),
            Show(m23[2]) + " f32[2,3] +pad\n" + Show(r) + " f32[] +pad\n");
  EXPECT_EQ(Hints(*snap, Range{{1, 0}, {2, 0}}), "");
}

}  // namespace
}  // namespace hlo_lsp
