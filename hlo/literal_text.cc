#include "hlo/literal_text.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "hlo/attr_scan.h"
#include "hlo/syntax.h"

namespace hlo {
namespace {

using attr_internal::IsDigit;
using attr_internal::IsIdentChar;
using attr_internal::kMaxAttributeDepth;
using attr_internal::Scanner;

enum class Category { kPred, kSigned, kUnsigned, kFloat, kComplex, kOther };

Category CategoryOf(PrimitiveType type) {
  if (type == PrimitiveType::kPred) return Category::kPred;
  if (IsComplex(type)) return Category::kComplex;
  if (IsFloatingPoint(type)) return Category::kFloat;
  if (IsSignedInteger(type)) return Category::kSigned;
  if (IsUnsignedInteger(type)) return Category::kUnsigned;
  return Category::kOther;
}

// Explicit mantissa bits: where a nan(0xP) payload lives.
int MantissaBits(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::kF64:
    case PrimitiveType::kC128:
      return 52;
    case PrimitiveType::kF32:
    case PrimitiveType::kC64:
      return 23;
    case PrimitiveType::kF16:
      return 10;
    case PrimitiveType::kBF16:
      return 7;
    case PrimitiveType::kF8E5M2:
    case PrimitiveType::kF8E5M2FNUZ:
      return 2;
    case PrimitiveType::kF8E4M3FN:
    case PrimitiveType::kF8E4M3:
    case PrimitiveType::kF8E4M3FNUZ:
    case PrimitiveType::kF8E4M3B11FNUZ:
      return 3;
    case PrimitiveType::kF8E3M4:
      return 4;
    case PrimitiveType::kF4E2M1FN:
      return 1;
    default:
      return 0;
  }
}

struct Number {
  enum Kind { kInt, kFloat, kInf, kNan } kind = kInt;
  bool negative = false;
  uint64_t magnitude = 0;  // kInt
  double value = 0;        // kFloat
  uint64_t nan_payload = 0;
  size_t begin = 0;
};

// XLA's words for an integer outside its type: "value 300 is out of range
// for literal's primitive type U8 namely [0, 255]."
bool FailRange(attr_internal::Scanner& s, const Number& n, PrimitiveType type,
               const std::string& min, const std::string& max) {
  std::string name(PrimitiveTypeName(type));
  for (char& c : name) c = static_cast<char>(std::toupper(c));
  return s.Fail(
      n.begin, s.pos(),
      attr_internal::Cat("value ", s.text().substr(n.begin, s.pos() - n.begin),
                         " is out of range for literal's primitive type ", name,
                         " namely [", min, ", ", max, "]."));
}

bool StartsWordAt(std::string_view text, size_t at, std::string_view word) {
  return text.substr(at, word.size()) == word &&
         (at + word.size() >= text.size() ||
          !IsIdentChar(text[at + word.size()]) ||
          text[at + word.size()] == '(');
}

// Int, decimal, inf, -inf, nan, -nan, nan(0x7).
bool LexNumber(Scanner& s, Number* n) {
  s.SkipSpace();
  if (!s.ok()) return false;
  std::string_view text = s.text();
  size_t begin = s.pos();
  size_t i = begin;
  *n = Number{};
  n->begin = begin;
  if (i < text.size() && text[i] == '-') {
    n->negative = true;
    ++i;
  }
  if (StartsWordAt(text, i, "inf") && text.substr(i + 3, 1) != "(") {
    n->kind = Number::kInf;
    i += 3;
  } else if (StartsWordAt(text, i, "nan")) {
    n->kind = Number::kNan;
    i += 3;
    if (i < text.size() && text[i] == '(') {
      size_t open = i;
      if (text.substr(i, 3) != "(0x") {
        return s.Fail(open, open + 1, "expected nan(0x...) payload");
      }
      i += 3;
      size_t digits = i;
      uint64_t payload = 0;
      while (i < text.size() &&
             std::isxdigit(static_cast<unsigned char>(text[i]))) {
        if (payload >> 60) return s.Fail(open, i, "NaN payload out of range");
        char c = text[i++];
        int d = IsDigit(c) ? c - '0' : (c | 0x20) - 'a' + 10;
        payload = payload * 16 + d;
      }
      if (i == digits || i >= text.size() || text[i] != ')') {
        return s.Fail(open, i, "malformed nan(0x...) payload");
      }
      ++i;
      n->nan_payload = payload;
      if (payload == 0) return s.Fail(begin, i, "NaN payload must be non-zero");
    }
  } else {
    size_t j = i;
    while (j < text.size() && IsDigit(text[j])) ++j;
    size_t int_digits = j - i;
    bool is_float = false;
    size_t frac_digits = 0;
    if (j < text.size() && text[j] == '.') {
      is_float = true;
      size_t f = ++j;
      while (j < text.size() && IsDigit(text[j])) ++j;
      frac_digits = j - f;
    }
    if (int_digits == 0 && frac_digits == 0) {
      s.set_pos(begin);
      return s.FailHere("expected a number");
    }
    if (j < text.size() && (text[j] == 'e' || text[j] == 'E')) {
      size_t k = j + 1;
      if (k < text.size() && (text[k] == '+' || text[k] == '-')) ++k;
      if (k >= text.size() || !IsDigit(text[k])) {
        return s.Fail(begin, k, "malformed exponent");
      }
      while (k < text.size() && IsDigit(text[k])) ++k;
      is_float = true;
      j = k;
    }
    if (is_float) {
      n->kind = Number::kFloat;
      const char* first = text.data() + begin;
      const char* last = text.data() + j;
      auto [ptr, ec] = std::from_chars(first, last, n->value);
      if (ec == std::errc::result_out_of_range) {
        n->value = std::strtod(std::string(first, last).c_str(), nullptr);
        if (std::isinf(n->value))
          return s.Fail(begin, j, "number out of range");
      } else if (ec != std::errc() || ptr != last) {
        return s.Fail(begin, j, "malformed number");
      }
    } else {
      n->kind = Number::kInt;
      uint64_t m = 0;
      for (size_t k = i; k < j; ++k) {
        uint64_t d = static_cast<uint64_t>(text[k] - '0');
        if (m > (std::numeric_limits<uint64_t>::max() - d) / 10) {
          return s.Fail(begin, j, "integer out of range");
        }
        m = m * 10 + d;
      }
      n->magnitude = m;
    }
    i = j;
  }
  if (i < text.size() && IsIdentChar(text[i])) {
    return s.Fail(begin, i + 1, "malformed number");
  }
  s.set_pos(i);
  return true;
}

bool FailType(Scanner& s, const Number& n, std::string_view want,
              PrimitiveType type) {
  return s.Fail(
      n.begin, s.pos(),
      attr_internal::Cat("expected ", want, " for ", PrimitiveTypeName(type)));
}

// XLA rounds a parsed number to the element type and rejects it when that
// is not finite: |v| >= max finite + half an ulp (the largest finite value
// has an odd mantissa, so the midpoint rounds away). {max, threshold} for
// the types we know; nullopt for the rest (not checked).
std::optional<std::pair<double, double>> FiniteLimit(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::kF16:
      return std::pair{65504.0, 65520.0};
    case PrimitiveType::kBF16:
      return std::pair{std::ldexp(255.0, 120), std::ldexp(511.0, 119)};
    case PrimitiveType::kF32:
    case PrimitiveType::kC64:  // each part is an f32
      return std::pair{static_cast<double>(std::numeric_limits<float>::max()),
                       std::ldexp((1 << 25) - 1.0, 103)};
    case PrimitiveType::kF8E5M2:
      return std::pair{57344.0, 61440.0};
    case PrimitiveType::kF8E4M3FN:
      return std::pair{448.0, 464.0};
    default:
      return std::nullopt;
  }
}

bool CheckFiniteRange(Scanner& s, const Number& n, PrimitiveType type,
                      double v) {
  std::optional<std::pair<double, double>> limit = FiniteLimit(type);
  if (!limit || std::fabs(v) < limit->second) return true;
  std::string name(PrimitiveTypeName(type));
  for (char& c : name) c = static_cast<char>(std::toupper(c));
  char max[32];
  std::snprintf(max, sizeof(max), "%g", limit->first);
  return s.Fail(
      n.begin, s.pos(),
      attr_internal::Cat("value ", s.text().substr(n.begin, s.pos() - n.begin),
                         " is out of range for literal's primitive type ", name,
                         " namely [-", max, ", ", max, "]."));
}

// The fn/fnuz small floats have one NaN encoding (or none): XLA rejects
// any payload written for them.
bool HasNanPayloads(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::kF8E4M3FN:
    case PrimitiveType::kF8E4M3FNUZ:
    case PrimitiveType::kF8E4M3B11FNUZ:
    case PrimitiveType::kF8E5M2FNUZ:
    case PrimitiveType::kF4E2M1FN:
    case PrimitiveType::kF8E8M0FNU:
      return false;
    default:
      return true;
  }
}

bool ParseFloatElement(Scanner& s, PrimitiveType type, double* out) {
  Number n;
  if (!LexNumber(s, &n)) return false;
  switch (n.kind) {
    case Number::kInt:
      *out = static_cast<double>(n.magnitude);
      if (n.negative) *out = -*out;
      return CheckFiniteRange(s, n, type, *out);
    case Number::kFloat:
      *out = n.value;
      return CheckFiniteRange(s, n, type, *out);
    case Number::kInf:
      *out = n.negative ? -std::numeric_limits<double>::infinity()
                        : std::numeric_limits<double>::infinity();
      return true;
    case Number::kNan: {
      uint64_t bits = 0x7FF8000000000000ull;
      if (n.nan_payload != 0 && !HasNanPayloads(type)) {
        char hex[24];
        std::snprintf(hex, sizeof(hex), "%llx",
                      static_cast<unsigned long long>(n.nan_payload));
        return s.Fail(n.begin, s.pos(),
                      attr_internal::Cat("tries to set NaN payload 0x", hex,
                                         ", but ", PrimitiveTypeName(type),
                                         " does not support payloads"));
      }
      if (n.nan_payload != 0) {
        int mbits = MantissaBits(type);
        if (mbits == 0 || n.nan_payload >= (uint64_t{1} << mbits)) {
          return s.Fail(n.begin, s.pos(),
                        attr_internal::Cat("NaN payload does not fit ",
                                           PrimitiveTypeName(type)));
        }
        bits = 0x7FF0000000000000ull | (n.nan_payload << (52 - mbits));
      }
      if (n.negative) bits |= 0x8000000000000000ull;
      std::memcpy(out, &bits, sizeof(bits));
      return true;
    }
  }
  return false;
}

bool ParseElement(Scanner& s, PrimitiveType type, LiteralValue* out) {
  switch (CategoryOf(type)) {
    case Category::kPred: {
      size_t at = (s.SkipSpace(), s.pos());
      if (s.TryWord("true") || s.TryWord("false")) {
        out->preds.push_back(s.text()[at] == 't');
        return true;
      }
      Number n;
      if (!LexNumber(s, &n)) return false;
      if (n.kind != Number::kInt || n.magnitude > 1 ||
          (n.negative && n.magnitude != 0)) {
        return FailType(s, n, "true, false, 0 or 1", type);
      }
      out->preds.push_back(static_cast<uint8_t>(n.magnitude));
      return true;
    }
    case Category::kSigned: {
      Number n;
      if (!LexNumber(s, &n)) return false;
      if (n.kind != Number::kInt) return FailType(s, n, "an integer", type);
      int bits = PrimitiveTypeBitWidth(type);
      uint64_t limit = uint64_t{1} << (bits - 1);  // |min|; max is limit-1
      if (n.negative ? n.magnitude > limit : n.magnitude >= limit) {
        return FailRange(s, n, type, "-" + std::to_string(limit),
                         std::to_string(limit - 1));
      }
      out->ints.push_back(n.negative ? static_cast<int64_t>(0 - n.magnitude)
                                     : static_cast<int64_t>(n.magnitude));
      return true;
    }
    case Category::kUnsigned: {
      Number n;
      if (!LexNumber(s, &n)) return false;
      if (n.kind != Number::kInt) return FailType(s, n, "an integer", type);
      int bits = PrimitiveTypeBitWidth(type);
      uint64_t max = bits >= 64 ? std::numeric_limits<uint64_t>::max()
                                : (uint64_t{1} << bits) - 1;
      // XLA reads the number as an int64 and casts it to uint64 before the
      // range check, so a negative value is its two's complement: u64[]
      // constant(-1) is u64 max there, and valid; u32[] constant(-1) is not.
      const bool negative = n.negative && n.magnitude != 0;
      if (negative ? bits < 64 || n.magnitude > (uint64_t{1} << 63)
                   : n.magnitude > max) {
        return FailRange(s, n, type, "0", std::to_string(max));
      }
      out->uints.push_back(negative ? 0 - n.magnitude : n.magnitude);
      return true;
    }
    case Category::kFloat: {
      double v = 0;
      if (!ParseFloatElement(s, type, &v)) return false;
      out->floats.push_back(v);
      return true;
    }
    case Category::kComplex: {
      double re = 0, im = 0;
      if (s.TryConsume('(')) {
        if (!ParseFloatElement(s, type, &re) || !s.Expect(',') ||
            !ParseFloatElement(s, type, &im) || !s.Expect(')')) {
          return false;
        }
      } else if (!ParseFloatElement(s, type, &re)) {
        return false;
      }
      out->complexes.emplace_back(re, im);
      return true;
    }
    case Category::kOther:
      return s.FailHere(attr_internal::Cat("no literal values for type ",
                                           PrimitiveTypeName(type)));
  }
  return false;
}

bool AtDots(Scanner& s) {
  return s.Peek() == '.' && s.text().substr(s.pos(), 3) == "...";
}

// Nested braces, one level per dimension, checked per dimension. Iterative:
// the nesting is bounded by the rank, which is bounded below.
bool ParseArray(Scanner& s, const LiteralShape& shape, LiteralValue* out) {
  const size_t rank = shape.dims.size();
  size_t open = (s.SkipSpace(), s.pos());
  if (!s.Expect('{')) return false;
  if (AtDots(s)) {
    s.set_pos(s.pos() + 3);
    out->elided = true;
    return s.Expect('}');
  }
  std::vector<int64_t> count(rank, 0);
  std::vector<size_t> opened_at(rank, open);
  size_t level = 0;
  while (true) {
    if (!s.ok()) return false;
    char c = s.Peek();
    if (c == '}') {
      if (count[level] != shape.dims[level]) {
        return s.Fail(opened_at[level], s.pos() + 1,
                      attr_internal::Cat("dimension ", level, " expects ",
                                         shape.dims[level], " elements, got ",
                                         count[level]));
      }
      s.set_pos(s.pos() + 1);
      if (level == 0) return true;
      --level;
      ++count[level];
    } else if (c == ',') {
      s.set_pos(s.pos() + 1);
    } else if (c == '{') {
      if (level + 1 >= rank) {
        return s.FailHere(
            attr_internal::Cat("too many nested braces for rank ", rank));
      }
      if (count[level] >= shape.dims[level]) {
        return s.FailHere(attr_internal::Cat("dimension ", level, " expects ",
                                             shape.dims[level], " elements"));
      }
      opened_at[++level] = s.pos();
      count[level] = 0;
      s.set_pos(s.pos() + 1);
    } else if (c == '\0') {
      return s.Fail(opened_at[level], opened_at[level] + 1,
                    "unterminated array literal");
    } else if (AtDots(s)) {
      return s.Fail(s.pos(), s.pos() + 3,
                    "elided data {...} is only allowed as the whole literal");
    } else {
      if (level + 1 != rank) {
        return s.FailHere(
            attr_internal::Cat("expected '{' for dimension ", level + 1));
      }
      if (count[level] >= shape.dims[level]) {
        return s.FailHere(attr_internal::Cat("dimension ", level, " expects ",
                                             shape.dims[level], " elements"));
      }
      if (!ParseElement(s, shape.type, out)) return false;
      ++count[level];
    }
  }
}

// Old printers repeated the shape inside constants: `f32[2,3] {...}`. A
// layout after it is told from the literal by what follows the braces.
bool SkipOldStyleShape(Scanner& s) {
  size_t at = (s.SkipSpace(), s.pos());
  std::string_view name = s.Ident();
  if (name.empty() || s.RawAt(0) != '[' ||
      !PrimitiveTypeFromName(name).has_value()) {
    s.set_pos(at);
    return true;
  }
  s.set_pos(s.pos() + 1);
  if (!s.TryConsume(']')) {
    do {
      if (!s.NonNegativeInt(nullptr)) return false;
    } while (s.TryConsume(','));
    if (!s.Expect(']')) return false;
  }
  if (s.Peek() == '{') {
    size_t save = s.pos();
    if (!s.BalancedBraces(nullptr)) return false;
    char next = s.Peek();
    if (next == '\0' || next == ',' || next == ')') s.set_pos(save);
  }
  return true;
}

bool ParseLiteral(Scanner& s, const LiteralShape& shape, LiteralValue* out) {
  if (!s.Enter()) return false;
  out->type = shape.type;
  out->dims = shape.dims;
  if (shape.is_tuple()) {
    if (s.Peek() == '{') {  // the printer elides tuple constants as {...}
      size_t open = s.pos();
      s.set_pos(open + 1);
      if (!AtDots(s)) {
        s.set_pos(open);
        return s.FailHere("expected '(' for a tuple literal");
      }
      s.set_pos(s.pos() + 3);
      out->elided = true;
      if (!s.Expect('}')) return false;
      s.Leave();
      return true;
    }
    size_t open = (s.SkipSpace(), s.pos());
    if (!s.Expect('(')) return false;
    for (size_t i = 0; i < shape.tuple_elements.size(); ++i) {
      if (i > 0 && !s.Expect(',')) return false;
      if (s.Peek() == ')') {
        return s.Fail(open, s.pos() + 1,
                      attr_internal::Cat("tuple literal expects ",
                                         shape.tuple_elements.size(),
                                         " elements, got ", i));
      }
      if (!ParseLiteral(s, shape.tuple_elements[i],
                        &out->tuple_elements.emplace_back())) {
        return false;
      }
    }
    if (s.Peek() != ')') {
      return s.FailHere(attr_internal::Cat(
          "tuple literal expects ", shape.tuple_elements.size(), " elements"));
    }
    s.Expect(')');
    s.Leave();
    return true;
  }
  if (shape.dims.size() > static_cast<size_t>(kMaxAttributeDepth)) {
    return s.FailHere("literal rank too large");
  }
  for (int64_t d : shape.dims) {
    if (d < 0) return s.FailHere("literal shape has an unbounded dimension");
  }
  if (!SkipOldStyleShape(s)) return false;
  bool ok;
  if (shape.dims.empty()) {
    ok = ParseElement(s, shape.type, out);
  } else if (s.Peek() != '{') {
    out->splat = true;
    ok = ParseElement(s, shape.type, out);
  } else {
    ok = ParseArray(s, shape, out);
  }
  if (!ok) return false;
  s.Leave();
  return true;
}

// "s32[2]{0} {1, 2}" or "( s32[] 1, ... )".
bool ParseShapedLiteral(Scanner& s, LiteralValue* out) {
  if (!s.Enter()) return false;
  if (s.TryConsume('(')) {
    out->type = PrimitiveType::kTuple;
    if (!s.TryConsume(')')) {
      do {
        if (!ParseShapedLiteral(s, &out->tuple_elements.emplace_back())) {
          return false;
        }
      } while (s.TryConsume(','));
      if (!s.Expect(')')) return false;
    }
    s.Leave();
    return true;
  }
  size_t at = (s.SkipSpace(), s.pos());
  std::string_view name = s.Ident();
  std::optional<PrimitiveType> type = PrimitiveTypeFromName(name);
  if (!type.has_value() || !IsArrayType(*type)) {
    return s.Fail(at, at + std::max<size_t>(name.size(), 1),
                  "expected an array shape before the literal");
  }
  LiteralShape shape = LiteralShape::Array(*type, {});
  if (!s.Expect('[')) return false;
  if (!s.TryConsume(']')) {
    do {
      int64_t d = 0;
      if (!s.NonNegativeInt(&d)) return false;
      shape.dims.push_back(d);
    } while (s.TryConsume(','));
    if (!s.Expect(']')) return false;
  }
  if (s.Peek() == '{') {  // a layout, unless it is the literal itself
    size_t save = s.pos();
    if (!s.BalancedBraces(nullptr)) return false;
    char next = s.Peek();
    if (next == '\0' || next == ',' || next == ')') s.set_pos(save);
  }
  if (!ParseLiteral(s, shape, out)) return false;
  s.Leave();
  return true;
}

absl::StatusOr<LiteralValue> Finish(Scanner& s, bool ok, LiteralValue value) {
  if (ok && s.ExpectEnd()) return value;
  if (s.ok()) s.FailHere("malformed literal");
  return attr_internal::ToStatus(*s.error());
}

absl::Status ShapeFromParsed(const ParsedFile& file, Id id, int depth,
                             LiteralShape* out) {
  if (depth > kMaxAttributeDepth) {
    return absl::InvalidArgumentError("shape nested too deeply");
  }
  if (id >= file.shapes.size()) {
    return absl::InvalidArgumentError("no shape");
  }
  const Shape& shape = file.shapes[id];
  out->type = shape.element_type;
  if (shape.is_tuple()) {
    for (Id i = shape.tuple.begin; i < shape.tuple.end(); ++i) {
      if (i >= file.shape_ids.size()) {
        return absl::InvalidArgumentError("bad tuple shape");
      }
      absl::Status st = ShapeFromParsed(file, file.shape_ids[i], depth + 1,
                                        &out->tuple_elements.emplace_back());
      if (!st.ok()) return st;
    }
    return absl::OkStatus();
  }
  for (Id i = shape.dims.begin; i < shape.dims.end(); ++i) {
    if (i >= file.ints.size()) return absl::InvalidArgumentError("bad dims");
    int64_t d = file.ints[i];
    if (d < 0) {
      return absl::InvalidArgumentError(
          "a literal cannot have an unbounded dimension");
    }
    out->dims.push_back(d);
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<LiteralValue> DecodeLiteral(std::string_view text,
                                           const LiteralShape& shape) {
  Scanner s(text);
  LiteralValue value;
  bool ok = ParseLiteral(s, shape, &value);
  return Finish(s, ok, std::move(value));
}

absl::StatusOr<LiteralValue> DecodeConstantOperandList(
    std::string_view operand_list, const LiteralShape& shape) {
  Scanner s(operand_list);
  LiteralValue value;
  bool ok = s.Expect('(') && ParseLiteral(s, shape, &value) && s.Expect(')');
  return Finish(s, ok, std::move(value));
}

absl::StatusOr<LiteralValue> DecodeShapedLiteral(std::string_view text) {
  Scanner s(text);
  LiteralValue value;
  bool ok = ParseShapedLiteral(s, &value);
  return Finish(s, ok, std::move(value));
}

absl::StatusOr<LiteralShape> LiteralShapeFromParsed(const ParsedFile& file,
                                                    Id shape) {
  LiteralShape result;
  absl::Status st = ShapeFromParsed(file, shape, 0, &result);
  if (!st.ok()) return st;
  return result;
}

}  // namespace hlo
