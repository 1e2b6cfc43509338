#include "server/lsp_server.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <thread>

#include "server/features/features.h"
#include "server/protocol.h"

namespace hlo_lsp {
namespace {

constexpr int kError = 1, kWarning = 2, kInfo = 3, kLog = 4;

std::string IdKey(const Json& id) { return id.dump(); }

RpcError InvalidParams(std::string message) {
  return RpcError{ErrorCode::kInvalidParams, std::move(message)};
}

// Capabilities, next to the method table below: keep them in step.
Json Capabilities(hlo::ColumnUnit unit) {
  Json tokens_legend{{"tokenTypes", Json::array()}, {"tokenModifiers", Json::array()}};
  for (const char* t : SemanticTokenTypes()) tokens_legend["tokenTypes"].push_back(t);
  for (const char* m : SemanticTokenModifiers()) tokens_legend["tokenModifiers"].push_back(m);
  return Json{
      {"positionEncoding", unit == hlo::ColumnUnit::kUtf8Bytes ? "utf-8" : "utf-16"},
      {"textDocumentSync",
       {{"openClose", true}, {"change", 2}, {"save", {{"includeText", false}}}}},
      {"documentSymbolProvider", true},
      {"definitionProvider", true},
      {"declarationProvider", true},
      {"referencesProvider", true},
      {"documentHighlightProvider", true},
      {"hoverProvider", true},
      {"inlayHintProvider", true},
      {"foldingRangeProvider", true},
      {"semanticTokensProvider",
       {{"legend", tokens_legend}, {"full", true}, {"range", true}}},
      {"documentLinkProvider", {{"resolveProvider", false}}},
      {"callHierarchyProvider", true},
      {"workspaceSymbolProvider", true},
      {"workspace", {{"workspaceFolders", {{"supported", true}, {"changeNotifications", true}}}}},
      {"codeActionProvider", true},
      {"codeLensProvider", {{"resolveProvider", false}}},
      {"executeCommandProvider", {{"commands", WorkspaceCommands()}}},
  };
}

// The name under the cursor (`%name`, `name`), without its sigil.
std::string WordAt(const std::string& text, size_t offset) {
  auto is_name = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-';
  };
  if (offset > text.size()) return "";
  size_t begin = offset, end = offset;
  while (begin > 0 && is_name(text[begin - 1])) --begin;
  while (end < text.size() && is_name(text[end])) ++end;
  return text.substr(begin, end - begin);
}

}  // namespace

LspServer::LspServer(Transport* transport, Options options)
    : transport_(transport), options_(options) {
  int threads = options_.request_threads;
  if (threads <= 0) {
    threads = std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 2, 4);
  }
  parse_pool_ = std::make_unique<ThreadPool>(options_.parse_threads);
  request_pool_ = std::make_unique<ThreadPool>(threads);
  documents_ = std::make_unique<DocumentStore>(
      parse_pool_.get(),
      [this](std::shared_ptr<const Snapshot> snap) { PublishDiagnostics(*snap); });
  WorkspaceService::Hooks hooks;
  hooks.notify = [this](const std::string& method, const Json& params) {
    Send(MakeNotification(method, params));
  };
  hooks.call = [this](const std::string& method, const Json& params, int timeout_ms,
                      const std::atomic<bool>* cancelled) {
    return CallClient(method, params, timeout_ms, cancelled);
  };
  hooks.log = [this](int type, const std::string& message) { Log(type, message); };
  hooks.text = [this](const std::string& uri) -> std::shared_ptr<const std::string> {
    std::atomic<bool> never{false};
    std::shared_ptr<const Snapshot> snap = documents_->Get(uri, documents_->Generation(uri), &never);
    return snap ? snap->text : nullptr;
  };
  WorkspaceService::Options wopts;
  wopts.use_cache = options_.index_cache;
  wopts.poll_seconds = options_.poll_seconds;
  workspace_ = std::make_unique<WorkspaceService>(std::move(hooks), wopts);
  BindMethods();
}

LspServer::~LspServer() {
  StopClientCalls();
  workspace_->Shutdown();
  documents_->Shutdown();
  request_pool_->Stop();
  parse_pool_->Stop();
}

void LspServer::AddRequestHandler(const std::string& method,
                                  RequestHandler handler) {
  requests_[method] = std::move(handler);
}

// ------------------------------------------------------------ the table --

void LspServer::BindMethods() {
  auto position_feature = [this](auto feature) {
    return [this, feature](const Request& r) -> Reply {
      TextDocumentPositionParams p;
      std::string error;
      if (!FromJson(r.params, &p, &error)) return InvalidParams(error);
      return WithSnapshot(r, [&](const Snapshot& s) -> Reply { return feature(s, p.position); });
    };
  };
  auto document_feature = [this](auto feature) {
    return [this, feature](const Request& r) -> Reply {
      if (r.uri.empty()) return InvalidParams("missing textDocument.uri");
      return WithSnapshot(r, [&](const Snapshot& s) -> Reply { return feature(s); });
    };
  };
  auto range_feature = [this](auto feature) {
    return [this, feature](const Request& r) -> Reply {
      RangeParams p;
      std::string error;
      if (!FromJson(r.params, &p, &error)) return InvalidParams(error);
      return WithSnapshot(r, [&](const Snapshot& s) -> Reply { return feature(s, p.range); });
    };
  };
  auto call_feature = [this](bool incoming) {
    return [this, incoming](const Request& r) -> Reply {
      CallHierarchyItem item;
      std::string error;
      if (!FromJson(r.params, &item, &error)) return InvalidParams(error);
      Request scoped = r;
      scoped.uri = item.uri;
      return WithSnapshot(scoped, [&](const Snapshot& s) -> Reply {
        Json out = Json::array();
        for (const CallHierarchyCall& c :
             incoming ? IncomingCalls(s, item) : OutgoingCalls(s, item)) {
          out.push_back(ToJson(c, incoming));
        }
        return out;
      });
    };
  };
  // A computation this file does not define: look in the module's other dumps.
  auto definition = position_feature([this](const Snapshot& s, Position p) {
    Json found = ToJsonArray(Definition(s, p));
    if (!found.empty() || s.text == nullptr) return found;
    std::string word = WordAt(*s.text, s.ToOffset(p));
    if (!word.empty() && word[0] != '%' && !std::isdigit(static_cast<unsigned char>(word[0]))) {
      return workspace_->DefinitionElsewhere(s.uri, word);
    }
    return found;
  });

  requests_ = {
      {"initialize", [this](const Request& r) { return Initialize(r); }},
      {"shutdown",
       [this](const Request&) -> Reply {
         shutdown_requested_ = true;
         return Json(nullptr);
       }},
      {"textDocument/documentSymbol", document_feature([](const Snapshot& s) -> Reply {
         return EncodeSymbols(DocumentSymbols(s));
       })},
      {"textDocument/definition", definition},
      {"textDocument/declaration", definition},
      {"textDocument/references",
       [this](const Request& r) -> Reply {
         ReferenceParams p;
         std::string error;
         if (!FromJson(r.params, &p, &error)) return InvalidParams(error);
         return WithSnapshot(r, [&](const Snapshot& s) -> Reply {
           return ToJsonArray(References(s, p.position, p.include_declaration));
         });
       }},
      {"textDocument/documentHighlight",
       position_feature([](const Snapshot& s, Position p) {
         return ToJsonArray(DocumentHighlights(s, p));
       })},
      {"textDocument/hover", position_feature([](const Snapshot& s, Position p) {
         std::optional<Hover> h = HoverAt(s, p);
         return h ? ToJson(*h) : Json(nullptr);
       })},
      {"textDocument/inlayHint",
       range_feature([this](const Snapshot& s, Range range) -> Reply {
         if (!inlay_hints_) return Json::array();
         return ToJsonArray(InlayHints(s, range));
       })},
      {"textDocument/foldingRange", document_feature([](const Snapshot& s) {
         return ToJsonArray(FoldingRanges(s));
       })},
      {"textDocument/semanticTokens/full", document_feature([](const Snapshot& s) -> Reply {
         return EncodeSemanticTokens(SemanticTokensFull(s));
       })},
      {"textDocument/semanticTokens/range",
       range_feature([](const Snapshot& s, Range range) -> Reply {
         return EncodeSemanticTokens(SemanticTokensRange(s, range));
       })},
      {"textDocument/documentLink", document_feature([](const Snapshot& s) {
         return ToJsonArray(DocumentLinks(s));
       })},
      {"textDocument/prepareCallHierarchy",
       position_feature([](const Snapshot& s, Position p) {
         return ToJsonArray(PrepareCallHierarchy(s, p));
       })},
      {"callHierarchy/incomingCalls", call_feature(true)},
      {"callHierarchy/outgoingCalls", call_feature(false)},
      {"workspace/symbol",
       [this](const Request& r) -> Reply { return workspace_->Symbols(r.params); }},
      {"hlo/protoToText",
       [this](const Request& r) -> Reply { return workspace_->ProtoToText(r.params); }},
      {"hlo/moduleFiles",
       [this](const Request& r) -> Reply { return workspace_->ModuleFilesRequest(r.params); }},
      {"hlo/replayResult",
       [this](const Request& r) -> Reply {
         return workspace_->ReplayResultRequest(r.params, r.cancelled.get());
       }},
      {"workspace/executeCommand",
       [this](const Request& r) -> Reply {
         return workspace_->ExecuteCommand(r.params, r.cancelled.get());
       }},
      {"textDocument/codeAction",
       [this](const Request& r) -> Reply { return workspace_->CodeActions(r.params); }},
      {"textDocument/codeLens", document_feature([this](const Snapshot& s) -> Reply {
         if (s.text == nullptr) return Json::array();
         return workspace_->CodeLenses(s.uri, *s.text);
       })},
  };

  notifications_ = {
      {"initialized", [this](Json&) { workspace_->Initialized(); }},
      {"workspace/didChangeWatchedFiles",
       [this](Json& params) { workspace_->FilesChanged(params); }},
      {"workspace/didChangeWorkspaceFolders",
       [this](Json& params) { workspace_->FoldersChanged(params); }},
      {"exit", [this](Json&) { exit_requested_ = true; }},
      {"$/cancelRequest",
       [this](Json& params) {
         if (!params.is_object() || !params.contains("id")) return;
         std::lock_guard<std::mutex> lock(pending_mutex_);
         auto it = pending_.find(IdKey(params["id"]));
         if (it != pending_.end()) *it->second = true;
       }},
      {"$/setTrace",
       [this](Json& params) {
         if (params.is_object() && params.contains("value") &&
             params["value"].is_string()) {
           std::string v = params["value"].get<std::string>();
           trace_level_ = v == "verbose" ? 2 : v == "messages" ? 1 : 0;
         }
       }},
      {"textDocument/didOpen",
       [this](Json& params) {
         DidOpenParams p;
         std::string error;
         // Take the (possibly 100 MB) text out of the message instead of copying it.
         std::string text;
         if (params.is_object() && params.contains("textDocument") &&
             params["textDocument"].is_object()) {
           Json& td = params["textDocument"];
           if (td.contains("text") && td["text"].is_string()) {
             text = std::move(td["text"].get_ref<std::string&>());
             td["text"] = "";
           }
         }
         if (!FromJson(params, &p, &error)) return Log(kWarning, "didOpen: " + error);
         p.text = std::move(text);
         if (p.text.size() >= (size_t{1} << 32) - 1) {
           return Log(kError, "didOpen: document over 4 GiB ignored: " + p.uri);
         }
         documents_->Open(std::move(p));
       }},
      {"textDocument/didChange",
       [this](Json& params) {
         DidChangeParams p;
         std::string error;
         if (!FromJson(params, &p, &error)) return Log(kWarning, "didChange: " + error);
         if (!documents_->Change(p)) Log(kWarning, "didChange for a closed document: " + p.uri);
       }},
      {"textDocument/didClose",
       [this](Json& params) {
         std::string uri, error;
         if (!TextDocumentUri(params, &uri, &error)) return Log(kWarning, "didClose: " + error);
         documents_->Close(uri);
         Send(MakeNotification("textDocument/publishDiagnostics",
                               ToJson(PublishDiagnosticsParams{uri, std::nullopt, {}})));
       }},
      {"textDocument/didSave", [](Json&) {}},
      {"workspace/didChangeConfiguration",
       [this](Json& params) {
         if (!params.is_object() || !params.contains("settings")) return;
         if (std::optional<bool> v = InlayHintSetting(params["settings"])) {
           inlay_hints_ = *v;
           if (inlay_refresh_support_) {
             Send(MakeRequest(Json("hlo-lsp/" + std::to_string(next_server_request_++)),
                              "workspace/inlayHint/refresh", nullptr));
           }
         }
       }},
  };
}

// ------------------------------------------------------------ lifecycle --

LspServer::Reply LspServer::Initialize(const Request& request) {
  if (initialized_) return RpcError{ErrorCode::kInvalidRequest, "already initialized"};
  InitializeParams p;
  std::string error;
  if (!FromJson(request.params, &p, &error)) return InvalidParams(error);
  hlo::ColumnUnit unit = hlo::ColumnUnit::kUtf16CodeUnits;
  if (std::find(p.position_encodings.begin(), p.position_encodings.end(), "utf-8") !=
      p.position_encodings.end()) {
    unit = hlo::ColumnUnit::kUtf8Bytes;
  }
  documents_->set_unit(unit);
  trace_level_ = p.trace == "verbose" ? 2 : p.trace == "messages" ? 1 : 0;
  if (p.inlay_hints) inlay_hints_ = *p.inlay_hints;
  // Read with find(): a const operator[] on a missing key is undefined.
  bool refresh = false;
  if (auto caps = request.params.find("capabilities");
      caps != request.params.end() && caps->is_object()) {
    if (auto ws = caps->find("workspace"); ws != caps->end() && ws->is_object()) {
      if (auto ih = ws->find("inlayHint"); ih != ws->end() && ih->is_object()) {
        auto rs = ih->find("refreshSupport");
        refresh = rs != ih->end() && rs->is_boolean() && rs->get<bool>();
      }
    }
  }
  inlay_refresh_support_ = refresh;
  workspace_->Initialize(request.params);
  initialized_ = true;
  return Json{{"capabilities", Capabilities(unit)},
              {"serverInfo", {{"name", "hlo-lsp"}, {"version", "0.1.0"}}}};
}

int LspServer::Run() {
  std::string body;
  while (!exit_requested_) {
    ReadResult r = transport_->Read(&body);
    if (r == ReadResult::kEof) {
      Log(kInfo, "input closed");
      break;
    }
    if (r == ReadResult::kBadHeader) {
      Log(kWarning, "message without a valid Content-Length skipped");
      Send(MakeError(nullptr, ErrorCode::kParseError, "bad message header"));
      continue;
    }
    Json json = ParseBody(body);
    if (json.is_discarded()) {
      Send(MakeError(nullptr, ErrorCode::kParseError, "invalid JSON"));
      continue;
    }
    Dispatch(ClassifyMessage(std::move(json)));
  }
  StopClientCalls();
  workspace_->Shutdown();
  documents_->Shutdown();
  request_pool_->Stop();
  parse_pool_->Stop();
  return shutdown_requested_ ? 0 : 1;
}

Json LspServer::ParseBody(const std::string& body) {
  // A big didOpen: decode its text apart, then parse the small rest.
  constexpr size_t kLargeBody = size_t{1} << 20;
  if (body.size() >= kLargeBody) {
    std::string rest, text;
    if (ExtractStringField(body, "text", &rest, &text)) {
      Json json = Json::parse(rest, nullptr, false);
      if (!json.is_discarded() && json.is_object() &&
          json.value("method", "") == "textDocument/didOpen") {
        auto params = json.find("params");
        if (params != json.end() && params->is_object()) {
          auto td = params->find("textDocument");
          if (td != params->end() && td->is_object()) {
            auto t = td->find("text");
            if (t != td->end() && t->is_string() && t->get_ref<const std::string&>().empty()) {
              *t = std::move(text);
              return json;
            }
          }
        }
      }
    }
  }
  return Json::parse(body, nullptr, /*allow_exceptions=*/false);
}

void LspServer::Dispatch(IncomingMessage message) {
  switch (message.kind) {
    case MessageKind::kInvalid:
      Send(MakeError(message.id, ErrorCode::kInvalidRequest, message.invalid_reason));
      return;
    case MessageKind::kResponse:
      ReplyFromClient(message);
      return;
    case MessageKind::kNotification: {
      if (!initialized_ && message.method != "exit") return;
      auto it = notifications_.find(message.method);
      if (it == notifications_.end()) {
        if (trace_level_ >= 2) Log(kLog, "ignored notification " + message.method);
        return;
      }
      try {
        it->second(message.params);
      } catch (const std::exception& e) {  // a JSON type mismatch, at worst
        Log(kError, message.method + ": " + e.what());
      }
      return;
    }
    case MessageKind::kRequest:
      HandleRequest(std::move(message));
      return;
  }
}

void LspServer::HandleRequest(IncomingMessage message) {
  if (!initialized_ && message.method != "initialize") {
    Send(MakeError(message.id, ErrorCode::kServerNotInitialized, "server not initialized"));
    return;
  }
  if (shutdown_requested_) {
    Send(MakeError(message.id, ErrorCode::kInvalidRequest, "server is shutting down"));
    return;
  }
  auto it = requests_.find(message.method);
  if (it == requests_.end()) {
    Send(MakeError(message.id, ErrorCode::kMethodNotFound,
                   "method not found: " + message.method));
    return;
  }
  Request request;
  request.id = std::move(message.id);
  request.method = std::move(message.method);
  request.params = message.params.is_null() ? Json::object() : std::move(message.params);
  std::string error;
  if (TextDocumentUri(request.params, &request.uri, &error)) {
    request.generation = documents_->Generation(request.uri);
  }
  request.cancelled = std::make_shared<std::atomic<bool>>(false);
  if (trace_level_ >= 2) Log(kLog, "request " + request.method + " " + request.id.dump());
  // Lifecycle requests run in order on this thread.
  if (request.method == "initialize" || request.method == "shutdown") {
    RunRequest(request, it->second);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(pending_mutex_);
    pending_[IdKey(request.id)] = request.cancelled;
  }
  const RequestHandler* handler = &it->second;
  request_pool_->Submit([this, request = std::move(request), handler] {
    RunRequest(request, *handler);
  });
}

void LspServer::RunRequest(const Request& request, const RequestHandler& handler) {
  Reply reply;
  if (request.cancelled->load()) {
    reply = RpcError{ErrorCode::kRequestCancelled, "cancelled"};
  } else {
    try {
      reply = handler(request);
    } catch (const std::exception& e) {
      reply = RpcError{ErrorCode::kInternalError, e.what()};
    }
  }
  {
    std::lock_guard<std::mutex> lock(pending_mutex_);
    pending_.erase(IdKey(request.id));
  }
  if (const RpcError* e = std::get_if<RpcError>(&reply)) {
    Send(MakeError(request.id, e->code, e->message));
  } else if (const RawJson* raw = std::get_if<RawJson>(&reply)) {
    Send(MakeRawResult(request.id, *raw));
  } else {
    Send(MakeResult(request.id, std::get<Json>(reply)));
  }
}

LspServer::Reply LspServer::WithSnapshot(
    const Request& request, const std::function<Reply(const Snapshot&)>& feature) {
  const std::atomic<bool>* cancelled = request.cancelled.get();
  std::shared_ptr<const Snapshot> snap =
      documents_->Get(request.uri, request.generation, cancelled);
  if (cancelled->load()) return RpcError{ErrorCode::kRequestCancelled, "cancelled"};
  if (snap == nullptr) {
    return InvalidParams("document not open and not readable: " + request.uri);
  }
  auto modified = [&] {
    return !snap->from_disk && documents_->Generation(request.uri) != snap->generation;
  };
  if (modified()) return RpcError{ErrorCode::kContentModified, "content modified"};
  Reply result = feature(*snap);
  if (cancelled->load()) return RpcError{ErrorCode::kRequestCancelled, "cancelled"};
  if (modified()) return RpcError{ErrorCode::kContentModified, "content modified"};
  return result;
}

// ------------------------------------------------- requests to the client --

std::optional<Json> LspServer::CallClient(const std::string& method, const Json& params,
                                          int timeout_ms, const std::atomic<bool>* cancelled) {
  Json id("hlo-lsp/" + std::to_string(next_server_request_++));
  auto call = std::make_shared<ClientCall>();
  {
    std::lock_guard<std::mutex> lock(client_calls_mutex_);
    if (client_calls_closed_) return std::nullopt;
    client_calls_[IdKey(id)] = call;
  }
  Send(MakeRequest(id, method, params));
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  std::unique_lock<std::mutex> lock(client_calls_mutex_);
  while (!call->done && !client_calls_closed_ && std::chrono::steady_clock::now() < deadline &&
         !(cancelled && cancelled->load())) {
    client_calls_cv_.wait_for(lock, std::chrono::milliseconds(100));
  }
  client_calls_.erase(IdKey(id));
  if (!call->done || !call->ok) return std::nullopt;
  return std::move(call->result);
}

void LspServer::ReplyFromClient(const IncomingMessage& message) {
  std::lock_guard<std::mutex> lock(client_calls_mutex_);
  auto it = client_calls_.find(IdKey(message.id));
  if (it == client_calls_.end()) return;  // inlay refresh, or given up on
  it->second->done = true;
  it->second->ok = message.error.is_null();
  it->second->result = message.params;
  client_calls_cv_.notify_all();
}

void LspServer::StopClientCalls() {
  std::lock_guard<std::mutex> lock(client_calls_mutex_);
  client_calls_closed_ = true;
  client_calls_cv_.notify_all();
}

// -------------------------------------------------------------- output --

void LspServer::Send(const std::string& body) { transport_->Write(body); }

void LspServer::Log(int type, const std::string& message) {
  static const char* kNames[] = {"", "error", "warning", "info", "log"};
  std::fprintf(stderr, "hlo-lsp %s: %s\n", kNames[type], message.c_str());
  int level = trace_level_;
  bool send = type <= kWarning || (type == kInfo && level >= 1) ||
              (type == kLog && level >= 2);
  if (send && initialized_) {
    Send(MakeNotification("window/logMessage", Json{{"type", type}, {"message", message}}));
  }
}

void LspServer::PublishDiagnostics(const Snapshot& snap) {
  Send(MakeNotification(
      "textDocument/publishDiagnostics",
      ToJson(PublishDiagnosticsParams{snap.uri, snap.version, Diagnostics(snap)})));
}

}  // namespace hlo_lsp
