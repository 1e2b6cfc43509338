// Hover and definition on the reader thread (issue 23's latency goal): on a
// parsed open document they answer without a request thread, so a request
// that holds every request thread does not delay them; and with edits
// racing them, each answer is for the version it was asked at, or a
// content-modified error, never an older or newer version's answer.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "gtest/gtest.h"
#include "server/documents.h"
#include "tests/server/server_harness.h"

namespace hlo_lsp {
namespace {
namespace fs = std::filesystem;

constexpr int kContentModified = -32801;

// Version k: the instruction `%v<k>x` on line 4 + k % 4 (pads before it
// move it), used twice by the ROOT on the line after it.
std::string Text(int k) {
  std::string out =
      "HloModule m\n\nENTRY %e (p: f32[]) -> f32[] {\n"
      "  %p = f32[] parameter(0)\n";
  for (int i = 0; i < k % 4; ++i) {
    out += "  %pad" + std::to_string(i) + " = f32[] negate(%p)\n";
  }
  const std::string name = "%v" + std::to_string(k) + "x";
  out += "  " + name + " = f32[] negate(%p)\n";
  out += "  ROOT %r = f32[] add(" + name + ", " + name + ")\n}\n";
  return out;
}
int DefinitionLine(int k) { return 4 + k % 4; }
// The first operand of the ROOT, inside the name.
Json UsePosition(int k) {
  return {{"line", DefinitionLine(k) + 1}, {"character", 24}};
}

class ReaderThreadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("hlo-reader-thread-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    path_ = dir_ / "module_0001.m.before_optimizations.txt";
    std::ofstream(path_) << Text(1);
    // hlo.exportProto finds its output there and asks the user.
    std::ofstream(dir_ / "module_0001.m.before_optimizations.pb") << "x";
    uri_ = PathToUri(path_.string());
  }
  void TearDown() override { fs::remove_all(dir_); }

  static LspServer::Options Options(int threads) {
    LspServer::Options o;
    o.index_cache = false;
    o.poll_seconds = 3600;
    o.request_threads = threads;
    return o;
  }
  // Initializes (a client that can be asked), opens version 1 and waits
  // for its diagnostics: parsed.
  void Start(ServerHarness& h) {
    h.Initialize({{"window", {{"showMessage", Json::object()}}}});
    h.Notify("textDocument/didOpen", {{"textDocument",
                                       {{"uri", uri_},
                                        {"languageId", "hlo"},
                                        {"version", 1},
                                        {"text", Text(1)}}}});
    ASSERT_TRUE(DiagnosticsOf(h, 1));
    // Hover notes the pass history and buffers of the folder, read once in
    // the background after the open; until then the reader thread hands a
    // hover to the pool. One hover there waits for that read (under load it
    // was still running when the test held the only request thread).
    ASSERT_TRUE(
        h.Call("textDocument/hover", Position(1), 30000).contains("result"));
  }
  bool DiagnosticsOf(ServerHarness& h, int version) {
    return h.WaitUntil([&](const std::vector<Json>& all) {
      for (const Json& m : all) {
        if (m.value("method", "") == "textDocument/publishDiagnostics" &&
            m["params"].value("version", -1) == version) {
          return true;
        }
      }
      return false;
    });
  }
  // hlo.exportProto waiting for the user's answer: a request thread held
  // until the test answers. Returns the question.
  Json HoldARequestThread(ServerHarness& h, int64_t id) {
    h.Request(id, "workspace/executeCommand",
              {{"command", "hlo.exportProto"},
               {"arguments", Json::array({Json{{"uri", uri_}}})}});
    Json ask;
    h.WaitUntil([&](const std::vector<Json>& all) {
      for (const Json& m : all) {
        if (m.value("method", "") == "window/showMessageRequest") {
          ask = m;
          return true;
        }
      }
      return false;
    });
    return ask;
  }
  void Release(ServerHarness& h, const Json& ask, int64_t id) {
    h.Send(Json{{"jsonrpc", "2.0"},
                {"id", ask["id"]},
                {"result", {{"title", "Cancel"}}}});
    EXPECT_EQ(h.Response(id)["result"]["cancelled"], true);
  }
  Json Position(int k) {
    return {{"textDocument", {{"uri", uri_}}}, {"position", UsePosition(k)}};
  }

  fs::path dir_, path_;
  std::string uri_;
};

TEST_F(ReaderThreadTest, AnswersWhileTheOnlyRequestThreadIsHeld) {
  ServerHarness h(Options(1));
  Start(h);
  Json ask = HoldARequestThread(h, 5);
  ASSERT_FALSE(ask.is_null());
  // In the pool they waited for the user's answer (minutes).
  Json hover = h.Call("textDocument/hover", Position(1), 10000);
  ASSERT_TRUE(hover.contains("result")) << hover.dump();
  EXPECT_NE(
      hover["result"]["contents"]["value"].get<std::string>().find("%v1x"),
      std::string::npos)
      << hover.dump();
  Json def = h.Call("textDocument/definition", Position(1), 10000);
  ASSERT_TRUE(def.contains("result")) << def.dump();
  ASSERT_EQ(def["result"].size(), 1u) << def.dump();
  EXPECT_EQ(def["result"][0]["range"]["start"]["line"], DefinitionLine(1));
  Release(h, ask, 5);
}

TEST_F(ReaderThreadTest, AnswersFollowTheVersionAskedAtWhileEditsRace) {
  ServerHarness h(Options(2));
  Start(h);
  Json ask = HoldARequestThread(h, 5);
  ASSERT_FALSE(ask.is_null());
  std::map<int64_t, int> hovers, definitions;  // request id -> version
  int64_t id = 100;
  for (int k = 2; k <= 120; ++k) {
    h.Notify("textDocument/didChange",
             {{"textDocument", {{"uri", uri_}, {"version", k}}},
              {"contentChanges", Json::array({Json{{"text", Text(k)}}})}});
    // Every third version parsed first (answered on the reader thread);
    // the others asked while their parse is pending (in the pool), and
    // then raced by the next edit.
    if (k % 3 == 0) ASSERT_TRUE(DiagnosticsOf(h, k));
    h.Request(id, "textDocument/hover", Position(k));
    hovers[id++] = k;
    h.Request(id, "textDocument/definition", Position(k));
    definitions[id++] = k;
  }
  int answered = 0;
  for (auto& [request, k] : hovers) {
    Json reply = h.Response(request, 30000);
    ASSERT_FALSE(reply.is_null()) << "no answer to hover at version " << k;
    if (reply.contains("error")) {
      EXPECT_EQ(reply["error"]["code"], kContentModified) << reply.dump();
      continue;
    }
    ++answered;
    const std::string value = reply["result"]["contents"]["value"];
    EXPECT_NE(value.find("%v" + std::to_string(k) + "x"), std::string::npos)
        << "version " << k << ": " << value;
  }
  for (auto& [request, k] : definitions) {
    Json reply = h.Response(request, 30000);
    ASSERT_FALSE(reply.is_null()) << "no answer to definition at " << k;
    if (reply.contains("error")) {
      EXPECT_EQ(reply["error"]["code"], kContentModified) << reply.dump();
      continue;
    }
    ++answered;
    ASSERT_EQ(reply["result"].size(), 1u) << "version " << k << reply.dump();
    EXPECT_EQ(reply["result"][0]["range"]["start"]["line"], DefinitionLine(k))
        << "version " << k;
  }
  // At least the requests on parsed versions answered.
  EXPECT_GE(answered, 2 * 40);
  Release(h, ask, 5);
}

}  // namespace
}  // namespace hlo_lsp
