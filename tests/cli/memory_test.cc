// `hlo-lsp memory` on the hand-checked fixtures of tests/hlo/fixtures/memory:
// a module (its buffer assignment found beside it), the dump itself, the
// memory report, an OOM log matched to the module, and bad input.
#include <filesystem>
#include <fstream>
#include <sstream>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/cli/cli_runner.h"

namespace hlo_lsp::testing {
namespace {

constexpr char kBase[] = "module_0001.jit_f.sm_9.0_gpu_after_optimizations";

std::string Fixture(const std::string& name) {
  std::ifstream in(std::string(HLO_LSP_SOURCE_DIR) +
                   "/tests/hlo/fixtures/memory/" + name);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class MemoryCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::create_directories(cli_.dir() + "/dump");
    for (std::string suffix :
         {".txt", "-buffer-assignment.txt", "-memory-usage-report.txt"}) {
      cli_.Write("dump/" + std::string(kBase) + suffix,
                 Fixture(std::string(kBase) + suffix));
    }
    cli_.Write("dump/oom.log", Fixture("oom.log"));
  }
  CliRunner cli_;
};

TEST_F(MemoryCliTest, ModuleShowsTotalsAllocationsAndPeak) {
  RunResult r = cli_.Run("memory dump/" + std::string(kBase) + ".txt");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "total: 96 bytes (96B)\n"
            "  parameter: 32 bytes (32B)\n"
            "  constant: 0 bytes (0B)\n"
            "  maybe_live_out: 64 bytes (64B)\n"
            "  preallocated_temp: 0 bytes (0B)\n"
            "  thread_local: 0 bytes (0B)\n"
            "  temp: 0 bytes (0B)\n"
            "allocation 0: 16 bytes (16B), parameter 0\n"
            "  x offset 0 size 16 f32[4]{0}\n"
            "allocation 1: 16 bytes (16B), parameter 1\n"
            "  y offset 0 size 16 f32[4]{0}\n"
            "allocation 2: 16 bytes (16B), maybe-live-out\n"
            "  add.1 offset 0 size 16 f32[4]{0}\n"
            "allocation 3: 32 bytes (32B), maybe-live-out\n"
            "  fusion offset 0 size 32 f32[8]{0}\n"
            "allocation 4: 16 bytes (16B), maybe-live-out\n"
            "  tuple{} offset 0 size 16 (f32[4]{0}, f32[8]{0})\n"
            "peak at 3: 3 values, 64 bytes (64B)\n"
            "  fusion{} 32 bytes\n"
            "  add.1{} 16 bytes\n"
            "  y{} 16 bytes\n");
  // The dump itself says the same.
  RunResult direct =
      cli_.Run("memory dump/" + std::string(kBase) + "-buffer-assignment.txt");
  EXPECT_EQ(direct.exit_code, 0);
  EXPECT_EQ(direct.out, r.out);
}

TEST_F(MemoryCliTest, JsonHasTheSameFacts) {
  RunResult r = cli_.Run("memory --json dump/" + std::string(kBase) + ".txt");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["source"], "buffer-assignment");
  EXPECT_EQ(j["total"], 96);
  EXPECT_EQ(j["totals"]["parameter"], 32);
  EXPECT_EQ(j["totals"]["maybe_live_out"], 64);
  ASSERT_EQ(j["allocations"].size(), 5u);
  EXPECT_EQ(j["allocations"][3]["size"], 32);
  EXPECT_EQ(j["allocations"][3]["kind"], "maybe-live-out");
  EXPECT_EQ(j["allocations"][0]["kinds"], "parameter 0");
  EXPECT_EQ(j["allocations"][3]["values"][0]["name"], "fusion");
  EXPECT_EQ(j["allocations"][3]["values"][0]["offset"], 0);
  EXPECT_EQ(j["peak"]["time"], 3);
  EXPECT_EQ(j["peak"]["values"].size(), 3u);
  EXPECT_EQ(j["peak"]["computed"], false);
  EXPECT_TRUE(j["problems"].empty());
}

TEST_F(MemoryCliTest, MemoryReportGivesRoundedAllocations) {
  RunResult r = cli_.Run("memory --json dump/" + std::string(kBase) +
                         "-memory-usage-report.txt");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["source"], "memory-report");
  EXPECT_EQ(j["total"], 96);
  EXPECT_EQ(j["allocations"].size(), 5u);
}

TEST_F(MemoryCliTest, OomLogBuffersPointAtTheModule) {
  RunResult r = cli_.Run("memory dump/oom.log");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string module = "dump/" + std::string(kBase) + ".txt";
  EXPECT_NE(r.out.find("out of memory allocating 96 bytes (96B)\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("buffer 1: 32 bytes (32B) fusion f32[8] "
                       "op_name=\"jit(f)/jit(main)/concatenate[dimension=0]"
                       "\"\n  " +
                       module + ":13: main.5 fusion\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(
      r.out.find("buffer 3: 16 bytes (16B) entry parameter f32[4]\n  " +
                 module + ":10: main.5 x\n  " + module + ":11: main.5 y\n"),
      std::string::npos)
      << r.out;
  // --module names the module; the log can live anywhere.
  cli_.Write("elsewhere.log", Fixture("oom.log"));
  RunResult j = cli_.Run("memory --json --module " + module + " elsewhere.log");
  ASSERT_EQ(j.exit_code, 0) << j.err;
  nlohmann::json json = nlohmann::json::parse(j.out);
  EXPECT_EQ(json["source"], "oom-log");
  EXPECT_EQ(json["module"], module);
  EXPECT_EQ(json["requested"], 96);
  EXPECT_EQ(json["buffers"][1]["matches"][0]["name"], "add.1");
  EXPECT_EQ(json["buffers"][1]["matches"][0]["line"], 12);
  EXPECT_EQ(json["buffers"][1]["line"], 21);  // "Buffer 2:" in the log
  // Without a module nothing is matched, and stderr says how to give one.
  RunResult alone = cli_.Run("memory elsewhere.log");
  EXPECT_EQ(alone.exit_code, 0);
  EXPECT_NE(alone.err.find("--module"), std::string::npos) << alone.err;
  EXPECT_NE(alone.out.find("(no instruction matches)"), std::string::npos);
}

TEST_F(MemoryCliTest, ExitCodes) {
  // A module without a buffer assignment: nothing found.
  cli_.Write("module_0002.g.after_optimizations.txt",
             "HloModule g\nENTRY e { ROOT p = f32[] parameter(0) }\n");
  RunResult none = cli_.Run("memory module_0002.g.after_optimizations.txt");
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.err.find("no buffer assignment"), std::string::npos);
  cli_.Write("notes.txt", "hello\n");
  EXPECT_EQ(cli_.Run("memory notes.txt").exit_code, 1);
  EXPECT_EQ(cli_.Run("memory missing.txt").exit_code, 2);
  EXPECT_EQ(cli_.Run("memory").exit_code, 2);
  EXPECT_EQ(cli_.Run("memory --bogus dump/oom.log").exit_code, 2);
  EXPECT_EQ(cli_.Run("memory --module missing.txt dump/oom.log").exit_code, 2);
  RunResult help = cli_.Run("memory --help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("usage: hlo-lsp memory"), std::string::npos);
  // Bad lines are warnings with their line number; the rest still shows.
  cli_.Write("bad-buffer-assignment.txt",
             "BufferAssignment:\nallocation 0: size 8, constant:\n"
             "allocation ?: size\n");
  RunResult bad = cli_.Run("memory bad-buffer-assignment.txt");
  EXPECT_EQ(bad.exit_code, 0);
  EXPECT_NE(bad.err.find("bad-buffer-assignment.txt:3: warning:"),
            std::string::npos)
      << bad.err;
  EXPECT_NE(bad.out.find("allocation 0: 8 bytes (8B), constant\n"),
            std::string::npos);
}

}  // namespace
}  // namespace hlo_lsp::testing
