// `hlo-lsp replay --bisect FILE_OR_DIR`: the stages and pass dumps XLA wrote
// for one module, run in step order on the same (fake) arguments; names the
// first pass after which an output differs from the first dump's beyond the
// tolerance, and stops, saying so, where a pass changes the entry signature.
#ifndef HLO_LSP_SERVER_CLI_REPLAY_BISECT_H_
#define HLO_LSP_SERVER_CLI_REPLAY_BISECT_H_

#include "exec/replay.h"
#include "server/cli/replay_flags.h"

namespace hlo_lsp::cli {

// Prints the walk; returns 0 (no pass changed the outputs), 1 (one did, or a
// dump was refused), 2 (usage or I/O) or 3 (a run failed).
int RunBisect(const ReplayFlags& flags,
              const hlo::exec::ReplayOptions& options);

}  // namespace hlo_lsp::cli

#endif  // HLO_LSP_SERVER_CLI_REPLAY_BISECT_H_
