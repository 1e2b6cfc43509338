// textDocument/hover: the exact markdown and the range of the hovered name.
#include <optional>

#include "gtest/gtest.h"
#include "server/features/features.h"
#include "tests/server/annotations.h"
#include "tests/server/feature_fixture.h"

namespace hlo_lsp {
namespace {

constexpr char kHoverModule[] = R"(HloModule $module_name[[$module^m]]

%$add_def[[add]] (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %s = f32[] add(%x, %y)
}

ENTRY %main (p: f32[4]) -> f32[] {
  %$p_def[[$p^p]] = f32[4]{0} parameter(0), sharding={replicated}, metadata={op_name="jit(f)/p" source_file="/tmp/m.py" source_line=7}
  %zero = f32[] constant(0)
  ROOT %r = f32[] $r^reduce(f32[4]{0} %p, $zero_use[[ze$zero^ro]]), dimensions={0}, to_apply=%$add_use[[a$add^dd]]
  ^
}
)";

struct HoverFixture {
  Annotations a{kHoverModule};
  std::shared_ptr<const Snapshot> snap = Snap(a);
};

TEST(HoverTest, InstructionWithShapeShardingAndMetadata) {
  HoverFixture f;
  std::optional<Hover> h = HoverAt(*f.snap, f.a.point("p"));
  ASSERT_TRUE(h.has_value());
  EXPECT_EQ(h->markdown,
            "**%p** = `parameter` in `%main`\n\n"
            "Shape: `f32[4]{0}`\n"
            "- elements: 4\n"
            "- bytes: 16\n"
            "\nUsers: 1\n"
            "\nSharding: `{replicated}`\n"
            "\nop_name: `jit(f)/p`\n"
            "\nSource: `/tmp/m.py:7`\n");
  ASSERT_TRUE(h->range.has_value());
  EXPECT_EQ(Show(*h->range), Show(f.a.range("p_def")));
}

TEST(HoverTest, InferredShapeWhereNoneIsWrittenOrItDiffers) {
  Annotations a(R"(HloModule m

ENTRY %main {
  %x = f32[2,3] parameter(0)
  %$bare^a = add(%x, %x)
  ROOT %$wrong^t = f32[2,3] transpose(%a), dimensions={1,0}
}
)");
  auto snap = Snap(a);
  std::optional<Hover> bare = HoverAt(*snap, a.point("bare"));
  ASSERT_TRUE(bare.has_value());
  EXPECT_NE(bare->markdown.find(
                "Shape: `f32[2,3]` (inferred, not written)\n- elements: 6\n"),
            std::string::npos)
      << bare->markdown;
  std::optional<Hover> wrong = HoverAt(*snap, a.point("wrong"));
  ASSERT_TRUE(wrong.has_value());
  EXPECT_NE(wrong->markdown.find("Shape: `f32[2,3]`\n- inferred: `f32[3,2]` "
                                 "(XLA's shape rule for this op)\n"),
            std::string::npos)
      << wrong->markdown;
}

TEST(HoverTest, BareOperandShowsItsDefinitionWithTheUseAsRange) {
  HoverFixture f;
  std::optional<Hover> h = HoverAt(*f.snap, f.a.point("zero"));
  ASSERT_TRUE(h.has_value());
  EXPECT_EQ(h->markdown,
            "**%zero** = `constant` in `%main`\n\n"
            "Shape: `f32[]`\n"
            "- elements: 1\n"
            "- bytes: 4\n"
            "\nUsers: 1\n");
  ASSERT_TRUE(h->range.has_value());
  EXPECT_EQ(Show(*h->range), Show(f.a.range("zero_use")));
}

TEST(HoverTest, OpcodeShowsTheRootInstructionAndItsOperands) {
  HoverFixture f;
  std::optional<Hover> h = HoverAt(*f.snap, f.a.point("r"));
  ASSERT_TRUE(h.has_value());
  EXPECT_EQ(h->markdown,
            "**%r** = `reduce` (ROOT) in `%main`\n\n"
            "Shape: `f32[]`\n"
            "- elements: 1\n"
            "- bytes: 4\n"
            "\nOperands (2):\n"
            "- 0: `%p`: `f32[4]{0}`\n"
            "- 1: `%zero`: `f32[]`\n"
            "\nUsers: 0\n");
}

TEST(HoverTest, ComputationReferenceShowsSignatureAndCallers) {
  HoverFixture f;
  std::optional<Hover> h = HoverAt(*f.snap, f.a.point("add"));
  ASSERT_TRUE(h.has_value());
  EXPECT_EQ(h->markdown,
            "```hlo\n%add (x: f32[], y: f32[]) -> f32[]\n```\n"
            "\nInstructions: 3\n"
            "\nCallers (1):\n"
            "- `%r` (reduce, to_apply) in `%main`\n");
  ASSERT_TRUE(h->range.has_value());
  EXPECT_EQ(Show(*h->range), Show(f.a.range("add_use")));
  // The same text on the computation's own name.
  std::optional<Hover> on_def = HoverAt(*f.snap, f.a.range("add_def").start);
  ASSERT_TRUE(on_def.has_value());
  EXPECT_EQ(on_def->markdown, h->markdown);
  EXPECT_EQ(Show(*on_def->range), Show(f.a.range("add_def")));
}

TEST(HoverTest, ModuleName) {
  HoverFixture f;
  std::optional<Hover> h = HoverAt(*f.snap, f.a.point("module"));
  ASSERT_TRUE(h.has_value());
  EXPECT_EQ(h->markdown, "**HloModule** `m`\n\nComputations: 2\n");
  EXPECT_EQ(Show(*h->range), Show(f.a.range("module_name")));
}

TEST(HoverTest, NothingOnWhitespace) {
  HoverFixture f;
  EXPECT_FALSE(HoverAt(*f.snap, f.a.point()).has_value());
}

TEST(HoverTest, UndefinedNames) {
  Annotations a(R"(HloModule m

ENTRY %main () -> f32[] {
  %a = f32[] constant(1)
  ROOT %b = f32[] $b^add(%a, %$missing[[mis$missing^sing]])
})");
  auto snap = Snap(a);
  std::optional<Hover> h = HoverAt(*snap, a.point("missing"));
  ASSERT_TRUE(h.has_value());
  EXPECT_EQ(h->markdown, "`missing` is not defined");
  EXPECT_EQ(Show(*h->range), Show(a.range("missing")));
  h = HoverAt(*snap, a.point("b"));
  ASSERT_TRUE(h.has_value());
  EXPECT_EQ(h->markdown,
            "**%b** = `add` (ROOT) in `%main`\n\n"
            "Shape: `f32[]`\n"
            "- elements: 1\n"
            "- bytes: 4\n"
            "\nOperands (2):\n"
            "- 0: `%a`: `f32[]`\n"
            "- 1: `%missing`: `(shape not written)` (undefined)\n"
            "\nUsers: 0\n");
}

TEST(HoverTest, FusionFromTheE2eFixture) {
  // Moved from features_test: bytes, users and sharding of basic.hlo's
  // %fusion, which also has a source file and line.
  auto snap = Snap(ReadFixture("basic.hlo"));
  size_t at = snap->text->find("%fusion =");
  ASSERT_NE(at, std::string::npos);
  std::optional<Hover> h =
      HoverAt(*snap, snap->ToPosition(static_cast<hlo::Offset>(at + 1)));
  ASSERT_TRUE(h.has_value());
  EXPECT_EQ(h->markdown,
            "**%fusion** = `fusion` in `%main`\n\n"
            "Shape: `f32[4]{0}`\n"
            "- elements: 4\n"
            "- bytes: 16\n"
            "\nOperands (2):\n"
            "- 0: `%input`: `f32[4]{0}`\n"
            "- 1: `%input`: `f32[4]{0}`\n"
            "\nUsers: 3\n"
            "\nSharding: `{replicated}`\n"
            "\nop_name: `jit(f)/mul`\n"
            "\nSource: `/tmp/hlo_lsp_e2e_model.py:12`\n");
}

}  // namespace
}  // namespace hlo_lsp
