// `hlo-lsp diff` output and exit codes as contracts.md fixes them.
#include <string>

#include "cli_runner.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace hlo_lsp::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::MatchesRegex;

constexpr char kBefore[] =
    R"(HloModule m, entry_computation_layout={(f32[4]{0})->f32[]}

%sum (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %c = f32[] add(f32[] %a, f32[] %b)
}

%unused (u: f32[]) -> f32[] {
  ROOT %u = f32[] parameter(0)
}

ENTRY %main (p: f32[4]) -> f32[] {
  %p = f32[4]{0} parameter(0)
  %neg = f32[4]{0} negate(f32[4]{0} %p), metadata={op_name="neg"}
  %dead = f32[4]{0} abs(f32[4]{0} %p)
  %zero = f32[] constant(0)
  ROOT %r = f32[] reduce(f32[4]{0} %neg, f32[] %zero), dimensions={0}, to_apply=%sum
}
)";

// kBefore with: `neg` renamed `neg.1` and its metadata changed, `dead`
// removed, `extra` added, the constant's shape given a layout, computation
// `unused` gone and `spare` new.
constexpr char kAfter[] =
    R"(HloModule m, entry_computation_layout={(f32[4]{0})->f32[]}

%sum (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %c = f32[] add(f32[] %a, f32[] %b)
}

%spare (s: f32[]) -> f32[] {
  ROOT %s = f32[] parameter(0)
}

ENTRY %main (p: f32[4]) -> f32[] {
  %p = f32[4]{0} parameter(0)
  %neg.1 = f32[4]{0} negate(f32[4]{0} %p), metadata={op_name="neg2"}
  %extra = f32[4]{0} sqrt(f32[4]{0} %p)
  %zero = s32[] constant(0)
  ROOT %r = f32[] reduce(f32[4]{0} %neg.1, f32[] %zero), dimensions={0}, to_apply=%sum
}
)";

constexpr char kExpectedText[] =
    "- computation unused\n"
    "+ computation spare\n"
    "- main dead\n"
    "+ main extra\n"
    "> main neg neg.1\n"
    "~ main zero shape: f32[] -> s32[]\n";

TEST(CliDiffTest, TextLinesAndExitOneWhenTheyDiffer) {
  CliRunner cli;
  cli.Write("a.hlo", kBefore);
  cli.Write("b.hlo", kAfter);
  RunResult r = cli.Run("diff a.hlo b.hlo");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.out, kExpectedText);
  EXPECT_EQ(r.err, "");
}

TEST(CliDiffTest, MetadataOnlyWithTheFlag) {
  CliRunner cli;
  cli.Write("a.hlo", kBefore);
  cli.Write("b.hlo", kAfter);
  RunResult r = cli.Run("diff --metadata a.hlo b.hlo");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  // Changes are in B's order: neg.1 comes before zero.
  EXPECT_EQ(r.out,
            "- computation unused\n"
            "+ computation spare\n"
            "- main dead\n"
            "+ main extra\n"
            "> main neg neg.1\n"
            "~ main neg.1 metadata: {op_name=\"neg\"} -> {op_name=\"neg2\"}\n"
            "~ main zero shape: f32[] -> s32[]\n");
}

TEST(CliDiffTest, EqualModulesPrintNothingAndExitZero) {
  CliRunner cli;
  cli.Write("a.hlo", kBefore);
  cli.Write("b.hlo", std::string("// a comment moves every line\n") + kBefore);
  RunResult r = cli.Run("diff a.hlo b.hlo");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  RunResult json = cli.Run("diff --json a.hlo b.hlo");
  EXPECT_EQ(json.exit_code, 0);
  EXPECT_EQ(json.out,
            "{\"added\":[],\"removed\":[],\"renamed\":[],\"changed\":[],"
            "\"computations\":{\"added\":[],\"removed\":[]}}\n");
}

TEST(CliDiffTest, JsonHasTheContractsFieldsAndLines) {
  CliRunner cli;
  cli.Write("a.hlo", kBefore);
  cli.Write("b.hlo", kAfter);
  RunResult r = cli.Run("diff a.hlo b.hlo --json");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  nlohmann::json out = nlohmann::json::parse(r.out);
  EXPECT_EQ(out, nlohmann::json::parse(R"({
    "added": [{"computation": "main", "name": "extra", "opcode": "sqrt",
               "shape": "f32[4]{0}", "line": 16}],
    "removed": [{"computation": "main", "name": "dead", "opcode": "abs",
                 "shape": "f32[4]{0}", "line": 16}],
    "renamed": [{"computation": "main", "from": "neg", "to": "neg.1"}],
    "changed": [{"computation": "main", "name": "zero", "field": "shape",
                 "old": "f32[]", "new": "s32[]"}],
    "computations": {"added": ["spare"], "removed": ["unused"]}})"))
      << r.out;
  // One line, keys in the contract's order.
  EXPECT_THAT(r.out, MatchesRegex("\\{\"added\":.*\"removed\":.*\"renamed\":"
                                  ".*\"changed\":.*\"computations\":.*\n"));
}

TEST(CliDiffTest, UsageAndIoErrorsExitTwo) {
  CliRunner cli;
  cli.Write("a.hlo", kBefore);
  EXPECT_EQ(cli.Run("diff").exit_code, 2);
  EXPECT_EQ(cli.Run("diff a.hlo").exit_code, 2);
  EXPECT_EQ(cli.Run("diff a.hlo a.hlo a.hlo").exit_code, 2);
  EXPECT_EQ(cli.Run("diff --frobnicate a.hlo a.hlo").exit_code, 2);
  RunResult missing = cli.Run("diff a.hlo missing.hlo");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_THAT(missing.err, HasSubstr("missing.hlo"));
  EXPECT_EQ(missing.out, "");
  RunResult help = cli.Run("diff --help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_THAT(help.out, HasSubstr("usage: hlo-lsp diff A B"));
}

// A truncated file: its errors on stderr (FILE:LINE:COL: error: ...), and
// what parsed is diffed: the instructions past the cut are removed.
TEST(CliDiffTest, TruncatedFileReportsErrorsAndDiffsWhatParsed) {
  std::string before = kBefore;
  std::string truncated = before.substr(0, before.find("  %zero"));
  truncated += "  %zero = f32[] const";
  CliRunner cli;
  cli.Write("a.hlo", kBefore);
  cli.Write("t.hlo", truncated);
  RunResult r = cli.Run("diff a.hlo t.hlo");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, MatchesRegex("(t\\.hlo:[0-9]+:[0-9]+: error: [^\n]+\n)+"));
  EXPECT_THAT(r.out, HasSubstr("- main r\n"));
  // `dead` is before the cut: it parsed, so it is not removed.
  EXPECT_EQ(r.out.find("- main dead"), std::string::npos) << r.out;
}

TEST(CliDiffTest, ManyErrorsAreCutAtTen) {
  std::string bad = "HloModule bad\nENTRY %main {\n";
  for (int i = 0; i < 30; ++i) bad += "  %x" + std::to_string(i) + " = ???\n";
  bad += "}\n";
  CliRunner cli;
  cli.Write("a.hlo", kBefore);
  cli.Write("bad.hlo", bad);
  RunResult r = cli.Run("diff bad.hlo a.hlo");
  EXPECT_EQ(r.exit_code, 1);
  size_t lines = 0;
  for (char c : r.err) lines += c == '\n';
  EXPECT_EQ(lines, 11u) << r.err;
  EXPECT_THAT(r.err, HasSubstr("more errors not shown"));
}

TEST(CliDiffTest, UnrelatedModulesDiffWithoutCrashing) {
  CliRunner cli;
  cli.Write("a.hlo", kBefore);
  cli.Write("b.hlo",
            "HloModule other\nENTRY %e {\n  ROOT %k = s32[] "
            "constant(1)\n}\n");
  RunResult r = cli.Run("diff a.hlo b.hlo");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_THAT(r.out, HasSubstr("- computation main\n+ computation e\n"));
}

TEST(CliDiffTest, ProtoDumpsDiffAsTheirText) {
  CliRunner cli;
  cli.Write("a.hlo", kBefore);
  cli.Write("b.hlo", kAfter);
  ASSERT_EQ(cli.Run("convert a.hlo -o a.pb").exit_code, 0);
  ASSERT_EQ(cli.Run("convert b.hlo -o b.pb").exit_code, 0);
  RunResult same = cli.Run("diff a.pb a.hlo");
  EXPECT_EQ(same.exit_code, 0) << same.out << same.err;
  RunResult r = cli.Run("diff a.pb b.pb");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_THAT(r.out, HasSubstr("> main neg neg.1\n"));
  EXPECT_THAT(r.out, HasSubstr("- main dead\n"));
  cli.Write("broken.pb", "\x0a\xff\xff\xff");
  RunResult broken = cli.Run("diff broken.pb a.hlo");
  EXPECT_EQ(broken.exit_code, 2);
  EXPECT_THAT(broken.err, HasSubstr("broken.pb"));
}

}  // namespace
}  // namespace hlo_lsp::testing
