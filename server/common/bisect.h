// Bisecting a module's compilation: its stage and pass dumps (index/
// module_files.h) run in step order on the same arguments, each in the
// replay child with its limits; the answer is the first pass after which an
// output differs from the first dump's beyond the tolerance, or none, or
// the stop where a pass changes the entry signature (later dumps take other
// arguments). Both faces use it: `hlo-lsp replay --bisect` prints it, the
// editor's hlo.bisect answers it as JSON.
#ifndef HLO_LSP_SERVER_COMMON_BISECT_H_
#define HLO_LSP_SERVER_COMMON_BISECT_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "exec/replay.h"
#include "index/module_files.h"
#include "server/common/snapshot.h"

namespace hlo_lsp {

struct BisectDumps {
  std::string module_name;
  std::vector<hlo::index::DumpFile> dumps;  // stages and passes, in order
};

// The dumps of FILE's module, or of the one module of a folder.
// InvalidArgument: no dump, several modules, or FILE is not an HLO text dump.
absl::StatusOr<BisectDumps> BisectDumpsOf(const std::string& file_or_dir);

// One line's name for a dump: "step 3 after fusion (opt)", or its stage.
std::string BisectLabel(const hlo::index::DumpFile& dump);

struct BisectOptions {
  // Limits, seed, cancel; `arguments` when given run the first dump.
  hlo::exec::ReplayOptions replay;
  // When set (and it holds arguments): the first dump runs on them.
  const SnapshotContents* snapshot = nullptr;
  double atol = 1e-3, rtol = 1e-3;
  // Collect each run's statistics to name the first instruction of the
  // changing pass whose values differ from the dump before it.
  bool stats = false;
};

enum class BisectVerdict {
  kUnchanged,  // no dump's outputs differ from the first's
  kChanged,    // `changed` names the pass
  kSignature,  // stopped: `changed` is the dump whose signature differs
  kRefused,    // a dump could not be read or parsed, or was refused
  kFailed,     // a run failed (timeout, memory, crash) or was cancelled
};

struct BisectStep {
  size_t index = 0;  // into BisectDumps::dumps
  enum Kind { kReference, kSame, kDiffers } kind = kSame;
};

// The first instruction of the `after` dump (execution order) whose
// statistics differ from the instruction of that name in the `before` dump.
struct BisectInstruction {
  std::string name, opcode;
  int64_t line = 0;    // 1-based, in the `after` dump
  std::string detail;  // "min 0 -> 2, max ..." (before -> after)
};

// The first instruction of `after` (execution order) whose statistics
// differ from those of the instruction with its name in `before`, under the
// contracts' tolerance rule: names survive most passes, and the first that
// differs is where to look. Also `replay A --compare B --stats`.
std::optional<BisectInstruction> FirstDifferingInstruction(
    const std::vector<hlo::exec::NamedStats>& before,
    const std::vector<hlo::exec::NamedStats>& after, double atol, double rtol);

struct BisectResult {
  BisectVerdict verdict = BisectVerdict::kUnchanged;
  std::vector<BisectStep> steps;  // the dumps that ran, in order
  // kChanged / kSignature: the dump that changed it and the one before it.
  std::optional<size_t> changed, before;
  std::vector<std::string> mismatches;  // "out0: 3 of 4 elements differ ..."
  std::optional<BisectInstruction> instruction;
  size_t failed = 0;           // kRefused / kFailed: which dump
  std::string error;           // kRefused / kFailed: why
  bool read_error = false;     // kRefused because the dump did not read/parse
  bool from_snapshot = false;  // the arguments came from the snapshot
};

// Runs the walk; `on_step` (may be empty) hears each dump as it finishes.
BisectResult RunBisect(const BisectDumps& dumps, const BisectOptions& options,
                       const std::function<void(const BisectStep&)>& on_step);

}  // namespace hlo_lsp

#endif  // HLO_LSP_SERVER_COMMON_BISECT_H_
