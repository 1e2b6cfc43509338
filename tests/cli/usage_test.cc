// --help, --version, usage and I/O errors: exit codes 0 and 2 of contracts.md.
#include <string>

#include "cli_runner.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hlo_lsp::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST(CliUsageTest, VersionPrintsOneLine) {
  CliRunner cli;
  RunResult r = cli.Run("--version");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "hlo-lsp " HLO_LSP_VERSION "\n");
  EXPECT_EQ(r.err, "");
}

TEST(CliUsageTest, HelpListsEverySubcommand) {
  CliRunner cli;
  RunResult r = cli.Run("--help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_THAT(r.out, HasSubstr("\n  check "));
  EXPECT_THAT(r.out, HasSubstr("\n  outline "));
  EXPECT_THAT(r.out, HasSubstr("--stdio"));
}

TEST(CliUsageTest, SubcommandHelpGoesToStdoutAndExitsZero) {
  CliRunner cli;
  for (const char* name : {"check", "outline"}) {
    RunResult r = cli.Run(std::string(name) + " --help");
    EXPECT_EQ(r.exit_code, 0) << name;
    EXPECT_THAT(r.out, StartsWith("usage: hlo-lsp " + std::string(name)))
        << name;
    EXPECT_EQ(r.err, "") << name;
  }
}

TEST(CliUsageTest, UnknownSubcommandIsAUsageError) {
  CliRunner cli;
  RunResult r = cli.Run("frobnicate");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_THAT(r.err, StartsWith("hlo-lsp: unknown command 'frobnicate'\n"));
}

TEST(CliUsageTest, CheckWithoutFilesOrWithBadFlagIsAUsageError) {
  CliRunner cli;
  cli.Write("a.hlo", "");
  EXPECT_EQ(cli.Run("check").exit_code, 2);
  RunResult r = cli.Run("check --frobnicate a.hlo");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("unknown option '--frobnicate'"));
}

TEST(CliUsageTest, OutlineTakesExactlyOneFile) {
  CliRunner cli;
  cli.Write("a.hlo", "");
  cli.Write("b.hlo", "");
  EXPECT_EQ(cli.Run("outline").exit_code, 2);
  EXPECT_EQ(cli.Run("outline a.hlo b.hlo").exit_code, 2);
  EXPECT_EQ(cli.Run("outline --frobnicate a.hlo").exit_code, 2);
}

TEST(CliUsageTest, MissingFileIsAnIoError) {
  CliRunner cli;
  RunResult check = cli.Run("check missing.hlo");
  EXPECT_EQ(check.exit_code, 2);
  EXPECT_EQ(check.out, "");
  EXPECT_EQ(check.err,
            "hlo-lsp: cannot read missing.hlo: No such file or directory\n");
  RunResult outline = cli.Run("outline missing.hlo");
  EXPECT_EQ(outline.exit_code, 2);
  EXPECT_EQ(outline.err,
            "hlo-lsp: cannot read missing.hlo: No such file or directory\n");
}

TEST(CliUsageTest, DirectoryAndUnreadableFileAreIoErrors) {
  CliRunner cli;
  RunResult dir = cli.Run("check .");
  EXPECT_EQ(dir.exit_code, 2);
  EXPECT_EQ(dir.err, "hlo-lsp: cannot read .: Is a directory\n");
  if (::geteuid() != 0) {  // root reads anything
    cli.Write("locked.hlo", "HloModule m\n");
    std::filesystem::permissions(cli.dir() + "/locked.hlo",
                                 std::filesystem::perms::none);
    RunResult locked = cli.Run("check locked.hlo");
    EXPECT_EQ(locked.exit_code, 2);
    EXPECT_THAT(locked.err, HasSubstr("Permission denied"));
  }
}

TEST(CliUsageTest, EmptyFileIsAFindingNotAnIoError) {
  // XLA's parser rejects text with no module or instruction (its Empty
  // test), so check reports it: a diagnostic (exit 1), not a usage or I/O
  // error (exit 2).
  CliRunner cli;
  cli.Write("empty.hlo", "");
  RunResult r = cli.Run("check empty.hlo");
  EXPECT_EQ(r.out,
            "empty.hlo:1:1: error: expects an HLO module or instruction, the "
            "text is empty\n");
  EXPECT_EQ(r.exit_code, 1);
}

}  // namespace
}  // namespace hlo_lsp::testing
