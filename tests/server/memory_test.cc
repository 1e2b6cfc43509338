// The buffer assignment in the editor (server/features/memory_hover.h) on
// the hand-checked fixtures of tests/hlo/fixtures/memory: hover, the ENTRY
// lens, hlo.memory, and the cache following the file on disk.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "server/documents.h"
#include "tests/index/test_dir.h"
#include "tests/server/server_harness.h"

namespace hlo_lsp {
namespace {

constexpr char kBase[] = "module_0001.jit_f.sm_9.0_gpu_after_optimizations";

std::string MemoryFixture(const std::string& name) {
  std::ifstream in(std::string(HLO_LSP_SOURCE_DIR) +
                   "/tests/hlo/fixtures/memory/" + name);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class MemoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (std::string suffix : {".txt", "-buffer-assignment.txt"}) {
      Write(std::string(kBase) + suffix,
            MemoryFixture(std::string(kBase) + suffix));
    }
    Write("oom.log", MemoryFixture("oom.log"));
    h_.Initialize();
    h_.Notify("initialized");
    h_.Notify("textDocument/didOpen", {{"textDocument",
                                        {{"uri", Uri()},
                                         {"languageId", "hlo"},
                                         {"version", 1},
                                         {"text", Module()}}}});
  }
  void Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_.path() / name, std::ios::binary) << text;
  }
  std::string Uri(const std::string& name = std::string(kBase) + ".txt") {
    return PathToUri((dir_.path() / name).string());
  }
  std::string Module() { return MemoryFixture(std::string(kBase) + ".txt"); }
  std::string HoverAt(const std::string& needle) {
    std::string text = Module();
    size_t at = text.find(needle);
    EXPECT_NE(at, std::string::npos) << needle;
    size_t line = std::count(text.begin(), text.begin() + at, '\n');
    size_t col = at - (text.rfind('\n', at) + 1) + 1;
    Json r = h_.Call("textDocument/hover",
                     {{"textDocument", {{"uri", Uri()}}},
                      {"position", {{"line", line}, {"character", col}}}});
    if (!r["result"].is_object()) return "";
    return r["result"]["contents"]["value"].get<std::string>();
  }

  hlo::index::index_test::TempDir dir_;
  ServerHarness h_;
};

TEST_F(MemoryTest, HoverGivesAllocationOffsetSizeAndPeak) {
  std::string fusion = HoverAt("%fusion =");
  EXPECT_NE(fusion.find("**memory**: allocation 3 (32B, maybe-live-out), "
                        "offset 0, size 32B; live at the peak"),
            std::string::npos)
      << fusion;
  std::string x = HoverAt("%x =");
  EXPECT_NE(x.find("allocation 0 (16B, parameter 0), offset 0, size 16B; "
                   "not live at the peak"),
            std::string::npos)
      << x;
  // A use names the same instruction.
  EXPECT_NE(HoverAt("%add.1, f32[8]").find("allocation 2"), std::string::npos);
  // A tuple: its own index table, then the elements it aliases.
  std::string tuple = HoverAt("%tuple =");
  EXPECT_NE(tuple.find("- `tuple{0}` is `add.1`: allocation 2 (16B, "
                       "maybe-live-out), offset 0, size 16B"),
            std::string::npos)
      << tuple;
  // Inside the fusion: no buffer of its own, no memory line.
  EXPECT_EQ(HoverAt("%p0 =").find("**memory**"), std::string::npos);
}

TEST_F(MemoryTest, LensOnEntryAndTheMemoryCommand) {
  Json r =
      h_.Call("textDocument/codeLens", {{"textDocument", {{"uri", Uri()}}}});
  bool found = false;
  for (const Json& lens : r["result"]) {
    if (lens["command"]["command"] != "hlo.memory") continue;
    found = true;
    EXPECT_EQ(lens["command"]["title"],
              "memory: 96B total, largest allocation 32B");
    EXPECT_EQ(lens["range"]["start"]["line"], 8);  // the ENTRY line
    EXPECT_EQ(lens["command"]["arguments"][0]["uri"], Uri());
  }
  EXPECT_TRUE(found) << r.dump();
  Json m = h_.Command("hlo.memory", {{"uri", Uri()}});
  ASSERT_TRUE(m["result"].is_object()) << m.dump();
  EXPECT_EQ(m["result"]["source"], "buffer-assignment");
  EXPECT_EQ(m["result"]["total"], 96);
  EXPECT_EQ(m["result"]["allocations"].size(), 5u);
  EXPECT_EQ(m["result"]["peak"]["values"][0]["name"], "fusion");
  Json oom = h_.Command("hlo.memory", {{"uri", Uri("oom.log")}});
  ASSERT_TRUE(oom["result"].is_object()) << oom.dump();
  EXPECT_EQ(oom["result"]["source"], "oom-log");
  EXPECT_EQ(oom["result"]["buffers"][0]["matches"][0]["name"], "fusion");
  // Each buffer's own line in the log, for an editor to link it.
  EXPECT_EQ(oom["result"]["buffers"][0]["line"], 14);
  Json bad = h_.Command("hlo.memory", {{"uri", Uri("missing.txt")}});
  EXPECT_TRUE(bad.contains("error")) << bad.dump();
}

TEST_F(MemoryTest, FollowsTheFileOnDisk) {
  EXPECT_NE(HoverAt("%fusion =").find("allocation 3"), std::string::npos);
  std::string text =
      MemoryFixture(std::string(kBase) + "-buffer-assignment.txt");
  text.replace(text.find("allocation 3: size 32"), 21,
               "allocation 7: size 320");
  Write(std::string(kBase) + "-buffer-assignment.txt", text);
  std::string after = HoverAt("%fusion =");
  EXPECT_NE(after.find("allocation 7 (320B, maybe-live-out)"),
            std::string::npos)
      << after;
}

}  // namespace
}  // namespace hlo_lsp
