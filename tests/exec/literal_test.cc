#include "exec/literal.h"

#include <chrono>
#include <cmath>
#include <limits>

#include "exec/element.h"
#include "gtest/gtest.h"

namespace hlo::exec {
namespace {

using P = PrimitiveType;

TEST(ElementTest, BF16RoundsToNearestEven) {
  // 1 + 2^-8 is halfway between bf16 1.0 and 1.0078125: ties to even (1.0).
  EXPECT_EQ(FloatToBF16(1.0f + std::ldexp(1.0f, -8)), 0x3f80);
  // 1 + 3*2^-8 is halfway between 1.0078125 (odd) and 1.015625: up.
  EXPECT_EQ(FloatToBF16(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3f82);
  EXPECT_EQ(BF16ToFloat(0x3f80), 1.0f);
  EXPECT_TRUE(std::isnan(BF16ToFloat(FloatToBF16(NAN))));
  EXPECT_EQ(FloatToBF16(std::numeric_limits<float>::infinity()), 0x7f80);
}

TEST(ElementTest, F16RoundsAndOverflows) {
  EXPECT_EQ(FloatToF16(1.0f), 0x3c00);
  EXPECT_EQ(FloatToF16(65520.0f), 0x7c00);  // rounds to inf
  EXPECT_EQ(FloatToF16(65504.0f), 0x7bff);
  EXPECT_EQ(F16ToFloat(0x0001), std::ldexp(1.0f, -24));  // smallest subnormal
}

TEST(ElementTest, Fp8E4M3FN) {
  const MiniFloat& f = *MiniFloatFormat(P::kF8E4M3FN);
  EXPECT_EQ(MiniFloatToFloat(f, 0x7e), 448.0f);  // max finite
  EXPECT_TRUE(std::isnan(MiniFloatToFloat(f, 0x7f)));
  EXPECT_EQ(FloatToMiniFloat(f, 448.0f), 0x7eu);
  EXPECT_EQ(FloatToMiniFloat(f, 1.0f), 0x38u);
  // No infinity: overflow goes to NaN (non-saturating conversion).
  EXPECT_EQ(FloatToMiniFloat(f, 1000.0f), 0x7fu);
  // 1.0625 is halfway between 1.0 and 1.125: ties to even (1.0).
  EXPECT_EQ(FloatToMiniFloat(f, 1.0625f), 0x38u);
  EXPECT_EQ(FloatToMiniFloat(f, 1.1875f), 0x3au);  // halfway 1.125/1.25 -> 1.25
  EXPECT_EQ(MiniFloatToFloat(f, 0x01), std::ldexp(1.0f, -9));  // subnormal
}

TEST(ElementTest, Fp8E5M2AndFnuz) {
  const MiniFloat& e5m2 = *MiniFloatFormat(P::kF8E5M2);
  EXPECT_EQ(MiniFloatToFloat(e5m2, 0x7b), 57344.0f);
  EXPECT_TRUE(std::isinf(MiniFloatToFloat(e5m2, 0x7c)));
  EXPECT_EQ(FloatToMiniFloat(e5m2, 1e6f), 0x7cu);  // overflow to inf
  const MiniFloat& fnuz = *MiniFloatFormat(P::kF8E4M3FNUZ);
  EXPECT_TRUE(std::isnan(MiniFloatToFloat(fnuz, 0x80)));
  EXPECT_EQ(FloatToMiniFloat(fnuz, -0.0f), 0u);  // no negative zero
  EXPECT_EQ(MiniFloatToFloat(fnuz, 0x7f), 240.0f);
  const MiniFloat& e2m1 = *MiniFloatFormat(P::kF4E2M1FN);
  EXPECT_EQ(MiniFloatToFloat(e2m1, 0x7), 6.0f);
  EXPECT_EQ(FloatToMiniFloat(e2m1, 100.0f), 0x7u);  // saturates: no inf/NaN
}

TEST(LiteralTest, ConvertFloatToIntIsSaturatingWithNanToZero) {
  auto f = Literal::CreateArray(P::kF32, {5});
  const double in[] = {NAN, 1e20, -1e20, -2.7, 3.9};
  for (int i = 0; i < 5; ++i) f->SetDouble(i, in[i]);
  auto s = ConvertLiteral(*f, P::kS32);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->GetInt(0), 0);
  EXPECT_EQ(s->GetInt(1), INT32_MAX);
  EXPECT_EQ(s->GetInt(2), INT32_MIN);
  EXPECT_EQ(s->GetInt(3), -2);
  EXPECT_EQ(s->GetInt(4), 3);
  auto u = ConvertLiteral(*f, P::kU8);
  EXPECT_EQ(u->GetInt(2), 0);
  EXPECT_EQ(u->GetInt(1), 255);
}

TEST(LiteralTest, IntConversionsWrapAndSubByteTypesSignExtend) {
  auto s = Literal::CreateArray(P::kS32, {3});
  s->SetInt(0, 300);
  s->SetInt(1, -1);
  s->SetInt(2, 9);
  auto u8 = ConvertLiteral(*s, P::kU8);
  EXPECT_EQ(u8->GetInt(0), 44);
  EXPECT_EQ(u8->GetInt(1), 255);
  auto s4 = ConvertLiteral(*s, P::kS4);
  EXPECT_EQ(s4->GetInt(2), -7);  // 9 wraps to -7 in 4 bits
  auto u2 = ConvertLiteral(*s, P::kU2);
  EXPECT_EQ(u2->GetInt(1), 3);
}

TEST(LiteralTest, ConvertToBF16RoundsOnce) {
  auto f = Literal::CreateArray(P::kF32, {1});
  f->SetDouble(0, 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -20));
  auto b = ConvertLiteral(*f, P::kBF16);
  EXPECT_EQ(b->data<uint16_t>()[0], 0x3f81);  // above halfway: up
  auto back = ConvertLiteral(*b, P::kF32);
  EXPECT_EQ(back->GetDouble(0), 1.0078125);
}

TEST(LiteralTest, HugeArrayIsRefusedBeforeAllocating) {
  SetMemoryLimit(int64_t{1} << 30);
  const auto start = std::chrono::steady_clock::now();
  auto big = Literal::CreateArray(P::kF32, {1000000, 1000000});
  const double s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  SetMemoryLimit(0);
  ASSERT_FALSE(big.ok());
  EXPECT_NE(std::string(big.status().message()).find("4000000000000 bytes"),
            std::string::npos)
      << big.status().message();
  EXPECT_LT(s, 0.1);
  auto overflow = Literal::CreateArray(P::kF32, {INT64_MAX / 2, 4});
  EXPECT_FALSE(overflow.ok());
}

TEST(LiteralTest, BitcastConvertReinterpretsBytes) {
  auto f = Literal::CreateArray(P::kF32, {1});
  f->SetDouble(0, 1.0);
  auto s = BitcastConvertLiteral(*f, LiteralShape::Array(P::kS32, {1}));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->GetInt(0), 0x3f800000);
  auto bytes = BitcastConvertLiteral(*f, LiteralShape::Array(P::kU8, {1, 4}));
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ(bytes->GetInt(3), 0x3f);  // little endian, last dim is the bytes
}

}  // namespace
}  // namespace hlo::exec
