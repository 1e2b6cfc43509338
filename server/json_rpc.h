// JSON-RPC 2.0 message shapes on top of the transport: classifies incoming
// messages and builds responses and errors. The only layer (with protocol.cc)
// that touches JSON.
#ifndef HLO_LSP_SERVER_JSON_RPC_H_
#define HLO_LSP_SERVER_JSON_RPC_H_

#include <string>
#include <string_view>

#include "nlohmann/json.hpp"

namespace hlo_lsp {

using Json = nlohmann::json;

enum class ErrorCode : int {
  kParseError = -32700,
  kInvalidRequest = -32600,
  kMethodNotFound = -32601,
  kInvalidParams = -32602,
  kInternalError = -32603,
  kServerNotInitialized = -32002,
  kRequestFailed = -32803,
  kRequestCancelled = -32800,
  kContentModified = -32801,
};

// An error a handler returns instead of a result.
struct RpcError {
  ErrorCode code = ErrorCode::kInternalError;
  std::string message;
};

// A result already serialized (large replies skip the JSON DOM).
struct RawJson {
  std::string text;
};

// Appends `s` as a JSON string literal; invalid UTF-8 becomes U+FFFD.
void AppendJsonString(std::string* out, std::string_view s);

// Cuts the first string value of `"key":` out of a large JSON text without
// a DOM: *rest receives the text with that value replaced by "", *value the
// decoded string. False when there is no such field or it is malformed.
// (A 100 MB didOpen parses several times faster this way.)
bool ExtractStringField(std::string_view json, std::string_view key,
                        std::string* rest, std::string* value);

enum class MessageKind { kRequest, kNotification, kResponse, kInvalid };

struct IncomingMessage {
  MessageKind kind = MessageKind::kInvalid;
  Json id;  // null for notifications and invalid messages without one
  std::string method;
  Json params;  // null when absent; a response's `result`
  Json error;   // a response's `error` (null otherwise)
  std::string invalid_reason;
};

// Classifies a decoded JSON value. Never throws.
IncomingMessage ClassifyMessage(Json message);

// Serialized message bodies (invalid UTF-8 in strings is replaced).
std::string MakeResult(const Json& id, const Json& result);
std::string MakeRawResult(const Json& id, const RawJson& result);
std::string MakeError(const Json& id, ErrorCode code, std::string_view message);
std::string MakeNotification(std::string_view method, const Json& params);
std::string MakeRequest(const Json& id, std::string_view method,
                        const Json& params);

}  // namespace hlo_lsp

#endif  // HLO_LSP_SERVER_JSON_RPC_H_
