#include "server/json_rpc.h"

namespace hlo_lsp {
namespace {

std::string Dump(const Json& j) {
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace

IncomingMessage ClassifyMessage(Json message) {
  IncomingMessage out;
  if (!message.is_object()) {
    out.invalid_reason = "message is not a JSON object";
    return out;
  }
  auto id = message.find("id");
  bool has_id = id != message.end();
  if (has_id) {
    if (id->is_number_integer() || id->is_string()) {
      out.id = *id;
    } else if (!id->is_null()) {
      out.invalid_reason = "id must be an integer or a string";
      return out;
    }
  }
  auto method = message.find("method");
  if (method == message.end()) {
    if (has_id && (message.contains("result") || message.contains("error"))) {
      out.kind = MessageKind::kResponse;
      // A reply to one of our requests: the result (or error) rides in params.
      auto result = message.find("result");
      if (result != message.end()) out.params = std::move(*result);
      auto error = message.find("error");
      if (error != message.end() && !error->is_null())
        out.error = std::move(*error);
      return out;
    }
    out.invalid_reason = "missing method";
    return out;
  }
  if (!method->is_string()) {
    out.invalid_reason = "method must be a string";
    return out;
  }
  out.method = method->get<std::string>();
  auto params = message.find("params");
  if (params != message.end()) {
    if (!params->is_object() && !params->is_array() && !params->is_null()) {
      out.invalid_reason = "params must be an object or an array";
      return out;
    }
    out.params = std::move(*params);
  }
  out.kind = has_id && !id->is_null() ? MessageKind::kRequest
                                      : MessageKind::kNotification;
  return out;
}

Json ParseMessageBody(const std::string& body) {
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
            if (t != td->end() && t->is_string() &&
                t->get_ref<const std::string&>().empty()) {
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

IncomingMessage DecodeMessage(const std::string& body, bool* parse_error) {
  Json json = ParseMessageBody(body);
  *parse_error = json.is_discarded();
  if (*parse_error) return IncomingMessage{};
  return ClassifyMessage(std::move(json));
}

std::string MakeResult(const Json& id, const Json& result) {
  return Dump(Json{{"jsonrpc", "2.0"}, {"id", id}, {"result", result}});
}

std::string MakeRawResult(const Json& id, const RawJson& result) {
  std::string out = "{\"jsonrpc\":\"2.0\",\"id\":" + Dump(id) + ",\"result\":";
  out.reserve(out.size() + result.text.size() + 1);
  out += result.text;
  out += '}';
  return out;
}

namespace {

// Bytes of the well-formed UTF-8 sequence starting at s[i], or 0; *valid
// receives how many bytes of it were well formed before it broke, 0 for a
// bad lead byte (the
// "maximal subpart" of Unicode 3.9, which nlohmann's decoder replaces with
// one U+FFFD, re-reading the byte that broke it).
size_t Utf8Sequence(std::string_view s, size_t i, size_t* valid) {
  const unsigned char c = static_cast<unsigned char>(s[i]);
  size_t len = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // the second byte's range
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    if (c == 0xE0) lo = 0xA0;  // no overlong forms
    if (c == 0xED) hi = 0x9F;  // no surrogates
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;  // at most U+10FFFF
  }
  *valid = 0;
  if (len == 0) return 0;
  for (size_t k = 1; k < len; ++k) {
    if (i + k >= s.size()) {
      *valid = s.size() - i;  // cut short by the end: one U+FFFD for all
      return 0;
    }
    const unsigned char d = static_cast<unsigned char>(s[i + k]);
    if (k == 1 ? (d < lo || d > hi) : (d & 0xC0) != 0x80) return 0;
    *valid = k + 1;  // the lead and k continuation bytes
  }
  return len;
}

}  // namespace

void AppendJsonString(std::string* out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out->push_back('"');
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(static_cast<char>(c));
      ++i;
    } else if (c < 0x20) {
      // nlohmann's short escapes, then \u00XX for the other controls.
      const char* short_escape = c == '\b'   ? "\\b"
                                 : c == '\t' ? "\\t"
                                 : c == '\n' ? "\\n"
                                 : c == '\f' ? "\\f"
                                 : c == '\r' ? "\\r"
                                             : nullptr;
      if (short_escape != nullptr) {
        out->append(short_escape);
      } else {
        out->append("\\u00");
        out->push_back(kHex[c >> 4]);
        out->push_back(kHex[c & 15]);
      }
      ++i;
    } else if (c < 0x80) {
      // A run of plain ASCII goes in one append.
      size_t j = i + 1;
      while (j < s.size()) {
        unsigned char d = static_cast<unsigned char>(s[j]);
        if (d >= 0x80 || d < 0x20 || d == '"' || d == '\\') break;
        ++j;
      }
      out->append(s.substr(i, j - i));
      i = j;
    } else {
      // One UTF-8 sequence copied, or one U+FFFD for its broken prefix.
      size_t valid = 0;
      if (size_t len = Utf8Sequence(s, i, &valid)) {
        out->append(s.substr(i, len));
        i += len;
      } else {
        out->append("\xef\xbf\xbd");
        i += valid > 0 ? valid : 1;
      }
    }
  }
  out->push_back('"');
}

namespace {

int Hex4(std::string_view s, size_t at) {
  if (at + 4 > s.size()) return -1;
  int v = 0;
  for (size_t i = at; i < at + 4; ++i) {
    char c = s[i];
    int d = c >= '0' && c <= '9'   ? c - '0'
            : c >= 'a' && c <= 'f' ? c - 'a' + 10
            : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                   : -1;
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

void AppendUtf8(std::string* out, uint32_t cp) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

}  // namespace

bool ExtractStringField(std::string_view json, std::string_view key,
                        std::string* rest, std::string* value) {
  std::string pattern = "\"" + std::string(key) + "\"";
  size_t pos = 0;
  size_t open = std::string_view::npos;
  while ((pos = json.find(pattern, pos)) != std::string_view::npos) {
    size_t i = pos + pattern.size();
    while (i < json.size() && (json[i] == ' ' || json[i] == '\t' ||
                               json[i] == '\n' || json[i] == '\r'))
      ++i;
    if (i < json.size() && json[i] == ':') {
      ++i;
      while (i < json.size() && (json[i] == ' ' || json[i] == '\t' ||
                                 json[i] == '\n' || json[i] == '\r'))
        ++i;
      if (i < json.size() && json[i] == '"') {
        open = i;
        break;
      }
    }
    pos += pattern.size();
  }
  if (open == std::string_view::npos) return false;
  value->clear();
  value->reserve(json.size() - open);
  size_t i = open + 1;
  while (true) {
    size_t stop = i;
    while (stop < json.size() && json[stop] != '"' && json[stop] != '\\' &&
           static_cast<unsigned char>(json[stop]) >= 0x20) {
      ++stop;
    }
    value->append(json.substr(i, stop - i));
    if (stop >= json.size() || static_cast<unsigned char>(json[stop]) < 0x20)
      return false;
    if (json[stop] == '"') {
      i = stop + 1;
      break;
    }
    // An escape.
    if (stop + 1 >= json.size()) return false;
    char e = json[stop + 1];
    i = stop + 2;
    switch (e) {
      case '"':
        value->push_back('"');
        break;
      case '\\':
        value->push_back('\\');
        break;
      case '/':
        value->push_back('/');
        break;
      case 'b':
        value->push_back('\b');
        break;
      case 'f':
        value->push_back('\f');
        break;
      case 'n':
        value->push_back('\n');
        break;
      case 'r':
        value->push_back('\r');
        break;
      case 't':
        value->push_back('\t');
        break;
      case 'u': {
        int cp = Hex4(json, i);
        if (cp < 0) return false;
        i += 4;
        uint32_t code = static_cast<uint32_t>(cp);
        if (code >= 0xD800 && code < 0xDC00 && i + 1 < json.size() &&
            json[i] == '\\' && json[i + 1] == 'u') {
          int low = Hex4(json, i + 2);
          if (low >= 0xDC00 && low < 0xE000) {
            code = 0x10000 + ((code - 0xD800) << 10) +
                   (static_cast<uint32_t>(low) - 0xDC00);
            i += 6;
          }
        }
        if (code >= 0xD800 && code < 0xE000) code = 0xFFFD;  // lone surrogate
        AppendUtf8(value, code);
        break;
      }
      default:
        return false;
    }
  }
  rest->clear();
  rest->reserve(open + 2 + (json.size() - i));
  rest->append(json.substr(0, open));
  rest->append("\"\"");
  rest->append(json.substr(i));
  return true;
}

std::string MakeError(const Json& id, ErrorCode code,
                      std::string_view message) {
  return Dump(Json{
      {"jsonrpc", "2.0"},
      {"id", id},
      {"error",
       {{"code", static_cast<int>(code)}, {"message", std::string(message)}}}});
}

std::string MakeNotification(std::string_view method, const Json& params) {
  return Dump(Json{
      {"jsonrpc", "2.0"}, {"method", std::string(method)}, {"params", params}});
}

std::string MakeRequest(const Json& id, std::string_view method,
                        const Json& params) {
  return Dump(Json{{"jsonrpc", "2.0"},
                   {"id", id},
                   {"method", std::string(method)},
                   {"params", params}});
}

}  // namespace hlo_lsp
