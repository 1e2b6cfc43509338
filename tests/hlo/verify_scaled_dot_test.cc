// hlo/verify_scaled_dot.cc: scaled-dot's scales against its operands, each
// rule with a near miss that must stay clean.
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/parser.h"
#include "hlo/verify.h"

namespace hlo {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

// scaled-dot of a (2x10) by b (10x2) with scales of the given shapes.
std::vector<std::string> VerifyScaledDotFindings(
    const std::string& type, const std::string& a_scale,
    const std::string& b_scale, const std::string& contracting = "{1}") {
  const std::string text = "HloModule m\nENTRY e {\n  a = " + type +
                           "[2,10] parameter(0)\n  b = " + type +
                           "[10,2] parameter(1)\n  sa = " + a_scale +
                           " parameter(2)\n  sb = " + b_scale +
                           " parameter(3)\n  ROOT d = f32[2,2] scaled-dot(a, "
                           "b, sa, sb), lhs_contracting_dims=" +
                           contracting + ", rhs_contracting_dims={0}\n}";
  std::unique_ptr<ParsedFile> file = Parse(text);
  EXPECT_FALSE(file->HasErrors()) << file->diagnostics[0].message;
  std::vector<std::string> out;
  for (const Diagnostic& d : Verify(*file)) {
    out.push_back(d.message + " @ " + std::string(file->Text(d.span)));
  }
  return out;
}

TEST(VerifyScaledDotTest, ScaleRank) {
  EXPECT_THAT(VerifyScaledDotFindings("f32", "f32[2,2]", "f32[2,2]"),
              IsEmpty());
  EXPECT_THAT(VerifyScaledDotFindings("f32", "f32[2,2,2]", "f32[2,2]"),
              ElementsAre("Scale operand sa has a different number of "
                          "dimensions than operand a in d @ sa"));
}

TEST(VerifyScaledDotTest, ScaleDividesOperand) {
  EXPECT_THAT(VerifyScaledDotFindings("f32", "f32[2,5]", "f32[5,2]"),
              IsEmpty());
  EXPECT_THAT(VerifyScaledDotFindings("f32", "f32[2,6]", "f32[6,2]"),
              ElementsAre("Dimension 1 of operand a should be a multiple of "
                          "dimension 1 of scale operand sa in d @ sa"));
}

TEST(VerifyScaledDotTest, OneContractingDimension) {
  EXPECT_THAT(VerifyScaledDotFindings("f32", "f32[2,2]", "f32[2,2]", "{0,1}"),
              ElementsAre("Contracting dimensions must have exactly one "
                          "dimension in instruction d @ "
                          "lhs_contracting_dims={0,1}"));
}

TEST(VerifyScaledDotTest, NotBothScalesNoOps) {
  // bf16 scalars are no-op scales: one is fine, both are not.
  EXPECT_THAT(VerifyScaledDotFindings("bf16", "bf16[]", "bf16[5,2]"),
              IsEmpty());
  EXPECT_THAT(VerifyScaledDotFindings("bf16", "bf16[]", "bf16[]"),
              ElementsAre("At least one of the scales should be not a scalar "
                          "in d @ (a, b, sa, sb)"));
}

}  // namespace
}  // namespace hlo
