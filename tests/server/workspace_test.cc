// Workspace features through the in-process server: workspace/symbol with
// progress, module files, definition across dumps, conversion commands,
// replay jobs, code actions and lenses, file watching.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "exec/platform.h"
#include "gtest/gtest.h"
#include "hlo/proto/convert.h"
#include "server/documents.h"
#include "tests/server/server_harness.h"

namespace hlo_lsp {
namespace {
namespace fs = std::filesystem;

constexpr char kWorkspaceBefore[] =
    R"(HloModule foo, entry_computation_layout={(f32[2]{0})->f32[2]{0}}

%helper (x: f32[2]) -> f32[2] {
  %x = f32[2]{0} parameter(0)
  ROOT %twice = f32[2]{0} add(%x, %x)
}

ENTRY %main (p: f32[2]) -> f32[2] {
  %p = f32[2]{0} parameter(0)
  ROOT %r = f32[2]{0} call(%p), to_apply=%helper
}
)";

constexpr char kAfter[] =
    R"(HloModule foo, entry_computation_layout={(f32[2]{0})->f32[2]{0}}

ENTRY %main (p: f32[2]) -> f32[2] {
  %p = f32[2]{0} parameter(0)
  ROOT %r = f32[2]{0} call(%p), to_apply=%helper
}
)";

class WorkspaceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("hlo-ws-test-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    Write("module_0001.foo.before_optimizations.txt", kWorkspaceBefore);
    Write("module_0001.foo.after_optimizations.txt", kAfter);
  }
  void TearDown() override { fs::remove_all(dir_); }

  void Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
  }
  std::string Uri(const std::string& name) {
    return PathToUri((dir_ / name).string());
  }

  static LspServer::Options NoCache() {
    LspServer::Options o;
    o.index_cache = false;
    o.poll_seconds = 1;
    return o;
  }

  // Initializes with the folder and waits for indexing to end, answering
  // the server's requests to the client with `answer`.
  void Start(ServerHarness& h, Json capabilities) {
    Json params{{"capabilities", capabilities},
                {"rootUri", PathToUri(dir_.string())}};
    h.Request(0, "initialize", params);
    ASSERT_TRUE(h.Response(0).contains("result"));
    h.Notify("initialized");
  }
  // The first server->client request of `method`, answered with `result`.
  Json AnswerRequest(ServerHarness& h, const std::string& method, Json result) {
    Json found;
    h.WaitUntil([&](const std::vector<Json>& all) {
      for (const Json& m : all) {
        if (m.value("method", "") == method && m.contains("id")) {
          found = m;
          return true;
        }
      }
      return false;
    });
    if (!found.is_null()) {
      h.Send(Json{{"jsonrpc", "2.0"}, {"id", found["id"]}, {"result", result}});
    }
    return found;
  }
  // Waits until workspace/symbol for `query` returns something.
  Json SymbolsEventually(ServerHarness& h, const std::string& query) {
    for (int i = 0; i < 200; ++i) {
      h.Request(next_id_, "workspace/symbol", {{"query", query}});
      Json r = h.Response(next_id_++);
      if (r.contains("result") && !r["result"].empty()) return r["result"];
      usleep(50 * 1000);
    }
    return Json::array();
  }
  Json Call(ServerHarness& h, const std::string& method, Json params) {
    return h.Call(method, std::move(params));
  }
  Json Command(ServerHarness& h, const std::string& command, Json arg) {
    return h.Command(command, std::move(arg));
  }

  fs::path dir_;
  int64_t next_id_ = 100;
};

TEST_F(WorkspaceTest, CapabilitiesNameTheContractCommands) {
  ServerHarness h(NoCache());
  Json r = h.Initialize();
  Json caps = r["result"]["capabilities"];
  EXPECT_EQ(caps["workspaceSymbolProvider"]["resolveProvider"], true);
  EXPECT_EQ(
      caps["executeCommandProvider"]["commands"],
      Json::array({"hlo.convertToText", "hlo.exportProto", "hlo.replay",
                   "hlo.compare", "hlo.moduleFiles", "hlo.search", "hlo.diff",
                   "hlo.previousPass", "hlo.nextPass", "hlo.graph",
                   "hlo.memory", "hlo.bundle", "hlo.bisect"}));
  EXPECT_TRUE(caps.contains("codeActionProvider"));
  EXPECT_TRUE(caps.contains("codeLensProvider"));
}

TEST_F(WorkspaceTest, SymbolsWithProgressAndWatcherRegistration) {
  ServerHarness h(NoCache());
  Start(h, {{"window", {{"workDoneProgress", true}}},
            {"workspace",
             {{"didChangeWatchedFiles", {{"dynamicRegistration", true}}}}}});
  Json reg = AnswerRequest(h, "client/registerCapability", nullptr);
  ASSERT_FALSE(reg.is_null());
  EXPECT_EQ(reg["params"]["registrations"][0]["method"],
            "workspace/didChangeWatchedFiles");
  // Protos are indexed too: their changes are watched.
  EXPECT_EQ(reg["params"]["registrations"][0]["registerOptions"]["watchers"][0]
               ["globPattern"],
            "**/*.{txt,hlo,pbtxt,pb,pb.gz}");
  Json create = AnswerRequest(h, "window/workDoneProgress/create", nullptr);
  ASSERT_FALSE(create.is_null());
  std::string token = create["params"]["token"];
  EXPECT_TRUE(h.WaitUntil([&](const std::vector<Json>& all) {
    for (const Json& m : all) {
      if (m.value("method", "") == "$/progress" &&
          m["params"]["token"] == token &&
          m["params"]["value"]["kind"] == "end") {
        return true;
      }
    }
    return false;
  }));
  Json symbols = SymbolsEventually(h, "helper");
  ASSERT_FALSE(symbols.empty());
  bool found = false;
  for (const Json& s : symbols) {
    if (s["name"] == "helper" && s["kind"] == 12) {
      found = true;
      EXPECT_EQ(s["containerName"], "foo");
      EXPECT_EQ(s["location"]["uri"],
                Uri("module_0001.foo.before_optimizations.txt"));
      EXPECT_EQ(s["location"]["range"]["start"]["line"], 2);
    }
  }
  EXPECT_TRUE(found) << symbols.dump();

  // A new file, announced by the client, is indexed.
  Write("module_0002.bar.before_optimizations.txt",
        "HloModule bar\n\nENTRY %newentry (a: f32[]) -> f32[] {\n"
        "  ROOT %a = f32[] parameter(0)\n}\n");
  h.Notify(
      "workspace/didChangeWatchedFiles",
      {{"changes", Json::array({Json{
                       {"uri", Uri("module_0002.bar.before_optimizations.txt")},
                       {"type", 1}}})}});
  Json fresh = SymbolsEventually(h, "newentry");
  ASSERT_FALSE(fresh.empty());
  EXPECT_EQ(fresh[0]["name"], "newentry");
}

// The contract: at most 100 symbols by default; hlo.workspaceSymbolLimit
// from initializationOptions or didChangeConfiguration changes it.
TEST_F(WorkspaceTest, RangesAreLeftToResolveWhenTheClientResolvesThem) {
  // After non-ASCII text: the UTF-16 column needs the line, read at resolve.
  Write("module_0005.res.before_optimizations.txt",
        "HloModule res\n\nENTRY %main () -> f32[] {\n"
        "/*\xc3\xa9\xc3\xa9*/ %far_away = f32[] constant(1)\n"
        "  ROOT %near_by = f32[] constant(2)\n}\n");
  ServerHarness h(NoCache());
  Start(h, {{"workspace",
             {{"symbol",
               {{"resolveSupport", {{"properties", {"location.range"}}}}}}}}});
  for (const char* query : {"far_away", "near_by"}) {
    Json symbols = SymbolsEventually(h, query);
    ASSERT_FALSE(symbols.empty()) << query;
    const Json& s = symbols[0];
    EXPECT_EQ(s["location"]["uri"],
              Uri("module_0005.res.before_optimizations.txt"));
    EXPECT_FALSE(s["location"].contains("range")) << s.dump();
    ASSERT_TRUE(s.contains("data")) << s.dump();
    Json resolved = Call(h, "workspaceSymbol/resolve", s);
    ASSERT_TRUE(resolved.contains("result")) << resolved.dump();
    const Json& r = resolved["result"];
    EXPECT_EQ(r["name"], query);
    EXPECT_FALSE(r.contains("data")) << r.dump();
    EXPECT_EQ(r["location"]["uri"], s["location"]["uri"]);
    const Json& range = r["location"]["range"];
    if (std::string(query) == "far_away") {
      // "/*éé*/ %" is 10 bytes and 8 UTF-16 units.
      EXPECT_EQ(range["start"], Json({{"line", 3}, {"character", 8}}));
      EXPECT_EQ(range["end"], Json({{"line", 3}, {"character", 16}}));
    } else {
      EXPECT_EQ(range["start"], Json({{"line", 4}, {"character", 8}}));
      EXPECT_EQ(range["end"], Json({{"line", 4}, {"character", 15}}));
    }
  }
  // A symbol with its range comes back as it is; one with neither is refused.
  Json whole{{"name", "x"},
             {"kind", 13},
             {"location",
              {{"uri", Uri("module_0005.res.before_optimizations.txt")},
               {"range",
                {{"start", {{"line", 1}, {"character", 2}}},
                 {"end", {{"line", 1}, {"character", 3}}}}}}}};
  EXPECT_EQ(Call(h, "workspaceSymbol/resolve", whole)["result"], whole);
  Json bare{{"name", "x"}, {"location", {{"uri", "file:///nowhere"}}}};
  EXPECT_EQ(Call(h, "workspaceSymbol/resolve", bare)["error"]["code"], -32602);
}

TEST_F(WorkspaceTest, WorkspaceSymbolLimitIsHundredOrTheSetting) {
  std::string many = "HloModule many\n\nENTRY %main () -> f32[] {\n";
  for (int i = 0; i < 150; ++i) {
    many += "  %limit_probe." + std::to_string(i) + " = f32[] constant(1)\n";
  }
  many += "  ROOT %r = f32[] constant(0)\n}\n";
  Write("module_0009.many.before_optimizations.txt", many);
  auto count = [&](ServerHarness& h) {
    return SymbolsEventually(h, "limit_probe").size();
  };
  {
    ServerHarness h(NoCache());
    Start(h, Json::object());
    EXPECT_EQ(count(h), 100u);
    h.Notify("workspace/didChangeConfiguration",
             {{"settings", {{"hlo", {{"workspaceSymbolLimit", 7}}}}}});
    EXPECT_EQ(count(h), 7u);
    // Not a positive integer: no setting, the last one stays.
    h.Notify("workspace/didChangeConfiguration",
             {{"settings", {{"hlo", {{"workspaceSymbolLimit", -1}}}}}});
    EXPECT_EQ(count(h), 7u);
  }
  {
    ServerHarness h(NoCache());
    h.Request(0, "initialize",
              {{"capabilities", Json::object()},
               {"rootUri", PathToUri(dir_.string())},
               {"initializationOptions", {{"workspaceSymbolLimit", 120}}}});
    ASSERT_TRUE(h.Response(0).contains("result"));
    h.Notify("initialized");
    EXPECT_EQ(count(h), 120u);
  }
}

TEST_F(WorkspaceTest, PollsWhenTheClientCannotWatch) {
  ServerHarness h(NoCache());
  Start(h, Json::object());
  ASSERT_FALSE(SymbolsEventually(h, "helper").empty());
  Write("module_0003.baz.before_optimizations.txt",
        "HloModule baz\n\nENTRY %polled_entry (a: f32[]) -> f32[] {\n"
        "  ROOT %a = f32[] parameter(0)\n}\n");
  Json fresh = SymbolsEventually(h, "polled_entry");
  ASSERT_FALSE(fresh.empty());
  EXPECT_EQ(fresh[0]["name"], "polled_entry");
}

// A symbol inside a binary proto: the proto's URI, with the range in its
// text view (what hlo/protoToText shows, and the editor opens).
TEST_F(WorkspaceTest, SymbolsInAProtoHaveTextViewRanges) {
  auto bytes = hlo::proto::ConvertTextToHloProtoBytes(
      "HloModule bar\n\nENTRY %e (a: f32[]) -> f32[] {\n"
      "  ROOT %only_in_proto = f32[] negate(f32[] %a)\n"
      "  %a = f32[] parameter(0)\n}\n");
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  Write("module_0002.bar.hlo.pb", *bytes);
  auto view = hlo::proto::ProtoBytesToText(*bytes);
  ASSERT_TRUE(view.ok());
  const size_t at = view->text.find("only_in_proto =");
  ASSERT_NE(at, std::string::npos);
  const int line = static_cast<int>(
      std::count(view->text.begin(), view->text.begin() + at, '\n'));
  const int column = static_cast<int>(at - view->text.rfind('\n', at) - 1);

  ServerHarness h(NoCache());
  Start(h, Json::object());
  Json symbols = SymbolsEventually(h, "only_in_proto");
  ASSERT_EQ(symbols.size(), 1u) << symbols.dump();
  EXPECT_EQ(symbols[0]["location"]["uri"], Uri("module_0002.bar.hlo.pb"));
  EXPECT_EQ(symbols[0]["location"]["range"],
            Json({{"start", {{"line", line}, {"character", column}}},
                  {"end", {{"line", line}, {"character", column + 13}}}}));
  EXPECT_EQ(symbols[0]["containerName"], "bar");
}

TEST_F(WorkspaceTest, ModuleFilesLensAndDefinitionAcrossDumps) {
  ServerHarness h(NoCache());
  Start(h, Json::object());
  ASSERT_FALSE(SymbolsEventually(h, "helper").empty());
  std::string after = Uri("module_0001.foo.after_optimizations.txt");

  Json files = Call(h, "hlo/moduleFiles", {{"uri", after}});
  ASSERT_TRUE(files["result"].is_array()) << files.dump();
  ASSERT_EQ(files["result"].size(), 2u);
  EXPECT_EQ(files["result"][0]["stage"], "before_optimizations");
  EXPECT_EQ(files["result"][1]["stage"], "after_optimizations");
  EXPECT_EQ(files["result"][1]["uri"], after);
  Json same = Command(h, "hlo.moduleFiles", {{"uri", after}});
  EXPECT_EQ(same["result"], files["result"]);

  Json lens =
      Call(h, "textDocument/codeLens", {{"textDocument", {{"uri", after}}}});
  // The module's files, then the pass lenses: a previous dump, no next.
  ASSERT_EQ(lens["result"].size(), 3u) << lens.dump();
  EXPECT_EQ(lens["result"][0]["range"]["start"]["line"], 0);
  EXPECT_EQ(lens["result"][0]["command"]["command"], "hlo.moduleFiles");
  EXPECT_EQ(lens["result"][1]["command"]["command"], "hlo.previousPass");
  EXPECT_EQ(lens["result"][2]["command"]["command"], "hlo.diff");
  EXPECT_NE(lens["result"][0]["command"]["title"].get<std::string>().find(
                "before_optimizations"),
            std::string::npos);

  // `to_apply=%helper` in the after file: defined only in the before file.
  size_t line = 4,
         col =
             std::string("  ROOT %r = f32[2]{0} call(%p), to_apply=%he").size();
  Json def = Call(h, "textDocument/definition",
                  {{"textDocument", {{"uri", after}}},
                   {"position", {{"line", line}, {"character", col}}}});
  ASSERT_EQ(def["result"].size(), 1u) << def.dump();
  EXPECT_EQ(def["result"][0]["uri"],
            Uri("module_0001.foo.before_optimizations.txt"));
  EXPECT_EQ(def["result"][0]["range"]["start"]["line"], 2);
}

TEST_F(WorkspaceTest, ExportConvertAndOverwriteRules) {
  ServerHarness h(NoCache());
  Start(h, {{"window", {{"showDocument", {{"support", true}}}}}});
  std::string before = Uri("module_0001.foo.before_optimizations.txt");
  Json exported = Command(h, "hlo.exportProto", {{"uri", before}});
  ASSERT_TRUE(exported.contains("result")) << exported.dump();
  fs::path pb = dir_ / "module_0001.foo.before_optimizations.pb";
  EXPECT_EQ(exported["result"]["uri"], PathToUri(pb.string()));
  EXPECT_GT(fs::file_size(pb), 0u);

  Json text = Call(h, "hlo/protoToText", {{"uri", PathToUri(pb.string())}});
  ASSERT_TRUE(text.contains("result")) << text.dump();
  EXPECT_EQ(text["result"]["truncated"], false);
  EXPECT_NE(text["result"]["text"].get<std::string>().find("HloModule foo"),
            std::string::npos);

  // The .txt beside the .pb exists: the user is asked; Cancel keeps it.
  int64_t id = next_id_++;
  h.Request(
      id, "workspace/executeCommand",
      {{"command", "hlo.convertToText"},
       {"arguments", Json::array({Json{{"uri", PathToUri(pb.string())}}})}});
  Json ask =
      AnswerRequest(h, "window/showMessageRequest", {{"title", "Cancel"}});
  ASSERT_FALSE(ask.is_null());
  EXPECT_EQ(h.Response(id)["result"]["cancelled"], true);
  std::ifstream kept(dir_ / "module_0001.foo.before_optimizations.txt");
  std::stringstream ss;
  ss << kept.rdbuf();
  EXPECT_EQ(ss.str(), kWorkspaceBefore);

  // A failed answer: written beside, as <name>.1.txt, then shown.
  id = next_id_++;
  h.Request(
      id, "workspace/executeCommand",
      {{"command", "hlo.convertToText"},
       {"arguments", Json::array({Json{{"uri", PathToUri(pb.string())}}})}});
  h.WaitUntil([&](const std::vector<Json>& all) {
    int asks = 0;
    for (const Json& m : all) {
      if (m.value("method", "") == "window/showMessageRequest") ++asks;
    }
    return asks == 2;
  });
  for (const Json& m : h.Received()) {
    if (m.value("method", "") == "window/showMessageRequest" &&
        m["id"] != ask["id"]) {
      h.Send(Json{{"jsonrpc", "2.0"},
                  {"id", m["id"]},
                  {"error", {{"code", -32603}, {"message", "no"}}}});
    }
  }
  Json show = AnswerRequest(h, "window/showDocument", {{"success", true}});
  Json converted = h.Response(id);
  fs::path out = dir_ / "module_0001.foo.before_optimizations.1.txt";
  EXPECT_EQ(converted["result"]["uri"], PathToUri(out.string()))
      << converted.dump();
  EXPECT_TRUE(fs::exists(out));
  EXPECT_EQ(show["params"]["uri"], PathToUri(out.string()));
}

TEST_F(WorkspaceTest, CodeActions) {
  ServerHarness h(NoCache());
  Start(h, Json::object());
  Json text_actions =
      Call(h, "textDocument/codeAction",
           {{"textDocument",
             {{"uri", Uri("module_0001.foo.after_optimizations.txt")}}},
            {"range",
             {{"start", {{"line", 0}, {"character", 0}}},
              {"end", {{"line", 0}, {"character", 0}}}}},
            {"context", {{"diagnostics", Json::array()}}}});
  std::vector<std::string> commands;
  for (const Json& a : text_actions["result"])
    commands.push_back(a["command"]["command"]);
  EXPECT_EQ(commands, (std::vector<std::string>{"hlo.exportProto", "hlo.replay",
                                                "hlo.bisect", "hlo.bundle"}));
  Json pb_actions = Call(h, "textDocument/codeAction",
                         {{"textDocument", {{"uri", Uri("x.pb")}}},
                          {"range",
                           {{"start", {{"line", 0}, {"character", 0}}},
                            {"end", {{"line", 0}, {"character", 0}}}}},
                          {"context", {{"diagnostics", Json::array()}}}});
  ASSERT_EQ(pb_actions["result"].size(), 1u);
  EXPECT_EQ(pb_actions["result"][0]["title"], "Convert to HLO text");
  // A .pbtxt is a text proto unless its first token is HloModule.
  Write("snapshot.pbtxt", "hlo {\n  hlo_module {\n    name: \"m\"\n  }\n}\n");
  Write("module.pbtxt", kWorkspaceBefore);
  auto titles = [&](const std::string& name) {
    Json actions = Call(h, "textDocument/codeAction",
                        {{"textDocument", {{"uri", Uri(name)}}},
                         {"range",
                          {{"start", {{"line", 0}, {"character", 0}}},
                           {"end", {{"line", 0}, {"character", 0}}}}},
                         {"context", {{"diagnostics", Json::array()}}}});
    std::vector<std::string> out;
    for (const Json& a : actions["result"])
      out.push_back(a["command"]["command"]);
    return out;
  };
  EXPECT_EQ(titles("snapshot.pbtxt"),
            (std::vector<std::string>{"hlo.convertToText"}));
  EXPECT_EQ(titles("module.pbtxt"),
            (std::vector<std::string>{"hlo.exportProto", "hlo.replay"}));
}

TEST_F(WorkspaceTest, ReplayOnCpuThenResult) {
  ServerHarness h(NoCache());
  Start(h, Json::object());
  std::string before = Uri("module_0001.foo.before_optimizations.txt");
  Json gpu = Command(h, "hlo.replay", {{"uri", before}, {"platform", "gpu"}});
  if (!hlo::exec::QueryGpuInChild().available()) {
    ASSERT_TRUE(gpu.contains("error"));
    EXPECT_EQ(gpu["error"]["message"].get<std::string>().rfind("no GPU: ", 0),
              0u);
  }

  Json started =
      Command(h, "hlo.replay", {{"uri", before}, {"platform", "cpu"}});
  ASSERT_TRUE(started["result"].contains("id")) << started.dump();
  Json result = Call(h, "hlo/replayResult", {{"id", started["result"]["id"]}});
  ASSERT_TRUE(result.contains("result")) << result.dump();
  EXPECT_EQ(result["result"]["outcome"], "ok") << result.dump();
  EXPECT_NE(result["result"]["summary"].get<std::string>().find(
                "replayed foo on cpu"),
            std::string::npos);
  ASSERT_EQ(result["result"]["outputs"].size(), 1u);
  EXPECT_EQ(result["result"]["outputs"][0]["shape"], "f32[2]");
  EXPECT_FALSE(result["result"]["stats"].empty());

  Json compare = Command(h, "hlo.compare",
                         {{"uri", before}, {"platforms", {"cpu", "gpu"}}});
  ASSERT_TRUE(compare.contains("error"));
  EXPECT_NE(compare["error"]["message"].get<std::string>().find("snapshot"),
            std::string::npos);
  Json unknown = Call(h, "hlo/replayResult", {{"id", 9999}});
  EXPECT_TRUE(unknown.contains("error"));
}

// An endless loop: only a time limit or a cancel ends its replay.
constexpr char kWorkspaceEndless[] = R"(HloModule endless

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

TEST_F(WorkspaceTest, ReplayReportHasOutputStatsAndTheNanOrigin) {
  Write("nan.hlo", R"(HloModule nan

ENTRY %e () -> (f32[3], f32[2]) {
  %z = f32[2]{0} constant({0, 1})
  %q = f32[2]{0} divide(%z, %z)
  %c = f32[3]{0} constant({1, 2, 6})
  ROOT %t = (f32[3]{0}, f32[2]{0}) tuple(%c, %q)
}
)");
  ServerHarness h(NoCache());
  Start(h, Json::object());
  Json started = Command(h, "hlo.replay", {{"uri", Uri("nan.hlo")}});
  ASSERT_TRUE(started["result"].contains("id")) << started.dump();
  Json r = Call(h, "hlo/replayResult", {{"id", started["result"]["id"]}});
  ASSERT_EQ(r["result"]["outcome"], "ok") << r.dump();
  EXPECT_EQ(r["result"]["uri"], Uri("nan.hlo"));
  const Json& outs = r["result"]["outputs"];
  ASSERT_EQ(outs.size(), 2u) << r.dump();
  EXPECT_EQ(outs[0]["shape"], "f32[3]");
  EXPECT_EQ(outs[0]["elements"], 3);
  EXPECT_EQ(outs[0]["min"], 1.0);
  EXPECT_EQ(outs[0]["max"], 6.0);
  EXPECT_EQ(outs[0]["mean"], 3.0);
  EXPECT_EQ(outs[0]["nan"], 0);
  EXPECT_EQ(outs[1]["nan"], 1);  // 0/0; 1/1 is finite
  const Json& origin = r["result"]["firstNonFinite"];
  EXPECT_EQ(origin["name"], "q") << r.dump();
  EXPECT_EQ(origin["opcode"], "divide");
  EXPECT_EQ(origin["line"], 5);
  EXPECT_EQ(origin["nan"], 1);

  // Without NaN: null, so that a client can tell "none" from "not told".
  Json clean =
      Command(h, "hlo.replay",
              {{"uri", Uri("module_0001.foo.before_optimizations.txt")}});
  Json cr = Call(h, "hlo/replayResult", {{"id", clean["result"]["id"]}});
  ASSERT_TRUE(cr["result"].contains("firstNonFinite")) << cr.dump();
  EXPECT_TRUE(cr["result"]["firstNonFinite"].is_null());
}

TEST_F(WorkspaceTest, ReplayTimeoutComesWithTheCommand) {
  Write("endless.hlo", kWorkspaceEndless);
  ServerHarness h(NoCache());
  Start(h, Json::object());
  Json started =
      Command(h, "hlo.replay", {{"uri", Uri("endless.hlo")}, {"timeout", 1}});
  ASSERT_TRUE(started["result"].contains("id")) << started.dump();
  Json r = Call(h, "hlo/replayResult", {{"id", started["result"]["id"]}});
  EXPECT_EQ(r["result"]["outcome"], "failed") << r.dump();
  EXPECT_NE(r["result"]["error"].get<std::string>().find("timed out after 1"),
            std::string::npos)
      << r.dump();
  Json bad =
      Command(h, "hlo.replay", {{"uri", Uri("endless.hlo")}, {"timeout", -1}});
  EXPECT_TRUE(bad.contains("error")) << bad.dump();
}

TEST_F(WorkspaceTest, CancellingTheResultRequestKillsTheRun) {
  Write("endless.hlo", kWorkspaceEndless);
  ServerHarness h(NoCache());
  Start(h, Json::object());
  Json started = Command(h, "hlo.replay", {{"uri", Uri("endless.hlo")}});
  ASSERT_TRUE(started["result"].contains("id")) << started.dump();
  const Json id = started["result"]["id"];
  h.Request(42, "hlo/replayResult", {{"id", id}});
  usleep(300 * 1000);
  h.Notify("$/cancelRequest", {{"id", 42}});
  Json cancelled = h.Response(42, 10000);
  ASSERT_TRUE(cancelled.contains("error")) << cancelled.dump();
  EXPECT_EQ(cancelled["error"]["code"], -32800);
  EXPECT_EQ(cancelled["error"]["message"], "cancelled");
  // The run itself stopped (it would otherwise run for 600 s): its report
  // comes at once and says so.
  Json r = h.Call("hlo/replayResult", {{"id", id}}, 10000);
  EXPECT_EQ(r["result"]["outcome"], "cancelled") << r.dump();
  EXPECT_NE(r["result"]["summary"].get<std::string>().find("cancelled"),
            std::string::npos);
}

TEST_F(WorkspaceTest, InitializeSaysWhetherAGpuAnswered) {
  ServerHarness h(NoCache());
  Json r = h.Initialize();
  const Json& gpu = r["result"]["capabilities"]["experimental"]["gpu"];
  const hlo::exec::GpuInfo info = hlo::exec::QueryGpuInChild();
  EXPECT_EQ(gpu["available"], info.available()) << r.dump();
  if (info.available()) {
    EXPECT_EQ(gpu["device"], info.Describe());
  } else {
    EXPECT_TRUE(gpu["device"].is_null());
  }
}

TEST_F(WorkspaceTest, CodeActionsOfAProtoTextViewActOnTheProto) {
  auto bytes = hlo::proto::ConvertTextToHloProtoBytes(kWorkspaceBefore);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  Write("module_0001.foo.hlo.pb", *bytes);
  // What VS Code opens for a .pb: hlo-proto:/dir/X.txt?<the file URI>.
  std::string pb = Uri("module_0001.foo.hlo.pb");
  std::string query;
  for (char c : pb) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_')
      query += c;
    else
      query += "%" + [&] {
        char hex[3];
        std::snprintf(hex, sizeof hex, "%02X", static_cast<unsigned char>(c));
        return std::string(hex);
      }();
  }
  std::string view =
      "hlo-proto:" + (dir_ / "module_0001.foo.hlo.txt").string() + "?" + query;
  ServerHarness h(NoCache());
  Start(h, Json::object());
  Json actions = Call(h, "textDocument/codeAction",
                      {{"textDocument", {{"uri", view}}},
                       {"range",
                        {{"start", {{"line", 0}, {"character", 0}}},
                         {"end", {{"line", 0}, {"character", 0}}}}},
                       {"context", {{"diagnostics", Json::array()}}}});
  ASSERT_FALSE(actions["result"].empty()) << actions.dump();
  EXPECT_EQ(actions["result"][0]["command"]["command"], "hlo.convertToText");
  for (const Json& a : actions["result"]) {
    EXPECT_EQ(a["command"]["arguments"][0]["uri"], pb) << a.dump();
  }
  // A command given the view's URI acts on the proto too.
  Json replay = Command(h, "hlo.replay", {{"uri", view}});
  ASSERT_TRUE(replay["result"].contains("id")) << replay.dump();
  Json r = Call(h, "hlo/replayResult", {{"id", replay["result"]["id"]}});
  EXPECT_EQ(r["result"]["outcome"], "ok") << r.dump();
  EXPECT_EQ(r["result"]["uri"], pb);
}

TEST_F(WorkspaceTest, SearchCommandReturnsContractObjects) {
  ServerHarness h(NoCache());
  Start(h, Json::object());
  ASSERT_FALSE(SymbolsEventually(h, "helper").empty());
  Json r = Command(h, "hlo.search", {{"query", "kind:computation helper"}});
  ASSERT_TRUE(r["result"].is_array()) << r.dump();
  ASSERT_FALSE(r["result"].empty());
  const Json& hit = r["result"][0];
  for (const char* key :
       {"path", "line", "col", "kind", "name", "module", "opcode", "shape"}) {
    EXPECT_TRUE(hit.contains(key)) << key;
  }
  EXPECT_EQ(hit["name"], "helper");
  EXPECT_EQ(hit["kind"], "computation");
  EXPECT_EQ(hit["path"],
            (dir_ / "module_0001.foo.before_optimizations.txt").string());
  Json bad = Command(h, "hlo.search", {{"query", "/[/"}});
  EXPECT_TRUE(bad.contains("error"));
}

TEST_F(WorkspaceTest, BadArgumentsAreErrorsNotCrashes) {
  ServerHarness h(NoCache());
  Start(h, Json::object());
  for (const Json& params :
       {Json{{"command", "hlo.replay"}},
        Json{{"command", "hlo.exportProto"}, {"arguments", 3}},
        Json{{"command", "hlo.convertToText"},
             {"arguments", {"file:///nope.pb"}}},
        Json{{"command", "hlo.search"}, {"arguments", {Json::object()}}},
        Json{{"command", "hlo.nope"}, {"arguments", {Json::object()}}},
        Json{{"command", 7}}}) {
    Json r = Call(h, "workspace/executeCommand", params);
    EXPECT_TRUE(r.contains("error")) << params.dump() << " -> " << r.dump();
  }
  EXPECT_TRUE(Call(h, "hlo/replayResult", {{"id", "x"}}).contains("error"));
  EXPECT_TRUE(Call(h, "hlo/protoToText", {{"uri", Uri("missing.pb")}})
                  .contains("error"));
  EXPECT_TRUE(Call(h, "hlo/protoToText", {{"uri", 5}}).contains("error"));
  EXPECT_TRUE(Call(h, "hlo/moduleFiles", Json::object()).contains("error"));
  Json replay = Command(h, "hlo.replay",
                        {{"uri", Uri("missing.txt")}, {"platform", "cpu"}});
  EXPECT_TRUE(replay.contains("error")) << replay.dump();
  // A file outside the index still lists itself.
  Write("loose.hlo",
        "HloModule loose\n\nENTRY %e () -> f32[] {\n  ROOT %c = f32[] "
        "constant(1)\n}\n");
  Json loose = Call(h, "hlo/moduleFiles", {{"uri", Uri("loose.hlo")}});
  ASSERT_EQ(loose["result"].size(), 1u) << loose.dump();
  EXPECT_EQ(loose["result"][0]["uri"], Uri("loose.hlo"));
  // The server still answers, with the whole module at once: the list
  // comes from the folder, not from an index still being built.
  Json files = Call(h, "hlo/moduleFiles",
                    {{"uri", Uri("module_0001.foo.after_optimizations.txt")}});
  EXPECT_EQ(files["result"].size(), 2u);
}

}  // namespace
}  // namespace hlo_lsp
