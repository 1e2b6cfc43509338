// Editor features, one file each. Each takes a parsed snapshot and typed
// protocol structs and returns typed results; none sees JSON or threads.
#ifndef HLO_LSP_SERVER_FEATURES_FEATURES_H_
#define HLO_LSP_SERVER_FEATURES_FEATURES_H_

#include <cstddef>
#include <optional>
#include <vector>

#include "hlo/verify.h"
#include "index/workspace_index.h"
#include "server/documents.h"
#include "server/protocol.h"

namespace hlo_lsp {

// outline.cc. Instructions are listed while the reply stays under
// kMaxOutlineSymbols; beyond that only modules and computations.
inline constexpr size_t kMaxOutlineSymbols = 100000;
std::vector<DocumentSymbol> DocumentSymbols(const Snapshot& snap);

// xrefs.cc. Definition looks for a computation this file does not define in
// the module's other dumps when given the workspace index.
std::vector<Location> Definition(const Snapshot& snap, Position position,
                                 hlo::index::WorkspaceIndex* index = nullptr);
std::vector<Location> References(const Snapshot& snap, Position position,
                                 bool include_declaration);
std::vector<DocumentHighlight> DocumentHighlights(const Snapshot& snap,
                                                  Position position);

// hover.cc
std::optional<Hover> HoverAt(const Snapshot& snap, Position position);

// inlay_hints.cc. At most kMaxInlayHints per reply.
inline constexpr size_t kMaxInlayHints = 20000;
std::vector<InlayHint> InlayHints(const Snapshot& snap, Range range);

// diagnostics.cc. `verify` is the setting hlo.verify: off, or the
// verifier's options (their defaults are the file's choice, as `check`
// without flags).
struct DiagnosticsOptions {
  bool verify = true;
  hlo::VerifierOptions verifier;
};
std::vector<Diagnostic> Diagnostics(const Snapshot& snap,
                                    const DiagnosticsOptions& options = {});

// folding.cc
std::vector<FoldingRange> FoldingRanges(const Snapshot& snap);

// semantic_tokens.cc
const std::vector<const char*>& SemanticTokenTypes();
const std::vector<const char*>& SemanticTokenModifiers();
SemanticTokens SemanticTokensFull(const Snapshot& snap);
SemanticTokens SemanticTokensRange(const Snapshot& snap, Range range);

// document_links.cc. At most kMaxDocumentLinks per reply.
inline constexpr size_t kMaxDocumentLinks = 20000;
std::vector<DocumentLink> DocumentLinks(const Snapshot& snap);

// call_hierarchy.cc
std::vector<CallHierarchyItem> PrepareCallHierarchy(const Snapshot& snap,
                                                    Position position);
std::vector<CallHierarchyCall> IncomingCalls(const Snapshot& snap,
                                             const CallHierarchyItem& item);
std::vector<CallHierarchyCall> OutgoingCalls(const Snapshot& snap,
                                             const CallHierarchyItem& item);

}  // namespace hlo_lsp

#endif  // HLO_LSP_SERVER_FEATURES_FEATURES_H_
