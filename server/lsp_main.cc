#include "server/lsp_main.h"

#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <string_view>

#include "server/lsp_server.h"
#include "server/transport.h"

namespace hlo_lsp {

int RunLanguageServer(int, char**) {
  // A client that goes away must not kill us with SIGPIPE mid-write.
  std::signal(SIGPIPE, SIG_IGN);
  Transport transport(STDIN_FILENO, STDOUT_FILENO);
  LspServer::Options options;
  const char* trace = std::getenv("HLO_LSP_TRACE");
  options.trace_requests =
      trace != nullptr && *trace != '\0' && std::string_view(trace) != "0";
  LspServer server(&transport, options);
  return server.Run();
}

}  // namespace hlo_lsp
