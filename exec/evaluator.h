// The CPU evaluator: runs a module's entry computation on literals, one
// instruction at a time over dense row-major arrays, with XLA's semantics.
// Every participant of a multi-device module (replicas x partitions) runs
// in its own thread and collectives exchange data between them.
#ifndef HLO_LSP_EXEC_EVALUATOR_H_
#define HLO_LSP_EXEC_EVALUATOR_H_

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "exec/literal.h"
#include "hlo/syntax.h"

namespace hlo::exec {

struct EvalOptions {
  bool collect_stats = false;
  // With collect_stats: only the first NaN/Inf origin (and that
  // instruction's statistics) must be what running every instruction would
  // report, not every instruction's statistics, so fusions may run fused
  // (FusionStatsRule, evaluator_internal.h). Single-participant runs only;
  // others record everything.
  bool origin_only = false;
  int max_call_depth = 64;
  // Stop after this many instruction evaluations (0: no limit); guards
  // runaway while loops when no process time limit is set.
  int64_t max_steps = 0;
};

// Statistics of one instruction's results over every time it ran (float
// and integer arrays; tuples are skipped).
struct InstructionStats {
  Id instruction = kNone;
  int64_t runs = 0;
  int64_t elements = 0;
  int64_t nan_count = 0;
  int64_t inf_count = 0;
  double min = std::numeric_limits<double>::infinity();
  double max = -std::numeric_limits<double>::infinity();
  double sum = 0;  // of finite values
  double mean() const {
    int64_t finite = elements - nan_count - inf_count;
    return finite > 0 ? sum / finite : 0;
  }
};

struct EvalResult {
  // One result per participant (replica-major: replica * partitions + p).
  std::vector<Value> results;
  std::vector<InstructionStats> stats;  // participant 0, execution order
  Id first_nonfinite = kNone;  // first instruction run that made NaN/Inf
  int64_t steps = 0;
  // origin_only: fusion runs fused without statistics inside, fused runs
  // whose result held a NaN/Inf and ran again op by op, and whether the
  // whole run started again op by op.
  int64_t fused_runs = 0, fused_reruns = 0;
  bool restarted = false;
};

struct DeviceCount {
  int64_t replicas = 1;
  int64_t partitions = 1;
  int64_t total() const { return replicas * partitions; }
};
DeviceCount ModuleDevices(const ParsedFile& file, Id module);

// The pre-pass: every instruction reachable from the entry can be run
// here. Errors name the op (or custom-call target) and its 1-based line.
absl::Status CheckSupported(const ParsedFile& file, Id module);

// Peak bytes the evaluation holds at once (every participant together),
// from the shapes alone; nullopt when a size overflows.
std::optional<int64_t> EstimatePeakMemory(const ParsedFile& file, Id module);

// The entry's parameter shapes in parameter-number order.
absl::StatusOr<std::vector<LiteralShape>> EntryParameterShapes(
    const ParsedFile& file, Id module);

// Runs the entry computation. `args[d]` are the arguments of participant d
// (a single set is used by every participant).
absl::StatusOr<EvalResult> Evaluate(const ParsedFile& file, Id module,
                                    const std::vector<std::vector<Value>>& args,
                                    const EvalOptions& options = {});

}  // namespace hlo::exec

#endif  // HLO_LSP_EXEC_EVALUATOR_H_
