// hlo/moduleFiles: the stages and pass dumps of a file's module, in order.
#include <filesystem>
#include <string>

#include "server/features/index_locations.h"
#include "server/features/workspace_features.h"

namespace hlo_lsp {
namespace {

// The stage label of a dump file: its name without the module prefix.
ModuleFileEntry EntryOf(const hlo::index::ModuleFile& f) {
  const hlo::index::DumpFileName& d = f.dump;
  std::string stage;
  switch (d.kind) {
    case hlo::index::DumpKind::kStage:
      stage = d.stage;
      break;
    case hlo::index::DumpKind::kPassDump:
      stage =
          d.pipeline + ".after_" + d.after_pass + ".before_" + d.before_pass;
      break;
    case hlo::index::DumpKind::kPassStep:
      stage = d.pipeline + "." + d.before_pass;
      break;
    default:
      stage = std::filesystem::path(f.path).filename().string();
  }
  ModuleFileEntry entry{PathToUri(NormalPath(f.path)), stage, std::nullopt};
  if (d.step >= 0) entry.step = d.step;
  return entry;
}

}  // namespace

Result<std::vector<ModuleFileEntry>> ModuleFiles(
    hlo::index::WorkspaceIndex& index, const UriParams& params) {
  std::string path = UriToPath(params.uri);
  if (path.empty()) return InvalidParams("expected {uri} with a file URI");
  std::vector<ModuleFileEntry> out;
  bool self_listed = false;
  const std::string self = NormalPath(path);
  for (const hlo::index::ModuleFile& f : ModuleFilesOf(index, path)) {
    if (NormalPath(f.path) == self) self_listed = true;
    out.push_back(EntryOf(f));
  }
  if (!self_listed) {
    // A .pb or a file the index does not hold: still list the file itself.
    out.push_back(ModuleFileEntry{
        PathToUri(self), std::filesystem::path(self).filename().string(),
        std::nullopt});
  }
  return out;
}

}  // namespace hlo_lsp
