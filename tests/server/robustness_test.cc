// The protocol core under hostile or heavy traffic: the server answers
// every request exactly once and never dies.
#include <map>
#include <random>
#include <set>

#include "gtest/gtest.h"
#include "tests/server/server_harness.h"

namespace hlo_lsp {
namespace {

constexpr char kRobustnessUri[] = "file:///robustness/test.hlo";

std::string SmallModule() {
  return "HloModule m\n\n"
         "ENTRY %main (p: f32[4]) -> f32[4] {\n"
         "  %p = f32[4]{0} parameter(0)\n"
         "  ROOT %n = f32[4]{0} negate(f32[4]{0} %p)\n"
         "}\n";
}

// About `bytes` of valid HLO: many small computations and an entry.
std::string BigModule(size_t bytes) {
  std::string text = "HloModule big\n\n";
  int i = 0;
  while (text.size() < bytes) {
    std::string n = std::to_string(i++);
    text += "%c" + n + " (p: f32[4]) -> f32[4] {\n  %p" + n +
            " = f32[4]{0} parameter(0)\n  ROOT %n" + n +
            " = f32[4]{0} negate(f32[4]{0} %p" + n + ")\n}\n\n";
  }
  text +=
      "ENTRY %main (a: f32[4]) -> f32[4] {\n  %a = f32[4]{0} parameter(0)\n"
      "  ROOT %r = f32[4]{0} call(f32[4]{0} %a), to_apply=%c0\n}\n";
  return text;
}

Json Open(const std::string& text, int version = 1) {
  return Json{{"textDocument",
               {{"uri", kRobustnessUri},
                {"languageId", "hlo"},
                {"version", version},
                {"text", text}}}};
}

Json At(int line, int character) {
  return Json{{"textDocument", {{"uri", kRobustnessUri}}},
              {"position", {{"line", line}, {"character", character}}}};
}

int ErrorCodeOf(const Json& response) {
  if (!response.is_object() || !response.contains("error")) return 0;
  return response["error"].value("code", 0);
}

TEST(LifecycleTest, ShutdownThenExitIsZero) {
  ServerHarness h;
  Json init = h.Initialize();
  ASSERT_TRUE(init.contains("result")) << init;
  EXPECT_EQ(init["result"]["capabilities"]["positionEncoding"], "utf-16");
  h.Request(1, "shutdown", nullptr);
  EXPECT_EQ(h.Response(1)["result"], nullptr);
  h.Request(2, "textDocument/hover", At(0, 0));
  EXPECT_EQ(ErrorCodeOf(h.Response(2)),
            static_cast<int>(ErrorCode::kInvalidRequest));
  h.Notify("exit");
  EXPECT_EQ(h.ExitCode(), 0);
}

TEST(LifecycleTest, ExitWithoutShutdownIsOne) {
  ServerHarness h;
  h.Initialize();
  h.Notify("exit");
  EXPECT_EQ(h.ExitCode(), 1);
}

TEST(LifecycleTest, RequestsBeforeInitializeAreRefused) {
  ServerHarness h;
  h.Request(5, "textDocument/hover", At(0, 0));
  EXPECT_EQ(ErrorCodeOf(h.Response(5)),
            static_cast<int>(ErrorCode::kServerNotInitialized));
  Json init = h.Initialize(
      Json{{"general", {{"positionEncodings", {"utf-8", "utf-16"}}}}});
  EXPECT_EQ(init["result"]["capabilities"]["positionEncoding"], "utf-8");
  h.Request(6, "initialize", Json{{"capabilities", Json::object()}});
  EXPECT_EQ(ErrorCodeOf(h.Response(6)),
            static_cast<int>(ErrorCode::kInvalidRequest));
}

TEST(LifecycleTest, DisconnectMidMessageEndsCleanly) {
  ServerHarness h;
  h.Initialize();
  h.SendRaw("Content-Length: 500\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":1,\"meth");
  h.CloseInput();
  EXPECT_EQ(h.ExitCode(), 1);
}

TEST(RobustnessTest, GarbageFramesGetErrorsAndTheServerCarriesOn) {
  ServerHarness h;
  h.Initialize();
  h.Notify("textDocument/didOpen", Open(SmallModule()));
  h.SendRaw("Content-Length: 7\r\n\r\n{\"a\":1");  // truncated JSON in a frame
  h.SendRaw("Content-Length: 3\r\n\r\n\xff\xfe\x00");  // not UTF-8, not JSON
  h.SendRaw("Content-Length: nope\r\n\r\n");           // bad header
  h.SendRaw("Content-Length: 2\r\n\r\n[]");            // not an object
  h.SendRaw("Content-Length: 4\r\n\r\nnull");
  h.Send(Json{{"jsonrpc", "2.0"}, {"id", {1, 2}}, {"method", "x"}});  // bad id
  h.Send(Json{{"jsonrpc", "2.0"}, {"id", 3}, {"method", 42}});
  h.Request(4, "no/such/method");
  h.Request(5, "textDocument/hover", Json{{"textDocument", 1}});
  h.Request(6, "textDocument/definition",
            Json{{"textDocument", {{"uri", kRobustnessUri}}},
                 {"position", {{"line", -3}, {"character", "x"}}}});
  h.Notify("textDocument/didChange", Json{{"textDocument", 7}});  // ignored
  h.Notify("textDocument/didChange",
           Json{{"textDocument", {{"uri", kRobustnessUri}, {"version", 2}}},
                {"contentChanges",
                 {{{"range",
                    {{"start", {{"line", 99}, {"character", 99}}},
                     {"end", {{"line", 0}, {"character", 0}}}}},
                   {"text", ""}}}}});
  h.Request(7, "textDocument/hover", At(3, 10));
  EXPECT_EQ(ErrorCodeOf(h.Response(3)),
            static_cast<int>(ErrorCode::kInvalidRequest));
  EXPECT_EQ(ErrorCodeOf(h.Response(4)),
            static_cast<int>(ErrorCode::kMethodNotFound));
  EXPECT_EQ(ErrorCodeOf(h.Response(5)),
            static_cast<int>(ErrorCode::kInvalidParams));
  EXPECT_EQ(ErrorCodeOf(h.Response(6)),
            static_cast<int>(ErrorCode::kInvalidParams));
  Json last = h.Response(7);
  ASSERT_TRUE(last.is_object());
  EXPECT_EQ(ErrorCodeOf(last), 0) << last;
  int parse_errors = 0, invalid = 0;
  for (const Json& m : h.Received()) {
    if (m.is_object() && m.contains("id") && m["id"].is_null()) {
      parse_errors +=
          ErrorCodeOf(m) == static_cast<int>(ErrorCode::kParseError);
      invalid += ErrorCodeOf(m) == static_cast<int>(ErrorCode::kInvalidRequest);
    }
  }
  EXPECT_EQ(parse_errors, 3);
  EXPECT_EQ(invalid, 3);  // [], null, bad id
  h.Request(8, "shutdown", nullptr);
  h.Notify("exit");
  EXPECT_EQ(h.ExitCode(), 0);
}

TEST(RobustnessTest, RandomBytesNeverKillTheServer) {
  ServerHarness h;
  h.Initialize();
  std::mt19937 rng(42);
  for (int i = 0; i < 200; ++i) {
    std::string junk(rng() % 200, '\0');
    for (char& c : junk) c = static_cast<char>(rng());
    if (i % 3 == 0) {
      h.SendRaw("Content-Length: " + std::to_string(junk.size()) + "\r\n\r\n" +
                junk);
    } else {
      h.SendRaw(junk + "\r\n\r\n");
    }
  }
  // Resynchronize: a well-formed frame after a blank line is read again.
  for (int id = 100; id < 110; ++id) h.Request(id, "shutdown", nullptr);
  bool any = false;
  for (int id = 100; id < 110 && !any; ++id)
    any = h.Response(id, 5000).is_object();
  EXPECT_TRUE(any);
  h.CloseInput();
  EXPECT_GE(h.ExitCode(), 0);
}

TEST(RobustnessTest, TenThousandPipelinedRequests) {
  ServerHarness h;
  h.Initialize();
  h.Notify("textDocument/didOpen", Open(SmallModule()));
  constexpr int kCount = 10000;
  std::string batch;
  for (int id = 1; id <= kCount; ++id) {
    std::string body = Json{
        {"jsonrpc", "2.0"},
        {"id", id},
        {"method", id % 2 ? "textDocument/hover" : "textDocument/definition"},
        {"params",
         At(4, 31)}}.dump();
    batch +=
        "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  }
  h.SendRaw(batch);
  ASSERT_TRUE(h.WaitUntil(
      [&](const std::vector<Json>& all) {
        int n = 0;
        for (const Json& m : all)
          n += m.is_object() && m.contains("id") && m["id"].is_number() &&
               m["id"] != 0;
        return n >= kCount;
      },
      120000));
  std::set<int64_t> ids;
  for (const Json& m : h.Received()) {
    if (!m.is_object() || !m.contains("id") || !m["id"].is_number() ||
        m["id"] == 0)
      continue;
    EXPECT_TRUE(ids.insert(m["id"].get<int64_t>()).second)
        << "two replies to " << m["id"];
    EXPECT_EQ(ErrorCodeOf(m), 0) << m;
  }
  EXPECT_EQ(ids.size(), static_cast<size_t>(kCount));
}

TEST(RobustnessTest, ThousandCancellations) {
  ServerHarness h(LspServer::Options{2, 1});
  h.Initialize();
  h.Notify("textDocument/didOpen", Open(BigModule(1 << 20)));
  constexpr int kCount = 1000;
  for (int id = 1; id <= kCount; ++id) {
    h.Request(
        id, id % 2 ? "textDocument/documentSymbol" : "textDocument/hover",
        id % 2 ? Json{{"textDocument", {{"uri", kRobustnessUri}}}} : At(3, 5));
    h.Notify("$/cancelRequest", Json{{"id", id}});
  }
  h.Notify("$/cancelRequest", Json{{"id", 123456}});  // unknown: ignored
  ASSERT_TRUE(h.WaitUntil(
      [&](const std::vector<Json>& all) {
        int n = 0;
        for (const Json& m : all)
          n += m.is_object() && m.contains("id") && m["id"].is_number() &&
               m["id"] != 0;
        return n >= kCount;
      },
      120000));
  std::map<int64_t, int> replies;
  int cancelled = 0;
  for (const Json& m : h.Received()) {
    if (!m.is_object() || !m.contains("id") || !m["id"].is_number() ||
        m["id"] == 0)
      continue;
    ++replies[m["id"].get<int64_t>()];
    int code = ErrorCodeOf(m);
    EXPECT_TRUE(code == 0 ||
                code == static_cast<int>(ErrorCode::kRequestCancelled))
        << m;
    cancelled += code != 0;
  }
  EXPECT_EQ(replies.size(), static_cast<size_t>(kCount));
  for (auto [id, n] : replies) EXPECT_EQ(n, 1) << id;
  EXPECT_GT(cancelled, kCount / 2);  // most were cancelled before they ran
}

TEST(RobustnessTest, HundredEditsASecondOnTenMegabytes) {
  ServerHarness h;
  h.Initialize(Json{{"general", {{"positionEncodings", {"utf-8"}}}}});
  std::string text = BigModule(10 << 20);
  h.Notify("textDocument/didOpen", Open(text));
  int next_id = 1;
  std::vector<int> ids;
  auto start = std::chrono::steady_clock::now();
  for (int edit = 0; edit < 200; ++edit) {
    // Insert then delete two spaces at the start of line 3: the text stays
    // valid.
    bool insert = edit % 2 == 0;
    Json change = insert ? Json{{"range",
                                 {{"start", {{"line", 3}, {"character", 0}}},
                                  {"end", {{"line", 3}, {"character", 0}}}}},
                                {"text", "  "}}
                         : Json{{"range",
                                 {{"start", {{"line", 3}, {"character", 0}}},
                                  {"end", {{"line", 3}, {"character", 2}}}}},
                                {"text", ""}};
    h.Notify(
        "textDocument/didChange",
        Json{{"textDocument", {{"uri", kRobustnessUri}, {"version", edit + 2}}},
             {"contentChanges", {change}}});
    ids.push_back(next_id);
    h.Request(next_id++, "textDocument/hover", At(3, 5));
    if (edit % 50 == 0) {
      ids.push_back(next_id);
      h.Request(next_id++, "textDocument/documentSymbol",
                Json{{"textDocument", {{"uri", kRobustnessUri}}}});
    }
    std::this_thread::sleep_until(start +
                                  std::chrono::milliseconds(10 * (edit + 1)));
  }
  // After the burst, a request sees the final text and gets a real answer.
  int final_id = next_id++;
  h.Request(final_id, "textDocument/definition", At(3, 30));
  Json final_reply = h.Response(final_id, 120000);
  ASSERT_TRUE(final_reply.is_object());
  EXPECT_EQ(ErrorCodeOf(final_reply), 0) << final_reply.dump().substr(0, 300);
  int modified = 0;
  for (int id : ids) {
    Json r = h.Response(id, 120000);
    ASSERT_TRUE(r.is_object()) << "lost reply " << id;
    int code = ErrorCodeOf(r);
    EXPECT_TRUE(code == 0 ||
                code == static_cast<int>(ErrorCode::kContentModified))
        << r;
    modified += code != 0;
  }
  // Diagnostics arrive for the last version: the burst was coalesced.
  EXPECT_TRUE(h.WaitUntil(
      [&](const std::vector<Json>& all) {
        for (const Json& m : all) {
          if (m.is_object() &&
              m.value("method", "") == "textDocument/publishDiagnostics" &&
              m["params"].value("version", 0) == 201) {
            return true;
          }
        }
        return false;
      },
      120000));
  int published = 0;
  for (const Json& m : h.Received()) {
    published += m.is_object() &&
                 m.value("method", "") == "textDocument/publishDiagnostics";
  }
  EXPECT_LT(published, 200);
  std::printf(
      "edits: 200, requests: %zu, content-modified: %d, diagnostics published: "
      "%d\n",
      ids.size(), modified, published);
  h.Request(next_id, "shutdown", nullptr);
  h.Notify("exit");
  EXPECT_EQ(h.ExitCode(), 0);
}

}  // namespace
}  // namespace hlo_lsp
