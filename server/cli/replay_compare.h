// `hlo-lsp replay A --compare B`: module B run on the arguments module A ran
// with (fake, .npz or a snapshot's), its outputs compared with A's under the
// contract's tolerance rule. Two stages of one module, or a module before
// and after a pass, on the same inputs: how a miscompiling pass shows.
#ifndef HLO_LSP_SERVER_CLI_REPLAY_COMPARE_H_
#define HLO_LSP_SERVER_CLI_REPLAY_COMPARE_H_

#include <optional>
#include <string>
#include <vector>

#include "exec/replay.h"
#include "server/common/bisect.h"

namespace hlo_lsp::cli {

struct SecondModuleRun {
  int exit_code = 0;  // kExitOk, or why B did not run (1, 2 or 3)
  std::string error;  // when B did not run
  std::vector<std::string> mismatches;  // B's outputs against A's
  // With statistics (--stats): the first instruction of B whose values
  // differ from A's instruction of the same name.
  std::optional<BisectInstruction> first_differing;
};

// `options` are A's (platform, limits); the arguments are the ones A ran.
SecondModuleRun RunSecondModule(const std::string& path,
                                hlo::exec::ReplayOptions options,
                                const hlo::exec::ReplayResult& first,
                                double atol, double rtol);

}  // namespace hlo_lsp::cli

#endif  // HLO_LSP_SERVER_CLI_REPLAY_COMPARE_H_
