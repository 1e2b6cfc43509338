// The HLO lexer: produces tokens on demand as spans into the buffer (no
// allocation). Attribute values and constant literals are not tokenised
// here: the parser scans them raw (ScanBalanced) and hands the text to the
// typed decoders, which keeps the hot path small.
#ifndef HLO_LSP_HLO_LEXER_H_
#define HLO_LSP_HLO_LEXER_H_

#include <cstdint>
#include <string_view>

#include "hlo/span.h"

namespace hlo {

enum class TokenKind : uint8_t {
  kEof,
  kError,     // a byte that starts no token (NUL, stray '<', lone '/', ...)
  kName,      // %name; the span includes '%'
  kIdent,     // bare identifier: name, keyword, opcode or type
  kAttrName,  // identifier directly followed by '='; the span excludes '='
  kInt,
  kFloat,
  kString,  // "..." or '...', quotes included
  kEqual,
  kComma,
  kColon,
  kLParen,
  kRParen,
  kLBrace,
  kRBrace,
  kLSquare,
  kRSquare,
  kArrow,  // ->
  kLeq,    // <=
  kStar,
  kQuestion,
  kDots,       // ...
  kSeparator,  // a `// -----` line or `*** Begin/End ***` log framing
};

struct Token {
  TokenKind kind = TokenKind::kEof;
  Span span;
};

class Lexer {
 public:
  explicit Lexer(std::string_view text);

  Token Next() {
    if (peek_valid_ && peek_from_ == pos_) {
      peek_valid_ = false;
      pos_ = peek_state_.pos;
      at_line_start_ = peek_state_.at_line_start;
      pending_separator_ = peek_state_.pending_separator;
      return peeked_;
    }
    return Lex();
  }
  // The next token without consuming it; cached, so Peek then Next lexes
  // once.
  Token Peek() {
    if (peek_valid_ && peek_from_ == pos_) return peeked_;
    State saved{pos_, at_line_start_, pending_separator_};
    peek_from_ = pos_;
    peeked_ = Lex();
    peek_state_ = State{pos_, at_line_start_, pending_separator_};
    peek_valid_ = true;
    pos_ = saved.pos;
    at_line_start_ = saved.at_line_start;
    pending_separator_ = saved.pending_separator;
    return peeked_;
  }

  // Position control for raw scanning and backtracking.
  Offset pos() const { return pos_; }
  void Seek(Offset pos);
  std::string_view text() const { return text_; }
  std::string_view Text(Span span) const {
    return text_.substr(span.begin, span.end - span.begin);
  }
  // Skips whitespace, comments and log prefixes; returns the new position.
  Offset SkipTrivia();
  // Moves to the start of the next line.
  void SkipToNextLine();
  // True when only trivia separates the last token from a newline before
  // `pos` (used to detect instruction boundaries in recovery).
  bool log_mode() const { return log_mode_; }

 private:
  struct State {
    Offset pos = 0;
    bool at_line_start = true;
    bool pending_separator = false;
  };
  Token Lex();
  void MaybeSkipLinePrefix();
  Offset LineIndentEnd() const;
  Token Make(TokenKind kind, Offset begin) {
    return Token{kind, Span{begin, pos_}};
  }
  void ScanIdentTail();
  Token LexNumber(Offset begin);
  Token LexString(Offset begin, char quote);

  std::string_view text_;
  Offset pos_ = 0;
  bool at_line_start_ = true;
  bool log_mode_ = false;  // strip glog prefixes at line starts
  bool pending_separator_ = false;
  bool peek_valid_ = false;
  Offset peek_from_ = 0;
  Token peeked_;
  State peek_state_;
};

// Character classes by table: the lexer's inner loops run once per byte.
namespace lexer_internal {
inline constexpr uint8_t kIdentStart = 1;
inline constexpr uint8_t kIdentChar = 2;        // [A-Za-z0-9_.-]
inline constexpr uint8_t kIdentCharNoDash = 4;  // [A-Za-z0-9_.]
inline constexpr uint8_t kBlank = 8;            // whitespace but '\n'
inline constexpr uint8_t kTriviaStart = 16;     // whitespace or '/'
struct CharTable {
  uint8_t bits[256] = {};
  constexpr CharTable() {
    for (int c = 0; c < 256; ++c) {
      bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
      bool digit = c >= '0' && c <= '9';
      bool blank = c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
      if (alpha) bits[c] |= kIdentStart;
      if (alpha || digit || c == '.' || c == '-') bits[c] |= kIdentChar;
      if (alpha || digit || c == '.') bits[c] |= kIdentCharNoDash;
      if (blank) bits[c] |= kBlank;
      if (blank || c == '\n' || c == '/') bits[c] |= kTriviaStart;
    }
  }
};
inline constexpr CharTable kCharTable;
}  // namespace lexer_internal

inline bool IsIdentChar(char c) {
  return lexer_internal::kCharTable.bits[static_cast<uint8_t>(c)] &
         lexer_internal::kIdentChar;
}
inline bool HasCharBits(char c, uint8_t bits) {
  return lexer_internal::kCharTable.bits[static_cast<uint8_t>(c)] & bits;
}
inline bool IsIdentStart(char c) {
  return lexer_internal::kCharTable.bits[static_cast<uint8_t>(c)] &
         lexer_internal::kIdentStart;
}

// The end of the identifier tail starting at text[pos], by the lexer's rule
// ([A-Za-z0-9_.-], but not the '-' of "->"); the parser's raw readers use it
// to stay token for token what the lexer would produce.
Offset ScanIdentTail(std::string_view text, Offset pos);

// Scans a balanced bracketed value starting at text[begin] (one of '{', '(',
// '['), skipping strings and comments. Returns the offset after the matching
// closer, or kNone when the input ends first. `max_depth_seen` (optional)
// receives the deepest nesting met. Iterative: 200,000 nested brackets are
// fine.
Offset ScanBalanced(std::string_view text, Offset begin);

// Scans a quoted string starting at text[begin]; returns the offset after the
// closing quote or kNone when unterminated (a newline does not end it).
Offset ScanString(std::string_view text, Offset begin);

}  // namespace hlo

#endif  // HLO_LSP_HLO_LEXER_H_
