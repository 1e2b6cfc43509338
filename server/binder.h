// The protocol layer's method table: binds each LSP method, and each
// `workspace/executeCommand` command, to a typed handler. Params are decoded
// with FromJson (a mismatch answers -32602 naming the field), results are
// encoded with ToJson or a streaming encoder, so handlers never see JSON.
// Also the typed encoders of what the server sends on its own
// (notifications, requests to the client) and the decoder of the client's
// replies.
#ifndef HLO_LSP_SERVER_BINDER_H_
#define HLO_LSP_SERVER_BINDER_H_

#include <exception>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "server/json_rpc.h"
#include "server/protocol.h"
#include "server/protocol_workspace.h"
#include "server/result.h"

namespace hlo_lsp {

// ------------------------------------------------------ result encoding --

inline Json ToJsonValue(const Null&) { return Json(nullptr); }
template <typename T>
Json ToJsonValue(const T& value);
template <typename T>
Json ToJsonValue(const std::vector<T>& items) {
  Json out = Json::array();
  for (const T& item : items) out.push_back(ToJsonValue(item));
  return out;
}
template <typename T>
Json ToJsonValue(const std::optional<T>& value) {
  return value ? ToJsonValue(*value) : Json(nullptr);
}
template <typename T>
Json ToJsonValue(const T& value) {
  return ToJson(value);
}

// Large replies are written straight to text, without a DOM.
inline RawJson EncodeResult(const std::vector<DocumentSymbol>& symbols) {
  return EncodeSymbols(symbols);
}
inline RawJson EncodeResult(const SemanticTokens& tokens) {
  return EncodeSemanticTokens(tokens);
}
inline RawJson EncodeResult(const std::vector<WorkspaceSymbol>& symbols) {
  return EncodeWorkspaceSymbols(symbols);
}
inline RawJson EncodeResult(const WorkspaceSymbol& symbol) {
  return EncodeWorkspaceSymbol(symbol);
}
template <typename T>
Json EncodeResult(const T& value) {
  return ToJsonValue(value);
}

inline std::string MakeReply(const RequestId& id, const Json& result) {
  return MakeResult(id.value(), result);
}
inline std::string MakeReply(const RequestId& id, const RawJson& result) {
  return MakeRawResult(id.value(), result);
}
inline std::string MakeErrorReply(const RequestId& id, const RpcError& error) {
  return MakeError(id.value(), error.code, error.message);
}

// ------------------------------------------------- messages we send --

template <typename P>
std::string EncodeNotification(std::string_view method, const P& params) {
  return MakeNotification(method, ToJsonValue(params));
}

template <typename P>
std::string EncodeRequest(const RequestId& id, std::string_view method,
                          const P& params) {
  return MakeRequest(id.value(), method, ToJsonValue(params));
}

// The result of the client's reply to one of our requests; nullopt for an
// error reply or a result that does not decode.
template <typename R>
std::optional<R> DecodeReply(const IncomingMessage& reply) {
  if (!reply.error.is_null()) return std::nullopt;
  R out;
  std::string error;
  if (!FromJson(reply.params, &out, &error)) return std::nullopt;
  return out;
}

// The `textDocument.uri` of a request's params; empty when there is none.
inline std::string DocumentUriOf(const Json& params) {
  std::string uri, error;
  return TextDocumentUri(params, &uri, &error) ? uri : std::string();
}

// ------------------------------------------------------------ the table --

// `Context` is what the server hands every request handler besides its
// params (the request's document, cancellation flag, ...).
template <typename Context>
class MethodTable {
 public:
  // Reports params of a notification that do not decode.
  using NotificationError =
      std::function<void(const std::string& method, const std::string&)>;

  explicit MethodTable(NotificationError on_error)
      : on_error_(std::move(on_error)) {}

  // handler: (const P&, const Context&) -> Result<R>.
  template <typename P, typename F>
  void Request(const std::string& method, F handler) {
    requests_[method] = [handler](const RequestId& id, Json& params,
                                  const Context& context) {
      return Invoke<P>(handler, id, params, context);
    };
  }

  // handler: (P&) -> void; it may move from its params.
  template <typename P, typename F>
  void Notification(const std::string& method, F handler) {
    notifications_[method] = [this, method, handler](Json& params) {
      P decoded;
      std::string error;
      if (!FromJson(params, &decoded, &error)) return on_error_(method, error);
      handler(decoded);
    };
  }

  // A `workspace/executeCommand` command; its first argument decodes as
  // Args (an empty object when there is none). handler: (const Args&,
  // const Context&) -> Result<R>.
  template <typename Args, typename F>
  void Command(const std::string& name, F handler) {
    command_names_.push_back(name);
    commands_[name] = [handler](const RequestId& id, const Json& argument,
                                const Context& context) {
      return Invoke<Args>(handler, id, argument, context);
    };
  }

  bool HasRequest(const std::string& method) const {
    return method == kExecuteCommand ? !commands_.empty()
                                     : requests_.count(method) != 0;
  }
  const std::vector<std::string>& command_names() const {
    return command_names_;
  }

  // Runs a request's handler and returns the reply to send. A handler that
  // throws (a JSON type mismatch at worst) answers an internal error.
  std::string Call(const std::string& method, const RequestId& id, Json& params,
                   const Context& context) const {
    try {
      if (params.is_null()) params = Json::object();
      if (method == kExecuteCommand) return CallCommand(id, params, context);
      auto it = requests_.find(method);
      if (it == requests_.end()) {
        return MakeErrorReply(
            id, {ErrorCode::kMethodNotFound, "method not found: " + method});
      }
      return it->second(id, params, context);
    } catch (const std::exception& e) {
      return MakeErrorReply(id, {ErrorCode::kInternalError, e.what()});
    }
  }

  // Runs a notification's handler; false when the method is not bound.
  bool Notify(const std::string& method, Json& params) const {
    auto it = notifications_.find(method);
    if (it == notifications_.end()) return false;
    try {
      it->second(params);
    } catch (const std::exception& e) {
      on_error_(method, e.what());
    }
    return true;
  }

 private:
  static constexpr const char* kExecuteCommand = "workspace/executeCommand";
  using RequestFn =
      std::function<std::string(const RequestId&, Json&, const Context&)>;
  using CommandFn =
      std::function<std::string(const RequestId&, const Json&, const Context&)>;

  std::string CallCommand(const RequestId& id, const Json& params,
                          const Context& context) const {
    const Json* name = Member(params, "command");
    if (name == nullptr || !name->is_string())
      return MakeErrorReply(id, InvalidParams("expected string 'command'"));
    const std::string command = name->get<std::string>();
    auto it = commands_.find(command);
    if (it == commands_.end())
      return MakeErrorReply(id, InvalidParams("unknown command: " + command));
    // A wrong-typed `arguments` (or first argument) is named here; read as
    // "no argument" it would surface as a confusing error about a field
    // inside it.
    static const Json kNoArgument = Json::object();
    const Json* arguments = Member(params, "arguments");
    const Json* first = &kNoArgument;
    if (arguments != nullptr && !arguments->is_null()) {
      if (!arguments->is_array())
        return MakeErrorReply(id, InvalidParams("expected array 'arguments'"));
      if (!arguments->empty() && !(*arguments)[0].is_null()) {
        first = &(*arguments)[0];
        if (!first->is_object()) {
          return MakeErrorReply(
              id, InvalidParams("expected an object first in 'arguments'"));
        }
      }
    }
    return it->second(id, *first, context);
  }

  // Decodes `params` as P, runs `handler` and encodes its reply.
  template <typename P, typename F, typename J>
  static std::string Invoke(const F& handler, const RequestId& id, J& params,
                            const Context& context) {
    P decoded;
    std::string error;
    if (!FromJson(params, &decoded, &error)) {
      return MakeErrorReply(id, InvalidParams(error));
    }
    auto result = handler(decoded, context);
    if (const RpcError* e = std::get_if<RpcError>(&result))
      return MakeErrorReply(id, *e);
    return MakeReply(id, EncodeResult(std::get<0>(result)));
  }

  NotificationError on_error_;
  std::map<std::string, RequestFn> requests_;
  std::map<std::string, std::function<void(Json&)>> notifications_;
  std::map<std::string, CommandFn> commands_;
  std::vector<std::string> command_names_;
};

}  // namespace hlo_lsp

#endif  // HLO_LSP_SERVER_BINDER_H_
