// `check` and `outline` output, byte for byte, on fixtures with known
// positions: the formats of contracts.md.
#include <cstdlib>
#include <string>

#include "cli_runner.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace hlo_lsp::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::MatchesRegex;

constexpr char kClean[] =
    R"(HloModule clean, entry_computation_layout={(f32[4]{0})->f32[]}

%sum (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %c = f32[] add(f32[] %a, f32[] %b)
}

ENTRY %main (p: f32[4]) -> f32[] {
  %p = f32[4]{0} parameter(0)
  %zero = f32[] constant(0)
  ROOT %r = f32[] reduce(f32[4]{0} %p, f32[] %zero), dimensions={0}, to_apply=%sum
}
)";

// 1-based column of the first `needle` on 1-based line `line` of `text`.
int ColumnOf(const std::string& text, int line, const std::string& needle) {
  size_t start = 0;
  for (int i = 1; i < line; ++i) start = text.find('\n', start) + 1;
  return static_cast<int>(text.find(needle, start) - start) + 1;
}

TEST(CliCheckTest, CleanFilePrintsNothingAndExitsZero) {
  CliRunner cli;
  cli.Write("clean.hlo", kClean);
  RunResult r = cli.Run("check clean.hlo");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "");
}

// `check dump/*.txt` (the README's example) takes in XLA's buffer
// assignment and memory reports: skipped with a note, not errors (issue 20).
TEST(CliCheckTest, XlasOtherTextDumpsAreSkippedWithANote) {
  CliRunner cli;
  cli.Write("module_0001.f.after_optimizations.txt",
            "HloModule f\n\nENTRY %e () -> f32[] {\n  ROOT %c = f32[] "
            "constant(1)\n}\n");
  cli.Write(
      "module_0001.f.after_optimizations-buffer-assignment.txt",
      "BufferAssignment:\nallocation 0: size 4, output shape is |f32[]|\n");
  cli.Write("module_0001.f.after_optimizations-memory-usage-report.txt",
            "Total bytes used: 4\n");
  RunResult r = cli.Run("check *.txt");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("-buffer-assignment.txt: skipped, XLA's "
                       "buffer-assignment dump"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("-memory-usage-report.txt: skipped"), std::string::npos)
      << r.err;
  // A file so named that holds HLO text is still checked.
  cli.Write("x-buffer-assignment.txt",
            "HloModule x\n\nENTRY %e {\n  ROOT %c = "
            "f32[] add(%nope, %nope)\n}\n");
  EXPECT_EQ(cli.Run("check x-buffer-assignment.txt").exit_code, 1);
}

TEST(CliCheckTest, ShippedExamplesAreClean) {
  CliRunner cli;
  RunResult r = cli.Run("check '" HLO_LSP_SOURCE_DIR "'/examples/*");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out, "");
}

TEST(CliCheckTest, UndefinedOperandIsAnErrorAtItsPosition) {
  std::string text = kClean;
  text.replace(text.find("%p, f32[] %zero"), 15, "%p, f32[] %nope");
  CliRunner cli;
  cli.Write("bad.hlo", text);
  RunResult r = cli.Run("check bad.hlo");
  EXPECT_EQ(r.exit_code, 1);
  // Line 12; the column is that of the name, with or without its '%'.
  int with_percent = ColumnOf(text, 12, "%nope");
  std::string at_percent = "bad.hlo:12:" + std::to_string(with_percent) + ": ";
  std::string at_name = "bad.hlo:12:" + std::to_string(with_percent + 1) + ": ";
  ASSERT_THAT(r.out, MatchesRegex("(bad\\.hlo:[0-9]+:[0-9]+: (error|warning): "
                                  "[^\n]+\n)+"));
  EXPECT_TRUE(r.out.rfind(at_percent + "error: ", 0) == 0 ||
              r.out.rfind(at_name + "error: ", 0) == 0)
      << r.out;
  EXPECT_THAT(r.out, HasSubstr("nope"));
}

// A declared shape that XLA's shape inference would not give: the
// verifier's finding at the shape, exit 1; --no-verify leaves only syntax
// and names (contracts.md).
constexpr char kWrongShape[] =
    "HloModule m\n\nENTRY e {\n  x = f32[2,3] parameter(0)\n"
    "  ROOT t = f32[2,3] transpose(x), dimensions={1,0}\n}\n";

TEST(CliCheckTest, ShapeThatXlaWouldNotInferIsAnError) {
  CliRunner cli;
  cli.Write("shape.hlo", kWrongShape);
  RunResult r = cli.Run("check shape.hlo");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out,
            "shape.hlo:5:12: error: Expected instruction to have shape equal "
            "to f32[3,2], actual shape is f32[2,3]\n");
  RunResult off = cli.Run("check --no-verify shape.hlo");
  EXPECT_EQ(off.exit_code, 0);
  EXPECT_EQ(off.out, "");
}

TEST(CliCheckTest, VerifyListNamesXlasOptions) {
  CliRunner cli;
  cli.Write("mixed.hlo",
            "HloModule m\n\nENTRY e {\n  x = f32[2] parameter(0)\n"
            "  ROOT n = bf16[2] negate(x)\n}\n");
  // Without a flag, mixed precision is allowed; XLA's defaults forbid it.
  EXPECT_EQ(cli.Run("check mixed.hlo").exit_code, 0);
  RunResult strict = cli.Run("check --verify=default mixed.hlo");
  EXPECT_EQ(strict.exit_code, 1);
  EXPECT_THAT(strict.out,
              HasSubstr("mixed.hlo:5:12: error: Expected "
                        "instruction to have shape equal to f32[2]"));
  EXPECT_EQ(
      cli.Run("check --verify=layout_sensitive,allow_mixed_precision mixed.hlo")
          .exit_code,
      0);
  RunResult bad = cli.Run("check --verify=no_such_option mixed.hlo");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("unknown verifier option 'no_such_option'"));
  EXPECT_EQ(cli.Run("check --verify=default --no-verify mixed.hlo").exit_code,
            2);
}

TEST(CliCheckTest, InstructionsWithoutAShapeAreValid) {
  CliRunner cli;
  cli.Write("bare.hlo",
            "HloModule m\n\nENTRY e {\n  x = f32[2] parameter(0)\n"
            "  %a = add(x, x)\n  ROOT r = compare(a, x), direction=GT\n}\n");
  RunResult r = cli.Run("check bare.hlo");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.out, "");
}

TEST(CliCheckTest, UndefinedComputationIsAnError) {
  std::string text = kClean;
  text.replace(text.find("to_apply=%sum"), 13, "to_apply=%gone");
  CliRunner cli;
  cli.Write("bad.hlo", text);
  RunResult r = cli.Run("check bad.hlo");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.out, MatchesRegex("bad\\.hlo:12:[0-9]+: error: [^\n]*gone[^\n]*"
                                  "\n"));
}

TEST(CliCheckTest, ColumnsCountBytesAndCrlfKeepsLines) {
  // A two-byte character before the error on the same line, CRLF endings.
  std::string text =
      "HloModule m\r\nENTRY e {\r\n"
      "  p = f32[] parameter(0), metadata={op_name=\"\xC3\xA9\"}\r\n"
      "  ROOT r = f32[] add(p, missing)\r\n}\r\n";
  CliRunner cli;
  cli.Write("crlf.hlo", text);
  RunResult r = cli.Run("check crlf.hlo");
  EXPECT_EQ(r.exit_code, 1);
  int column = ColumnOf(text, 4, "missing");
  EXPECT_THAT(r.out,
              MatchesRegex("crlf\\.hlo:4:(" + std::to_string(column) + "|" +
                           std::to_string(column - 1) + "): error: [^\n]*\n"));
  // A two-byte character earlier on the line counts two columns.
  std::string bytes_text =
      "HloModule m\nENTRY e {\n  p = f32[] parameter(0)\n"
      "  ROOT r = f32[] custom-call(p), custom_call_target=\"\xC3\xA9\", "
      "to_apply=%nowhere\n}\n";
  cli.Write("bytes.hlo", bytes_text);
  RunResult bytes = cli.Run("check bytes.hlo");
  EXPECT_EQ(bytes.exit_code, 1);
  int at = ColumnOf(bytes_text, 4, "%nowhere");
  EXPECT_THAT(bytes.out, MatchesRegex("bytes\\.hlo:4:(" + std::to_string(at) +
                                      "|" + std::to_string(at + 1) +
                                      "): error: [^\n]*nowhere[^\n]*\n"));
}

TEST(CliCheckTest, SeveralFilesAndIoErrorsTogether) {
  std::string bad = kClean;
  bad.replace(bad.find("to_apply=%sum"), 13, "to_apply=%gone");
  CliRunner cli;
  cli.Write("clean.hlo", kClean);
  cli.Write("bad.hlo", bad);
  RunResult both = cli.Run("check clean.hlo bad.hlo");
  EXPECT_EQ(both.exit_code, 1);
  EXPECT_THAT(both.out, MatchesRegex("(bad\\.hlo:[^\n]+\n)+"));
  // A missing file wins: exit 2, the other files are still checked.
  RunResult with_missing = cli.Run("check bad.hlo missing.hlo clean.hlo");
  EXPECT_EQ(with_missing.exit_code, 2);
  EXPECT_EQ(with_missing.out, both.out);
  EXPECT_THAT(with_missing.err, HasSubstr("cannot read missing.hlo"));
}

// Files are checked in parallel but reported in the order given: a big
// file first finishes last, and its lines still come first.
TEST(CliCheckTest, ParallelCheckKeepsTheOrderOfTheFiles) {
  CliRunner cli;
  std::string args = "check";
  std::string expected;
  for (int i = 0; i < 24; ++i) {
    std::string name = "f" + std::to_string(i) + ".hlo";
    std::string text =
        "HloModule m" + std::to_string(i) + "\n\nENTRY %main () -> f32[] {\n";
    // Every third file is large, so that files finish out of order.
    const int filler = i % 3 == 0 ? 20000 : 1;
    for (int k = 0; k < filler; ++k) {
      text += "  %c" + std::to_string(k) + " = f32[] constant(1)\n";
    }
    text += "  ROOT %r = f32[] add(f32[] %c0, f32[] %nope" + std::to_string(i) +
            ")\n}\n";
    cli.Write(name, text);
    args += " " + name;
    if (i == 7) args += " missing.hlo";
    expected += name + ":" + std::to_string(filler + 4) + ":";
  }
  RunResult r = cli.Run(args);
  EXPECT_EQ(r.exit_code, 2);  // the missing file wins
  EXPECT_THAT(r.err, HasSubstr("cannot read missing.hlo"));
  std::string order;
  for (size_t at = 0; at < r.out.size();) {
    size_t end = r.out.find('\n', at);
    std::string line = r.out.substr(at, end - at);
    // FILE:LINE: of each line, in output order.
    size_t second = line.find(':', line.find(':') + 1);
    order += line.substr(0, second + 1);
    at = end + 1;
  }
  EXPECT_EQ(order, expected);
}

// Runs `args` with HLO_LSP_CHECK_THREADS=threads (internal to check), with
// stderr merged into stdout so that their interleaving is compared too.
RunResult RunWithThreads(CliRunner& cli, const std::string& args,
                         const char* threads) {
  ::setenv("HLO_LSP_CHECK_THREADS", threads, 1);
  RunResult r = cli.Run(args + " 2>&1; exit $?");
  ::unsetenv("HLO_LSP_CHECK_THREADS");
  return r;
}

// The parallel check prints byte for byte what one file after another
// prints: many files of different sizes, errors, warnings, skip notes,
// unreadable files, all in argument order on one merged stream.
TEST(CliCheckTest, ParallelOutputEqualsSequentialOutput) {
  CliRunner cli;
  std::string args = "check";
  for (int i = 0; i < 60; ++i) {
    const std::string n = std::to_string(i);
    std::string name = "m" + n + ".hlo";
    std::string text = "HloModule m" + n + "\n\nENTRY %main () -> f32[] {\n";
    // Sizes vary, so that files finish out of order.
    const int filler = (i * 7919) % 13 == 0 ? 30000 : (i * 31) % 200;
    for (int k = 0; k < filler; ++k) {
      text += "  %c" + std::to_string(k) + " = f32[] constant(1)\n";
    }
    switch (i % 6) {
      case 0:  // clean
        text += "  ROOT %r = f32[] add(f32[] %c0, f32[] %c0)\n}\n";
        break;
      case 1:  // several errors in one file
        text += "  %u = f32[] add(%gone" + n + ", %c0)\n  %u = f32[] " +
                "frobnicate(%c0)\n  %t = f32[4] transpose(%c0), " +
                "dimensions={x}\n  ROOT %r = f32[] add(%u, %nope)\n}\n";
        break;
      case 2:  // a syntax error, then recovery
        text +=
            "  %broken f32[] add(%c0, %c0)\n  ROOT %r = f32[] "
            "add(%c0, %missing)\n}\n";
        break;
      case 3:  // an unterminated computation
        text += "  ROOT %r = f32[] add(%c0, %c0)\n";
        break;
      case 4:  // XLA's buffer-assignment dump: a note on stderr
        name = "m" + n + "-buffer-assignment.txt";
        text = "BufferAssignment:\nallocation 0: size 4\n";
        break;
      default:  // a module without a body
        text = "HloModule m" + n + "\n\nENTRY %main () -> f32[] {\n";
        break;
    }
    cli.Write(name, text);
    args += " " + name;
    if (i % 17 == 5) args += " missing" + n + ".hlo";
  }
  RunResult one = RunWithThreads(cli, args, "1");
  EXPECT_EQ(one.exit_code, 2);  // missing files win
  EXPECT_THAT(one.out, HasSubstr("m1.hlo:"));
  EXPECT_THAT(one.out, HasSubstr("cannot read missing5.hlo"));
  EXPECT_THAT(one.out, HasSubstr("m4-buffer-assignment.txt: skipped"));
  for (const char* threads : {"2", "8", "32"}) {
    RunResult many = RunWithThreads(cli, args, threads);
    EXPECT_EQ(many.exit_code, one.exit_code) << threads;
    EXPECT_EQ(many.out, one.out) << threads;
  }
  // Without missing files: exit 1 for the errors, on any number of threads.
  std::string no_missing = "check";
  for (int i = 0; i < 60; i += 1) {
    no_missing += i % 6 == 4
                      ? " m" + std::to_string(i) + "-buffer-assignment.txt"
                      : " m" + std::to_string(i) + ".hlo";
  }
  RunResult errors_one = RunWithThreads(cli, no_missing, "1");
  RunResult errors_many = RunWithThreads(cli, no_missing, "8");
  EXPECT_EQ(errors_one.exit_code, 1);
  EXPECT_EQ(errors_many.exit_code, 1);
  EXPECT_EQ(errors_many.out, errors_one.out);
}

TEST(CliCheckTest, ReadsStdin) {
  CliRunner cli;
  cli.Write("clean.hlo", kClean);
  RunResult r = cli.Run("check - < clean.hlo");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "");
}

TEST(CliOutlineTest, TextListsComputationsInLineOrder) {
  CliRunner cli;
  cli.Write("clean.hlo", kClean);
  RunResult r = cli.Run("outline clean.hlo");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out,
            "module clean\n"
            "  computation sum: 3 instructions\n"
            "  ENTRY computation main: 3 instructions\n");
  EXPECT_EQ(r.err, "");
}

TEST(CliOutlineTest, ShippedControlFlowExample) {
  CliRunner cli;
  RunResult r =
      cli.Run("outline '" HLO_LSP_SOURCE_DIR "/examples/control_flow.hlo'");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out,
            "module loop_and_branch\n"
            "  computation loop_condition: 4 instructions\n"
            "  computation loop_body: 8 instructions\n"
            "  computation branch_negate: 2 instructions\n"
            "  computation branch_identity: 2 instructions\n"
            "  computation branch_square: 2 instructions\n"
            "  ENTRY computation main: 9 instructions\n");
}

TEST(CliOutlineTest, JsonHasTheContractFieldsInOrder) {
  CliRunner cli;
  cli.Write("clean.hlo", kClean);
  RunResult r = cli.Run("outline clean.hlo --json");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out,
            "{\"modules\":[{\"name\":\"clean\",\"line\":1,\"computations\":["
            "{\"name\":\"sum\",\"entry\":false,\"line\":3,\"instructions\":3},"
            "{\"name\":\"main\",\"entry\":true,\"line\":9,\"instructions\":3}"
            "]}]}\n");
  EXPECT_FALSE(nlohmann::json::parse(r.out, nullptr, false).is_discarded());
}

TEST(CliOutlineTest, NestedOperandsAreNotCounted) {
  CliRunner cli;
  cli.Write("nested.hlo",
            "HloModule n\nENTRY e {\n  a = f32[] parameter(0)\n"
            "  ROOT r = f32[] add(f32[] multiply(a, a), a)\n}\n");
  RunResult r = cli.Run("outline nested.hlo");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "module n\n  ENTRY computation e: 2 instructions\n");
}

TEST(CliOutlineTest, FileWithErrorsStillOutlinesButExitsOne) {
  std::string bad = kClean;
  bad.replace(bad.find("to_apply=%sum"), 13, "to_apply=%gone");
  CliRunner cli;
  cli.Write("bad.hlo", bad);
  RunResult r = cli.Run("outline bad.hlo");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.out, HasSubstr("  ENTRY computation main: 3 instructions\n"));
  EXPECT_THAT(r.err, HasSubstr("bad.hlo has errors"));
}

}  // namespace
}  // namespace hlo_lsp::testing
