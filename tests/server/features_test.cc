// Features and model queries on small fixtures, through the real parser.
#include <fstream>
#include <sstream>

#include "gtest/gtest.h"
#include "hlo/query.h"
#include "server/documents.h"
#include "server/features/features.h"

namespace hlo_lsp {
namespace {

std::string ReadFixture(const std::string& name) {
  std::ifstream in(std::string(HLO_LSP_SOURCE_DIR) + "/tests/e2e/fixtures/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::shared_ptr<const Snapshot> Snap(std::string text,
                                     hlo::ColumnUnit unit = hlo::ColumnUnit::kUtf8Bytes,
                                     std::string uri = "file:///fixtures/test.hlo") {
  return MakeSnapshot(uri, 1, 1, std::make_shared<const std::string>(std::move(text)), unit);
}

// Position of the `occurrence`-th `needle` (0-based), pointing inside it.
Position Find(const Snapshot& s, std::string_view needle, int occurrence = 0) {
  size_t at = 0;
  for (int i = 0; i <= occurrence; ++i) {
    at = s.text->find(needle, i == 0 ? 0 : at + 1);
    EXPECT_NE(at, std::string::npos) << needle;
  }
  return s.ToPosition(static_cast<hlo::Offset>(at + 1));
}

std::string TextAt(const Snapshot& s, const Range& r) {
  hlo::Offset b = s.ToOffset(r.start), e = s.ToOffset(r.end);
  return s.text->substr(b, e - b);
}

class BasicFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    snap_ = Snap(ReadFixture("basic.hlo"));
    ASSERT_FALSE(snap_->file->HasErrors());
    ASSERT_EQ(snap_->file->computations.size(), 5u);
  }
  std::shared_ptr<const Snapshot> snap_;
};

TEST_F(BasicFixture, NodeAtAndDefinitions) {
  const hlo::ParsedFile& f = *snap_->file;
  hlo::NodeAt node = hlo::FindNodeAt(f, snap_->ToOffset(Find(*snap_, "%fusion, f32[]")));
  ASSERT_EQ(node.kind, hlo::NodeKind::kOperand);
  hlo::NodeAt def = hlo::DefinitionOf(f, node);
  ASSERT_EQ(def.kind, hlo::NodeKind::kInstructionName);
  EXPECT_EQ(f.Text(def.span), "fusion");
  node = hlo::FindNodeAt(f, snap_->ToOffset(Find(*snap_, "%add_f32\n")));
  EXPECT_EQ(node.kind, hlo::NodeKind::kComputationRef);
  EXPECT_EQ(f.Text(hlo::DefinitionOf(f, node).span), "add_f32");
  // Whitespace between tokens is nothing.
  EXPECT_EQ(hlo::FindNodeAt(f, 0xffffffffu).kind, hlo::NodeKind::kNone);
}

TEST_F(BasicFixture, UsersAndCallers) {
  const hlo::ParsedFile& f = *snap_->file;
  hlo::Id main = hlo::FindComputation(f, "main");
  hlo::Id fusion = hlo::FindInstruction(f, main, "fusion");
  ASSERT_NE(fusion, hlo::kNone);
  EXPECT_EQ(hlo::UserCount(f, fusion), 3u);
  hlo::Id sum = hlo::FindInstruction(f, main, "sum");
  std::vector<hlo::Use> uses = hlo::UsersOf(f, sum);
  ASSERT_EQ(uses.size(), 1u);  // the control edge
  EXPECT_NE(uses[0].name_ref, hlo::kNone);
  EXPECT_EQ(hlo::UserCount(f, sum), 0u);
  EXPECT_EQ(hlo::CallersOf(f, hlo::FindComputation(f, "add_f32")).size(), 1u);
  EXPECT_EQ(hlo::CalleesOf(f, main).size(), 4u);
}

TEST_F(BasicFixture, ParameterToCallSite) {
  const hlo::ParsedFile& f = *snap_->file;
  hlo::Id fused = hlo::FindComputation(f, "fused_computation");
  hlo::Id p1 = hlo::FindInstruction(f, fused, "param_1");
  EXPECT_EQ(hlo::ParameterNumber(f, p1), 1);
  std::vector<Location> defs = Definition(*snap_, Find(*snap_, "%param_1 ="));
  ASSERT_EQ(defs.size(), 1u);
  EXPECT_EQ(TextAt(*snap_, defs[0].range), "f32[4]{0} %input");
  // While body parameter <- the while's operand.
  defs = Definition(*snap_, Find(*snap_, "%state = ", 0));
  ASSERT_EQ(defs.size(), 1u);
  EXPECT_EQ(TextAt(*snap_, defs[0].range), "(s32[], f32[4]{0}) %init");
}

TEST_F(BasicFixture, MetadataAndHover) {
  const hlo::ParsedFile& f = *snap_->file;
  hlo::Id fusion = hlo::FindInstruction(f, hlo::FindComputation(f, "main"), "fusion");
  hlo::Span where;
  EXPECT_EQ(hlo::MetadataField(f, fusion, "op_name"), "jit(f)/mul");
  EXPECT_EQ(hlo::MetadataField(f, fusion, "source_file", &where), "/tmp/hlo_lsp_e2e_model.py");
  EXPECT_EQ(f.Text(where), "/tmp/hlo_lsp_e2e_model.py");
  EXPECT_EQ(hlo::MetadataField(f, fusion, "source_line"), "12");
  EXPECT_EQ(hlo::MetadataField(f, fusion, "name"), "");  // op_name is not name
  std::optional<Hover> h = HoverAt(*snap_, Find(*snap_, "%fusion ="));
  ASSERT_TRUE(h.has_value());
  EXPECT_NE(h->markdown.find("bytes: 16"), std::string::npos) << h->markdown;
  EXPECT_NE(h->markdown.find("Users: 3"), std::string::npos) << h->markdown;
  EXPECT_NE(h->markdown.find("{replicated}"), std::string::npos) << h->markdown;
}

TEST_F(BasicFixture, OutlineInlayFoldingTokensLinksCalls) {
  std::vector<DocumentSymbol> syms = DocumentSymbols(*snap_);
  ASSERT_EQ(syms.size(), 1u);
  EXPECT_EQ(syms[0].children.size(), 5u);
  EXPECT_EQ(syms[0].children.back().children.size(), 9u);  // main's instructions
  std::vector<InlayHint> hints =
      InlayHints(*snap_, Range{{0, 0}, {1000, 0}});
  ASSERT_FALSE(hints.empty());
  for (const InlayHint& h : hints) EXPECT_FALSE(h.label.empty());
  EXPECT_FALSE(FoldingRanges(*snap_).empty());
  SemanticTokens tokens = SemanticTokensFull(*snap_);
  ASSERT_EQ(tokens.data.size() % 5, 0u);
  // Tokens are in order and never overlap.
  uint32_t line = 0, ch = 0, prev_end = 0;
  for (size_t i = 0; i < tokens.data.size(); i += 5) {
    if (tokens.data[i] > 0) {
      line += tokens.data[i];
      ch = tokens.data[i + 1];
      prev_end = 0;
    } else {
      ch += tokens.data[i + 1];
      EXPECT_GE(ch, prev_end) << "overlap at line " << line;
    }
    prev_end = ch + tokens.data[i + 2];
  }
  std::vector<DocumentLink> links = DocumentLinks(*snap_);
  ASSERT_EQ(links.size(), 2u);
  EXPECT_EQ(links[1].target, "file:///tmp/hlo_lsp_e2e_model.py#L12");
  std::vector<CallHierarchyItem> items = PrepareCallHierarchy(*snap_, Find(*snap_, "%cond,"));
  ASSERT_EQ(items.size(), 1u);
  EXPECT_EQ(items[0].name, "cond");
  std::vector<CallHierarchyCall> in = IncomingCalls(*snap_, items[0]);
  ASSERT_EQ(in.size(), 1u);
  EXPECT_EQ(in[0].item.name, "main");
}

TEST(FeaturesTest, DiagnosticsHaveRanges) {
  auto snap = Snap(ReadFixture("errors.hlo"));
  std::vector<Diagnostic> diags = Diagnostics(*snap);
  ASSERT_GE(diags.size(), 2u);
  bool undefined = false;
  for (const Diagnostic& d : diags) {
    if (TextAt(*snap, d.range) == "missing") undefined = true;
  }
  EXPECT_TRUE(undefined);
}

TEST(FeaturesTest, Utf16Positions) {
  auto snap = Snap(ReadFixture("unicode.hlo"), hlo::ColumnUnit::kUtf16CodeUnits);
  // "/* ü😀 */" before the operand: 9 bytes of text are 5 UTF-16 units.
  size_t at = snap->text->find("%p)");
  Position p = snap->ToPosition(static_cast<hlo::Offset>(at + 1));
  std::vector<Location> defs = Definition(*snap, p);
  ASSERT_EQ(defs.size(), 1u);
  EXPECT_EQ(TextAt(*snap, defs[0].range), "p");
  std::vector<DocumentHighlight> hl = DocumentHighlights(*snap, p);
  ASSERT_EQ(hl.size(), 2u);
  EXPECT_EQ(hl[1].range.start, p);
  // ü is 2 bytes but 1 unit, 😀 4 bytes but 2 units.
  auto bytes = Snap(*snap->text, hlo::ColumnUnit::kUtf8Bytes);
  EXPECT_EQ(p.character + 3, bytes->ToPosition(static_cast<hlo::Offset>(at + 1)).character);
}

TEST(FeaturesTest, OutlineIsCappedForHugeModules) {
  std::string text = "HloModule huge\n\nENTRY %main () -> f32[] {\n";
  for (int i = 0; i < 100001; ++i) {
    text += "  %c" + std::to_string(i) + " = f32[] constant(1)\n";
  }
  text += "  ROOT %r = f32[] constant(0)\n}\n";
  auto snap = Snap(std::move(text));
  std::vector<DocumentSymbol> syms = DocumentSymbols(*snap);
  ASSERT_EQ(syms.size(), 1u);
  ASSERT_EQ(syms[0].children.size(), 1u);
  EXPECT_TRUE(syms[0].children[0].children.empty());
  EXPECT_NE(syms[0].children[0].detail.find("100002 instructions"), std::string::npos)
      << syms[0].children[0].detail;
}

TEST(FeaturesTest, GarbageTextNeverCrashesFeatures) {
  for (std::string text : {std::string(""), std::string("}}}{{{ %% ( ) = ,"),
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

}  // namespace
}  // namespace hlo_lsp
