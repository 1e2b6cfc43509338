// Shape inference (hlo/shape_inference.h), one rule at a time: each case is
// a tiny module whose instruction `r` is inferred; cases marked "XLA:" come
// from xla/service/shape_inference_test.cc.
#include "hlo/shape_inference.h"

#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/parser.h"
#include "hlo/shape_util.h"

namespace hlo {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

struct Parsed {
  std::string text;
  std::unique_ptr<ParsedFile> file;
};

Parsed ParseModule(std::string body) {
  Parsed p{std::move(body), nullptr};
  p.file = Parse(p.text);
  return p;
}

Id ShapeInferenceFind(const ParsedFile& file, std::string_view name) {
  for (Id i = 0; i < file.instructions.size(); ++i) {
    if (file.Name(file.instructions[i]) == name) return i;
  }
  return kNone;
}

// The inferred shape of `r` in `text`, "error: ..." for an error, or
// "cannot infer".
std::string InferR(const std::string& text) {
  Parsed p = ParseModule(text);
  EXPECT_FALSE(p.file->HasErrors()) << p.file->diagnostics[0].message;
  Id r = ShapeInferenceFind(*p.file, "r");
  EXPECT_NE(r, kNone);
  Inference inference = InferShape(*p.file, r);
  if (!inference.error.empty()) return "error: " + inference.error;
  if (!inference.shape) return "cannot infer";
  return ShapeString(*inference.shape);
}

std::string Entry(std::string_view body) {
  return "HloModule m\n\nENTRY e {\n" + std::string(body) + "\n}\n";
}

constexpr char kAdd[] =
    "HloModule m\n\nadd {\n  a = f32[] parameter(0)\n  b = f32[] "
    "parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n\n";

TEST(ShapeInferenceTest, UnaryKeepsTheShapeAndAbsOfComplexIsReal) {
  EXPECT_EQ(InferR(Entry("x = f32[2,3] parameter(0)\n"
                         "ROOT r = f32[2,3] negate(x)")),
            "f32[2,3]");
  EXPECT_EQ(InferR(Entry("x = c64[4] parameter(0)\nROOT r = f32[4] abs(x)")),
            "f32[4]");
  EXPECT_EQ(InferR(Entry("x = c128[4] parameter(0)\nROOT r = f64[4] real(x)")),
            "f64[4]");
  EXPECT_EQ(InferR(Entry("x = f32[4] parameter(0)\n"
                         "ROOT r = pred[4] is-finite(x)")),
            "pred[4]");
}

TEST(ShapeInferenceTest, BinaryCompareAndComplex) {
  EXPECT_EQ(InferR(Entry("x = f32[2,3] parameter(0)\ny = f32[2,3] "
                         "parameter(1)\nROOT r = f32[2,3] add(x, y)")),
            "f32[2,3]");
  EXPECT_EQ(InferR(Entry("x = s32[5] parameter(0)\ny = s32[5] parameter(1)\n"
                         "ROOT r = pred[5] compare(x, y), direction=LT")),
            "pred[5]");
  EXPECT_EQ(InferR(Entry("x = f32[5] parameter(0)\ny = f32[5] parameter(1)\n"
                         "ROOT r = c64[5] complex(x, y)")),
            "c64[5]");
  // XLA: BinOpIncompatibleShapes... wording of InferElementwiseBinaryOpShape.
  EXPECT_EQ(
      InferR(Entry("x = f32[2] parameter(0)\ny = f32[3] parameter(1)\n"
                   "ROOT r = f32[2] add(x, y)")),
      "error: Binary op add with incompatible shapes: f32[2] and f32[3].");
  // A rank difference is the builder's implicit broadcast: not inferred.
  EXPECT_EQ(InferR(Entry("x = f32[2] parameter(0)\ny = f32[] parameter(1)\n"
                         "ROOT r = f32[2] add(x, y)")),
            "cannot infer");
}

TEST(ShapeInferenceTest, SelectAndClampTakeScalars) {
  EXPECT_EQ(InferR(Entry("p = pred[] parameter(0)\nx = f32[3] parameter(1)\n"
                         "y = f32[3] parameter(2)\n"
                         "ROOT r = f32[3] select(p, x, y)")),
            "f32[3]");
  EXPECT_EQ(InferR(Entry("lo = f32[] parameter(0)\nx = f32[3] parameter(1)\n"
                         "hi = f32[] parameter(2)\n"
                         "ROOT r = f32[3] clamp(lo, x, hi)")),
            "f32[3]");
  EXPECT_EQ(
      InferR(Entry("p = pred[2] parameter(0)\nx = f32[3] parameter(1)\n"
                   "y = f32[3] parameter(2)\nROOT r = f32[3] select(p, x, y)")),
      "error: Operands to select and predicate must be the same shape; got "
      "f32[3] and pred[2].");
}

TEST(ShapeInferenceTest, ConvertAndBitcastConvertTakeTheDeclaredType) {
  EXPECT_EQ(InferR(Entry("x = f32[2,3] parameter(0)\n"
                         "ROOT r = bf16[2,3] convert(x)")),
            "bf16[2,3]");
  EXPECT_EQ(InferR(Entry("x = f32[2] parameter(0)\n"
                         "ROOT r = u8[2,4] bitcast-convert(x)")),
            "u8[2,4]");
  EXPECT_EQ(InferR(Entry("x = u16[2,2] parameter(0)\n"
                         "ROOT r = f32[2] bitcast-convert(x)")),
            "f32[2]");
}

TEST(ShapeInferenceTest, BroadcastAndReshapeCheckTheirOwnShape) {
  EXPECT_EQ(InferR(Entry("x = f32[3] parameter(0)\n"
                         "ROOT r = f32[2,3] broadcast(x), dimensions={1}")),
            "f32[2,3]");
  EXPECT_EQ(InferR(Entry("x = f32[3] parameter(0)\n"
                         "ROOT r = f32[2,3] broadcast(x), dimensions={0}")),
            "error: Broadcast dimension 0 of operand f32[3] has size 3, "
            "output dimension 0 of f32[2,3] has size 2");
  EXPECT_EQ(
      InferR(Entry("x = f32[2,3] parameter(0)\nROOT r = f32[3,2] reshape(x)")),
      "f32[3,2]");
  EXPECT_EQ(
      InferR(Entry("x = f32[2,3] parameter(0)\nROOT r = f32[5] reshape(x)")),
      "error: Reshape operation has mismatched element counts: from=6 "
      "(f32[2,3]) to=5 (f32[5]).");
}

TEST(ShapeInferenceTest, TransposeSliceAndDynamicSlices) {
  EXPECT_EQ(InferR(Entry("x = f32[2,3,4] parameter(0)\n"
                         "ROOT r = f32[4,2,3] transpose(x), "
                         "dimensions={2,0,1}")),
            "f32[4,2,3]");
  // XLA: StridedSlice: (limit - start) / stride, rounded up.
  EXPECT_EQ(InferR(Entry("x = f32[128,1024] parameter(0)\n"
                         "ROOT r = f32[16,256] "
                         "slice(x), slice={[12:64:3], [0:1024:4]}")),
            "f32[18,256]");
  EXPECT_EQ(InferR(Entry("x = f32[8,8] parameter(0)\ni = s32[] parameter(1)\n"
                         "ROOT r = f32[2,8] dynamic-slice(x, i, i), "
                         "dynamic_slice_sizes={2,8}")),
            "f32[2,8]");
  EXPECT_EQ(InferR(Entry("x = f32[8,8] parameter(0)\nu = f32[2,8] "
                         "parameter(1)\ni = s32[] parameter(2)\n"
                         "ROOT r = f32[8,8] dynamic-update-slice(x, u, i, i)")),
            "f32[8,8]");
}

TEST(ShapeInferenceTest, ConcatenatePadAndReverse) {
  EXPECT_EQ(
      InferR(Entry("x = f32[2,3] parameter(0)\ny = f32[2,5] "
                   "parameter(1)\n"
                   "ROOT r = f32[2,8] concatenate(x, y), dimensions={1}")),
      "f32[2,8]");
  // XLA: Pad: low + high + size + interior * (size - 1).
  EXPECT_EQ(InferR(Entry("x = f32[10,25] parameter(0)\nz = f32[] "
                         "parameter(1)\n"
                         "ROOT r = f32[39,31] pad(x, z), padding=1_2_3x4_0_0")),
            "f32[40,29]");
  EXPECT_EQ(InferR(Entry("x = f32[2,3] parameter(0)\n"
                         "ROOT r = f32[2,3] reverse(x), dimensions={0}")),
            "f32[2,3]");
}

TEST(ShapeInferenceTest, ReduceAndReduceWindow) {
  EXPECT_EQ(InferR(std::string(kAdd) +
                   "ENTRY e {\n  x = f32[5,3] parameter(0)\n  z = f32[] "
                   "constant(0)\n  ROOT r = f32[3] reduce(x, z), "
                   "dimensions={0}, to_apply=add\n}\n"),
            "f32[3]");
  EXPECT_EQ(InferR(std::string(kAdd) +
                   "ENTRY e {\n  x = f32[8,8] parameter(0)\n  z = f32[] "
                   "constant(0)\n  ROOT r = f32[4,3] reduce-window(x, z), "
                   "window={size=2x3 stride=2x2}, to_apply=add\n}\n"),
            "f32[4,3]");
}

TEST(ShapeInferenceTest, DotWithBatchAndContractingDimensions) {
  EXPECT_EQ(InferR(Entry("a = f32[4,2,3] parameter(0)\nb = f32[4,3,5] "
                         "parameter(1)\nROOT r = f32[4,2,5] dot(a, b), "
                         "lhs_batch_dims={0}, lhs_contracting_dims={2}, "
                         "rhs_batch_dims={0}, rhs_contracting_dims={1}")),
            "f32[4,2,5]");
  // The declared element type is XLA's preferred_element_type.
  EXPECT_EQ(InferR(Entry("a = bf16[2,3] parameter(0)\nb = bf16[3,5] "
                         "parameter(1)\nROOT r = f32[2,5] dot(a, b), "
                         "lhs_contracting_dims={1}, rhs_contracting_dims={0}")),
            "f32[2,5]");
  EXPECT_EQ(InferR(Entry("a = f32[2,3] parameter(0)\nb = f32[4,5] "
                         "parameter(1)\nROOT r = f32[2,5] dot(a, b), "
                         "lhs_contracting_dims={1}, rhs_contracting_dims={0}")),
            "error: Contracting dimension sizes are not compatible.");
}

TEST(ShapeInferenceTest, ConvolutionWindowsAndGroups) {
  // XLA: ConvolveWithWindowDilation-like: stride, padding and dilation.
  EXPECT_EQ(InferR(Entry("x = f32[10,3,11,4] parameter(0)\nk = f32[2,2,3,12] "
                         "parameter(1)\nROOT r = f32[10,12,6,1] "
                         "convolution(x, k), window={size=2x2 stride=2x3 "
                         "pad=1_1x0_0 rhs_dilate=1x1}, "
                         "dim_labels=bf01_01io->bf01")),
            "f32[10,12,6,1]");
  // XLA's error when the features do not match the kernel's.
  EXPECT_EQ(InferR(Entry("x = f32[10,11,3,4] parameter(0)\nk = f32[2,2,3,12] "
                         "parameter(1)\nROOT r = f32[10,12,2,1] "
                         "convolution(x, k), window={size=2x2}, "
                         "dim_labels=bf01_01io->bf01")),
            "error: Expected LHS feature dimension (value 11) to be a multiple "
            "of feature_group_count (value 1), and LHS feature dimension / "
            "feature_group_count = RHS feature dimension (value 3); got "
            "<conv>(f32[10,11,3,4], f32[2,2,3,12])");
  // feature_group_count: the kernel's input features are the input's / g.
  EXPECT_EQ(InferR(Entry("x = f32[1,8,8,6] parameter(0)\nk = f32[3,3,2,6] "
                         "parameter(1)\nROOT r = f32[1,6,6,6] "
                         "convolution(x, k), window={size=3x3}, "
                         "dim_labels=b01f_01io->b01f, feature_group_count=3")),
            "f32[1,6,6,6]");
  // batch_group_count divides the batch.
  EXPECT_EQ(InferR(Entry("x = f32[4,5,5,2] parameter(0)\nk = f32[5,5,2,4] "
                         "parameter(1)\nROOT r = f32[1,1,1,4] "
                         "convolution(x, k), window={size=5x5}, "
                         "dim_labels=b01f_01io->b01f, batch_group_count=4")),
            "f32[1,1,1,4]");
  // lhs_dilate (base dilation) and padding.
  EXPECT_EQ(InferR(Entry("x = f32[1,4,1] parameter(0)\nk = f32[3,1,1] "
                         "parameter(1)\nROOT r = f32[1,9,1] convolution(x, k), "
                         "window={size=3 pad=2_2 lhs_dilate=2}, "
                         "dim_labels=b0f_0io->b0f")),
            "f32[1,9,1]");
}

TEST(ShapeInferenceTest, GatherAndScatter) {
  // XLA: TensorFlowGather.
  EXPECT_EQ(InferR(Entry("x = f32[64,48] parameter(0)\ni = s32[32] "
                         "parameter(1)\nROOT r = f32[64,32] gather(x, i), "
                         "offset_dims={0}, collapsed_slice_dims={1}, "
                         "start_index_map={1}, index_vector_dim=1, "
                         "slice_sizes={64,1}")),
            "f32[64,32]");
  // XLA: TensorFlowGatherNd.
  EXPECT_EQ(InferR(Entry("x = f32[64,48] parameter(0)\ni = s32[10,9,8,7,1] "
                         "parameter(1)\nROOT r = f32[10,9,8,7,48] gather(x, "
                         "i), offset_dims={4}, collapsed_slice_dims={0}, "
                         "start_index_map={0}, index_vector_dim=4, "
                         "slice_sizes={1,48}")),
            "f32[10,9,8,7,48]");
  EXPECT_EQ(InferR(std::string(kAdd) +
                   "ENTRY e {\n  x = f32[8] parameter(0)\n  i = s32[2,1] "
                   "parameter(1)\n  u = f32[2] parameter(2)\n  ROOT r = f32[8] "
                   "scatter(x, i, u), update_window_dims={}, "
                   "inserted_window_dims={0}, "
                   "scatter_dims_to_operand_dims={0}, index_vector_dim=1, "
                   "to_apply=add\n}\n"),
            "f32[8]");
}

TEST(ShapeInferenceTest, ScatterChecksItsDimensionNumbers) {
  auto scatter = [](const std::string& numbers) {
    return std::string(kAdd) +
           "ENTRY e {\n  x = f32[8,4] parameter(0)\n  i = s32[2,1] "
           "parameter(1)\n  u = f32[2,4] parameter(2)\n  ROOT r = f32[8,4] "
           "scatter(x, i, u), index_vector_dim=1, to_apply=add, " +
           numbers + "\n}\n";
  };
  const std::string window = "update_window_dims={1}, inserted_window_dims={0}";
  EXPECT_EQ(InferR(scatter(window + ", scatter_dims_to_operand_dims={0}")),
            "f32[8,4]");
  EXPECT_EQ(InferR(scatter(window + ", scatter_dims_to_operand_dims={7}")),
            "error: Invalid scatter_dims_to_operand_dims mapping; domain is "
            "[0, 2), got: 0->7.");
  EXPECT_EQ(InferR(scatter("update_window_dims={1}, inserted_window_dims={}, "
                           "scatter_dims_to_operand_dims={0}")),
            "error: Scatter op has window of size 1; doesn't match operand of "
            "rank 2.");
}

TEST(ShapeInferenceTest, TuplesCallsAndControlFlow) {
  EXPECT_EQ(InferR(Entry("x = f32[2] parameter(0)\ny = s32[] parameter(1)\n"
                         "ROOT r = (f32[2], s32[]) tuple(x, y)")),
            "(f32[2], s32[])");
  EXPECT_EQ(InferR(Entry("t = (f32[2], s32[]) parameter(0)\n"
                         "ROOT r = s32[] get-tuple-element(t), index=1")),
            "s32[]");
  EXPECT_EQ(InferR(std::string(kAdd) +
                   "ENTRY e {\n  x = f32[] parameter(0)\n  ROOT r = f32[] "
                   "call(x, x), to_apply=add\n}\n"),
            "f32[]");
  EXPECT_EQ(InferR("HloModule m\n\nf {\n  a = f32[4] parameter(0)\n  ROOT n "
                   "= f32[4] negate(a)\n}\n\nENTRY e {\n  x = f32[4] "
                   "parameter(0)\n  ROOT r = f32[4] fusion(x), kind=kLoop, "
                   "calls=f\n}\n"),
            "f32[4]");
}

TEST(ShapeInferenceTest, WhileTakesItsBodysRootShape) {
  // XLA's ShapeVerifier holds a while to its body's root, not its operand
  // (corpus: WhileLoopConstantSinkingTest.DontCreateDeadConstant).
  EXPECT_EQ(InferR("HloModule m\n\nb {\n  p = (f32[2]) parameter(0)\n"
                   "  x = f32[2] get-tuple-element(p), index=0\n"
                   "  ROOT t = (f32[2], f32[2]) tuple(x, x)\n}\n\n"
                   "c {\n  p = (f32[2]) parameter(0)\n"
                   "  ROOT k = pred[] constant(true)\n}\n\n"
                   "ENTRY e {\n  i = (f32[2]) parameter(0)\n"
                   "  ROOT r = (f32[2], f32[2]) while(i), condition=c, body=b\n"
                   "}\n"),
            "(f32[2], f32[2])");
}

TEST(ShapeInferenceTest, Collectives) {
  EXPECT_EQ(InferR(std::string(kAdd) +
                   "ENTRY e {\n  x = f32[8] parameter(0)\n  ROOT r = f32[8] "
                   "all-reduce(x), replica_groups={{0,1}}, to_apply=add\n}\n"),
            "f32[8]");
  EXPECT_EQ(InferR(Entry("x = f32[2,3] parameter(0)\nROOT r = f32[8,3] "
                         "all-gather(x), replica_groups={{0,1,2,3}}, "
                         "dimensions={0}")),
            "f32[8,3]");
  // With a channel_id alone the groups name replicas of every partition.
  EXPECT_EQ(InferR(Entry("x = f32[2,3] parameter(0)\nROOT r = f32[16,3] "
                         "all-gather(x), channel_id=1, "
                         "replica_groups={{0,1,2,3}}, dimensions={0}")),
            "cannot infer");
  EXPECT_EQ(InferR(std::string(kAdd) +
                   "ENTRY e {\n  x = f32[8,4] parameter(0)\n  ROOT r = "
                   "f32[2,4] reduce-scatter(x), replica_groups=[1,4]<=[4], "
                   "dimensions={0}, to_apply=add\n}\n"),
            "f32[2,4]");
  EXPECT_EQ(InferR(Entry("x = f32[4] parameter(0)\nROOT r = (f32[4]) "
                         "all-to-all(x), replica_groups={{0,1}}")),
            "(f32[4])");
  EXPECT_EQ(InferR(Entry("x = f32[4] parameter(0)\nROOT r = f32[4] "
                         "collective-permute(x), "
                         "source_target_pairs={{0,1},{1,0}}")),
            "f32[4]");
}

TEST(ShapeInferenceTest, AsyncDonesTakeTheStartsResultSlot) {
  EXPECT_EQ(InferR(Entry("x = f32[4] parameter(0)\n"
                         "s = ((f32[4]), f32[8], u32[]) "
                         "custom-call-start(x), custom_call_target=\"foo\"\n"
                         "ROOT r = f32[8] custom-call-done(s)")),
            "f32[8]");
  EXPECT_EQ(InferR(Entry("x = f32[4] parameter(0)\n"
                         "s = (f32[4], f32[4], u32[]) copy-start(x)\n"
                         "ROOT r = f32[4] copy-done(s)")),
            "f32[4]");
  EXPECT_EQ(InferR(Entry("x = f32[4] parameter(0)\n"
                         "s = (f32[4], f32[4]) collective-permute-start(x), "
                         "source_target_pairs={{0,1}}\n"
                         "ROOT r = f32[4] collective-permute-done(s)")),
            "f32[4]");
}

TEST(ShapeInferenceTest, UnknownOpsAreNotInferred) {
  EXPECT_EQ(InferR(Entry("x = f32[4] parameter(0)\nROOT r = f32[4] "
                         "custom-call(x), custom_call_target=\"foo\"")),
            "cannot infer");
  EXPECT_EQ(InferR(Entry("ROOT r = f32[4] iota(), iota_dimension=0")),
            "cannot infer");
}

TEST(ShapeInferenceTest, CheckFlagsTheDeclaredShapeOnItsOwnSpan) {
  Parsed p =
      ParseModule(Entry("x = f32[2,3] parameter(0)\ny = f32[2,3] parameter(1)\n"
                        "a = f32[2,3] add(x, y)\nROOT b = f32[3,2] add(x, y)"));
  std::vector<Diagnostic> findings = CheckShapes(*p.file);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].message,
            "Expected instruction to have shape equal to f32[2,3], actual "
            "shape is f32[3,2]");
  // The shapes of `a` and `b` are interned apart; the range is b's own.
  EXPECT_EQ(p.file->Text(findings[0].span), "f32[3,2]");
  EXPECT_EQ(p.file->lines().ToLineColumn(findings[0].span.begin).line, 6u);
}

TEST(ShapeInferenceTest, CheckUsesTheSpanOfAnInternedShape) {
  // The two f32[3] shapes are one interned entry whose span is the first.
  Parsed p =
      ParseModule(Entry("x = f32[3] parameter(0)\ny = f32[2] parameter(1)\n"
                        "ROOT z = f32[3] negate(y)"));
  std::vector<Diagnostic> findings = CheckShapes(*p.file);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(p.file->lines().ToLineColumn(findings[0].span.begin).line, 5u);
  EXPECT_EQ(p.file->Text(findings[0].span), "f32[3]");
}

// CheckShapes' findings as "name: message", named by the instruction whose
// text holds each.
std::vector<std::string> FlaggedByName(const ParsedFile& file) {
  std::vector<std::string> flagged;
  for (const Diagnostic& d : CheckShapes(file)) {
    for (const Instruction& inst : file.instructions) {
      if (inst.span.begin <= d.span.begin && d.span.end <= inst.span.end) {
        flagged.push_back(std::string(file.Name(inst)) + ": " + d.message);
      }
    }
  }
  return flagged;
}

// CheckShapes works out each combination of opcode, shapes, attributes and
// called roots once; every instruction still gets its own finding, and
// what tells two apart (an attribute, the computation called) still does.
TEST(ShapeInferenceTest, CheckTellsRepeatedInstructionsApartByWhatTheyRead) {
  Parsed p = ParseModule(R"(HloModule m

%f1 (p: f32[2]) -> f32[2] {
  %p = f32[2] parameter(0)
  ROOT %n = f32[2] negate(%p)
}

%f2 (q: f32[2]) -> f32[2,2] {
  %q = f32[2] parameter(0)
  ROOT %w = f32[2,2] broadcast(%q), dimensions={0}
}

ENTRY %e (x: f32[2]) -> f32[4] {
  %x = f32[2] parameter(0)
  %a = f32[2] fusion(%x), kind=kLoop, calls=%f1
  %b = f32[2] fusion(%x), kind=kLoop, calls=%f2
  %c = f32[2,2] broadcast(%x), dimensions={0}
  %d = f32[2,2] broadcast(%x), dimensions={0}, metadata={op_name="u"}
  %g = f32[3,2] broadcast(%x), dimensions={1}
  %h = f32[3,2] broadcast(%x), dimensions={0}
  %i = f32[4] negate(%x)
  ROOT %k = f32[4] negate(%x), metadata={op_name="v"}
}
)");
  ASSERT_FALSE(p.file->HasErrors()) << p.file->diagnostics[0].message;
  EXPECT_THAT(
      FlaggedByName(*p.file),
      ElementsAre(HasSubstr("b: Expected instruction to have shape equal to "
                            "f32[2,2], actual shape is f32[2]"),
                  StartsWith("h: "),
                  "i: Expected instruction to have shape equal to f32[2], "
                  "actual shape is f32[4]",
                  "k: Expected instruction to have shape equal to f32[2], "
                  "actual shape is f32[4]"));
}

// get-tuple-element, tuple, call and while are settled off the shape
// table when their declared shape is the one inferred; a different one
// still takes inference and its message.
TEST(ShapeInferenceTest, CheckSettlesEqualShapesOffTheTableAndFlagsTheRest) {
  Parsed p = ParseModule(R"(HloModule m

%id (a: f32[2]) -> f32[2] {
  ROOT %a = f32[2] parameter(0)
}

ENTRY %e (t: (f32[2], s32[])) -> f32[2] {
  %t = (f32[2], s32[]) parameter(0)
  %g0 = f32[2] get-tuple-element(%t), index=0
  %g1 = f32[2] get-tuple-element(%t), index=1
  %g2 = f32[2] get-tuple-element(%t), index=2
  %u = (f32[2], f32[2]) tuple(%g0, %g0)
  %v = (f32[2], f32[3]) tuple(%g0, %g0)
  %k0 = f32[2] call(%g0), to_apply=%id
  %k1 = f32[3] call(%g0), to_apply=%id
  ROOT %r = f32[2] copy(%g0)
}
)");
  ASSERT_FALSE(p.file->HasErrors()) << p.file->diagnostics[0].message;
  EXPECT_THAT(
      FlaggedByName(*p.file),
      ElementsAre("g1: Expected instruction to have shape equal to s32[], "
                  "actual shape is f32[2]",
                  HasSubstr("g2: Cannot infer shape: attempt to index out of "
                            "tuple bounds: 2 >= 2"),
                  StartsWith("v: Expected instruction to have shape equal to "
                             "(f32[2], f32[2])"),
                  "k1: Expected instruction to have shape equal to f32[2], "
                  "actual shape is f32[3]"));
}

TEST(ShapeInferenceTest, MixedPrecisionIsAllowedByDefault) {
  Parsed p =
      ParseModule(Entry("x = f32[2] parameter(0)\nROOT z = bf16[2] negate(x)"));
  EXPECT_TRUE(CheckShapes(*p.file).empty());
  EXPECT_EQ(CheckShapes(*p.file, {.allow_mixed_precision = false}).size(), 1u);
}

TEST(ShapeInferenceTest, MissingShapesAreFilledAsXlasParserAllows) {
  Parsed p =
      ParseModule(Entry("x = f32[2,3] parameter(0)\ny = f32[2,3] parameter(1)\n"
                        "%a = add(x, y)\nt = transpose(a), dimensions={1,0}\n"
                        "ROOT r = compare(t, t), direction=GT"));
  ASSERT_FALSE(p.file->HasErrors());
  EXPECT_EQ(ShapeToString(
                *p.file,
                p.file->instructions[ShapeInferenceFind(*p.file, "a")].shape),
            "f32[2,3]");
  EXPECT_EQ(ShapeToString(
                *p.file,
                p.file->instructions[ShapeInferenceFind(*p.file, "t")].shape),
            "f32[3,2]");
  EXPECT_EQ(ShapeToString(
                *p.file,
                p.file->instructions[ShapeInferenceFind(*p.file, "r")].shape),
            "pred[3,2]");
  // Filled shapes are not declared ones: nothing to flag.
  EXPECT_TRUE(CheckShapes(*p.file).empty());
}

TEST(ShapeInferenceTest, MissingShapeOfANestedOperandIsFilledFirst) {
  Parsed p =
      ParseModule(Entry("x = f32[4] parameter(0)\n"
                        "ROOT r = add(negate(x), x)"));
  ASSERT_FALSE(p.file->HasErrors());
  EXPECT_EQ(ShapeToString(
                *p.file,
                p.file->instructions[ShapeInferenceFind(*p.file, "r")].shape),
            "f32[4]");
}

// Hostile text: a long chain of shape-less tuples of tuples must neither
// recurse without bound nor build unbounded shapes.
TEST(ShapeInferenceTest, DeepShapelessTupleChainsAreBounded) {
  std::string body = "t0 = f32[] parameter(0)\n";
  for (int i = 1; i < 3000; ++i) {
    body +=
        "t" + std::to_string(i) + " = tuple(t" + std::to_string(i - 1) + ")\n";
  }
  body += "ROOT r = tuple(t2999)";
  Parsed p = ParseModule(Entry(body));
  EXPECT_FALSE(p.file->HasErrors());
  EXPECT_NE(p.file->instructions[ShapeInferenceFind(*p.file, "t10")].shape,
            kNone);
  EXPECT_TRUE(CheckShapes(*p.file).empty());
}

TEST(ShapeInferenceTest, AShapeThatCannotBeInferredStaysMissing) {
  Parsed p = ParseModule(Entry("ROOT r = iota(), iota_dimension=0"));
  EXPECT_EQ(p.file->instructions[ShapeInferenceFind(*p.file, "r")].shape,
            kNone);
}

}  // namespace
}  // namespace hlo
