// hlo-lsp: one binary for the language server and the command-line tools.
#include <cstring>

#include "server/cli/commands.h"
#include "server/lsp_main.h"

int main(int argc, char** argv) {
  if (argc == 1 || std::strcmp(argv[1], "--stdio") == 0) {
    return hlo_lsp::RunLanguageServer(argc, argv);
  }
  return hlo_lsp::cli::RunCommandLine(argc, argv);
}
