#include "server/cli/simple_args.h"

#include <algorithm>
#include <cstdio>

namespace hlo_lsp::cli {

std::optional<SimpleArgs> ParseSimpleArgs(
    int argc, char** argv, std::string_view name, const char* usage,
    std::initializer_list<std::string_view> flags,
    std::initializer_list<std::string_view> valued, size_t min_operands,
    size_t max_operands) {
  auto known = [](std::initializer_list<std::string_view> list,
                  std::string_view arg) {
    return std::find(list.begin(), list.end(), arg) != list.end();
  };
  SimpleArgs out;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    std::string_view key = arg.substr(0, arg.find('='));
    if (known(flags, arg)) {
      out.flags.emplace(arg);
    } else if (known(valued, key) && key.size() < arg.size()) {
      out.values[std::string(key)] = std::string(arg.substr(key.size() + 1));
    } else if (known(valued, arg)) {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "hlo-lsp %.*s: %s needs a value\n%s",
                     static_cast<int>(name.size()), name.data(), argv[i],
                     usage);
        return std::nullopt;
      }
      out.values[std::string(arg)] = argv[++i];
    } else if (arg.size() > 1 && arg[0] == '-') {
      std::fprintf(stderr, "hlo-lsp %.*s: unknown option '%s'\n%s",
                   static_cast<int>(name.size()), name.data(), argv[i], usage);
      return std::nullopt;
    } else {
      out.operands.emplace_back(arg);
    }
  }
  if (out.operands.size() < min_operands ||
      out.operands.size() > max_operands) {
    std::fputs(usage, stderr);
    return std::nullopt;
  }
  return out;
}

}  // namespace hlo_lsp::cli
