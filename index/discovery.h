// Finds candidate HLO files under a folder: never follows directory symlinks
// (so no loops), skips unreadable folders and VCS metadata, and filters by
// name (dump_name.h). Content sniffing happens when the file is scanned.
#ifndef HLO_LSP_INDEX_DISCOVERY_H_
#define HLO_LSP_INDEX_DISCOVERY_H_

#include <filesystem>
#include <string>
#include <vector>

namespace hlo::index {

struct DiscoveryResult {
  std::vector<std::filesystem::path> files;  // sorted
  std::vector<std::string> warnings;         // unreadable folders, ...
};

// `root` may also be a single file, which is returned when it is a candidate.
DiscoveryResult DiscoverFiles(const std::filesystem::path& root,
                              size_t max_depth = 64);

// The candidate files in `file`'s own folder (not below it) whose dump
// names give the same module id as `file`'s, `file` among them when it is
// there; nothing when `file`'s name is not an HLO text dump name. Reads at
// most `max_entries` entries of the folder (a warning says when it
// stopped): for a file outside the indexed folders, whose folder may be
// /tmp or /etc and is not ours to walk. `file` should be absolute.
DiscoveryResult DiscoverDumpSiblings(const std::filesystem::path& file,
                                     size_t max_entries = 10000);

}  // namespace hlo::index

#endif  // HLO_LSP_INDEX_DISCOVERY_H_
