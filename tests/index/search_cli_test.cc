// Runs the real binary: `hlo-lsp search` output, order, JSON and exit codes,
// and (when ripgrep is installed) that --limit 0 finds every definition rg
// finds.
#include <sys/wait.h>

#include <cstdio>
#include <set>
#include <sstream>
#include <string>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "test_dir.h"

namespace hlo::index {
namespace {

namespace fs = std::filesystem;
using index_test::MakeModule;
using index_test::TempDir;
using index_test::WriteFile;

struct RunResult {
  int exit_code = -1;
  std::string out;
};

RunResult Shell(const std::string& command) {
  RunResult result;
  FILE* pipe = ::popen((command + " 2>/dev/null").c_str(), "r");
  if (pipe == nullptr) return result;
  char buffer[65536];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof(buffer), pipe)) > 0) {
    result.out.append(buffer, n);
  }
  int status = ::pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

class SearchCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    binary_ = HLO_LSP_BINARY;
    if (!fs::exists(binary_) ||
        Shell(binary_ + " search --help").exit_code != 0) {
      GTEST_SKIP() << "no hlo-lsp with a search subcommand at " << binary_;
    }
    for (int k = 1; k <= 4; ++k) {
      char name[100];
      std::snprintf(name, sizeof(name),
                    "module_%04d.m%d.before_optimizations.txt", k, k);
      WriteFile(dir_.path() / name,
                MakeModule("m" + std::to_string(k), 3, 30, k));
    }
    WriteFile(dir_.path() / "module_0001.m1.ir-no-opt.ll", "add.3 = x\n");
    base_ = binary_ + " search --no-cache --dir " + dir_.path().string() + " ";
  }

  std::string binary_, base_;
  TempDir dir_;
};

TEST_F(SearchCliTest, TextOutputAndExitCodes) {
  RunResult r = Shell(base_ + "--limit 3 p0.1");
  EXPECT_EQ(r.exit_code, 0);
  std::vector<std::string> lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 3u);
  std::string first =
      (dir_.path() / "module_0001.m1.before_optimizations.txt").string() + ":";
  EXPECT_EQ(lines[0].rfind(first, 0), 0u) << lines[0];
  EXPECT_NE(lines[0].find(": instruction p0.1"), std::string::npos) << lines[0];
  EXPECT_EQ(Shell(base_ + "zzzzqqqq").exit_code, 1);
  EXPECT_EQ(Shell(base_ + "").exit_code, 2);
  EXPECT_EQ(Shell(base_ + "--limit x a").exit_code, 2);
  EXPECT_EQ(Shell(base_ + "--bogus a").exit_code, 2);
  EXPECT_EQ(Shell(base_ + "'/(unclosed/'").exit_code, 2);
  EXPECT_EQ(Shell(binary_ + " search --dir /no/such/dir a").exit_code, 2);
}

TEST_F(SearchCliTest, JsonLines) {
  RunResult r = Shell(base_ + "--json --limit 0 'kind:computation /^main\\./'");
  EXPECT_EQ(r.exit_code, 0);
  std::vector<std::string> lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 4u);
  for (const std::string& line : lines) {
    nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << line;
    EXPECT_EQ(j["kind"], "computation");
    EXPECT_TRUE(j["line"].is_number());
    EXPECT_TRUE(j["col"].is_number());
    EXPECT_TRUE(j["name"].get<std::string>().rfind("main.", 0) == 0);
    EXPECT_TRUE(j["module"].is_string());
    EXPECT_TRUE(j.contains("opcode"));
    EXPECT_TRUE(j.contains("shape"));
    EXPECT_TRUE(j["path"].is_string());
  }
}

TEST_F(SearchCliTest, LimitZeroFindsWhatRipgrepFinds) {
  if (std::system("rg --version >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "ripgrep not installed";
  }
  for (std::string name : {"p0.2", "add.5", "dot.1007", "multiply.2011"}) {
    std::string escaped;
    for (char c : name) {
      if (c == '.') escaped += '\\';
      escaped += c;
    }
    RunResult rg = Shell("rg -n --no-heading --with-filename '^\\s*(ROOT )?%?" +
                         escaped + " = ' " + dir_.path().string());
    std::set<std::string> expected;
    for (const std::string& line : Lines(rg.out)) {
      expected.insert(line.substr(0, line.find(':', line.find(':') + 1)));
    }
    RunResult ours = Shell(base_ + "--limit 0 " + name);
    std::set<std::string> found;
    for (const std::string& line : Lines(ours.out)) {
      if (line.size() > name.size() &&
          line.substr(line.size() - name.size() - 1) == " " + name) {
        found.insert(line.substr(0, line.find(':', line.find(':') + 1)));
      }
    }
    for (const std::string& def : expected) {
      EXPECT_TRUE(found.count(def)) << name << " missing " << def;
    }
  }
}

}  // namespace
}  // namespace hlo::index
