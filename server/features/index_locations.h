// From the workspace index to the protocol: symbol kinds, locations in the
// client's position encoding. Shared by the workspace features (workspace
// symbols, search, module files, cross-file definition).
#ifndef HLO_LSP_SERVER_FEATURES_INDEX_LOCATIONS_H_
#define HLO_LSP_SERVER_FEATURES_INDEX_LOCATIONS_H_

#include <string>
#include <vector>

#include "index/workspace_index.h"
#include "server/protocol.h"
#include "server/protocol_workspace.h"

namespace hlo_lsp {

// LSP SymbolKind of an index symbol.
int LspSymbolKind(hlo::index::SymbolKind kind);

// Where a match is, with columns in UTF-16 code units when `utf16` (the
// index keeps bytes; the line is read only when it holds non-ASCII bytes
// before the symbol).
Location IndexLocation(const hlo::index::SymbolMatch& match, bool utf16);
// The same range from a symbol's site in `path` (workspaceSymbol/resolve).
Range IndexRange(const std::string& path, uint32_t line, uint32_t column,
                 std::string_view name, bool non_ascii_prefix, bool utf16);

// `path` made absolute and normal, as the index and URIs hold it.
std::string NormalPath(const std::string& path);

}  // namespace hlo_lsp

#endif  // HLO_LSP_SERVER_FEATURES_INDEX_LOCATIONS_H_
