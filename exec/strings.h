// String building for exec/: like absl::StrCat but taking std::string_view
// (Debian's abseil has its own string_view) and abseil's messages alike.
#ifndef HLO_LSP_EXEC_STRINGS_H_
#define HLO_LSP_EXEC_STRINGS_H_

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <type_traits>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace hlo::exec {

inline void AppendPiece(std::string& s, std::string_view v) { s.append(v); }
inline void AppendPiece(std::string& s, const std::string& v) { s.append(v); }
inline void AppendPiece(std::string& s, const char* v) { s.append(v); }
inline void AppendPiece(std::string& s, absl::string_view v) {
  s.append(v.data(), v.size());
}
template <typename N>
requires std::is_arithmetic_v<N>
void AppendPiece(std::string& s, N v) {
  if constexpr (std::is_same_v<N, bool>) {
    s.append(v ? "true" : "false");
  } else if constexpr (std::is_same_v<N, char>) {
    s.push_back(v);
  } else {
    s.append(std::to_string(v));
  }
}

// The evaluator's error for a module or input it cannot run.
inline absl::Status Bad(std::string_view message) {
  return absl::InvalidArgumentError(
      absl::string_view(message.data(), message.size()));
}

template <typename... A>
std::string Cat(const A&... a) {
  std::string s;
  (AppendPiece(s, a), ...);
  return s;
}

// A size for messages: "1.50 GiB", "12.3 MiB", "512 bytes".
inline std::string HumanBytes(int64_t n) {
  char buf[64];
  if (n >= (int64_t{1} << 30)) {
    std::snprintf(buf, sizeof buf, "%.2f GiB", n / double(int64_t{1} << 30));
  } else if (n >= (1 << 20)) {
    std::snprintf(buf, sizeof buf, "%.1f MiB", n / double(1 << 20));
  } else {
    std::snprintf(buf, sizeof buf, "%lld bytes", static_cast<long long>(n));
  }
  return buf;
}

}  // namespace hlo::exec

#endif  // HLO_LSP_EXEC_STRINGS_H_
