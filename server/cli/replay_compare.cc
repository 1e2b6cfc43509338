#include "server/cli/replay_compare.h"

#include <utility>

#include "exec/strings.h"
#include "server/cli/commands.h"
#include "server/common/replay_module.h"

namespace hlo_lsp::cli {

using hlo::exec::Cat;

SecondModuleRun RunSecondModule(const std::string& path,
                                hlo::exec::ReplayOptions options,
                                const hlo::exec::ReplayResult& first,
                                double atol, double rtol) {
  SecondModuleRun run;
  auto fail = [&](int code, std::string error) {
    run.exit_code = code;
    run.error = std::move(error);
    return run;
  };
  absl::StatusOr<ParsedModule> module = ReadModuleFile(path);
  if (!module.ok()) {
    return fail(
        absl::IsFailedPrecondition(module.status()) ? kExitNo : kExitUsage,
        std::string(module.status().message()));
  }
  options.arguments.clear();
  for (const auto& [name, value] : first.arguments) {
    options.arguments.push_back(value);
  }
  options.arguments_given = true;
  options.compare_with_cpu = false;
  hlo::exec::ReplayResult second = hlo::exec::Replay(*module->file, 0, options);
  if (second.outcome == hlo::exec::ReplayOutcome::kRefused) {
    return fail(kExitNo, Cat(path, ": ", second.error));
  }
  if (second.outcome == hlo::exec::ReplayOutcome::kFailed) {
    return fail(kExitFailed, Cat(path, ": ", second.error));
  }
  run.mismatches =
      hlo::exec::CompareOutputs(first.outputs, second.outputs, atol, rtol);
  if (!first.stats.empty() && !second.stats.empty()) {
    run.first_differing =
        FirstDifferingInstruction(first.stats, second.stats, atol, rtol);
  }
  return run;
}

}  // namespace hlo_lsp::cli
