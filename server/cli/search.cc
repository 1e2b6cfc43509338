#include "server/cli/search.h"

#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "index/query.h"
#include "nlohmann/json.hpp"
#include "server/cli/commands.h"
#include "server/cli/path_escape.h"

namespace hlo_lsp::cli {
namespace {

using hlo::index::SymbolMatch;

constexpr char kSearchUsage[] =
    "usage: hlo-lsp search [--dir DIR]... [--json] [--limit N] [--no-cache] "
    "QUERY\n\n"
    "Finds modules, computations, instructions and metadata (op_name,\n"
    "source_file:line) in every HLO file under the folders (default .).\n"
    "QUERY: plain words are fuzzy; /re/ is an RE2 regular expression; filters\n"
    "kind:module|computation|instruction|metadata, op:OPCODE, module:NAME,\n"
    "file:GLOB combine with the rest.\n"
    "  --dir DIR    search under DIR (repeatable)\n"
    "  --json       one JSON object per line\n"
    "  --limit N    at most N results (default 50; 0 = all)\n"
    "  --no-cache   do not read or write the index in "
    "$XDG_CACHE_HOME/hlo-lsp\n"
    "Output: PATH:LINE:COL: KIND NAME, best first, then by path and line.\n"
    "PATH escapes \\ and control bytes (\\n, \\t, \\xNN); in --json, bytes\n"
    "that are not UTF-8 are \\udcNN (Python: os.fsencode(path) restores "
    "them).\n"
    "exit: 0 found, 1 nothing matched, 2 usage or I/O error\n";

bool ParseLimit(std::string_view text, size_t* limit) {
  auto [end, ec] =
      std::from_chars(text.data(), text.data() + text.size(), *limit);
  return ec == std::errc() && end == text.data() + text.size();
}

bool UseColor() {
  const char* no_color = std::getenv("NO_COLOR");
  if (no_color != nullptr && no_color[0] != '\0') return false;
  const char* term = std::getenv("TERM");
  if (term != nullptr && std::string_view(term) == "dumb") return false;
  return ::isatty(STDOUT_FILENO) == 1;
}

}  // namespace

std::string FormatSearchText(const SymbolMatch& m, bool color) {
  std::string out;
  out.reserve(m.path.size() + m.name.size() + 40);
  if (color) out += "\033[35m";
  out += TextPath(m.path);
  if (color) out += "\033[0m";
  out += ':';
  if (color) out += "\033[32m";
  out += std::to_string(m.line);
  if (color) out += "\033[0m";
  out += ':';
  out += std::to_string(m.column);
  out += ": ";
  out += hlo::index::SymbolKindName(m.kind);
  out += ' ';
  if (color) out += "\033[1m";
  out += m.name;
  if (color) out += "\033[0m";
  return out;
}

std::string FormatSearchJson(const SymbolMatch& m) {
  auto or_null = [](const std::string& s) {
    return s.empty() ? nlohmann::ordered_json(nullptr)
                     : nlohmann::ordered_json(s);
  };
  nlohmann::ordered_json j = {
      {"line", m.line},
      {"col", m.column},
      {"kind", std::string(hlo::index::SymbolKindName(m.kind))},
      {"name", m.name},
      {"module", or_null(m.module)},
      {"opcode", or_null(m.opcode)},
      {"shape", or_null(m.shape)}};
  // Names come from files and may hold invalid UTF-8: replace, not throw.
  // The path must open again, so it keeps every byte (path_escape.h).
  std::string rest =
      j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  return "{\"path\":" + JsonPathLiteral(m.path) + "," + rest.substr(1);
}

int RunSearch(int argc, char** argv) {
  if (WantsHelp(argc, argv)) {
    std::fputs(kSearchUsage, stdout);
    return kExitOk;
  }
  std::vector<std::string> dirs;
  std::vector<std::string> words;
  bool json = false;
  bool use_cache = true;
  size_t limit = 50;
  bool options_done = false;
  auto usage_error = [](const std::string& message) {
    std::fprintf(stderr, "hlo-lsp search: %s\n%s", message.c_str(),
                 kSearchUsage);
    return kExitUsage;
  };
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (options_done || arg.empty() || arg[0] != '-' || arg == "-") {
      words.emplace_back(arg);
    } else if (arg == "--") {
      options_done = true;
    } else if (arg == "--json") {
      json = true;
    } else if (arg == "--no-cache") {
      use_cache = false;
    } else if (arg == "--dir" || arg == "--limit") {
      if (i + 1 >= argc)
        return usage_error(std::string(arg) + " needs a value");
      std::string_view value = argv[++i];
      if (arg == "--dir") {
        dirs.emplace_back(value);
      } else if (!ParseLimit(value, &limit)) {
        return usage_error("bad --limit '" + std::string(value) + "'");
      }
    } else if (arg.substr(0, 6) == "--dir=") {
      dirs.emplace_back(arg.substr(6));
    } else if (arg.substr(0, 8) == "--limit=") {
      if (!ParseLimit(arg.substr(8), &limit)) {
        return usage_error("bad --limit '" + std::string(arg.substr(8)) + "'");
      }
    } else {
      return usage_error("unknown option '" + std::string(arg) + "'");
    }
  }
  if (words.empty()) return usage_error("missing QUERY");
  std::string query;
  for (const std::string& w : words) {
    if (!query.empty()) query += ' ';
    query += w;
  }
  // A bad query, or one over the bounds of index/query.h, is refused
  // before any folder is indexed.
  if (absl::StatusOr<hlo::index::SymbolQuery> parsed =
          hlo::index::SymbolQuery::Parse(query);
      !parsed.ok()) {
    std::fprintf(stderr, "hlo-lsp search: %.*s\n",
                 static_cast<int>(parsed.status().message().size()),
                 parsed.status().message().data());
    return kExitUsage;
  }
  if (dirs.empty()) dirs.push_back(".");
  for (const std::string& dir : dirs) {
    std::error_code ec;
    if (!std::filesystem::exists(dir, ec)) {
      std::fprintf(stderr, "hlo-lsp search: %s: no such file or directory\n",
                   dir.c_str());
      return kExitUsage;
    }
    // A folder that cannot be listed would otherwise match nothing, silently.
    if (std::filesystem::is_directory(dir, ec) &&
        ::access(dir.c_str(), R_OK | X_OK) != 0) {
      std::fprintf(stderr, "hlo-lsp search: %s: %s\n", dir.c_str(),
                   std::strerror(errno));
      return kExitUsage;
    }
  }

  hlo::index::IndexOptions options;
  options.use_cache = use_cache;
  options.release_memory = false;
  options.save_after_add = false;
  // Never destroyed: the process ends after printing, and freeing every
  // table of a large index costs more than the query (the cache is written
  // before then). Reachable from here, so not a leak to sanitizers.
  static hlo::index::WorkspaceIndex* kept = nullptr;
  kept = new hlo::index::WorkspaceIndex(options);
  hlo::index::WorkspaceIndex& index = *kept;
  for (const std::string& dir : dirs) index.AddFolder(dir);
  auto print_warnings = [&index] {
    for (const std::string& warning : index.TakeWarnings()) {
      std::fprintf(stderr, "hlo-lsp search: warning: %s\n", warning.c_str());
    }
  };
  print_warnings();
  // The cache is written while the query runs and its results print.
  std::thread saver([&index] { index.SaveCache(); });
  absl::Cleanup wait_for_cache = [&] {
    saver.join();
    print_warnings();
  };
  absl::StatusOr<std::vector<SymbolMatch>> matches = index.Query(query, limit);
  if (!matches.ok()) {
    std::fprintf(stderr, "hlo-lsp search: %.*s\n",
                 static_cast<int>(matches.status().message().size()),
                 matches.status().message().data());
    return kExitUsage;
  }
  bool color = !json && UseColor();
  std::string out;
  for (const SymbolMatch& m : *matches) {
    out += json ? FormatSearchJson(m) : FormatSearchText(m, color);
    out += '\n';
    if (out.size() > (1 << 20)) {
      std::fwrite(out.data(), 1, out.size(), stdout);
      out.clear();
    }
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  // A failed write is reported once, by FinishStdout (commands.cc).
  return matches->empty() ? kExitNo : kExitOk;
}

}  // namespace hlo_lsp::cli
