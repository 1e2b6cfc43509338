// Related locations (Diagnostic::related, LSP's relatedInformation): each
// rule that has another side names it, and points at the right text.
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

// "message @ its text -> related message @ related text" per related
// location of every finding (parser diagnostics first, then the verifier's).
std::vector<std::string> Related(const std::string& text) {
  std::unique_ptr<ParsedFile> file = Parse(text);
  std::vector<Diagnostic> all = file->diagnostics;
  if (!file->HasErrors()) {
    std::vector<Diagnostic> found = Verify(*file, VerifierOptions{});
    all.insert(all.end(), found.begin(), found.end());
  }
  std::vector<std::string> out;
  for (const Diagnostic& d : all) {
    for (const RelatedSpan& r : d.related) {
      out.push_back(d.message + " @ " + std::string(file->Text(d.span)) +
                    " -> " + r.message + " @ " +
                    std::string(file->Text(r.span)));
    }
  }
  return out;
}

TEST(VerifyRelatedTest, RedefinedInstructionPointsAtTheFirst) {
  EXPECT_THAT(Related(R"(HloModule m
ENTRY e {
  first = f32[] parameter(0)
  first = f32[] negate(first)
  ROOT r = f32[] negate(first)
})"),
              ElementsAre("redefinition of 'first' @ first -> first defined "
                          "here @ first"));
  // The related range is the first definition, not the second.
  const std::string text =
      "HloModule m\nENTRY e {\n  a = f32[] parameter(0)\n  a = f32[] "
      "negate(a)\n  ROOT r = f32[] negate(a)\n}\n";
  std::unique_ptr<ParsedFile> file = Parse(text);
  ASSERT_EQ(file->diagnostics.size(), 1u);
  ASSERT_EQ(file->diagnostics[0].related.size(), 1u);
  EXPECT_EQ(file->diagnostics[0].related[0].span.begin, text.find("a ="));
  EXPECT_EQ(file->diagnostics[0].span.begin, text.rfind("a ="));
}

TEST(VerifyRelatedTest, RedefinedComputationPointsAtTheFirst) {
  const std::string text = R"(HloModule m
f {
  ROOT a = f32[] parameter(0)
}
f {
  ROOT b = f32[] parameter(0)
}
ENTRY e {
  ROOT p = f32[] parameter(0)
})";
  std::unique_ptr<ParsedFile> file = Parse(text);
  ASSERT_FALSE(file->diagnostics.empty());
  const Diagnostic& d = file->diagnostics[0];
  EXPECT_EQ(d.message, "redefinition of computation 'f'");
  EXPECT_EQ(d.span.begin, text.find("f {", text.find("f {") + 1));
  ASSERT_EQ(d.related.size(), 1u);
  EXPECT_EQ(d.related[0].span.begin, text.find("f {"));
}

TEST(VerifyRelatedTest, StartWithTwoConsumersNamesBoth) {
  EXPECT_THAT(
      Related(R"(HloModule m
ENTRY e {
  p = f32[2] parameter(0)
  s = (f32[2], f32[2]) collective-permute-start(p), source_target_pairs={{0,1}}
  d0 = f32[2] collective-permute-done(s)
  d1 = f32[2] collective-permute-done(s)
  ROOT t = (f32[2], f32[2]) tuple(d0, d1)
})"),
      ElementsAre("The collective-permute-start instruction requires one "
                  "consumer, found 2 @ s -> a consumer @ d0",
                  "The collective-permute-start instruction requires one "
                  "consumer, found 2 @ s -> a consumer @ d1"));
}

TEST(VerifyRelatedTest, StartWithTheWrongConsumerNamesIt) {
  EXPECT_THAT(Related(R"(HloModule m
ENTRY e {
  p = f32[2] parameter(0)
  s = (f32[2], f32[2], u32[]) copy-start(p)
  ROOT t = ((f32[2], f32[2], u32[])) tuple(s)
})"),
              ElementsAre("The consumer of a copy-start instruction needs to "
                          "be one of (copy-done), found tuple @ s -> the "
                          "consumer @ t"));
}

TEST(VerifyRelatedTest, DoneWithoutItsStartPointsAtTheOperand) {
  EXPECT_THAT(Related(R"(HloModule m
ENTRY e {
  p = f32[2] parameter(0)
  t = (f32[2], f32[2], u32[]) tuple(p, p, u32[] constant(0))
  ROOT d = f32[2] copy-done(t)
})"),
              ElementsAre("The operand of a copy-done instruction needs to be "
                          "copy-start, found tuple @ t -> the operand's "
                          "definition @ t"));
}

TEST(VerifyRelatedTest, CallSitePointsAtComputationAndParameter) {
  EXPECT_THAT(Related(R"(HloModule m
f {
  a = f32[] parameter(0)
  ROOT b = f32[] parameter(1)
}
ENTRY e {
  p = f32[4] parameter(0)
  q = f32[] parameter(1)
  c = f32[] call(q, q, q), to_apply=f
  ROOT d = f32[] call(p, q), to_apply=f
})"),
              ElementsAre("Expected computation f called from c to have 3 "
                          "parameters, has 2 @ f -> the called computation @ f",
                          "Operand 0 (f32[4]) shape does not match parameter's "
                          "(f32[]) in f @ p -> parameter 0 of f @ a"));
}

TEST(VerifyRelatedTest, WhileBodyAndConditionPointAtTheirParts) {
  EXPECT_THAT(Related(R"(HloModule m
cond {
  c = s32[] parameter(0)
  ROOT r = s32[] constant(0)
}
body {
  ROOT b = f32[] parameter(0)
}
ENTRY e {
  p = s32[] parameter(0)
  ROOT w = s32[] while(p), condition=cond, body=body
})"),
              ::testing::IsSupersetOf(
                  {"Operand 0 (s32[]) shape does not match parameter's "
                   "(f32[]) in body @ p -> parameter 0 of body @ b",
                   "Conditional computation shape does not lead to a scalar "
                   "predicate shape: s32[] @ cond -> the condition's root @ "
                   "r"}));
}

TEST(VerifyRelatedTest, ConditionalBranchPointsAtItsParameter) {
  EXPECT_THAT(Related(R"(HloModule m
b0 {
  ROOT x = f32[] parameter(0)
}
b1 {
  ROOT y = s32[] parameter(0)
}
ENTRY e {
  k = s32[] parameter(0)
  a = f32[] parameter(1)
  ROOT c = f32[] conditional(k, a, a), branch_computations={b0, b1}
})"),
              ::testing::Contains("Operand 2 (f32[]) shape does not match "
                                  "parameter's (s32[]) in b1 @ a -> parameter "
                                  "0 of b1 @ y"));
}

TEST(VerifyRelatedTest, RootAndWrittenOperandShapesPointAtTheirDefinitions) {
  EXPECT_THAT(
      Related(R"(HloModule m
ENTRY e (p: f32[2]) -> f32[3] {
  p = f32[2] parameter(0)
  ROOT n = f32[2] negate(f32[5] p)
})"),
      ElementsAre("Shape of computation e, f32[3], is not compatible with "
                  "that of its root instruction n, f32[2] @ f32[3] -> the "
                  "root instruction @ n",
                  "The declared operand shape f32[5] is not compatible with "
                  "the shape of the operand instruction f32[2]. @ f32[5] -> "
                  "the operand's definition @ p"));
}

TEST(VerifyRelatedTest, ThreadMismatchPointsAtTheComputation) {
  EXPECT_THAT(Related(R"(HloModule m
cond {
  a = s32[] parameter(0)
  ROOT c = pred[] constant(true)
}, execution_thread="other"
body {
  ROOT b = s32[] parameter(0)
}
ENTRY e {
  p = s32[] parameter(0)
  ROOT w = s32[] while(p), condition=cond, body=body
})"),
              ElementsAre("Callable instruction w expects parent computation "
                          "thread name same as called computation's thread "
                          "name (main vs other). @ cond -> the called "
                          "computation @ cond"));
}

TEST(VerifyRelatedTest, FindingsWithoutAnotherSideHaveNone) {
  EXPECT_THAT(Related(R"(HloModule m
ENTRY e {
  p = f32[] parameter(0)
  ROOT n = f32[] negate(p, p)
})"),
              IsEmpty());
}

}  // namespace
}  // namespace hlo
