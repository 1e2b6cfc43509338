// textDocument/documentLink: metadata source_file values link to the source
// (at source_line when given); the link covers the path inside the quotes.
#include "gtest/gtest.h"
#include "server/features/features.h"
#include "tests/server/annotations.h"
#include "tests/server/feature_fixture.h"

namespace hlo_lsp {
namespace {

std::string Links(const Snapshot& snap) {
  std::string out;
  for (const DocumentLink& l : DocumentLinks(snap)) {
    out += Show(l.range) + " " + l.target + " '" + l.tooltip + "'\n";
  }
  return out;
}

TEST(DocumentLinksTest, AbsolutePathsAndFileUris) {
  // No link for a relative path that does not exist beside the dump, nor
  // for a Windows path.
  Annotations a(R"(HloModule m

ENTRY %main () -> f32[] {
  %a = f32[] constant(1), metadata={op_name="a" source_file="$abs[[/src/model.py]]" source_line=12}
  %b = f32[] constant(2), metadata={source_file="$noline[[/src/other.py]]"}
  %c = f32[] constant(3), metadata={source_file="relative/missing.py" source_line=1}
  %d = f32[] constant(4), metadata={source_file="C:\win\x.py" source_line=1}
  %e = f32[] constant(5), metadata={source_file="$uri[[file:///src/u.py]]" source_line=2}
  ROOT %r = f32[] add(%a, %b)
})");
  auto snap = Snap(a);
  EXPECT_EQ(Links(*snap),
            Show(a.range("abs")) +
                " file:///src/model.py#L12 'Open /src/model.py:12'\n" +
                Show(a.range("noline")) +
                " file:///src/other.py 'Open /src/other.py'\n" +
                Show(a.range("uri")) +
                " file:///src/u.py#L2 'Open file:///src/u.py:2'\n");
}

TEST(DocumentLinksTest, RelativePathBesideTheDump) {
  // The dump "lives" in this test folder, where annotations.h exists.
  Annotations a(R"(HloModule m

ENTRY %main () -> f32[] {
  ROOT %a = f32[] constant(1), metadata={source_file="[[annotations.h]]" source_line=3}
})");
  std::string dir = std::string(HLO_LSP_SOURCE_DIR) + "/tests/server";
  auto snap =
      Snap(a.code(), hlo::ColumnUnit::kUtf8Bytes, PathToUri(dir + "/dump.hlo"));
  EXPECT_EQ(Links(*snap), Show(a.range()) + " " +
                              PathToUri(dir + "/annotations.h") +
                              "#L3 'Open annotations.h:3'\n");
}

TEST(DocumentLinksTest, BasicE2eFixture) {
  // Moved from features_test: both metadata source files of basic.hlo.
  auto snap = Snap(ReadFixture("basic.hlo"));
  std::vector<DocumentLink> links = DocumentLinks(*snap);
  ASSERT_EQ(links.size(), 2u);
  EXPECT_EQ(links[0].target, "file:///tmp/hlo_lsp_e2e_model.py#L7");
  EXPECT_EQ(links[1].target, "file:///tmp/hlo_lsp_e2e_model.py#L12");
  EXPECT_EQ(TextAt(*snap, links[1].range), "/tmp/hlo_lsp_e2e_model.py");
}

}  // namespace
}  // namespace hlo_lsp
