// The server against paths that are not regular files (issue 18): the
// conversion and replay commands on /dev/zero once grew the server without
// bound, and on a FIFO blocked a request thread until shutdown hung.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "gtest/gtest.h"
#include "server/documents.h"
#include "tests/server/server_harness.h"

namespace hlo_lsp {
namespace {
namespace fs = std::filesystem;

class FileKindsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("hlo-kinds-test-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    fifo_ = (dir_ / "module_0001.x.hlo_snapshot.pb").string();
    ASSERT_EQ(::mkfifo(fifo_.c_str(), 0600), 0);
    std::ofstream(dir_ / "m.hlo") << "HloModule m\n\nENTRY %main () -> f32[] "
                                     "{\n  ROOT %c = f32[] constant(1)\n}\n";
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path dir_;
  std::string fifo_;
};

TEST_F(FileKindsTest, DevicesAndFifosAreRefusedAndTheServerStaysUsable) {
  LspServer::Options options;
  options.index_cache = false;
  ServerHarness h(options);
  h.Initialize();
  const std::string m = PathToUri((dir_ / "m.hlo").string());
  for (const std::string& uri :
       {std::string("file:///dev/zero"), PathToUri(fifo_)}) {
    Json text = h.Call("hlo/protoToText", {{"uri", uri}});
    ASSERT_TRUE(text.contains("error")) << uri << " -> " << text.dump();
    EXPECT_NE(
        text["error"]["message"].get<std::string>().find("not a regular file"),
        std::string::npos)
        << text.dump();
    Json convert = h.Command("hlo.convertToText", {{"uri", uri}});
    EXPECT_TRUE(convert.contains("error")) << uri << " -> " << convert.dump();
    // A replay's snapshot is read before its job starts.
    Json replay = h.Command("hlo.replay", {{"uri", m}, {"snapshot", uri}});
    EXPECT_TRUE(replay.contains("error")) << replay.dump();
  }
  // Every request thread is free: hover answers, and the server exits.
  h.Notify("textDocument/didOpen",
           {{"textDocument",
             {{"uri", m},
              {"languageId", "hlo"},
              {"version", 1},
              {"text",
               "HloModule m\n\nENTRY %main () -> f32[] {\n  ROOT %c "
               "= f32[] constant(1)\n}\n"}}}});
  Json hover = h.Call("textDocument/hover",
                      {{"textDocument", {{"uri", m}}},
                       {"position", {{"line", 3}, {"character", 10}}}});
  EXPECT_TRUE(hover.contains("result")) << hover.dump();
  h.Call("shutdown", nullptr);
  h.Notify("exit", nullptr);
  EXPECT_EQ(h.ExitCode(), 0);
}

}  // namespace
}  // namespace hlo_lsp
