// Parts of one job run at once, each on a thread of its own, that neither
// abort the process when the system refuses a thread nor when a part runs
// out of memory: under a tight `ulimit -v` or `-u` a command then ends
// with a clear error instead of std::terminate.
#ifndef HLO_LSP_BASE_RUN_PARALLEL_H_
#define HLO_LSP_BASE_RUN_PARALLEL_H_

#include <functional>

namespace hlo::base {

// Runs work(0), ..., work(parts - 1): part 0 on the calling thread, each
// other on a thread of its own, whose malloc heap takes huge pages in a
// one-shot command (AdviseThreadHeapHugePages). A part whose thread the
// system refuses to start runs on the calling thread instead. False when
// any part threw std::bad_alloc, which is caught; the caller reports the
// failure.
bool RunInParallel(int parts, const std::function<void(int)>& work);

}  // namespace hlo::base

#endif  // HLO_LSP_BASE_RUN_PARALLEL_H_
