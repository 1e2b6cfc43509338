#include "history/timeline.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "history/blame.h"
#include "index/module_files.h"
#include "tests/history/pass_sequence.h"
#include "tests/index/test_dir.h"

namespace hlo::history {
namespace {

using index::index_test::TempDir;

std::vector<TimelineStep> TimelineOf(const std::filesystem::path& file,
                                     bool keep_diffs = false) {
  TimelineOptions options;
  options.keep_diffs = keep_diffs;
  return BuildTimeline(
      index::HloTextHistory(index::ModuleFilesOfPath(file.string())), options);
}

TEST(TimelineTest, ReportsExactlyTheKnownEditsOfEachPass) {
  TempDir dir;
  std::vector<history_test::KnownStep> known =
      history_test::WritePassSequence(dir.path());
  std::vector<TimelineStep> steps = TimelineOf(dir.path() / known[3].file);
  ASSERT_EQ(steps.size(), known.size());
  for (size_t i = 0; i < steps.size(); ++i) {
    SCOPED_TRACE(known[i].file);
    EXPECT_EQ(std::filesystem::path(steps[i].file.path).filename(),
              known[i].file);
    EXPECT_EQ(steps[i].pass_name(), known[i].pass);
    EXPECT_EQ(steps[i].added, known[i].added);
    EXPECT_EQ(steps[i].removed, known[i].removed);
    EXPECT_EQ(steps[i].changed, known[i].changed);
    EXPECT_EQ(steps[i].renamed, known[i].renamed);
    EXPECT_EQ(steps[i].computations_added, known[i].computations_added);
    EXPECT_EQ(steps[i].computations_removed, 0);
    EXPECT_EQ(steps[i].has_base, i > 0);
    EXPECT_EQ(steps[i].error, "");
  }
  // The pass that changed nothing, and the final stage equal to the last
  // pass dump, are known without a parse.
  EXPECT_TRUE(steps[1].same_as_before);
  EXPECT_TRUE(steps.back().same_as_before);
  EXPECT_FALSE(steps[2].same_as_before);
}

TEST(TimelineTest, TheSameWithOneThreadAndWindowsOfTwo) {
  TempDir dir;
  std::vector<history_test::KnownStep> known =
      history_test::WritePassSequence(dir.path());
  TimelineOptions options;
  options.threads = 1;  // window of 2: identical dumps straddle windows
  std::vector<TimelineStep> steps = BuildTimeline(
      index::HloTextHistory(
          index::ModuleFilesOfPath((dir.path() / known[0].file).string())),
      options);
  ASSERT_EQ(steps.size(), known.size());
  for (size_t i = 0; i < steps.size(); ++i) {
    SCOPED_TRACE(known[i].file);
    EXPECT_EQ(
        steps[i].added + steps[i].removed + steps[i].changed + steps[i].renamed,
        known[i].added + known[i].removed + known[i].changed +
            known[i].renamed);
  }
}

TEST(TimelineTest, ATruncatedDumpSaysWhereAndTheRestIsCompared) {
  TempDir dir;
  std::vector<history_test::KnownStep> known =
      history_test::WritePassSequence(dir.path());
  // Cut the dce dump inside its ENTRY computation.
  const std::filesystem::path cut = dir.path() / known[4].file;
  std::string text;
  {
    std::ifstream in(cut);
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  text.resize(text.find("ROOT %out"));
  std::ofstream(cut, std::ios::trunc) << text;
  std::vector<TimelineStep> steps = TimelineOf(cut);
  ASSERT_EQ(steps.size(), known.size());
  EXPECT_NE(steps[4].error.find(cut.string() + ":"), std::string::npos)
      << steps[4].error;
  // The dumps after it are still compared, each to the one before.
  EXPECT_EQ(steps[6].changed, 1);
  EXPECT_EQ(steps[6].error, "");
}

TEST(TimelineTest, AnUnreadableDumpIsAnErrorNotAStop) {
  TempDir dir;
  std::vector<history_test::KnownStep> known =
      history_test::WritePassSequence(dir.path());
  std::vector<index::DumpFile> dumps = index::HloTextHistory(
      index::ModuleFilesOfPath((dir.path() / known[0].file).string()));
  std::filesystem::remove(dumps[2].path);
  std::vector<TimelineStep> steps = BuildTimeline(dumps);
  ASSERT_EQ(steps.size(), known.size());
  EXPECT_NE(steps[2].error, "");
  // algsimp is compared with the dump before the missing one: the rename
  // shows up there.
  EXPECT_EQ(steps[3].renamed, 1);
  EXPECT_EQ(steps[3].changed, 1);
}

TEST(BlameTest, FirstAppearanceAndLastChangeFollowRenames) {
  TempDir dir;
  std::vector<history_test::KnownStep> known =
      history_test::WritePassSequence(dir.path());
  std::vector<TimelineStep> steps =
      TimelineOf(dir.path() / known[0].file, /*keep_diffs=*/true);
  ASSERT_EQ(steps.size(), 8u);
  Blame blame(steps, steps.size());
  auto of = [&](const char* computation, const char* name) {
    InstructionBlame b = blame.Of(computation, name);
    return std::make_pair(b.first_seen, b.last_changed);
  };
  EXPECT_EQ(of("main", "x"), std::make_pair(size_t{0}, size_t{0}));
  EXPECT_EQ(of("main", "add.7"), std::make_pair(size_t{0}, size_t{2}));
  EXPECT_EQ(of("main", "mul.1"), std::make_pair(size_t{0}, size_t{3}));
  EXPECT_EQ(of("main", "fusion.1"), std::make_pair(size_t{5}, size_t{5}));
  EXPECT_EQ(of("main", "out"), std::make_pair(size_t{0}, size_t{6}));
  EXPECT_EQ(of("fused_negate", "n"), std::make_pair(size_t{5}, size_t{5}));
  // Blamed at the rename pass, the layout change has not happened yet.
  Blame early(steps, 3);
  EXPECT_EQ(early.Of("main", "out").last_changed, 0u);
  EXPECT_EQ(early.Of("main", "add.7").last_changed, 2u);
}

}  // namespace
}  // namespace hlo::history
