// hlo/verify_custom_call_aliasing.cc: a custom-call's
// output_to_operand_aliasing names valid parts with equal shapes. Each rule
// has a module that breaks it and a near miss that must stay clean.
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/parser.h"
#include "hlo/verify.h"
#include "tests/hlo/verify_findings.h"

namespace hlo {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

using verify_test::Findings;

// One custom-call from p (of `operand` shape) to `result`, aliased by
// `alias`.
std::string Call(const std::string& operand, const std::string& result,
                 const std::string& alias, const std::string& extra = "") {
  return "HloModule m\nENTRY e {\n  p = " + operand +
         " parameter(0)\n  ROOT c = " + result +
         " custom-call(p), custom_call_target=\"f\", "
         "output_to_operand_aliasing={" +
         alias + "}" + extra + "\n}";
}

TEST(VerifyCustomCallAliasingTest, AliasedPartsHaveEqualShapes) {
  EXPECT_THAT(Findings(Call("f32[4]", "(f32[4], s32[])", "{0}: (0, {})")),
              IsEmpty());
  EXPECT_THAT(Findings(Call("s32[4]", "(f32[4], s32[])", "{0}: (0, {})")),
              ElementsAre("Different aliasing shapes: s32[4] vs f32[4] @ "
                          "output_to_operand_aliasing={{0}: (0, {})}"));
  // XLA's escape hatch.
  EXPECT_THAT(Findings(Call("s32[4]", "(f32[4], s32[])", "{0}: (0, {})",
                            ", frontend_attributes={"
                            "xla_skip_custom_call_alias_shape_check=\"\"}")),
              IsEmpty());
}

TEST(VerifyCustomCallAliasingTest, LayoutsCountOnlyWhenLayoutSensitive) {
  const std::string text =
      Call("f32[4,2]{1,0}", "f32[4,2]{0,1}", "{}: (0, {})");
  EXPECT_THAT(Findings(text), IsEmpty());
  EXPECT_THAT(Findings(text, VerifierOptions{.layout_sensitive = true}),
              ElementsAre("Different aliasing shapes: f32[4,2]{1,0} vs "
                          "f32[4,2]{0,1} @ output_to_operand_aliasing={{}: "
                          "(0, {})}"));
  // No layout written is XLA's default one, scalars' included.
  EXPECT_THAT(Findings(Call("f32[4,2]", "f32[4,2]{1,0}", "{}: (0, {})"),
                       VerifierOptions{.layout_sensitive = true}),
              IsEmpty());
  EXPECT_THAT(Findings(Call("f32[]", "f32[]", "{}: (0, {})"),
                       VerifierOptions{.layout_sensitive = true}),
              IsEmpty());
}

TEST(VerifyCustomCallAliasingTest, IndicesMustExist) {
  EXPECT_THAT(Findings(Call("f32[4]", "f32[4]", "{}: (1, {})")),
              ElementsAre(testing::StartsWith(
                  "Invalid aliasing operand index. @ output_to")));
  EXPECT_THAT(Findings(Call("f32[4]", "f32[4]", "{}: (0, {0})")),
              ElementsAre(testing::StartsWith(
                  "Invalid aliasing operand shape index. @ output_to")));
  EXPECT_THAT(Findings(Call("f32[4]", "f32[4]", "{1}: (0, {})")),
              ElementsAre(testing::StartsWith(
                  "Invalid aliasing output shape index. @ output_to")));
}

TEST(VerifyCustomCallAliasingTest, ABufferInferredThroughATupleKeepsItsShape) {
  // g has no written shape: it is inferred as b(s32[2]) from p, and must
  // then equal the aliased result.
  EXPECT_THAT(Findings(R"(HloModule m
body {
  p = (s32[], b(s32[2])) parameter(0)
  g = get-tuple-element(p), index=1
  ROOT c = b(s32[2]) custom-call(g), custom_call_target="f",
    output_to_operand_aliasing={{}: (0, {})}
}
ENTRY e {
  ROOT z = s32[] constant(0)
})"),
              IsEmpty());
}

}  // namespace
}  // namespace hlo
