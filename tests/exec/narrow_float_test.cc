// Narrow floats (bf16, f16, f8) compute through the f32 kernels on converted
// blocks: each result must be the f32 result of the same inputs, rounded once
// to the narrow type, across block edges and with a broadcast scalar operand.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "exec_test_util.h"
#include "gtest/gtest.h"

namespace hlo::exec {
namespace {

using ::hlo::exec::testing::RunHlo;
using P = PrimitiveType;

// 2500 elements: two full 1024-element blocks and a partial one.
constexpr int64_t kCount = 2500;

// A literal of `type` with pseudo-random bit patterns (a scalar for count 1).
Value Bits(P type, int bytes, int64_t count, uint32_t seed) {
  auto lit = Literal::CreateArray(
      type, count == 1 ? std::vector<int64_t>{} : std::vector<int64_t>{count});
  uint32_t s = seed;
  for (int64_t i = 0; i < count; ++i) {
    s = s * 1664525u + 1013904223u;
    // Every pattern of a byte type in turn; random ones for 16 bits, with
    // exponents near 1 most of the time so that sums and powers stay finite.
    uint32_t v = bytes == 1 ? static_cast<uint32_t>(i + seed) & 0xff
                            : (s >> 16) & 0xffff;
    if (bytes == 2 && i % 4 != 0) v = (v & 0x807f) | 0x3f00;  // bf16 ~ [0.5, 2)
    if (type == P::kF4E2M1FN) v &= 0xf;
    std::memcpy(lit->raw() + i * bytes, &v, bytes);
  }
  return std::make_shared<const Literal>(*std::move(lit));
}

// The same values in f32.
Value ToF32(const Literal& narrow) {
  auto lit = Literal::CreateArray(P::kF32, narrow.dims());
  for (int64_t i = 0; i < narrow.count(); ++i) {
    lit->SetDouble(i, narrow.GetDouble(i));
  }
  return std::make_shared<const Literal>(*std::move(lit));
}

std::string Module(const std::string& type, const std::string& op, int arity,
                   bool scalar_b, const std::string& result_type = "") {
  const std::string dims = "[" + std::to_string(kCount) + "]";
  const std::string out = result_type.empty() ? type : result_type;
  std::string text =
      "HloModule m\nENTRY e {\n  a = " + type + dims + " parameter(0)\n";
  if (arity == 1)
    return text + "  ROOT r = " + out + dims + " " + op + "(a)\n}\n";
  text += "  b = " + type + (scalar_b ? "[]" : dims) + " parameter(1)\n";
  // A scalar b is used as is (implicit broadcast, as old dumps have it).
  return text + "  ROOT r = " + out + dims + " " + op + "(a, b)\n}\n";
}

// Runs `op` on the narrow operands and on their f32 values; the narrow result
// must equal the f32 one rounded to the narrow type (NaN for NaN).
void ExpectRoundedF32(P type, const std::string& name, int bytes,
                      const std::string& op, int arity, bool scalar_b = false,
                      const std::string& direction = "") {
  SCOPED_TRACE(name + " " + op + direction + (scalar_b ? " scalar b" : ""));
  Value a = Bits(type, bytes, kCount, 7);
  Value b = Bits(type, bytes, scalar_b ? 1 : kCount, 101);
  std::vector<Value> narrow_args = {a}, f32_args = {ToF32(*a)};
  if (arity == 2) {
    narrow_args.push_back(b);
    f32_args.push_back(ToF32(*b));
  }
  const bool compare = !direction.empty();
  std::string full_op = compare ? "compare" : op;
  std::string narrow_text =
      Module(name, full_op, arity, scalar_b, compare ? "pred" : "");
  std::string f32_text =
      Module("f32", full_op, arity, scalar_b, compare ? "pred" : "");
  if (compare) {
    const std::string attr = ", direction=" + direction + "\n}";
    narrow_text.replace(narrow_text.rfind("\n}"), 2, attr);
    f32_text.replace(f32_text.rfind("\n}"), 2, attr);
  }
  auto got = RunHlo(narrow_text, narrow_args);
  ASSERT_TRUE(got.ok()) << got.status();
  auto want = RunHlo(f32_text, f32_args);
  ASSERT_TRUE(want.ok()) << want.status();
  ASSERT_EQ((*got)->count(), kCount);
  auto rounded = Literal::CreateArray((*got)->type(), {kCount});
  int mismatches = 0;
  for (int64_t i = 0; i < kCount; ++i) {
    const double w = (*want)->GetDouble(i);
    rounded->SetDouble(i, w);
    const double g = (*got)->GetDouble(i);
    const double r = rounded->GetDouble(i);
    const bool same = std::isnan(r)
                          ? std::isnan(g)
                          : g == r && std::signbit(g) == std::signbit(r);
    if (!same && ++mismatches <= 5) {
      ADD_FAILURE() << "element " << i << ": got " << g << ", f32 gives " << w
                    << ", rounded " << r;
    }
  }
  EXPECT_EQ(mismatches, 0);
}

struct NarrowType {
  P type;
  const char* name;
  int bytes;
};

void PrintTo(const NarrowType& t, std::ostream* os) { *os << t.name; }

class NarrowFloatTest : public ::testing::TestWithParam<NarrowType> {};

TEST_P(NarrowFloatTest, BinaryOpsRoundTheF32Result) {
  const NarrowType& t = GetParam();
  for (const char* op : {"add", "subtract", "multiply", "divide", "power",
                         "maximum", "remainder", "atan2"}) {
    ExpectRoundedF32(t.type, t.name, t.bytes, op, 2);
  }
  ExpectRoundedF32(t.type, t.name, t.bytes, "divide", 2, /*scalar_b=*/true);
}

TEST_P(NarrowFloatTest, UnaryOpsRoundTheF32Result) {
  const NarrowType& t = GetParam();
  // exponential, log, tanh and sqrt take the vectorized f32 kernels.
  for (const char* op : {"exponential", "log", "tanh", "sqrt", "negate", "sine",
                         "floor", "sign"}) {
    ExpectRoundedF32(t.type, t.name, t.bytes, op, 1);
  }
}

TEST_P(NarrowFloatTest, CompareMatchesF32) {
  const NarrowType& t = GetParam();
  ExpectRoundedF32(t.type, t.name, t.bytes, "", 2, false, "LT");
  ExpectRoundedF32(t.type, t.name, t.bytes, "", 2, true, "EQ");
}

INSTANTIATE_TEST_SUITE_P(
    Types, NarrowFloatTest,
    ::testing::Values(NarrowType{P::kBF16, "bf16", 2},
                      NarrowType{P::kF16, "f16", 2},
                      NarrowType{P::kF8E4M3FN, "f8e4m3fn", 1},
                      NarrowType{P::kF8E5M2, "f8e5m2", 1}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace hlo::exec
