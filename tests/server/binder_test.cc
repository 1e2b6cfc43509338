// The typed protocol edge: params that do not decode answer -32602 with a
// message naming the field, for requests and for each command.
#include "server/binder.h"

#include <string>

#include "gtest/gtest.h"
#include "tests/server/server_harness.h"

namespace hlo_lsp {
namespace {

constexpr int kInvalidParams = -32602;

class BinderTest : public ::testing::Test {
 protected:
  static LspServer::Options NoCache() {
    LspServer::Options options;
    options.index_cache = false;
    return options;
  }
  Json Call(ServerHarness& h, const std::string& method, Json params) {
    h.Request(++id_, method, std::move(params));
    return h.Response(id_);
  }
  int64_t id_ = 100;
};

// The error of `reply`, checked to be invalid params naming `field`.
void ExpectInvalidField(const Json& reply, const std::string& field) {
  ASSERT_TRUE(reply.contains("error")) << reply.dump();
  EXPECT_EQ(reply["error"]["code"], kInvalidParams) << reply.dump();
  EXPECT_NE(
      reply["error"]["message"].get<std::string>().find("'" + field + "'"),
      std::string::npos)
      << reply.dump();
}

TEST_F(BinderTest, CommandArgumentOfTheWrongTypeNamesTheField) {
  ServerHarness h(NoCache());
  h.Initialize();
  ExpectInvalidField(
      Call(h, "workspace/executeCommand",
           {{"command", "hlo.replay"},
            {"arguments", {{{"uri", "file:///x.hlo"}, {"fakeData", "yes"}}}}}),
      "fakeData");
  ExpectInvalidField(
      Call(h, "workspace/executeCommand",
           {{"command", "hlo.compare"},
            {"arguments", {{{"uri", "file:///x.hlo"}, {"platforms", "gpu"}}}}}),
      "platforms");
  ExpectInvalidField(
      Call(h, "workspace/executeCommand",
           {{"command", "hlo.search"}, {"arguments", {{{"query", 3}}}}}),
      "query");
  ExpectInvalidField(Call(h, "hlo/protoToText", {{"uri", 5}}), "uri");
  ExpectInvalidField(Call(h, "hlo/replayResult", {{"id", "x"}}), "id");
}

TEST_F(BinderTest, RequestParamsOfTheWrongTypeNameTheField) {
  ServerHarness h(NoCache());
  h.Initialize();
  ExpectInvalidField(Call(h, "textDocument/hover",
                          {{"textDocument", {{"uri", "file:///x.hlo"}}},
                           {"position", {{"line", "zero"}, {"character", 0}}}}),
                     "line");
  ExpectInvalidField(
      Call(h, "textDocument/documentSymbol", {{"textDocument", {{"uri", 1}}}}),
      "uri");
  ExpectInvalidField(Call(h, "workspace/symbol", {{"query", false}}), "query");
}

TEST_F(BinderTest, UnknownCommandAndMethod) {
  ServerHarness h(NoCache());
  h.Initialize();
  Json unknown = Call(h, "workspace/executeCommand", {{"command", "hlo.nope"}});
  ASSERT_TRUE(unknown.contains("error"));
  EXPECT_EQ(unknown["error"]["code"], kInvalidParams);
  EXPECT_EQ(unknown["error"]["message"], "unknown command: hlo.nope");
  Json missing = Call(h, "hlo/nope", Json::object());
  ASSERT_TRUE(missing.contains("error"));
  EXPECT_EQ(missing["error"]["code"], -32601);
}

TEST_F(BinderTest, ServerInfoVersionComesFromTheBuild) {
  ServerHarness h(NoCache());
  Json init = h.Initialize();
  EXPECT_EQ(init["result"]["serverInfo"]["version"], HLO_LSP_VERSION)
      << init.dump();
  EXPECT_EQ(init["result"]["capabilities"]["executeCommandProvider"]["commands"]
                .size(),
            13u);  // the contract's commands (workspace_test names them)
}

// The encoders used for results: a vector of optionals and a null.
TEST(BinderEncodingTest, EncodesContainersAndNull) {
  EXPECT_EQ(ToJsonValue(Null{}), Json(nullptr));
  std::vector<std::optional<Position>> items = {Position{1, 2}, std::nullopt};
  EXPECT_EQ(ToJsonValue(items).dump(), R"([{"character":2,"line":1},null])");
}

}  // namespace
}  // namespace hlo_lsp
