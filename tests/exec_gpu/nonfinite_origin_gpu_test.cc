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
#include "tests/exec/nonfinite_modules.h"

namespace hlo::exec {
namespace {

constexpr int64_t kN = 1000;

Value Ramp(double lo, double hi) { return testing::Ramp(kN, lo, hi); }

std::string Sized(std::string_view text) {
  return testing::Sized(std::string(text), kN);
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
  const std::string fused_loop =
      Sized(testing::NanInALoopsSecondIteration("ROOT l = f32[N] log(d)"));
  const std::string reaching = Sized(testing::kNanReachingTheResult);
  const std::vector<Case> cases = {
      {"a NaN in the middle reaching the result",
       reaching,
       {Ramp(-1, 3), Ramp(0, 0.5)},
       "l",
       "fused kernel's result held a NaN/Inf, ran again"},
      {"a NaN the result drops",
       Sized(testing::kNanThatTheResultDrops),
       {Ramp(-1, 3), Ramp(0.5, 1)},
       "q",
       "a NaN/Inf inside might not reach"},
      {"the origin in a loop's second iteration",
       fused_loop,
       {Ramp(1, 2)},
       "l",
       "ran again op by op"},
      {"no NaN",
       reaching,
       {Ramp(1, 3), Ramp(0, 0.5)},
       "",
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
            : std::string(
                  p.file->Name(p.file->instructions[a->first_nonfinite]));
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
    EXPECT_TRUE(
        CompareOutputs({{"out0", a->result}}, {{"out0", b->result}}).empty());
  }
}

}  // namespace
}  // namespace hlo::exec
