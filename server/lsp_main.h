// Entry point of the language server (stdio). Owned by the LSP part.
#ifndef HLO_LSP_SERVER_LSP_MAIN_H_
#define HLO_LSP_SERVER_LSP_MAIN_H_

namespace hlo_lsp {

// Serves LSP on stdin/stdout until `exit`; returns the process exit code.
int RunLanguageServer(int argc, char** argv);

}  // namespace hlo_lsp

#endif  // HLO_LSP_SERVER_LSP_MAIN_H_
