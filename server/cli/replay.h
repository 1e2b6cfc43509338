// `hlo-lsp replay`: the command-line face of exec/replay.h. The snapshot
// helpers live here because exec/ must not depend on the proto decoder.
#ifndef HLO_LSP_SERVER_CLI_REPLAY_H_
#define HLO_LSP_SERVER_CLI_REPLAY_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "exec/npz.h"
#include "hlo/syntax.h"

namespace hlo_lsp::cli {

// What an HloSnapshot (or another decodable proto) holds for replay.
struct SnapshotContents {
  std::string module_text;        // printed HLO text; empty without a module
  bool has_arguments = false;        // a snapshot kind (even with none)
  int partitions = 0;                // partitions with arguments
  hlo::exec::NamedArrays arguments;  // arg0, ... (partition 0's)
  // Every partition's arguments when there are several (index: partition).
  std::vector<std::vector<hlo::exec::Value>> partition_arguments;
  hlo::exec::NamedArrays results;    // out0, ... (empty when not recorded)
};

// Decodes proto bytes (gzip and chunked snapshots included).
absl::StatusOr<SnapshotContents> LoadSnapshot(std::string_view bytes);

// The arguments to replay `module` with: partition 0's, or with several
// partitions the whole arrays assembled from their shards by each
// parameter's sharding (an unoptimized snapshot of a sharded jit).
absl::StatusOr<std::vector<hlo::exec::Value>> SnapshotArguments(
    const SnapshotContents& snapshot, const hlo::ParsedFile& file, hlo::Id module);

// Entry point (declared in commands.h): int RunReplay(int argc, char** argv).

}  // namespace hlo_lsp::cli

#endif  // HLO_LSP_SERVER_CLI_REPLAY_H_
