// The fused kernels' data movement, checked without a GPU as
// fused_host_test.cc checks the elementwise ops: fusions that broadcast,
// transpose, reshape, bitcast, slice, concatenate, pad, reverse and
// dynamic-slice (the elemental walk of fused_codegen.cc) compiled by the
// host's C++ compiler and held to the CPU evaluator bit for bit on random
// arguments; and the fusions the generator must still decline.
#ifdef HLO_LSP_WITH_CUDA
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "exec/platform.h"
#include "fused_host_util.h"
#include "fused_test_util.h"
#include "gtest/gtest.h"

namespace hlo::exec::gpu {
namespace {

using P = PrimitiveType;
using testing::BuildOnHost;
using testing::Compiler;
using testing::CompilerRuns;
using testing::HostCall;

// An argument of `shape`: integers random (scalar ones taken from `ints`
// in order while it lasts), floats random with a few NaN, inf and -0.
Value Argument(const LiteralShape& shape, std::vector<int64_t>& ints,
               std::mt19937_64& rng) {
  auto lit = Literal::Create(shape);
  EXPECT_TRUE(lit.ok());
  const int64_t n = lit->count();
  const int eb = lit->element_bytes();
  for (int64_t i = 0; i < n; ++i) {
    uint8_t* at = lit->raw() + static_cast<int64_t>(eb) * i;
    uint64_t v = rng();
    if (shape.type == P::kPred) v &= 1;
    if (n == 1 && !ints.empty() && !testing::IsFloatType(shape.type)) {
      v = static_cast<uint64_t>(ints.front());
      ints.erase(ints.begin());
    }
    if (testing::IsFloatType(shape.type)) {
      const double specials[] = {NAN, INFINITY, -0.0, 0.0, 1.0};
      const double d =
          rng() % 16 == 0 ? specials[rng() % 5]
                          : std::ldexp(static_cast<double>(rng() % 2001) - 1000,
                                       static_cast<int>(rng() % 8) - 8);
      const float f = static_cast<float>(d);
      const uint16_t h = shape.type == P::kF16 ? FloatToF16(f) : FloatToBF16(f);
      if (shape.type == P::kF64) std::memcpy(at, &d, 8);
      if (shape.type == P::kF32) std::memcpy(at, &f, 4);
      if (eb == 2) std::memcpy(at, &h, 2);
    } else {
      std::memcpy(at, &v, eb);
    }
  }
  return std::make_shared<const Literal>(*std::move(lit));
}

// Runs `text`'s entry (which calls the fusion `fused` on its parameters,
// in order) on the CPU, and `fused`'s generated kernel (`wide_index`: with
// 64-bit index arithmetic) compiled on the host, and expects the same
// result bits (`label` in kApproximate allows the libm's last places).
void ExpectSameAsCpuWith(const std::string& tag, const std::string& text,
                         std::vector<int64_t> ints, const std::string& label,
                         bool wide_index) {
  SCOPED_TRACE(tag);
  static const std::string dir = [] {
    std::string d = ::testing::TempDir() + "fused_elemental_XXXXXX";
    EXPECT_NE(mkdtemp(d.data()), nullptr);
    return d;
  }();
  testing::Planned p = testing::PlanOf(text);
  ASSERT_NE(p.plan, nullptr);
  HostCall call = BuildOnHost(*p.plan, dir, tag, wide_index);
  ASSERT_NE(call, nullptr);
  std::mt19937_64 rng(7);
  std::vector<Value> args;
  std::vector<void*> pointers;
  for (int param : p.plan->parameters) {
    args.push_back(Argument(p.plan->nodes[param].shape, ints, rng));
    pointers.push_back(const_cast<uint8_t*>(args.back()->raw()));
  }
  BackendOptions o;
  auto cpu = MakeCpuBackend()->Run(*p.parsed.file, 0, args, o);
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  // One output per result (each element of a tuple root), prefilled with
  // bytes no result holds by chance.
  const std::vector<Value> wants = cpu->result->is_tuple()
                                       ? cpu->result->elements()
                                       : std::vector<Value>{cpu->result};
  std::vector<Literal> outs;
  for (const Value& w : wants) {
    auto out = Literal::CreateArray(w->type(), w->dims());
    ASSERT_TRUE(out.ok());
    std::memset(out->raw(), 0xab, out->byte_size());
    outs.push_back(*std::move(out));
  }
  for (Literal& out : outs) pointers.push_back(out.raw());
  call(wants[0]->count(), pointers.data());
  std::vector<Value> gots;
  for (Literal& out : outs)
    gots.push_back(std::make_shared<const Literal>(std::move(out)));
  const Value got = std::make_shared<const Literal>(Literal::MakeTuple(gots));
  const Value want = std::make_shared<const Literal>(Literal::MakeTuple(wants));
  const std::vector<std::string> labels(wants.size(), label);
  testing::ExpectSameResults(want, got, labels, tag);
}

// Both index widths: 32-bit (what these small fusions get) and 64-bit.
void ExpectSameAsCpu(const std::string& tag, const std::string& text,
                     std::vector<int64_t> ints = {},
                     const std::string& label = "exact") {
  if (!CompilerRuns()) GTEST_SKIP() << "no C++ compiler (" << Compiler() << ")";
  ExpectSameAsCpuWith(tag, text, ints, label, /*wide_index=*/false);
  ExpectSameAsCpuWith(tag + "_w64", text, ints, label, /*wide_index=*/true);
}

// A module whose fusion `fused` has parameters `params` ("f32[4,6]", ...)
// named a, b, c ... and the lines `body` (the last one the ROOT, of
// `result`); the entry passes its parameters through.
std::string Module(const std::vector<std::string>& params,
                   const std::string& body, const std::string& result) {
  std::string decl, entry_args;
  for (size_t k = 0; k < params.size(); ++k) {
    const char name = static_cast<char>('a' + k);
    decl += Cat("  ", std::string(1, name), " = ", params[k], " parameter(", k,
                ")\n");
    entry_args += Cat(k ? ", " : "", std::string(1, name));
  }
  return Cat("HloModule m\n\nfused {\n", decl, body, "\n}\n\nENTRY e {\n", decl,
             "  ROOT f = ", result, " fusion(", entry_args,
             "), kind=kLoop, calls=fused\n}\n");
}

TEST(FusedElementalHostTest, BroadcastsAVectorAlongEitherDimension) {
  ExpectSameAsCpu("bcast0",
                  Module({"f32[5]", "f32[5,7]"},
                         "  v = f32[5,7] broadcast(a), dimensions={0}\n"
                         "  ROOT r = f32[5,7] add(v, b)",
                         "f32[5,7]"));
  ExpectSameAsCpu("bcast1",
                  Module({"f32[7]", "f32[5,7]"},
                         "  n = f32[7] negate(a)\n"
                         "  v = f32[5,7] broadcast(n), dimensions={1}\n"
                         "  ROOT r = f32[5,7] multiply(v, b)",
                         "f32[5,7]"));
  // A matrix into a rank-3 result along dims 0 and 2, of a computed value.
  ExpectSameAsCpu("bcast02", Module({"s32[3,5]"},
                                    "  n = s32[3,5] negate(a)\n"
                                    "  ROOT v = s32[3,4,5] broadcast(n), "
                                    "dimensions={0,2}",
                                    "s32[3,4,5]"));
}

TEST(FusedElementalHostTest, TransposesOddSizesIn2dAnd3d) {
  ExpectSameAsCpu("t2",
                  Module({"f32[7,5]"},
                         "  n = f32[7,5] negate(a)\n"
                         "  ROOT t = f32[5,7] transpose(n), dimensions={1,0}",
                         "f32[5,7]"));
  ExpectSameAsCpu("t3",
                  Module({"s16[3,5,7]", "s16[7,3,5]"},
                         "  t = s16[7,3,5] transpose(a), dimensions={2,0,1}\n"
                         "  ROOT s = s16[7,3,5] subtract(t, b)",
                         "s16[7,3,5]"));
}

TEST(FusedElementalHostTest, SlicesWithStrides) {
  ExpectSameAsCpu("slice", Module({"f32[9,11]"},
                                  "  e = f32[9,11] abs(a)\n"
                                  "  ROOT s = f32[3,5] slice(e), "
                                  "slice={[1:9:3], [2:11:2]}",
                                  "f32[3,5]"));
}

TEST(FusedElementalHostTest, ConcatenatesThreeOperands) {
  ExpectSameAsCpu("concat", Module({"u8[4,3]", "u8[4,1]", "u8[4,5]"},
                                   "  n = u8[4,5] not(c)\n"
                                   "  ROOT c2 = u8[4,9] concatenate(a, b, n), "
                                   "dimensions={1}",
                                   "u8[4,9]"));
}

TEST(FusedElementalHostTest, PadsWithNegativeLowAndInterior) {
  ExpectSameAsCpu("pad", Module({"bf16[5,4]", "bf16[]"},
                                "  n = bf16[5,4] negate(a)\n"
                                "  ROOT p = bf16[10,8] pad(n, b), "
                                "padding=-2_3_1x1_0_1",
                                "bf16[10,8]"));
  // Negative high edge too, on a rank-3 operand.
  ExpectSameAsCpu("pad3", Module({"s32[3,4,2]", "s32[]"},
                                 "  ROOT p = s32[4,7,3] pad(a, b), "
                                 "padding=0_-1_1x2_-2_1x-1_2_0",
                                 "s32[4,7,3]"));
}

TEST(FusedElementalHostTest, Reverses) {
  ExpectSameAsCpu("reverse",
                  Module({"f64[4,5,6]"},
                         "  r = f64[4,5,6] reverse(a), dimensions={0,2}\n"
                         "  ROOT s = f64[4,5,6] sqrt(r)",
                         "f64[4,5,6]"));
}

TEST(FusedElementalHostTest, ReshapesAndBitcastsRelinearize) {
  ExpectSameAsCpu("reshape68", Module({"f32[6,4]", "f32[3,8]"},
                                      "  r = f32[3,8] reshape(a)\n"
                                      "  ROOT s = f32[3,8] add(r, b)",
                                      "f32[3,8]"));
  ExpectSameAsCpu("reshape234", Module({"s8[2,3,4]"},
                                       "  r = s8[4,6] reshape(a)\n"
                                       "  ROOT t = s8[6,4] transpose(r), "
                                       "dimensions={1,0}",
                                       "s8[6,4]"));
  // Bitcasts through non-default layouts (a transpose in disguise), and
  // size-1 dimensions on both sides.
  ExpectSameAsCpu("bitcast", Module({"f32[3,5]{0,1}"},
                                    "  r = f32[5,3]{1,0} bitcast(a)\n"
                                    "  ROOT n = f32[5,3] negate(r)",
                                    "f32[5,3]"));
  ExpectSameAsCpu("ones", Module({"f32[1,6,1,4]"},
                                 "  r = f32[2,1,12] reshape(a)\n"
                                 "  ROOT n = f32[2,1,12] negate(r)",
                                 "f32[2,1,12]"));
}

TEST(FusedElementalHostTest, DynamicSliceClampsOutOfRangeStarts) {
  const std::string text = Module(
      {"f32[8,6]", "s32[]", "s32[]"},
      "  ROOT d = f32[3,4] dynamic-slice(a, b, c), dynamic_slice_sizes={3,4}",
      "f32[3,4]");
  ExpectSameAsCpu("ds_in", text, {2, 1});
  ExpectSameAsCpu("ds_high", text, {7, 100});
  ExpectSameAsCpu("ds_low", text, {-5, 3});
  // dynamic-update-slice: the update's window, starts clamped too.
  const std::string dus = Module(
      {"s32[6,5]", "s32[2,3]", "s64[]", "s64[]"},
      "  ROOT o = s32[6,5] dynamic-update-slice(a, b, c, d)", "s32[6,5]");
  ExpectSameAsCpu("dus_in", dus, {1, 1});
  ExpectSameAsCpu("dus_out", dus, {9, -4});
}

TEST(FusedElementalHostTest, RealisticMixes) {
  // softmax without its reduces: exp(x - max) / sum, max and sum given.
  ExpectSameAsCpu("softmax",
                  Module({"f32[4,33]", "f32[4]", "f32[4]"},
                         "  mb = f32[4,33] broadcast(b), dimensions={0}\n"
                         "  d = f32[4,33] subtract(a, mb)\n"
                         "  e = f32[4,33] exponential(d)\n"
                         "  sb = f32[4,33] broadcast(c), dimensions={0}\n"
                         "  ROOT r = f32[4,33] divide(e, sb)",
                         "f32[4,33]"),
                  {}, "exponential");
  // layer-norm's tail: (x - mean) * rsqrt(var + eps) * gamma + beta, in
  // bf16 with f32 arithmetic, and the result transposed.
  ExpectSameAsCpu(
      "layernorm",
      Module({"bf16[6,16]", "f32[6]", "f32[6]", "f32[16]", "f32[16]"},
             "  x = f32[6,16] convert(a)\n"
             "  mb = f32[6,16] broadcast(b), dimensions={0}\n"
             "  eps = f32[] constant(1e-5)\n"
             "  eb = f32[6] broadcast(eps), dimensions={}\n"
             "  ve = f32[6] add(c, eb)\n"
             "  r = f32[6] rsqrt(ve)\n"
             "  rb = f32[6,16] broadcast(r), dimensions={0}\n"
             "  gb = f32[6,16] broadcast(d), dimensions={1}\n"
             "  bb = f32[6,16] broadcast(e), dimensions={1}\n"
             "  xm = f32[6,16] subtract(x, mb)\n"
             "  y = f32[6,16] multiply(xm, rb)\n"
             "  yg = f32[6,16] multiply(y, gb)\n"
             "  z = f32[6,16] add(yg, bb)\n"
             "  zt = f32[16,6] transpose(z), dimensions={1,0}\n"
             "  ROOT o = bf16[16,6] convert(zt)",
             "bf16[16,6]"));
  // A rotary-embedding-like mix: halves swapped through slices and a
  // concatenate, iota-driven select, reshape back.
  ExpectSameAsCpu(
      "rotary",
      Module({"f32[2,3,8]", "f32[8]"},
             "  lo = f32[2,3,4] slice(a), slice={[0:2], [0:3], [0:4]}\n"
             "  hi = f32[2,3,4] slice(a), slice={[0:2], [0:3], [4:8]}\n"
             "  nh = f32[2,3,4] negate(hi)\n"
             "  rot = f32[2,3,8] concatenate(nh, lo), dimensions={2}\n"
             "  cb = f32[2,3,8] broadcast(b), dimensions={2}\n"
             "  m = f32[2,3,8] multiply(rot, cb)\n"
             "  io = s32[2,3,8] iota(), iota_dimension=1\n"
             "  one = s32[] constant(1)\n"
             "  ob = s32[2,3,8] broadcast(one), dimensions={}\n"
             "  p = pred[2,3,8] compare(io, ob), direction=EQ\n"
             "  s = f32[2,3,8] select(p, m, a)\n"
             "  ROOT r = f32[6,8] reshape(s)",
             "f32[6,8]"));
}

TEST(FusedElementalHostTest, MultiOutputFusionsOfOneElementCount) {
  // Results of the same dims, and of other dims with as many elements.
  ExpectSameAsCpu("multi",
                  Module({"f32[6,4]", "f32[4]"},
                         "  t = f32[4,6] transpose(a), dimensions={1,0}\n"
                         "  b1 = f32[4,6] broadcast(b), dimensions={0}\n"
                         "  s = f32[4,6] add(t, b1)\n"
                         "  r = f32[2,12] reshape(s)\n"
                         "  m = f32[4,6] multiply(t, s)\n"
                         "  ROOT o = (f32[4,6], f32[2,12], f32[4,6]) "
                         "tuple(s, r, m)",
                         "(f32[4,6], f32[2,12], f32[4,6])"));
}

// Decline, with the reason in the message.
void ExpectDeclined(const std::string& text, const std::string& want) {
  testing::Planned p = testing::PlanOf(text);
  ASSERT_NE(p.plan, nullptr);
  auto src = GenerateFusedKernel(*p.plan);
  ASSERT_FALSE(src.ok()) << text;
  EXPECT_EQ(src.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_TRUE(absl::StrContains(src.status().message(), want))
      << src.status() << " (want: " << want << ")";
}

// `levels` halves swaps: x_k = x_(k-1) + (x_(k-1) rotated by 8, through
// slices and a concatenate). Each level reads the one below at its own
// index and, in each of the concatenate's branches, at another: 3^levels
// values once expanded.
std::string Rotations(int levels) {
  std::string body = "  x0 = f32[16] negate(a)\n";
  for (int k = 1; k <= levels; ++k)
    body +=
        Cat("  l", k, " = f32[8] slice(x", k - 1, "), slice={[0:8]}\n", "  h",
            k, " = f32[8] slice(x", k - 1, "), slice={[8:16]}\n", "  r", k,
            " = f32[16] concatenate(h", k, ", l", k, "), dimensions={0}\n",
            "  x", k, " = f32[16] add(x", k - 1, ", r", k, ")\n");
  body += Cat("  ROOT o = f32[16] negate(x", levels, ")");
  return Module({"f32[16]"}, body, "f32[16]");
}

TEST(FusedElementalHostTest, AFusionOverTheExpansionLimitIsDeclined) {
  ExpectDeclined(Rotations(14), "more than 4096 values to compute");
  ExpectSameAsCpu("under_limit", Rotations(6));  // 729 values
  // A chain deeper than the walk's nesting limit.
  std::string chain = "  x0 = f32[16] negate(a)\n";
  for (int k = 1; k < 600; ++k)
    chain += Cat("  x", k, " = f32[16] negate(x", k - 1, ")\n");
  chain += "  ROOT o = f32[16] negate(x599)";
  ExpectDeclined(Module({"f32[16]"}, chain, "f32[16]"),
                 "more than 512 nested nodes");
}

TEST(FusedElementalHostTest, UnsupportedOpsInsideAreStillDeclined) {
  ExpectDeclined(
      "HloModule m\n\nadd {\n  x = f32[] parameter(0)\n  y = f32[] "
      "parameter(1)\n  ROOT s = f32[] add(x, y)\n}\n\nfused {\n  a = f32[4,8] "
      "parameter(0)\n  z = f32[] constant(0)\n  r = f32[4] reduce(a, z), "
      "dimensions={1}, to_apply=add\n  b = f32[4,8] broadcast(r), "
      "dimensions={0}\n  ROOT s = f32[4,8] subtract(a, b)\n}\n",
      "no fused kernel for reduce: not elementwise");
  ExpectDeclined(Module({"f32[8,4]", "s32[3,1]"},
                        "  g = f32[3,4] gather(a, b), offset_dims={1}, "
                        "collapsed_slice_dims={0}, start_index_map={0}, "
                        "index_vector_dim=1, slice_sizes={1,4}\n"
                        "  ROOT n = f32[3,4] negate(g)",
                        "f32[3,4]"),
                 "no fused kernel for gather: not elementwise");
  ExpectDeclined(
      Module({"f32[4,8]", "f32[8]"},
             "  ROOT r = (f32[4,8], f32[8]) tuple(a, b)", "(f32[4,8], f32[8])"),
      "results of different sizes");
}

}  // namespace
}  // namespace hlo::exec::gpu
#endif  // HLO_LSP_WITH_CUDA
