#include "server/cli/replay_bisect.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "exec/evaluator.h"
#include "exec/strings.h"
#include "index/module_files.h"
#include "server/cli/commands.h"
#include "server/cli/replay_module.h"

namespace hlo_lsp::cli {
namespace {

using hlo::exec::Cat;
using hlo::index::DumpFile;

// What a dump is, for one line: its step and pass, or its stage.
std::string Label(const DumpFile& f) {
  const hlo::index::DumpFileName& d = f.dump;
  if (!d.after_pass.empty()) {
    return Cat(d.step >= 0 ? Cat("step ", d.step, " ") : "", "after ",
               d.after_pass,
               d.pipeline.empty() ? "" : Cat(" (", d.pipeline, ")"));
  }
  if (!d.stage.empty()) return d.stage;
  return std::filesystem::path(f.path).filename().string();
}

struct ModuleDumps {
  std::string module_name;
  std::vector<DumpFile> dumps;  // stages and pass dumps, in history order
};

// The module's dumps (index/module_files.h): the file's module, or the one
// module of a folder.
absl::StatusOr<ModuleDumps> DumpsOf(const std::string& target) {
  std::error_code ec;
  if (std::filesystem::is_directory(target, ec)) {
    std::vector<hlo::index::ModuleDumpFiles> modules =
        hlo::index::ModulesInFolder(target);
    if (modules.empty()) {
      return absl::InvalidArgumentError(target + ": no HLO dump of a module");
    }
    if (modules.size() > 1) {
      return absl::InvalidArgumentError(
          Cat(target,
              " holds the dumps of more than one module: give one of its "
              "files, e.g. ",
              hlo::index::HloTextHistory(modules[0]).front().path));
    }
    return ModuleDumps{modules[0].module_name,
                       hlo::index::HloTextHistory(modules[0])};
  }
  hlo::index::ModuleDumpFiles module = hlo::index::ModuleFilesOfPath(target);
  ModuleDumps out{module.module_name, hlo::index::HloTextHistory(module)};
  const std::string self = std::filesystem::path(target).filename().string();
  if (std::none_of(out.dumps.begin(), out.dumps.end(), [&](const DumpFile& f) {
        return std::filesystem::path(f.path).filename() == self;
      })) {
    return absl::InvalidArgumentError(target + ": not an HLO text dump");
  }
  return out;
}

int ExitFor(const hlo::exec::ReplayResult& r) {
  return r.outcome == hlo::exec::ReplayOutcome::kFailed ? kExitFailed : kExitNo;
}

}  // namespace

int RunBisect(const ReplayFlags& flags, const hlo::exec::ReplayOptions& base) {
  absl::StatusOr<ModuleDumps> module = DumpsOf(flags.bisect);
  if (!module.ok()) {
    std::fprintf(stderr, "hlo-lsp replay: %s\n",
                 std::string(module.status().message()).c_str());
    return kExitUsage;
  }
  const std::vector<DumpFile>* dumps = &module->dumps;
  if (dumps->size() < 2) {
    std::fprintf(stderr,
                 "hlo-lsp replay: %s: only one dump of this module, nothing "
                 "to bisect\n",
                 flags.bisect.c_str());
    return kExitNo;
  }
  std::printf("bisect: %zu dumps of module %s, fake data, seed %u\n",
              dumps->size(), module->module_name.c_str(), flags.seed);
  hlo::exec::ReplayOptions options = base;
  hlo::exec::ReplayResult reference;
  std::vector<std::string> signature;
  for (size_t k = 0; k < dumps->size(); ++k) {
    const DumpFile& dump = (*dumps)[k];
    absl::StatusOr<ParsedModule> parsed = ReadModuleFile(dump.path);
    if (!parsed.ok()) {
      std::fprintf(stderr, "hlo-lsp replay: %s\n",
                   std::string(parsed.status().message()).c_str());
      return kExitNo;
    }
    auto shapes = hlo::exec::EntryParameterShapes(*parsed->file, 0);
    std::vector<std::string> here;
    if (shapes.ok()) {
      for (const auto& s : *shapes) here.push_back(hlo::exec::ShapeString(s));
    }
    if (k > 0 && here != signature) {
      std::printf(
          "stop: the entry signature changes at %s (%s): the dumps after it "
          "take other arguments; no output differed before it\n",
          Label(dump).c_str(), dump.path.c_str());
      return kExitOk;
    }
    hlo::exec::ReplayResult r = hlo::exec::Replay(*parsed->file, 0, options);
    if (r.outcome != hlo::exec::ReplayOutcome::kOk) {
      std::printf("%s: %s (%s)\n", Label(dump).c_str(), r.error.c_str(),
                  dump.path.c_str());
      return ExitFor(r);
    }
    if (k == 0) {
      // Every later dump runs on exactly these arguments.
      reference = std::move(r);
      signature = here;
      options.arguments.clear();
      for (const auto& [name, value] : reference.arguments) {
        options.arguments.push_back(value);
      }
      options.arguments_given = true;
      std::printf("  %s: the reference\n", Label(dump).c_str());
      continue;
    }
    std::vector<std::string> mismatches = hlo::exec::CompareOutputs(
        reference.outputs, r.outputs, flags.atol, flags.rtol);
    if (mismatches.empty()) {
      std::printf("  %s: same outputs\n", Label(dump).c_str());
      continue;
    }
    std::printf("first difference: %s (%s), against %s\n", Label(dump).c_str(),
                dump.path.c_str(), dumps->front().path.c_str());
    if (k > 1) {
      std::printf("  the dump before it: %s\n", (*dumps)[k - 1].path.c_str());
    }
    for (const std::string& m : mismatches) {
      std::printf("mismatch: %s\n", m.c_str());
    }
    return kExitNo;
  }
  std::printf("no dump's outputs differ from the first's (atol %g, rtol %g)\n",
              flags.atol, flags.rtol);
  return kExitOk;
}

}  // namespace hlo_lsp::cli
