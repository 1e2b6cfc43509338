// hlo/verify_custom_call.cc: each operand_layout_constraints shape fits its
// operand but for the layout.
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

std::vector<std::string> CustomCallFindings(const std::string& constraints) {
  const std::string text = R"(HloModule m
ENTRY e {
  p0 = f32[42,2,3]{0,1,2} parameter(0)
  p1 = f32[123,4]{0,1} parameter(1)
  ROOT c = f32[1,2,3]{0,1,2} custom-call(p0, p1), custom_call_target="baz", operand_layout_constraints=)" +
                           constraints + "\n}";
  std::unique_ptr<ParsedFile> file = Parse(text);
  EXPECT_FALSE(file->HasErrors()) << file->diagnostics[0].message;
  std::vector<std::string> out;
  for (const Diagnostic& d : Verify(*file)) {
    out.push_back(d.message);
  }
  return out;
}

TEST(VerifyCustomCallTest, ConstraintsFitOperands) {
  // Another layout is what a constraint is for.
  EXPECT_THAT(CustomCallFindings("{f32[42,2,3]{2,1,0}, f32[123,4]{1,0}}"),
              IsEmpty());
  EXPECT_THAT(CustomCallFindings("{f32[42,2,3]{0,1,2}, f32[555,5]{1,0}}"),
              ElementsAre("Operand layout constraint shape f32[555,5]{1,0} "
                          "for operand 1 is not compatible with operand "
                          "shape f32[123,4]{0,1}"));
  EXPECT_THAT(CustomCallFindings("{s32[42,2,3]{0,1,2}, f32[123,4]{1,0}}"),
              ElementsAre("Operand layout constraint shape s32[42,2,3]{0,1,2} "
                          "for operand 0 is not compatible with operand "
                          "shape f32[42,2,3]{0,1,2}"));
}

}  // namespace
}  // namespace hlo
