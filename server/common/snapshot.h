// What an HloSnapshot (or another decodable proto) holds for replay: the
// module as text, the arguments (per partition) and the recorded results.
// Both faces use it: `hlo-lsp replay` and the editor's replay command. It
// lives above exec/ because exec/ must not depend on the proto decoder.
#ifndef HLO_LSP_SERVER_COMMON_SNAPSHOT_H_
#define HLO_LSP_SERVER_COMMON_SNAPSHOT_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "exec/npz.h"
#include "hlo/syntax.h"

namespace hlo_lsp {

struct SnapshotContents {
  std::string module_text;           // printed HLO text; empty without a module
  bool has_arguments = false;        // a snapshot kind (even with none)
  int partitions = 0;                // partitions with arguments
  hlo::exec::NamedArrays arguments;  // arg0, ... (partition 0's)
  // Every partition's arguments when there are several (index: partition).
  std::vector<std::vector<hlo::exec::Value>> partition_arguments;
  hlo::exec::NamedArrays results;  // out0, ... (empty when not recorded)
};

// Decodes proto bytes (gzip and chunked snapshots included).
absl::StatusOr<SnapshotContents> LoadSnapshot(std::string_view bytes);

// The arguments to replay `module` with: partition 0's, or with several
// partitions the whole arrays assembled from their shards by each
// parameter's sharding (an unoptimized snapshot of a sharded jit).
absl::StatusOr<std::vector<hlo::exec::Value>> SnapshotArguments(
    const SnapshotContents& snapshot, const hlo::ParsedFile& file,
    hlo::Id module);

}  // namespace hlo_lsp

#endif  // HLO_LSP_SERVER_COMMON_SNAPSHOT_H_
