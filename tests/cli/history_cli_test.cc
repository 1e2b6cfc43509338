// `hlo-lsp files` and `hlo-lsp passes` on a module whose passes made known
// edits (tests/history/pass_sequence.h): the contract's formats, the exact
// counts, and bad input.
#include <filesystem>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/cli/cli_runner.h"
#include "tests/history/pass_sequence.h"

namespace hlo_lsp::testing {
namespace {

using hlo::history_test::KnownStep;

class HistoryCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::create_directories(cli_.dir() + "/dump");
    known_ = hlo::history_test::WritePassSequence(cli_.dir() + "/dump");
  }
  CliRunner cli_;
  std::vector<KnownStep> known_;
};

TEST_F(HistoryCliTest, FilesListsKindAndPathOneALine) {
  RunResult r = cli_.Run("files dump/" + known_[2].file);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string expected;
  for (size_t i = 0; i < known_.size(); ++i) {
    expected +=
        std::string(i == 0 || i + 1 == known_.size() ? "stage" : "pass") +
        " dump/" + known_[i].file + "\n";
  }
  expected += "proto dump/module_0007.jit_f.before_optimizations.hlo.pb\n";
  expected +=
      "buffer-assignment "
      "dump/module_0007.jit_f.after_optimizations-buffer-assignment.txt\n";
  EXPECT_EQ(r.out, expected);
  RunResult json = cli_.Run("files --json dump/" + known_[0].file);
  ASSERT_EQ(json.exit_code, 0) << json.err;
  nlohmann::json j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["module"], "jit_f");
  ASSERT_EQ(j["files"].size(), known_.size() + 2);
  EXPECT_EQ(j["files"][3]["kind"], "pass");
  EXPECT_EQ(j["files"][3]["step"], 2);
  EXPECT_EQ(j["files"][3]["pass"], "algsimp");
  EXPECT_EQ(j["files"][3]["stage"], "0002.opt.after_algsimp.before_dce");
  EXPECT_FALSE(j["files"][0].contains("step"));
  EXPECT_EQ(cli_.Run("files dump/missing.txt").exit_code, 2);
  EXPECT_EQ(cli_.Run("files").exit_code, 2);
  EXPECT_EQ(cli_.Run("files --bogus x").exit_code, 2);
}

TEST_F(HistoryCliTest, PassesReportsExactlyTheKnownEdits) {
  RunResult r = cli_.Run("passes dump/" + known_[0].file);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string expected;
  for (size_t i = 0; i < known_.size(); ++i) {
    const KnownStep& k = known_[i];
    std::string step = i == 0 || i + 1 == known_.size()
                           ? "-"
                           : k.file.substr(k.file.find("jit_f.") + 6, 4);
    expected += step + " " + k.pass + " +" + std::to_string(k.added) + " -" +
                std::to_string(k.removed) + " ~" + std::to_string(k.changed) +
                " >" + std::to_string(k.renamed) + " dump/" + k.file + "\n";
  }
  EXPECT_EQ(r.out, expected);
  // The folder, with the module picked by name, by id, or as the one with
  // pass dumps; the same lines.
  EXPECT_EQ(cli_.Run("passes dump").out, expected);
  EXPECT_EQ(cli_.Run("passes dump --module jit_f").out, expected);
  EXPECT_EQ(cli_.Run("passes dump --module=module_0007").out, expected);
  RunResult json = cli_.Run("passes --json dump/" + known_[4].file);
  ASSERT_EQ(json.exit_code, 0) << json.err;
  nlohmann::json j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["module"], "jit_f");
  ASSERT_EQ(j["steps"].size(), known_.size());
  EXPECT_EQ(j["steps"][0]["step"], nullptr);
  EXPECT_EQ(j["steps"][0]["stage"], "before_optimizations");
  EXPECT_EQ(j["steps"][5]["step"], 4);
  EXPECT_EQ(j["steps"][5]["pipeline"], "opt");
  EXPECT_EQ(j["steps"][5]["pass"], "fusion");
  EXPECT_EQ(j["steps"][5]["added"], 1);
  EXPECT_EQ(j["steps"][5]["computationsAdded"], 1);
  EXPECT_EQ(j["steps"][1]["unchanged"], true);
}

TEST_F(HistoryCliTest, PassesBadInput) {
  EXPECT_EQ(cli_.Run("passes").exit_code, 2);
  EXPECT_EQ(cli_.Run("passes nowhere").exit_code, 2);
  EXPECT_EQ(cli_.Run("passes dump --module nope").exit_code, 2);
  // Two modules with pass dumps and no choice: exit 2 naming them.
  cli_.Write("dump/module_0009.g.0001.opt.after_a.before_b.txt",
             "HloModule g\n\nENTRY %e () -> f32[] {\n  ROOT %c = f32[] "
             "constant(1)\n}\n");
  RunResult two = cli_.Run("passes dump");
  EXPECT_EQ(two.exit_code, 2);
  EXPECT_NE(two.err.find("module_0009 g"), std::string::npos) << two.err;
  // A truncated pass dump: its place said, the rest compared, exit 1.
  cli_.Write("dump/" + known_[3].file,
             "HloModule jit_f\n\nENTRY %main (x: f32[4]");
  RunResult cut = cli_.Run("passes dump/" + known_[0].file);
  EXPECT_EQ(cut.exit_code, 1);
  EXPECT_NE(cut.err.find("dump/" + known_[3].file + ":3:"), std::string::npos)
      << cut.err;
  EXPECT_NE(cut.out.find("0005 layout +0 -0 ~1 >0"), std::string::npos)
      << cut.out;
  // Non-HLO files only: nothing to list, exit 1.
  cli_.Write("lone/module_0001.x.ir-no-opt.ll", "define void @f() {}");
  std::filesystem::create_directories(cli_.dir() + "/lone");
  cli_.Write("lone/module_0001.x.ir-no-opt.ll", "define void @f() {}");
  EXPECT_EQ(cli_.Run("passes lone/module_0001.x.ir-no-opt.ll").exit_code, 1);
}

}  // namespace
}  // namespace hlo_lsp::testing
