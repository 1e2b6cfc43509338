// workspace/symbol and hlo.search over the workspace index.
#include <chrono>
#include <string>

#include "server/documents.h"
#include "server/features/index_locations.h"
#include "server/features/workspace_features.h"

namespace hlo_lsp {
namespace {

// The index's query with the request's cancellation flag and a deadline:
// a request thread is never held longer (there are only a few of them).
Result<std::vector<hlo::index::SymbolMatch>> RunQuery(
    Workspace& workspace, const std::string& query, size_t limit,
    std::chrono::milliseconds deadline, const std::atomic<bool>* cancelled) {
  hlo::index::QueryControl control;
  control.cancelled = cancelled;
  control.deadline = std::chrono::steady_clock::now() + deadline;
  auto matches = workspace.index().Query(query, limit, control);
  if (matches.ok()) return std::move(*matches);
  const std::string message(matches.status().message());
  switch (matches.status().code()) {
    case absl::StatusCode::kCancelled:
      return Cancelled();
    case absl::StatusCode::kDeadlineExceeded:
      return RequestFailed(message);
    default:
      return InvalidParams(message);
  }
}

}  // namespace

Result<std::vector<WorkspaceSymbol>> WorkspaceSymbols(
    Workspace& workspace, const WorkspaceSymbolParams& params, size_t limit,
    const std::atomic<bool>* cancelled) {
  auto matches = RunQuery(workspace, params.query, limit,
                          kWorkspaceSymbolDeadline, cancelled);
  if (const RpcError* error = std::get_if<RpcError>(&matches)) return *error;
  const bool utf16 = workspace.support().utf16;
  // A client that resolves ranges gets them one by one as it shows them:
  // no line is read for a UTF-16 column here, however many symbols match.
  const bool resolve = workspace.support().symbol_resolve;
  std::vector<WorkspaceSymbol> out;
  out.reserve(std::get<0>(matches).size());
  for (hlo::index::SymbolMatch& m : std::get<0>(matches)) {
    WorkspaceSymbol s;
    s.kind = LspSymbolKind(m.kind);
    if (resolve) {
      s.location.uri = PathToUri(m.absolute_path);
      s.site = SymbolSite{m.line, m.column,
                          (m.flags & hlo::index::kFlagNonAsciiPrefix) != 0};
    } else {
      s.location = IndexLocation(m, utf16);
    }
    s.name = std::move(m.name);
    s.container = std::move(m.module);
    out.push_back(std::move(s));
  }
  return out;
}

Result<WorkspaceSymbol> ResolveWorkspaceSymbol(const Workspace& workspace,
                                               const WorkspaceSymbol& symbol) {
  WorkspaceSymbol out = symbol;
  if (!out.site) return out;  // it has its range already
  const std::string path = UriToPath(out.location.uri);
  if (path.empty()) return InvalidParams("not a file URI: " + out.location.uri);
  out.location.range =
      IndexRange(path, out.site->line, out.site->column, out.name,
                 out.site->non_ascii_prefix, workspace.support().utf16);
  out.site.reset();
  return out;
}

Result<std::vector<SearchHit>> SearchSymbols(
    Workspace& workspace, const SearchArgs& args,
    const std::atomic<bool>* cancelled) {
  if (args.query.empty()) return InvalidParams("hlo.search needs {query}");
  // An explicit search is complete, unlike workspace/symbol as you type.
  if (!workspace.WaitForFirstIndex(cancelled)) return Cancelled();
  workspace.AddFolderIfNone(args.root);
  auto matches = RunQuery(workspace, args.query, kMaxSearchHits,
                          kSearchDeadline, cancelled);
  if (const RpcError* error = std::get_if<RpcError>(&matches)) return *error;
  std::vector<SearchHit> out;
  for (const hlo::index::SymbolMatch& m : std::get<0>(matches)) {
    // The absolute path: the editor opens it from anywhere.
    out.push_back(SearchHit{m.absolute_path, m.line, m.column,
                            std::string(hlo::index::SymbolKindName(m.kind)),
                            m.name, m.module, m.opcode, m.shape});
  }
  return out;
}

}  // namespace hlo_lsp
