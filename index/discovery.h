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

}  // namespace hlo::index

#endif  // HLO_LSP_INDEX_DISCOVERY_H_
