// A dump file's module siblings without an index: the files XLA wrote for
// the same module in the same folder, in step order. Used by the server for
// documents outside the workspace and by `replay --bisect`.
#ifndef HLO_LSP_INDEX_SIBLINGS_H_
#define HLO_LSP_INDEX_SIBLINGS_H_

#include <string>
#include <vector>

#include "index/workspace_index.h"

namespace hlo::index {

// The same module's dump files beside `path` in its own folder (flat, the
// listing bounded), for a file the index does not hold; read, not indexed.
// Empty when `path` is not an HLO text dump. Refreshing the file's folder
// instead once walked all of /tmp (57,000 files) for one file opened from
// there, and put them in workspace/symbol.
std::vector<ModuleFile> SiblingModuleFiles(const std::string& path);

}  // namespace hlo::index

#endif  // HLO_LSP_INDEX_SIBLINGS_H_
