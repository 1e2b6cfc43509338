// Per-op tests with hand-computed expectations, edge semantics included.
#include <cmath>
#include <limits>

#include "exec_test_util.h"
#include "gtest/gtest.h"

namespace hlo::exec {
namespace {

using ::hlo::exec::testing::Array;
using ::hlo::exec::testing::RunHlo;
using ::hlo::exec::testing::Values;
using P = PrimitiveType;
using V = std::vector<double>;

std::string Binary(const std::string& type, const std::string& op,
                   const std::string& dims = "[4]") {
  return "HloModule m\nENTRY e {\n  a = " + type + dims +
         " parameter(0)\n  b = " + type + dims +
         " parameter(1)\n  ROOT r = " + type + dims + " " + op + "(a, b)\n}\n";
}

// XLA's expected results keep the declared element type where an op is
// written with another (mixed precision): issue 22.
TEST(DeclaredTypeTest, TheDeclaredElementTypeWins) {
  auto copy = RunHlo(R"(HloModule m
ENTRY e {
  p = bf16[3] parameter(0)
  ROOT c = f32[3] copy(p)
})",
                     {Array(P::kBF16, {3}, {1.5, -2, 0.25})});
  ASSERT_TRUE(copy.ok()) << copy.status();
  EXPECT_EQ((*copy)->type(), P::kF32);
  EXPECT_EQ(Values(**copy), (V{1.5, -2, 0.25}));
  auto reduce = RunHlo(R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  c = f32[4] constant({1, 2, 3, 4.5})
  z = f32[] constant(0)
  ROOT r = bf16[] reduce(c, z), dimensions={0}, to_apply=add
})");
  ASSERT_TRUE(reduce.ok()) << reduce.status();
  EXPECT_EQ((*reduce)->type(), P::kBF16);
  EXPECT_EQ(Values(**reduce), (V{10.5}));
}

// Instructions written without a shape (as XLA's parser allows) run with
// the shape inference gives them.
TEST(DeclaredTypeTest, InstructionsWithoutAShapeRunWithTheInferredOne) {
  auto r = RunHlo(R"(HloModule m
ENTRY e {
  p = f32[3] parameter(0)
  %a = add(p, p)
  ROOT r = compare(a, p), direction=GT
})",
                  {Array(P::kF32, {3}, {1, -2, 0})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ((*r)->type(), P::kPred);
  EXPECT_EQ(Values(**r), (V{1, 0, 0}));
}

// A result whose dimensions differ from the declared ones is an error that
// names both, never passed on (issue 22: a reduce-scatter declared f32[10]
// of an f32[20] on one replica).
TEST(DeclaredTypeTest, OtherDimensionsThanDeclaredAreAnError) {
  auto r = RunHlo(R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  p = f32[20] parameter(0)
  ROOT r = f32[10] reduce-scatter(p), dimensions={0}, to_apply=add
})",
                  {Array(P::kF32, {20}, std::vector<double>(20, 1.0))});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(
                "computed f32[20] where the instruction declares f32[10]"),
            std::string::npos)
      << r.status();
}

// A zero fft_length transforms nothing and XLA answers zeros, whatever the
// operand holds (hlo_evaluator_test's 1D_FFT_0_on_c64x1x1x1x1; issue 22).
TEST(FftTest, AZeroLengthGivesZeros) {
  auto r = RunHlo(R"(HloModule m
ENTRY e {
  p = c64[1,1,1,1] parameter(0)
  ROOT f = c64[1,1,1,1] fft(p), fft_type=FFT, fft_length={0}
})",
                  {Array(P::kC64, {1, 1, 1, 1}, {42.24})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ((*r)->ToString(), "c64[1,1,1,1] {(0, 0)}");
}

TEST(ElementwiseTest, IntegerDivisionEdges) {
  auto r = RunHlo(Binary("s32", "divide"),
                  {Array(P::kS32, {4}, {7, -7, double(INT32_MIN), 5}),
                   Array(P::kS32, {4}, {2, 0, -1, -2})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values(**r), (V{3, -1, double(INT32_MIN), -2}));
  auto m = RunHlo(Binary("s32", "remainder"),
                  {Array(P::kS32, {4}, {7, -7, double(INT32_MIN), 5}),
                   Array(P::kS32, {4}, {2, 0, -1, -2})});
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(Values(**m), (V{1, -7, 0, 1}));
  auto u = RunHlo(Binary("u8", "divide"), {Array(P::kU8, {4}, {7, 9, 0, 255}),
                                           Array(P::kU8, {4}, {2, 0, 0, 16})});
  ASSERT_TRUE(u.ok()) << u.status();
  EXPECT_EQ(Values(**u), (V{3, 255, 255, 15}));
}

TEST(ElementwiseTest, ShiftsPastTheWidth) {
  auto args = std::vector<Value>{Array(P::kS8, {4}, {-128, 64, -1, 3}),
                                 Array(P::kS8, {4}, {8, 1, 100, -1})};
  auto shl = RunHlo(Binary("s8", "shift-left"), args);
  ASSERT_TRUE(shl.ok()) << shl.status();
  EXPECT_EQ(Values(**shl), (V{0, -128, 0, 0}));
  auto sra = RunHlo(Binary("s8", "shift-right-arithmetic"), args);
  EXPECT_EQ(Values(**sra), (V{-1, 32, -1, 0}));
  auto srl = RunHlo(Binary("s8", "shift-right-logical"), args);
  EXPECT_EQ(Values(**srl), (V{0, 32, 0, 0}));
}

TEST(ElementwiseTest, MinMaxPropagateNaN) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto args = std::vector<Value>{Array(P::kF32, {4}, {nan, 1, 2, -0.5}),
                                 Array(P::kF32, {4}, {1, nan, 3, -1})};
  auto mx = RunHlo(Binary("f32", "maximum"), args);
  ASSERT_TRUE(mx.ok()) << mx.status();
  V v = Values(**mx);
  EXPECT_TRUE(std::isnan(v[0]) && std::isnan(v[1]));
  EXPECT_EQ(v[2], 3);
  EXPECT_EQ(v[3], -0.5);
  auto mn = RunHlo(Binary("f32", "minimum"), args);
  v = Values(**mn);
  EXPECT_TRUE(std::isnan(v[0]) && std::isnan(v[1]));
  EXPECT_EQ(v[3], -1);
}

TEST(ElementwiseTest, IntegerOverflowWraps) {
  auto r = RunHlo(Binary("s8", "add"), {Array(P::kS8, {4}, {127, -128, 100, 1}),
                                        Array(P::kS8, {4}, {1, -1, 100, 1})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values(**r), (V{-128, 127, -56, 2}));
  auto p =
      RunHlo(Binary("s32", "power"), {Array(P::kS32, {4}, {2, 3, -1, 2}),
                                      Array(P::kS32, {4}, {10, 0, -3, -1})});
  EXPECT_EQ(Values(**p), (V{1024, 1, -1, 0}));
}

TEST(ElementwiseTest, ClampSelectCompareAndUnary) {
  const char* text = R"(HloModule m
ENTRY e {
  x = f32[4] parameter(0)
  lo = f32[] constant(-1)
  hi = f32[] constant(1)
  c = f32[4] clamp(lo, x, hi)
  z = f32[4] broadcast(lo), dimensions={}
  gt = pred[4] compare(x, z), direction=GT
  s = f32[4] select(gt, c, z)
  ROOT r = f32[4] negate(s)
})";
  auto r = RunHlo(text, {Array(P::kF32, {4}, {-5, 0.5, 3, -0.5})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values(**r), (V{1, -0.5, -1, 0.5}));
}

TEST(ElementwiseTest, Bf16ArithmeticRoundsEachResult) {
  auto r = RunHlo(
      Binary("bf16", "add", "[2]"),
      {Array(P::kBF16, {2}, {1, 256}), Array(P::kBF16, {2}, {0.00390625, 1})});
  ASSERT_TRUE(r.ok()) << r.status();
  // 1 + 2^-8 ties to 1; 256 + 1 = 257 is not representable (8 bits): 256.
  EXPECT_EQ(Values(**r), (V{1, 256}));
}

TEST(ElementwiseTest, CountLeadingZerosAndPopcount) {
  const char* text = R"(HloModule m
ENTRY e {
  x = s16[3] parameter(0)
  c = s16[3] count-leading-zeros(x)
  p = s16[3] popcnt(x)
  ROOT t = (s16[3], s16[3]) tuple(c, p)
})";
  auto r = RunHlo(text, {Array(P::kS16, {3}, {1, -1, 0})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values(*(*r)->elements()[0]), (V{15, 0, 16}));
  EXPECT_EQ(Values(*(*r)->elements()[1]), (V{1, 16, 0}));
}

TEST(ShapeOpsTest, BroadcastTransposeReshapeSlice) {
  const char* text = R"(HloModule m
ENTRY e {
  x = s32[3] parameter(0)
  b = s32[2,3] broadcast(x), dimensions={1}
  t = s32[3,2] transpose(b), dimensions={1,0}
  r = s32[6] reshape(t)
  ROOT s = s32[2] slice(r), slice={[1:6:3]}
})";
  auto r = RunHlo(text, {Array(P::kS32, {3}, {1, 2, 3})});
  ASSERT_TRUE(r.ok()) << r.status();
  // t = {{1,1},{2,2},{3,3}} -> r = 1 1 2 2 3 3 -> [1], [4] = 1, 3
  EXPECT_EQ(Values(**r), (V{1, 3}));
}

TEST(ShapeOpsTest, DynamicSliceStartsAreClamped) {
  const char* text = R"(HloModule m
ENTRY e {
  x = s32[5] parameter(0)
  i = s32[] parameter(1)
  ds = s32[2] dynamic-slice(x, i), dynamic_slice_sizes={2}
  u = s32[2] constant({8, 9})
  ROOT dus = s32[5] dynamic-update-slice(x, u, i)
})";
  auto ds_text = std::string(text);
  auto r = RunHlo(
      text, {Array(P::kS32, {5}, {0, 1, 2, 3, 4}), Array(P::kS32, {}, {10})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values(**r), (V{0, 1, 2, 8, 9}));  // start 10 clamped to 3
  auto neg = RunHlo(
      text, {Array(P::kS32, {5}, {0, 1, 2, 3, 4}), Array(P::kS32, {}, {-4})});
  EXPECT_EQ(Values(**neg), (V{8, 9, 2, 3, 4}));
}

TEST(ShapeOpsTest, PadWithNegativeAndInteriorPadding) {
  const char* text = R"(HloModule m
ENTRY e {
  x = f32[3] parameter(0)
  z = f32[] constant(0)
  ROOT p = f32[5] pad(x, z), padding=-1_1_1
})";
  // interior: 1 0 2 0 3, low -1 drops the first, high 1 adds a zero.
  auto r = RunHlo(text, {Array(P::kF32, {3}, {1, 2, 3})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values(**r), (V{0, 2, 0, 3, 0}));
}

TEST(ShapeOpsTest, ConcatenateReverseIota) {
  const char* text = R"(HloModule m
ENTRY e {
  a = s32[2,1] parameter(0)
  i = s32[2,2] iota(), iota_dimension=1
  c = s32[2,3] concatenate(a, i), dimensions={1}
  ROOT r = s32[2,3] reverse(c), dimensions={0,1}
})";
  auto r = RunHlo(text, {Array(P::kS32, {2, 1}, {7, 8})});
  ASSERT_TRUE(r.ok()) << r.status();
  // c = {{7,0,1},{8,0,1}} reversed both ways: {{1,0,8},{1,0,7}}
  EXPECT_EQ(Values(**r), (V{1, 0, 8, 1, 0, 7}));
}

TEST(ShapeOpsTest, BitcastFollowsLayouts) {
  const char* text = R"(HloModule m
ENTRY e {
  x = f32[2,3]{1,0} parameter(0)
  ROOT b = f32[3,2]{0,1} bitcast(x)
})";
  // Physical order is the same: b is the transpose of x.
  auto r = RunHlo(text, {Array(P::kF32, {2, 3}, {1, 2, 3, 4, 5, 6})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values(**r), (V{1, 4, 2, 5, 3, 6}));
}

TEST(ReduceTest, AddFastPathAndGenericArgmax) {
  const char* text = R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
argmax {
  av = f32[] parameter(0)
  ai = s32[] parameter(1)
  bv = f32[] parameter(2)
  bi = s32[] parameter(3)
  gt = pred[] compare(bv, av), direction=GT
  v = f32[] select(gt, bv, av)
  i = s32[] select(gt, bi, ai)
  ROOT t = (f32[], s32[]) tuple(v, i)
}
ENTRY e {
  x = f32[2,3] parameter(0)
  z = f32[] constant(0)
  s = f32[2] reduce(x, z), dimensions={1}, to_apply=add
  idx = s32[2,3] iota(), iota_dimension=1
  ninf = f32[] constant(-inf)
  zi = s32[] constant(0)
  am = (f32[3], s32[3]) reduce(x, idx, ninf, zi), dimensions={0}, to_apply=argmax
  ROOT t = (f32[2], (f32[3], s32[3])) tuple(s, am)
})";
  auto r = RunHlo(text, {Array(P::kF32, {2, 3}, {1, 5, 3, 4, 2, 6})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values(*(*r)->elements()[0]), (V{9, 12}));
  const Literal& am = *(*r)->elements()[1];
  EXPECT_EQ(Values(*am.elements()[0]), (V{4, 5, 6}));
  EXPECT_EQ(Values(*am.elements()[1]), (V{0, 1, 2}));
}

TEST(ReduceTest, ReduceWindowAndSelectAndScatter) {
  const char* text = R"(HloModule m
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
ge {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=GE
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[4] parameter(0)
  ninf = f32[] constant(-inf)
  rw = f32[2] reduce-window(x, ninf), window={size=2 stride=2}, to_apply=max
  src = f32[2] constant({10, 20})
  z = f32[] constant(0)
  ss = f32[4] select-and-scatter(x, src, z), window={size=2 stride=2}, select=ge, scatter=add
  ROOT t = (f32[2], f32[4]) tuple(rw, ss)
})";
  auto r = RunHlo(text, {Array(P::kF32, {4}, {1, 3, 4, 2})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values(*(*r)->elements()[0]), (V{3, 4}));
  EXPECT_EQ(Values(*(*r)->elements()[1]), (V{0, 10, 20, 0}));
}

TEST(DotTest, BatchAndContractingDims) {
  const char* text = R"(HloModule m
ENTRY e {
  a = f32[2,2,3] parameter(0)
  b = f32[2,3,1] parameter(1)
  ROOT d = f32[2,2,1] dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
})";
  auto r = RunHlo(
      text, {Array(P::kF32, {2, 2, 3}, {1, 2, 3, 4, 5, 6, 1, 0, 0, 0, 1, 0}),
             Array(P::kF32, {2, 3, 1}, {1, 1, 1, 7, 8, 9})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values(**r), (V{6, 15, 7, 8}));
}

TEST(DotTest, ContractingFirstDimOfLhs) {
  const char* text = R"(HloModule m
ENTRY e {
  a = s32[2,3] parameter(0)
  b = s32[2,2] parameter(1)
  ROOT d = s32[3,2] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={0}
})";
  // a^T b with a = {{1,2,3},{4,5,6}}, b = {{1,0},{0,1}} -> a^T.
  auto r = RunHlo(text, {Array(P::kS32, {2, 3}, {1, 2, 3, 4, 5, 6}),
                         Array(P::kS32, {2, 2}, {1, 0, 0, 1})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values(**r), (V{1, 4, 2, 5, 3, 6}));
}

TEST(ConvolutionTest, OneDimensionalWithPaddingAndStride) {
  const char* text = R"(HloModule m
ENTRY e {
  x = f32[1,1,5] parameter(0)
  k = f32[1,1,3] parameter(1)
  ROOT c = f32[1,1,3] convolution(x, k), window={size=3 stride=2 pad=1_1}, dim_labels=bf0_oi0->bf0
})";
  // padded x: 0 1 2 3 4 5 0; windows at 0,2,4: (0,1,2)(2,3,4)(4,5,0) .
  // (1,10,100)
  auto r = RunHlo(text, {Array(P::kF32, {1, 1, 5}, {1, 2, 3, 4, 5}),
                         Array(P::kF32, {1, 1, 3}, {1, 10, 100})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values(**r), (V{210, 432, 54}));
}

TEST(ConvolutionTest, FeatureGroups) {
  const char* text = R"(HloModule m
ENTRY e {
  x = f32[1,2,1] parameter(0)
  k = f32[1,2,1] parameter(1)
  ROOT c = f32[1,2,1] convolution(x, k), window={size=1}, dim_labels=bf0_io0->bf0, feature_group_count=2
})";
  // Depthwise: each output feature sees only its own input feature.
  auto r = RunHlo(text, {Array(P::kF32, {1, 2, 1}, {3, 5}),
                         Array(P::kF32, {1, 2, 1}, {10, 100})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values(**r), (V{30, 500}));
}

TEST(GatherScatterTest, GatherRowsClampsAndScatterAdds) {
  const char* text = R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[3,2] parameter(0)
  i = s32[2] parameter(1)
  g = f32[2,2] gather(x, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,2}
  u = f32[2,2] constant({{1,1},{2,2}})
  s = f32[3,2] scatter(x, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
  ROOT t = (f32[2,2], f32[3,2]) tuple(g, s)
})";
  auto r = RunHlo(text, {Array(P::kF32, {3, 2}, {1, 2, 3, 4, 5, 6}),
                         Array(P::kS32, {2}, {2, 7})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values(*(*r)->elements()[0]), (V{5, 6, 5, 6}));  // 7 clamps to 2
  // Scatter: index 2 gets +1; index 7 is out of bounds and skipped.
  EXPECT_EQ(Values(*(*r)->elements()[1]), (V{1, 2, 3, 4, 6, 7}));
}

TEST(SortTest, StableMultiOperand) {
  const char* text = R"(HloModule m
cmp {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = s32[] parameter(2)
  d = s32[] parameter(3)
  ROOT lt = pred[] compare(a, b), direction=LT
}
ENTRY e {
  k = f32[4] parameter(0)
  v = s32[4] iota(), iota_dimension=0
  ROOT s = (f32[4], s32[4]) sort(k, v), dimensions={0}, is_stable=true, to_apply=cmp
})";
  auto r = RunHlo(text, {Array(P::kF32, {4}, {3, 1, 3, 0})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values(*(*r)->elements()[0]), (V{0, 1, 3, 3}));
  EXPECT_EQ(Values(*(*r)->elements()[1]), (V{3, 1, 0, 2}));
}

TEST(ControlTest, WhileConditionalCallFusion) {
  const char* text = R"(HloModule m
cond {
  p = (s32[], s32[]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(5)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], s32[]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  acc = s32[] get-tuple-element(p), index=1
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  acc2 = s32[] add(acc, i)
  ROOT t = (s32[], s32[]) tuple(i2, acc2)
}
double {
  x = s32[] parameter(0)
  ROOT y = s32[] add(x, x)
}
negate_it {
  x = s32[] parameter(0)
  ROOT y = s32[] negate(x)
}
fused {
  a = s32[] parameter(0)
  ROOT m = s32[] multiply(a, a)
}
ENTRY e {
  zero = s32[] constant(0)
  init = (s32[], s32[]) tuple(zero, zero)
  w = (s32[], s32[]) while(init), condition=cond, body=body
  sum = s32[] get-tuple-element(w), index=1
  b = s32[] parameter(0)
  c = s32[] conditional(b, sum, sum), branch_computations={double, negate_it}
  f = s32[] fusion(c), kind=kLoop, calls=fused
  ROOT r = s32[] call(f), to_apply=negate_it
})";
  auto r0 = RunHlo(text, {Array(P::kS32, {}, {0})});
  ASSERT_TRUE(r0.ok()) << r0.status();
  EXPECT_EQ(Values(**r0), (V{-400}));  // sum 0..4 = 10, doubled 20, squared 400
  auto r9 =
      RunHlo(text, {Array(P::kS32, {}, {9})});  // out of range: last branch
  EXPECT_EQ(Values(**r9), (V{-100}));
}

TEST(CollectiveTest, AllReduceAllGatherAcrossReplicas) {
  const char* text = R"(HloModule m, replica_count=2
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  id = u32[] replica-id()
  f = f32[] convert(id)
  one = f32[] constant(1)
  v = f32[] add(f, one)
  b = f32[2] broadcast(v), dimensions={}
  ar = f32[2] all-reduce(b), replica_groups={{0,1}}, to_apply=add
  ag = f32[4] all-gather(b), replica_groups={{0,1}}, dimensions={0}
  rs = f32[1] reduce-scatter(b), replica_groups={{0,1}}, dimensions={0}, to_apply=add
  cp = f32[2] collective-permute(b), source_target_pairs={{0,1},{1,0}}
  ROOT t = (f32[2], f32[4], f32[1], f32[2]) tuple(ar, ag, rs, cp)
})";
  auto p = testing::ParseModule(text);
  ASSERT_FALSE(p.file->HasErrors());
  auto r = Evaluate(*p.file, 0, {{}});
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->results.size(), 2u);
  const Literal& r0 = *r->results[0];
  const Literal& r1 = *r->results[1];
  EXPECT_EQ(Values(*r0.elements()[0]), (V{3, 3}));
  EXPECT_EQ(Values(*r0.elements()[1]), (V{1, 1, 2, 2}));
  EXPECT_EQ(Values(*r0.elements()[2]), (V{3}));
  EXPECT_EQ(Values(*r0.elements()[3]), (V{2, 2}));
  EXPECT_EQ(Values(*r1.elements()[3]), (V{1, 1}));
}

TEST(CollectiveTest, AllToAllSugaredAsyncAndPartitions) {
  const char* text = R"(HloModule m, num_partitions=2
ENTRY e {
  id = u32[] partition-id()
  f = f32[] convert(id)
  ten = f32[] constant(10)
  base = f32[] multiply(f, ten)
  b = f32[2] broadcast(base), dimensions={}
  i = f32[2] iota(), iota_dimension=0
  x = f32[2] add(b, i)
  s = ((f32[2]), f32[2]) all-to-all-start(x), channel_id=1, replica_groups={{0,1}}, dimensions={0}
  ROOT d = f32[2] all-to-all-done(s)
})";
  auto p = testing::ParseModule(text);
  ASSERT_FALSE(p.file->HasErrors());
  ASSERT_TRUE(CheckSupported(*p.file, 0).ok()) << CheckSupported(*p.file, 0);
  auto r = Evaluate(*p.file, 0, {{}});
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->results.size(), 2u);
  // Partition 0 holds {0, 1}, partition 1 {10, 11}: chunk j goes to j.
  EXPECT_EQ(Values(*r->results[0]), (V{0, 10}));
  EXPECT_EQ(Values(*r->results[1]), (V{1, 11}));
}

TEST(CustomCallTest, CublasGemmIsADot) {
  const char* text = R"(HloModule m
ENTRY e {
  a = f32[2,2] parameter(0)
  ROOT g = f32[2,2] custom-call(a, a), custom_call_target="__cublas$gemm", backend_config="{\"gemm_backend_config\": {\"alpha_real\":2,\"beta\":0,\"dot_dimension_numbers\":{\"lhs_contracting_dimensions\":[\"1\"],\"rhs_contracting_dimensions\":[\"0\"],\"lhs_batch_dimensions\":[],\"rhs_batch_dimensions\":[]}}}"
})";
  auto r = RunHlo(text, {Array(P::kF32, {2, 2}, {1, 2, 3, 4})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values(**r), (V{14, 20, 30, 44}));  // 2 * a.a
}

TEST(LinalgTest, CholeskyAndTriangularSolve) {
  const char* text = R"(HloModule m
ENTRY e {
  a = f32[2,2] parameter(0)
  l = f32[2,2] cholesky(a), lower=true
  u = f32[2,2] cholesky(a), lower=false
  t = f32[2,2] constant({{2, 0}, {1, 1}})
  b = f32[2,1] constant({{2}, {3}})
  x = f32[2,1] triangular-solve(t, b), left_side=true, lower=true, transpose_a=NO_TRANSPOSE
  c = f32[1,2] constant({{2, 3}})
  y = f32[1,2] triangular-solve(t, c), left_side=false, lower=true, transpose_a=TRANSPOSE
  ROOT r = (f32[2,2], f32[2,2], f32[2,1], f32[1,2]) tuple(l, u, x, y)
})";
  auto r = RunHlo(text, {Array(P::kF32, {2, 2}, {4, 2, 2, 3})});
  ASSERT_TRUE(r.ok()) << r.status();
  V l = Values(*(*r)->elements()[0]);
  EXPECT_EQ(l[0], 2);
  EXPECT_EQ(l[1], 0);
  EXPECT_EQ(l[2], 1);
  EXPECT_NEAR(l[3], std::sqrt(2.0), 1e-6);
  V u = Values(*(*r)->elements()[1]);
  EXPECT_EQ(u[1], 1);  // U = L^T
  EXPECT_EQ(u[2], 0);
  // [[2,0],[1,1]] x = [2,3]: x = [1, 2].
  EXPECT_EQ(Values(*(*r)->elements()[2]), (V{1, 2}));
  // y t^T = c with t^T = [[2,1],[0,1]]: y0 = 1, y1 = 3 - 1 = 2.
  EXPECT_EQ(Values(*(*r)->elements()[3]), (V{1, 2}));
}

TEST(FftTest, ForwardInverseAndReal) {
  const char* text = R"(HloModule m
ENTRY e {
  x = f32[4] parameter(0)
  r = c64[3] fft(x), fft_type=RFFT, fft_length={4}
  c = c64[4] convert(x)
  f = c64[4] fft(c), fft_type=FFT, fft_length={4}
  i = c64[4] fft(f), fft_type=IFFT, fft_length={4}
  b = f32[4] fft(r), fft_type=IRFFT, fft_length={4}
  re = f32[4] real(f)
  im = f32[4] imag(f)
  ii = f32[4] real(i)
  ROOT t = (f32[4], f32[4], f32[4], f32[4]) tuple(re, im, ii, b)
})";
  // x = 1 2 3 4: X = 10, -2+2i, -2, -2-2i.
  auto r = RunHlo(text, {Array(P::kF32, {4}, {1, 2, 3, 4})});
  ASSERT_TRUE(r.ok()) << r.status();
  V re = Values(*(*r)->elements()[0]), im = Values(*(*r)->elements()[1]);
  V want_re = {10, -2, -2, -2}, want_im = {0, 2, 0, -2};
  for (int k = 0; k < 4; ++k) {
    EXPECT_NEAR(re[k], want_re[k], 1e-5);
    EXPECT_NEAR(im[k], want_im[k], 1e-5);
  }
  V back = Values(*(*r)->elements()[2]),
    real_back = Values(*(*r)->elements()[3]);
  for (int k = 0; k < 4; ++k) {
    EXPECT_NEAR(back[k], k + 1, 1e-5);
    EXPECT_NEAR(real_back[k], k + 1, 1e-5);
  }
}

TEST(PrePassTest, UnsupportedOpsAreNamedWithLines) {
  auto p = testing::ParseModule(R"(HloModule m
ENTRY e {
  a = f32[2] parameter(0)
  b = f32[2] custom-call(a), custom_call_target="te_fused_attn_forward_ffi"
  t = token[] after-all()
  ROOT c = (f32[2], u32[], token[]) send(b, t), channel_id=1
})");
  absl::Status s = CheckSupported(*p.file, 0);
  ASSERT_FALSE(s.ok());
  const std::string m(s.message());
  EXPECT_NE(m.find("te_fused_attn_forward_ffi\" (line 4)"), std::string::npos)
      << m;
  EXPECT_NE(m.find("op send (line 6)"), std::string::npos) << m;
}

TEST(MemoryTest, HugeBroadcastIsRefusedUpFront) {
  auto p = testing::ParseModule(R"(HloModule m
ENTRY e {
  a = f32[] parameter(0)
  ROOT b = f32[1000000,1000000] broadcast(a), dimensions={}
})");
  auto estimate = EstimatePeakMemory(*p.file, 0);
  ASSERT_TRUE(estimate.has_value());
  EXPECT_EQ(*estimate, int64_t{4000000000000} + 4);
}

}  // namespace
}  // namespace hlo::exec
