// Whole arguments from per-partition shards. An HloUnoptimizedSnapshot of a
// sharded jit records, for every partition, the shard of each argument that
// partition received; the module it holds is not partitioned yet, so a replay
// needs the whole arrays, put together by each parameter's tiled sharding.
#ifndef HLO_LSP_EXEC_SHARDED_ARGS_H_
#define HLO_LSP_EXEC_SHARDED_ARGS_H_

#include <vector>

#include "absl/status/statusor.h"
#include "exec/literal.h"
#include "hlo/syntax.h"

namespace hlo::exec {

// `partition_args[p]` are partition p's arguments, in parameter order. An
// argument already of the parameter's shape is taken from partition 0
// (replicated); otherwise the parameter's `sharding=` must be tiled and
// every tile must have a partition. Errors name the argument and why.
absl::StatusOr<std::vector<Value>> AssembleShardedArguments(
    const ParsedFile& file, Id module,
    const std::vector<std::vector<Value>>& partition_args);

}  // namespace hlo::exec

#endif  // HLO_LSP_EXEC_SHARDED_ARGS_H_
