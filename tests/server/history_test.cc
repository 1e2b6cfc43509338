// The compilation-history features of the server on a module whose passes
// made known edits (tests/history/pass_sequence.h): hlo/moduleFiles with
// every kind, hlo.previousPass / hlo.nextPass, hlo.diff, the pass lenses
// and the blame line of hover.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "server/documents.h"
#include "server/features/index_locations.h"
#include "server/features/pass_history.h"
#include "tests/history/pass_sequence.h"
#include "tests/index/test_dir.h"
#include "tests/server/server_harness.h"

namespace hlo_lsp {
namespace {

namespace fs = std::filesystem;
using hlo::history_test::KnownStep;

class HistoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    known_ = hlo::history_test::WritePassSequence(dir_.path());
    h_.Initialize();
    h_.Notify("initialized");
  }
  std::string Uri(size_t step) const {
    return PathToUri((dir_.path() / known_[step].file).string());
  }
  std::string Text(size_t step) const {
    std::ifstream in(dir_.path() / known_[step].file);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  void Open(size_t step) {
    h_.Notify("textDocument/didOpen", {{"textDocument",
                                        {{"uri", Uri(step)},
                                         {"languageId", "hlo"},
                                         {"version", 1},
                                         {"text", Text(step)}}}});
  }
  // The hover markdown at the first occurrence of `needle` in the dump.
  std::string HoverAt(size_t step, const std::string& needle) {
    std::string text = Text(step);
    size_t at = text.find(needle);
    EXPECT_NE(at, std::string::npos) << needle;
    size_t line = std::count(text.begin(), text.begin() + at, '\n');
    size_t col = at - (text.rfind('\n', at) + 1) + 1;
    Json r = h_.Call("textDocument/hover",
                     {{"textDocument", {{"uri", Uri(step)}}},
                      {"position", {{"line", line}, {"character", col}}}});
    if (!r["result"].is_object()) return "";
    return r["result"]["contents"]["value"].get<std::string>();
  }

  hlo::index::index_test::TempDir dir_;
  std::vector<KnownStep> known_;
  ServerHarness h_;
};

TEST_F(HistoryTest, ModuleFilesListEveryKindInHistoryOrder) {
  Json r = h_.Call("hlo/moduleFiles", {{"uri", Uri(2)}});
  ASSERT_TRUE(r["result"].is_array()) << r.dump();
  const Json& files = r["result"];
  ASSERT_EQ(files.size(), known_.size() + 2) << files.dump();
  for (size_t i = 0; i < known_.size(); ++i) {
    EXPECT_EQ(files[i]["uri"], Uri(i));
    EXPECT_EQ(files[i]["kind"],
              i == 0 || i + 1 == known_.size() ? "stage" : "pass");
  }
  EXPECT_EQ(files[2]["step"], 1);
  EXPECT_EQ(files[known_.size()]["kind"], "proto");
  EXPECT_EQ(files[known_.size() + 1]["kind"], "buffer-assignment");
}

TEST_F(HistoryTest, PreviousAndNextPassWalkTheHistory) {
  Json first = h_.Command("hlo.previousPass", {{"uri", Uri(0)}});
  ASSERT_TRUE(first.contains("result")) << first.dump();
  EXPECT_TRUE(first["result"].is_null());
  Json next = h_.Command("hlo.nextPass", {{"uri", Uri(0)}});
  EXPECT_EQ(next["result"]["uri"], Uri(1)) << next.dump();
  EXPECT_EQ(next["result"]["step"], 0);
  Json back = h_.Command("hlo.previousPass", {{"uri", Uri(3)}});
  EXPECT_EQ(back["result"]["uri"], Uri(2));
  EXPECT_EQ(back["result"]["stage"], "0001.opt.after_rename.before_algsimp");
  Json last = h_.Command("hlo.nextPass", {{"uri", Uri(known_.size() - 1)}});
  EXPECT_TRUE(last["result"].is_null()) << last.dump();
  // The other module in the folder is not this one's neighbour.
  Json other = h_.Command(
      "hlo.nextPass",
      {{"uri",
        PathToUri((dir_.path() / "module_0008.other.before_optimizations.txt")
                      .string())}});
  EXPECT_TRUE(other["result"].is_null()) << other.dump();
}

TEST_F(HistoryTest, DiffLinksBothSidesOfEachEntry) {
  // rename -> algsimp: one opcode change, on the instruction renamed before.
  Json r = h_.Command("hlo.diff", {{"uri", Uri(2)}, {"otherUri", Uri(3)}});
  ASSERT_TRUE(r["result"].is_object()) << r.dump();
  const Json& d = r["result"];
  EXPECT_EQ(d["a"], Uri(2));
  EXPECT_EQ(d["b"], Uri(3));
  ASSERT_EQ(d["changed"].size(), 1u) << d.dump();
  EXPECT_EQ(d["changed"][0]["name"], "mul.1");
  EXPECT_EQ(d["changed"][0]["field"], "opcode");
  EXPECT_EQ(d["changed"][0]["line"], 12);
  EXPECT_EQ(d["changed"][0]["oldLine"], 12);
  EXPECT_TRUE(d["added"].empty());
  EXPECT_TRUE(d["removed"].empty());
  EXPECT_TRUE(d["renamed"].empty());
  // pipeline-start -> rename: the rename, with its line on both sides.
  Json renamed =
      h_.Command("hlo.diff", {{"uri", Uri(1)}, {"otherUri", Uri(2)}});
  ASSERT_EQ(renamed["result"]["renamed"].size(), 1u) << renamed.dump();
  EXPECT_EQ(renamed["result"]["renamed"][0]["from"], "add.1");
  EXPECT_EQ(renamed["result"]["renamed"][0]["to"], "add.7");
  EXPECT_EQ(renamed["result"]["renamed"][0]["line"], 13);
  EXPECT_EQ(renamed["result"]["renamed"][0]["oldLine"], 13);
  EXPECT_TRUE(renamed["result"]["changed"].empty()) << renamed.dump();
  // Bad arguments are errors, not crashes.
  EXPECT_TRUE(h_.Command("hlo.diff", {{"uri", Uri(1)}}).contains("error"));
  EXPECT_TRUE(h_.Command("hlo.diff",
                         {{"uri", Uri(1)}, {"otherUri", Uri(1) + ".missing"}})
                  .contains("error"));
}

TEST_F(HistoryTest, PassLensesOnEveryDump) {
  auto lenses = [&](size_t step) {
    Open(step);
    Json r = h_.Call("textDocument/codeLens",
                     {{"textDocument", {{"uri", Uri(step)}}}});
    std::vector<std::string> commands;
    for (const Json& lens : r["result"]) {
      commands.push_back(lens["command"]["command"].get<std::string>() + " " +
                         lens["command"]["title"].get<std::string>());
    }
    return std::make_pair(commands, r);
  };
  auto [middle, reply] = lenses(3);
  EXPECT_EQ(middle, (std::vector<std::string>{
                        "hlo.moduleFiles 7 other stages: before_optimizations "
                        "0000.opt.after_pipeline-start.before_rename "
                        "0001.opt.after_rename.before_algsimp "
                        "0003.opt.after_dce.before_fusion ...",
                        "hlo.previousPass ◀ previous pass",
                        "hlo.nextPass next pass ▶",
                        "hlo.diff diff with previous",
                    }))
      << reply.dump();
  const Json& diff = reply["result"][3]["command"]["arguments"][0];
  EXPECT_EQ(diff["uri"], Uri(2));
  EXPECT_EQ(diff["otherUri"], Uri(3));
  EXPECT_EQ(lenses(0).first.size(), 2u);  // no previous, no diff
  EXPECT_EQ(lenses(known_.size() - 1).first.size(), 3u);  // no next
}

TEST_F(HistoryTest, HoverSaysWhichPassAddedAndLastChangedAnInstruction) {
  const size_t last = known_.size() - 1;
  Open(last);
  std::string renamed = HoverAt(last, "%add.7 =");
  EXPECT_NE(renamed.find("**Pass history:** present since "
                         "`before_optimizations` · last changed by `rename` "
                         "(step 1)"),
            std::string::npos)
      << renamed;
  std::string fused = HoverAt(last, "%fusion.1 =");
  EXPECT_NE(fused.find("first appeared after `fusion` (step 4) · unchanged "
                       "since then"),
            std::string::npos)
      << fused;
  std::string layout = HoverAt(last, "%out =");
  EXPECT_NE(layout.find("last changed by `layout` (step 5)"), std::string::npos)
      << layout;
  // Not a dump of a module with a history: no such line.
  const fs::path loose = dir_.path() / "loose.hlo";
  std::ofstream(loose) << hlo::history_test::kBaseModule;
  Json r = h_.Call("textDocument/hover",
                   {{"textDocument", {{"uri", PathToUri(loose.string())}}},
                    {"position", {{"line", 11}, {"character", 4}}}});
  ASSERT_TRUE(r["result"].is_object()) << r.dump();
  EXPECT_EQ(
      r["result"]["contents"]["value"].get<std::string>().find("Pass history"),
      std::string::npos);
}

}  // namespace
}  // namespace hlo_lsp

namespace hlo_lsp {
namespace {

// A module whose dumps add up to over PassHistory::kInlineBytes: its
// timeline is built in the background (at a low priority), the first hover
// says so at once instead of parsing every dump inline, and the blame line
// comes when it is ready.
TEST_F(HistoryTest, LargeHistoriesAreComputedOffTheHover) {
  std::string pad =
      "\n%pad_comp (pad.0: f32[]) -> f32[] {\n  %pad.0 = f32[] parameter(0)\n";
  for (int i = 1; i < 6000; ++i) {
    pad += "  %pad." + std::to_string(i) + " = f32[] negate(f32[] %pad." +
           std::to_string(i - 1) + ")\n";
  }
  pad += "  ROOT %pad.6000 = f32[] negate(f32[] %pad.5999)\n}\n";
  uint64_t bytes = 0;
  for (const KnownStep& step : known_) {
    std::ofstream(dir_.path() / step.file, std::ios::app) << pad;
    bytes += fs::file_size(dir_.path() / step.file);
  }
  ASSERT_GT(bytes, PassHistory::kInlineBytes);
  const size_t last = known_.size() - 1;
  // Not opened: didOpen starts the timeline itself (the next test), which
  // could finish before this first hover.
  std::string first = HoverAt(last, "%fusion.1 =");
  EXPECT_NE(first.find("**Pass history:** being computed"), std::string::npos)
      << first;
  std::string later;
  for (int i = 0; i < 600; ++i) {
    later = HoverAt(last, "%fusion.1 =");
    if (later.find("first appeared") != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_NE(later.find("first appeared after `fusion` (step 4)"),
            std::string::npos)
      << later;
}

// didOpen lists the dump folder and starts a large module's timeline, so
// that the first hover finds it ready instead of paying for the listing and
// saying "being computed".
TEST_F(HistoryTest, WarmAtOpenReadiesTheTimelineBeforeTheFirstHover) {
  std::string pad =
      "\n%pad_comp (pad.0: f32[]) -> f32[] {\n  %pad.0 = f32[] parameter(0)\n";
  for (int i = 1; i < 6000; ++i) {
    pad += "  %pad." + std::to_string(i) + " = f32[] negate(f32[] %pad." +
           std::to_string(i - 1) + ")\n";
  }
  pad += "  ROOT %pad.6000 = f32[] negate(f32[] %pad.5999)\n}\n";
  for (const KnownStep& step : known_) {
    std::ofstream(dir_.path() / step.file, std::ios::app) << pad;
  }
  const size_t last = known_.size() - 1;
  const std::string text = Text(last);
  PassHistory history;
  history.Warm(NormalPath((dir_.path() / known_[last].file).string()));
  history.WaitForBackground();
  auto snap =
      MakeSnapshot(Uri(last), 1, 1, std::make_shared<const std::string>(text),
                   hlo::ColumnUnit::kUtf16CodeUnits);
  const size_t at = text.find("%fusion.1 =");
  ASSERT_NE(at, std::string::npos);
  const auto line =
      static_cast<uint32_t>(std::count(text.begin(), text.begin() + at, '\n'));
  const auto col = static_cast<uint32_t>(at - (text.rfind('\n', at) + 1) + 1);
  std::optional<std::string> note = history.Note(*snap, {line, col});
  ASSERT_TRUE(note.has_value());
  EXPECT_NE(note->find("first appeared after `fusion` (step 4)"),
            std::string::npos)
      << *note;
}

}  // namespace
}  // namespace hlo_lsp
