// The language server: reads JSON-RPC messages from the transport, runs
// lifecycle and text-sync notifications in order on the reader thread, and
// runs requests in a worker pool against parsed snapshots. One table in
// lsp_server.cc binds every method name to its handler; the capabilities
// sit beside it.
#ifndef HLO_LSP_SERVER_LSP_SERVER_H_
#define HLO_LSP_SERVER_LSP_SERVER_H_

#include <atomic>
#include <condition_variable>
#include <optional>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <variant>

#include "server/documents.h"
#include "server/json_rpc.h"
#include "server/thread_pool.h"
#include "server/transport.h"
#include "server/workspace.h"

namespace hlo_lsp {

class LspServer {
 public:
  struct Options {
    int request_threads = 0;  // 0: from the hardware, 2..4
    int parse_threads = 1;
    bool index_cache = true;  // the workspace index's persisted shards
    int poll_seconds = 10;    // re-stat period when the client cannot watch files
  };

  // An incoming request as a handler sees it.
  struct Request {
    Json id;
    std::string method;
    Json params;
    std::string uri;          // params.textDocument.uri, when present
    uint64_t generation = 0;  // the document's edit counter on arrival
    std::shared_ptr<std::atomic<bool>> cancelled;
  };
  using Reply = std::variant<Json, RawJson, RpcError>;
  using RequestHandler = std::function<Reply(const Request&)>;

  LspServer(Transport* transport, Options options);
  ~LspServer();

  // Serves until `exit` or end of input. Returns the process exit code:
  // 0 after shutdown, 1 otherwise.
  int Run();

  // Lets other parts (commands, custom requests) add methods before Run.
  void AddRequestHandler(const std::string& method, RequestHandler handler);

 private:
  using NotificationHandler = std::function<void(Json& params)>;  // may move from params

  void BindMethods();
  static Json ParseBody(const std::string& body);
  void Dispatch(IncomingMessage message);
  void HandleRequest(IncomingMessage message);
  void RunRequest(const Request& request, const RequestHandler& handler);
  void Send(const std::string& body);
  void Log(int type, const std::string& message);  // LSP MessageType 1..4
  void PublishDiagnostics(const Snapshot& snap);
  // Sends a request to the client and waits for its reply: the result, or
  // nullopt on an error reply, timeout, cancellation or end of input.
  std::optional<Json> CallClient(const std::string& method, const Json& params,
                                 int timeout_ms, const std::atomic<bool>* cancelled);
  void ReplyFromClient(const IncomingMessage& message);
  void StopClientCalls();

  Reply Initialize(const Request& request);
  // Runs `feature` on the document's snapshot, with the cancellation and
  // content-modified rules applied around it.
  Reply WithSnapshot(const Request& request,
                     const std::function<Reply(const Snapshot&)>& feature);

  Transport* transport_;
  Options options_;
  std::unique_ptr<ThreadPool> parse_pool_;
  std::unique_ptr<ThreadPool> request_pool_;
  std::unique_ptr<DocumentStore> documents_;
  std::unique_ptr<WorkspaceService> workspace_;

  std::map<std::string, RequestHandler> requests_;
  std::map<std::string, NotificationHandler> notifications_;

  std::atomic<bool> initialized_{false};
  std::atomic<bool> shutdown_requested_{false};
  bool exit_requested_ = false;
  std::atomic<int> trace_level_{0};  // 0 off, 1 messages, 2 verbose
  std::atomic<bool> inlay_hints_{true};
  std::atomic<bool> inlay_refresh_support_{false};
  std::atomic<int64_t> next_server_request_{1};

  std::mutex pending_mutex_;
  std::map<std::string, std::shared_ptr<std::atomic<bool>>> pending_;

  struct ClientCall {
    bool done = false;
    bool ok = false;
    Json result;
  };
  std::mutex client_calls_mutex_;
  std::condition_variable client_calls_cv_;
  bool client_calls_closed_ = false;
  std::map<std::string, std::shared_ptr<ClientCall>> client_calls_;  // by id
};

}  // namespace hlo_lsp

#endif  // HLO_LSP_SERVER_LSP_SERVER_H_
