#include "hlo/literal_text.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hlo {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

LiteralShape Arr(PrimitiveType t, std::vector<int64_t> dims = {}) {
  return LiteralShape::Array(t, std::move(dims));
}

LiteralValue Ok(std::string_view text, const LiteralShape& shape) {
  absl::StatusOr<LiteralValue> v = DecodeLiteral(text, shape);
  EXPECT_TRUE(v.ok()) << text << ": " << v.status();
  return v.ok() ? *v : LiteralValue{};
}

std::string Err(std::string_view text, const LiteralShape& shape) {
  absl::StatusOr<LiteralValue> v = DecodeLiteral(text, shape);
  EXPECT_FALSE(v.ok()) << text;
  return v.ok() ? "" : std::string(v.status().message());
}

uint64_t Bits(double d) {
  uint64_t b;
  std::memcpy(&b, &d, sizeof(b));
  return b;
}

TEST(LiteralTextTest, FloatsThatRoundToInfinityAreOutOfRange) {
  // XLA rounds to the type first: what stays finite is in range.
  EXPECT_THAT(Ok("65504", Arr(PrimitiveType::kF16)).floats, ElementsAre(65504));
  EXPECT_THAT(Ok("-65519", Arr(PrimitiveType::kF16)).floats,
              ElementsAre(-65519));
  EXPECT_THAT(Ok("-65505", Arr(PrimitiveType::kBF16)).floats,
              ElementsAre(-65505));
  EXPECT_THAT(Err("-65520", Arr(PrimitiveType::kF16)),
              HasSubstr("value -65520 is out of range for literal's primitive "
                        "type F16 namely [-65504, 65504]."));
  EXPECT_THAT(Err("1e100", Arr(PrimitiveType::kBF16)),
              HasSubstr("out of range"));
  EXPECT_THAT(Err("1e39", Arr(PrimitiveType::kF32)), HasSubstr("out of range"));
  // One NaN encoding, no payloads: XLA rejects nan(0x1) for these.
  EXPECT_THAT(Err("nan(0x1)", Arr(PrimitiveType::kF8E4M3FN)),
              HasSubstr("tries to set NaN payload 0x1, but f8e4m3fn does not "
                        "support payloads"));
  EXPECT_THAT(Err("(1, -1e39)", Arr(PrimitiveType::kC64)),
              HasSubstr("out of range"));
}

TEST(LiteralTextTest, IntegerScalars) {
  EXPECT_THAT(Ok("1", Arr(PrimitiveType::kS32)).ints, ElementsAre(1));
  EXPECT_THAT(Ok("-2", Arr(PrimitiveType::kS32)).ints, ElementsAre(-2));
  EXPECT_THAT(Ok("-9223372036854775808", Arr(PrimitiveType::kS64)).ints,
              ElementsAre(std::numeric_limits<int64_t>::min()));
  EXPECT_THAT(Ok("18446744073709551615", Arr(PrimitiveType::kU64)).uints,
              ElementsAre(std::numeric_limits<uint64_t>::max()));
  EXPECT_THAT(Ok("255", Arr(PrimitiveType::kU8)).uints, ElementsAre(255u));
  EXPECT_THAT(Ok("-8", Arr(PrimitiveType::kS4)).ints, ElementsAre(-8));

  EXPECT_THAT(Err("128", Arr(PrimitiveType::kS8)),
              HasSubstr("offset 0: value 128 is out of range for literal's "
                        "primitive type S8 namely [-128, 127]."));
  // XLA casts a negative integer to uint64 before its range check: -1 is a
  // valid u64 (its maximum), and no narrower unsigned type takes it.
  EXPECT_THAT(Ok("-1", Arr(PrimitiveType::kU64)).uints,
              ElementsAre(std::numeric_limits<uint64_t>::max()));
  EXPECT_THAT(Err("-1", Arr(PrimitiveType::kU4)),
              HasSubstr("value -1 is out of range for literal's primitive type "
                        "U4 namely [0, 15]."));
  EXPECT_THAT(Err("-1", Arr(PrimitiveType::kU32)), HasSubstr("out of range"));
  EXPECT_THAT(Err("8", Arr(PrimitiveType::kS4)), HasSubstr("out of range"));
  EXPECT_THAT(Err("18446744073709551616", Arr(PrimitiveType::kU64)),
              HasSubstr("out of range"));
  EXPECT_THAT(Err("1.5", Arr(PrimitiveType::kS32)),
              HasSubstr("expected an integer for s32"));
  EXPECT_THAT(Err("12abc", Arr(PrimitiveType::kS32)),
              HasSubstr("offset 0: malformed number"));
}

TEST(LiteralTextTest, FloatScalars) {
  EXPECT_THAT(Ok("1.5", Arr(PrimitiveType::kF32)).floats, ElementsAre(1.5));
  EXPECT_THAT(Ok(".5", Arr(PrimitiveType::kF32)).floats, ElementsAre(0.5));
  EXPECT_THAT(Ok("-2.", Arr(PrimitiveType::kF32)).floats, ElementsAre(-2.0));
  EXPECT_THAT(Ok("1e-3", Arr(PrimitiveType::kF64)).floats, ElementsAre(1e-3));
  EXPECT_THAT(Ok("-1.5e+10", Arr(PrimitiveType::kBF16)).floats,
              ElementsAre(-1.5e10));
  EXPECT_THAT(Ok("3", Arr(PrimitiveType::kF16)).floats, ElementsAre(3.0));
  EXPECT_EQ(Ok("inf", Arr(PrimitiveType::kF32)).floats[0],
            std::numeric_limits<double>::infinity());
  EXPECT_EQ(Ok("-inf", Arr(PrimitiveType::kF32)).floats[0],
            -std::numeric_limits<double>::infinity());
  double nan = Ok("nan", Arr(PrimitiveType::kF32)).floats[0];
  EXPECT_TRUE(std::isnan(nan));
  EXPECT_FALSE(std::signbit(nan));
  double neg_nan = Ok("-nan", Arr(PrimitiveType::kF32)).floats[0];
  EXPECT_TRUE(std::isnan(neg_nan));
  EXPECT_TRUE(std::signbit(neg_nan));
  // nan(0x7) for f32: payload in the top 23 mantissa bits of the double.
  double payload = Ok("nan(0x7)", Arr(PrimitiveType::kF32)).floats[0];
  EXPECT_TRUE(std::isnan(payload));
  EXPECT_EQ(Bits(payload), 0x7FF0000000000000ull | (uint64_t{7} << 29));
  EXPECT_TRUE(
      std::signbit(Ok("-nan(0x1)", Arr(PrimitiveType::kBF16)).floats[0]));

  EXPECT_THAT(Err("nan(0x100)", Arr(PrimitiveType::kBF16)),
              HasSubstr("NaN payload does not fit bf16"));
  EXPECT_THAT(Err("nan(0x0)", Arr(PrimitiveType::kF32)), HasSubstr("non-zero"));
  EXPECT_THAT(Err("nan(7)", Arr(PrimitiveType::kF32)), HasSubstr("offset 3:"));
  EXPECT_THAT(Err("1e", Arr(PrimitiveType::kF32)), HasSubstr("exponent"));
  EXPECT_THAT(Err("1e999", Arr(PrimitiveType::kF64)),
              HasSubstr("out of range"));
  EXPECT_THAT(Err("true", Arr(PrimitiveType::kF32)), HasSubstr("offset 0:"));
}

TEST(LiteralTextTest, PredAndComplex) {
  EXPECT_THAT(Ok("true", Arr(PrimitiveType::kPred)).preds, ElementsAre(1));
  EXPECT_THAT(Ok("{1, 0, 0, 0}", Arr(PrimitiveType::kPred, {4})).preds,
              ElementsAre(1, 0, 0, 0));
  EXPECT_THAT(Err("2", Arr(PrimitiveType::kPred)),
              HasSubstr("true, false, 0 or 1"));

  LiteralValue c = Ok("(1, 2)", Arr(PrimitiveType::kC64));
  ASSERT_EQ(c.complexes.size(), 1u);
  EXPECT_EQ(c.complexes[0], std::complex<double>(1, 2));
  c = Ok("{(1, 2), (-inf, nan)}", Arr(PrimitiveType::kC128, {2}));
  ASSERT_EQ(c.complexes.size(), 2u);
  EXPECT_TRUE(std::isinf(c.complexes[1].real()));
  EXPECT_TRUE(std::isnan(c.complexes[1].imag()));
  EXPECT_THAT(Err("(1 2)", Arr(PrimitiveType::kC64)),
              HasSubstr("offset 3: expected ','"));
}

TEST(LiteralTextTest, Arrays) {
  LiteralValue v =
      Ok("{ { 1, 2, 3 }, { 4, 5, 6 } }", Arr(PrimitiveType::kF32, {2, 3}));
  EXPECT_THAT(v.floats, ElementsAre(1, 2, 3, 4, 5, 6));
  EXPECT_THAT(v.dims, ElementsAre(2, 3));
  // Commas between elements are optional, as in XLA.
  EXPECT_THAT(Ok("{1 2 3}", Arr(PrimitiveType::kS32, {3})).ints,
              ElementsAre(1, 2, 3));
  EXPECT_THAT(Ok("{}", Arr(PrimitiveType::kS32, {0})).ints, IsEmpty());
  EXPECT_TRUE(Ok("{ {}, {} }", Arr(PrimitiveType::kS32, {2, 0})).ints.empty());
  // Corpus: a 3-d literal with mixed spacing.
  v = Ok("{ { {1}, {2} }, { {3}, {4} } }", Arr(PrimitiveType::kS32, {2, 2, 1}));
  EXPECT_THAT(v.ints, ElementsAre(1, 2, 3, 4));

  EXPECT_THAT(Err("{1, 2}", Arr(PrimitiveType::kS32, {3})),
              HasSubstr("offset 0: dimension 0 expects 3 elements, got 2"));
  EXPECT_THAT(Err("{1, 2, 3, 4}", Arr(PrimitiveType::kS32, {3})),
              HasSubstr("offset 10: dimension 0 expects 3 elements"));
  EXPECT_THAT(Err("{{1, 2}, {3}}", Arr(PrimitiveType::kS32, {2, 2})),
              HasSubstr("offset 9: dimension 1 expects 2 elements, got 1"));
  EXPECT_THAT(Err("{1, 2}", Arr(PrimitiveType::kS32, {1, 2})),
              HasSubstr("offset 1: expected '{' for dimension 1"));
  EXPECT_THAT(Err("{{1}}", Arr(PrimitiveType::kS32, {1})),
              HasSubstr("offset 1: too many nested braces"));
  EXPECT_THAT(Err("{1, 2", Arr(PrimitiveType::kS32, {2})),
              HasSubstr("offset 0: unterminated"));
  EXPECT_THAT(Err("{1, 2} 3", Arr(PrimitiveType::kS32, {2})),
              HasSubstr("offset 7:"));
}

TEST(LiteralTextTest, Elided) {
  LiteralValue v = Ok("{...}", Arr(PrimitiveType::kF32, {1000, 1000}));
  EXPECT_TRUE(v.elided);
  EXPECT_EQ(v.stored_elements(), 0u);
  EXPECT_THAT(v.dims, ElementsAre(1000, 1000));
  EXPECT_THAT(Err("{ {...} }", Arr(PrimitiveType::kF32, {1, 2})),
              HasSubstr("offset 3: elided data"));
  LiteralShape tuple = LiteralShape::Tuple(
      {Arr(PrimitiveType::kF32), Arr(PrimitiveType::kS32, {2})});
  EXPECT_TRUE(Ok("{...}", tuple).elided);
}

TEST(LiteralTextTest, Tuples) {
  LiteralShape shape = LiteralShape::Tuple(
      {Arr(PrimitiveType::kF32), Arr(PrimitiveType::kS32, {2})});
  LiteralValue v = Ok("( 1, {2, 3} )", shape);
  ASSERT_TRUE(v.is_tuple());
  ASSERT_EQ(v.tuple_elements.size(), 2u);
  EXPECT_THAT(v.tuple_elements[0].floats, ElementsAre(1.0));
  EXPECT_THAT(v.tuple_elements[1].ints, ElementsAre(2, 3));
  // Same text, complex shape: a complex scalar, not a tuple.
  EXPECT_EQ(Ok("(1, 0)", Arr(PrimitiveType::kC64)).complexes.size(), 1u);
  EXPECT_THAT(Err("(1)", shape), HasSubstr("offset 2: expected ','"));
  EXPECT_THAT(Err("(1, {2, 3}, 4)", shape),
              HasSubstr("offset 10: tuple literal expects 2 elements"));
  EXPECT_TRUE(Ok("()", LiteralShape::Tuple({})).tuple_elements.empty());
}

TEST(LiteralTextTest, ConstantOperandList) {
  absl::StatusOr<LiteralValue> v = DecodeConstantOperandList(
      "({ {1, 2}, {3, 4} })", Arr(PrimitiveType::kS32, {2, 2}));
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_THAT(v->ints, ElementsAre(1, 2, 3, 4));
  v = DecodeConstantOperandList("((1, 2))", Arr(PrimitiveType::kC64));
  ASSERT_TRUE(v.ok()) << v.status();
  v = DecodeConstantOperandList("(1", Arr(PrimitiveType::kS32));
  ASSERT_FALSE(v.ok());
  EXPECT_THAT(std::string(v.status().message()), HasSubstr("offset 2:"));
}

TEST(LiteralTextTest, ShapedLiteral) {
  // custom-call literal= values from the corpus.
  absl::StatusOr<LiteralValue> v = DecodeShapedLiteral(
      "( s32[4]{0} {4, 128, 128, 3}, pred[4]{0} {1, 0, 0, 0} )");
  ASSERT_TRUE(v.ok()) << v.status();
  ASSERT_EQ(v->tuple_elements.size(), 2u);
  EXPECT_THAT(v->tuple_elements[0].ints, ElementsAre(4, 128, 128, 3));
  EXPECT_THAT(v->tuple_elements[1].preds, ElementsAre(1, 0, 0, 0));
  v = DecodeShapedLiteral("s32[2] {1, 2}");
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_THAT(v->ints, ElementsAre(1, 2));
  v = DecodeShapedLiteral("f32[] 1.5");
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_THAT(v->floats, ElementsAre(1.5));
  v = DecodeShapedLiteral("q32[] 1");
  ASSERT_FALSE(v.ok());
  EXPECT_THAT(std::string(v.status().message()), HasSubstr("offset 0:"));
}

TEST(LiteralTextTest, OlderAndNewerForms) {
  // Newer XLA tests write a scalar for an array constant (corpus:
  // `%operands = f32[9] constant(0)`): one element, flagged as a splat.
  LiteralValue v = Ok("0", Arr(PrimitiveType::kF32, {9}));
  EXPECT_TRUE(v.splat);
  EXPECT_THAT(v.floats, ElementsAre(0.0));
  EXPECT_FALSE(Ok("{1, 2}", Arr(PrimitiveType::kS32, {2})).splat);
  // 2018 printers repeated the shape inside the parentheses.
  absl::StatusOr<LiteralValue> old = DecodeConstantOperandList(
      "(f32[2,3] {{1, 2, 3}, {4, 5, 6}})", Arr(PrimitiveType::kF32, {2, 3}));
  ASSERT_TRUE(old.ok()) << old.status();
  EXPECT_THAT(old->floats, ElementsAre(1, 2, 3, 4, 5, 6));
  old = DecodeConstantOperandList("(s32[2]{0} {1, 2})",
                                  Arr(PrimitiveType::kS32, {2}));
  ASSERT_TRUE(old.ok()) << old.status();
  EXPECT_THAT(old->ints, ElementsAre(1, 2));
  old = DecodeConstantOperandList("(f32[] 42)", Arr(PrimitiveType::kF32));
  ASSERT_TRUE(old.ok()) << old.status();
}

TEST(LiteralTextTest, DepthAndSizeBounds) {
  // 100 nested tuples: an error, not a stack overflow.
  LiteralShape deep = Arr(PrimitiveType::kS32);
  for (int i = 0; i < 100; ++i) deep = LiteralShape::Tuple({deep});
  std::string text = std::string(100, '(') + "1" + std::string(100, ')');
  EXPECT_THAT(Err(text, deep), HasSubstr("nested too deeply"));
  // Rank 65 arrays are refused up front.
  EXPECT_THAT(Err("{}", Arr(PrimitiveType::kS32, std::vector<int64_t>(65, 1))),
              HasSubstr("rank"));
  // Huge declared dims with tiny text: linear work, clean count error.
  EXPECT_THAT(Err("{1}", Arr(PrimitiveType::kS32, {int64_t{1} << 40})),
              HasSubstr("dimension 0 expects"));
  // Deep braces against a small rank stop at the rank.
  std::string braces = std::string(10000, '{');
  EXPECT_THAT(Err(braces, Arr(PrimitiveType::kS32, {1, 1})),
              HasSubstr("too many nested braces"));
  // Shaped literals nest via tuples only; bounded too.
  std::string shaped =
      std::string(200, '(') + "s32[] 1" + std::string(200, ')');
  EXPECT_FALSE(DecodeShapedLiteral(shaped).ok());
}

}  // namespace
}  // namespace hlo
