#include "server/lsp_main.h"

#include <cstdio>

namespace hlo_lsp {

int RunLanguageServer(int, char**) {
  std::fprintf(stderr, "hlo-lsp: the language server is not built yet\n");
  return 2;
}

}  // namespace hlo_lsp
