// Every field of every command's arguments, given a value of the wrong JSON
// type, answers -32602 (invalid params) naming the field: never -32603, the
// internal error a decoder that read the value unchecked would give.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/server/server_harness.h"

namespace hlo_lsp {
namespace {

constexpr int kCommandArgsInvalidParams = -32602;

struct Field {
  std::string name;
  std::vector<Json> wrong;  // values of other types than the field's
};

TEST(CommandArgsTest, EveryWrongTypedFieldIsInvalidParams) {
  const std::vector<Json> not_string = {5, 1.5, true, Json::array(),
                                        Json::object()};
  const Field uri{"uri", not_string}, platform{"platform", not_string},
      snapshot{"snapshot", not_string}, query{"query", not_string},
      root{"root", not_string};
  const Field fake_data{"fakeData",
                        {"yes", "true", 1, Json::array(), Json::object()}};
  const Field platforms{
      "platforms",
      {"gpu", 5, true, Json::object(), Json::array({"gpu", 1}),
       Json::array({Json::object()})}};
  const std::vector<std::pair<std::string, std::vector<Field>>> commands = {
      {"hlo.convertToText", {uri}},
      {"hlo.exportProto", {uri}},
      {"hlo.moduleFiles", {uri}},
      {"hlo.replay", {uri, platform, snapshot, fake_data}},
      {"hlo.compare", {uri, platforms, snapshot, fake_data}},
      {"hlo.bisect", {uri, snapshot, fake_data}},
      {"hlo.search", {query, root}},
  };
  LspServer::Options options;
  options.index_cache = false;
  ServerHarness h(options);
  h.Initialize();
  int64_t id = 100;
  for (const auto& [command, fields] : commands) {
    for (const Field& field : fields) {
      for (const Json& value : field.wrong) {
        // Every other field well formed, so only `field` can be at fault.
        Json argument = {{"uri", "file:///nonexistent/x.hlo"}};
        argument[field.name] = value;
        h.Request(
            ++id, "workspace/executeCommand",
            {{"command", command}, {"arguments", Json::array({argument})}});
        const Json reply = h.Response(id);
        const std::string what = command + " " + argument.dump();
        ASSERT_TRUE(reply.contains("error")) << what << "\n" << reply.dump();
        EXPECT_EQ(reply["error"]["code"], kCommandArgsInvalidParams)
            << what << "\n"
            << reply.dump();
        EXPECT_NE(reply["error"]["message"].get<std::string>().find(
                      "'" + field.name + "'"),
                  std::string::npos)
            << what << "\n"
            << reply.dump();
      }
    }
  }
}

// The command's own fields: a `command` or `arguments` of the wrong type is
// named too, not read as "no argument" and reported as a missing uri.
TEST(CommandArgsTest, WrongTypedCommandOrArgumentsNamesTheField) {
  LspServer::Options options;
  options.index_cache = false;
  ServerHarness h(options);
  h.Initialize();
  const Json uri = {{"uri", "file:///nonexistent/x.hlo"}};
  const std::pair<Json, std::string> cases[] = {
      {{{"command", 5}}, "'command'"},
      {Json::object(), "'command'"},
      {{{"command", "hlo.replay"}, {"arguments", uri}}, "'arguments'"},
      {{{"command", "hlo.replay"}, {"arguments", "x"}}, "'arguments'"},
      {{{"command", "hlo.replay"},
        {"arguments", Json::array({"file:///nonexistent/x.hlo", "cpu"})}},
       "'arguments'"},
  };
  int64_t id = 100;
  for (const auto& [params, field] : cases) {
    h.Request(++id, "workspace/executeCommand", params);
    const Json reply = h.Response(id);
    ASSERT_TRUE(reply.contains("error")) << params.dump() << reply.dump();
    EXPECT_EQ(reply["error"]["code"], kCommandArgsInvalidParams)
        << reply.dump();
    EXPECT_NE(reply["error"]["message"].get<std::string>().find(field),
              std::string::npos)
        << params.dump() << "\n"
        << reply.dump();
  }
  // No arguments, an empty list or a null first argument: no argument.
  for (const Json& arguments :
       {Json(nullptr), Json::array(), Json::array({nullptr})}) {
    h.Request(++id, "workspace/executeCommand",
              {{"command", "hlo.replay"}, {"arguments", arguments}});
    EXPECT_EQ(h.Response(id)["error"]["message"],
              "expected {uri} with a file URI");
  }
}

}  // namespace
}  // namespace hlo_lsp
