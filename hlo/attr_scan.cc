#include "hlo/attr_scan.h"

#include <limits>
#include <utility>

#include "absl/strings/escaping.h"
#include "hlo/absl_compat.h"

namespace hlo::attr_internal {

void Scanner::SkipSpaceSlow() {
  while (pos_ < text_.size()) {
    char c = text_[pos_];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      ++pos_;
    } else if (c == '/' && RawAt(1) == '*') {
      size_t close = text_.find("*/", pos_ + 2);
      if (close == std::string_view::npos) {
        Fail(pos_, text_.size(), "unterminated /* comment");
        pos_ = text_.size();
        return;
      }
      pos_ = close + 2;
    } else if (c == '/' && RawAt(1) == '/') {
      size_t eol = text_.find('\n', pos_);
      pos_ = eol == std::string_view::npos ? text_.size() : eol + 1;
    } else {
      return;
    }
  }
}

bool Scanner::TryConsume(char c) {
  if (Peek() != c || !ok()) return false;
  ++pos_;
  return true;
}

bool Scanner::Expect(char c) {
  if (TryConsume(c)) return true;
  if (!ok()) return false;
  return FailHere(
      attr_internal::Cat("expected '", std::string_view(&c, 1), "'"));
}

bool Scanner::TryConsume2(const char* tok) {
  if (Peek() != tok[0] || RawAt(1) != tok[1]) return false;
  pos_ += 2;
  return true;
}

bool Scanner::ExpectEnd() {
  if (!ok()) return false;
  if (AtEnd()) return ok();
  return FailHere("unexpected text after the value");
}

std::string_view Scanner::Ident() {
  SkipSpace();
  if (pos_ >= text_.size() || !IsIdentStart(text_[pos_])) return {};
  size_t begin = pos_;
  while (pos_ < text_.size() && IsIdentChar(text_[pos_])) ++pos_;
  return text_.substr(begin, pos_ - begin);
}

bool Scanner::TryWord(std::string_view word) {
  size_t save = pos_;
  if (Ident() == word) return true;
  pos_ = save;
  return false;
}

std::string_view Scanner::AttributeName() {
  size_t save = pos_;
  std::string_view name = Ident();
  if (!name.empty() && pos_ < text_.size() && text_[pos_] == '=') {
    ++pos_;
    return name;
  }
  pos_ = save;
  return {};
}

bool Scanner::Int(int64_t* out) {
  SkipSpace();
  if (!ok()) return false;
  size_t begin = pos_;
  bool negative = false;
  if (RawAt(0) == '-') {
    negative = true;
    ++pos_;
  }
  if (!IsDigit(RawAt(0))) {
    pos_ = begin;
    return FailHere("expected an integer");
  }
  uint64_t magnitude = 0;
  bool overflow = false;
  while (IsDigit(RawAt(0))) {
    uint64_t digit = static_cast<uint64_t>(text_[pos_] - '0');
    if (magnitude > (std::numeric_limits<uint64_t>::max() - digit) / 10) {
      overflow = true;
    }
    magnitude = magnitude * 10 + digit;
    ++pos_;
  }
  if (IsIdentChar(RawAt(0))) {
    return Fail(begin, pos_ + 1, "expected an integer");
  }
  constexpr uint64_t kMinMagnitude = uint64_t{1} << 63;
  if (overflow || (negative && magnitude > kMinMagnitude)) {
    return Fail(begin, pos_, "integer out of range");
  }
  if (out != nullptr) {
    *out = negative ? static_cast<int64_t>(0 - magnitude)
                    : static_cast<int64_t>(magnitude);
  }
  return true;
}

bool Scanner::NonNegativeInt(int64_t* out) {
  size_t begin = (SkipSpace(), pos_);
  int64_t value = 0;
  if (!Int(&value)) return false;
  if (value < 0) return Fail(begin, pos_, "expected a non-negative integer");
  if (out != nullptr) *out = value;
  return true;
}

bool Scanner::RawDigits(int64_t* out) {
  size_t begin = pos_;
  int64_t value = 0;
  while (IsDigit(RawAt(0))) {
    int digit = text_[pos_] - '0';
    if (value > (std::numeric_limits<int64_t>::max() - digit) / 10) {
      while (IsDigit(RawAt(0))) ++pos_;
      return Fail(begin, pos_, "integer out of range");
    }
    value = value * 10 + digit;
    ++pos_;
  }
  if (pos_ == begin) return FailHere("expected digits");
  if (out != nullptr) *out = value;
  return true;
}

bool Scanner::Bool(bool* out) {
  size_t begin = (SkipSpace(), pos_);
  std::string_view word = Ident();
  if (word == "true" || word == "false") {
    if (out != nullptr) *out = word == "true";
    return true;
  }
  pos_ = begin;
  return FailHere("expected true or false");
}

namespace {

bool IsHex(char c) {
  return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// Checks C escapes the way absl::CUnescape accepts them, without allocating.
// Returns the offset (within `body`) of a bad escape, or npos.
size_t FindBadEscape(std::string_view body) {
  for (size_t i = 0; i < body.size(); ++i) {
    if (body[i] != '\\') continue;
    size_t at = i++;
    if (i >= body.size()) return at;
    char c = body[i];
    switch (c) {
      case 'n':
      case 't':
      case 'r':
      case '\\':
      case '\'':
      case '"':
      case '?':
      case 'a':
      case 'b':
      case 'f':
      case 'v':
        break;
      case 'x': {
        if (i + 1 >= body.size() || !IsHex(body[i + 1])) return at;
        unsigned value = 0;
        while (i + 1 < body.size() && IsHex(body[i + 1])) {
          char h = body[++i];
          value = value * 16 + (IsDigit(h) ? h - '0' : (h | 0x20) - 'a' + 10);
          if (value > 0xff) return at;  // CUnescape rejects it too
        }
        break;
      }
      case 'u':
      case 'U': {
        size_t digits = c == 'u' ? 4 : 8;
        for (size_t k = 0; k < digits; ++k) {
          if (i + 1 >= body.size() || !IsHex(body[i + 1])) return at;
          ++i;
        }
        break;
      }
      default:
        if (c < '0' || c > '7') return at;
        unsigned value = static_cast<unsigned>(c - '0');
        for (int k = 0; k < 2 && i + 1 < body.size() && body[i + 1] >= '0' &&
                        body[i + 1] <= '7';
             ++k) {
          value = value * 8 + static_cast<unsigned>(body[++i] - '0');
        }
        if (value > 0xff) return at;
    }
  }
  return std::string_view::npos;
}

}  // namespace

bool Scanner::String(std::string_view* raw, std::string* unescaped) {
  SkipSpace();
  if (!ok()) return false;
  char quote = RawAt(0);
  if (quote != '"' && quote != '\'') return FailHere("expected a string");
  size_t begin = pos_++;
  while (pos_ < text_.size() && text_[pos_] != quote) {
    pos_ += text_[pos_] == '\\' ? 2 : 1;
  }
  if (pos_ >= text_.size()) {
    pos_ = text_.size();
    return Fail(begin, pos_, "unterminated string");
  }
  ++pos_;
  std::string_view token = text_.substr(begin, pos_ - begin);
  std::string_view body = token.substr(1, token.size() - 2);
  if (raw != nullptr) *raw = token;
  if (unescaped != nullptr) {
    std::string error;
    unescaped->clear();
    if (!absl::CUnescape(ToAbsl(body), unescaped, &error)) {
      return Fail(begin, pos_, "bad escape in string: " + error);
    }
  } else if (size_t bad = FindBadEscape(body); bad != std::string_view::npos) {
    return Fail(begin + 1 + bad, begin + 3 + bad, "bad escape in string");
  }
  return true;
}

bool Scanner::BalancedBraces(std::string_view* raw) {
  SkipSpace();
  if (!ok()) return false;
  if (RawAt(0) != '{') return FailHere("expected '{'");
  size_t begin = pos_;
  int64_t depth = 0;
  while (pos_ < text_.size()) {
    char c = text_[pos_];
    if (c == '"') {
      ++pos_;
      while (pos_ < text_.size() && text_[pos_] != '"') {
        pos_ += text_[pos_] == '\\' ? 2 : 1;
      }
      if (pos_ >= text_.size()) break;
    } else if (c == '{') {
      ++depth;
    } else if (c == '}') {
      if (--depth == 0) {
        ++pos_;
        if (raw != nullptr) *raw = text_.substr(begin, pos_ - begin);
        return true;
      }
    }
    ++pos_;
  }
  pos_ = text_.size();
  return Fail(begin, begin + 1, "unbalanced '{'");
}

bool Scanner::ComputationName(std::string_view* name) {
  SkipSpace();
  if (!ok()) return false;
  size_t begin = pos_;
  if (RawAt(0) == '%') {
    ++pos_;
    while (pos_ < text_.size() && IsIdentChar(text_[pos_])) ++pos_;
    if (pos_ == begin + 1)
      return Fail(begin, pos_, "expected a name after '%'");
    if (name != nullptr) *name = text_.substr(begin + 1, pos_ - begin - 1);
    return true;
  }
  std::string_view ident = Ident();
  if (ident.empty()) return FailHere("expected a computation name");
  if (name != nullptr) *name = ident;
  return true;
}

bool Scanner::Fail(size_t begin, size_t end, std::string message) {
  if (!error_.has_value()) {
    if (begin > text_.size()) begin = text_.size();
    if (end < begin) end = begin;
    if (end > text_.size()) end = text_.size();
    error_ =
        AttributeError{static_cast<uint32_t>(begin),
                       static_cast<uint32_t>(end - begin), std::move(message)};
  }
  return false;
}

bool Scanner::FailHere(std::string message) {
  size_t begin = pos_;
  size_t end = begin;
  if (end < text_.size()) {
    end = begin + 1;
    while (end < text_.size() && IsIdentChar(text_[end]) &&
           IsIdentChar(text_[begin])) {
      ++end;
    }
  }
  return Fail(begin, end, std::move(message));
}

bool Scanner::Enter() {
  if (++depth_ > kMaxAttributeDepth) {
    return FailHere("value nested too deeply");
  }
  return true;
}

// --------------------------------------------------------------- grammars --

bool ParseIntList(Scanner& s, std::vector<int64_t>* out) {
  if (!s.Expect('{')) return false;
  if (out != nullptr) out->clear();
  if (s.TryConsume('}')) return true;
  do {
    int64_t v = 0;
    if (!s.Int(&v)) return false;
    if (out != nullptr) out->push_back(v);
  } while (s.TryConsume(','));
  return s.Expect('}');
}

bool ParseIntListList(Scanner& s, std::vector<std::vector<int64_t>>* out) {
  if (!s.Expect('{')) return false;
  if (out != nullptr) out->clear();
  if (s.TryConsume('}')) return true;
  do {
    std::vector<int64_t>* inner = nullptr;
    if (out != nullptr) inner = &out->emplace_back();
    if (!ParseIntList(s, inner)) return false;
  } while (s.TryConsume(','));
  return s.Expect('}');
}

bool ParseBoolList(Scanner& s, std::vector<bool>* out) {
  if (!s.Expect('{')) return false;
  if (out != nullptr) out->clear();
  if (s.TryConsume('}')) return true;
  do {
    bool v = false;
    if (!s.Bool(&v)) return false;
    if (out != nullptr) out->push_back(v);
  } while (s.TryConsume(','));
  return s.Expect('}');
}

bool ParseDxD(Scanner& s, std::vector<int64_t>* out, size_t* count) {
  s.SkipSpace();
  if (!s.ok()) return false;
  if (out != nullptr) out->clear();
  size_t begin = s.pos();
  size_t n = 0;
  do {
    int64_t v = 0;
    if (!s.RawDigits(&v)) return false;
    if (out != nullptr) out->push_back(v);
    ++n;
  } while (s.RawAt(0) == 'x' && IsDigit(s.RawAt(1)) &&
           (s.set_pos(s.pos() + 1), true));
  if (IsIdentChar(s.RawAt(0))) {
    return s.Fail(begin, s.pos() + 1, "expected sizes like 3x3");
  }
  if (count != nullptr) *count = n;
  return true;
}

namespace {

bool SignedRawInt(Scanner& s, int64_t* out) {
  bool negative = s.RawAt(0) == '-';
  if (negative) s.set_pos(s.pos() + 1);
  int64_t v = 0;
  if (!s.RawDigits(&v)) return false;
  if (out != nullptr) *out = negative ? -v : v;
  return true;
}

}  // namespace

bool ParsePadList(Scanner& s, int max_parts, std::vector<PaddingDimension>* out,
                  size_t* count) {
  s.SkipSpace();
  if (!s.ok()) return false;
  if (out != nullptr) out->clear();
  size_t begin = s.pos();
  size_t n = 0;
  while (true) {
    size_t dim_begin = s.pos();
    PaddingDimension dim;
    if (!SignedRawInt(s, &dim.edge_padding_low)) return false;
    if (s.RawAt(0) != '_') {
      return s.Fail(dim_begin, s.pos() + 1, "expected low_high padding");
    }
    s.set_pos(s.pos() + 1);
    if (!SignedRawInt(s, &dim.edge_padding_high)) return false;
    if (s.RawAt(0) == '_') {
      if (max_parts < 3) {
        return s.Fail(dim_begin, s.pos() + 1,
                      "window padding takes low_high only");
      }
      s.set_pos(s.pos() + 1);
      size_t interior_at = s.pos();
      if (s.RawAt(0) == '-') {
        return s.Fail(interior_at, interior_at + 1,
                      "interior padding must be non-negative");
      }
      if (!s.RawDigits(&dim.interior_padding)) return false;
    }
    if (out != nullptr) out->push_back(dim);
    ++n;
    if (s.RawAt(0) != 'x') break;
    s.set_pos(s.pos() + 1);
  }
  if (IsIdentChar(s.RawAt(0))) {
    return s.Fail(begin, s.pos() + 1, "malformed padding");
  }
  if (count != nullptr) *count = n;
  return true;
}

bool ParseStringOrDict(Scanner& s, std::string* out, bool* was_string) {
  if (s.Peek() == '{') {
    std::string_view raw;
    if (!s.BalancedBraces(&raw)) return false;
    if (out != nullptr) out->assign(raw);
    if (was_string != nullptr) *was_string = false;
    return true;
  }
  if (was_string != nullptr) *was_string = true;
  return s.String(nullptr, out);
}

namespace {

// Any sub-attribute value this decoder does not know: a string, a number,
// an identifier, or a braced block.
bool SkipUnknownValue(Scanner& s, std::string_view* raw) {
  char c = s.Peek();
  size_t begin = s.pos();
  bool ok;
  if (c == '{') {
    ok = s.BalancedBraces(nullptr);
  } else if (c == '"' || c == '\'') {
    ok = s.String(nullptr, nullptr);
  } else if (c == '-' || IsDigit(c) || c == '.' || IsIdentStart(c)) {
    while (s.pos() < s.text().size() &&
           (IsIdentChar(s.text()[s.pos()]) || s.text()[s.pos()] == '+')) {
      s.set_pos(s.pos() + 1);
    }
    ok = true;
  } else {
    ok = s.FailHere("expected a value");
  }
  if (ok && raw != nullptr) *raw = s.text().substr(begin, s.pos() - begin);
  return ok;
}

bool ParseProfileTypes(Scanner& s, std::vector<int64_t>* out) {
  if (!s.Expect('{')) return false;
  if (s.TryConsume('}')) return true;
  do {
    int64_t v = 0;
    std::string_view name = s.Ident();
    if (name.empty()) {
      if (!s.Int(&v)) return false;
    } else if (name == "WINDOW") {
      v = 1;
    } else if (name == "FLAG") {
      v = 2;
    } else if (name == "INTEGER") {
      v = 3;
    } else if (name != "INVALID") {
      return s.Fail(s.pos() - name.size(), s.pos(), "unknown profile type");
    }
    if (out != nullptr) out->push_back(v);
  } while (s.TryConsume(','));
  return s.Expect('}');
}

}  // namespace

bool ParseMetadata(Scanner& s, OpMetadata* out) {
  if (!s.Enter()) return false;
  if (!s.Expect('{')) return false;
  if (out != nullptr) *out = OpMetadata{};
  uint32_t seen = 0;
  while (!s.TryConsume('}')) {
    if (!s.ok()) return false;
    s.TryConsume(',');
    if (s.TryConsume('}')) break;
    size_t key_at = (s.SkipSpace(), s.pos());
    std::string_view key = s.AttributeName();
    if (key.empty()) {
      if (s.AtEnd()) return s.FailHere("expected '}'");
      return s.FailHere("expected key=value in metadata");
    }
    struct StringKey {
      std::string_view name;
      std::string OpMetadata::*field;
    };
    static constexpr StringKey kStrings[] = {
        {"op_type", &OpMetadata::op_type},
        {"op_name", &OpMetadata::op_name},
        {"source_file", &OpMetadata::source_file},
        {"deduplicated_name", &OpMetadata::deduplicated_name},
        {"scheduling_name", &OpMetadata::scheduling_name},
    };
    struct IntKey {
      std::string_view name;
      int64_t OpMetadata::*field;
    };
    static constexpr IntKey kInts[] = {
        {"source_line", &OpMetadata::source_line},
        {"source_end_line", &OpMetadata::source_end_line},
        {"source_column", &OpMetadata::source_column},
        {"source_end_column", &OpMetadata::source_end_column},
        {"stack_frame_id", &OpMetadata::stack_frame_id},
    };
    int bit = -1;
    bool ok = false;
    for (size_t i = 0; i < std::size(kStrings) && bit < 0; ++i) {
      if (key != kStrings[i].name) continue;
      bit = static_cast<int>(i);
      ok = s.String(nullptr,
                    out != nullptr ? &(out->*kStrings[i].field) : nullptr);
    }
    for (size_t i = 0; i < std::size(kInts) && bit < 0; ++i) {
      if (key != kInts[i].name) continue;
      bit = static_cast<int>(8 + i);
      int64_t v = 0;
      ok = s.Int(&v);
      if (ok && out != nullptr) out->*kInts[i].field = v;
    }
    if (bit < 0 && key == "profile_type") {
      bit = 16;
      ok = ParseProfileTypes(s, out != nullptr ? &out->profile_type : nullptr);
    }
    if (bit < 0) {
      std::string_view raw;
      ok = SkipUnknownValue(s, &raw);
      if (ok && out != nullptr) out->unknown.emplace_back(key, raw);
      continue;
    }
    if (!ok) return false;
    if (seen & (1u << bit)) {
      return s.Fail(key_at, key_at + key.size(),
                    attr_internal::Cat("duplicate metadata key ", key));
    }
    seen |= 1u << bit;
  }
  s.Leave();
  return s.ok();
}

absl::Status ToStatus(const AttributeError& error) {
  return absl::InvalidArgumentError(
      attr_internal::Cat("offset ", error.offset, ": ", error.message));
}

}  // namespace hlo::attr_internal
