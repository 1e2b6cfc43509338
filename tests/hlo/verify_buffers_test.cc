// hlo/verify_buffers.cc: buffer types b(...) after XLA's VerifyBuffers. Each
// rule has a module that breaks it and a near miss that must stay clean.
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
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

using verify_test::Findings;

// A buffer pinned from p0 and unpinned into the result; `middle` goes
// between, using `b`.
std::string PinUnpin(const std::string& middle, const std::string& last = "b") {
  return R"(HloModule m
ENTRY e {
  p0 = f32[4] parameter(0)
  b = b(f32[4]) custom-call(p0), custom_call_target="Pin",
    output_to_operand_aliasing={{}: (0, {})}
)" + middle +
         R"(
  ROOT r = f32[4] custom-call()" +
         last + R"(), custom_call_target="Unpin",
    output_to_operand_aliasing={{}: (0, {})}
})";
}

TEST(VerifyBuffersTest, PinThenUnpinIsClean) {
  EXPECT_THAT(Findings(PinUnpin("")), IsEmpty());
}

TEST(VerifyBuffersTest, EntryParameterCannotBeABuffer) {
  EXPECT_THAT(Findings(R"(HloModule m
ENTRY e {
  p = b(f32[4]) parameter(0)
  ROOT r = f32[4] custom-call(p), custom_call_target="Unpin",
    output_to_operand_aliasing={{}: (0, {})}
})"),
              ElementsAre("Seen buffers while buffers aren't allowed in this "
                          "context: p @ p"));
}

TEST(VerifyBuffersTest, ElementwiseOpsTakeArraysNotBuffers) {
  // XLA's shape check words it; the buffer rule names the context too.
  EXPECT_THAT(Findings(PinUnpin("  a = b(f32[4]) add(b, b)", "a")),
              ElementsAre("Expected array argument for lhs of binary operation "
                          "add, but got b(f32[4]). @ b(f32[4])",
                          "Seen buffers while buffers aren't allowed in this "
                          "context: a @ a"));
}

TEST(VerifyBuffersTest, BufferOperandMustBeAliased) {
  EXPECT_THAT(Findings(PinUnpin(
                  R"(  c = b(f32[4]) custom-call(b), custom_call_target="w",
    output_to_operand_aliasing={{}: (0, {})}
  d = f32[] custom-call(c), custom_call_target="read")",
                  "c")),
              UnorderedElementsAre(
                  "buffer is used in operands but not in results: operand 0 "
                  "ShapeIndex {} @ c",
                  // c then has two users that take it: the reader and Unpin.
                  "an HLO buffer value has more than one writers (or unpins): "
                  "'c' '{}' @ c"));
}

TEST(VerifyBuffersTest, BufferOperandAliasedOnce) {
  EXPECT_THAT(Findings(PinUnpin(R"(  c = (b(f32[4]), b(f32[4])) custom-call(b),
    custom_call_target="w",
    output_to_operand_aliasing={{0}: (0, {}), {1}: (0, {})})",
                                "b")),
              UnorderedElementsAre(
                  HasSubstr("buffer is used in results multiple times: "
                            "operand 0 ShapeIndex {} @ output_to_operand"),
                  HasSubstr("more than one writers")));
}

TEST(VerifyBuffersTest, BufferResultMustBeAliased) {
  EXPECT_THAT(
      Findings(PinUnpin(R"(  c = (b(f32[4]), b(f32[4])) custom-call(b),
    custom_call_target="w", output_to_operand_aliasing={{1}: (0, {})}
  c1 = b(f32[4]) get-tuple-element(c), index=1)",
                        "c1")),
      ElementsAre(HasSubstr("buffer is used in results but not in operands: "
                            "{0} @ output_to_operand_aliasing")));
}

TEST(VerifyBuffersTest, OneWriterPerBufferValue) {
  // b feeds two writers: straight line.
  EXPECT_THAT(Findings(PinUnpin(
                  R"(  c = b(f32[4]) custom-call(b), custom_call_target="w",
    output_to_operand_aliasing={{}: (0, {})})")),
              ElementsAre("an HLO buffer value has more than one writers (or "
                          "unpins): 'b' '{}' @ b"));
  // The near miss: a chain, each value written once.
  EXPECT_THAT(Findings(PinUnpin(
                  R"(  c = b(f32[4]) custom-call(b), custom_call_target="w",
    output_to_operand_aliasing={{}: (0, {})})",
                  "c")),
              IsEmpty());
}

TEST(VerifyBuffersTest, WhileBodyRootWritesWhatItReturns) {
  const std::string loop = R"(HloModule m
cond {
  p = (s32[], b(s32[2])) parameter(0)
  ROOT t = pred[] constant(true)
}
body {
  p = (s32[], b(s32[2])) parameter(0)
  n = s32[] get-tuple-element(p), index=0
  b1 = b(s32[2]) get-tuple-element(p), index=1
  b2 = b(s32[2]) custom-call(b1), custom_call_target="w",
    output_to_operand_aliasing={{}: (0, {})}
  ROOT r = (s32[], b(s32[2])) tuple(n, RESULT)
}
ENTRY e {
  c0 = s32[] constant(0)
  init = s32[2] broadcast(c0), dimensions={}
  b0 = b(s32[2]) custom-call(init), custom_call_target="Pin",
    output_to_operand_aliasing={{}: (0, {})}
  t = (s32[], b(s32[2])) tuple(c0, b0)
  w = (s32[], b(s32[2])) while(t), body=body, condition=cond
  b3 = b(s32[2]) get-tuple-element(w), index=1
  ROOT v = s32[2] custom-call(b3), custom_call_target="Unpin",
    output_to_operand_aliasing={{}: (0, {})}
})";
  auto with = [&](const std::string& result) {
    std::string text = loop;
    text.replace(text.find("RESULT"), 6, result);
    return text;
  };
  EXPECT_THAT(Findings(with("b2")), IsEmpty());
  // Returning b1 too: the next iteration writes it, and so does w.
  EXPECT_THAT(Findings(with("b1")),
              ElementsAre("an HLO buffer value has more than one writers (or "
                          "unpins): 'p' '{1}' @ p"));
}

TEST(VerifyBuffersTest, PinAndUnpinForms) {
  EXPECT_THAT(Findings(R"(HloModule m
ENTRY e {
  p0 = f32[4] parameter(0)
  a = b(f32[4]) custom-call(p0), custom_call_target="Pin"
  ROOT r = f32[4] custom-call(a), custom_call_target="Unpin"
})"),
              ElementsAre("custom-call to Pin must have one output-to-operand "
                          "aliasing @ a",
                          "custom-call to Unpin must have one "
                          "output-to-operand aliasing @ r"));
  EXPECT_THAT(Findings(R"(HloModule m
ENTRY e {
  p0 = f32[4] parameter(0)
  a = b(f32[8]) custom-call(p0), custom_call_target="Pin",
    output_to_operand_aliasing={{}: (0, {})}
  ROOT r = f32[8] custom-call(a), custom_call_target="Unpin",
    output_to_operand_aliasing={{}: (0, {})}
})"),
              // The aliasing shape check (XLA's shape verifier) sees it too.
              testing::Contains("custom-call to Pin must have the same shape "
                                "as the operand @ a"));
  EXPECT_THAT(Findings(R"(HloModule m
ENTRY e {
  p0 = f32[4] parameter(0)
  ROOT a = b(f32[4]) custom-call(p0), custom_call_target="CreateBuffer"
})"),
              ElementsAre("custom-call to CreateBuffer can't have an operand "
                          "@ (p0)"));
}

TEST(VerifyBuffersTest, PinLayoutOnlyWhenLayoutSensitive) {
  const std::string text = R"(HloModule m
ENTRY e {
  p0 = f32[4,2]{1,0} parameter(0)
  a = b(f32[4,2]{0,1}) custom-call(p0), custom_call_target="Pin",
    output_to_operand_aliasing={{}: (0, {})}
  ROOT r = f32[4,2]{0,1} custom-call(a), custom_call_target="Unpin",
    output_to_operand_aliasing={{}: (0, {})}
})";
  EXPECT_THAT(Findings(text), IsEmpty());
  EXPECT_THAT(Findings(text, VerifierOptions{.layout_sensitive = true}),
              testing::Contains(HasSubstr("must have the same shape")));
  // A scalar without a layout has the (empty) default one.
  EXPECT_THAT(Findings(R"(HloModule m
ENTRY e {
  p0 = f32[] parameter(0)
  a = b(f32[]) custom-call(p0), custom_call_target="Pin",
    output_to_operand_aliasing={{}: (0, {})}
  ROOT r = f32[] custom-call(a), custom_call_target="Unpin",
    output_to_operand_aliasing={{}: (0, {})}
})",
                       VerifierOptions{.layout_sensitive = true}),
              IsEmpty());
}

}  // namespace
}  // namespace hlo
