// `hlo-lsp graph`: SVG and DOT, -o, the neighbourhood, the cut on stderr
// and in the picture, and the exit codes of contracts.md.
#include <fstream>
#include <iterator>
#include <string>

#include "cli_runner.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hlo_lsp::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

constexpr char kModule[] =
    R"(HloModule m

%sum (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %c = f32[] add(f32[] %a, f32[] %b)
}

%fused (x: f32[4]) -> f32[4] {
  %x = f32[4]{0} parameter(0)
  ROOT %y = f32[4]{0} negate(f32[4]{0} %x)
}

ENTRY %main (p: f32[4], q: f32[4,4]) -> f32[] {
  %p = f32[4]{0} parameter(0)
  %q = f32[4,4]{1,0} parameter(1)
  %d = f32[4]{0} dot(f32[4,4]{1,0} %q, f32[4]{0} %p), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  %f = f32[4]{0} fusion(f32[4]{0} %d), kind=kLoop, calls=%fused
  %ar = f32[4]{0} all-reduce(f32[4]{0} %f), replica_groups={}, to_apply=%sum
  %zero = f32[] constant(0)
  ROOT %r = f32[] reduce(f32[4]{0} %ar, f32[] %zero), dimensions={0}, to_apply=%sum
}
)";

TEST(GraphCliTest, SvgOfEntryWithKindsColoursAndCalls) {
  CliRunner cli;
  cli.Write("m.hlo", kModule);
  RunResult r = cli.Run("graph m.hlo");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("<svg"));
  EXPECT_THAT(r.out, HasSubstr("id=\"node_d\""));
  EXPECT_THAT(r.out, HasSubstr("id=\"node_r\""));
  EXPECT_THAT(r.out, HasSubstr("id=\"computation_sum\""));
  EXPECT_THAT(r.out, HasSubstr("fusion:kLoop"));
  EXPECT_THAT(r.out, HasSubstr("f32[4,4]"));
  EXPECT_THAT(r.out, HasSubstr("#1565c0"));  // dot: XLA's dark blue
  EXPECT_THAT(r.out, HasSubstr("#bcaaa4"));  // all-reduce: brown
  EXPECT_THAT(r.out, HasSubstr("#cfd8dc"));  // fusion: gray
  EXPECT_THAT(r.out, HasSubstr("#ffe0b2"));  // parameter: orange
  EXPECT_THAT(r.out, Not(HasSubstr("cut:")));
  EXPECT_EQ(r.err, "");
}

TEST(GraphCliTest, DotFormatAndOutputFile) {
  CliRunner cli;
  cli.Write("m.hlo", kModule);
  RunResult r = cli.Run("graph m.hlo --format dot -o out.dot");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  std::ifstream in(cli.dir() + "/out.dot");
  std::string dot((std::istreambuf_iterator<char>(in)),
                  std::istreambuf_iterator<char>());
  EXPECT_THAT(dot, StartsWith("digraph"));
  EXPECT_THAT(dot, HasSubstr("node_q -> node_d"));
  EXPECT_THAT(dot, HasSubstr("computation_fused -> node_f"));
}

TEST(GraphCliTest, AroundAnInstruction) {
  CliRunner cli;
  cli.Write("m.hlo", kModule);
  RunResult r = cli.Run("graph m.hlo --around f --depth 1 --format dot");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("node_d -> node_f"));
  EXPECT_THAT(r.out, HasSubstr("node_f -> node_ar"));
  EXPECT_THAT(r.out, Not(HasSubstr("node_p")));
  EXPECT_THAT(r.out, Not(HasSubstr("\tnode_r\t")));
  r = cli.Run("graph m.hlo --computation fused --around %y --format dot");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("node_x -> node_y"));
}

TEST(GraphCliTest, CutIsSaidInThePictureAndOnStderr) {
  CliRunner cli;
  cli.Write("m.hlo", kModule);
  RunResult r = cli.Run("graph m.hlo --max-nodes 3");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("cut: 3 of 7 instructions shown"));
  EXPECT_THAT(r.out, HasSubstr("cut: 3 of 7 instructions shown"));
}

TEST(GraphCliTest, ExitCodes) {
  CliRunner cli;
  cli.Write("m.hlo", kModule);
  RunResult r = cli.Run("graph m.hlo --around nosuch");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("no instruction nosuch"));
  EXPECT_EQ(cli.Run("graph m.hlo --computation nosuch").exit_code, 1);
  EXPECT_EQ(cli.Run("graph missing.hlo").exit_code, 2);
  EXPECT_EQ(cli.Run("graph m.hlo --format png").exit_code, 2);
  EXPECT_EQ(cli.Run("graph m.hlo --depth -1").exit_code, 2);
  EXPECT_EQ(cli.Run("graph m.hlo --max-nodes 0").exit_code, 2);
  EXPECT_EQ(cli.Run("graph").exit_code, 2);
  EXPECT_EQ(cli.Run("graph m.hlo -o no/such/dir/out.svg").exit_code, 2);
  EXPECT_EQ(cli.Run("graph --help").exit_code, 0);
}

// Names with characters that mean something to Graphviz or XML.
TEST(GraphCliTest, LabelsAreEscaped) {
  CliRunner cli;
  cli.Write("odd.hlo", R"(HloModule m

ENTRY %main (p: (f32[2], s32[])) -> (f32[2], s32[]) {
  %p = (f32[2]{0}, s32[]) parameter(0)
  ROOT %t = (f32[2]{0}, s32[]) tuple-select-or-not.1(%p)
}
)");
  RunResult r = cli.Run("graph odd.hlo");
  EXPECT_THAT(r.out, HasSubstr("<svg"));
  EXPECT_THAT(r.err, Not(HasSubstr("Error")));
}

}  // namespace
}  // namespace hlo_lsp::testing
