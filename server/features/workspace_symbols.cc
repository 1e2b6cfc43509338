// workspace/symbol and hlo.search over the workspace index.
#include <string>

#include "server/documents.h"
#include "server/features/index_locations.h"
#include "server/features/workspace_features.h"

namespace hlo_lsp {

Result<std::vector<WorkspaceSymbol>> WorkspaceSymbols(
    Workspace& workspace, const WorkspaceSymbolParams& params) {
  auto matches = workspace.index().Query(params.query, kMaxWorkspaceSymbols);
  if (!matches.ok())
    return InvalidParams(std::string(matches.status().message()));
  const bool utf16 = workspace.support().utf16;
  std::vector<WorkspaceSymbol> out;
  out.reserve(matches->size());
  for (const hlo::index::SymbolMatch& m : *matches) {
    out.push_back(WorkspaceSymbol{m.name, LspSymbolKind(m.kind),
                                  IndexLocation(m, utf16), m.module});
  }
  return out;
}

Result<std::vector<SearchHit>> SearchSymbols(
    Workspace& workspace, const SearchArgs& args,
    const std::atomic<bool>* cancelled) {
  if (args.query.empty()) return InvalidParams("hlo.search needs {query}");
  // An explicit search is complete, unlike workspace/symbol as you type.
  if (!workspace.WaitForFirstIndex(cancelled)) return Cancelled();
  workspace.AddFolderIfNone(args.root);
  auto matches = workspace.index().Query(args.query, kMaxSearchHits);
  if (!matches.ok())
    return InvalidParams(std::string(matches.status().message()));
  std::vector<SearchHit> out;
  out.reserve(matches->size());
  for (const hlo::index::SymbolMatch& m : *matches) {
    // The absolute path: the editor opens it from anywhere.
    out.push_back(SearchHit{m.absolute_path, m.line, m.column,
                            std::string(hlo::index::SymbolKindName(m.kind)),
                            m.name, m.module, m.opcode, m.shape});
  }
  return out;
}

}  // namespace hlo_lsp
