// textDocument/definition on annotated fixtures: the marked ranges are the
// exact reply.
#include "gtest/gtest.h"
#include "server/features/features.h"
#include "tests/server/annotations.h"
#include "tests/server/feature_fixture.h"

namespace hlo_lsp {
namespace {

// Definition at each unnamed `^`; every answer is checked against `want`.
void ExpectDefinition(const Annotations& a, const std::vector<Range>& want) {
  auto snap = Snap(a);
  ASSERT_FALSE(a.points().empty());
  for (Position p : a.points()) {
    std::vector<Location> got = Definition(*snap, p);
    EXPECT_EQ(Show(RangesOf(got)), Show(want))
        << "at " << p.line << ":" << p.character;
    for (const Location& l : got) EXPECT_EQ(l.uri, kFixtureUri);
  }
}

TEST(DefinitionTest, OperandWithAndWithoutPercent) {
  Annotations a(R"(HloModule m

ENTRY %main (p: f32[4]) -> f32[4] {
  %p = f32[4]{0} parameter(0)
  %[[neg]] = f32[4]{0} negate(f32[4]{0} %p)
  ROOT %r = f32[4]{0} add(f32[4]{0} %^neg, ne^g)
})");
  ExpectDefinition(a, {a.range()});
}

TEST(DefinitionTest, CursorTouchingEitherEndOfTheName) {
  Annotations a(R"(HloModule m

ENTRY %main () -> f32[] {
  %[[zero]] = f32[] constant(0)
  ROOT %r = f32[] negate(%^zero^)
})");
  ExpectDefinition(a, {a.range()});
}

TEST(DefinitionTest, OnTheDefinitionItself) {
  Annotations a(R"(HloModule m

ENTRY %main () -> f32[] {
  %[[z^ero]] = f32[] constant(0)
  ROOT %r = f32[] negate(%zero)
})");
  ExpectDefinition(a, {a.range()});
}

TEST(DefinitionTest, NameResolvesInItsOwnComputation) {
  // %x exists in both computations; the use in %main is main's %x.
  Annotations a(R"(HloModule m

%add (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %s = f32[] add(%x, %y)
}

ENTRY %main () -> f32[] {
  %[[x]] = f32[] constant(1)
  ROOT %r = f32[] negate(%^x)
})");
  ExpectDefinition(a, {a.range()});
}

TEST(DefinitionTest, ComputationReferences) {
  Annotations a(R"(HloModule m

%[[add]] (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %s = f32[] add(%x, %y)
}

ENTRY %main (p: f32[4]) -> f32[] {
  %p = f32[4]{0} parameter(0)
  %zero = f32[] constant(0)
  %r1 = f32[] reduce(%p, %zero), dimensions={0}, to_apply=%a^dd
  ROOT %r2 = f32[] reduce(p, zero), dimensions={0}, to_apply=ad^d
})");
  ExpectDefinition(a, {a.range()});
}

TEST(DefinitionTest, FusionCallsGoesToTheFusedComputation) {
  Annotations a(R"(HloModule m

%[[fused]] (p0: f32[2]) -> f32[2] {
  %p0 = f32[2]{0} parameter(0)
  ROOT %n = f32[2]{0} negate(%p0)
}

ENTRY %main (a: f32[2]) -> f32[2] {
  %a = f32[2]{0} parameter(0)
  ROOT %f = f32[2]{0} fusion(%a), kind=kLoop, calls=%fu^sed
})");
  ExpectDefinition(a, {a.range()});
}

TEST(DefinitionTest, ParameterOfACalledComputationGoesToTheCallSites) {
  // The instruction name answers with the operand at each call site (its
  // written shape included); the signature name also with the parameter.
  Annotations a(R"(HloModule m

%callee (v: f32[]) -> f32[] {
  %$param[[v]] = f32[] parameter(0)
  ROOT %n = f32[] negate(%v)
}

ENTRY %main () -> f32[] {
  %a = f32[] constant(1)
  %b = f32[] constant(2)
  %c1 = f32[] call($site[[f32[] %a]]), to_apply=%callee
  %c2 = f32[] call($site[[%b]]), to_apply=%callee
  ROOT %t = (f32[], f32[]) tuple(%c1, %c2)
})");
  auto snap = Snap(a);
  std::vector<Range> sites = a.ranges("site");
  Position name = a.range("param").start;
  EXPECT_EQ(Show(RangesOf(Definition(*snap, name))), Show(sites));
  Position signature = snap->ToPosition(
      static_cast<hlo::Offset>(a.code().find("(v: f32[])") + 1));
  std::vector<Range> want = {a.range("param")};
  want.insert(want.end(), sites.begin(), sites.end());
  EXPECT_EQ(Show(RangesOf(Definition(*snap, signature))), Show(want));
}

TEST(DefinitionTest, WhileBodyAndConditionParametersGoToTheWhileOperand) {
  Annotations a(R"(HloModule m

%body (s: (s32[], f32[2])) -> (s32[], f32[2]) {
  ROOT %^s = (s32[], f32[2]{0}) parameter(0)
}

%cond (s: (s32[], f32[2])) -> pred[] {
  %^s = (s32[], f32[2]{0}) parameter(0)
  ROOT %t = pred[] constant(true)
}

ENTRY %main (a: (s32[], f32[2])) -> (s32[], f32[2]) {
  %init = (s32[], f32[2]{0}) parameter(0)
  ROOT %w = (s32[], f32[2]{0}) while([[(s32[], f32[2]{0}) %init]]), condition=%cond, body=%body
})");
  ExpectDefinition(a, {a.range()});
}

TEST(DefinitionTest, BasicE2eFixtureParameters) {
  // Moved from features_test: fused and while-body parameters of basic.hlo.
  auto snap = Snap(ReadFixture("basic.hlo"));
  auto at = [&](std::string_view needle) {
    size_t offset = snap->text->find(needle);
    EXPECT_NE(offset, std::string::npos) << needle;
    return snap->ToPosition(static_cast<hlo::Offset>(offset + 1));
  };
  std::vector<Location> defs = Definition(*snap, at("%param_1 ="));
  ASSERT_EQ(defs.size(), 1u);
  EXPECT_EQ(TextAt(*snap, defs[0].range), "f32[4]{0} %input");
  defs = Definition(*snap, at("%state = "));
  ASSERT_EQ(defs.size(), 1u);
  EXPECT_EQ(TextAt(*snap, defs[0].range), "(s32[], f32[4]{0}) %init");
}

TEST(DefinitionTest, ParameterWithoutCallSiteOperandIsItself) {
  // ENTRY parameters have no caller; reduce's to_apply has no operand that
  // maps one to one onto a parameter.
  Annotations a(R"(HloModule m

%add (x: f32[], y: f32[]) -> f32[] {
  %$x[[^x]] = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %s = f32[] add(%x, %y)
}

ENTRY %main (p: f32[4]) -> f32[] {
  %$p[[p^]] = f32[4]{0} parameter(0)
  %zero = f32[] constant(0)
  ROOT %r = f32[] reduce(%p, %zero), dimensions={0}, to_apply=%add
})");
  auto snap = Snap(a);
  std::vector<Position> at = a.points();
  ASSERT_EQ(at.size(), 2u);
  EXPECT_EQ(Show(RangesOf(Definition(*snap, at[0]))), Show(a.range("x")));
  EXPECT_EQ(Show(RangesOf(Definition(*snap, at[1]))), Show(a.range("p")));
}

TEST(DefinitionTest, ControlPredecessorName) {
  Annotations a(R"(HloModule m

ENTRY %main () -> f32[] {
  %[[a]] = f32[] constant(1)
  ROOT %b = f32[] constant(2), control-predecessors={%^a}
})");
  ExpectDefinition(a, {a.range()});
}

TEST(DefinitionTest, NothingOnWhitespaceUndefinedOrModuleName) {
  Annotations a(R"(Hlo^Module ^m

ENTRY %main () -> f32[] {
 ^ %a = f32[] constant(1)  ^
  ROOT %b = f32[] add(%a, %mis^sing), to_apply=%nowh^ere
}^
^)");
  ExpectDefinition(a, {});
}

}  // namespace
}  // namespace hlo_lsp
