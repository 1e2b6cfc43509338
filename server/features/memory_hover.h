// The buffer assignment in the editor, for the optimized stage of a module
// whose -buffer-assignment.txt (or memory report) lies beside it: hover on
// an instruction gives its allocation, offset and size and whether it is
// live at the peak; a lens on ENTRY gives the total and the largest
// allocation; hlo.memory {uri} answers `hlo-lsp memory --json`. The parsed
// assignment is kept per file while its size and mtime stay the same.
#ifndef HLO_LSP_SERVER_FEATURES_MEMORY_HOVER_H_
#define HLO_LSP_SERVER_FEATURES_MEMORY_HOVER_H_

#include <ctime>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "server/common/memory_report.h"
#include "server/documents.h"
#include "server/protocol.h"
#include "server/protocol_workspace.h"
#include "server/result.h"

namespace hlo_lsp {

class MemoryAssignments {
 public:
  // A markdown line for the instruction under `position`, or nullopt.
  // With `would_block` (on the reader thread): answers from what is loaded
  // only, and sets *would_block instead of listing, loading or waiting for
  // another thread's load.
  std::optional<std::string> Note(const Snapshot& snap, Position position,
                                  bool* would_block = nullptr);
  // Looks the module's assignment up (and loads it) ahead of the first
  // hover, which otherwise lists the dump folder under mutex_: at didOpen,
  // off the reader thread. `path` is NormalPath'd.
  void Warm(const std::string& path) { ForModule(path); }
  // "memory: 96B total, largest allocation 32B" on the ENTRY line.
  std::optional<CodeLens> Lens(const Snapshot& snap);
  // hlo.memory {uri}: any file `hlo-lsp memory` takes.
  Result<MemoryReply> Reply(const UriParams& params);

 private:
  struct Entry {
    std::string memory_path;  // "" when the module has none
    int64_t size = -1;
    timespec mtime{};
    time_t checked = 0;  // when memory_path was looked up
    // The folder had no assignment for the module at this mtime: looked up
    // again only when the folder changes (listing a dump folder of
    // thousands of files every few seconds was a hover outlier).
    bool none_in_folder = false;
    timespec folder_mtime{};
    std::shared_ptr<const MemoryReport> report;
  };
  // The assignment of the optimized module at `path`, or null.
  // With `would_block`, see Note.
  std::shared_ptr<const MemoryReport> ForModule(const std::string& path,
                                                bool* would_block = nullptr);

  std::mutex mutex_;
  std::map<std::string, Entry> entries_;  // by module path
};

}  // namespace hlo_lsp

#endif  // HLO_LSP_SERVER_FEATURES_MEMORY_HOVER_H_
