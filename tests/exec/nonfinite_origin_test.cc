// EvalOptions::origin_only (the CLI's default: no --stats) lets elementwise
// fusions run block by block while the first NaN/Inf origin is still found:
// the reported origin, that instruction's statistics and the results equal
// those of the run that records every instruction (op by op), for fusions
// that make a NaN in the middle, whether or not it reaches their result,
// and for an origin found where an earlier iteration ran fused.
#include <bit>
#include <cmath>
#include <string>
#include <vector>

#include "exec/evaluator_internal.h"
#include "exec/replay.h"
#include "exec_test_util.h"
#include "gtest/gtest.h"
#include "nonfinite_modules.h"

namespace hlo::exec {
namespace {

using testing::ParseModule;

constexpr int64_t kN = 16384 * 5;  // above the block-wise threshold

std::string Sized(std::string_view text) {
  return testing::Sized(std::string(text), kN);
}

Value Ramp(double lo, double hi) { return testing::Ramp(kN, lo, hi); }

struct Both {
  EvalResult all, origin;
};

Both RunBoth(const ParsedFile& file, const std::vector<Value>& args) {
  EvalOptions all;
  all.collect_stats = true;
  EvalOptions origin = all;
  origin.origin_only = true;
  auto a = Evaluate(file, 0, {args}, all);
  auto b = Evaluate(file, 0, {args}, origin);
  EXPECT_TRUE(a.ok()) << a.status();
  EXPECT_TRUE(b.ok()) << b.status();
  if (!a.ok() || !b.ok()) return {};
  EXPECT_EQ(a->fused_runs, 0);  // every instruction recorded: op by op
  return {*std::move(a), *std::move(b)};
}

std::string NameOf(const ParsedFile& file, Id id) {
  return id == kNone ? "(none)" : std::string(file.Name(file.instructions[id]));
}

const InstructionStats* Find(const EvalResult& r, Id id) {
  for (const InstructionStats& s : r.stats)
    if (s.instruction == id) return &s;
  return nullptr;
}

// The origin, its statistics (every field, the mean's bits too) and the
// result's bits agree.
void ExpectSameReport(const ParsedFile& file, const Both& b,
                      const std::string& origin) {
  EXPECT_EQ(NameOf(file, b.all.first_nonfinite), origin);
  EXPECT_EQ(NameOf(file, b.origin.first_nonfinite), origin);
  if (b.all.first_nonfinite != kNone) {
    const InstructionStats* x = Find(b.all, b.all.first_nonfinite);
    const InstructionStats* y = Find(b.origin, b.all.first_nonfinite);
    ASSERT_TRUE(x && y);
    EXPECT_EQ(x->runs, y->runs);
    EXPECT_EQ(x->elements, y->elements);
    EXPECT_EQ(x->nan_count, y->nan_count);
    EXPECT_EQ(x->inf_count, y->inf_count);
    EXPECT_EQ(std::bit_cast<uint64_t>(x->min), std::bit_cast<uint64_t>(y->min));
    EXPECT_EQ(std::bit_cast<uint64_t>(x->max), std::bit_cast<uint64_t>(y->max));
    EXPECT_EQ(std::bit_cast<uint64_t>(x->mean()),
              std::bit_cast<uint64_t>(y->mean()));
  }
  ASSERT_TRUE(b.all.results.size() == 1 && b.origin.results.size() == 1);
  const Literal& p = *b.all.results[0];
  const Literal& q = *b.origin.results[0];
  ASSERT_EQ(p.byte_size(), q.byte_size());
  EXPECT_EQ(std::string(p.raw(), p.raw() + p.byte_size()),
            std::string(q.raw(), q.raw() + q.byte_size()));
}

// log of a negative number in the middle of a fusion, carried to its
// result by multiply and add: the fused run's result holds the NaN, so the
// fusion runs again op by op and names the log.
TEST(NonfiniteOrigin, NanInTheMiddleReachingTheResult) {
  auto p = ParseModule(Sized(testing::kNanReachingTheResult));
  ASSERT_FALSE(p.file->HasErrors());
  // s - b = a: a in [-1, 3) makes log(a) NaN where a < 0 and -Inf at 0.
  const Both b = RunBoth(*p.file, {Ramp(-1, 3), Ramp(0.5, 1)});
  ExpectSameReport(*p.file, b, "l");
  EXPECT_EQ(b.origin.fused_reruns, 1);
  EXPECT_EQ(b.origin.fused_runs, 0);
  EXPECT_FALSE(b.origin.restarted);
}

// 0/0 whose NaN a compare and select drop: the result is finite, so the
// fusion cannot run fused before an origin is known (op by op names it).
TEST(NonfiniteOrigin, NanThatTheResultDrops) {
  auto p = ParseModule(Sized(testing::kNanThatTheResultDrops));
  ASSERT_FALSE(p.file->HasErrors());
  const Both b = RunBoth(*p.file, {Ramp(-1, 3), Ramp(0.5, 1)});
  ExpectSameReport(*p.file, b, "q");
  EXPECT_EQ(b.origin.fused_runs, 0);
  EXPECT_EQ(b.origin.fused_reruns, 0);
}

// Once the origin is known (a top-level log), later fusions of other
// computations run fused; no NaN at all: every checked fusion runs fused.
TEST(NonfiniteOrigin, FusionsRunFusedAroundTheOrigin) {
  const std::string text = Sized(
      "HloModule m\n\n"
      "fused {\n  x = f32[N] parameter(0)\n  y = f32[N] parameter(1)\n"
      "  e = f32[N] exponential(x)\n  c = pred[N] compare(e, y), direction=LT\n"
      "  ROOT r = f32[N] select(c, x, y)\n}\n\n"
      "fused2 {\n  x = f32[N] parameter(0)\n  y = f32[N] parameter(1)\n"
      "  m = f32[N] multiply(x, y)\n  ROOT r = f32[N] add(m, x)\n}\n\n"
      "ENTRY e {\n  a = f32[N] parameter(0)\n  b = f32[N] parameter(1)\n"
      "  g = f32[N] fusion(a, b), kind=kLoop, calls=fused2\n"
      "  l = f32[N] log(a)\n"
      "  f = f32[N] fusion(l, b), kind=kLoop, calls=fused\n"
      "  ROOT h = f32[N] fusion(f, g), kind=kLoop, calls=fused2\n}\n");
  auto p = ParseModule(text);
  ASSERT_FALSE(p.file->HasErrors());
  Both b = RunBoth(*p.file, {Ramp(-1, 3), Ramp(0.5, 1)});
  ExpectSameReport(*p.file, b, "l");
  EXPECT_EQ(b.origin.fused_runs, 3);  // g checked; f and h after the origin
  EXPECT_EQ(b.origin.fused_reruns, 0);
  b = RunBoth(*p.file, {Ramp(0.5, 3), Ramp(0.5, 1)});
  ExpectSameReport(*p.file, b, "(none)");
  EXPECT_EQ(b.origin.fused_runs, 2);  // g, h; f drops what exp makes
}

// A loop whose fusion makes its first NaN in the second iteration: the
// first ran fused (no statistics inside), so the run starts again op by op
// and the origin's statistics count both iterations.
TEST(NonfiniteOrigin, OriginInAComputationThatRanFusedBefore) {
  // The log named, and nested in the root's operand list (an anonymous
  // instruction).
  for (const std::string root :
       {"ROOT l = f32[N] log(d)", "ROOT l = f32[N] negate(f32[N] log(d))"}) {
    SCOPED_TRACE(root);
    const bool nested = root.find("negate") != std::string::npos;
    auto p = ParseModule(Sized(testing::NanInALoopsSecondIteration(root)));
    ASSERT_FALSE(p.file->HasErrors());
    // x in [1, 2): log(x - 0.4) in [-0.52, 0.47), all finite; the second
    // iteration takes the log of values below 0.4.
    const Both b = RunBoth(*p.file, {Ramp(1, 2)});
    ExpectSameReport(*p.file, b, nested ? "" : "l");
    EXPECT_TRUE(b.origin.restarted);
    const InstructionStats* s = Find(b.origin, b.origin.first_nonfinite);
    ASSERT_TRUE(s);
    EXPECT_EQ(s->runs, 3);
  }
}

// The replay API, as the CLI calls it with and without --stats: the same
// NaN origin line (name, line, counts).
TEST(NonfiniteOrigin, ReplayReportsTheSameOrigin) {
  auto p = ParseModule(
      Sized("HloModule m\n\n"
            "fused {\n  x = f32[N] parameter(0)\n  l = f32[N] log(x)\n"
            "  ROOT m = f32[N] multiply(l, x)\n}\n\n"
            "ENTRY e {\n  a = f32[N] parameter(0)\n"
            "  ROOT f = f32[N] fusion(a), kind=kLoop, calls=fused\n}\n"));
  ASSERT_FALSE(p.file->HasErrors());
  ReplayOptions o;
  o.collect_stats = true;
  o.use_child_process = false;
  o.arguments = {Ramp(-1, 3)};
  ReplayResult all = Replay(*p.file, 0, o);
  o.origin_only = true;
  ReplayResult origin = Replay(*p.file, 0, o);
  ASSERT_EQ(all.outcome, ReplayOutcome::kOk) << all.error;
  ASSERT_EQ(origin.outcome, ReplayOutcome::kOk) << origin.error;
  ASSERT_TRUE(all.first_nonfinite && origin.first_nonfinite);
  EXPECT_EQ(all.first_nonfinite->name, "l");
  EXPECT_EQ(origin.first_nonfinite->name, all.first_nonfinite->name);
  EXPECT_EQ(origin.first_nonfinite->line, all.first_nonfinite->line);
  EXPECT_EQ(origin.first_nonfinite->stats.nan_count,
            all.first_nonfinite->stats.nan_count);
  EXPECT_EQ(origin.first_nonfinite->stats.inf_count,
            all.first_nonfinite->stats.inf_count);
  EXPECT_GT(all.first_nonfinite->stats.nan_count, 0);
  EXPECT_TRUE(CompareOutputs(all.outputs, origin.outputs, 0, 0).empty());
}

const Plan* FusedPlan(const ParsedFile& file, std::unique_ptr<Plan>* keep) {
  for (Id c = 0; c < file.computations.size(); ++c) {
    if (file.Name(file.computations[c]) != "fused") continue;
    auto plan = BuildPlan(file, c);
    if (!plan.ok()) return nullptr;
    *keep = *std::move(plan);
    return keep->get();
  }
  return nullptr;
}

// Which computations let every NaN/Inf reach the result.
TEST(NonfiniteOrigin, ShowsInResult) {
  struct Case {
    std::string body;
    bool shows;
  };
  const std::vector<Case> cases = {
      {"l = f32[8] log(x)\n ROOT r = f32[8] multiply(l, y)", true},
      {"l = f32[8] log(x)\n ROOT r = f32[8] divide(y, l)", false},
      {"l = f32[8] log(x)\n ROOT r = f32[8] divide(l, y)", true},
      {"l = f32[8] log(x)\n ROOT r = f32[8] exponential(l)", false},
      {"l = f32[8] log(x)\n ROOT r = f32[8] maximum(l, y)", false},
      {"l = f32[8] log(x)\n c = f32[4] slice(l), slice={[0:4]}\n"
       " ROOT r = f32[4] negate(c)",
       false},
      {"l = f32[8] log(x)\n c = s32[8] convert(l)\n ROOT r = s32[8] negate(c)",
       false},
      {"l = f32[8] log(x)\n c = f16[8] convert(l)\n ROOT r = f16[8] negate(c)",
       true},
      {"l = f32[8] log(x)\n t = f32[8] tanh(y)\n ROOT r = (f32[8], f32[8]) "
       "tuple(l, t)",
       true},
      {"l = f32[8] log(x)\n e = f32[8] exponential(l)\n s = f32[8] add(l, e)\n"
       " ROOT r = f32[2,8] broadcast(s), dimensions={1}",
       true},
      {"c = pred[8] compare(x, y), direction=LT\n ROOT r = f32[8] select(c, x, "
       "y)",
       true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.body);
    auto p = ParseModule(
        "HloModule m\n\nfused {\n x = f32[8] parameter(0)\n"
        " y = f32[8] parameter(1)\n " +
        c.body +
        "\n}\n\nENTRY e {\n a = f32[8] parameter(0)\n"
        " ROOT f = f32[8] fusion(a, a), kind=kLoop, calls=fused\n}\n");
    std::unique_ptr<Plan> keep;
    const Plan* plan = FusedPlan(*p.file, &keep);
    ASSERT_TRUE(plan);
    EXPECT_EQ(NonfiniteShowsInResult(*plan), c.shows);
  }
}

}  // namespace
}  // namespace hlo::exec
