// The .npy header: magic, version, and a Python dict literal read by the
// grammar NumPy writes. Anything else (a sign or stray character in the
// shape, `fortran_order: maybe`, unknown or repeated keys) is an error.
#include <algorithm>
#include <cctype>
#include <map>

#include "exec/element.h"
#include "exec/npz_internal.h"
#include "exec/strings.h"

namespace hlo::exec::npz_internal {
namespace {

absl::Status BadHeader(std::string_view what) {
  return absl::InvalidArgumentError(Cat("bad .npy header: ", what));
}

// Largest dimension accepted while reading digits; products are checked
// separately.
constexpr int64_t kMaxDim = int64_t{1} << 62;

class DictParser {
 public:
  explicit DictParser(std::string_view text) : t_(text) {}

  absl::Status Parse(NpyHeader* out) {
    Space();
    if (!Eat('{')) return BadHeader(Cat("expected '{' at ", Near(pos_)));
    bool descr = false, fortran = false, shape = false;
    for (Space(); !Eat('}'); Space()) {
      std::string key;
      if (!String(&key))
        return BadHeader(Cat("expected a quoted key at ", Near(pos_)));
      Space();
      if (!Eat(':')) return BadHeader(Cat("expected ':' after '", key, "'"));
      Space();
      absl::Status st;
      bool* seen = nullptr;
      if (key == "descr") {
        seen = &descr;
        if (!String(&out->descr))
          st = BadHeader(
              Cat("'descr' must be a quoted string, got ", Near(pos_)));
      } else if (key == "fortran_order") {
        seen = &fortran;
        st = Bool(&out->fortran);
      } else if (key == "shape") {
        seen = &shape;
        st = Shape(&out->dims);
      } else {
        return BadHeader(Cat("unknown key '", key, "'"));
      }
      if (!st.ok()) return st;
      if (*seen) return BadHeader(Cat("key '", key, "' appears twice"));
      *seen = true;
      Space();
      if (Eat(',')) continue;
      if (Peek() != '}')
        return BadHeader(Cat("expected ',' or '}' at ", Near(pos_)));
    }
    Space();
    if (pos_ != t_.size())
      return BadHeader(Cat("text after the dict: ", Near(pos_)));
    if (!descr) return BadHeader("no 'descr'");
    if (!fortran) return BadHeader("no 'fortran_order'");
    if (!shape) return BadHeader("no 'shape'");
    return absl::OkStatus();
  }

 private:
  char Peek() const { return pos_ < t_.size() ? t_[pos_] : '\0'; }
  bool Eat(char c) {
    if (Peek() != c) return false;
    ++pos_;
    return true;
  }
  void Space() {
    while (pos_ < t_.size() && (t_[pos_] == ' ' || t_[pos_] == '\t' ||
                                t_[pos_] == '\n' || t_[pos_] == '\r'))
      ++pos_;
  }
  // Up to 40 characters from `p` through the value there: to the first ','
  // or '}' outside parentheses, for messages.
  std::string Near(size_t p) const {
    if (p >= t_.size()) return "the end";
    size_t e = p;
    for (int depth = 0; e < t_.size() && e - p < 40; ++e) {
      const char c = t_[e];
      if (c == '\n' || (depth == 0 && (c == ',' || c == '}') && e > p)) break;
      if (c == '(') ++depth;
      if (c == ')' && --depth == 0) {
        ++e;
        break;
      }
    }
    return Cat("'", t_.substr(p, std::max(e, p + 1) - p), "'");
  }
  // A Python string literal without escapes, either quote.
  bool String(std::string* out) {
    const char q = Peek();
    if (q != '\'' && q != '"') return false;
    const size_t end = t_.find(q, pos_ + 1);
    if (end == std::string_view::npos) return false;
    std::string_view s = t_.substr(pos_ + 1, end - pos_ - 1);
    if (s.find_first_of("\\\n") != std::string_view::npos) return false;
    *out = std::string(s);
    pos_ = end + 1;
    return true;
  }
  bool Word(std::string_view w) {
    if (t_.substr(pos_, w.size()) != w) return false;
    const char next = pos_ + w.size() < t_.size() ? t_[pos_ + w.size()] : ' ';
    if (std::isalnum(static_cast<unsigned char>(next)) || next == '_')
      return false;
    pos_ += w.size();
    return true;
  }
  absl::Status Bool(bool* out) {
    const size_t at = pos_;
    if (Word("True")) {
      *out = true;
    } else if (Word("False")) {
      *out = false;
    } else {
      return BadHeader(
          Cat("'fortran_order' must be True or False, got ", Near(at)));
    }
    return absl::OkStatus();
  }
  // A tuple of non-negative decimal integers as Python writes one: (),
  // (N,), (N, M) or (N, M,); no signs, no leading zeros.
  absl::Status Shape(std::vector<int64_t>* dims) {
    const size_t at = pos_;
    auto bad = [&](std::string_view why) {
      return BadHeader(
          Cat("'shape' must be a tuple of non-negative integers, got ",
              Near(at), why));
    };
    if (!Eat('(')) return bad("");
    bool comma_after_last = false;
    for (Space(); !Eat(')'); Space()) {
      if (!std::isdigit(static_cast<unsigned char>(Peek()))) return bad("");
      if (Peek() == '0' && pos_ + 1 < t_.size() &&
          std::isdigit(static_cast<unsigned char>(t_[pos_ + 1])))
        return bad("");
      int64_t d = 0;
      while (std::isdigit(static_cast<unsigned char>(Peek()))) {
        const int digit = t_[pos_++] - '0';
        // Checked before the step, which would overflow int64 past 2^62.
        if (d > (kMaxDim - digit) / 10) return bad(" (a dimension over 2^62)");
        d = d * 10 + digit;
      }
      dims->push_back(d);
      Space();
      comma_after_last = Eat(',');
      if (!comma_after_last && Peek() != ')') return bad("");
    }
    // (N) is a parenthesized integer in Python, not a tuple.
    if (dims->size() == 1 && !comma_after_last) return bad("");
    return absl::OkStatus();
  }

  std::string_view t_;
  size_t pos_ = 0;
};

// Bytes per element of `descr`: numeric types, and the byte and UTF-32
// strings of `.dtype` companions (|S5, <U5).
std::optional<int64_t> ItemSize(std::string_view descr) {
  if (auto t = TypeOfDescr(descr)) return StorageBytes(*t);
  if (descr.size() < 3 || descr.size() > 8) return std::nullopt;
  int64_t per;
  if (descr.substr(0, 2) == "|S") {
    per = 1;
  } else if (descr.substr(0, 2) == "<U") {
    per = 4;
  } else {
    return std::nullopt;
  }
  int64_t n = 0;
  for (char c : descr.substr(2)) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    n = n * 10 + (c - '0');
  }
  return n * per;
}

}  // namespace

std::optional<PrimitiveType> TypeOfDescr(std::string_view d) {
  using P = PrimitiveType;
  static const std::map<std::string_view, P> kTypes = {
      {"b1", P::kPred}, {"i1", P::kS8},   {"i2", P::kS16}, {"i4", P::kS32},
      {"i8", P::kS64},  {"u1", P::kU8},   {"u2", P::kU16}, {"u4", P::kU32},
      {"u8", P::kU64},  {"f2", P::kF16},  {"f4", P::kF32}, {"f8", P::kF64},
      {"c8", P::kC64},  {"c16", P::kC128}};
  if (d.size() < 2) return std::nullopt;
  auto it = kTypes.find(d.substr(1));
  if (it == kTypes.end()) return std::nullopt;
  // Little endian, native (=) or not applicable (|); big endian only where
  // it makes no difference.
  const bool one_byte = StorageBytes(it->second) == 1;
  if (d[0] != '<' && d[0] != '=' && d[0] != '|' && !(d[0] == '>' && one_byte))
    return std::nullopt;
  return it->second;
}

absl::StatusOr<size_t> NpyHeaderEnd(std::string_view b) {
  if (b.size() < 10 || b.substr(0, 6) != std::string_view("\x93NUMPY", 6))
    return absl::InvalidArgumentError("not a .npy file");
  const int major = static_cast<uint8_t>(b[6]), minor = b[7];
  if (major == 1 && minor == 0)
    return size_t{10} +
           (static_cast<uint8_t>(b[8]) | (static_cast<uint8_t>(b[9]) << 8));
  if ((major == 2 || major == 3) && minor == 0) {
    if (b.size() < 12) return absl::InvalidArgumentError("truncated .npy");
    size_t len = 0;
    for (int i = 0; i < 4; ++i)
      len |= size_t{static_cast<uint8_t>(b[8 + i])} << (8 * i);
    return 12 + len;
  }
  return absl::InvalidArgumentError(
      Cat("unknown .npy version ", major, ".", minor));
}

absl::StatusOr<NpyHeader> ParseNpyHeader(std::string_view b) {
  auto end = NpyHeaderEnd(b);
  if (!end.ok()) return end.status();
  if (b.size() < *end) return absl::InvalidArgumentError("truncated .npy");
  const size_t start = static_cast<uint8_t>(b[6]) == 1 ? 10 : 12;
  NpyHeader out;
  absl::Status st = DictParser(b.substr(start, *end - start)).Parse(&out);
  if (!st.ok()) return st;
  out.data_offset = *end;
  auto item = ItemSize(out.descr);
  if (!item) {
    return absl::InvalidArgumentError(
        Cat("unsupported .npy dtype '", out.descr, "'"));
  }
  // Every partial product must fit, zero dimensions aside, so that strides
  // computed later cannot overflow either.
  int64_t bytes = *item, nonzero = *item;
  for (int64_t d : out.dims) {
    if (__builtin_mul_overflow(nonzero, std::max<int64_t>(d, 1), &nonzero))
      return BadHeader(Cat("the shape holds more than 2^63 bytes"));
    bytes *= d;  // cannot overflow: |bytes| <= nonzero
  }
  out.data_bytes = bytes;
  return out;
}

}  // namespace hlo::exec::npz_internal
