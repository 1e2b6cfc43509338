// The server stays within its workspace and its request threads stay free
// (issue 18, items 4 and 5): a document opened from outside the folders is
// not indexed (nor its folder walked), file events from outside are
// ignored, and a huge or cancelled workspace/symbol query does not hold a
// request thread.
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>

#include "gtest/gtest.h"
#include "server/documents.h"
#include "server/features/workspace_features.h"
#include "server/workspace.h"
#include "tests/server/server_harness.h"

namespace hlo_lsp {
namespace {
namespace fs = std::filesystem;

// A module whose computation `comp` defines `count` instructions named
// `<prefix>_<i>`: distinct names for workspace/symbol to find.
std::string ServerReliabilityModule(const std::string& name,
                                    const std::string& prefix, int count = 1) {
  std::string out = "HloModule " + name + "\n\nENTRY %" + prefix +
                    "_entry (p: f32[]) -> f32[] {\n  %" + prefix +
                    "_0 = f32[] parameter(0)\n";
  for (int i = 1; i < count; ++i) {
    out += "  %" + prefix + "_" + std::to_string(i) + " = f32[] add(%" +
           prefix + "_" + std::to_string(i - 1) + ", %" + prefix + "_" +
           std::to_string(i - 1) + ")\n";
  }
  out += "  ROOT %" + prefix + "_root = f32[] negate(%" + prefix + "_" +
         std::to_string(count - 1) + ")\n}\n";
  return out;
}

class ServerReliabilityTest : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = fs::temp_directory_path() /
            ("hlo-reliability-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(base_);
    ws_ = base_ / "ws";
    out_ = base_ / "outside";
    Write(ws_ / "module_0001.inner.before_optimizations.txt",
          ServerReliabilityModule("inner", "insidesym"));
    // Outside the workspace: a module with two stages, another module
    // beside it, and one in a subfolder.
    Write(out_ / "module_0005.far.before_optimizations.txt",
          ServerReliabilityModule("far", "farsym"));
    Write(out_ / "module_0005.far.after_optimizations.txt",
          ServerReliabilityModule("far", "farsym"));
    Write(out_ / "module_0006.other.before_optimizations.txt",
          ServerReliabilityModule("other", "othersym"));
    Write(out_ / "deep" / "module_0007.deep.before_optimizations.txt",
          ServerReliabilityModule("deep", "deepsym"));
    Write(out_ / "passwd", "root:x:0:0:root:/root:/bin/bash\n");
  }
  void TearDown() override { fs::remove_all(base_); }

  static void Write(const fs::path& path, const std::string& text) {
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
  }
  static LspServer::Options Options() {
    LspServer::Options o;
    o.index_cache = false;
    o.poll_seconds = 3600;  // only the events of a test refresh the index
    o.request_threads = 2;
    return o;
  }
  void Start(ServerHarness& h) {
    h.Request(0, "initialize",
              {{"capabilities", Json::object()},
               {"rootUri", PathToUri(ws_.string())}});
    ASSERT_TRUE(h.Response(0).contains("result"));
    h.Notify("initialized");
    ASSERT_FALSE(SymbolsEventually(h, "insidesym_root").empty());
  }
  Json Call(ServerHarness& h, const std::string& method, Json params,
            int timeout_ms = 60000) {
    return h.Call(method, std::move(params), timeout_ms);
  }
  Json Symbols(ServerHarness& h, const std::string& query) {
    return Call(h, "workspace/symbol", {{"query", query}})["result"];
  }
  Json SymbolsEventually(ServerHarness& h, const std::string& query) {
    for (int i = 0; i < 400; ++i) {
      Json r = Symbols(h, query);
      if (r.is_array() && !r.empty()) return r;
      usleep(25 * 1000);
    }
    return Json::array();
  }

  fs::path base_, ws_, out_;
};

TEST_F(ServerReliabilityTest, DocumentOutsideTheWorkspaceIsNotIndexed) {
  ServerHarness h(Options());
  Start(h);
  const std::string after =
      PathToUri((out_ / "module_0005.far.after_optimizations.txt").string());
  // The lens still names the module's other stage, from the file's folder;
  // the pass lenses follow (a previous dump, no next).
  Json lens =
      Call(h, "textDocument/codeLens", {{"textDocument", {{"uri", after}}}});
  ASSERT_EQ(lens["result"].size(), 3u) << lens.dump();
  EXPECT_EQ(lens["result"][1]["command"]["command"], "hlo.previousPass");
  EXPECT_NE(lens["result"][0]["command"]["title"].get<std::string>().find(
                "before_optimizations"),
            std::string::npos)
      << lens.dump();
  Json files = Call(h, "workspace/executeCommand",
                    {{"command", "hlo.moduleFiles"},
                     {"arguments", Json::array({{{"uri", after}}})}});
  ASSERT_EQ(files["result"].size(), 2u) << files.dump();
  EXPECT_EQ(files["result"][0]["stage"], "before_optimizations");
  EXPECT_EQ(files["result"][1]["uri"], after);
  // A file that is no dump at all lists itself, and nothing is walked.
  Json passwd = Call(h, "hlo/moduleFiles",
                     {{"uri", PathToUri((out_ / "passwd").string())}});
  ASSERT_EQ(passwd["result"].size(), 1u) << passwd.dump();

  // None of the outside files entered the index.
  for (const char* query : {"farsym_root", "othersym_root", "deepsym_root"}) {
    Json found = Symbols(h, query);
    ASSERT_TRUE(found.is_array());
    EXPECT_TRUE(found.empty()) << query << ": " << found.dump();
  }
}

TEST_F(ServerReliabilityTest, DefinitionAcrossDumpsOutsideTheWorkspace) {
  const std::string entry =
      "ENTRY %main (p: f32[]) -> f32[] {\n  %p = f32[] parameter(0)\n"
      "  ROOT %r = f32[] call(%p), to_apply=%out_helper\n}\n";
  Write(out_ / "module_0008.defmod.before_optimizations.txt",
        "HloModule defmod\n\n%out_helper (x: f32[]) -> f32[] {\n"
        "  ROOT %x = f32[] parameter(0)\n}\n\n" +
            entry);
  Write(out_ / "module_0008.defmod.after_optimizations.txt",
        "HloModule defmod\n\n" + entry);
  ServerHarness h(Options());
  Start(h);
  // `to_apply=%out_helper` in the after file: defined only in the before
  // file, which is read for the answer but not indexed.
  Json def = Call(
      h, "textDocument/definition",
      {{"textDocument",
        {{"uri", PathToUri((out_ / "module_0008.defmod.after_optimizations.txt")
                               .string())}}},
       {"position",
        {{"line", 4},
         {"character",
          std::string("  ROOT %r = f32[] call(%p), to_apply=%out").size()}}}});
  ASSERT_EQ(def["result"].size(), 1u) << def.dump();
  EXPECT_EQ(
      def["result"][0]["uri"],
      PathToUri(
          (out_ / "module_0008.defmod.before_optimizations.txt").string()));
  EXPECT_EQ(def["result"][0]["range"]["start"]["line"], 2);
  Json found = Symbols(h, "out_helper");
  ASSERT_TRUE(found.is_array());
  EXPECT_TRUE(found.empty()) << found.dump();
}

TEST_F(ServerReliabilityTest, FileEventsOutsideTheFoldersAreIgnored) {
  ServerHarness h(Options());
  Start(h);
  Write(ws_ / "module_0002.fresh.before_optimizations.txt",
        ServerReliabilityModule("fresh", "freshsym"));
  // One notification, the outside file first: once the inside file is
  // indexed, the outside one has been dealt with too.
  h.Notify(
      "workspace/didChangeWatchedFiles",
      {{"changes",
        Json::array(
            {Json{{"uri",
                   PathToUri(
                       (out_ / "module_0006.other.before_optimizations.txt")
                           .string())},
                  {"type", 1}},
             Json{
                 {"uri",
                  PathToUri((ws_ / "module_0002.fresh.before_optimizations.txt")
                                .string())},
                 {"type", 1}}})}});
  ASSERT_FALSE(SymbolsEventually(h, "freshsym_root").empty());
  Json outside = Symbols(h, "othersym_root");
  ASSERT_TRUE(outside.is_array());
  EXPECT_TRUE(outside.empty()) << outside.dump();
}

TEST_F(ServerReliabilityTest, HugeWorkspaceSymbolQueriesDoNotBlockHover) {
  // Enough distinct names that the huge regex below, with no bounds, took
  // about a minute per query (RE2 falls back from its DFA on each name).
  const std::string big = ServerReliabilityModule("big", "bigsym", 20000);
  Write(ws_ / "module_0003.big.before_optimizations.txt", big);
  ServerHarness h(Options());
  Start(h);
  ASSERT_FALSE(SymbolsEventually(h, "bigsym_19999").empty());
  const std::string uri =
      PathToUri((ws_ / "module_0003.big.before_optimizations.txt").string());
  h.Notify(
      "textDocument/didOpen",
      {{"textDocument",
        {{"uri", uri}, {"languageId", "hlo"}, {"version", 1}, {"text", big}}}});
  std::string regex = "/(";
  for (int i = 0; i < 5000; ++i) {
    regex += (i ? "|" : "") + std::string(".*bigsym_") +
             std::to_string(100000 + i) + ".*_pad";
  }
  regex += ")/";
  ASSERT_GT(regex.size(), 100000u);
  // More queries than request threads, then a cancel for each, as a client
  // would send when the user gives up.
  for (int64_t id = 10; id < 14; ++id)
    h.Request(id, "workspace/symbol", {{"query", regex}});
  for (int64_t id = 10; id < 14; ++id)
    h.Notify("$/cancelRequest", {{"id", id}});
  // Line 4 is `  %bigsym_1 = ...`: hover over the name.
  h.Request(20, "textDocument/hover",
            {{"textDocument", {{"uri", uri}}},
             {"position", {{"line", 4}, {"character", 5}}}});
  Json hover = h.Response(20, 30000);
  ASSERT_TRUE(hover.contains("result")) << hover.dump();
  EXPECT_FALSE(hover["result"].is_null());
  for (int64_t id = 10; id < 14; ++id) {
    Json reply = h.Response(id, 30000);
    ASSERT_TRUE(reply.contains("error")) << reply.dump().substr(0, 300);
    // Refused as too long, or cancelled before it ran.
    int code = reply["error"]["code"];
    EXPECT_TRUE(code == -32602 || code == -32800) << code;
    if (code == -32602) {
      EXPECT_NE(
          reply["error"]["message"].get<std::string>().find("query too long"),
          std::string::npos);
    }
  }
}

// Client calls a Workspace makes; none matters here.
class QuietClient : public Client {
 public:
  void Log(LogType, const std::string&) override {}
  void Progress(const ProgressParams&) override {}
  bool CreateProgress(const std::string&) override { return false; }
  bool RegisterFileWatchers(const FileWatcherRegistration&) override {
    return false;
  }
  std::optional<MessageActionResult> AskUser(
      const ShowMessageRequestParams&, int, const std::atomic<bool>*) override {
    return std::nullopt;
  }
  void ShowDocument(const ShowDocumentParams&) override {}
  std::shared_ptr<const std::string> DocumentText(const std::string&) override {
    return nullptr;
  }
};

TEST_F(ServerReliabilityTest, CancelledWorkspaceSymbolAnswersCancelled) {
  QuietClient client;
  Workspace workspace(&client, {.use_cache = false, .poll_seconds = 3600});
  workspace.Initialize({ws_}, ClientSupport{});
  workspace.Initialized();
  ASSERT_TRUE(workspace.WaitForFirstIndex(nullptr));
  std::atomic<bool> cancelled{false};
  auto found = WorkspaceSymbols(workspace, {"insidesym_root"},
                                kDefaultWorkspaceSymbolLimit, &cancelled);
  ASSERT_TRUE(std::holds_alternative<std::vector<WorkspaceSymbol>>(found));
  EXPECT_EQ(std::get<0>(found).size(), 1u);
  // $/cancelRequest sets the flag: the query stops and says so.
  cancelled = true;
  for (const char* query : {"insidesym_root", "/insidesym.*/", "kind:module"}) {
    auto stopped = WorkspaceSymbols(workspace, {query},
                                    kDefaultWorkspaceSymbolLimit, &cancelled);
    const RpcError* error = std::get_if<RpcError>(&stopped);
    ASSERT_NE(error, nullptr) << query;
    EXPECT_EQ(error->code, ErrorCode::kRequestCancelled) << query;
  }
  workspace.Shutdown();
}

// HLO_LSP_TRACE: one stderr line per request with its queue wait and run
// time, to tell a p99 outlier that waited from one that ran long; nothing
// without it.
TEST(ServerTraceTest, TraceOptionLogsEachRequestsWaitAndRunTime) {
  for (bool trace : {true, false}) {
    ::testing::internal::CaptureStderr();
    {
      LspServer::Options options;
      options.trace_requests = trace;
      ServerHarness h(options);
      h.Initialize();
      h.Call("workspace/symbol", {{"query", "x"}});
      h.CloseInput();
      h.ExitCode();  // the pools joined: every trace line is written
    }
    const std::string err = ::testing::internal::GetCapturedStderr();
    if (trace) {
      EXPECT_NE(err.find("hlo-lsp trace: workspace/symbol 1000000 wait "),
                std::string::npos)
          << err;
      EXPECT_NE(err.find(" ms run "), std::string::npos) << err;
    } else {
      EXPECT_EQ(err.find("hlo-lsp trace:"), std::string::npos) << err;
    }
  }
}

}  // namespace
}  // namespace hlo_lsp
