// `hlo-lsp check FILE...`: one line per diagnostic, FILE:LINE:COL (1-based,
// byte columns). Errors decide the exit code; warnings do not.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "hlo/parser.h"
#include "server/cli/commands.h"
#include "server/common/file_reader.h"

namespace hlo_lsp::cli {
namespace {

constexpr char kUsage[] =
    "usage: hlo-lsp check FILE...\n\n"
    "Parses each HLO text file and prints one line per problem:\n"
    "  FILE:LINE:COL: error: MESSAGE   (or warning:)\n"
    "Lines and columns are 1-based; columns count bytes. FILE '-' is stdin.\n"
    "exit: 0 no errors (warnings allowed), 1 errors found, 2 usage or I/O "
    "error\n";

// Keeps one diagnostic on one output line.
std::string OneLine(std::string_view message) {
  std::string line(message);
  std::replace_if(
      line.begin(), line.end(), [](char c) { return c == '\n' || c == '\r'; },
      ' ');
  return line;
}

// Returns true when the file has errors.
bool ReportFile(const std::string& path, std::string_view text) {
  std::unique_ptr<hlo::ParsedFile> file = hlo::Parse(text);
  std::vector<const hlo::Diagnostic*> sorted;
  sorted.reserve(file->diagnostics.size());
  for (const hlo::Diagnostic& d : file->diagnostics) sorted.push_back(&d);
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const hlo::Diagnostic* a, const hlo::Diagnostic* b) {
                     return a->span.begin < b->span.begin;
                   });
  for (const hlo::Diagnostic* d : sorted) {
    hlo::LineColumn at = file->lines().ToLineColumn(d->span.begin);
    std::printf("%s:%u:%u: %s: %s\n", path.c_str(), at.line + 1, at.column + 1,
                d->severity == hlo::Severity::kError ? "error" : "warning",
                OneLine(d->message).c_str());
  }
  if (file->diagnostics_truncated) {
    std::fprintf(stderr,
                 "hlo-lsp: %s: too many diagnostics, the rest are "
                 "not shown\n",
                 path.c_str());
  }
  return file->HasErrors();
}

}  // namespace

int RunCheck(int argc, char** argv) {
  if (WantsHelp(argc, argv)) {
    std::fputs(kUsage, stdout);
    return kExitOk;
  }
  std::vector<std::string> paths;
  bool options_done = false;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (!options_done && arg == "--") {
      options_done = true;
    } else if (!options_done && arg.size() > 1 && arg[0] == '-') {
      std::fprintf(stderr, "hlo-lsp check: unknown option '%s'\n%s", argv[i],
                   kUsage);
      return kExitUsage;
    } else {
      paths.emplace_back(arg);
    }
  }
  if (paths.empty()) {
    std::fputs(kUsage, stderr);
    return kExitUsage;
  }
  bool io_error = false;
  bool has_errors = false;
  for (const std::string& path : paths) {
    absl::StatusOr<FileContents> contents = FileContents::Read(path);
    if (!contents.ok()) {
      PrintError(contents.status());
      io_error = true;
      continue;
    }
    has_errors |= ReportFile(path, contents->text());
  }
  std::fflush(stdout);
  if (io_error) return kExitUsage;
  return has_errors ? kExitNo : kExitOk;
}

}  // namespace hlo_lsp::cli
