// `hlo-lsp files FILE [--json]`: every file XLA wrote for FILE's module
// (index/module_files.h), one a line, `KIND PATH`.
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "index/module_files.h"
#include "nlohmann/json.hpp"
#include "server/cli/commands.h"
#include "server/cli/path_escape.h"
#include "server/cli/simple_args.h"

namespace hlo_lsp::cli {
namespace {

constexpr char kFilesUsage[] =
    "usage: hlo-lsp files FILE [--json]\n\n"
    "Lists the files XLA wrote for FILE's module in FILE's folder, one a "
    "line,\n"
    "  KIND PATH\n"
    "KIND: stage, pass, proto, snapshot, buffer-assignment, memory-report,\n"
    "llvm-ir, ptx, graph, other. Stages and pass dumps come first, in the\n"
    "order XLA wrote them (before_optimizations, the passes by step, the\n"
    "other stages), then the rest by kind. Files whose name XLA shortened or\n"
    "dropped (a name over 255 characters) are grouped by the module id.\n"
    "--json prints {\"module\",\"files\":[{\"kind\",\"path\",\"stage\","
    "\"step\",\"pass\"}]}\n"
    "(step and pass for pass dumps only; paths that are not UTF-8 keep their\n"
    "bytes as \\udcNN).\n"
    "exit: 0 listed, 2 usage or I/O error (FILE missing)\n";

std::string JsonString(const std::string& s) {
  return nlohmann::json(s).dump(-1, ' ', false,
                                nlohmann::json::error_handler_t::replace);
}

void PrintJson(const hlo::index::ModuleDumpFiles& module) {
  std::string out =
      "{\"module\":" + JsonString(module.module_name) + ",\"files\":[";
  bool first = true;
  for (const hlo::index::DumpFile& f : module.files) {
    if (!first) out += ',';
    first = false;
    out += "{\"kind\":\"";
    out += hlo::index::DumpFileKindName(f.kind);
    out += "\",\"path\":" + JsonPathLiteral(f.path) +
           ",\"stage\":" + JsonString(f.label);
    if (f.kind == hlo::index::DumpFileKind::kPass) {
      out += ",\"step\":" + std::to_string(f.dump.step);
      std::string pass = f.dump.kind == hlo::index::DumpKind::kPassDump
                             ? f.dump.after_pass
                             : f.dump.pipeline;
      out += ",\"pass\":" + JsonString(pass);
    }
    out += '}';
  }
  out += "]}\n";
  std::fputs(out.c_str(), stdout);
}

}  // namespace

int RunFiles(int argc, char** argv) {
  if (WantsHelp(argc, argv)) {
    std::fputs(kFilesUsage, stdout);
    return kExitOk;
  }
  std::optional<SimpleArgs> args =
      ParseSimpleArgs(argc, argv, "files", kFilesUsage, {"--json"}, {}, 1, 1);
  if (!args) return kExitUsage;
  const std::string& path = args->operands[0];
  const bool json = args->has("--json");
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
    const bool missing = ::stat(path.c_str(), &st) != 0;
    std::fprintf(stderr, "hlo-lsp: cannot read %s: %s\n", path.c_str(),
                 missing ? std::strerror(errno) : "not a regular file");
    return kExitUsage;
  }
  hlo::index::ModuleDumpFiles module = hlo::index::ModuleFilesOfPath(path);
  if (json) {
    PrintJson(module);
    return kExitOk;
  }
  for (const hlo::index::DumpFile& f : module.files) {
    std::string line(hlo::index::DumpFileKindName(f.kind));
    line += ' ';
    line += TextPath(f.path);
    line += '\n';
    std::fputs(line.c_str(), stdout);
  }
  return kExitOk;
}

}  // namespace hlo_lsp::cli
