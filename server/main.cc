#include <cstring>

#include "server/lsp_main.h"

int main(int argc, char** argv) {
  if (argc == 1 || std::strcmp(argv[1], "--stdio") == 0) {
    return hlo_lsp::RunLanguageServer(argc, argv);
  }
  return 2;
}
