#include "server/cli/replay_bisect.h"

#include <cstdio>
#include <string>

#include "server/cli/commands.h"
#include "server/common/bisect.h"

namespace hlo_lsp::cli {

int RunBisect(const ReplayFlags& flags, const hlo::exec::ReplayOptions& base) {
  absl::StatusOr<BisectDumps> module = BisectDumpsOf(flags.bisect);
  if (!module.ok()) {
    std::fprintf(stderr, "hlo-lsp replay: %s\n",
                 std::string(module.status().message()).c_str());
    return kExitUsage;
  }
  const std::vector<hlo::index::DumpFile>& dumps = module->dumps;
  if (dumps.size() < 2) {
    std::fprintf(stderr,
                 "hlo-lsp replay: %s: only one dump of this module, nothing "
                 "to bisect\n",
                 flags.bisect.c_str());
    return kExitNo;
  }
  std::printf("bisect: %zu dumps of module %s, fake data, seed %u\n",
              dumps.size(), module->module_name.c_str(), flags.seed);
  BisectOptions options;
  options.replay = base;
  options.atol = flags.atol;
  options.rtol = flags.rtol;
  // The walk's lines as each dump finishes: a long bisection shows progress.
  BisectResult r =
      hlo_lsp::RunBisect(*module, options, [&](const BisectStep& s) {
        if (s.kind == BisectStep::kDiffers) return;
        std::printf("  %s: %s\n", BisectLabel(dumps[s.index]).c_str(),
                    s.kind == BisectStep::kReference ? "the reference"
                                                     : "same outputs");
        std::fflush(stdout);
      });
  switch (r.verdict) {
    case BisectVerdict::kUnchanged:
      std::printf(
          "no dump's outputs differ from the first's (atol %g, rtol %g)\n",
          flags.atol, flags.rtol);
      return kExitOk;
    case BisectVerdict::kSignature: {
      const hlo::index::DumpFile& dump = dumps[*r.changed];
      std::printf(
          "stop: the entry signature changes at %s (%s): the dumps after it "
          "take other arguments; no output differed before it\n",
          BisectLabel(dump).c_str(), dump.path.c_str());
      return kExitOk;
    }
    case BisectVerdict::kChanged: {
      const hlo::index::DumpFile& dump = dumps[*r.changed];
      std::printf("first difference: %s (%s), against %s\n",
                  BisectLabel(dump).c_str(), dump.path.c_str(),
                  dumps.front().path.c_str());
      if (*r.changed > 1) {
        std::printf("  the dump before it: %s\n",
                    dumps[*r.before].path.c_str());
      }
      for (const std::string& m : r.mismatches) {
        std::printf("mismatch: %s\n", m.c_str());
      }
      return kExitNo;
    }
    case BisectVerdict::kRefused:
    case BisectVerdict::kFailed:
      break;
  }
  if (r.read_error) {
    std::fprintf(stderr, "hlo-lsp replay: %s\n", r.error.c_str());
    return kExitNo;
  }
  std::printf("%s: %s (%s)\n", BisectLabel(dumps[r.failed]).c_str(),
              r.error.c_str(), dumps[r.failed].path.c_str());
  return r.verdict == BisectVerdict::kFailed ? kExitFailed : kExitNo;
}

}  // namespace hlo_lsp::cli
