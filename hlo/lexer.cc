#include "hlo/lexer.h"

#include <bit>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace hlo {
namespace {

bool IsDecimalDigit(char c) { return c >= '0' && c <= '9'; }
bool IsSpace(char c) {
  return c == '\n' || HasCharBits(c, lexer_internal::kBlank);
}
bool IsBlankByte(char c) { return HasCharBits(c, lexer_internal::kBlank); }

bool StartsWith(std::string_view text, Offset pos, std::string_view prefix) {
  return text.size() - pos >= prefix.size() &&
         std::memcmp(text.data() + pos, prefix.data(), prefix.size()) == 0;
}

// Length of a glog prefix such as "I0521 12:04:45.883483    1509
// service.cc:186] " at `pos`, or 0 when there is none.
size_t GlogPrefixLength(std::string_view text, Offset pos) {
  size_t i = pos;
  auto at = [&](size_t k) { return k < text.size() ? text[k] : '\0'; };
  char level = at(i);
  if (level != 'I' && level != 'W' && level != 'E' && level != 'F') return 0;
  ++i;
  for (int k = 0; k < 4; ++k, ++i) {
    if (!IsDecimalDigit(at(i))) return 0;
  }
  if (at(i) != ' ') return 0;
  // hh:mm:ss.micros
  for (; IsDecimalDigit(at(i)) || at(i) == ':' || at(i) == '.' || at(i) == ' ';
       ++i) {
  }
  // thread id, then "file:line] "
  while (i < text.size() && at(i) != ']' && at(i) != '\n' && i - pos < 256) {
    ++i;
  }
  if (at(i) != ']') return 0;
  ++i;
  if (at(i) == ' ') ++i;
  return i - pos;
}

// The end of the run of [A-Za-z0-9_.] at data[p]. Names are most of the
// bytes of a file: 16 bytes at a time where SSE2 is there (x86-64 always).
Offset SkipPlainIdentChars(const char* data, Offset p, Offset size) {
#if defined(__SSE2__)
  const __m128i before_a = _mm_set1_epi8('a' - 1);
  const __m128i after_z = _mm_set1_epi8('z' + 1);
  const __m128i before_0 = _mm_set1_epi8('0' - 1);
  const __m128i after_9 = _mm_set1_epi8('9' + 1);
  const __m128i underscore = _mm_set1_epi8('_');
  const __m128i dot = _mm_set1_epi8('.');
  const __m128i case_bit = _mm_set1_epi8(0x20);
  while (p + 16 <= size) {
    const __m128i v =
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + p));
    // Signed compares: bytes >= 0x80 are negative and match nothing.
    const __m128i lower = _mm_or_si128(v, case_bit);
    const __m128i alpha = _mm_and_si128(_mm_cmpgt_epi8(lower, before_a),
                                        _mm_cmplt_epi8(lower, after_z));
    const __m128i digit =
        _mm_and_si128(_mm_cmpgt_epi8(v, before_0), _mm_cmplt_epi8(v, after_9));
    const __m128i punct =
        _mm_or_si128(_mm_cmpeq_epi8(v, underscore), _mm_cmpeq_epi8(v, dot));
    const unsigned stop = ~static_cast<unsigned>(_mm_movemask_epi8(_mm_or_si128(
                              _mm_or_si128(alpha, digit), punct))) &
                          0xFFFFu;
    if (stop != 0) return p + static_cast<Offset>(std::countr_zero(stop));
    p += 16;
  }
#endif
  while (p < size && HasCharBits(data[p], lexer_internal::kIdentCharNoDash)) {
    ++p;
  }
  return p;
}

// The first byte at or after data[p] that ScanBalanced must look at: a
// bracket, '"' or '/'. Long values (shardings, replica groups, tuple
// shapes) are mostly other bytes: 16 at a time where SSE2 is there.
Offset SkipPlainBalancedBytes(const char* data, Offset p, Offset size) {
#if defined(__SSE2__)
  const __m128i parens = _mm_set1_epi8(')');  // '(' | 1 and ')'
  const __m128i open = _mm_set1_epi8('{');    // '[' | 0x20 and '{'
  const __m128i close = _mm_set1_epi8('}');   // ']' | 0x20 and '}'
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i slash = _mm_set1_epi8('/');
  const __m128i one = _mm_set1_epi8(1);
  const __m128i case_bit = _mm_set1_epi8(0x20);
  while (p + 16 <= size) {
    const __m128i v =
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + p));
    const __m128i folded = _mm_or_si128(v, case_bit);
    const __m128i hit = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(_mm_or_si128(v, one), parens),
                     _mm_cmpeq_epi8(folded, open)),
        _mm_or_si128(
            _mm_cmpeq_epi8(folded, close),
            _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, slash))));
    const unsigned mask = static_cast<unsigned>(_mm_movemask_epi8(hit));
    if (mask != 0) return p + static_cast<Offset>(std::countr_zero(mask));
    p += 16;
  }
#endif
  for (; p < size; ++p) {
    const char c = data[p];
    if (c == '{' || c == '}' || c == '(' || c == ')' || c == '[' || c == ']' ||
        c == '"' || c == '/') {
      break;
    }
  }
  return p;
}

}  // namespace

Lexer::Lexer(std::string_view text) : text_(text) {
  // Log mode when the first non-blank line carries a glog prefix: HLO pasted
  // from logs (run_hlo_module strips these too).
  Offset p = 0;
  while (p < text_.size() && IsSpace(text_[p])) ++p;
  // Back up to the start of that line.
  while (p > 0 && text_[p - 1] != '\n') --p;
  log_mode_ = GlogPrefixLength(text_, p) > 0;
}

void Lexer::Seek(Offset pos) {
  peek_valid_ = false;
  pending_separator_ = false;
  pos_ = pos > text_.size() ? static_cast<Offset>(text_.size()) : pos;
  at_line_start_ = pos_ == 0 || text_[pos_ - 1] == '\n';
}

void Lexer::SkipToNextLine() {
  const void* nl = std::memchr(text_.data() + pos_, '\n', text_.size() - pos_);
  pos_ = nl == nullptr ? static_cast<Offset>(text_.size())
                       : static_cast<Offset>(static_cast<const char*>(nl) -
                                             text_.data() + 1);
  at_line_start_ = true;
}

void Lexer::MaybeSkipLinePrefix() {
  at_line_start_ = false;
  // Leading blanks before a log prefix or framing line.
  Offset p = pos_;
  while (p < text_.size() && (text_[p] == ' ' || text_[p] == '\t')) ++p;
  if (log_mode_) {
    size_t n = GlogPrefixLength(text_, p);
    if (n > 0) pos_ = p + static_cast<Offset>(n);
    p = pos_;
    while (p < text_.size() && (text_[p] == ' ' || text_[p] == '\t')) ++p;
  }
  // Most lines start with an instruction: past the blanks, which
  // SkipTrivia would skip anyway.
  if (p < text_.size() && text_[p] != '#' && text_[p] != '*') {
    pos_ = p;
    return;
  }
  // Lit-test `# RUN:` lines and other '#' comment lines.
  if (p < text_.size() && text_[p] == '#') {
    pos_ = p;
    SkipToNextLine();
    return;
  }
  if (StartsWith(text_, p, "*** Begin") || StartsWith(text_, p, "*** End")) {
    pos_ = p;
    SkipToNextLine();
    pending_separator_ = true;
    at_line_start_ = true;
  }
}

Offset Lexer::SkipTrivia() {
  while (pos_ < text_.size()) {
    if (at_line_start_) {
      MaybeSkipLinePrefix();
      if (pending_separator_) return pos_;
      continue;
    }
    char c = text_[pos_];
    if (IsBlankByte(c)) {
      const Offset size = static_cast<Offset>(text_.size());
      do {
        ++pos_;
      } while (pos_ < size && IsBlankByte(text_[pos_]));
    } else if (c == '\n') {
      ++pos_;
      at_line_start_ = true;
    } else if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '/') {
      // A line that is exactly `// -----` separates modules (MLIR-style
      // split-input-file tests); longer dash rules are plain comments.
      if (StartsWith(text_, pos_, "// -----")) {
        Offset line_start = pos_;
        while (line_start > 0 && (text_[line_start - 1] == ' ' ||
                                  text_[line_start - 1] == '\t')) {
          --line_start;
        }
        Offset rest = pos_ + 8;
        while (rest < text_.size() &&
               (text_[rest] == ' ' || text_[rest] == '\t' ||
                text_[rest] == '\r')) {
          ++rest;
        }
        bool alone = rest >= text_.size() || text_[rest] == '\n';
        if (alone &&
            (line_start == 0 || text_[line_start - 1] == '\n' || log_mode_)) {
          SkipToNextLine();
          pending_separator_ = true;
          return pos_;
        }
      }
      SkipToNextLine();
    } else if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '*') {
      const char* end = static_cast<const char*>(
          memmem(text_.data() + pos_ + 2, text_.size() - pos_ - 2, "*/", 2));
      if (end == nullptr) return pos_;  // unterminated: Next() reports it
      Offset after = static_cast<Offset>(end - text_.data()) + 2;
      // A block comment can hide newlines; keep line-start tracking right.
      for (Offset i = pos_; i < after; ++i) {
        if (text_[i] == '\n') {
          pos_ = after;
          at_line_start_ = false;
          break;
        }
      }
      pos_ = after;
    } else {
      break;
    }
  }
  return pos_;
}

// The end of a line break and the indent of the next line when a token
// follows them directly (most instruction lines); kNone when SkipTrivia
// has more to do: a log prefix, a comment, a `#` or `***` line, a blank
// line.
Offset Lexer::LineIndentEnd() const {
  if (at_line_start_ || log_mode_ || text_[pos_] != '\n') return kNone;
  const Offset size = static_cast<Offset>(text_.size());
  Offset p = pos_ + 1;
  while (p < size && (text_[p] == ' ' || text_[p] == '\t')) ++p;
  if (p >= size) return kNone;
  const char c = text_[p];
  if (HasCharBits(c, lexer_internal::kTriviaStart) || c == '#' || c == '*') {
    return kNone;
  }
  return p;
}

Token Lexer::Lex() {
  // Most tokens follow another one directly or after one blank: only
  // line starts, runs of blanks and comments need SkipTrivia.
  const Offset size = static_cast<Offset>(text_.size());
  if (pos_ < size && (at_line_start_ ||
                      HasCharBits(text_[pos_], lexer_internal::kTriviaStart))) {
    if (!at_line_start_ && text_[pos_] == ' ' && pos_ + 1 < size &&
        !HasCharBits(text_[pos_ + 1], lexer_internal::kTriviaStart)) {
      ++pos_;
    } else if (Offset p = LineIndentEnd(); p != kNone) {
      pos_ = p;  // what SkipTrivia and MaybeSkipLinePrefix would do
    } else {
      SkipTrivia();
    }
  }
  Offset begin = pos_;
  if (pending_separator_) {
    pending_separator_ = false;
    return Token{TokenKind::kSeparator, Span{begin, begin}};
  }
  if (pos_ >= text_.size()) return Make(TokenKind::kEof, begin);
  char c = text_[pos_];
  if (IsIdentStart(c)) {
    ++pos_;
    ScanIdentTail();
    if (pos_ < text_.size() && text_[pos_] == '=' &&
        !(pos_ + 1 < text_.size() && text_[pos_ + 1] == '=')) {
      Token t = Make(TokenKind::kAttrName, begin);
      ++pos_;  // consume '='
      return t;
    }
    return Make(TokenKind::kIdent, begin);
  }
  if (IsDecimalDigit(c)) return LexNumber(begin);
  switch (c) {
    case '%': {
      ++pos_;
      ScanIdentTail();
      if (pos_ == begin + 1) return Make(TokenKind::kError, begin);
      return Make(TokenKind::kName, begin);
    }
    case '"':
    case '\'':
      return LexString(begin, c);
    case '=':
      ++pos_;
      return Make(TokenKind::kEqual, begin);
    case ',':
      ++pos_;
      return Make(TokenKind::kComma, begin);
    case ':':
      ++pos_;
      return Make(TokenKind::kColon, begin);
    case '(':
      ++pos_;
      return Make(TokenKind::kLParen, begin);
    case ')':
      ++pos_;
      return Make(TokenKind::kRParen, begin);
    case '{':
      ++pos_;
      return Make(TokenKind::kLBrace, begin);
    case '}':
      ++pos_;
      return Make(TokenKind::kRBrace, begin);
    case '[':
      ++pos_;
      return Make(TokenKind::kLSquare, begin);
    case ']':
      ++pos_;
      return Make(TokenKind::kRSquare, begin);
    case '*':
      ++pos_;
      return Make(TokenKind::kStar, begin);
    case '?':
      ++pos_;
      return Make(TokenKind::kQuestion, begin);
    case '-':
      if (pos_ + 1 < text_.size() && text_[pos_ + 1] == '>') {
        pos_ += 2;
        return Make(TokenKind::kArrow, begin);
      }
      if (pos_ + 1 < text_.size() &&
          (IsDecimalDigit(text_[pos_ + 1]) || text_[pos_ + 1] == '.')) {
        return LexNumber(begin);
      }
      break;
    case '<':
      if (pos_ + 1 < text_.size() && text_[pos_ + 1] == '=') {
        pos_ += 2;
        return Make(TokenKind::kLeq, begin);
      }
      break;
    case '.':
      if (StartsWith(text_, pos_, "...")) {
        pos_ += 3;
        return Make(TokenKind::kDots, begin);
      }
      if (pos_ + 1 < text_.size() && IsDecimalDigit(text_[pos_ + 1])) {
        return LexNumber(begin);
      }
      break;
    case '/':
      // Only an unterminated block comment reaches here.
      pos_ = static_cast<Offset>(text_.size());
      return Make(TokenKind::kError, begin);
    default:
      break;
  }
  // Unknown byte (NUL, stray punctuation, invalid UTF-8 lead byte...): one
  // error token covering the whole UTF-8 sequence.
  unsigned char u = static_cast<unsigned char>(c);
  Offset len = u < 0x80           ? 1
               : (u >> 5) == 0x6  ? 2
               : (u >> 4) == 0xE  ? 3
               : (u >> 3) == 0x1E ? 4
                                  : 1;
  pos_ = begin + len > text_.size() ? static_cast<Offset>(text_.size())
                                    : begin + len;
  return Make(TokenKind::kError, begin);
}

void Lexer::ScanIdentTail() { pos_ = hlo::ScanIdentTail(text_, pos_); }

Offset ScanIdentTail(std::string_view text, Offset pos) {
  const char* data = text.data();
  const Offset size = static_cast<Offset>(text.size());
  Offset p = pos;
  for (;;) {
    p = SkipPlainIdentChars(data, p, size);
    // "a->b": the '-' of an arrow is not part of the identifier.
    if (p < size && data[p] == '-' && !(p + 1 < size && data[p + 1] == '>')) {
      ++p;
      continue;
    }
    break;
  }
  return p;
}

Token Lexer::LexNumber(Offset begin) {
  bool is_float = false;
  if (text_[pos_] == '-') ++pos_;
  while (pos_ < text_.size() && IsDecimalDigit(text_[pos_])) ++pos_;
  if (pos_ < text_.size() && text_[pos_] == '.' &&
      !StartsWith(text_, pos_, "...")) {
    is_float = true;
    ++pos_;
    while (pos_ < text_.size() && IsDecimalDigit(text_[pos_])) ++pos_;
  }
  if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
    Offset p = pos_ + 1;
    if (p < text_.size() && (text_[p] == '+' || text_[p] == '-')) ++p;
    if (p < text_.size() && IsDecimalDigit(text_[p])) {
      is_float = true;
      pos_ = p;
      while (pos_ < text_.size() && IsDecimalDigit(text_[pos_])) ++pos_;
    }
  }
  return Make(is_float ? TokenKind::kFloat : TokenKind::kInt, begin);
}

Token Lexer::LexString(Offset begin, char quote) {
  (void)quote;
  Offset end = ScanString(text_, begin);
  if (end == kNone) {
    pos_ = static_cast<Offset>(text_.size());
    return Make(TokenKind::kError, begin);
  }
  pos_ = end;
  return Make(TokenKind::kString, begin);
}

Offset ScanString(std::string_view text, Offset begin) {
  const char quote = text[begin];
  const char* data = text.data();
  const Offset size = static_cast<Offset>(text.size());
  Offset i = begin + 1;
  // Find the next quote once and only look again after passing it, so a long
  // string full of escapes stays linear.
  const char* q = nullptr;
  while (i < size) {
    if (q == nullptr || q < data + i) {
      q = static_cast<const char*>(std::memchr(data + i, quote, size - i));
      if (q == nullptr) return kNone;
    }
    const char* b =
        static_cast<const char*>(std::memchr(data + i, '\\', q - (data + i)));
    if (b == nullptr) return static_cast<Offset>(q - data) + 1;
    i = static_cast<Offset>(b - data) + 2;
  }
  return kNone;
}

Offset ScanBalanced(std::string_view text, Offset begin) {
  const Offset size = static_cast<Offset>(text.size());
  uint32_t depth = 0;
  Offset i = begin;
  while (i < size) {
    char c = text[i];
    switch (c) {
      case '{':
      case '(':
      case '[':
        ++depth;
        ++i;
        break;
      case '}':
      case ')':
      case ']':
        ++i;
        if (--depth == 0) return i;
        break;
      case '"': {
        Offset end = ScanString(text, i);
        if (end == kNone) return kNone;
        i = end;
        break;
      }
      case '/':
        if (i + 1 < size && text[i + 1] == '*') {
          const char* end = static_cast<const char*>(
              memmem(text.data() + i + 2, size - i - 2, "*/", 2));
          if (end == nullptr) return kNone;
          i = static_cast<Offset>(end - text.data()) + 2;
        } else {
          ++i;
        }
        break;
      default:
        i = SkipPlainBalancedBytes(text.data(), i + 1, size);
        break;
    }
  }
  return kNone;
}

}  // namespace hlo
