// JSON-RPC 2.0 message shapes on top of the transport: classifies incoming
// messages and builds responses and errors. The only layer (with protocol.cc)
// that touches JSON.
#ifndef HLO_LSP_SERVER_JSON_RPC_H_
#define HLO_LSP_SERVER_JSON_RPC_H_

#include <string>
#include <string_view>

#include "nlohmann/json.hpp"
#include "server/result.h"

namespace hlo_lsp {

using Json = nlohmann::json;

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

// A request's id (an integer or a string), echoed verbatim in the reply.
class RequestId {
 public:
  RequestId() = default;
  explicit RequestId(Json id) : id_(std::move(id)) {}
  static RequestId Named(std::string name) {
    return RequestId(Json(std::move(name)));
  }
  // A key for maps of pending requests: the id's JSON text.
  std::string Key() const { return id_.dump(); }
  const Json& value() const { return id_; }

 private:
  Json id_;
};

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

// Parses a message body; a discarded value when it is not JSON. A large
// didOpen has its text decoded apart (several times faster than the DOM).
Json ParseMessageBody(const std::string& body);
// Parses and classifies a body: a kInvalid message with `parse_error` set
// when it is not JSON.
IncomingMessage DecodeMessage(const std::string& body, bool* parse_error);

// Serialized message bodies (invalid UTF-8 in strings is replaced).
std::string MakeResult(const Json& id, const Json& result);
std::string MakeRawResult(const Json& id, const RawJson& result);
std::string MakeError(const Json& id, ErrorCode code, std::string_view message);
std::string MakeNotification(std::string_view method, const Json& params);
std::string MakeRequest(const Json& id, std::string_view method,
                        const Json& params);

}  // namespace hlo_lsp

#endif  // HLO_LSP_SERVER_JSON_RPC_H_
