#include "server/protocol.h"

#include "gtest/gtest.h"
#include "server/documents.h"

namespace hlo_lsp {
namespace {

Json Parse(const char* text) { return Json::parse(text, nullptr, false); }

TEST(ProtocolTest, DecodesPositionParams) {
  TextDocumentPositionParams p;
  std::string error;
  ASSERT_TRUE(FromJson(
      Parse(
          R"({"textDocument":{"uri":"file:///a"},"position":{"line":3,"character":7}})"),
      &p, &error))
      << error;
  EXPECT_EQ(p.uri, "file:///a");
  EXPECT_EQ(p.position, (Position{3, 7}));
}

TEST(ProtocolTest, RejectsWrongShapesWithoutThrowing) {
  std::string error;
  TextDocumentPositionParams p;
  for (
      const char* bad : {
          "null",
          "[]",
          "42",
          R"({"textDocument":{}})",
          R"({"textDocument":{"uri":5},"position":{"line":0,"character":0}})",
          R"({"textDocument":{"uri":"u"},"position":{"line":-1,"character":0}})",
          R"({"textDocument":{"uri":"u"},"position":{"line":"1","character":0}})",
          R"({"textDocument":{"uri":"u"},"position":[1,2]})",
      }) {
    EXPECT_FALSE(FromJson(Parse(bad), &p, &error)) << bad;
    EXPECT_FALSE(error.empty());
  }
  DidChangeParams c;
  EXPECT_FALSE(
      FromJson(Parse(R"({"textDocument":{"uri":"u"},"contentChanges":{}})"), &c,
               &error));
  EXPECT_FALSE(FromJson(
      Parse(R"({"textDocument":{"uri":"u"},"contentChanges":[{"range":{}}]})"),
      &c, &error));
}

TEST(ProtocolTest, HugeNumbersClamp) {
  Position p;
  std::string error;
  ASSERT_TRUE(FromJson(
      Parse(R"({"line":99999999999999,"character":18446744073709551615})"), &p,
      &error));
  EXPECT_EQ(p.line, 0xffffffffu);
  EXPECT_EQ(p.character, 0xffffffffu);
}

TEST(ProtocolTest, InitializeParams) {
  InitializeParams p;
  std::string error;
  ASSERT_TRUE(FromJson(
      Parse(
          R"({"capabilities":{"general":{"positionEncodings":["utf-16","utf-8"]}},
      "trace":"verbose","initializationOptions":{"inlayHints":false}})"),
      &p, &error));
  EXPECT_EQ(p.position_encodings.size(), 2u);
  EXPECT_EQ(p.trace, "verbose");
  ASSERT_TRUE(p.inlay_hints.has_value());
  EXPECT_FALSE(*p.inlay_hints);
  EXPECT_EQ(
      InlayHintSetting(Parse(R"({"hlo":{"inlayHints":{"enabled":true}}})")),
      true);
  EXPECT_FALSE(InlayHintSetting(Parse(R"({"other":1})")).has_value());
}

TEST(ProtocolTest, EncodesSymbols) {
  DocumentSymbol s{"main",           "ENTRY",           SymbolKind::kFunction,
                   {{0, 0}, {2, 1}}, {{0, 6}, {0, 10}}, {}};
  s.children.push_back(
      DocumentSymbol{"x", "", SymbolKind::kVariable, {}, {}, {}});
  Json j = ToJson(s);
  EXPECT_EQ(j["name"], "main");
  EXPECT_EQ(j["kind"], 12);
  EXPECT_EQ(j["children"][0]["name"], "x");
  EXPECT_FALSE(j["children"][0].contains("detail"));
}

TEST(ApplyChangeTest, Utf16AndUtf8Columns) {
  // "é" is 2 UTF-8 bytes and 1 UTF-16 unit; "😀" is 4 bytes, 2 units.
  std::string text = "a\xc3\xa9\xf0\x9f\x98\x80z\nline2";
  std::string t16 = text;
  ApplyChange(&t16, ContentChange{Range{{0, 4}, {0, 5}}, "Z"},
              hlo::ColumnUnit::kUtf16CodeUnits);
  EXPECT_EQ(t16, "a\xc3\xa9\xf0\x9f\x98\x80Z\nline2");
  std::string t8 = text;
  ApplyChange(&t8, ContentChange{Range{{0, 7}, {0, 8}}, "Q"},
              hlo::ColumnUnit::kUtf8Bytes);
  EXPECT_EQ(t8, "a\xc3\xa9\xf0\x9f\x98\x80Q\nline2");
  // Out-of-range positions clamp; reversed ranges are ordered.
  std::string t = "abc\ndef";
  ApplyChange(&t, ContentChange{Range{{9, 9}, {1, 1}}, "!"},
              hlo::ColumnUnit::kUtf16CodeUnits);
  EXPECT_EQ(t, "abc\nd!");
  ApplyChange(&t, ContentChange{std::nullopt, "new"},
              hlo::ColumnUnit::kUtf8Bytes);
  EXPECT_EQ(t, "new");
}

TEST(UriTest, FileUris) {
  EXPECT_EQ(UriToPath("file:///tmp/a%20b.hlo"), "/tmp/a b.hlo");
  EXPECT_EQ(UriToPath("file://localhost/x"), "/x");
  EXPECT_EQ(UriToPath("untitled:1"), "");
  EXPECT_EQ(UriToPath("file://host/x"), "");
  EXPECT_EQ(UriToPath("file:///a%00b"), "");
  EXPECT_EQ(UriToPath("file:///a%"), "/a%");
  EXPECT_EQ(PathToUri("/tmp/a b#.hlo"), "file:///tmp/a%20b%23.hlo");
  EXPECT_EQ(UriToPath(PathToUri("/x/y z/é")), "/x/y z/é");
}

// VS Code's text view of a proto: hlo-proto:/dir/X.txt?<file URI, encoded>.
TEST(UriTest, ProtoViewSource) {
  EXPECT_EQ(
      ProtoViewSource("hlo-proto:/d/x.txt?file%3A%2F%2F%2Fd%2Fa%2520b.pb"),
      "file:///d/a%20b.pb");
  EXPECT_EQ(ProtoViewSource("hlo-proto:/d/x.txt?file:///d/x.pb#frag"),
            "file:///d/x.pb");
  // Anything else, or a view whose query is no file URI, stays as it is.
  for (const char* uri : {"file:///d/x.pb", "untitled:1", "hlo-proto:/d/x.txt",
                          "hlo-proto:/d/x.txt?", "hlo-proto:/x?%",
                          "hlo-proto:/x?%4", "hlo-proto:/x?untitled%3A1"}) {
    EXPECT_EQ(ProtoViewSource(uri), uri);
  }
}

}  // namespace
}  // namespace hlo_lsp

namespace hlo_lsp {
namespace {

TEST(ExtractStringFieldTest, MatchesTheJsonParser) {
  std::string text =
      "line \"one\"\n\ttab \\ back / slash \x01 é 😀 \xe2\x82\xac end";
  Json message{{"jsonrpc", "2.0"},
               {"method", "textDocument/didOpen"},
               {"params",
                {{"textDocument",
                  {{"uri", "file:///text.hlo"},
                   {"languageId", "text"},
                   {"version", 1},
                   {"text", text}}}}}};
  for (bool ascii : {false, true}) {
    // ensure_ascii writes \uXXXX escapes, surrogate pairs included.
    std::string body = message.dump(-1, ' ', ascii);
    std::string rest, value;
    ASSERT_TRUE(ExtractStringField(body, "text", &rest, &value)) << body;
    EXPECT_EQ(value, text);
    Json parsed = Json::parse(rest, nullptr, false);
    ASSERT_FALSE(parsed.is_discarded()) << rest;
    EXPECT_EQ(parsed["params"]["textDocument"]["text"], "");
    EXPECT_EQ(parsed["params"]["textDocument"]["languageId"], "text");
  }
}

TEST(ExtractStringFieldTest, RejectsMalformed) {
  std::string rest, value;
  EXPECT_FALSE(ExtractStringField(R"({"text": 5})", "text", &rest, &value));
  EXPECT_FALSE(ExtractStringField(R"({"text":"abc)", "text", &rest, &value));
  EXPECT_FALSE(ExtractStringField(R"({"text":"a\qb"})", "text", &rest, &value));
  EXPECT_FALSE(
      ExtractStringField(R"({"text":"a\u12"})", "text", &rest, &value));
  EXPECT_FALSE(ExtractStringField(R"({"other":"x"})", "text", &rest, &value));
  ASSERT_TRUE(ExtractStringField(R"({"a":"text","text" : "\ud800x"})", "text",
                                 &rest, &value));
  EXPECT_EQ(value, "\xef\xbf\xbdx");  // a lone surrogate becomes U+FFFD
  EXPECT_EQ(rest, R"({"a":"text","text" : ""})");
}

}  // namespace
}  // namespace hlo_lsp
