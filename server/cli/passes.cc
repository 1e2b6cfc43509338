// `hlo-lsp passes FILE_OR_DIR [--module NAME] [--json]`: the pass timeline
// of a module (history/timeline.h), one dump a line with what changed
// against the dump before it.
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "history/timeline.h"
#include "index/module_files.h"
#include "nlohmann/json.hpp"
#include "server/cli/commands.h"
#include "server/cli/path_escape.h"
#include "server/cli/simple_args.h"

namespace hlo_lsp::cli {
namespace {

using hlo::history::TimelineStep;
using hlo::index::DumpKind;

constexpr char kPassesUsage[] =
    "usage: hlo-lsp passes FILE_OR_DIR [--module NAME] [--json]\n\n"
    "The pass timeline of a module: its stage and pass dumps in the order\n"
    "XLA wrote them, each with what changed against the dump before it:\n"
    "  STEP PASS +ADDED -REMOVED ~CHANGED >RENAMED PATH\n"
    "(instructions, as `hlo-lsp diff` counts them; STEP is '-' for a stage).\n"
    "Passes that changed nothing are listed with zeros. FILE: any dump of\n"
    "the module; DIR: the folder's module with pass dumps (--module NAME\n"
    "picks one where there are several).\n"
    "--json prints {\"module\",\"steps\":[{\"path\",\"step\",\"pipeline\","
    "\"pass\",\"added\",\"removed\",\"changed\",\"renamed\", ...}]}.\n"
    "exit: 0 listed, 1 a dump could not be read or parsed (said on stderr;\n"
    "the rest is still compared), 2 usage or I/O error\n";

std::string PassesJsonString(const std::string& s) {
  return nlohmann::json(s).dump(-1, ' ', false,
                                nlohmann::json::error_handler_t::replace);
}

bool IsPass(const TimelineStep& s) {
  return s.file.dump.kind == DumpKind::kPassDump ||
         s.file.dump.kind == DumpKind::kPassStep;
}

std::string StepText(const TimelineStep& s) {
  if (!IsPass(s)) return "-";
  char step[24];
  std::snprintf(step, sizeof(step), "%04lld",
                static_cast<long long>(s.file.dump.step));
  return step;
}

void PrintText(const std::vector<TimelineStep>& steps) {
  for (const TimelineStep& s : steps) {
    std::string line =
        StepText(s) + " " + s.pass_name() + " +" + std::to_string(s.added) +
        " -" + std::to_string(s.removed) + " ~" + std::to_string(s.changed) +
        " >" + std::to_string(s.renamed) + " " + TextPath(s.file.path) + "\n";
    std::fputs(line.c_str(), stdout);
  }
}

void PrintJson(const std::string& module,
               const std::vector<TimelineStep>& steps) {
  std::string out = "{\"module\":" + PassesJsonString(module) + ",\"steps\":[";
  for (size_t i = 0; i < steps.size(); ++i) {
    const TimelineStep& s = steps[i];
    if (i > 0) out += ',';
    out += "{\"path\":" + JsonPathLiteral(s.file.path);
    if (IsPass(s)) {
      out += ",\"step\":" + std::to_string(s.file.dump.step) +
             ",\"pipeline\":" + PassesJsonString(s.file.dump.pipeline);
    } else {
      out += ",\"step\":null,\"pipeline\":null,\"stage\":" +
             PassesJsonString(s.file.label);
    }
    out +=
        ",\"pass\":" + PassesJsonString(s.pass_name()) +
        ",\"added\":" + std::to_string(s.added) +
        ",\"removed\":" + std::to_string(s.removed) +
        ",\"changed\":" + std::to_string(s.changed) +
        ",\"renamed\":" + std::to_string(s.renamed) +
        ",\"computationsAdded\":" + std::to_string(s.computations_added) +
        ",\"computationsRemoved\":" + std::to_string(s.computations_removed) +
        ",\"compared\":" + (s.has_base ? "true" : "false") +
        ",\"unchanged\":" + (s.same_as_before ? "true" : "false");
    if (!s.error.empty()) out += ",\"error\":" + PassesJsonString(s.error);
    out += '}';
  }
  out += "]}\n";
  std::fputs(out.c_str(), stdout);
}

// The module FILE_OR_DIR names; prints why not and returns nullopt.
std::optional<hlo::index::ModuleDumpFiles> PickModule(
    const std::string& path, const std::string& wanted) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    std::fprintf(stderr, "hlo-lsp: cannot read %s: %s\n", path.c_str(),
                 std::strerror(errno));
    return std::nullopt;
  }
  if (!S_ISDIR(st.st_mode)) return hlo::index::ModuleFilesOfPath(path);
  std::vector<hlo::index::ModuleDumpFiles> modules =
      hlo::index::ModulesInFolder(path);
  std::vector<hlo::index::ModuleDumpFiles> picked;
  for (hlo::index::ModuleDumpFiles& m : modules) {
    char id[32];
    std::snprintf(id, sizeof(id), "module_%04lld",
                  static_cast<long long>(m.module_id));
    if (!wanted.empty() && m.module_name != wanted && id != wanted) continue;
    picked.push_back(std::move(m));
  }
  if (picked.size() > 1 && wanted.empty()) {
    // Without a choice, the module whose passes were dumped, when only one.
    auto has_passes = [](const hlo::index::ModuleDumpFiles& m) {
      return std::any_of(m.files.begin(), m.files.end(), [](const auto& f) {
        return f.kind == hlo::index::DumpFileKind::kPass;
      });
    };
    if (std::count_if(picked.begin(), picked.end(), has_passes) == 1) {
      return std::move(*std::find_if(picked.begin(), picked.end(), has_passes));
    }
  }
  if (picked.size() == 1) return std::move(picked[0]);
  if (picked.empty()) {
    std::fprintf(stderr, "hlo-lsp: %s holds no HLO dumps of %s\n", path.c_str(),
                 wanted.empty() ? "any module" : ("module " + wanted).c_str());
    return std::nullopt;
  }
  std::string names;
  for (const hlo::index::ModuleDumpFiles& m : picked) {
    char id[32];
    std::snprintf(id, sizeof(id), "module_%04lld",
                  static_cast<long long>(m.module_id));
    names += std::string("\n  ") + id + " " + m.module_name;
  }
  std::fprintf(stderr,
               "hlo-lsp: %s holds several modules; pick one with --module "
               "NAME:%s\n",
               path.c_str(), names.c_str());
  return std::nullopt;
}

}  // namespace

int RunPasses(int argc, char** argv) {
  if (WantsHelp(argc, argv)) {
    std::fputs(kPassesUsage, stdout);
    return kExitOk;
  }
  std::optional<SimpleArgs> args = ParseSimpleArgs(
      argc, argv, "passes", kPassesUsage, {"--json"}, {"--module"}, 1, 1);
  if (!args) return kExitUsage;
  const std::string& path = args->operands[0];
  const std::string module_name = args->value("--module");
  const bool json = args->has("--json");
  std::optional<hlo::index::ModuleDumpFiles> module =
      PickModule(path, module_name);
  if (!module) return kExitUsage;
  std::vector<hlo::index::DumpFile> dumps = hlo::index::HloTextHistory(*module);
  if (dumps.empty()) {
    std::fprintf(stderr, "hlo-lsp: no stage or pass dumps of %s beside %s\n",
                 module->module_name.c_str(), path.c_str());
    return kExitNo;
  }
  std::vector<TimelineStep> steps = hlo::history::BuildTimeline(dumps);
  bool errors = false;
  for (const TimelineStep& s : steps) {
    if (s.error.empty()) continue;
    errors = true;
    std::fprintf(stderr, "hlo-lsp: %s\n", s.error.c_str());
  }
  if (json) {
    PrintJson(module->module_name, steps);
  } else {
    PrintText(steps);
  }
  return errors ? kExitNo : kExitOk;
}

}  // namespace hlo_lsp::cli
