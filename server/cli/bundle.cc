// `hlo-lsp bundle FILE [-o OUT.tar.gz] [--json]`: the bug-report archive of
// FILE's module (server/common/bundle.h).
#include "server/common/bundle.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>

#include "nlohmann/json.hpp"
#include "server/cli/commands.h"
#include "server/cli/path_escape.h"
#include "server/cli/simple_args.h"

namespace hlo_lsp::cli {
namespace {

constexpr char kBundleUsage[] =
    "usage: hlo-lsp bundle FILE [-o OUT.tar.gz] [--json]\n\n"
    "Writes one .tar.gz for a bug report about FILE's module: FILE itself,\n"
    "the module's stage dumps (before_optimizations, after_optimizations and\n"
    "the other stages), its buffer assignment, memory-usage reports,\n"
    "snapshots and debug_options file where XLA wrote them, and MANIFEST.txt\n"
    "(the `hlo-lsp --version` line, the module, then `SIZE NAME` per file),\n"
    "all under one folder named after the archive. Only files of FILE's\n"
    "module and run, from FILE's folder. Pass dumps, protos, LLVM IR, PTX\n"
    "and graphs are left out: they repeat the module or are large; attach\n"
    "them by hand if the report needs them.\n"
    "Default OUT: module_NNNN.NAME.bundle.tar.gz in the current folder. An\n"
    "existing OUT is never replaced.\n"
    "Prints the archive's path, then `SIZE PATH` per file bundled;\n"
    "--json prints {\"path\",\"files\":[{\"path\",\"name\",\"size\"}],"
    "\"manifest\"}.\n"
    "exit: 0 written, 2 usage or I/O error (FILE missing, OUT exists)\n";

}  // namespace

int RunBundle(int argc, char** argv) {
  if (WantsHelp(argc, argv)) {
    std::fputs(kBundleUsage, stdout);
    return kExitOk;
  }
  std::optional<SimpleArgs> args = ParseSimpleArgs(
      argc, argv, "bundle", kBundleUsage, {"--json"}, {"-o"}, 1, 1);
  if (!args) return kExitUsage;
  const std::string& path = args->operands[0];
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
    const bool missing = ::stat(path.c_str(), &st) != 0;
    std::fprintf(stderr, "hlo-lsp: cannot read %s: %s\n", path.c_str(),
                 missing ? std::strerror(errno) : "not a regular file");
    return kExitUsage;
  }
  BundlePlan plan = PlanBundle(path);
  std::string out = args->value("-o");
  if (out.empty()) out = plan.default_name;
  absl::StatusOr<Bundle> bundle = WriteBundle(plan, out);
  if (!bundle.ok()) {
    std::fprintf(stderr, "hlo-lsp: %s\n",
                 std::string(bundle.status().message()).c_str());
    return kExitUsage;
  }
  if (args->has("--json")) {
    std::string text =
        "{\"path\":" + JsonPathLiteral(bundle->path) + ",\"files\":[";
    for (size_t i = 0; i < bundle->files.size(); ++i) {
      const BundleFile& f = bundle->files[i];
      if (i > 0) text += ',';
      text += "{\"path\":" + JsonPathLiteral(f.source) +
              ",\"name\":" + JsonPathLiteral(f.name) +
              ",\"size\":" + std::to_string(f.size) + "}";
    }
    text += "],\"manifest\":" + JsonPathLiteral(bundle->manifest) + "}\n";
    std::fputs(text.c_str(), stdout);
    return kExitOk;
  }
  std::string text = TextPath(bundle->path) + "\n";
  for (const BundleFile& f : bundle->files) {
    text += std::to_string(f.size) + " " + TextPath(f.source) + "\n";
  }
  std::fputs(text.c_str(), stdout);
  return kExitOk;
}

}  // namespace hlo_lsp::cli
