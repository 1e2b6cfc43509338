// `hlo-lsp bundle`: the archive read back with tar (listing, bytes,
// MANIFEST.txt), only the module's own files, never replacing an archive,
// and memory that does not grow with the files.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/cli/cli_runner.h"
#include "tests/sanitizers.h"

namespace hlo_lsp::testing {
namespace {

std::string Hlo(const std::string& name) {
  return "HloModule " + name +
         "\n\nENTRY e {\n  ROOT p = f32[4] parameter(0)\n}\n";
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class BundleTest : public ::testing::Test {
 protected:
  // Writes DIR/dump/NAME and remembers its bytes.
  void Dump(const std::string& name, const std::string& text) {
    cli_.Write("dump/" + name, text);
  }
  // `tar -tzf` of DIR/archive, one name a line.
  std::string List(const std::string& archive) {
    return cli_.Run("--version >/dev/null; tar -tzf '" + archive + "'").out;
  }
  // The bytes of `member` in DIR/archive.
  std::string Member(const std::string& archive, const std::string& member) {
    return cli_
        .Run("--version >/dev/null; tar -xzOf '" + archive + "' '" + member +
             "'")
        .out;
  }
  void SetUp() override {
    std::filesystem::create_directories(cli_.dir() + "/dump");
  }
  CliRunner cli_;
};

TEST_F(BundleTest, HoldsTheModulesReportFilesByteForByteAndAManifest) {
  const std::string m = "module_0001.jit_f.";
  Dump(m + "before_optimizations.txt", Hlo("jit_f"));
  Dump(m + "after_optimizations.txt", Hlo("jit_f") + "// optimized\n");
  Dump(m + "after_optimizations-buffer-assignment.txt", "allocation 0\n");
  Dump(m + "after_optimizations-memory-usage-report.txt", "total 16\n");
  Dump(m + "debug_options", "xla_dump_to: \"dump\"\n");
  Dump("1764000000000001.module_0001.jit_f.execution_0000.hlo_snapshot.pb",
       std::string("\x0a\x03\x00\xffsnap", 8));
  // The module's, but not for the report: pass dumps, protos, IR, graphs.
  Dump(m + "0001.opt.after_algsimp.before_dce.txt", Hlo("jit_f"));
  Dump(m + "before_optimizations.hlo.pb", "pb");
  Dump(m + "ir-no-opt.ll", "ll");
  Dump(m + "after_optimizations.dot", "digraph {}");
  // Other modules: another id, and the same id under another name.
  Dump("module_0002.jit_g.before_optimizations.txt", Hlo("jit_g"));
  Dump("module_0002.jit_g.after_optimizations-buffer-assignment.txt", "g");
  Dump("module_0001.jit_h.before_optimizations.txt", Hlo("jit_h"));
  Dump("module_0001.jit_h.after_optimizations-buffer-assignment.txt", "h");
  Dump("module_0001.jit_h.debug_options", "h");

  RunResult r = cli_.Run("bundle dump/" + m + "after_optimizations.txt");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string archive = "module_0001.jit_f.bundle.tar.gz";
  const std::vector<std::string> expected = {
      m + "before_optimizations.txt",
      m + "after_optimizations.txt",
      "1764000000000001.module_0001.jit_f.execution_0000.hlo_snapshot.pb",
      m + "after_optimizations-buffer-assignment.txt",
      m + "after_optimizations-memory-usage-report.txt",
      m + "debug_options",
  };
  std::string listing = "module_0001.jit_f.bundle/MANIFEST.txt\n";
  std::string manifest =
      "hlo-lsp " HLO_LSP_VERSION "\nmodule: jit_f module_0001\n";
  std::string out = archive + "\n";
  for (const std::string& name : expected) {
    listing += "module_0001.jit_f.bundle/" + name + "\n";
    std::string bytes = ReadAll(cli_.dir() + "/dump/" + name);
    manifest += std::to_string(bytes.size()) + " " + name + "\n";
    out += std::to_string(bytes.size()) + " dump/" + name + "\n";
    EXPECT_EQ(Member(archive, "module_0001.jit_f.bundle/" + name), bytes)
        << name;
  }
  EXPECT_EQ(List(archive), listing);
  EXPECT_EQ(Member(archive, "module_0001.jit_f.bundle/MANIFEST.txt"), manifest);
  EXPECT_EQ(r.out, out);
  // The version line is what `hlo-lsp --version` prints.
  EXPECT_EQ(manifest.substr(0, manifest.find('\n') + 1),
            cli_.Run("--version").out);
}

TEST_F(BundleTest, TakesOnlyItsOwnRunWhenTimestampsSeparateRuns) {
  const std::string run1 = "1764000000000001.module_0001.jit_f.";
  const std::string run2 = "1764000000000002.module_0001.jit_f.";
  for (const std::string& run : {run1, run2}) {
    Dump(run + "before_optimizations.txt", Hlo("jit_f") + "// " + run + "\n");
    Dump(run + "after_optimizations-buffer-assignment.txt", run);
  }
  RunResult r = cli_.Run("bundle dump/" + run2 + "before_optimizations.txt" +
                         " -o two.tar.gz");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(List("two.tar.gz"),
            "two/MANIFEST.txt\ntwo/" + run2 + "before_optimizations.txt\n" +
                "two/" + run2 + "after_optimizations-buffer-assignment.txt\n");
}

TEST_F(BundleTest, AModuleWithoutBufferAssignmentBundlesWhatThereIs) {
  Dump("module_0003.jit_k.before_optimizations.txt", Hlo("jit_k"));
  Dump("module_0003.jit_k.after_optimizations.txt", Hlo("jit_k"));
  RunResult r =
      cli_.Run("bundle --json dump/module_0003.jit_k.before_optimizations.txt");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["path"], "module_0003.jit_k.bundle.tar.gz");
  ASSERT_EQ(j["files"].size(), 2u);
  EXPECT_EQ(j["files"][1]["path"],
            "dump/module_0003.jit_k.after_optimizations.txt");
  EXPECT_EQ(j["files"][1]["name"], "module_0003.jit_k.after_optimizations.txt");
  EXPECT_EQ(j["files"][1]["size"], Hlo("jit_k").size());
  EXPECT_EQ(j["manifest"], Member("module_0003.jit_k.bundle.tar.gz",
                                  "module_0003.jit_k.bundle/MANIFEST.txt"));
  EXPECT_EQ(List("module_0003.jit_k.bundle.tar.gz"),
            "module_0003.jit_k.bundle/MANIFEST.txt\n"
            "module_0003.jit_k.bundle/"
            "module_0003.jit_k.before_optimizations.txt\n"
            "module_0003.jit_k.bundle/"
            "module_0003.jit_k.after_optimizations.txt\n");
}

// ustar holds 100-byte names (155 more as a prefix); XLA's reach 255 bytes.
TEST_F(BundleTest, LongNamesArriveWhole) {
  const std::string m = "module_0004." + std::string(180, 'n') + ".";
  Dump(m + "before_optimizations.txt", Hlo(std::string(180, 'n')));
  Dump(m + "debug_options", "opts");
  RunResult r = cli_.Run("bundle dump/" + m + "before_optimizations.txt" +
                         " -o long.tar.gz");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(List("long.tar.gz"), "long/MANIFEST.txt\nlong/" + m +
                                     "before_optimizations.txt\nlong/" + m +
                                     "debug_options\n");
  EXPECT_EQ(Member("long.tar.gz", "long/" + m + "debug_options"), "opts");
}

TEST_F(BundleTest, NeverReplacesAnArchiveAndLeavesNoTemporaryFile) {
  Dump("module_0001.jit_f.before_optimizations.txt", Hlo("jit_f"));
  const std::string file = "dump/module_0001.jit_f.before_optimizations.txt";
  ASSERT_EQ(cli_.Run("bundle " + file).exit_code, 0);
  const std::string archive = cli_.dir() + "/module_0001.jit_f.bundle.tar.gz";
  const std::string first = ReadAll(archive);
  RunResult again = cli_.Run("bundle " + file);
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_EQ(again.err,
            "hlo-lsp: module_0001.jit_f.bundle.tar.gz exists; not replacing "
            "it\n");
  EXPECT_EQ(ReadAll(archive), first);
  // -o naming any existing file: refused, untouched.
  cli_.Write("notes.tar.gz", "mine");
  EXPECT_EQ(cli_.Run("bundle " + file + " -o notes.tar.gz").exit_code, 2);
  EXPECT_EQ(ReadAll(cli_.dir() + "/notes.tar.gz"), "mine");
  // -o into a folder, with its own top folder name.
  std::filesystem::create_directories(cli_.dir() + "/out");
  ASSERT_EQ(cli_.Run("bundle " + file + " -o out/report.tar.gz").exit_code, 0);
  EXPECT_EQ(List("out/report.tar.gz"),
            "report/MANIFEST.txt\n"
            "report/module_0001.jit_f.before_optimizations.txt\n");
  for (const auto& e :
       std::filesystem::recursive_directory_iterator(cli_.dir())) {
    EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos)
        << e.path();
  }
}

TEST_F(BundleTest, BadArgumentsAndMissingFilesAreUsageErrors) {
  RunResult missing = cli_.Run("bundle dump/missing.txt");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("cannot read dump/missing.txt"),
            std::string::npos);
  EXPECT_EQ(cli_.Run("bundle").exit_code, 2);
  EXPECT_EQ(cli_.Run("bundle a b").exit_code, 2);
  EXPECT_EQ(cli_.Run("bundle --bogus x").exit_code, 2);
  EXPECT_EQ(cli_.Run("bundle dump").exit_code, 2);  // a folder
  Dump("module_0001.jit_f.before_optimizations.txt", Hlo("jit_f"));
  EXPECT_EQ(cli_.Run("bundle dump/module_0001.jit_f.before_optimizations.txt "
                     "-o no/such/folder/x.tar.gz")
                .exit_code,
            2);
  EXPECT_EQ(cli_.Run("bundle dump/module_0001.jit_f.before_optimizations.txt "
                     "-o")
                .exit_code,
            2);
  EXPECT_NE(cli_.Run("bundle --help").out.find("Pass dumps, protos"),
            std::string::npos);
}

// A 200 MB file bundled in a process limited to 120 MB of address space:
// the archive is streamed, never held.
TEST_F(BundleTest, MemoryDoesNotGrowWithTheFiles) {
  if (kUnderAddressSanitizer) GTEST_SKIP() << "ulimit -v breaks ASan";
  Dump("module_0001.jit_f.before_optimizations.txt", Hlo("jit_f"));
  const std::string big =
      cli_.dir() + "/dump/module_0001.jit_f.after_optimizations.txt";
  Dump("module_0001.jit_f.after_optimizations.txt", Hlo("jit_f"));
  ASSERT_EQ(::truncate(big.c_str(), 200 << 20), 0);  // zeros, sparse
  RunResult r = cli_.Run(
      "--version >/dev/null; ulimit -v 120000; '" HLO_LSP_BINARY
      "' bundle dump/module_0001.jit_f.before_optimizations.txt -o big.tar.gz");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string listing =
      cli_.Run("--version >/dev/null; tar -tzvf big.tar.gz").out;
  EXPECT_NE(listing.find(std::to_string(200 << 20) + " "), std::string::npos)
      << listing;
}

}  // namespace
}  // namespace hlo_lsp::testing
