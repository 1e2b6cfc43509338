// The command line against adversarial input (issue 18): files that are not
// regular, output that cannot be written, a junk text proto, a folder that
// cannot be listed, file names that are not text, files that shrink.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "cli_runner.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hlo_lsp::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kReliabilityModule[] =
    R"(HloModule m, entry_computation_layout={(f32[4]{0})->f32[4]{0}}

ENTRY %main (p: f32[4]) -> f32[4] {
  %p = f32[4]{0} parameter(0)
  ROOT %neg_target = f32[4]{0} negate(f32[4]{0} %p)
}
)";

// Every reading command refuses a device and a FIFO (with no writer) at
// once: exit 2 naming the file, no endless read of /dev/zero, no wait.
TEST(CliReliabilityTest, DevicesAndFifosAreRefused) {
  CliRunner cli;
  ASSERT_EQ(::mkfifo((cli.dir() + "/pipe.hlo").c_str(), 0600), 0);
  for (const char* file : {"/dev/zero", "pipe.hlo"}) {
    for (const char* command : {"check", "outline", "convert", "replay"}) {
      RunResult r = cli.Run(
          std::string("--version >/dev/null; timeout 60 '" HLO_LSP_BINARY
                      "' ") +
          command + " " + file);
      EXPECT_EQ(r.exit_code, 2) << command << " " << file << ": " << r.err;
      EXPECT_THAT(r.err, HasSubstr("not a regular file"))
          << command << " " << file;
    }
  }
}

// Under a 3 GB address-space limit, /dev/zero once grew until bad_alloc
// aborted the process (exit 134).
TEST(CliReliabilityTest, DevicesAreRefusedWithinAMemoryLimit) {
  if (kUnderAddressSanitizer) GTEST_SKIP() << "ulimit -v breaks ASan";
  CliRunner cli;
  RunResult limited =
      cli.Run("--version >/dev/null; ulimit -v 3000000; '" HLO_LSP_BINARY
              "' check /dev/zero");
  EXPECT_EQ(limited.exit_code, 2) << limited.err;
  EXPECT_THAT(limited.err, HasSubstr("/dev/zero: not a regular file"));
}

// Under address-space limits from too small to enough, the commands that
// read a large module finish or end with a clear error (exit 2): never an
// abort from std::bad_alloc or a thread the system refused (printing and
// checking run on threads). Once convert of a 2.4 MB proto aborted under
// 60 MB and under 100 MB.
TEST(CliReliabilityTest, TightMemoryLimitsEndWithAClearError) {
  if (kUnderAddressSanitizer) GTEST_SKIP() << "ulimit -v breaks ASan";
  CliRunner cli;
  std::string text =
      "HloModule long\n\nENTRY %main (a: f32[8], b: f32[8]) -> f32[8] {\n"
      "  %a = f32[8]{0} parameter(0)\n  %b = f32[8]{0} parameter(1)\n";
  std::string previous = "%a";
  for (int k = 0; k < 30000; ++k) {
    const std::string name = "%value." + std::to_string(k);
    text += "  " + name + " = f32[8]{0} add(f32[8]{0} " + previous +
            ", f32[8]{0} %b), metadata={op_name=\"jit(f)/add\" "
            "source_file=\"/tmp/model.py\" source_line=" +
            std::to_string(k) + "}\n";
    previous = name;
  }
  text += "  ROOT %out = f32[8]{0} negate(f32[8]{0} " + previous + ")\n}\n";
  cli.Write("long.hlo", text);
  ASSERT_EQ(cli.Run("convert long.hlo -o long.pb").exit_code, 0);
  for (int megabytes : {40, 60, 80, 100, 140, 200}) {
    for (const char* command :
         {"convert long.pb", "check long.hlo", "outline long.hlo"}) {
      RunResult r = cli.Run("--version >/dev/null; ulimit -v " +
                            std::to_string(megabytes * 1000) + "; '" +
                            HLO_LSP_BINARY + "' " + command + " >/dev/null");
      EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 2)
          << command << " under " << megabytes << " MB: exit " << r.exit_code
          << ": " << r.err;
      EXPECT_THAT(r.err, Not(HasSubstr("terminate")))
          << command << " under " << megabytes << " MB";
      if (r.exit_code == 2) {
        EXPECT_THAT(r.err, HasSubstr("memory"))
            << command << " under " << megabytes << " MB";
      }
    }
  }
}

TEST(CliReliabilityTest, StandardInputIsStillReadThroughAPipe) {
  CliRunner cli;
  cli.Write("m.hlo", kReliabilityModule);
  RunResult r = cli.Run("--version >/dev/null && cat m.hlo | '" HLO_LSP_BINARY
                        "' outline -");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("ENTRY computation main: 2 instructions"));
}

// A full disk is an I/O error (exit 2), not a success with lost output.
TEST(CliReliabilityTest, WriteErrorsOnStdoutExitTwo) {
  CliRunner cli;
  cli.Write("m.hlo", kReliabilityModule);
  ASSERT_EQ(cli.Run("convert m.hlo -o m.pb").exit_code, 0);
  for (const char* args : {"outline m.hlo", "outline --json m.hlo", "--version",
                           "search --no-cache --limit 50 neg_target",
                           "replay m.hlo", "convert m.pb"}) {
    RunResult r = cli.Run(std::string(args) + " > /dev/full");
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.err;
    EXPECT_THAT(r.err, HasSubstr("cannot write")) << args;
  }
  // The same commands succeed where the output can be written.
  EXPECT_EQ(cli.Run("outline m.hlo > /dev/null").exit_code, 0);
}

// A junk text proto is answered with the text-proto parse error (exit 1),
// not "a binary proto needs -o OUT" (exit 2).
TEST(CliReliabilityTest, AJunkTextProtoGetsItsParseError) {
  CliRunner cli;
  cli.Write("j.pbtxt", "hlo_module { name: \"x\" computations { junk");
  RunResult r = cli.Run("convert j.pbtxt");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_THAT(r.err, HasSubstr("j.pbtxt"));
  EXPECT_THAT(r.err, Not(HasSubstr("needs -o")));
  RunResult forced = cli.Run("convert --to text j.pbtxt");
  EXPECT_EQ(forced.exit_code, 1);
  // Without the .pbtxt name it may be HLO text: the message says both.
  cli.Write("j.txt", "hlo_module { name: \"x\" computations { junk");
  RunResult unnamed = cli.Run("convert j.txt");
  EXPECT_EQ(unnamed.exit_code, 1) << unnamed.err;
  EXPECT_THAT(unnamed.err, HasSubstr("needs -o OUT"));
}

// A --dir the user cannot list is an I/O error, not a silent "no match".
// Root reads everything, so as root the binary runs as nobody.
TEST(CliReliabilityTest, AnUnreadableDirIsAnIoError) {
  CliRunner cli;
  std::filesystem::permissions(cli.dir(), std::filesystem::perms(0755));
  ASSERT_EQ(::mkdir((cli.dir() + "/locked").c_str(), 0755), 0);
  cli.Write("locked/m.hlo", kReliabilityModule);
  ASSERT_EQ(::chmod((cli.dir() + "/locked").c_str(), 0), 0);
  std::string as_user =
      ::geteuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups "
                       : "";
  RunResult r =
      cli.Run("--version >/dev/null; " + as_user +
              "'" HLO_LSP_BINARY "' search --no-cache --dir locked neg_target");
  ::chmod((cli.dir() + "/locked").c_str(), 0755);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("locked: Permission denied"));
}

// Paths are bytes: --json keeps every byte (\udcNN for non-UTF-8, as
// Python's surrogateescape), text escapes a newline instead of splitting.
TEST(CliReliabilityTest, PathsThatAreNotTextSurviveTheOutput) {
  CliRunner cli;
  cli.Write("odd\xff\n.hlo", kReliabilityModule);
  RunResult json = cli.Run("search --no-cache --json neg_target");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  // (nlohmann refuses lone surrogates; Python's json.loads takes them.)
  EXPECT_THAT(json.out, HasSubstr(R"("path":"./odd\udcff\n.hlo")"));
  RunResult text = cli.Run("search --no-cache neg_target");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_TRUE(text.out.starts_with("./odd\xff\\n.hlo:5:")) << text.out;
  EXPECT_TRUE(text.out.ends_with(" instruction neg_target\n")) << text.out;
  EXPECT_EQ(std::count(text.out.begin(), text.out.end(), '\n'), 1);
}

// A file over 16 MB truncated and rewritten while search and check read it
// killed them with SIGBUS (exit 135). Now each run ends with an exit code.
TEST(CliReliabilityTest, FilesThatShrinkWhileReadAreNoSignal) {
  CliRunner cli;
  std::string big =
      "HloModule big\n\nENTRY %main (p: f32[4]) -> f32[4] {\n"
      "  %p = f32[4]{0} parameter(0)\n";
  for (int i = 0; big.size() < (size_t{20} << 20); ++i) {
    big += "  %n" + std::to_string(i) +
           " = f32[4]{0} negate(f32[4]{0} %p), metadata={op_name=\"x\"}\n";
  }
  big += "  ROOT %r = f32[4]{0} negate(f32[4]{0} %p)\n}\n";
  std::string path = cli.dir() + "/d/module_0001.big.txt";
  std::filesystem::create_directories(cli.dir() + "/d");
  cli.Write("d/module_0001.big.txt", big);
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    while (!stop) {
      [[maybe_unused]] int rc = ::truncate(path.c_str(), 0);
      std::ofstream(path, std::ios::binary | std::ios::trunc) << big;
    }
  });
  for (int i = 0; i < 10; ++i) {
    RunResult search = cli.Run("search --no-cache --dir d n77");
    EXPECT_NE(search.exit_code, -1) << "search died of a signal";
    RunResult check = cli.Run("check d/module_0001.big.txt");
    EXPECT_NE(check.exit_code, -1) << "check died of a signal";
    RunResult outline = cli.Run("outline d/module_0001.big.txt");
    EXPECT_NE(outline.exit_code, -1) << "outline died of a signal";
  }
  stop = true;
  writer.join();
}

}  // namespace
}  // namespace hlo_lsp::testing
