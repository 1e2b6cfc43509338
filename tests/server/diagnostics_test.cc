// publishDiagnostics content: the parser's diagnostics with exact ranges,
// severities and messages.
#include "gtest/gtest.h"
#include "server/features/features.h"
#include "tests/server/annotations.h"
#include "tests/server/feature_fixture.h"

namespace hlo_lsp {
namespace {

std::string Diags(const Snapshot& snap) {
  std::string out;
  for (const Diagnostic& d : Diagnostics(snap)) {
    out +=
        Show(d.range) +
        (d.severity == DiagnosticSeverity::kError ? " error " : " warning ") +
        d.message + "\n";
  }
  return out;
}

TEST(DiagnosticsTest, CleanModuleHasNone) {
  auto snap = Snap(ReadFixture("basic.hlo"));
  EXPECT_EQ(Diags(*snap), "");
}

TEST(DiagnosticsTest, UndefinedNames) {
  Annotations a(R"(HloModule m

ENTRY %main (p: f32[2]) -> f32[2] {
  %p = f32[2]{0} parameter(0)
  %bad = f32[2]{0} add(f32[2]{0} %p, f32[2]{0} %$operand[[missing]])
  ROOT %r = f32[2]{0} negate(%bad), control-predecessors={%$control[[gone]]}
}
)");
  auto snap = Snap(a);
  EXPECT_EQ(Diags(*snap), Show(a.range("operand")) +
                              " error use of undefined value 'missing'\n" +
                              Show(a.range("control")) +
                              " error use of undefined value 'gone'\n");
}

TEST(DiagnosticsTest, ShapeThatXlaWouldNotInfer) {
  Annotations a(R"(HloModule m

ENTRY %main {
  %x = f32[2,3] parameter(0)
  ROOT %t = $shape[[f32[2,3]]] transpose(%x), dimensions={1,0}
}
)");
  auto snap = Snap(a);
  EXPECT_EQ(Diags(*snap), Show(a.range("shape")) +
                              " error Expected instruction to have shape "
                              "equal to f32[3,2], actual shape is f32[2,3]\n");
}

TEST(DiagnosticsTest, UnclosedOperandList) {
  // errors.hlo, moved from features_test, with its problems marked.
  Annotations a(R"(HloModule errors

ENTRY %main (p: f32[2]) -> f32[2] $open[[{]]
  %p = f32[2]{0} parameter(0)
  %bad = f32[2]{0} add(f32[2]{0} %p, f32[2]{0} %$undefined[[missing]])
  ROOT %r = f32[2]{0} negate(f32[2]{0} %bad
$unexpected[[}]]
)");
  ASSERT_EQ(a.code(), ReadFixture("errors.hlo"));
  auto snap = Snap(a);
  // The middle one is a cascade (suspected parser bug, see the report):
  // the '}' that ended the operand list does close the computation.
  EXPECT_EQ(Diags(*snap),
            Show(a.range("unexpected")) +
                " error expected ',' or ')', found '}'\n" +
                Show(a.range("open")) +
                " error missing '}' to close computation 'main'\n" +
                Show(a.range("undefined")) +
                " error use of undefined value 'missing'\n");
}

TEST(DiagnosticsTest, PastTheCapAWarningSaysSomeAreLeftOut) {
  std::string text = "HloModule m\n\nENTRY %main () -> f32[] {\n";
  for (int i = 0; i < 1001; ++i) {
    text += "  %c" + std::to_string(i) + " = f32[] negate(%u" +
            std::to_string(i) + ")\n";
  }
  text += "  ROOT %r = f32[] constant(0)\n}\n";
  auto snap = Snap(std::move(text));
  std::vector<Diagnostic> diags = Diagnostics(*snap);
  ASSERT_EQ(diags.size(), 1001u);
  EXPECT_EQ(diags[999].message, "use of undefined value 'u999'");
  EXPECT_EQ(Show(diags[999].range), "1002:24-1002:28");
  EXPECT_EQ(diags[1000].severity, DiagnosticSeverity::kWarning);
  EXPECT_EQ(diags[1000].message,
            "too many diagnostics; the rest are not shown");
  EXPECT_EQ(Show(diags[1000].range), Show(diags[999].range));
}

}  // namespace
}  // namespace hlo_lsp
