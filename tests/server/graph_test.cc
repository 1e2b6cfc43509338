// hlo.graph {uri, name?, depth?}: the SVG of an open document's ENTRY (its
// current text, not the disk's), a neighbourhood, node lines an editor can
// jump to, and errors for a bad name or arguments.
#include <gtest/gtest.h>

#include <string>

#include "tests/server/server_harness.h"

namespace hlo_lsp {
namespace {

constexpr char kUri[] = "file:///nowhere/graph_test.hlo";  // never on disk

constexpr char kGraphModule[] = R"(HloModule m

%sum (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %c = f32[] add(f32[] %a, f32[] %b)
}

ENTRY %main (p: f32[4]) -> f32[] {
  %p = f32[4]{0} parameter(0)
  %n = f32[4]{0} negate(f32[4]{0} %p)
  %e = f32[4]{0} exponential(f32[4]{0} %n)
  %zero = f32[] constant(0)
  ROOT %r = f32[] reduce(f32[4]{0} %e, f32[] %zero), dimensions={0}, to_apply=%sum
}
)";

class GraphCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    h_.Initialize();
    h_.Notify("initialized");
    h_.Notify("textDocument/didOpen", {{"textDocument",
                                        {{"uri", kUri},
                                         {"languageId", "hlo"},
                                         {"version", 1},
                                         {"text", kGraphModule}}}});
  }
  // name -> line of the reply's nodes.
  static std::map<std::string, int64_t> Lines(const Json& result) {
    std::map<std::string, int64_t> lines;
    for (const Json& node : result["nodes"]) {
      lines[node["name"].get<std::string>()] = node["line"].get<int64_t>();
    }
    return lines;
  }
  ServerHarness h_;
};

TEST_F(GraphCommandTest, EntryOfTheOpenDocument) {
  Json r = h_.Command("hlo.graph", {{"uri", kUri}});
  ASSERT_TRUE(r["result"].is_object()) << r.dump();
  const Json& result = r["result"];
  std::string svg = result["svg"];
  EXPECT_NE(svg.find("<svg"), std::string::npos);
  EXPECT_NE(svg.find("id=\"node_n\""), std::string::npos);
  EXPECT_NE(svg.find("id=\"computation_sum\""), std::string::npos);
  EXPECT_EQ(result["cut"], false);
  std::map<std::string, int64_t> lines = Lines(result);
  EXPECT_EQ(lines.size(), 6u);  // five instructions and %sum
  EXPECT_EQ(lines["p"], 10);    // 1-based, as the CLI
  EXPECT_EQ(lines["r"], 14);
  EXPECT_EQ(lines["sum"], 3);
}

TEST_F(GraphCommandTest, NeighbourhoodOfAName) {
  Json r =
      h_.Command("hlo.graph", {{"uri", kUri}, {"name", "%n"}, {"depth", 1}});
  ASSERT_TRUE(r["result"].is_object()) << r.dump();
  std::map<std::string, int64_t> lines = Lines(r["result"]);
  EXPECT_EQ(lines.size(), 3u) << r.dump();  // p, n, e
  EXPECT_TRUE(lines.count("p") && lines.count("n") && lines.count("e"));
  // A name in another computation draws that computation.
  r = h_.Command("hlo.graph", {{"uri", kUri}, {"name", "c"}, {"depth", 0}});
  ASSERT_TRUE(r["result"].is_object()) << r.dump();
  EXPECT_EQ(Lines(r["result"]).size(), 1u);
}

TEST_F(GraphCommandTest, Errors) {
  Json r = h_.Command("hlo.graph", {{"uri", kUri}, {"name", "nosuch"}});
  EXPECT_TRUE(r.contains("error")) << r.dump();
  r = h_.Command("hlo.graph", {{"uri", kUri}, {"depth", -1}});
  EXPECT_TRUE(r.contains("error")) << r.dump();
  r = h_.Command("hlo.graph", Json::object());
  EXPECT_TRUE(r.contains("error")) << r.dump();
}

}  // namespace
}  // namespace hlo_lsp
