// The arguments of the simple subcommands (outline, files, diff, passes):
// on/off flags, `--name VALUE` or `--name=VALUE` options and operands, with
// the same "unknown option" and usage errors for all of them.
#ifndef HLO_LSP_SERVER_CLI_SIMPLE_ARGS_H_
#define HLO_LSP_SERVER_CLI_SIMPLE_ARGS_H_

#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace hlo_lsp::cli {

struct SimpleArgs {
  std::set<std::string, std::less<>> flags;  // those given, e.g. "--json"
  std::map<std::string, std::string, std::less<>> values;
  std::vector<std::string> operands;

  bool has(std::string_view flag) const { return flags.count(flag) > 0; }
  std::string value(std::string_view name) const {
    auto it = values.find(name);
    return it == values.end() ? "" : it->second;
  }
};

// Splits argv[1..] of subcommand `name`. On an unknown option, a missing
// value, or an operand count outside [min_operands, max_operands], prints
// the error and `usage` to stderr and returns nullopt (exit 2).
std::optional<SimpleArgs> ParseSimpleArgs(
    int argc, char** argv, std::string_view name, const char* usage,
    std::initializer_list<std::string_view> flags,
    std::initializer_list<std::string_view> valued, size_t min_operands,
    size_t max_operands);

}  // namespace hlo_lsp::cli

#endif  // HLO_LSP_SERVER_CLI_SIMPLE_ARGS_H_
