// Workspace-level editor features, one file each. Each takes the workspace
// (or its index) and typed protocol structs and returns typed results; none
// sees JSON. The conversion and replay commands, which write files or run
// jobs, are in convert.h and replay_jobs.h.
#ifndef HLO_LSP_SERVER_FEATURES_WORKSPACE_FEATURES_H_
#define HLO_LSP_SERVER_FEATURES_WORKSPACE_FEATURES_H_

#include <atomic>
#include <chrono>
#include <cstddef>
#include <vector>

#include "index/module_files.h"
#include "index/workspace_index.h"
#include "server/documents.h"
#include "server/protocol_workspace.h"
#include "server/result.h"
#include "server/workspace.h"

namespace hlo_lsp {

// workspace_symbols.cc: workspace/symbol as you type (what is indexed so
// far), and hlo.search (complete: waits for the first indexing). Both stop
// when `cancelled` turns true (-32800) or at their deadline (-32803, a
// message saying to narrow the query); a query over the bounds of
// index/query.h is refused at once (-32602).
// workspace/symbol answers `limit` symbols (the contract's default 100,
// setting hlo.workspaceSymbolLimit).
inline constexpr size_t kDefaultWorkspaceSymbolLimit = 100;
inline constexpr size_t kMaxSearchHits = 500;
inline constexpr std::chrono::milliseconds kWorkspaceSymbolDeadline{1000};
inline constexpr std::chrono::milliseconds kSearchDeadline{10000};
// workspaceSymbol/resolve: the range of a symbol workspace/symbol sent
// without one (a symbol with its range comes back as it is).
Result<WorkspaceSymbol> ResolveWorkspaceSymbol(const Workspace& workspace,
                                               const WorkspaceSymbol& symbol);
Result<std::vector<WorkspaceSymbol>> WorkspaceSymbols(
    Workspace& workspace, const WorkspaceSymbolParams& params, size_t limit,
    const std::atomic<bool>* cancelled);
Result<std::vector<SearchHit>> SearchSymbols(
    Workspace& workspace, const SearchArgs& args,
    const std::atomic<bool>* cancelled);

// module_files.cc: hlo/moduleFiles and hlo.moduleFiles, every file of the
// module a file belongs to (stages and passes in order, then by kind), the
// file itself always listed.
Result<std::vector<ModuleFileEntry>> ModuleFiles(const UriParams& params);
ModuleFileEntry ModuleFileEntryOf(const hlo::index::DumpFile& f);

// pass_navigation.cc: hlo.previousPass / hlo.nextPass (`step` -1 / +1), the
// adjacent stage or pass dump of the same module, or null at either end;
// and the lenses "◀ previous pass · next pass ▶ · diff with previous".
Result<std::optional<ModuleFileEntry>> AdjacentDump(const UriParams& params,
                                                    int step);
std::vector<CodeLens> PassLenses(const Snapshot& snap);

// diff.cc: hlo.diff {uri, otherUri}, the structural diff of two files
// (text or proto) as `hlo-lsp diff --json` with both sides' lines.
Result<DiffReply> DiffFiles(const DiffArgs& args,
                            const std::atomic<bool>* cancelled);

// graph.cc: hlo.graph {uri, name?, depth?}, `hlo-lsp graph` as SVG with
// each node's line (of the snapshot: an open document's current text).
Result<GraphReply> GraphOf(const Snapshot& snap, const GraphArgs& args);

// bundle.cc: hlo.bundle {uri}, the bug-report archive of the file's module
// (`hlo-lsp bundle`), written next to the module's files as
// module_NNNN.NAME.bundle.tar.gz, or -2, -3, ... when that exists (never
// replaced).
Result<BundleReply> BundleModule(const UriParams& params,
                                 const std::atomic<bool>* cancelled);

// bisect.cc: hlo.bisect {uri, snapshot?, fakeData?, timeout?}, `hlo-lsp
// replay --bisect` over the module's stage and pass dumps as JSON: the pass
// after which an output differs, both dumps and the diff between them.
Result<BisectReply> BisectPasses(const ReplayArgs& args,
                                 const std::atomic<bool>* cancelled);

// code_actions.cc: the actions of a file; "Create bug-report bundle" and
// "Find the pass that changed the result" on a module's dump (a file named
// module_NNNN.*).
std::vector<CodeAction> CodeActions(const CodeActionParams& params);

// code_lens.cc: on the HloModule line, the module's other files, then
// PassLenses.
std::vector<CodeLens> CodeLenses(const Snapshot& snap);

}  // namespace hlo_lsp

#endif  // HLO_LSP_SERVER_FEATURES_WORKSPACE_FEATURES_H_
