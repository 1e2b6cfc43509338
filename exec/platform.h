// Where a replay runs. A Backend runs a module's entry computation for one
// participant and returns its result with per-instruction statistics, so
// that Replay() takes the CPU evaluator or a device backend alike. The GPU
// backend (exec/gpu/, built when CUDA is found) is reached through
// MakeGpuBackend(); without it that returns nullptr.
#ifndef HLO_LSP_EXEC_PLATFORM_H_
#define HLO_LSP_EXEC_PLATFORM_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "exec/evaluator.h"
#include "exec/literal.h"
#include "exec/stats.h"
#include "hlo/syntax.h"

namespace hlo::exec {

// The first instruction, in execution order, whose values differ between a
// device run and the CPU run of the same module (compare mode).
struct Divergence {
  Id instruction = kNone;
  int64_t run = 1;  // which run of the instruction (loops run it often)
  std::string
      detail;  // "3 of 64 elements differ (first at 5: cpu 1, gpu 1.5; ...)"
  InstructionStats cpu;  // that run's values on each side
  InstructionStats device;
};

struct BackendOptions {
  EvalOptions eval;
  // Also run the CPU evaluator's ops in lockstep and find the first
  // instruction whose values differ beyond the tolerance.
  bool compare_with_cpu = false;
  double atol = 1e-3, rtol = 1e-3;
};

struct BackendRun {
  Value result;
  std::vector<InstructionStats> stats;  // execution order
  Id first_nonfinite = kNone;
  std::vector<std::string> notes;  // choices made: ops run on the host, ...
  // Compare mode: the CPU run's result and the first divergence.
  Value reference;
  std::optional<Divergence> divergence;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual const char* name() const = 0;  // "cpu", "gpu"
  // Single-participant runs only; `args` in entry-parameter order.
  virtual absl::StatusOr<BackendRun> Run(const ParsedFile& file, Id module,
                                         const std::vector<Value>& args,
                                         const BackendOptions& options) = 0;
};

std::unique_ptr<Backend> MakeCpuBackend();
// nullptr when this build has no GPU backend.
std::unique_ptr<Backend> MakeGpuBackend();
bool GpuBackendBuilt();

struct GpuInfo {
  bool built = false;  // this build has the CUDA backend
  int device_count = 0;
  std::string name;  // device 0
  int compute_major = 0, compute_minor = 0;
  int64_t memory_bytes = 0;
  std::string error;  // why there is no usable device
  bool available() const { return built && device_count > 0; }
  std::string Describe()
      const;  // "NVIDIA H200 (sm_90, 139.8 GiB)" or "no GPU: ..."
};
// Asks the CUDA runtime in this process (initializes CUDA here).
GpuInfo QueryGpu();
// Asks in a short-lived child process, so that this process never
// initializes CUDA (a process that did must not fork children that use it);
// the answer is cached for the life of the process.
GpuInfo QueryGpuInChild();

// StatsOf (one array's statistics) is in exec/stats.h.
// Whether two arrays differ under the contracts' rule (CountDifferences):
// nullopt when they agree, else a one-line description.
std::optional<std::string> DescribeDifference(const Literal& cpu,
                                              const Literal& device,
                                              double atol, double rtol);

// The extras of a backend run (notes, reference result, divergence) as
// bytes, to cross the replay's child-process pipe.
std::string EncodeRunExtras(const BackendRun& run);
bool DecodeRunExtras(std::string_view bytes, BackendRun* run);

}  // namespace hlo::exec

#endif  // HLO_LSP_EXEC_PLATFORM_H_
