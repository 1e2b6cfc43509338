// Elementwise fusions run block by block (exec/fused_elementwise.cc) give
// bit-identical results to running the fused computation instruction by
// instruction (which the evaluator does when it collects statistics), for
// sizes around the block edges, mixed types, converts, scalar constants
// and parameters, compare/select; and computations that do not qualify
// still run.
#include <bit>
#include <cstdint>
#include <string>
#include <vector>

#include "exec_test_util.h"
#include "gtest/gtest.h"

namespace hlo::exec {
namespace {

using testing::ParseModule;

Value Ramp(PrimitiveType t, int64_t n, double scale) {
  auto lit = Literal::CreateArray(t, {n});
  for (int64_t i = 0; i < n; ++i)
    lit->SetDouble(
        i, scale * (static_cast<double>((i * 7919) % 2003) - 1001) / 1001.0);
  return std::make_shared<const Literal>(*std::move(lit));
}

// Runs `text` twice: plain (stats on forces instruction by instruction)
// and default; returns {plain, default}.
std::pair<Value, Value> RunBoth(const std::string& text,
                                const std::vector<Value>& args) {
  auto p = ParseModule(text);
  EXPECT_FALSE(p.file->HasErrors()) << text;
  EvalOptions plain;
  plain.collect_stats = true;
  auto a = Evaluate(*p.file, 0, {args}, plain);
  auto b = Evaluate(*p.file, 0, {args});
  EXPECT_TRUE(a.ok()) << a.status();
  EXPECT_TRUE(b.ok()) << b.status();
  if (!a.ok() || !b.ok()) return {};
  return {a->results[0], b->results[0]};
}

void ExpectSameBits(const Literal& a, const Literal& b) {
  ASSERT_EQ(a.type(), b.type());
  ASSERT_EQ(a.count(), b.count());
  ASSERT_EQ(a.byte_size(), b.byte_size());
  for (int64_t i = 0; i < a.byte_size(); ++i) {
    if (a.raw()[i] != b.raw()[i]) {
      FAIL() << "first difference at byte " << i << ": "
             << a.GetDouble(i / a.element_bytes()) << " vs "
             << b.GetDouble(i / b.element_bytes());
    }
  }
}

std::string Replace(std::string s, const std::string& from,
                    const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos;
       at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

TEST(FusedElementwise, SameBitsAsInstructionByInstruction) {
  // exp(x * y + z), a scalar constant broadcast, a bf16 input converted,
  // a compare and select, a scalar parameter, and a bf16 result.
  const std::string text =
      "HloModule m\n\n"
      "fused {\n"
      "  x = f32[N] parameter(0)\n  y = bf16[N] parameter(1)\n"
      "  z = f32[N] parameter(2)\n  s = f32[] parameter(3)\n"
      "  yc = f32[N] convert(y)\n  m = f32[N] multiply(x, yc)\n"
      "  a = f32[N] add(m, z)\n  e = f32[N] exponential(a)\n"
      "  c = f32[] constant(0.25)\n  cb = f32[N] broadcast(c), dimensions={}\n"
      "  t = f32[N] tanh(e)\n  gt = pred[N] compare(a, cb), direction=GT\n"
      "  sel = f32[N] select(gt, e, t)\n  sc = f32[N] multiply(sel, s)\n"
      "  ROOT r = bf16[N] convert(sc)\n}\n\n"
      "ENTRY e {\n  p0 = f32[N] parameter(0)\n  p1 = bf16[N] parameter(1)\n"
      "  p2 = f32[N] parameter(2)\n  p3 = f32[] parameter(3)\n"
      "  ROOT f = bf16[N] fusion(p0, p1, p2, p3), kind=kLoop, calls=fused\n}\n";
  // Below the blockwise threshold, exactly one block, block edges, odd.
  for (int64_t n : {1000, 16384 * 4, 16384 * 4 + 1, 16384 * 9 - 1, 300001}) {
    SCOPED_TRACE(n);
    const std::vector<Value> args = {
        Ramp(PrimitiveType::kF32, n, 3), Ramp(PrimitiveType::kBF16, n, 2),
        Ramp(PrimitiveType::kF32, n, 1),
        std::make_shared<const Literal>(
            Literal::ScalarFromDouble(PrimitiveType::kF32, 1.5))};
    auto [plain, blockwise] =
        RunBoth(Replace(text, "[N]", "[" + std::to_string(n) + "]"), args);
    ASSERT_TRUE(plain && blockwise);
    ExpectSameBits(*plain, *blockwise);
  }
}

TEST(FusedElementwise, AllF32ChainSameBits) {
  // The float-pointer path: arithmetic with a scalar constant and a scalar
  // parameter, and vector_math functions, root written in place.
  const std::string text =
      "HloModule m\n\n"
      "fused {\n"
      "  x = f32[N] parameter(0)\n  y = f32[N] parameter(1)\n"
      "  z = f32[N] parameter(2)\n  s = f32[] parameter(3)\n"
      "  m = f32[N] multiply(x, y)\n  a = f32[N] add(m, z)\n"
      "  e = f32[N] exponential(a)\n  c = f32[] constant(0.75)\n"
      "  cb = f32[N] broadcast(c), dimensions={}\n"
      "  d = f32[N] divide(e, cb)\n  t = f32[N] tanh(d)\n"
      "  u = f32[N] subtract(t, s)\n  l = f32[N] log-plus-one(u)\n"
      "  ROOT r = f32[N] multiply(l, x)\n}\n\n"
      "ENTRY e {\n  p0 = f32[N] parameter(0)\n  p1 = f32[N] parameter(1)\n"
      "  p2 = f32[N] parameter(2)\n  p3 = f32[] parameter(3)\n"
      "  ROOT f = f32[N] fusion(p0, p1, p2, p3), kind=kLoop, calls=fused\n}\n";
  for (int64_t n : {16384 * 4, 16384 * 5 + 3, 250007}) {
    SCOPED_TRACE(n);
    const std::vector<Value> args = {
        Ramp(PrimitiveType::kF32, n, 3), Ramp(PrimitiveType::kF32, n, 2),
        Ramp(PrimitiveType::kF32, n, 1),
        std::make_shared<const Literal>(
            Literal::ScalarFromDouble(PrimitiveType::kF32, 0.5))};
    auto [plain, blockwise] =
        RunBoth(Replace(text, "[N]", "[" + std::to_string(n) + "]"), args);
    ASSERT_TRUE(plain && blockwise);
    ExpectSameBits(*plain, *blockwise);
  }
}

TEST(FusedElementwise, MultiDimensionalAndIntegerOps) {
  const std::string text =
      "HloModule m\n\n"
      "fused {\n"
      "  x = s32[300,700] parameter(0)\n  y = s32[300,700] parameter(1)\n"
      "  k = s32[] constant(3)\n  kb = s32[300,700] broadcast(k), "
      "dimensions={}\n"
      "  d = s32[300,700] divide(x, kb)\n  sh = s32[300,700] shift-left(d, y)\n"
      "  ROOT r = s32[300,700] maximum(sh, x)\n}\n\n"
      "ENTRY e {\n  p0 = s32[300,700] parameter(0)\n"
      "  p1 = s32[300,700] parameter(1)\n"
      "  ROOT f = s32[300,700] fusion(p0, p1), kind=kLoop, calls=fused\n}\n";
  auto x = Literal::CreateArray(PrimitiveType::kS32, {300, 700});
  auto y = Literal::CreateArray(PrimitiveType::kS32, {300, 700});
  for (int64_t i = 0; i < x->count(); ++i) {
    x->SetInt(i, (i * 2654435761u) % 100000 - 50000);
    y->SetInt(i, i % 40);  // shifts past the width give 0
  }
  auto [plain, blockwise] =
      RunBoth(text, {std::make_shared<const Literal>(*std::move(x)),
                     std::make_shared<const Literal>(*std::move(y))});
  ASSERT_TRUE(plain && blockwise);
  ExpectSameBits(*plain, *blockwise);
  EXPECT_EQ(blockwise->dims(), (std::vector<int64_t>{300, 700}));
}

TEST(FusedElementwise, NonElementwiseFusionStillRuns) {
  // A reduce inside: not blockwise, the plain path runs it.
  const std::string text =
      "HloModule m\n\n"
      "add { a = f32[] parameter(0)\n b = f32[] parameter(1)\n"
      "  ROOT s = f32[] add(a, b) }\n\n"
      "fused {\n  x = f32[100000] parameter(0)\n"
      "  e = f32[100000] exponential(x)\n  z = f32[] constant(0)\n"
      "  ROOT r = f32[] reduce(e, z), dimensions={0}, to_apply=add\n}\n\n"
      "ENTRY e {\n  p0 = f32[100000] parameter(0)\n"
      "  ROOT f = f32[] fusion(p0), kind=kInput, calls=fused\n}\n";
  auto [plain, blockwise] =
      RunBoth(text, {Ramp(PrimitiveType::kF32, 100000, 1)});
  ASSERT_TRUE(plain && blockwise);
  ExpectSameBits(*plain, *blockwise);
}

}  // namespace
}  // namespace hlo::exec
