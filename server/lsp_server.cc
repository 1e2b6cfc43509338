#include "server/lsp_server.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <thread>
#include <utility>
#include <vector>

#include "exec/platform.h"
#include "server/features/convert.h"
#include "server/features/features.h"
#include "server/features/index_locations.h"
#include "server/features/workspace_features.h"

namespace hlo_lsp {
namespace {

constexpr int kClientCallTimeoutMs = 10000;

int TraceLevel(const std::string& value) {
  return value == "verbose" ? 2 : value == "messages" ? 1 : 0;
}

std::vector<std::string> Strings(const std::vector<const char*>& items) {
  return std::vector<std::string>(items.begin(), items.end());
}

std::vector<std::string> Paths(const std::vector<std::string>& uris) {
  std::vector<std::string> paths;
  for (const std::string& uri : uris) paths.push_back(UriToPath(uri));
  return paths;
}

}  // namespace

LspServer::LspServer(Transport* transport, Options options)
    : transport_(transport),
      options_(options),
      table_([this](const std::string& method, const std::string& error) {
        Log(LogType::kWarning, method + ": " + error);
      }) {
  int threads = options_.request_threads;
  if (threads <= 0) {
    threads =
        std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 2, 4);
  }
  parse_pool_ = std::make_unique<ThreadPool>(options_.parse_threads);
  request_pool_ = std::make_unique<ThreadPool>(threads);
  documents_ = std::make_unique<DocumentStore>(
      parse_pool_.get(), [this](std::shared_ptr<const Snapshot> snap) {
        PublishDiagnostics(*snap);
      });
  Client* client = this;
  workspace_ = std::make_unique<Workspace>(
      client, Workspace::Options{options_.index_cache, options_.poll_seconds});
  replay_jobs_ = std::make_unique<ReplayJobs>(client);
  BindMethods();
}

LspServer::~LspServer() { Stop(); }

void LspServer::Stop() {
  StopClientCalls();
  workspace_->Shutdown();
  replay_jobs_->Shutdown();
  documents_->Shutdown();
  request_pool_->Stop();
  parse_pool_->Stop();
}

// ------------------------------------------------------------ the table --

void LspServer::BindMethods() {
  table_.Request<InitializeParams>(
      "initialize", [this](const InitializeParams& p, const Request&) {
        return Initialize(p);
      });
  table_.Request<NoParams>(
      "shutdown", [this](const NoParams&, const Request&) -> Result<Null> {
        shutdown_requested_ = true;
        return Null{};
      });
  BindDocumentFeatures();
  BindWorkspaceFeatures();
  BindNotifications();
}

template <typename R, typename F>
Result<R> LspServer::WithSnapshot(const Request& request, F feature) {
  const std::atomic<bool>* cancelled = request.cancelled.get();
  std::shared_ptr<const Snapshot> snap =
      request.declined != nullptr
          ? documents_->Current(request.uri)
          : documents_->Get(request.uri, request.generation, cancelled);
  if (request.declined != nullptr && snap == nullptr) {
    *request.declined = true;  // a parse to wait for, or a file to read
    return Cancelled();
  }
  if (cancelled->load()) return Cancelled();
  if (snap == nullptr)
    return InvalidParams("document not open and not readable: " + request.uri);
  // An answer is for the text the request was asked at: not for a later
  // snapshot (Get returns the newest, and edits may have come since).
  auto modified = [&] {
    if (snap->from_disk) return false;
    if (request.generation != 0 && snap->generation != request.generation) {
      return true;
    }
    return documents_->Generation(request.uri) != snap->generation;
  };
  const RpcError content_modified{ErrorCode::kContentModified,
                                  "content modified"};
  if (modified()) return content_modified;
  Result<R> result = feature(*snap);
  if (cancelled->load()) return Cancelled();
  if (modified()) return content_modified;
  return result;
}

void LspServer::BindDocumentFeatures() {
  using Position = TextDocumentPositionParams;
  table_.Request<TextDocumentParams>(
      "textDocument/documentSymbol",
      [this](const TextDocumentParams&, const Request& r) {
        return WithSnapshot<std::vector<DocumentSymbol>>(r, DocumentSymbols);
      });
  auto definition = [this](const Position& p, const Request& r) {
    return WithSnapshot<std::vector<Location>>(r, [&](const Snapshot& s) {
      if (r.declined == nullptr) {
        return Definition(s, p.position, &workspace_->index());
      }
      // On the reader thread: this file only. Not found here, the other
      // dumps of the module are listed and searched, in the pool.
      std::vector<Location> found = Definition(s, p.position, nullptr);
      if (found.empty()) *r.declined = true;
      return found;
    });
  };
  table_.Request<Position>("textDocument/definition", definition);
  table_.Request<Position>("textDocument/declaration", definition);
  table_.Request<ReferenceParams>(
      "textDocument/references",
      [this](const ReferenceParams& p, const Request& r) {
        return WithSnapshot<std::vector<Location>>(r, [&](const Snapshot& s) {
          return References(s, p.position, p.include_declaration);
        });
      });
  table_.Request<Position>(
      "textDocument/documentHighlight",
      [this](const Position& p, const Request& r) {
        return WithSnapshot<std::vector<DocumentHighlight>>(
            r, [&](const Snapshot& s) {
              return DocumentHighlights(s, p.position);
            });
      });
  table_.Request<Position>(
      "textDocument/hover", [this](const Position& p, const Request& r) {
        return WithSnapshot<std::optional<Hover>>(
            r, [&](const Snapshot& s) -> std::optional<Hover> {
              std::optional<Hover> hover = HoverAt(s, p.position);
              if (!hover) return hover;
              if (std::optional<std::string> note =
                      pass_history_.Note(s, p.position, r.declined)) {
                hover->markdown += "\n\n" + *note;
              }
              if (std::optional<std::string> note =
                      memory_.Note(s, p.position, r.declined)) {
                hover->markdown += "\n\n" + *note;
              }
              return hover;
            });
      });
  table_.Request<RangeParams>(
      "textDocument/inlayHint", [this](const RangeParams& p, const Request& r) {
        if (!inlay_hints_) return Result<std::vector<InlayHint>>();
        return WithSnapshot<std::vector<InlayHint>>(
            r, [&](const Snapshot& s) { return InlayHints(s, p.range); });
      });
  table_.Request<TextDocumentParams>(
      "textDocument/foldingRange",
      [this](const TextDocumentParams&, const Request& r) {
        return WithSnapshot<std::vector<FoldingRange>>(r, FoldingRanges);
      });
  table_.Request<TextDocumentParams>(
      "textDocument/semanticTokens/full",
      [this](const TextDocumentParams&, const Request& r) {
        return WithSnapshot<SemanticTokens>(r, SemanticTokensFull);
      });
  table_.Request<RangeParams>("textDocument/semanticTokens/range",
                              [this](const RangeParams& p, const Request& r) {
                                return WithSnapshot<SemanticTokens>(
                                    r, [&](const Snapshot& s) {
                                      return SemanticTokensRange(s, p.range);
                                    });
                              });
  table_.Request<TextDocumentParams>(
      "textDocument/documentLink",
      [this](const TextDocumentParams&, const Request& r) {
        return WithSnapshot<std::vector<DocumentLink>>(r, DocumentLinks);
      });
  table_.Request<Position>(
      "textDocument/prepareCallHierarchy",
      [this](const Position& p, const Request& r) {
        return WithSnapshot<std::vector<CallHierarchyItem>>(
            r, [&](const Snapshot& s) {
              return PrepareCallHierarchy(s, p.position);
            });
      });
  for (bool incoming : {true, false}) {
    table_.Request<CallHierarchyItem>(
        incoming ? "callHierarchy/incomingCalls"
                 : "callHierarchy/outgoingCalls",
        [this, incoming](const CallHierarchyItem& item, const Request& r) {
          Request scoped = r;
          scoped.uri = item.uri;
          return WithSnapshot<CallHierarchyCalls>(
              scoped, [&](const Snapshot& s) {
                return CallHierarchyCalls{
                    incoming ? IncomingCalls(s, item) : OutgoingCalls(s, item),
                    incoming};
              });
        });
  }
  table_.Request<TextDocumentParams>(
      "textDocument/codeLens",
      [this](const TextDocumentParams&, const Request& r) {
        return WithSnapshot<std::vector<CodeLens>>(r, [&](const Snapshot& s) {
          std::vector<CodeLens> lenses = CodeLenses(s);
          if (std::optional<CodeLens> lens = memory_.Lens(s)) {
            lenses.push_back(std::move(*lens));
          }
          return lenses;
        });
      });
  table_.Request<CodeActionParams>(
      "textDocument/codeAction",
      [](const CodeActionParams& p, const Request&)
          -> Result<std::vector<CodeAction>> { return CodeActions(p); });
}

void LspServer::BindWorkspaceFeatures() {
  table_.Request<WorkspaceSymbolParams>(
      "workspace/symbol",
      [this](const WorkspaceSymbolParams& p, const Request& r) {
        return WorkspaceSymbols(*workspace_, p, workspace_symbol_limit_,
                                r.cancelled.get());
      });
  table_.Request<WorkspaceSymbol>(
      "workspaceSymbol/resolve",
      [this](const WorkspaceSymbol& s, const Request&) {
        return ResolveWorkspaceSymbol(*workspace_, s);
      });
  table_.Request<UriParams>(
      "hlo/protoToText",
      [](const UriParams& p, const Request&) { return ProtoToText(p); });
  auto module_files = [](const UriParams& p, const Request&) {
    return ModuleFiles(p);
  };
  table_.Request<UriParams>("hlo/moduleFiles", module_files);
  table_.Request<ReplayResultParams>(
      "hlo/replayResult",
      [this](const ReplayResultParams& p, const Request& r) {
        return replay_jobs_->Report(p, r.cancelled.get());
      });

  // workspace/executeCommand: the contract's commands, in its order.
  table_.Command<UriParams>(
      "hlo.convertToText", [this](const UriParams& p, const Request& r) {
        return ConvertToText(*this, support_, p, r.cancelled.get());
      });
  table_.Command<UriParams>(
      "hlo.exportProto", [this](const UriParams& p, const Request& r) {
        return ExportProto(*this, support_, p, r.cancelled.get());
      });
  table_.Command<ReplayArgs>("hlo.replay",
                             [this](const ReplayArgs& p, const Request&) {
                               return replay_jobs_->Start(p, /*compare=*/false);
                             });
  table_.Command<ReplayArgs>("hlo.compare",
                             [this](const ReplayArgs& p, const Request&) {
                               return replay_jobs_->Start(p, /*compare=*/true);
                             });
  table_.Command<UriParams>("hlo.moduleFiles", module_files);
  table_.Command<SearchArgs>(
      "hlo.search", [this](const SearchArgs& p, const Request& r) {
        return SearchSymbols(*workspace_, p, r.cancelled.get());
      });
  table_.Command<DiffArgs>("hlo.diff", [](const DiffArgs& p, const Request& r) {
    return DiffFiles(p, r.cancelled.get());
  });
  table_.Command<UriParams>(
      "hlo.previousPass",
      [](const UriParams& p, const Request&) { return AdjacentDump(p, -1); });
  table_.Command<UriParams>(
      "hlo.nextPass",
      [](const UriParams& p, const Request&) { return AdjacentDump(p, +1); });
  table_.Command<GraphArgs>(
      "hlo.graph",
      [this](const GraphArgs& p, const Request& r) -> Result<GraphReply> {
        std::shared_ptr<const Snapshot> snap = documents_->Get(
            p.uri, documents_->Generation(p.uri), r.cancelled.get());
        if (r.cancelled->load()) return Cancelled();
        if (snap == nullptr) {
          return InvalidParams("document not open and not readable: " + p.uri);
        }
        return GraphOf(*snap, p);
      });
  table_.Command<UriParams>(
      "hlo.memory",
      [this](const UriParams& p, const Request&) { return memory_.Reply(p); });
  table_.Command<UriParams>("hlo.bundle",
                            [](const UriParams& p, const Request& r) {
                              return BundleModule(p, r.cancelled.get());
                            });
  table_.Command<ReplayArgs>("hlo.bisect",
                             [](const ReplayArgs& p, const Request& r) {
                               return BisectPasses(p, r.cancelled.get());
                             });
}

void LspServer::BindNotifications() {
  table_.Notification<NoParams>(
      "initialized", [this](NoParams&) { workspace_->Initialized(); });
  table_.Notification<DidChangeWatchedFilesParams>(
      "workspace/didChangeWatchedFiles",
      [this](DidChangeWatchedFilesParams& p) {
        workspace_->FilesChanged(Paths(p.uris));
      });
  table_.Notification<WorkspaceFoldersChangeParams>(
      "workspace/didChangeWorkspaceFolders",
      [this](WorkspaceFoldersChangeParams& p) {
        workspace_->FoldersChanged(Paths(p.added), Paths(p.removed));
      });
  table_.Notification<NoParams>("exit",
                                [this](NoParams&) { exit_requested_ = true; });
  table_.Notification<CancelParams>("$/cancelRequest", [this](CancelParams& p) {
    std::lock_guard<std::mutex> lock(pending_mutex_);
    auto it = pending_.find(p.id.Key());
    if (it != pending_.end()) *it->second = true;
  });
  table_.Notification<SetTraceParams>("$/setTrace", [this](SetTraceParams& p) {
    if (!p.value.empty()) trace_level_ = TraceLevel(p.value);
  });
  table_.Notification<DidOpenParams>(
      "textDocument/didOpen", [this](DidOpenParams& p) {
        if (p.text.size() >= (size_t{1} << 32) - 1) {
          return Log(LogType::kError,
                     "didOpen: document over 4 GiB ignored: " + p.uri);
        }
        const std::string path = UriToPath(p.uri);
        documents_->Open(std::move(p));
        if (path.empty()) return;
        // After the parse (the pool is FIFO), never on this thread: the
        // dump folder's listing and the pass timeline's start, which the
        // first hover paid for (180 ms on a folder of 3,000 dumps).
        parse_pool_->Submit([this, path = NormalPath(path)] {
          pass_history_.Warm(path);
          memory_.Warm(path);
        });
      });
  table_.Notification<DidChangeParams>(
      "textDocument/didChange", [this](DidChangeParams& p) {
        if (!documents_->Change(p))
          Log(LogType::kWarning, "didChange for a closed document: " + p.uri);
      });
  table_.Notification<DidCloseParams>(
      "textDocument/didClose", [this](DidCloseParams& p) {
        documents_->Close(p.uri);
        Send(EncodeNotification(
            "textDocument/publishDiagnostics",
            PublishDiagnosticsParams{p.uri, std::nullopt, {}}));
      });
  table_.Notification<NoParams>("textDocument/didSave", [](NoParams&) {});
  table_.Notification<ConfigurationParams>(
      "workspace/didChangeConfiguration", [this](ConfigurationParams& p) {
        if (p.workspace_symbol_limit)
          workspace_symbol_limit_ = *p.workspace_symbol_limit;
        if (p.verify && SetVerify(*p.verify)) RepublishDiagnostics();
        if (!p.inlay_hints) return;
        inlay_hints_ = *p.inlay_hints;
        if (inlay_refresh_support_) {
          Send(EncodeRequest(NextServerRequestId(),
                             "workspace/inlayHint/refresh", Null{}));
        }
      });
}

// ------------------------------------------------------------ lifecycle --

Result<InitializeResult> LspServer::Initialize(const InitializeParams& p) {
  if (initialized_)
    return RpcError{ErrorCode::kInvalidRequest, "already initialized"};
  const bool utf8 =
      std::find(p.position_encodings.begin(), p.position_encodings.end(),
                "utf-8") != p.position_encodings.end();
  documents_->set_unit(utf8 ? hlo::ColumnUnit::kUtf8Bytes
                            : hlo::ColumnUnit::kUtf16CodeUnits);
  trace_level_ = TraceLevel(p.trace);
  if (p.inlay_hints) inlay_hints_ = *p.inlay_hints;
  if (p.workspace_symbol_limit)
    workspace_symbol_limit_ = *p.workspace_symbol_limit;
  if (p.verify) SetVerify(*p.verify);
  inlay_refresh_support_ = p.inlay_refresh_support;

  std::vector<std::filesystem::path> folders;
  for (const std::string& path : Paths(p.workspace_folders)) {
    if (!path.empty()) folders.emplace_back(path);
  }
  if (folders.empty()) {
    std::string path = UriToPath(p.root_uri);
    if (path.empty()) path = p.root_path;
    if (!path.empty()) folders.emplace_back(path);
  }
  support_ = ClientSupport{.utf16 = !utf8,
                           .progress = p.progress_support,
                           .watch_files = p.watch_support,
                           .show_document = p.show_document_support,
                           .show_message = p.show_message_support,
                           .symbol_resolve = p.symbol_resolve_support};
  workspace_->Initialize(std::move(folders), support_);
  initialized_ = true;
  // Asked once, in a child (cached): a build without CUDA answers at once.
  const hlo::exec::GpuInfo gpu = hlo::exec::QueryGpuInChild();
  return InitializeResult{utf8,
                          table_.command_names(),
                          Strings(SemanticTokenTypes()),
                          Strings(SemanticTokenModifiers()),
                          HLO_LSP_VERSION,
                          gpu.available() ? gpu.Describe() : ""};
}

int LspServer::Run() {
  std::string body;
  while (!exit_requested_) {
    ReadResult r = transport_->Read(&body);
    read_at_ = std::chrono::steady_clock::now();
    if (r == ReadResult::kEof) {
      Log(LogType::kInfo, "input closed");
      break;
    }
    if (r == ReadResult::kBadHeader) {
      Log(LogType::kWarning, "message without a valid Content-Length skipped");
      Send(MakeErrorReply(RequestId(),
                          {ErrorCode::kParseError, "bad message header"}));
      continue;
    }
    bool parse_error = false;
    IncomingMessage message = DecodeMessage(body, &parse_error);
    if (parse_error) {
      Send(MakeErrorReply(RequestId(),
                          {ErrorCode::kParseError, "invalid JSON"}));
      continue;
    }
    Dispatch(std::move(message));
  }
  Stop();
  return shutdown_requested_ ? 0 : 1;
}

void LspServer::Dispatch(IncomingMessage message) {
  switch (message.kind) {
    case MessageKind::kInvalid:
      Send(MakeErrorReply(RequestId(message.id), {ErrorCode::kInvalidRequest,
                                                  message.invalid_reason}));
      return;
    case MessageKind::kResponse:
      ReplyFromClient(std::move(message));
      return;
    case MessageKind::kNotification:
      if (!initialized_ && message.method != "exit") return;
      if (!table_.Notify(message.method, message.params) && trace_level_ >= 2) {
        Log(LogType::kLog, "ignored notification " + message.method);
      }
      return;
    case MessageKind::kRequest:
      HandleRequest(std::move(message));
      return;
  }
}

void LspServer::HandleRequest(IncomingMessage message) {
  RequestId id(message.id);
  if (!initialized_ && message.method != "initialize") {
    Send(MakeErrorReply(
        id, {ErrorCode::kServerNotInitialized, "server not initialized"}));
    return;
  }
  if (shutdown_requested_) {
    Send(MakeErrorReply(
        id, {ErrorCode::kInvalidRequest, "server is shutting down"}));
    return;
  }
  if (!table_.HasRequest(message.method)) {
    Send(MakeErrorReply(id, {ErrorCode::kMethodNotFound,
                             "method not found: " + message.method}));
    return;
  }
  Request request;
  request.id = id;
  request.method = message.method;
  request.uri = DocumentUriOf(message.params);
  if (!request.uri.empty())
    request.generation = documents_->Generation(request.uri);
  request.cancelled = std::make_shared<std::atomic<bool>>(false);
  request.received = read_at_;
  if (trace_level_ >= 2)
    Log(LogType::kLog, "request " + request.method + " " + id.Key());
  // Lifecycle requests run in order on this thread.
  if (request.method == "initialize" || request.method == "shutdown") {
    RunRequest(request, message);
    return;
  }
  if (RunOnReaderThread(request, message)) return;
  {
    std::lock_guard<std::mutex> lock(pending_mutex_);
    pending_[id.Key()] = request.cancelled;
  }
  request_pool_->Submit([this, request = std::move(request),
                         message = std::move(message)]() mutable {
    RunRequest(request, message);
  });
}

void LspServer::RunRequest(const Request& request, IncomingMessage& message) {
  const auto start = std::chrono::steady_clock::now();
  std::string reply =
      request.cancelled->load()
          ? MakeErrorReply(request.id, Cancelled())
          : table_.Call(request.method, request.id, message.params, request);
  {
    std::lock_guard<std::mutex> lock(pending_mutex_);
    pending_.erase(request.id.Key());
  }
  const auto ran = std::chrono::steady_clock::now();
  Send(reply);
  TraceRequest(request, start, ran, reply.size(), "pool");
}

bool LspServer::RunOnReaderThread(Request& request, IncomingMessage& message) {
  if (request.method != "textDocument/hover" &&
      request.method != "textDocument/definition") {
    return false;
  }
  const auto start = std::chrono::steady_clock::now();
  bool declined = false;
  request.declined = &declined;
  std::string reply =
      table_.Call(request.method, request.id, message.params, request);
  request.declined = nullptr;
  if (declined) return false;
  const auto ran = std::chrono::steady_clock::now();
  Send(reply);
  TraceRequest(request, start, ran, reply.size(), "reader");
  return true;
}

void LspServer::TraceRequest(const Request& request,
                             std::chrono::steady_clock::time_point start,
                             std::chrono::steady_clock::time_point ran,
                             size_t reply_bytes, const char* thread) {
  if (!options_.trace_requests) return;
  using Ms = std::chrono::duration<double, std::milli>;
  using Ns = std::chrono::nanoseconds;
  const auto sent = std::chrono::steady_clock::now();
  // The read and the write's end as CLOCK_MONOTONIC ns (steady_clock's on
  // Linux, as Node's hrtime): trace_summary.js joins them with a client's
  // send and receive times, to split a round trip into the way in, the
  // server and the way out.
  std::fprintf(
      stderr,
      "hlo-lsp trace: %s %s wait %.3f ms run %.3f ms send %.3f ms "
      "reply %zu B on %s at %lld %lld\n",
      request.method.c_str(), request.id.Key().c_str(),
      Ms(start - request.received).count(), Ms(ran - start).count(),
      Ms(sent - ran).count(), reply_bytes, thread,
      static_cast<long long>(
          std::chrono::duration_cast<Ns>(request.received.time_since_epoch())
              .count()),
      static_cast<long long>(
          std::chrono::duration_cast<Ns>(sent.time_since_epoch()).count()));
}

// ------------------------------------------------- requests to the client --

RequestId LspServer::NextServerRequestId() {
  return RequestId::Named("hlo-lsp/" + std::to_string(next_server_request_++));
}

template <typename R, typename P>
std::optional<R> LspServer::CallClient(const std::string& method,
                                       const P& params, int timeout_ms,
                                       const std::atomic<bool>* cancelled) {
  RequestId id = NextServerRequestId();
  std::optional<IncomingMessage> reply =
      AwaitReply(id, EncodeRequest(id, method, params), timeout_ms, cancelled);
  if (!reply) return std::nullopt;
  return DecodeReply<R>(*reply);
}

std::optional<IncomingMessage> LspServer::AwaitReply(
    const RequestId& id, const std::string& body, int timeout_ms,
    const std::atomic<bool>* cancelled) {
  auto call = std::make_shared<ClientCall>();
  {
    std::lock_guard<std::mutex> lock(client_calls_mutex_);
    if (client_calls_closed_) return std::nullopt;
    client_calls_[id.Key()] = call;
  }
  Send(body);
  auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  std::unique_lock<std::mutex> lock(client_calls_mutex_);
  while (!call->done && !client_calls_closed_ &&
         std::chrono::steady_clock::now() < deadline &&
         !(cancelled && cancelled->load())) {
    client_calls_cv_.wait_for(lock, std::chrono::milliseconds(100));
  }
  client_calls_.erase(id.Key());
  if (!call->done) return std::nullopt;
  return std::move(call->reply);
}

void LspServer::ReplyFromClient(IncomingMessage message) {
  std::lock_guard<std::mutex> lock(client_calls_mutex_);
  auto it = client_calls_.find(RequestId(message.id).Key());
  if (it == client_calls_.end()) return;  // inlay refresh, or given up on
  it->second->done = true;
  it->second->reply = std::move(message);
  client_calls_cv_.notify_all();
}

void LspServer::StopClientCalls() {
  std::lock_guard<std::mutex> lock(client_calls_mutex_);
  client_calls_closed_ = true;
  client_calls_cv_.notify_all();
}

// ------------------------------------------------------- the Client face --

void LspServer::Log(LogType type, const std::string& message) {
  static const char* kNames[] = {"", "error", "warning", "info", "log"};
  std::fprintf(stderr, "hlo-lsp %s: %s\n", kNames[static_cast<int>(type)],
               message.c_str());
  const int level = trace_level_;
  const bool send = type <= LogType::kWarning ||
                    (type == LogType::kInfo && level >= 1) ||
                    (type == LogType::kLog && level >= 2);
  if (send && initialized_) {
    Send(EncodeNotification("window/logMessage",
                            LogMessageParams{static_cast<int>(type), message}));
  }
}

void LspServer::Progress(const ProgressParams& params) {
  Send(EncodeNotification("$/progress", params));
}

bool LspServer::CreateProgress(const std::string& token) {
  return CallClient<AnyResult>("window/workDoneProgress/create",
                               WorkDoneProgressCreateParams{token},
                               kClientCallTimeoutMs, nullptr)
      .has_value();
}

bool LspServer::RegisterFileWatchers(
    const FileWatcherRegistration& registration) {
  return CallClient<AnyResult>("client/registerCapability", registration,
                               kClientCallTimeoutMs, nullptr)
      .has_value();
}

std::optional<MessageActionResult> LspServer::AskUser(
    const ShowMessageRequestParams& params, int timeout_ms,
    const std::atomic<bool>* cancelled) {
  return CallClient<MessageActionResult>("window/showMessageRequest", params,
                                         timeout_ms, cancelled);
}

void LspServer::ShowDocument(const ShowDocumentParams& params) {
  CallClient<AnyResult>("window/showDocument", params, kClientCallTimeoutMs,
                        nullptr);
}

std::shared_ptr<const std::string> LspServer::DocumentText(
    const std::string& uri) {
  std::atomic<bool> never{false};
  std::shared_ptr<const Snapshot> snap =
      documents_->Get(uri, documents_->Generation(uri), &never);
  return snap ? snap->text : nullptr;
}

// -------------------------------------------------------------- output --

void LspServer::Send(const std::string& body) { transport_->Write(body); }

void LspServer::PublishDiagnostics(const Snapshot& snap) {
  DiagnosticsOptions options;
  {
    std::lock_guard<std::mutex> lock(diagnostics_mutex_);
    options = diagnostics_options_;
  }
  Send(
      EncodeNotification("textDocument/publishDiagnostics",
                         PublishDiagnosticsParams{snap.uri, snap.version,
                                                  Diagnostics(snap, options)}));
}

bool LspServer::SetVerify(const VerifySetting& setting) {
  DiagnosticsOptions options;  // auto: the file's choice
  if (setting.mode == VerifySetting::Mode::kOff) options.verify = false;
  std::string bad;
  if (setting.mode == VerifySetting::Mode::kList &&
      !hlo::ParseVerifierOptions(setting.list, &options.verifier, &bad)) {
    Log(LogType::kWarning, "hlo.verify: unknown verifier option '" + bad +
                               "'; the setting is ignored");
    return false;
  }
  std::lock_guard<std::mutex> lock(diagnostics_mutex_);
  const bool same = diagnostics_options_.verify == options.verify &&
                    diagnostics_options_.verifier == options.verifier;
  diagnostics_options_ = options;
  return !same;
}

void LspServer::RepublishDiagnostics() {
  request_pool_->Submit([this] {
    for (const std::shared_ptr<const Snapshot>& snap :
         documents_->LatestSnapshots()) {
      PublishDiagnostics(*snap);
    }
  });
}

}  // namespace hlo_lsp
