#include "server/cli/replay_bisect.h"

#include <cstdio>
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "exec/evaluator.h"
#include "exec/strings.h"
#include "index/discovery.h"
#include "index/siblings.h"
#include "server/cli/commands.h"
#include "server/cli/replay_module.h"

namespace hlo_lsp::cli {
namespace {

using hlo::exec::Cat;
using hlo::index::ModuleFile;

// What a dump is, for one line: its step and pass, or its stage.
std::string Label(const ModuleFile& f) {
  const hlo::index::DumpFileName& d = f.dump;
  if (!d.after_pass.empty()) {
    return Cat(d.step >= 0 ? Cat("step ", d.step, " ") : "", "after ",
               d.after_pass,
               d.pipeline.empty() ? "" : Cat(" (", d.pipeline, ")"));
  }
  if (!d.stage.empty()) return d.stage;
  return std::filesystem::path(f.path).filename().string();
}

// The module's dumps: the file's siblings, or the one module of a folder.
absl::StatusOr<std::vector<ModuleFile>> DumpsOf(const std::string& target) {
  std::error_code ec;
  std::string file = target;
  if (std::filesystem::is_directory(target, ec)) {
    hlo::index::DiscoveryResult found =
        hlo::index::DiscoverFiles(target, /*max_depth=*/0);
    std::vector<ModuleFile> first;
    std::set<std::string> in_first;
    for (const auto& path : found.files) {
      const std::string normal =
          std::filesystem::absolute(path, ec).lexically_normal().string();
      if (in_first.count(normal) > 0) continue;
      std::vector<ModuleFile> module = hlo::index::SiblingModuleFiles(normal);
      if (module.empty()) continue;  // not HLO text
      if (!first.empty()) {
        return absl::InvalidArgumentError(
            Cat(target,
                " holds the dumps of more than one module: give one of its "
                "files, e.g. ",
                first.front().path));
      }
      first = std::move(module);
      for (const ModuleFile& f : first) in_first.insert(f.path);
    }
    if (first.empty()) {
      return absl::InvalidArgumentError(target + ": no HLO dump of a module");
    }
    return first;
  }
  std::vector<ModuleFile> module = hlo::index::SiblingModuleFiles(file);
  if (module.empty()) {
    return absl::InvalidArgumentError(file + ": not an HLO text dump");
  }
  return module;
}

int ExitFor(const hlo::exec::ReplayResult& r) {
  return r.outcome == hlo::exec::ReplayOutcome::kFailed ? kExitFailed : kExitNo;
}

}  // namespace

int RunBisect(const ReplayFlags& flags, const hlo::exec::ReplayOptions& base) {
  absl::StatusOr<std::vector<ModuleFile>> dumps = DumpsOf(flags.bisect);
  if (!dumps.ok()) {
    std::fprintf(stderr, "hlo-lsp replay: %s\n",
                 std::string(dumps.status().message()).c_str());
    return kExitUsage;
  }
  if (dumps->size() < 2) {
    std::fprintf(stderr,
                 "hlo-lsp replay: %s: only one dump of this module, nothing "
                 "to bisect\n",
                 flags.bisect.c_str());
    return kExitNo;
  }
  const ModuleFile& first = dumps->front();
  std::printf("bisect: %zu dumps of module %s, fake data, seed %u\n",
              dumps->size(), first.module_name.c_str(), flags.seed);
  hlo::exec::ReplayOptions options = base;
  hlo::exec::ReplayResult reference;
  std::vector<std::string> signature;
  for (size_t k = 0; k < dumps->size(); ++k) {
    const ModuleFile& dump = (*dumps)[k];
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
                dump.path.c_str(), first.path.c_str());
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
