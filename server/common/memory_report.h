// `hlo-lsp memory` and hlo.memory: what a file says about a module's
// memory. FILE may be the buffer-assignment dump, the memory-usage report,
// a module dump (its module's buffer assignment is found beside it,
// index/module_files.h), or a log holding XLA's OOM report, whose peak
// buffers are matched to the instructions of the module's optimized dump.
// Both faces render the result; no JSON here.
#ifndef HLO_LSP_SERVER_COMMON_MEMORY_REPORT_H_
#define HLO_LSP_SERVER_COMMON_MEMORY_REPORT_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "hlo/buffer_assignment.h"
#include "hlo/oom_log.h"
#include "server/common/file_reader.h"

namespace hlo_lsp {

struct OomMatch {
  std::string name, computation;
  uint32_t line = 0;  // 1-based, in MemoryReport::module_path
};

struct MemoryReport {
  enum class Source { kBufferAssignment, kMemoryReport, kOomLog };
  Source source = Source::kBufferAssignment;
  std::string path;  // the file read
  // Its text: `dump` holds views into it.
  std::shared_ptr<const FileContents> contents;
  std::string module_path;  // OOM logs: the module matched against, or ""
  hlo::BufferAssignmentDump dump;  // kBufferAssignment, kMemoryReport
  hlo::OomLog oom;                 // kOomLog
  std::vector<std::vector<OomMatch>> matches;  // per oom.buffers entry
  // A sentence for the user when something was left out ("no optimized
  // module beside the log: give one with --module").
  std::string note;

  // "buffer-assignment", "memory-report", "oom-log".
  const char* SourceName() const;
  // The per-kind totals, from the allocations or the OOM log's stats.
  hlo::AllocationTotals Totals() const;
};

// Fails with NotFound when FILE is a module without a buffer assignment or
// memory report (nothing to show, exit 1), InvalidArgument when the file
// holds none of the formats, and the reader's error when a file cannot be
// read. `module` (may be "") is the optimized module for an OOM log.
absl::StatusOr<MemoryReport> LoadMemoryReport(const std::string& path,
                                              const std::string& module);

// The buffer-assignment (else memory-report) file of the module `path`
// belongs to, preferring the one of `path`'s own stage; "" when none.
std::string MemoryFileOfModule(const std::string& path);

}  // namespace hlo_lsp

#endif  // HLO_LSP_SERVER_COMMON_MEMORY_REPORT_H_
