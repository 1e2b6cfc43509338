// `hlo-lsp search [--dir DIR]... [--json] [--limit N] [--no-cache] QUERY`
// (contracts.md): symbol search over every HLO file under the folders,
// through the persisted index of index/. RunSearch is declared in
// commands.h; the formatting is here so that tests can check it.
#ifndef HLO_LSP_SERVER_CLI_SEARCH_H_
#define HLO_LSP_SERVER_CLI_SEARCH_H_

#include <string>

#include "index/workspace_index.h"

namespace hlo_lsp::cli {

// `PATH:LINE:COL: KIND NAME`, with ANSI colours when `color`.
std::string FormatSearchText(const hlo::index::SymbolMatch& match, bool color);
// One JSON object: path, line, col, kind, name, module, opcode, shape
// (module/opcode/shape are null when the symbol has none).
std::string FormatSearchJson(const hlo::index::SymbolMatch& match);

}  // namespace hlo_lsp::cli

#endif  // HLO_LSP_SERVER_CLI_SEARCH_H_
