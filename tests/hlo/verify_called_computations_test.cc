// Computations called by a fusion or an async-start (hlo/verify_calls.cc's
// fused parameter count, hlo/verify_async_computations.cc), each rule with
// a near miss that must stay clean.
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

TEST(VerifyCalledComputationsTest, FusionPassesEveryParameter) {
  auto module = [](const std::string& operands) {
    return R"(HloModule m
fused {
  p0 = f32[10] parameter(0)
  p1 = f32[10] parameter(1)
  ROOT s = f32[10] add(p0, p1)
}
ENTRY e {
  a = f32[10] parameter(0)
  ROOT f = f32[10] fusion()" +
           operands + R"(), kind=kLoop, calls=fused
})";
  };
  EXPECT_THAT(Findings(module("a, a")), IsEmpty());
  EXPECT_THAT(Findings(module("a")),
              ElementsAre("Fused parameter count (2) is greater than the "
                          "number of operands (1) passed to the fusion "
                          "instruction in: f. @ fused"));
}

std::string Async(const std::string& body) {
  return R"(HloModule m
wrapped {
  p = f32[4] parameter(0)
)" + body +
         R"(
}
ENTRY e {
  a = f32[4] parameter(0)
  s = ((f32[4]), f32[4], u32[]) async-start(a), calls=wrapped
  ROOT d = f32[4] async-done(s)
})";
}

TEST(VerifyCalledComputationsTest, AsyncComputationHoldsOneOp) {
  EXPECT_THAT(Findings(Async("  ROOT n = f32[4] negate(p)")), IsEmpty());
  EXPECT_THAT(
      Findings(Async("  c = f32[4] copy(p)\n  ROOT n = f32[4] negate(c)")),
      ElementsAre("Asynchronous computation wrapped expected to contain only "
                  "the root and parameter instructions. @ wrapped"));
}

TEST(VerifyCalledComputationsTest, SugaredStartCallsAnyComputation) {
  // call-start's to_apply is the call's computation, not an async one.
  EXPECT_THAT(Findings(R"(HloModule m
f {
  p = f32[4] parameter(0)
  c = f32[4] copy(p)
  ROOT n = f32[4] negate(c)
}
ENTRY e {
  a = f32[4] parameter(0)
  s = ((f32[4]), f32[4], u32[]) call-start(a), to_apply=f
  ROOT d = f32[4] call-done(s)
})"),
              IsEmpty());
}

}  // namespace
}  // namespace hlo
