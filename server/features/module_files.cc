// hlo/moduleFiles: every file XLA wrote for the module a file belongs to
// (index/module_files.h), read from its folder's listing: complete for
// protos, snapshots and the rest, which the index does not hold, and right
// from the start, while the first indexing is still under way.
#include "index/module_files.h"

#include <filesystem>
#include <string>

#include "server/features/index_locations.h"
#include "server/features/workspace_features.h"

namespace hlo_lsp {

ModuleFileEntry ModuleFileEntryOf(const hlo::index::DumpFile& f) {
  ModuleFileEntry entry{PathToUri(NormalPath(f.path)), f.label, std::nullopt,
                        std::string(hlo::index::DumpFileKindName(f.kind))};
  if (f.kind == hlo::index::DumpFileKind::kPass && f.dump.step >= 0) {
    entry.step = f.dump.step;
  }
  return entry;
}

Result<std::vector<ModuleFileEntry>> ModuleFiles(const UriParams& params) {
  std::string path = UriToPath(params.uri);
  if (path.empty()) return InvalidParams("expected {uri} with a file URI");
  std::vector<ModuleFileEntry> out;
  for (const hlo::index::DumpFile& f :
       hlo::index::ModuleFilesOfPath(NormalPath(path)).files) {
    out.push_back(ModuleFileEntryOf(f));
  }
  return out;
}

}  // namespace hlo_lsp
