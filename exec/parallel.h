// A small persistent worker pool for the evaluator's heavy loops (dot,
// large elementwise ops). Safe across fork() (the replay child makes its own
// workers) and under concurrent callers (collective participants run as
// threads): a caller that finds the pool busy runs its tasks itself.
#ifndef HLO_LSP_EXEC_PARALLEL_H_
#define HLO_LSP_EXEC_PARALLEL_H_

#include <cstdint>
#include <functional>

namespace hlo::exec {

// Threads the evaluator uses for one large operation:
// std::thread::hardware_concurrency, or HLO_LSP_THREADS when it is set to a
// positive number.
int ExecThreads();

// Runs fn(0) ... fn(tasks - 1) and returns when all are done; task 0 runs on
// the calling thread, the others on pool workers when the pool is free,
// otherwise on the calling thread in turn. tasks > ExecThreads() is allowed
// (the extra tasks run on the caller).
void ParallelFor(int tasks, const std::function<void(int)>& fn);

// Splits [0, n) into at most `parts` contiguous ranges whose bounds are
// multiples of `grain` (except the end): range i of ParallelRanges.
struct Range {
  int64_t begin, end;
};
Range SplitRange(int64_t n, int parts, int64_t grain, int index);

}  // namespace hlo::exec

#endif  // HLO_LSP_EXEC_PARALLEL_H_
