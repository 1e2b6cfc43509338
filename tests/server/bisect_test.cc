// hlo.bisect, "find the pass that changed the result": over generated pass
// dumps of one module where a known pass breaks the result (the generator of
// tests/exec/replay_cli_test.cc's --bisect tests), the answer names that
// pass, both dumps, the hlo.diff between them and the first differing
// instruction; a clean sequence, a signature change, a timeout and a cancel
// each answer as the contract says.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "server/documents.h"
#include "tests/index/test_dir.h"
#include "tests/server/server_harness.h"

namespace hlo_lsp {
namespace {

namespace fs = std::filesystem;

std::string Module(const std::string& root) {
  return "HloModule m\nENTRY e {\n  p = f32[4] parameter(0)\n"
         "  z = f32[] constant(0)\n"
         "  zb = f32[4] broadcast(z), dimensions={}\n  ROOT r = " +
         root + "\n}\n";
}

std::string PassName(int k) {
  char name[128];
  std::snprintf(name, sizeof name,
                "module_0007.m.%04d.opt.after_pass%d.before_pass%d.txt", k, k,
                k + 1);
  return name;
}

constexpr char kBefore[] = "module_0007.m.before_optimizations.txt";

class BisectServerTest : public ::testing::Test {
 protected:
  void SetUp() override { h_.Initialize(); }

  // Module m's dumps in `folder`: before_optimizations, then `passes` pass
  // dumps; from pass `bad` on, the result is doubled instead of negated.
  fs::path MakeSequence(const std::string& folder, int passes, int bad) {
    const fs::path d = dir_.path() / folder;
    fs::create_directories(d);
    std::ofstream(d / kBefore) << Module("f32[4] negate(p)");
    for (int k = 1; k <= passes; ++k) {
      std::ofstream(d / PassName(k))
          << Module(k >= bad ? "f32[4] add(p, p)" : "f32[4] subtract(zb, p)");
    }
    return d;
  }
  static std::string Uri(const fs::path& p) { return PathToUri(p.string()); }

  hlo::index::index_test::TempDir dir_;
  ServerHarness h_;
};

TEST_F(BisectServerTest, NamesTheKnownPassBothDumpsAndTheDiff) {
  for (int bad : {1, 3}) {
    const fs::path d = MakeSequence("seq" + std::to_string(bad), 4, bad);
    // Asked from any of the module's dumps: the same walk.
    Json r = h_.Command("hlo.bisect", {{"uri", Uri(d / PassName(4))}});
    ASSERT_TRUE(r["result"].is_object()) << r.dump();
    const Json& a = r["result"];
    EXPECT_EQ(a["outcome"], "changed") << a.dump();
    EXPECT_EQ(a["step"], bad);
    EXPECT_EQ(a["pass"], "pass" + std::to_string(bad));
    EXPECT_EQ(a["module"], "m");
    EXPECT_EQ(a["dumps"], 5);
    EXPECT_EQ(a["arguments"], "fake data");
    const std::string before =
        Uri(d / (bad == 1 ? kBefore : PassName(bad - 1)));
    const std::string after = Uri(d / PassName(bad));
    EXPECT_EQ(a["beforeUri"], before);
    EXPECT_EQ(a["afterUri"], after);
    EXPECT_EQ(a["referenceUri"], Uri(d / kBefore));
    EXPECT_EQ(a["firstOutput"], "out0");
    ASSERT_EQ(a["mismatches"].size(), 1u);
    EXPECT_EQ(a["mismatches"][0].get<std::string>().rfind("out0: ", 0), 0u);
    // The passes before it ran with the same outputs.
    ASSERT_EQ(a["steps"].size(), static_cast<size_t>(bad + 1));
    EXPECT_EQ(a["steps"][0]["result"], "reference");
    EXPECT_EQ(a["steps"][bad]["result"], "differs");
    if (bad > 1) EXPECT_EQ(a["steps"][1]["result"], "same");
    // The instruction whose values changed, on its line of the after dump.
    EXPECT_EQ(a["instruction"]["name"], "r") << a.dump();
    EXPECT_EQ(a["instruction"]["opcode"], "add");
    EXPECT_EQ(a["instruction"]["line"], 6);
    // The diff between the two dumps is hlo.diff's, ready to run.
    EXPECT_EQ(a["diff"]["command"], "hlo.diff");
    EXPECT_EQ(a["diff"]["arguments"][0]["uri"], before);
    EXPECT_EQ(a["diff"]["arguments"][0]["otherUri"], after);
    Json diff = h_.Command("hlo.diff", a["diff"]["arguments"][0]);
    ASSERT_TRUE(diff["result"].is_object()) << diff.dump();
    EXPECT_FALSE(diff["result"]["changed"].empty() &&
                 diff["result"]["added"].empty())
        << diff.dump();
    EXPECT_NE(a["summary"].get<std::string>().find(
                  "step " + std::to_string(bad) + " after pass" +
                  std::to_string(bad) + " (opt) changed the result"),
              std::string::npos)
        << a.dump();
  }
}

TEST_F(BisectServerTest, NoPassChangedAndTheSignatureStop) {
  const fs::path clean = MakeSequence("clean", 3, 99);
  Json r = h_.Command("hlo.bisect", {{"uri", Uri(clean / kBefore)}});
  EXPECT_EQ(r["result"]["outcome"], "unchanged") << r.dump();
  EXPECT_NE(r["result"]["summary"].get<std::string>().find(
                "no pass changed the result"),
            std::string::npos);
  EXPECT_FALSE(r["result"].contains("diff"));
  EXPECT_EQ(r["result"]["steps"].size(), 4u);

  const fs::path sig = MakeSequence("sig", 3, 99);
  std::ofstream(sig / PassName(2))
      << "HloModule m\nENTRY e {\n  p = f32[8] parameter(0)\n"
         "  ROOT r = f32[8] negate(p)\n}\n";
  Json s = h_.Command("hlo.bisect", {{"uri", Uri(sig / kBefore)}});
  EXPECT_EQ(s["result"]["outcome"], "signature") << s.dump();
  EXPECT_EQ(s["result"]["afterUri"], Uri(sig / PassName(2)));
  EXPECT_EQ(s["result"]["beforeUri"], Uri(sig / PassName(1)));
  EXPECT_EQ(s["result"]["step"], 2);
}

TEST_F(BisectServerTest, CodeActionOnDumpsAndBadArguments) {
  const fs::path d = MakeSequence("act", 2, 99);
  auto actions = [&](const fs::path& p) {
    return h_.Call("textDocument/codeAction",
                   {{"textDocument", {{"uri", Uri(p)}}},
                    {"range",
                     {{"start", {{"line", 0}, {"character", 0}}},
                      {"end", {{"line", 0}, {"character", 0}}}}},
                    {"context", {{"diagnostics", Json::array()}}}})["result"];
  };
  int found = 0;
  for (const Json& a : actions(d / PassName(1))) {
    if (a["command"]["command"] != "hlo.bisect") continue;
    ++found;
    EXPECT_EQ(a["title"], "Find the pass that changed the result");
    EXPECT_EQ(a["command"]["arguments"][0]["uri"], Uri(d / PassName(1)));
  }
  EXPECT_EQ(found, 1);
  std::ofstream(dir_.path() / "notes.hlo") << Module("f32[4] negate(p)");
  for (const Json& a : actions(dir_.path() / "notes.hlo")) {
    EXPECT_NE(a["command"]["command"], "hlo.bisect");
  }
  // One dump: nothing to bisect. Not a dump, or GPU: errors.
  const fs::path one = dir_.path() / "one";
  fs::create_directories(one);
  std::ofstream(one / kBefore) << Module("f32[4] negate(p)");
  Json r = h_.Command("hlo.bisect", {{"uri", Uri(one / kBefore)}});
  EXPECT_EQ(r["result"]["outcome"], "refused") << r.dump();
  EXPECT_TRUE(h_.Command("hlo.bisect", {{"uri", Uri(dir_.path() / "x.txt")}})
                  .contains("error"));
  EXPECT_TRUE(
      h_.Command("hlo.bisect", {{"uri", Uri(d / kBefore)}, {"platform", "gpu"}})
          .contains("error"));
}

// An endless loop in the reference dump: only the time limit or a cancel
// ends the walk.
constexpr char kEndless[] = R"(HloModule m

%cond (p: s32[]) -> pred[] {
  %p = s32[] parameter(0)
  ROOT %t = pred[] constant(true)
}

%body (p: s32[]) -> s32[] {
  %p = s32[] parameter(0)
  %one = s32[] constant(1)
  ROOT %n = s32[] add(%p, %one)
}

ENTRY %e () -> s32[] {
  %z = s32[] constant(0)
  ROOT %w = s32[] while(%z), condition=%cond, body=%body
}
)";

TEST_F(BisectServerTest, TimeoutAndCancelStopTheRun) {
  const fs::path d = dir_.path() / "endless";
  fs::create_directories(d);
  std::ofstream(d / kBefore) << kEndless;
  std::ofstream(d / PassName(1)) << kEndless;
  Json r =
      h_.Command("hlo.bisect", {{"uri", Uri(d / kBefore)}, {"timeout", 1}});
  EXPECT_EQ(r["result"]["outcome"], "failed") << r.dump();
  EXPECT_NE(r["result"]["error"].get<std::string>().find("timed out after 1"),
            std::string::npos)
      << r.dump();
  EXPECT_EQ(r["result"]["afterUri"], Uri(d / kBefore));

  h_.Request(42, "workspace/executeCommand",
             {{"command", "hlo.bisect"},
              {"arguments", Json::array({{{"uri", Uri(d / kBefore)}}})}});
  usleep(300 * 1000);
  h_.Notify("$/cancelRequest", {{"id", 42}});
  Json cancelled = h_.Response(42, 10000);
  ASSERT_TRUE(cancelled.contains("error")) << cancelled.dump();
  EXPECT_EQ(cancelled["error"]["code"], -32800);
}

}  // namespace
}  // namespace hlo_lsp
