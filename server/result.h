// What a handler answers: a typed result or an error reply. No JSON here:
// features return these, and the protocol layer encodes them.
#ifndef HLO_LSP_SERVER_RESULT_H_
#define HLO_LSP_SERVER_RESULT_H_

#include <string>
#include <utility>
#include <variant>

namespace hlo_lsp {

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

template <typename T>
using Result = std::variant<T, RpcError>;

// A `null` result.
struct Null {};

inline RpcError InvalidParams(std::string message) {
  return RpcError{ErrorCode::kInvalidParams, std::move(message)};
}
inline RpcError RequestFailed(std::string message) {
  return RpcError{ErrorCode::kRequestFailed, std::move(message)};
}
inline RpcError Cancelled() {
  return RpcError{ErrorCode::kRequestCancelled, "cancelled"};
}

}  // namespace hlo_lsp

#endif  // HLO_LSP_SERVER_RESULT_H_
