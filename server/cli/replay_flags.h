// `hlo-lsp replay`'s arguments: ours, and run_hlo_module's spellings of them
// (contracts.md, "replay: run_hlo_module's spellings"), so that a replay
// command from XLA's guide works as pasted.
#ifndef HLO_LSP_SERVER_CLI_REPLAY_FLAGS_H_
#define HLO_LSP_SERVER_CLI_REPLAY_FLAGS_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"

namespace hlo_lsp::cli {

struct ReplayFlags {
  std::string module_path;
  std::string platform = "cpu";  // cpu | gpu
  std::string snapshot, args, out;
  std::string compare;         // "", cpu, snapshot or module
  std::string compare_module;  // --compare MODULE2
  std::string bisect;          // --bisect FILE_OR_DIR (no MODULE then)
  // run_hlo_module's --input_format: "" (from the content), hlo, pb, pbtxt,
  // snapshot or unoptimized_snapshot.
  std::string input_format;
  bool force_fake = false, stats = false, json = false;
  bool print_literals = false;  // every element of every output
  uint32_t seed = 0;
  double timeout = 600, atol = 1e-3, rtol = 1e-3;
  int64_t memory_limit = 0;  // 0: the default
};

// Every flag takes `--flag VALUE` and `--flag=VALUE`. An error's message is
// the usage error to print (exit 2).
absl::StatusOr<ReplayFlags> ParseReplayFlags(int argc, char** argv);

}  // namespace hlo_lsp::cli

#endif  // HLO_LSP_SERVER_CLI_REPLAY_FLAGS_H_
