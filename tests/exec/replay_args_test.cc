// Replay's refusal of a wrong argument count names the first missing
// argument (an .npz without arg0 used to say only "0 given").
#include "exec/replay.h"
#include "exec_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hlo::exec {
namespace {

constexpr char kTwoParams[] = R"(HloModule two
ENTRY e {
  x = f32[2] parameter(0)
  y = f32[2] parameter(1)
  ROOT a = f32[2] add(x, y)
})";

TEST(ReplayArgsTest, MissingArgumentIsNamed) {
  auto p = testing::ParseModule(kTwoParams);
  ReplayOptions o;
  o.arguments_given = true;  // an .npz with no arg0 key
  ReplayResult r = Replay(*p.file, 0, o);
  EXPECT_NE(r.outcome, ReplayOutcome::kOk);
  EXPECT_THAT(r.error,
              ::testing::HasSubstr("takes 2 arguments, 0 given (no arg0)"));
  o.arguments = {testing::Array(PrimitiveType::kF32, {2}, {1, 2})};
  r = Replay(*p.file, 0, o);
  EXPECT_THAT(r.error, ::testing::HasSubstr("1 given (no arg1)"));
}

}  // namespace
}  // namespace hlo::exec
