// The language server: reads JSON-RPC messages from the transport, runs
// lifecycle and text-sync notifications in order on the reader thread, and
// runs requests in a worker pool against parsed snapshots (hover and
// definition on a parsed open document on the reader thread). One table in
// lsp_server.cc binds every method to its typed handler (binder.h); the
// capabilities sit beside their encoding in protocol_workspace.cc. It is
// also the workspace features' typed channel to the editor (client.h).
#ifndef HLO_LSP_SERVER_LSP_SERVER_H_
#define HLO_LSP_SERVER_LSP_SERVER_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "server/binder.h"
#include "server/client.h"
#include "server/documents.h"
#include "server/features/features.h"
#include "server/features/memory_hover.h"
#include "server/features/pass_history.h"
#include "server/features/replay_jobs.h"
#include "server/features/workspace_features.h"
#include "server/json_rpc.h"
#include "server/thread_pool.h"
#include "server/transport.h"
#include "server/workspace.h"

namespace hlo_lsp {

class LspServer : private Client {
 public:
  struct Options {
    int request_threads = 0;  // 0: from the hardware, 2..4
    int parse_threads = 1;
    bool index_cache = true;  // the workspace index's persisted shards
    int poll_seconds = 10;  // re-stat period when the client cannot watch files
    // One stderr line per request: method, id, queue wait, run time, reply
    // size (HLO_LSP_TRACE=1; what a p99 outlier waited on).
    bool trace_requests = false;
  };

  LspServer(Transport* transport, Options options);
  ~LspServer() override;

  // Serves until `exit` or end of input. Returns the process exit code:
  // 0 after shutdown, 1 otherwise.
  int Run();

 private:
  // An incoming request as a handler sees it, besides its params.
  struct Request {
    RequestId id;
    std::string method;
    std::string uri;          // params.textDocument.uri, when present
    uint64_t generation = 0;  // the document's edit counter on arrival
    std::shared_ptr<std::atomic<bool>> cancelled;
    std::chrono::steady_clock::time_point received;  // read off the pipe
    // Set while the request runs on the reader thread (quick requests on a
    // parsed open document): a handler that would block there (wait for a
    // parse, list a folder, load a file) sets *declined and its reply is
    // dropped; the request then runs in the pool as any other.
    bool* declined = nullptr;
  };

  void BindMethods();
  void BindDocumentFeatures();
  void BindWorkspaceFeatures();
  void BindNotifications();
  void Dispatch(IncomingMessage message);
  void HandleRequest(IncomingMessage message);
  void RunRequest(const Request& request, IncomingMessage& message);
  // Hover and definition on the reader thread, when the document is open
  // and parsed at its latest edit: no pool hop, so no thread wakeup between
  // reading the request and writing its answer (on a loaded machine each
  // wakeup can cost milliseconds). False when the request must go to the
  // pool. Nothing else runs on this thread meanwhile, so the answer is for
  // the version the request was sent at.
  bool RunOnReaderThread(Request& request, IncomingMessage& message);
  void TraceRequest(const Request& request,
                    std::chrono::steady_clock::time_point start,
                    std::chrono::steady_clock::time_point ran,
                    size_t reply_bytes, const char* thread);
  void Stop();
  void Send(const std::string& body);
  void PublishDiagnostics(const Snapshot& snap);
  // Applies the hlo.verify setting; true when the diagnostics change.
  bool SetVerify(const VerifySetting& setting);
  // Publishes every open document's diagnostics again (after SetVerify),
  // on a request thread.
  void RepublishDiagnostics();
  Result<InitializeResult> Initialize(const InitializeParams& params);

  // Runs `feature` on the request's document snapshot, with the
  // cancellation and content-modified rules applied around it.
  template <typename R, typename F>
  Result<R> WithSnapshot(const Request& request, F feature);

  // Sends a request to the client and waits for its reply: nullopt on an
  // error reply, timeout, cancellation or end of input.
  template <typename R, typename P>
  std::optional<R> CallClient(const std::string& method, const P& params,
                              int timeout_ms,
                              const std::atomic<bool>* cancelled);
  std::optional<IncomingMessage> AwaitReply(const RequestId& id,
                                            const std::string& body,
                                            int timeout_ms,
                                            const std::atomic<bool>* cancelled);
  RequestId NextServerRequestId();
  void ReplyFromClient(IncomingMessage message);
  void StopClientCalls();

  // Client (client.h): what workspace features ask of the editor.
  void Log(LogType type, const std::string& message) override;
  void Progress(const ProgressParams& params) override;
  bool CreateProgress(const std::string& token) override;
  bool RegisterFileWatchers(
      const FileWatcherRegistration& registration) override;
  std::optional<MessageActionResult> AskUser(
      const ShowMessageRequestParams& params, int timeout_ms,
      const std::atomic<bool>* cancelled) override;
  void ShowDocument(const ShowDocumentParams& params) override;
  std::shared_ptr<const std::string> DocumentText(
      const std::string& uri) override;

  Transport* transport_;
  Options options_;
  std::unique_ptr<ThreadPool> parse_pool_;
  std::unique_ptr<ThreadPool> request_pool_;
  std::unique_ptr<DocumentStore> documents_;
  std::unique_ptr<Workspace> workspace_;
  std::unique_ptr<ReplayJobs> replay_jobs_;
  PassHistory pass_history_;  // hover's blame, timelines kept per module
  MemoryAssignments memory_;  // hover, lens and hlo.memory
  MethodTable<Request> table_;
  ClientSupport support_;

  std::atomic<bool> initialized_{false};
  std::atomic<bool> shutdown_requested_{false};
  bool exit_requested_ = false;
  // When the reader thread got the message it is handling (its requests'
  // `received`, the start of their queue wait).
  std::chrono::steady_clock::time_point read_at_;
  std::atomic<int> trace_level_{0};  // 0 off, 1 messages, 2 verbose
  std::atomic<bool> inlay_hints_{true};
  std::atomic<size_t> workspace_symbol_limit_{kDefaultWorkspaceSymbolLimit};
  std::atomic<bool> inlay_refresh_support_{false};
  std::mutex diagnostics_mutex_;
  DiagnosticsOptions diagnostics_options_;  // the hlo.verify setting
  std::atomic<int64_t> next_server_request_{1};

  std::mutex pending_mutex_;
  std::map<std::string, std::shared_ptr<std::atomic<bool>>>
      pending_;  // by id key

  struct ClientCall {
    bool done = false;
    std::optional<IncomingMessage> reply;
  };
  std::mutex client_calls_mutex_;
  std::condition_variable client_calls_cv_;
  bool client_calls_closed_ = false;
  std::map<std::string, std::shared_ptr<ClientCall>>
      client_calls_;  // by id key
};

}  // namespace hlo_lsp

#endif  // HLO_LSP_SERVER_LSP_SERVER_H_
