// String glue for Debian 12's abseil (20220623), which is built with its own
// absl::string_view (ABSL_OPTION_USE_STD_STRING_VIEW 0), a type distinct from
// std::string_view. Our code speaks std::string_view; ToAbsl and ToStd
// convert at the abseil boundary (absl::StrCat, absl::CUnescape, ...), and
// Cat concatenates like absl::StrCat but takes std::string_view too.
//
// Prefix and suffix tests need no helper: C++20's std::string_view and
// std::string have starts_with and ends_with.
#ifndef HLO_LSP_BASE_STRINGS_H_
#define HLO_LSP_BASE_STRINGS_H_

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>

#include "absl/strings/string_view.h"

namespace hlo::base {

inline absl::string_view ToAbsl(std::string_view s) {
  return absl::string_view(s.data(), s.size());
}
inline std::string_view ToStd(absl::string_view s) {
  return std::string_view(s.data(), s.size());
}

// Cat("dimension ", 3, " of ", name): strings and string views of either
// kind, C strings, and numbers (a char as itself, a bool as true/false,
// others as std::to_string writes them).
inline void AppendPiece(std::string& out, std::string_view s) { out.append(s); }
inline void AppendPiece(std::string& out, const std::string& s) {
  out.append(s);
}
inline void AppendPiece(std::string& out, const char* s) { out.append(s); }
inline void AppendPiece(std::string& out, absl::string_view s) {
  out.append(s.data(), s.size());
}
template <typename N>
requires std::is_arithmetic_v<N>
void AppendPiece(std::string& out, N value) {
  if constexpr (std::is_same_v<N, bool>) {
    out.append(value ? "true" : "false");
  } else if constexpr (std::is_same_v<N, char>) {
    out.push_back(value);
  } else {
    out.append(std::to_string(value));
  }
}

template <typename... Args>
std::string Cat(const Args&... args) {
  std::string out;
  (AppendPiece(out, args), ...);
  return out;
}

// A space, tab or line break: what separates tokens in HLO text.
inline bool IsBlank(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

// Whether every byte is below 0x80, eight bytes at a time (names in a
// dump are ASCII almost always: the check sits on hot paths).
inline bool IsAscii(std::string_view s) {
  uint64_t any = 0;
  size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    uint64_t word;
    std::memcpy(&word, s.data() + i, 8);
    any |= word;
  }
  for (; i < s.size(); ++i) any |= static_cast<unsigned char>(s[i]);
  return (any & 0x8080808080808080ull) == 0;
}

// Cat onto the end of `out`: a long answer built with no temporaries.
template <typename... Args>
void Append(std::string& out, const Args&... args) {
  (AppendPiece(out, args), ...);
}

// A line of text without its leading blanks and trailing blanks or '\r'
// (one line of a dump read with its '\n' already split off).
inline std::string_view TrimLine(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) {
    s.remove_prefix(1);
  }
  while (!s.empty() &&
         (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

}  // namespace hlo::base

#endif  // HLO_LSP_BASE_STRINGS_H_
