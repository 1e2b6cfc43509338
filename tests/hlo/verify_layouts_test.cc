// The layout-sensitive and opt-in verifier rules (hlo/verify_layouts.cc,
// verify_entry_layout.cc, verify_opt_in.cc, verify_original_value.cc): each
// rule on a small module that breaks it, and a near miss that must stay
// clean; layout rules only under --verify=layout_sensitive.
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/layout_shape.h"
#include "hlo/parser.h"
#include "hlo/verify.h"
#include "tests/hlo/verify_findings.h"

namespace hlo {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

std::vector<std::string> LayoutFindings(const std::string& text,
                                        std::string_view options) {
  VerifierOptions o;
  std::string bad;
  EXPECT_TRUE(ParseVerifierOptions(options, &o, &bad)) << bad;
  return verify_test::Findings(text, o);
}

std::string VerifyLayoutsEntry(const std::string& body,
                               const std::string& header = "") {
  return "HloModule m" + header + "\n\nENTRY e {\n" + body + "}\n";
}

TEST(VerifyLayoutsTest, ElementwiseOpsKeepTheirOperandsLayout) {
  const std::string bad = VerifyLayoutsEntry(
      "  a = f32[3,5]{0,1} parameter(0)\n"
      "  b = f32[3,3]{1,0} parameter(1)\n"
      "  ROOT c = f32[3,8]{1,0} concatenate(a, b), dimensions={1}\n");
  EXPECT_THAT(LayoutFindings(bad, "layout_sensitive"),
              ElementsAre("Instruction shouldn't change layouts c From "
                          "f32[3,8]{1,0} To f32[3,5]{0,1} @ f32[3,8]{1,0}"));
  EXPECT_THAT(LayoutFindings(bad, "default"), IsEmpty());
  // Tiles and memory spaces may differ; a transpose may change the layout.
  EXPECT_THAT(
      LayoutFindings(
          VerifyLayoutsEntry("  a = f32[8,128]{1,0:T(8,128)S(1)} parameter(0)\n"
                             "  n = f32[8,128]{1,0} negate(a)\n"
                             "  ROOT t = f32[128,8]{0,1} transpose(n), "
                             "dimensions={1,0}\n"),
          "layout_sensitive"),
      IsEmpty());
}

TEST(VerifyLayoutsTest, DynamicSliceMayNotMoveDeviceDataToHost) {
  const std::string slice =
      "  i = s32[] parameter(1)\n"
      "  ROOT s = f32[1,8]{1,0%s} dynamic-slice(p, i, i), "
      "dynamic_slice_sizes={1,8}\n";
  auto module = [&](const std::string& from, const std::string& to) {
    std::string body = "  p = f32[4,8]{1,0" + from + "} parameter(0)\n" + slice;
    body.replace(body.find("%s"), 2, to);
    return VerifyLayoutsEntry(body);
  };
  EXPECT_THAT(LayoutFindings(module("", ":S(5)"), "layout_sensitive"),
              ElementsAre(HasSubstr("DynamicSlice instruction shouldn't "
                                    "change layout memory space from device "
                                    "to host: s")));
  EXPECT_THAT(LayoutFindings(module(":S(5)", ""), "layout_sensitive"),
              IsEmpty());
}

TEST(VerifyLayoutsTest, BitcastKeepsTheByteSize) {
  EXPECT_THAT(
      LayoutFindings(VerifyLayoutsEntry("  p = f32[2] parameter(0)\n"
                                        "  ROOT b = f32[3] bitcast(p)\n"),
                     "layout_sensitive"),
      ElementsAre("b: Bitcast cannot have different shape sizes of output "
                  "(12) and operand (8) (f32[3]{0}) (f32[2]{0}) @ f32[3]"));
  EXPECT_THAT(
      LayoutFindings(VerifyLayoutsEntry("  p = f32[2,3]{0,1} parameter(0)\n"
                                        "  ROOT b = s32[6] bitcast(p)\n"),
                     "layout_sensitive"),
      IsEmpty());
}

TEST(VerifyLayoutsTest, CopyDoneHasTheCopysLayout) {
  auto module = [](const std::string& done_layout) {
    return VerifyLayoutsEntry(
        "  p = f32[2,3]{1,0:S(1)} parameter(0)\n"
        "  cs = (f32[2,3]{0,1:S(2)}, f32[2,3]{1,0:S(1)}, u32[]) "
        "copy-start(p)\n"
        "  ROOT cd = f32[2,3]" +
        done_layout + " copy-done(cs)\n");
  };
  EXPECT_THAT(LayoutFindings(module("{1,0:S(2)}"), "layout_sensitive"),
              testing::Contains(
                  "Expected instruction to have shape equal to "
                  "f32[2,3]{0,1:S(2)}, actual shape is f32[2,3]{1,0:S(2)} @ "
                  "f32[2,3]{1,0:S(2)}"));
  // copy-start compares minor_to_major only: its memory spaces are free.
  EXPECT_THAT(LayoutFindings(
                  VerifyLayoutsEntry(
                      "  p = f32[2,3]{1,0:S(1)} parameter(0)\n"
                      "  cs = (f32[2,3]{1,0:S(2)}, f32[2,3]{1,0:S(1)}, u32[]) "
                      "copy-start(p)\n"
                      "  ROOT cd = f32[2,3]{1,0:S(2)} copy-done(cs)\n"),
                  "layout_sensitive"),
              IsEmpty());
}

TEST(VerifyLayoutsTest, CallsHaveTheirRootsLayout) {
  auto module = [](const std::string& call_layout) {
    return "HloModule m\n\nf {\n  a = f32[2,3]{1,0} parameter(0)\n  ROOT n = "
           "f32[2,3]{0,1} copy(a)\n}\n\nENTRY e {\n  x = f32[2,3]{1,0} "
           "parameter(0)\n  ROOT c = f32[2,3]" +
           call_layout + " call(x), to_apply=f\n}\n";
  };
  EXPECT_THAT(LayoutFindings(module("{1,0}"), "layout_sensitive"),
              ElementsAre("Expected instruction to have shape equal to "
                          "f32[2,3]{0,1}, actual shape is f32[2,3]{1,0} @ "
                          "f32[2,3]{1,0}"));
  EXPECT_THAT(LayoutFindings(module("{0,1}"), "layout_sensitive"), IsEmpty());
  EXPECT_THAT(LayoutFindings(module("{1,0}"), "default"), IsEmpty());
}

TEST(VerifyLayoutsTest, HostCopiesKeepLayoutAndType) {
  const std::string from_host = "  p = f32[4,8]{1,0:S(5)} parameter(0)\n";
  EXPECT_THAT(
      LayoutFindings(
          VerifyLayoutsEntry(from_host + "  ROOT c = f32[4,8]{0,1} copy(p)\n"),
          "layout_sensitive,allow_mixed_precision"),
      ElementsAre("Expected instruction to have shape equal to "
                  "f32[4,8]{1,0:S(5)}, actual shape is f32[4,8]{0,1} "
                  "@ f32[4,8]{0,1}"));
  EXPECT_THAT(
      LayoutFindings(
          VerifyLayoutsEntry(from_host + "  ROOT c = bf16[4,8]{1,0} copy(p)\n"),
          "layout_sensitive,allow_mixed_precision"),
      ElementsAre(HasSubstr("Expected instruction to have shape equal to")));
  // A copy into host memory may transpose; device copies may too.
  EXPECT_THAT(
      LayoutFindings(VerifyLayoutsEntry("  p = f32[4,8]{1,0} parameter(0)\n"
                                        "  h = f32[4,8]{0,1:S(5)} copy(p)\n"
                                        "  ROOT c = f32[4,8]{1,0} copy(p)\n"),
                     "layout_sensitive,allow_mixed_precision"),
      IsEmpty());
}

TEST(VerifyLayoutsTest, DynamicUpdateSliceKeepsItsElementType) {
  const std::string dus = VerifyLayoutsEntry(
      "  p = f32[4,8] parameter(0)\n"
      "  u = bf16[1,8] parameter(1)\n"
      "  i = s32[] parameter(2)\n"
      "  ROOT d = bf16[4,8] dynamic-update-slice(p, u, i, i)\n");
  EXPECT_THAT(LayoutFindings(dus, "allow_mixed_precision"),
              ElementsAre("Expected instruction to have shape equal to "
                          "f32[4,8], actual shape is bf16[4,8] @ bf16[4,8]"));
  // Other ops may still change the precision there.
  EXPECT_THAT(
      LayoutFindings(VerifyLayoutsEntry("  p = f32[4,8] parameter(0)\n"
                                        "  ROOT n = bf16[4,8] negate(p)\n"),
                     "allow_mixed_precision"),
      IsEmpty());
}

TEST(VerifyLayoutsTest, EntryLayoutMatchesTheEntry) {
  const std::string body =
      "  x = f32[4,4]{1,0} parameter(0)\n"
      "  ROOT n = f32[4,4]{0,1} negate(x)\n";
  EXPECT_THAT(
      LayoutFindings(
          VerifyLayoutsEntry(body,
                             ", entry_computation_layout={(f32[4,4]{1,0})->"
                             "f32[4,4]{1,0}}"),
          "layout_sensitive"),
      testing::Contains(HasSubstr(
          "Shape of the root instruction of entry computation "
          "(f32[4,4]{0,1}) should be compatible to one specified in module's "
          "entry computation layout (f32[4,4]{1,0})")));
  EXPECT_THAT(LayoutFindings(VerifyLayoutsEntry(
                                 body,
                                 ", entry_computation_layout={(f32[4,4]{0,1})->"
                                 "f32[4,4]{0,1}}"),
                             "layout_sensitive"),
              testing::Contains(
                  "Shape of the entry computation parameter 0 is f32[4,4]{1,0} "
                  "should be compatible to the one specified in module's entry "
                  "computation layout f32[4,4]{0,1} @ f32[4,4]{1,0}"));
  // Tiles and memory spaces are left out of that comparison.
  EXPECT_THAT(
      LayoutFindings(
          VerifyLayoutsEntry("  x = f32[8,128]{1,0:T(8,128)} parameter(0)\n"
                             "  ROOT c = f32[8,128]{1,0} copy(x)\n",
                             ", entry_computation_layout={(f32[8,128]{1,0:S("
                             "1)})->f32[8,128]{1,0}}"),
          "layout_sensitive"),
      IsEmpty());
}

TEST(VerifyLayoutsTest, EntryLayoutReadsPastDumpComments) {
  const std::string body =
      "  x = f32[4,4]{1,0} parameter(0)\n"
      "  y = f32[4,4]{0,1} parameter(1)\n"
      "  ROOT a = f32[4,4]{1,0} add(x, x)\n";
  EXPECT_THAT(LayoutFindings(VerifyLayoutsEntry(
                                 body,
                                 ", entry_computation_layout={(f32[4,4]{1,0}, "
                                 "/*index=1*/f32[4,4]{1,0})->f32[4,4]{1,0}}"),
                             "layout_sensitive"),
              ElementsAre(HasSubstr("Shape of the entry computation parameter "
                                    "1 is f32[4,4]{0,1}")));
  EXPECT_THAT(LayoutFindings(VerifyLayoutsEntry(
                                 body,
                                 ", entry_computation_layout={(f32[4,4]{1,0}, "
                                 "/*index=1*/f32[4,4]{0,1})->f32[4,4]{1,0}}"),
                             "layout_sensitive"),
              IsEmpty());
}

TEST(VerifyLayoutsTest, MustAliasPairsShareTheMemorySpace) {
  auto module = [](const std::string& kind) {
    return VerifyLayoutsEntry(
        "  x = f32[10]{0} parameter(0)\n"
        "  ROOT a = f32[10]{0} add(x, x)\n",
        ", input_output_alias={{}: (0, {}" + kind +
            ")}, entry_computation_layout={(f32[10]{0:S(5)})->f32[10]{0}}");
  };
  EXPECT_THAT(LayoutFindings(module(", must-alias"), "layout_sensitive"),
              testing::Contains(HasSubstr(
                  "Shape and memory space of the result at index {} "
                  "(f32[10]{0}) must be the same as the shape and memory "
                  "space of aliased parameter 0 at index {} "
                  "(f32[10]{0:S(5)})")));
  // may-alias (the default) forces nothing.
  EXPECT_THAT(LayoutFindings(module(""), "layout_sensitive"), IsEmpty());
}

TEST(VerifyOptInTest, BroadcastDimensionsInOrder) {
  const std::string bad = VerifyLayoutsEntry(
      "  p = f32[2,3] parameter(0)\n"
      "  ROOT b = f32[3,2] broadcast(p), dimensions={1,0}\n");
  EXPECT_THAT(LayoutFindings(bad, "verify_broadcast_dimensions_order"),
              ElementsAre("Broadcast dimensions should be ordered, got: b @ "
                          "dimensions={1,0}"));
  EXPECT_THAT(LayoutFindings(bad, "default"), IsEmpty());
}

TEST(VerifyOptInTest, ReshapeIsABitcast) {
  auto module = [](const std::string& layout) {
    return VerifyLayoutsEntry(
        "  p = f32[8,3]{1,0} parameter(0)\n  ROOT r = f32[4,2,3]" + layout +
        " reshape(p)\n");
  };
  const std::string on = "layout_sensitive,verify_reshape_is_bitcast";
  EXPECT_THAT(LayoutFindings(module("{0,1,2}"), on),
              ElementsAre(HasSubstr("Reshape should be a physical bitcast, "
                                    "got: r")));
  EXPECT_THAT(LayoutFindings(module("{2,1,0}"), on), IsEmpty());
  EXPECT_THAT(LayoutFindings(module("{0,1,2}"), "verify_reshape_is_bitcast"),
              IsEmpty());  // XLA's rule needs layouts
}

TEST(VerifyOptInTest, NoHostMemorySpace) {
  auto module = [](const std::string& space) {
    return VerifyLayoutsEntry("  p = f32[4]{0" + space +
                              "} parameter(0)\n  ROOT c = f32[4] copy(p)\n");
  };
  EXPECT_THAT(LayoutFindings(module(":S(5)"), "verify_no_host_memory_space"),
              ElementsAre("Instruction shouldn't have the layout of host "
                          "memory space: p @ f32[4]{0:S(5)}"));
  EXPECT_THAT(LayoutFindings(module(":S(1)"), "verify_no_host_memory_space"),
              IsEmpty());
  EXPECT_THAT(LayoutFindings(module(":S(5)"), "default"), IsEmpty());
}

TEST(VerifyOptInTest, InstructionNameUnchanged) {
  auto module = [](const std::string& name) {
    return VerifyLayoutsEntry(
        "  p = f32[4] parameter(0)\n  ROOT " + name +
        " = f32[4] negate(p), metadata={scheduling_name=\"n\"}\n");
  };
  const std::string on = "verify_instruction_name_unchanged";
  EXPECT_THAT(LayoutFindings(module("m"), on),
              ElementsAre(HasSubstr("Expected instruction name to remain the "
                                    "same. Was 'n' is 'm'.")));
  EXPECT_THAT(LayoutFindings(module("n"), on), IsEmpty());
  EXPECT_THAT(LayoutFindings(module("n.remat2"), on), IsEmpty());
  EXPECT_THAT(LayoutFindings(module("m"), "default"), IsEmpty());
}

TEST(VerifyOptInTest, UnboundedDynamismUnlessAllowed) {
  const std::string text =
      VerifyLayoutsEntry("  ROOT p = f32[?,784] parameter(0)\n");
  EXPECT_THAT(LayoutFindings(text, "default"),
              ElementsAre("Unbounded dynamism is disabled for instruction: p "
                          "@ f32[?,784]"));
  EXPECT_THAT(LayoutFindings(text, "allow_unbounded_dynamism"), IsEmpty());
  EXPECT_THAT(LayoutFindings(
                  VerifyLayoutsEntry("  ROOT p = f32[<=4,784] parameter(0)\n"),
                  "default"),
              IsEmpty());
}

TEST(VerifyOriginalValueTest, TupleTreeMatchesTheShape) {
  EXPECT_THAT(
      LayoutFindings(
          VerifyLayoutsEntry("  ROOT p = f32[] parameter(0), "
                             "origin={(({}, {\"v2\"}), {\"v3\"})}\n"),
          "default"),
      ElementsAre(HasSubstr("Mismatched tuple structure in original_value "
                            "for instruction p. Leaf indices in shape and "
                            "original_value do not match. In shape only: {{}}. "
                            "In original_value only: {{0,0}, {0,1}, {1}}")));
  EXPECT_THAT(LayoutFindings(
                  VerifyLayoutsEntry("  ROOT p = (f32[], s32[2]) parameter(0), "
                                     "origin={({\"a\"}, {\"b\" {1}})}\n"),
                  "default"),
              IsEmpty());
  EXPECT_THAT(
      LayoutFindings(VerifyLayoutsEntry("  ROOT p = f32[] parameter(0), "
                                        "origin={[synthetic_call]}\n"),
                     "default"),
      IsEmpty());
}

TEST(LayoutShapeTest, ReadsAndPrintsLikeXla) {
  size_t pos = 0;
  std::optional<LayoutShape> s =
      ParseLayoutShape("f32[8,128]{1,0:T(8,128)(2,1)L(2)E(32)S(5)} x", &pos);
  ASSERT_TRUE(s);
  EXPECT_EQ(LayoutShapeString(*s),
            "f32[8,128]{1,0:T(8,128)(2,1)L(2)E(32)S(5)}");
  pos = 0;
  s = ParseLayoutShape("(f32[2,3], s32[], token[])", &pos);
  ASSERT_TRUE(s);
  EXPECT_EQ(LayoutShapeString(*s), "(f32[2,3]{1,0}, s32[]{}, token[])");
}

TEST(LayoutShapeTest, ReshapeIsBitcast) {
  auto shape = [](const std::string& text) {
    size_t pos = 0;
    return *ParseLayoutShape(text, &pos);
  };
  EXPECT_EQ(
      ReshapeIsBitcast(shape("f32[8,3]{1,0}"), shape("f32[4,2,3]{2,1,0}")),
      true);
  EXPECT_EQ(
      ReshapeIsBitcast(shape("f32[8,3]{1,0}"), shape("f32[4,2,3]{0,1,2}")),
      false);
  EXPECT_EQ(ReshapeIsBitcast(shape("f32[1,4]{0,1}"), shape("f32[4]{0}")), true);
  EXPECT_EQ(ReshapeIsBitcast(shape("f32[2,3]{0,1}"), shape("f32[3,2]{1,0}")),
            false);
  EXPECT_EQ(ReshapeIsBitcast(shape("f32[8,128]{1,0:T(8,128)}"),
                             shape("f32[1024]{0}")),
            std::nullopt);
}

}  // namespace
}  // namespace hlo
