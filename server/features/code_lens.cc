// Code lens on the HloModule line: the module's other stages and pass dumps
// (a click lists all its files through hlo.moduleFiles), then the pass lenses
// (pass_navigation.cc).
#include <string>

#include "server/features/index_locations.h"
#include "server/features/workspace_features.h"

namespace hlo_lsp {
namespace {
constexpr size_t kListedStages = 4;
constexpr uint32_t kKeywordLength = 9;  // "HloModule"
}  // namespace

std::vector<CodeLens> CodeLenses(const Snapshot& snap) {
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
      ModuleFiles(UriParams{snap.uri});
  const auto* all = std::get_if<std::vector<ModuleFileEntry>>(&listed);
  if (all == nullptr) return {};
  // The lens names the other stages and pass dumps; the command lists all.
  std::vector<ModuleFileEntry> stages;
  for (const ModuleFileEntry& f : *all) {
    if (f.kind == "stage" || f.kind == "pass") stages.push_back(f);
  }
  const std::vector<ModuleFileEntry>* files = &stages;
  if (files->size() <= 1) return PassLenses(snap);
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
  std::vector<CodeLens> lenses = {
      CodeLens{Range{{line, 0}, {line, kKeywordLength}},
               Command{title, "hlo.moduleFiles", CommandArgs{snap.uri}}}};
  for (CodeLens& lens : PassLenses(snap)) lenses.push_back(std::move(lens));
  return lenses;
}

}  // namespace hlo_lsp
