// The DOM-free JSON writer against nlohmann's dump (what the rest of the
// protocol layer writes): the same bytes for odd names and paths, invalid
// UTF-8 included, and the same values once parsed for whole replies.
#include "server/json_writer.h"

#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "server/json_rpc.h"
#include "server/protocol_workspace.h"

namespace hlo_lsp {
namespace {

std::string Nlohmann(const std::string& s) {
  return Json(s).dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string Ours(const std::string& s) {
  std::string out;
  JsonWriter(&out).String(s);
  return out;
}

TEST(JsonWriterTest, StringsAreEscapedAsNlohmannEscapesThem) {
  std::vector<std::string> odd = {
      "",
      "plain.name_1",
      "quote\" backslash\\ slash/",
      "C:\\dumps\\module 0001 (copy)%20.txt",
      "/tmp/dir with spaces/x#y?z.hlo",
      "tab\there\nnewline\rcr\bback\fform",
      std::string("nul\0mid", 7),
      "\x01\x1f\x7f",
      "caf\xc3\xa9 \xe2\x80\xa8 \xf0\x9f\x98\x80",  // é, U+2028, an emoji
      "\x80",                                       // a lone continuation
      "\xc0\xaf",                                   // overlong '/'
      "\xed\xa0\x80",                               // a surrogate
      "\xf4\x90\x80\x80",                           // over U+10FFFF
      "\xe2\x82",                                   // cut short at the end
      "\xe2\x82x",                                  // cut short by ASCII
      "\xf0\x9f\x98",                               // 3 of 4 bytes
      "\xff\xfe",
      "a\xe2\x28\xa1z",
  };
  for (const std::string& s : odd) EXPECT_EQ(Ours(s), Nlohmann(s)) << s;
}

TEST(JsonWriterTest, RandomBytesMatchNlohmann) {
  std::mt19937 rng(23);
  // Bytes biased to the interesting ranges: controls, ASCII, UTF-8 leads.
  static constexpr char kBytes[] =
      "\x00\x08\x1f\"\\/aZ~\x7f\x80\x8f\x9f\xa0\xbf\xc0\xc2\xdf\xe0\xe1\xed"
      "\xef\xf0\xf4\xf5\xff";
  const std::string alphabet(kBytes, sizeof(kBytes) - 1);  // NUL included
  std::uniform_int_distribution<size_t> pick(0, alphabet.size() - 1);
  std::uniform_int_distribution<int> length(0, 12);
  for (int i = 0; i < 20000; ++i) {
    std::string s;
    for (int n = length(rng); n > 0; --n) s.push_back(alphabet[pick(rng)]);
    ASSERT_EQ(Ours(s), Nlohmann(s)) << ::testing::PrintToString(s);
  }
}

TEST(JsonWriterTest, NestingAndCommas) {
  std::string out;
  JsonWriter w(&out);
  w.BeginObject().Key("a").BeginArray().Uint(1).Int(-2).Bool(true).Null();
  w.BeginObject().EndObject().BeginArray().EndArray().EndArray();
  w.Key("b").String("x").Key("raw").Raw("{\"k\":[1]}").EndObject();
  EXPECT_EQ(out, R"({"a":[1,-2,true,null,{},[]],"b":"x","raw":{"k":[1]}})");
}

TEST(JsonWriterTest, WorkspaceSymbolsParseAsTheDomWouldWriteThem) {
  WorkspaceSymbol full;
  full.name = "odd\"name\\\x01\xe2\x82";
  full.kind = 12;
  full.location = {"file:///tmp/a%20b/m%23.txt", {{2, 3}, {2, 9}}};
  full.container = "mod\tule";
  WorkspaceSymbol left;
  left.name = "p";
  left.location.uri = "file:///x.hlo";
  left.site = SymbolSite{7, 12, true};
  Json parsed = Json::parse(EncodeWorkspaceSymbols({full, left}).text);
  Json expected = Json::array(
      {{{"name", full.name},
        {"kind", 12},
        {"location",
         {{"uri", full.location.uri},
          {"range",
           {{"start", {{"line", 2}, {"character", 3}}},
            {"end", {{"line", 2}, {"character", 9}}}}}}},
        {"containerName", full.container}},
       {{"name", "p"},
        {"kind", 13},
        {"location", {{"uri", "file:///x.hlo"}}},
        {"data", {{"line", 7}, {"column", 12}, {"nonAscii", true}}}}});
  // The name's broken UTF-8 is replaced the same way on both sides.
  expected[0]["name"] = Json::parse(Nlohmann(full.name));
  EXPECT_EQ(parsed, expected) << parsed.dump();

  // workspaceSymbol/resolve's params decode back to the site.
  WorkspaceSymbol back;
  std::string error;
  ASSERT_TRUE(FromJson(parsed[1], &back, &error)) << error;
  ASSERT_TRUE(back.site.has_value());
  EXPECT_EQ(back.site->line, 7u);
  EXPECT_EQ(back.site->column, 12u);
  EXPECT_TRUE(back.site->non_ascii_prefix);
  EXPECT_EQ(back.location.uri, "file:///x.hlo");
  WorkspaceSymbol bad;
  EXPECT_FALSE(FromJson(Json{{"name", "p"}, {"location", {{"uri", "u"}}}}, &bad,
                        &error));
}

}  // namespace
}  // namespace hlo_lsp
