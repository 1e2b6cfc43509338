// Code lens on the HloModule line: the module's other stages and pass dumps
// (a click lists them all through hlo.moduleFiles).
#include <string>

#include "server/features/index_locations.h"
#include "server/features/workspace_features.h"

namespace hlo_lsp {
namespace {
constexpr size_t kListedStages = 4;
constexpr uint32_t kKeywordLength = 9;  // "HloModule"
}  // namespace

std::vector<CodeLens> CodeLenses(const Snapshot& snap,
                                 hlo::index::WorkspaceIndex& index) {
  if (snap.file == nullptr) return {};
  const hlo::Module* header = nullptr;
  for (const hlo::Module& m : snap.file->modules) {
    if (m.has_header) {
      header = &m;
      break;
    }
  }
  if (header == nullptr) return {};
  Result<std::vector<ModuleFileEntry>> listed =
      ModuleFiles(index, UriParams{snap.uri});
  const auto* files = std::get_if<std::vector<ModuleFileEntry>>(&listed);
  if (files == nullptr || files->size() <= 1) return {};
  std::string title = std::to_string(files->size() - 1) + " other stage" +
                      (files->size() == 2 ? "" : "s") + ":";
  const std::string self = PathToUri(NormalPath(UriToPath(snap.uri)));
  size_t shown = 0;
  for (const ModuleFileEntry& f : *files) {
    if (f.uri == self) continue;
    if (shown++ == kListedStages) {
      title += " ...";
      break;
    }
    title += " " + f.stage;
  }
  const uint32_t line = snap.ToPosition(header->span.begin).line;
  return {CodeLens{Range{{line, 0}, {line, kKeywordLength}},
                   Command{title, "hlo.moduleFiles", CommandArgs{snap.uri}}}};
}

}  // namespace hlo_lsp
