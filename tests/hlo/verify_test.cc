// hlo::Verify's own checks (hlo/verify_*.cc), one small module each: the
// finding, its words (close to XLA's) and the text it points at.
#include "hlo/verify.h"

#include <memory>
#include <string>
#include <vector>

#include "base/strings.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/parser.h"

namespace hlo {
namespace {

struct Result {
  std::string text;
  std::unique_ptr<ParsedFile> file;
  std::vector<Diagnostic> findings;
  // "message @ the text it points at" per finding.
  std::vector<std::string> Lines() const {
    std::vector<std::string> out;
    for (const Diagnostic& d : findings) {
      out.push_back(d.message + " @ " + std::string(file->Text(d.span)));
    }
    return out;
  }
};

// The text must outlive the ParsedFile: both live in the Result.
std::unique_ptr<Result> Check(std::string text) {
  auto r = std::make_unique<Result>();
  r->text = std::move(text);
  r->file = Parse(r->text);
  EXPECT_FALSE(r->file->HasErrors())
      << (r->file->diagnostics.empty() ? "" : r->file->diagnostics[0].message);
  r->findings = Verify(*r->file, VerifierOptions{});
  return r;
}

using ::testing::ElementsAre;

TEST(VerifyTest, EmptyTextIsAnError) {
  EXPECT_THAT(Check("")->Lines(),
              ElementsAre("expects an HLO module or instruction, the text is "
                          "empty @ "));
  EXPECT_EQ(Check("// only a comment\n")->findings.size(), 1u);
}

TEST(VerifyTest, BareInstructionIsValid) {
  // XLA's parser takes one instruction without a module.
  EXPECT_TRUE(Check("c = f32[] constant(1)")->findings.empty());
  // Its operands written with a shape are parameters there.
  EXPECT_TRUE(
      Check("ROOT a = f32[2] add(f32[2] x, f32[2] y)\n")->findings.empty());
  // One instruction only: a second one is outside any computation.
  std::string two = "a = f32[] constant(1)\nb = f32[] constant(2)\n";
  EXPECT_TRUE(Parse(two)->HasErrors());
}

TEST(VerifyTest, OperandCount) {
  auto r = Check(R"(HloModule m
ENTRY e {
  p = f32[] parameter(0)
  ROOT n = f32[] negate(p, p)
})");
  EXPECT_THAT(r->Lines(),
              ElementsAre("expects 1 operands, but has 2 operands @ (p, p)"));
}

TEST(VerifyTest, StartNeedsOneConsumer) {
  auto r = Check(R"(HloModule m
ENTRY e {
  p = f32[2] parameter(0)
  s = (f32[2], f32[2]) collective-permute-start(p), source_target_pairs={{0,1}}
  d0 = f32[2] collective-permute-done(s)
  d1 = f32[2] collective-permute-done(s)
  ROOT t = (f32[2], f32[2]) tuple(d0, d1)
})");
  EXPECT_THAT(r->Lines(),
              ElementsAre("The collective-permute-start instruction requires "
                          "one consumer, found 2 @ s"));
}

TEST(VerifyTest, DoneNeedsItsStart) {
  auto r = Check(R"(HloModule m
ENTRY e {
  p = f32[2] parameter(0)
  t = (f32[2], f32[2], u32[]) tuple(p, p, u32[] constant(0))
  ROOT d = f32[2] copy-done(t)
})");
  EXPECT_THAT(r->Lines(),
              ElementsAre("The operand of a copy-done instruction needs to be "
                          "copy-start, found tuple @ t"));
}

constexpr char kVerifyWhile[] = R"(HloModule m
cond {
  c = s32[] parameter(0)
  ROOT r = %s constant(0)
}
body {
  ROOT b = s32[] parameter(0)
}
ENTRY e {
  p = %s parameter(0)
  ROOT w = s32[] while(p), condition=cond, body=body
})";

std::string WhileModule(std::string cond_root, std::string init) {
  std::string text = kVerifyWhile;
  text.replace(text.find("%s"), 2, cond_root);
  text.replace(text.find("%s"), 2, init);
  return text;
}

TEST(VerifyTest, WhileConditionMustReturnPred) {
  EXPECT_TRUE(Check(WhileModule("pred[]", "s32[]"))->findings.empty());
  EXPECT_THAT(Check(WhileModule("s32[]", "s32[]"))->Lines(),
              ElementsAre("Conditional computation shape does not lead to a "
                          "scalar predicate shape: s32[] @ cond"));
}

TEST(VerifyTest, CallOperandsAgainstParameters) {
  auto r = Check(R"(HloModule m
f {
  a = f32[] parameter(0)
  ROOT b = f32[] parameter(1)
}
ENTRY e {
  p = f32[4] parameter(0)
  q = f32[] parameter(1)
  c = f32[] call(q, q, q), to_apply=f
  ROOT d = f32[] call(p, q), to_apply=f
})");
  EXPECT_THAT(r->Lines(),
              ElementsAre("Expected computation f called from c to have 3 "
                          "parameters, has 2 @ f",
                          "Operand 0 (f32[4]) shape does not match "
                          "parameter's (f32[]) in f @ p"));
}

TEST(VerifyTest, RootAgainstSignatureAndOperandShapes) {
  auto r = Check(R"(HloModule m
ENTRY e (p: f32[2]) -> f32[3] {
  p = f32[2] parameter(0)
  ROOT n = f32[2] negate(f32[5] p)
})");
  EXPECT_THAT(
      r->Lines(),
      ElementsAre("Shape of computation e, f32[3], is not compatible "
                  "with that of its root instruction n, f32[2] @ f32[3]",
                  "The declared operand shape f32[5] is not compatible "
                  "with the shape of the operand instruction f32[2]. "
                  "@ f32[5]"));
}

TEST(VerifyTest, InfeedAndConditionalIndex) {
  auto r = Check(R"(HloModule m
b {
  ROOT x = f32[] parameter(0)
}
ENTRY e {
  t = token[] after-all()
  i = f32[] infeed(t)
  k = f32[] constant(0)
  ROOT c = f32[] conditional(k, i), branch_computations={b}
})");
  EXPECT_THAT(r->Lines(),
              ElementsAre("infeed must have a non-empty tuple shape @ f32[]",
                          "The first operand must be a scalar of PRED or S32 "
                          "@ k"));
}

TEST(VerifyTest, AsyncChainRestatesItsStart) {
  auto r = Check(R"(HloModule m
w0 {
  ROOT a = f32[2] parameter(0)
}
w1 {
  ROOT b = f32[2] parameter(0)
}
ENTRY e {
  p = f32[2] parameter(0)
  s = ((f32[2]), f32[2], u32[]) async-start(p), calls=w0
  ROOT d = f32[2] async-done(s), calls=w1, async_execution_thread="x"
})");
  EXPECT_THAT(r->Lines(),
              ElementsAre("Expect async_execution_thread to be main, but got "
                          "x @ async_execution_thread=\"x\"",
                          "Expect async_wrapped_computation to be w0, but got "
                          "w1 @ w1"));
}

TEST(VerifyTest, AsyncStartShapes) {
  auto r = Check(R"(HloModule m
w {
  ROOT a = f32[2] parameter(0)
}
ENTRY e {
  p = f32[3] parameter(0)
  s = ((f32[2]), f32[4], u32[]) async-start(p), calls=w
  ROOT d = f32[4] async-done(s)
})");
  EXPECT_THAT(
      r->Lines(),
      ElementsAre("The async-start expects the shape of operand 0 to match the "
                  "async shape at index {0} (f32[3] vs f32[2]). @ p",
                  "The async-start expects the async shape at index {1} to "
                  "match the async computation root shape (f32[4] vs f32[2]). "
                  "@ w"));
}

TEST(VerifyTest, CollectivesAndComparisons) {
  auto r = Check(R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}
ENTRY e {
  p = f32[4] parameter(0)
  ar = f32[4] all-reduce(p), replica_groups={{0,1}}, use_global_device_ids=true, to_apply=add
  g = f32[4] all-reduce(p), replica_groups={{0,0}}, to_apply=add
  cp = f32[4] collective-permute(p), source_target_pairs={{0,1},{2,1}}
  ROOT lt = pred[4] compare(p, p), direction=LT, type=SIGNED
})");
  EXPECT_THAT(
      r->Lines(),
      ElementsAre("Cannot have use_global_device_ids=true without channel_id "
                  "@ use_global_device_ids=true",
                  "Replica 0 is repeated in instruction's replica-groups @ "
                  "replica_groups={{0,0}}",
                  "Expected comparison type FLOAT or TOTALORDER. actual: "
                  "SIGNED @ type=SIGNED",
                  "Target 1 appears more than once in instruction's "
                  "source-target pairs @ source_target_pairs={{0,1},{2,1}}"));
}

TEST(VerifyTest, CalledComputationsRunOnTheCallersThread) {
  auto r = Check(R"(HloModule m
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
})");
  EXPECT_THAT(r->Lines(),
              ElementsAre("Callable instruction w expects parent computation "
                          "thread name same as called computation's thread "
                          "name (main vs other). @ cond"));
}

TEST(VerifyTest, RngIotaAndMixedPrecision) {
  auto r = Check(R"(HloModule m
ENTRY e {
  a = s32[] constant(0)
  b = s32[] constant(1)
  rng = s32[10] rng(a, b), distribution=rng_normal
  iota = s32[4] iota(), iota_dimension=1
  x = f32[4] parameter(0)
  y = bf16[4] parameter(1)
  ROOT z = f32[4] add(x, y)
})");
  EXPECT_THAT(
      r->Lines(),
      ElementsAre("Element type not supported. Expected element to be "
                  "FloatingPointType for RngNormal @ distribution=rng_normal",
                  "The iota dimension cannot go beyond the operation rank or "
                  "be negative. @ iota_dimension=1"));
  // Without allow_mixed_precision, one precision per instruction.
  VerifierOptions strict;
  std::string bad;
  ASSERT_TRUE(ParseVerifierOptions("default", &strict, &bad));
  std::vector<std::string> messages;
  for (const Diagnostic& d : Verify(*r->file, strict)) {
    messages.push_back(d.message);
  }
  EXPECT_THAT(messages,
              ::testing::Contains("Seen floating point types of different "
                                  "precisions in z, but mixed precision is "
                                  "disallowed."));
}

TEST(VerifyTest, CopyStartShape) {
  auto r = Check(R"(HloModule m
ENTRY e {
  p = f32[2] parameter(0)
  s = f32[2] copy-start(p)
  ROOT d = f32[2] copy-done(s)
})");
  EXPECT_THAT(r->Lines(), ::testing::Contains(
                              "Expected instruction to have shape equal to "
                              "(f32[2], f32[2], u32[]), actual shape is f32[2] "
                              "@ f32[2]"));
}

TEST(VerifyTest, AliasingHeader) {
  const std::string body = R"(
ENTRY e {
  ROOT p = (f32[], f32[]) parameter(0)
})";
  EXPECT_TRUE(Check("HloModule m, input_output_alias={ {0}: (0, {0}, "
                    "may-alias), {1}: (0, {1}) }, buffer_donor={ (0, {0}) }" +
                    body)
                  ->findings.empty());
  EXPECT_THAT(
      Check("HloModule m, input_output_alias={ {0, a}: (0, {0}) }" + body)
          ->Lines(),
      ElementsAre("expects integer @ a"));
  EXPECT_THAT(
      Check("HloModule m, buffer_donor={ (0, {0}) (0, {1}) }" + body)->Lines(),
      ElementsAre("Expects '}' at the end of buffer donor description @ ("));
}

TEST(VerifyTest, ResultAccuracy) {
  auto r = Check(R"(HloModule m
ENTRY e {
  p = f32[] parameter(0)
  a = f32[] exponential(p), result_accuracy={mode=highest}
  b = f32[] exponential(p), result_accuracy={tolerance={rtol=0.5, atol=1.0, ulps=2}}
  c = f32[] exponential(p), result_accuracy={mode=high}
  ROOT d = f32[] negate(p), result_accuracy={mode=highest}
})");
  EXPECT_THAT(
      r->Lines(),
      ElementsAre(
          "expects ResultAccuracy type but sees: high @ "
          "result_accuracy={mode=high}",
          "unexpected attribute \"result_accuracy\" @ result_accuracy"));
}

TEST(VerifyTest, CustomCallConstraintsAndApiVersion) {
  auto r = Check(R"(HloModule m
ENTRY e {
  p = f32[2]{0} parameter(0)
  q = f32[3]{0} parameter(1)
  c = f32[2]{0} custom-call(p, q), custom_call_target="x", operand_layout_constraints={f32[2]{0}}
  ROOT d = f32[2]{0} custom-call(p), custom_call_target="y", api_version=API_VERSION_UNSPECIFIED
})");
  // Old dumps print API_VERSION_UNSPECIFIED: only today's rules reject it.
  EXPECT_THAT(r->Lines(),
              ElementsAre("Expected 2 operand layout constraints, 1 given @ "
                          "operand_layout_constraints={f32[2]{0}}"));
  VerifierOptions today;
  std::string bad;
  ASSERT_TRUE(ParseVerifierOptions("default", &today, &bad));
  EXPECT_EQ(Verify(*r->file, today).size(), 2u);
}

TEST(VerifyTest, BroadcastNeedsDimensionsUnlessScalar) {
  auto r = Check(R"(HloModule m
ENTRY e {
  s = f32[] parameter(0)
  v = f32[3] parameter(1)
  a = f32[2,3] broadcast(s)
  ROOT b = f32[2,3] broadcast(v)
})");
  EXPECT_THAT(r->Lines(),
              ElementsAre("attribute dimensions is expected but not seen @ "
                          "broadcast"));
}

// Shapes are interned by text: the table's span is a shape's first place
// in the file (here, the signature). Findings on an instruction's or an
// operand's own shape point at that copy, on its line.
TEST(VerifyTest, ShapeFindingsPointAtTheirOwnLineNotTheFirstSameText) {
  const std::string text = R"(HloModule m

ENTRY %e (p: f32[4], q: f32[5], x: f32[2,3]) -> f32[4,3] {
  %p = f32[4] parameter(0)
  %q = f32[5] parameter(1)
  %x = f32[2,3] parameter(2)
  %n = f32[4] negate(f32[5] %p)
  ROOT %g = f32[4,3] all-gather(%x), replica_groups={{0,1,2,3}}, dimensions={0}
}
)";
  std::unique_ptr<ParsedFile> file = Parse(text);
  ASSERT_FALSE(file->HasErrors()) << file->diagnostics[0].message;
  std::vector<std::string> found;
  for (const Diagnostic& d : Verify(*file, {})) {
    found.push_back(base::Cat(file->lines().ToLineColumn(d.span.begin).line,
                              ": ", file->Text(d.span), ": ",
                              d.message.substr(0, 26)));
  }
  EXPECT_THAT(found, ::testing::UnorderedElementsAre(
                         "6: f32[5]: The declared operand shape",
                         "7: f32[4,3]: shard_count = 2, subgroup_"));

  // A computation's result against its root: at its own signature.
  std::unique_ptr<ParsedFile> roots = Parse(R"(HloModule m

%c (a: f32[3]) -> f32[3] {
  ROOT %a = f32[3] parameter(0)
}

ENTRY %e (x: f32[2]) -> f32[3] {
  ROOT %x = f32[2] parameter(0)
}
)");
  ASSERT_FALSE(roots->HasErrors()) << roots->diagnostics[0].message;
  found.clear();
  for (const Diagnostic& d : Verify(*roots, {})) {
    found.push_back(base::Cat(roots->lines().ToLineColumn(d.span.begin).line,
                              ":",
                              roots->lines().ToLineColumn(d.span.begin).column,
                              ": ", roots->Text(d.span)));
  }
  EXPECT_THAT(found, ElementsAre("6:24: f32[3]"));
}

}  // namespace
}  // namespace hlo
