// A small cursor over one attribute value, shared by the attribute, sharding
// and literal decoders. It skips blanks and comments (the printer puts
// `/*index=5*/` hints inside long lists), reads the few token kinds values
// are made of, records the first error with its offset, and bounds nesting.
//
// Every grammar function built on it takes a nullable output pointer: with
// nullptr it only validates and allocates nothing on success, which is how
// ValidateAttributeValue stays cheap on the parser's hot path.
#ifndef HLO_LSP_HLO_ATTR_SCAN_H_
#define HLO_LSP_HLO_ATTR_SCAN_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "base/strings.h"
#include "hlo/attr_values.h"
#include "hlo/lexer.h"

namespace hlo::attr_internal {

inline constexpr int kMaxAttributeDepth = 64;

// String concatenation that takes std::string_view (Debian's absl::StrCat
// only takes absl::string_view). Used on error paths only.
using base::Cat;

inline bool IsIdentStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
// The lexer's: [A-Za-z0-9_.-].
using ::hlo::IsIdentChar;
inline bool IsDigit(char c) { return c >= '0' && c <= '9'; }

class Scanner {
 public:
  explicit Scanner(std::string_view text) : text_(text) {}

  std::string_view text() const { return text_; }
  size_t pos() const { return pos_; }
  void set_pos(size_t pos) { pos_ = pos; }
  bool ok() const { return !error_.has_value(); }
  const std::optional<AttributeError>& error() const { return error_; }
  std::optional<AttributeError> TakeError() { return std::move(error_); }

  // Skips blanks, /* */ and // comments. An unterminated block comment is
  // an error. Inline for the common case, nothing to skip: the grammars
  // call it before every token.
  void SkipSpace() {
    if (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '/') return;
    }
    SkipSpaceSlow();
  }
  bool AtEnd() {
    SkipSpace();
    return pos_ >= text_.size();
  }
  // Next significant character, '\0' at the end.
  char Peek() {
    SkipSpace();
    return pos_ < text_.size() ? text_[pos_] : '\0';
  }
  // Character at pos() + ahead without skipping anything.
  char RawAt(size_t ahead) const {
    return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
  }
  bool TryConsume(char c);
  bool Expect(char c);
  // Consumes the two-character token `tok` (e.g. "<=") when next.
  bool TryConsume2(const char* tok);
  // True when the value ends here (after blanks); otherwise an error.
  bool ExpectEnd();

  // [A-Za-z_][A-Za-z0-9_.-]*; empty (and nothing consumed) when absent.
  std::string_view Ident();
  // Consumes the identifier `word` if it is next as a whole word.
  bool TryWord(std::string_view word);
  // `name=` with no blank before '='; returns the name (empty if absent,
  // nothing consumed).
  std::string_view AttributeName();

  // -?[0-9]+ fitting int64; non-negative values up to uint64 max are taken
  // as their int64 bit pattern, as XLA does.
  bool Int(int64_t* out);
  bool NonNegativeInt(int64_t* out);
  // Digits only, no sign, no blank skipping (DxD and pad pieces).
  bool RawDigits(int64_t* out);
  bool Bool(bool* out);
  // A "..." or '...' token. Sets *raw to the token (quotes included) and,
  // when `unescaped` is given, decodes C escapes into it.
  bool String(std::string_view* raw, std::string* unescaped);
  // From '{' to its matching '}', skipping double-quoted strings; no
  // recursion. *raw gets the braces and contents.
  bool BalancedBraces(std::string_view* raw);
  // A computation reference: %name or a bare identifier.
  bool ComputationName(std::string_view* name);

  // Records the first error; always returns false.
  bool Fail(size_t begin, size_t end, std::string message);
  bool FailHere(std::string message);  // at the next token

  // Nesting guard: Enter() fails past kMaxAttributeDepth.
  bool Enter();
  void Leave() { --depth_; }

 private:
  void SkipSpaceSlow();
  std::string_view text_;
  size_t pos_ = 0;
  int depth_ = 0;
  std::optional<AttributeError> error_;
};

// ------------------------------------------------------ shared grammars --
// All take a nullable `out`.

// {1,2,3} or {}
bool ParseIntList(Scanner& s, std::vector<int64_t>* out);
// {{0,1},{2,3}} or {}
bool ParseIntListList(Scanner& s, std::vector<std::vector<int64_t>>* out);
// {true,false}
bool ParseBoolList(Scanner& s, std::vector<bool>* out);
// 3x3 or 3 (non-negative pieces joined by 'x').
bool ParseDxD(Scanner& s, std::vector<int64_t>* out, size_t* count = nullptr);
// Pad token: -?N_-?N(_N)? joined by 'x'; `max_parts` is 2 (window) or 3.
bool ParsePadList(Scanner& s, int max_parts, std::vector<PaddingDimension>* out,
                  size_t* count = nullptr);
// "string" or a raw {dict}.
bool ParseStringOrDict(Scanner& s, std::string* out, bool* was_string);
// metadata={...} body; `out` may be null.
bool ParseMetadata(Scanner& s, OpMetadata* out);

// "offset N: message" status for a decoder failure.
absl::Status ToStatus(const AttributeError& error);
// Runs a grammar over the whole value and converts the outcome.
template <typename T, typename Grammar>
absl::Status RunGrammar(std::string_view value, T* out, Grammar grammar) {
  Scanner s(value);
  if (grammar(s, out) && s.ExpectEnd()) return absl::OkStatus();
  if (s.ok()) s.FailHere("malformed value");
  return ToStatus(*s.error());
}

}  // namespace hlo::attr_internal

#endif  // HLO_LSP_HLO_ATTR_SCAN_H_
