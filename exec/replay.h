// Replay of a module: the API the CLI and the LSP server call. It checks
// the module up front (unsupported ops, the memory estimate), makes or
// takes the arguments, and runs it in a child process with a memory and a
// time limit, so a crash, an OOM or a timeout there is reported and the
// caller lives on: on the CPU evaluator, or on the GPU backend
// (Platform::kGpu, exec/gpu/, a CUDA build) with the CPU's results beside
// it in compare mode.
#ifndef HLO_LSP_EXEC_REPLAY_H_
#define HLO_LSP_EXEC_REPLAY_H_

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "exec/evaluator.h"
#include "exec/npz.h"
#include "hlo/syntax.h"

namespace hlo::exec {

enum class Platform { kCpu, kGpu };

struct ReplayOptions {
  Platform platform = Platform::kCpu;
  uint32_t seed = 0;
  // Arguments by entry-parameter order (from --args or a snapshot); empty:
  // fake data.
  std::vector<Value> arguments;
  bool arguments_given = false;  // use `arguments` even when empty
  bool collect_stats = false;
  // With collect_stats: only the NaN origin is wanted, not every
  // instruction's statistics (EvalOptions::origin_only).
  bool origin_only = false;
  int64_t memory_limit = 0;      // bytes; 0: 80% of physical memory
  double timeout_seconds = 600;  // wall clock; 0: none
  bool use_child_process = true;
  // Set from another thread to stop the run (the child is killed).
  const std::atomic<bool>* cancel = nullptr;
  // Tests only: the child raises this signal instead of evaluating.
  int crash_signal_for_testing = 0;
  // GPU only: also run the CPU evaluator and find the first instruction
  // whose values differ by more than atol AND rtol.
  bool compare_with_cpu = false;
  double atol = 1e-3, rtol = 1e-3;
};

enum class ReplayOutcome {
  kOk,
  kRefused,  // bad input or refused up front (exit 1)
  kFailed,   // failed while running: timeout, memory, crash (exit 3)
};

struct NamedStats {
  InstructionStats stats;
  std::string name;  // instruction name
  std::string opcode;
  int64_t line = 0;  // 1-based
};

// The first instruction whose values differ between the GPU and the CPU
// (compare mode), with that run's statistics on each side.
struct DivergenceReport {
  NamedStats cpu, gpu;
  int64_t run = 1;  // which run of the instruction
  // "3 of 64 elements differ (first at 5: cpu 1, gpu 1.5; ...)"
  std::string detail;
};

struct ReplayResult {
  ReplayOutcome outcome = ReplayOutcome::kOk;
  std::string error;
  NamedArrays arguments;          // what ran (arg0, ...)
  NamedArrays outputs;            // out0, ... of participant 0
  std::vector<NamedStats> stats;  // execution order
  std::optional<NamedStats> first_nonfinite;
  std::vector<std::string> notes;  // fake-data constraints, elided constants
  NamedArrays reference_outputs;   // compare mode: the CPU run's outputs
  std::optional<DivergenceReport> divergence;
  int64_t participants = 1;
  int64_t estimated_bytes = 0;
  int64_t memory_limit = 0;
  double seconds = 0;
};

int64_t DefaultMemoryLimit();  // 80% of physical memory

ReplayResult Replay(const ParsedFile& file, Id module,
                    const ReplayOptions& options);

// Compares outputs with the tolerance rule of the contracts
// (CountDifferences, exec/stats.h: off by more than atol absolute AND rtol
// relative; NaN equals NaN). Returns one line per mismatching array (empty:
// they match).
std::vector<std::string> CompareOutputs(const NamedArrays& expected,
                                        const NamedArrays& actual,
                                        double atol = 1e-3, double rtol = 1e-3);

}  // namespace hlo::exec

#endif  // HLO_LSP_EXEC_REPLAY_H_
