// The GPU backend under EvalOptions::origin_only (the CLI's default):
// fusions run as fused kernels where FusionStatsRule allows, and the first
// NaN/Inf origin with its statistics is the one the run that records every
// instruction (op by op) reports. Skipped without a GPU; the rule itself is
// held on the CPU by tests/exec/nonfinite_origin_test.cc.
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "exec/platform.h"
#include "exec/replay.h"
#include "gpu_test_util.h"
#include "gtest/gtest.h"

namespace hlo::exec {
namespace {

constexpr int64_t kN = 1000;

Value Ramp(double lo, double hi) {
  auto lit = Literal::CreateArray(PrimitiveType::kF32, {kN});
  for (int64_t i = 0; i < kN; ++i)
    lit->SetDouble(i, lo + (hi - lo) * static_cast<double>((i * 7919) % kN) / kN);
  return std::make_shared<const Literal>(*std::move(lit));
}

std::string Sized(std::string s) {
  const std::string n = "[" + std::to_string(kN) + "]";
  for (size_t at = s.find("[N]"); at != std::string::npos; at = s.find("[N]", at))
    s.replace(at, 3, n);
  return s;
}

std::string Notes(const BackendRun& r) {
  std::string s;
  for (const std::string& n : r.notes) s += n + "\n";
  return s;
}

const InstructionStats* Find(const BackendRun& r, Id id) {
  for (const InstructionStats& s : r.stats)
    if (s.instruction == id) return &s;
  return nullptr;
}

struct Case {
  const char* what;
  std::string text;
  std::vector<Value> args;
  std::string origin;  // empty: none
  std::string note;    // in the origin_only run's notes
};

TEST(NonfiniteOriginGpuTest, FusedRunsReportTheOpByOpOrigin) {
  REQUIRE_GPU();
  const std::string fused_loop = Sized(
      "HloModule m\n\n"
      "fused {\n  x = f32[N] parameter(0)\n  k = f32[] constant(0.4)\n"
      "  kb = f32[N] broadcast(k), dimensions={}\n"
      "  d = f32[N] subtract(x, kb)\n  ROOT l = f32[N] log(d)\n}\n\n"
      "cond {\n  s = (s32[], f32[N]) parameter(0)\n"
      "  i = s32[] get-tuple-element(s), index=0\n  n = s32[] constant(3)\n"
      "  ROOT lt = pred[] compare(i, n), direction=LT\n}\n\n"
      "body {\n  s = (s32[], f32[N]) parameter(0)\n"
      "  i = s32[] get-tuple-element(s), index=0\n"
      "  x = f32[N] get-tuple-element(s), index=1\n  one = s32[] constant(1)\n"
      "  j = s32[] add(i, one)\n"
      "  f = f32[N] fusion(x), kind=kLoop, calls=fused\n"
      "  ROOT t = (s32[], f32[N]) tuple(j, f)\n}\n\n"
      "ENTRY e {\n  a = f32[N] parameter(0)\n  z = s32[] constant(0)\n"
      "  t = (s32[], f32[N]) tuple(z, a)\n"
      "  w = (s32[], f32[N]) while(t), condition=cond, body=body\n"
      "  ROOT r = f32[N] get-tuple-element(w), index=1\n}\n");
  const std::string reaching = Sized(
      "HloModule m\n\n"
      "fused {\n  x = f32[N] parameter(0)\n  y = f32[N] parameter(1)\n"
      "  d = f32[N] subtract(x, y)\n  l = f32[N] log(d)\n"
      "  m = f32[N] multiply(l, x)\n  ROOT r = f32[N] add(m, y)\n}\n\n"
      "ENTRY e {\n  a = f32[N] parameter(0)\n  b = f32[N] parameter(1)\n"
      "  f = f32[N] fusion(a, b), kind=kLoop, calls=fused\n"
      "  ROOT t = f32[N] tanh(f)\n}\n");
  const std::vector<Case> cases = {
      {"a NaN in the middle reaching the result", reaching,
       {Ramp(-1, 3), Ramp(0, 0.5)}, "l",
       "fused kernel's result held a NaN/Inf, ran again"},
      {"a NaN the result drops",
       Sized("HloModule m\n\n"
             "fused {\n  x = f32[N] parameter(0)\n  y = f32[N] parameter(1)\n"
             "  z = f32[] constant(0)\n  zb = f32[N] broadcast(z), dimensions={}\n"
             "  m = f32[N] multiply(x, zb)\n  q = f32[N] divide(m, m)\n"
             "  c = pred[N] compare(q, y), direction=LT\n"
             "  ROOT r = f32[N] select(c, x, y)\n}\n\n"
             "ENTRY e {\n  a = f32[N] parameter(0)\n  b = f32[N] parameter(1)\n"
             "  ROOT f = f32[N] fusion(a, b), kind=kLoop, calls=fused\n}\n"),
       {Ramp(-1, 3), Ramp(0.5, 1)}, "q", "a NaN/Inf inside might not reach"},
      {"the origin in a loop's second iteration", fused_loop, {Ramp(1, 2)}, "l",
       "ran again op by op"},
      {"no NaN", reaching, {Ramp(1, 3), Ramp(0, 0.5)}, "",
       "1 run as fused kernels"},
  };
  auto gpu = MakeGpuBackend();
  ASSERT_NE(gpu, nullptr);
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    auto p = testing::ParseModule(c.text);
    ASSERT_FALSE(p.file->HasErrors());
    BackendOptions all;
    all.eval.collect_stats = true;
    BackendOptions origin = all;
    origin.eval.origin_only = true;
    auto a = gpu->Run(*p.file, 0, c.args, all);
    auto b = gpu->Run(*p.file, 0, c.args, origin);
    ASSERT_TRUE(a.ok()) << a.status();
    ASSERT_TRUE(b.ok()) << b.status();
    EXPECT_EQ(a->first_nonfinite, b->first_nonfinite);
    const std::string name =
        a->first_nonfinite == kNone
            ? ""
            : std::string(p.file->Name(p.file->instructions[a->first_nonfinite]));
    EXPECT_EQ(name, c.origin);
    if (a->first_nonfinite != kNone) {
      const InstructionStats* x = Find(*a, a->first_nonfinite);
      const InstructionStats* y = Find(*b, a->first_nonfinite);
      ASSERT_TRUE(x && y);
      EXPECT_EQ(x->runs, y->runs);
      EXPECT_EQ(x->elements, y->elements);
      EXPECT_EQ(x->nan_count, y->nan_count);
      EXPECT_EQ(x->inf_count, y->inf_count);
      EXPECT_EQ(x->min, y->min);
      EXPECT_EQ(x->max, y->max);
      EXPECT_EQ(x->sum, y->sum);
    }
    EXPECT_TRUE(absl::StrContains(Notes(*b), c.note)) << Notes(*b);
    EXPECT_TRUE(CompareOutputs({{"out0", a->result}}, {{"out0", b->result}})
                    .empty());
  }
}

}  // namespace
}  // namespace hlo::exec
