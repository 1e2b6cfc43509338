#include "server/cli/path_escape.h"

#include <cstdint>
#include <cstdio>

namespace hlo_lsp::cli {
namespace {

// The length of the valid UTF-8 sequence at the start of `s`, or 0 (an
// overlong form, a surrogate, past U+10FFFF, or cut short).
size_t ValidSequenceLength(std::string_view s) {
  auto byte = [&](size_t i) { return static_cast<uint8_t>(s[i]); };
  auto continuation = [&](size_t i) {
    return i < s.size() && (byte(i) & 0xC0) == 0x80;
  };
  uint8_t b = byte(0);
  if (b < 0x80) return 1;
  if (b >= 0xC2 && b <= 0xDF) return continuation(1) ? 2 : 0;
  if (b >= 0xE0 && b <= 0xEF) {
    if (!continuation(1) || !continuation(2)) return 0;
    if (b == 0xE0 && byte(1) < 0xA0) return 0;   // overlong
    if (b == 0xED && byte(1) >= 0xA0) return 0;  // surrogate
    return 3;
  }
  if (b >= 0xF0 && b <= 0xF4) {
    if (!continuation(1) || !continuation(2) || !continuation(3)) return 0;
    if (b == 0xF0 && byte(1) < 0x90) return 0;   // overlong
    if (b == 0xF4 && byte(1) >= 0x90) return 0;  // past U+10FFFF
    return 4;
  }
  return 0;
}

void AppendHex(std::string* out, const char* format, unsigned value) {
  char buffer[8];
  std::snprintf(buffer, sizeof buffer, format, value);
  *out += buffer;
}

}  // namespace

std::string JsonPathLiteral(std::string_view path) {
  std::string out = "\"";
  out.reserve(path.size() + 2);
  for (size_t i = 0; i < path.size();) {
    const auto c = static_cast<uint8_t>(path[i]);
    size_t length = ValidSequenceLength(path.substr(i));
    if (length == 0) {
      AppendHex(&out, "\\udc%02x", c);
      ++i;
      continue;
    }
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7F) {
      AppendHex(&out, "\\u%04x", c);
    } else {
      out.append(path.substr(i, length));
    }
    i += length;
  }
  out += '"';
  return out;
}

std::string TextPath(std::string_view path) {
  std::string out;
  out.reserve(path.size());
  for (char ch : path) {
    const auto c = static_cast<uint8_t>(ch);
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7F) {
      AppendHex(&out, "\\x%02x", c);
    } else {
      out += ch;
    }
  }
  return out;
}

}  // namespace hlo_lsp::cli
