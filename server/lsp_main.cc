#include "server/lsp_main.h"

#include <unistd.h>

#include <csignal>

#include "server/lsp_server.h"
#include "server/transport.h"

namespace hlo_lsp {

int RunLanguageServer(int, char**) {
  // A client that goes away must not kill us with SIGPIPE mid-write.
  std::signal(SIGPIPE, SIG_IGN);
  Transport transport(STDIN_FILENO, STDOUT_FILENO);
  LspServer server(&transport, LspServer::Options{});
  return server.Run();
}

}  // namespace hlo_lsp
