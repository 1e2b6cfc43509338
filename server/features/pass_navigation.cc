// hlo.previousPass / hlo.nextPass and the pass lenses of a stage or pass
// dump: its neighbours in the module's history (index/module_files.h:
// before_optimizations, the pass dumps by step, the other stages).
#include <optional>
#include <string>
#include <vector>

#include "server/features/index_locations.h"
#include "server/features/workspace_features.h"

namespace hlo_lsp {
namespace {

// The module's HLO text dumps and the index of `path` among them.
struct Place {
  std::vector<hlo::index::DumpFile> history;
  std::optional<size_t> self;
};

Place PlaceOf(const std::string& path) {
  Place place;
  const std::string self = NormalPath(path);
  place.history =
      hlo::index::HloTextHistory(hlo::index::ModuleFilesOfPath(self));
  for (size_t i = 0; i < place.history.size(); ++i) {
    if (place.history[i].path == self) place.self = i;
  }
  return place;
}

// A lens command's `uri`: the editor's own spelling for the open file.
Command Lens(std::string title, std::string command, std::string uri,
             std::optional<std::string> other = std::nullopt) {
  Command c{std::move(title), std::move(command), CommandArgs{std::move(uri)}};
  c.argument.other_uri = std::move(other);
  return c;
}

}  // namespace

Result<std::optional<ModuleFileEntry>> AdjacentDump(const UriParams& params,
                                                    int step) {
  std::string path = UriToPath(params.uri);
  if (path.empty()) return InvalidParams("expected {uri} with a file URI");
  Place place = PlaceOf(path);
  if (!place.self) return std::optional<ModuleFileEntry>();
  const size_t i = *place.self;
  if ((step < 0 && i == 0) || (step > 0 && i + 1 >= place.history.size())) {
    return std::optional<ModuleFileEntry>();
  }
  return std::optional<ModuleFileEntry>(
      ModuleFileEntryOf(place.history[step < 0 ? i - 1 : i + 1]));
}

std::vector<CodeLens> PassLenses(const Snapshot& snap) {
  std::string path = UriToPath(snap.uri);
  if (path.empty()) return {};
  Place place = PlaceOf(path);
  if (!place.self || place.history.size() < 2) return {};
  const size_t i = *place.self;
  uint32_t line = 0;
  for (const hlo::Module& m : snap.file->modules) {
    if (m.has_header) {
      line = snap.ToPosition(m.span.begin).line;
      break;
    }
  }
  const Range range{{line, 0}, {line, 0}};
  std::vector<CodeLens> lenses;
  if (i > 0) {
    lenses.push_back(
        {range, Lens("◀ previous pass", "hlo.previousPass", snap.uri)});
  }
  if (i + 1 < place.history.size()) {
    lenses.push_back({range, Lens("next pass ▶", "hlo.nextPass", snap.uri)});
  }
  if (i > 0) {
    lenses.push_back(
        {range, Lens("diff with previous", "hlo.diff",
                     PathToUri(place.history[i - 1].path), snap.uri)});
  }
  return lenses;
}

}  // namespace hlo_lsp
