// The editor's verifier over the protocol: relatedInformation on published
// diagnostics, and the hlo.verify setting (initializationOptions and
// workspace/didChangeConfiguration) choosing what is published.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/server/server_harness.h"

namespace hlo_lsp {
namespace {

using ::testing::Contains;

constexpr char kVerifySettingUri[] = "file:///verify/test.hlo";

// Valid for the file's own choice (real dumps mix precisions); XLA's
// verifier defaults reject the bf16 operand of an f32 add.
constexpr char kMixed[] = R"(HloModule m

ENTRY e {
  x = f32[4] parameter(0)
  y = bf16[4] parameter(1)
  ROOT z = f32[4] add(x, y)
}
)";

constexpr char kMixedMessage[] =
    "Seen floating point types of different precisions in z, but mixed "
    "precision is disallowed.";

void VerifySettingOpen(ServerHarness& h, const std::string& text) {
  h.Notify("textDocument/didOpen", {{"textDocument",
                                     {{"uri", kVerifySettingUri},
                                      {"languageId", "hlo"},
                                      {"version", 1},
                                      {"text", text}}}});
}

size_t PublishCount(ServerHarness& h) {
  size_t n = 0;
  for (const Json& m : h.Received()) {
    n += m.is_object() &&
         m.value("method", "") == "textDocument/publishDiagnostics" &&
         m["params"].value("uri", "") == kVerifySettingUri;
  }
  return n;
}

// The diagnostics of the (n+1)-th publish for kVerifySettingUri; null after a
// timeout.
Json NthDiagnostics(ServerHarness& h, size_t n) {
  Json found;
  h.WaitUntil([&](const std::vector<Json>& all) {
    size_t seen = 0;
    for (const Json& m : all) {
      if (m.is_object() &&
          m.value("method", "") == "textDocument/publishDiagnostics" &&
          m["params"].value("uri", "") == kVerifySettingUri && seen++ == n) {
        found = m["params"]["diagnostics"];
        return true;
      }
    }
    return false;
  });
  return found;
}

std::vector<std::string> Messages(const Json& diagnostics) {
  std::vector<std::string> out;
  for (const Json& d : diagnostics) out.push_back(d["message"]);
  return out;
}

// Changes the setting and returns the diagnostics published after it.
Json Configure(ServerHarness& h, Json verify) {
  const size_t before = PublishCount(h);
  h.Notify("workspace/didChangeConfiguration",
           {{"settings", {{"hlo", {{"verify", verify}}}}}});
  return NthDiagnostics(h, before);
}

Json RangeOf(int line, int begin, int end) {
  return {{"start", {{"line", line}, {"character", begin}}},
          {"end", {{"line", line}, {"character", end}}}};
}

TEST(VerifySettingTest, DiagnosticsCarryRelatedInformation) {
  ServerHarness h;
  h.Initialize();
  VerifySettingOpen(h, R"(HloModule m

f {
  a = f32[] parameter(0)
  ROOT b = f32[] negate(a)
}

ENTRY e {
  p = f32[4] parameter(0)
  ROOT c = f32[] call(p), to_apply=f
}
)");
  Json diagnostics = NthDiagnostics(h, 0);
  ASSERT_EQ(diagnostics.size(), 1u) << diagnostics.dump();
  const Json& d = diagnostics[0];
  EXPECT_EQ(d["range"], RangeOf(9, 22, 23));  // the operand p
  ASSERT_TRUE(d.contains("relatedInformation")) << d.dump();
  ASSERT_EQ(d["relatedInformation"].size(), 1u);
  const Json& related = d["relatedInformation"][0];
  EXPECT_EQ(related["location"]["uri"], kVerifySettingUri);
  EXPECT_EQ(related["location"]["range"], RangeOf(3, 2, 3));  // parameter a
  EXPECT_EQ(related["message"], "parameter 0 of f");
}

TEST(VerifySettingTest, DiagnosticsWithoutAnotherSideHaveNoRelated) {
  ServerHarness h;
  h.Initialize();
  VerifySettingOpen(h,
                    "HloModule m\n\nENTRY e {\n  p = f32[] parameter(0)\n"
                    "  ROOT n = f32[] negate(p, p)\n}\n");
  Json diagnostics = NthDiagnostics(h, 0);
  ASSERT_EQ(diagnostics.size(), 1u) << diagnostics.dump();
  EXPECT_FALSE(diagnostics[0].contains("relatedInformation"));
}

TEST(VerifySettingTest, SwitchingTheSettingChangesThePublishedDiagnostics) {
  ServerHarness h;
  h.Initialize();
  VerifySettingOpen(h, kMixed);
  // auto (the default): the file's choice allows mixed precision.
  EXPECT_TRUE(NthDiagnostics(h, 0).empty());
  // XLA's defaults plus layout_sensitive, as --verify=layout_sensitive.
  EXPECT_THAT(Messages(Configure(h, Json::array({"layout_sensitive"}))),
              Contains(std::string(kMixedMessage)));
  EXPECT_TRUE(Configure(h, "off").empty());
  EXPECT_THAT(Messages(Configure(h, "default")),
              Contains(std::string(kMixedMessage)));
  EXPECT_TRUE(Configure(h, "auto").empty());
  // The same with allow_mixed_precision named, as a comma list.
  EXPECT_TRUE(Configure(h, "layout_sensitive,allow_mixed_precision").empty());
}

TEST(VerifySettingTest, AnUnknownOptionKeepsTheLastSetting) {
  ServerHarness h;
  h.Initialize();
  VerifySettingOpen(h, kMixed);
  EXPECT_TRUE(NthDiagnostics(h, 0).empty());
  EXPECT_THAT(Messages(Configure(h, "default")),
              Contains(std::string(kMixedMessage)));
  const size_t before = PublishCount(h);
  h.Notify("workspace/didChangeConfiguration",
           {{"settings", {{"hlo", {{"verify", "no_such_option"}}}}}});
  // An edit publishes again, still with the last good setting.
  h.Notify("textDocument/didChange",
           {{"textDocument", {{"uri", kVerifySettingUri}, {"version", 2}}},
            {"contentChanges", Json::array({{{"text", kMixed}}})}});
  EXPECT_THAT(Messages(NthDiagnostics(h, before)),
              Contains(std::string(kMixedMessage)));
}

TEST(VerifySettingTest, InitializationOptionsSetIt) {
  {
    ServerHarness h;
    h.Initialize(Json::object(), {{"verify", "default"}});
    VerifySettingOpen(h, kMixed);
    EXPECT_THAT(Messages(NthDiagnostics(h, 0)),
                Contains(std::string(kMixedMessage)));
  }
  {
    // "off" leaves the parser's own diagnostics.
    ServerHarness h;
    h.Initialize(Json::object(), {{"hlo", {{"verify", "off"}}}});
    VerifySettingOpen(
        h,
        "HloModule m\n\nENTRY e {\n  p = f32[] parameter(0)\n"
        "  ROOT n = f32[] negate(p, p)\n  ROOT x = f32[] negate(q)\n}\n");
    std::vector<std::string> messages = Messages(NthDiagnostics(h, 0));
    EXPECT_EQ(messages,
              (std::vector<std::string>{"more than one ROOT in the computation",
                                        "use of undefined value 'q'"}));
  }
}

std::string ReadSource(const std::string& path) {
  std::ifstream in(std::string(HLO_LSP_SOURCE_DIR) + "/" + path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The VS Code extension declares the setting the server reads, with the
// server's default, and hands it over at start.
TEST(VerifySettingTest, VscodeDeclaresTheSetting) {
  Json package =
      Json::parse(ReadSource("editors/vscode/package.json"), nullptr, false);
  ASSERT_TRUE(package.is_object());
  const Json& properties =
      package["contributes"]["configuration"]["properties"];
  ASSERT_TRUE(properties.contains("hlo.verify")) << properties.dump();
  EXPECT_EQ(properties["hlo.verify"]["default"], "auto");
  EXPECT_EQ(properties["hlo.verify"]["type"], Json::array({"string", "array"}));
  EXPECT_NE(ReadSource("editors/vscode/src/extension.ts")
                .find("verify: vscode.workspace.getConfiguration('hlo')"),
            std::string::npos);
}

}  // namespace
}  // namespace hlo_lsp
