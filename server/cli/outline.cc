// `hlo-lsp outline FILE [--json]`: modules and their computations in line
// order, with instruction counts (nested anonymous operands not counted). A
// proto is outlined from its text view (lines in that view).
#include <cstdio>
#include <string>

#include "hlo/parser.h"
#include "nlohmann/json.hpp"
#include "server/cli/commands.h"
#include "server/cli/hlo_input.h"
#include "server/cli/simple_args.h"

namespace hlo_lsp::cli {
namespace {

constexpr char kOutlineUsage[] =
    "usage: hlo-lsp outline FILE [--json]\n\n"
    "Lists each module and its computations in line order:\n"
    "  module NAME\n"
    "    [ENTRY ]computation NAME: N instructions\n"
    "--json prints "
    "{\"modules\":[{\"name\",\"line\",\"computations\":[{\"name\","
    "\"entry\",\"line\",\"instructions\"}]}]} (1-based lines).\n"
    "A proto (.pb, .pb.gz, .pbtxt, snapshots) is outlined from its text\n"
    "view ('hlo-lsp convert FILE'); lines are in that text.\n"
    "exit: 0 parsed cleanly, 1 the file has errors (the outline is still "
    "printed), 2 usage or I/O error\n";

uint32_t LineOf(const hlo::ParsedFile& file, hlo::Span span) {
  return file.lines().LineOf(span.begin) + 1;
}

// XLA names a header-less module after its entry computation.
std::string ModuleName(const hlo::ParsedFile& file, const hlo::Module& module) {
  if (!module.name.empty()) return std::string(file.Text(module.name));
  if (module.entry != hlo::kNone) {
    return "module_" + std::string(file.Name(file.computations[module.entry]));
  }
  return "module";
}

int TopLevelInstructions(const hlo::ParsedFile& file,
                         const hlo::Computation& computation) {
  int count = 0;
  for (hlo::Id i = computation.instructions.begin;
       i < computation.instructions.end(); ++i) {
    if (!file.instructions[i].is_nested) ++count;
  }
  return count;
}

void PrintText(const hlo::ParsedFile& file) {
  for (const hlo::Module& module : file.modules) {
    std::printf("module %s\n", ModuleName(file, module).c_str());
    for (hlo::Id c = module.computations.begin; c < module.computations.end();
         ++c) {
      const hlo::Computation& computation = file.computations[c];
      std::string name(file.Name(computation));
      std::printf("  %scomputation %s: %d instructions\n",
                  computation.is_entry ? "ENTRY " : "", name.c_str(),
                  TopLevelInstructions(file, computation));
    }
  }
}

void PrintJson(const hlo::ParsedFile& file) {
  nlohmann::ordered_json modules = nlohmann::ordered_json::array();
  for (const hlo::Module& module : file.modules) {
    nlohmann::ordered_json computations = nlohmann::ordered_json::array();
    for (hlo::Id c = module.computations.begin; c < module.computations.end();
         ++c) {
      const hlo::Computation& computation = file.computations[c];
      computations.push_back(
          {{"name", std::string(file.Name(computation))},
           {"entry", computation.is_entry},
           {"line", LineOf(file, computation.span)},
           {"instructions", TopLevelInstructions(file, computation)}});
    }
    modules.push_back({{"name", ModuleName(file, module)},
                       {"line", LineOf(file, module.span)},
                       {"computations", std::move(computations)}});
  }
  nlohmann::ordered_json out = {{"modules", std::move(modules)}};
  // Names come from the file and may hold invalid UTF-8: replace, not throw.
  std::string text = out.dump(-1, ' ', false,
                              nlohmann::ordered_json::error_handler_t::replace);
  std::printf("%s\n", text.c_str());
}

}  // namespace

int RunOutline(int argc, char** argv) {
  if (WantsHelp(argc, argv)) {
    std::fputs(kOutlineUsage, stdout);
    return kExitOk;
  }
  std::optional<SimpleArgs> args = ParseSimpleArgs(
      argc, argv, "outline", kOutlineUsage, {"--json"}, {}, 1, 1);
  if (!args) return kExitUsage;
  const std::string& path = args->operands[0];
  const bool json = args->has("--json");
  HloInput input;
  switch (ReadHloInput(path, &input)) {
    case HloInputError::kRead:
      return kExitUsage;
    case HloInputError::kDecode:
      return kExitNo;
    case HloInputError::kNone:
      break;
  }
  std::unique_ptr<hlo::ParsedFile> file = hlo::Parse(input.text);
  if (json) {
    PrintJson(*file);
  } else {
    PrintText(*file);
  }
  std::fflush(stdout);
  if (file->HasErrors()) {
    std::fprintf(stderr,
                 "hlo-lsp: %s has errors; run 'hlo-lsp check %s' to see them\n",
                 path.c_str(), path.c_str());
    return kExitNo;
  }
  return kExitOk;
}

}  // namespace hlo_lsp::cli
