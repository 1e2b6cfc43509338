// The pass timeline of a module: its stage and pass dumps in history order,
// each diffed against the dump before it (hlo/diff.h). Files are read,
// hashed and parsed in parallel, a window at a time so that memory stays
// bounded by a few dumps; a dump byte-identical to the one before it is not
// parsed again (passes that change nothing are the common case).
#ifndef HLO_LSP_HISTORY_TIMELINE_H_
#define HLO_LSP_HISTORY_TIMELINE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "hlo/diff.h"
#include "index/module_files.h"

namespace hlo::history {

struct TimelineStep {
  index::DumpFile file;
  bool has_base = false;        // diffed against an earlier dump
  bool same_as_before = false;  // byte-identical to the dump before it
  int64_t added = 0, removed = 0, changed = 0, renamed = 0;
  int64_t computations_added = 0, computations_removed = 0;
  // Why the dump could not be read, or its first parse error as
  // "PATH:LINE:COL: MESSAGE" (what parsed is still diffed); "" when clean.
  std::string error;
  ModuleDiff diff;  // kept only with TimelineOptions::keep_diffs
  // The pass this dump is "after": the pass dump's after_X, the stage name.
  std::string pass_name() const;
};

struct TimelineOptions {
  bool keep_diffs = false;
  bool metadata = false;  // DiffOptions::metadata
  int threads = 0;        // 0: the hardware's
  // The bytes of dumps read and parsed at once (at least two dumps).
  uint64_t window_bytes = uint64_t{256} << 20;
};

// `dumps` are HLO text files in history order (index::HloTextHistory).
std::vector<TimelineStep> BuildTimeline(
    const std::vector<index::DumpFile>& dumps,
    const TimelineOptions& options = {});

// Instructions with at least one changed field (a diff lists each field).
int64_t ChangedInstructions(const ModuleDiff& diff);

}  // namespace hlo::history

#endif  // HLO_LSP_HISTORY_TIMELINE_H_
