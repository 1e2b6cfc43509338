#include "hlo/layout_shape.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "absl/strings/str_join.h"
#include "base/strings.h"
#include "hlo/shape_inference.h"

namespace hlo {

size_t SkipBlanksAndComments(std::string_view text, size_t pos) {
  while (pos < text.size()) {
    if (std::isspace(static_cast<unsigned char>(text[pos]))) {
      ++pos;
    } else if (text.substr(pos, 2) == "/*") {
      size_t end = text.find("*/", pos + 2);
      pos = end == std::string_view::npos ? text.size() : end + 2;
    } else {
      break;
    }
  }
  return pos;
}
namespace {

constexpr int kMaxLayoutDepth = 64;

// A cursor over shape text; every Parse* leaves pos_ past what it read.
class ShapeReader {
 public:
  ShapeReader(std::string_view text, size_t pos) : text_(text), pos_(pos) {}
  size_t pos() const { return pos_; }

  std::optional<LayoutShape> Shape(int depth) {
    if (depth > kMaxLayoutDepth) return std::nullopt;
    LayoutShape s;
    if (Eat('(')) {
      s.element_type = PrimitiveType::kTuple;
      if (Eat(')')) return s;
      do {
        std::optional<LayoutShape> e = Shape(depth + 1);
        if (!e) return std::nullopt;
        s.tuple.push_back(std::move(*e));
      } while (Eat(','));
      if (!Eat(')')) return std::nullopt;
      return s;
    }
    std::optional<PrimitiveType> type = PrimitiveTypeFromName(Word());
    if (!type || !Eat('[')) return std::nullopt;
    s.element_type = *type;
    if (!Eat(']')) {
      do {
        const bool bounded = Eat('<') && Eat('=');
        if (Eat('?')) {
          s.dims.push_back(kUnboundedDim);
        } else if (std::optional<int64_t> d = Int()) {
          s.dims.push_back(*d);
        } else {
          return std::nullopt;
        }
        s.dynamic.push_back(bounded || s.dims.back() == kUnboundedDim);
      } while (Eat(','));
      if (!Eat(']')) return std::nullopt;
    }
    if (!s.is_array()) return s;
    if (Peek() == '{') {
      ++pos_;
      if (!Layout(&s)) return std::nullopt;
    } else {
      for (int64_t d = static_cast<int64_t>(s.dims.size()) - 1; d >= 0; --d) {
        s.minor_to_major.push_back(d);
      }
    }
    return s;
  }

 private:
  // The next character past blanks and /*...*/ comments (dumps write
  // /*index=5*/ into long shape lists).
  char Peek() {
    pos_ = SkipBlanksAndComments(text_, pos_);
    return pos_ < text_.size() ? text_[pos_] : '\0';
  }
  bool Eat(char c) {
    if (Peek() != c) return false;
    ++pos_;
    return true;
  }
  std::string_view Word() {
    Peek();
    size_t begin = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) ||
            text_[pos_] == '_')) {
      ++pos_;
    }
    return text_.substr(begin, pos_ - begin);
  }
  std::optional<int64_t> Int() {
    Peek();
    int64_t v = 0;
    auto [p, ec] =
        std::from_chars(text_.data() + pos_, text_.data() + text_.size(), v);
    if (ec != std::errc()) return std::nullopt;
    pos_ = p - text_.data();
    return v;
  }
  // The text of one parenthesized group, parentheses excluded.
  std::optional<std::string_view> Group() {
    if (!Eat('(')) return std::nullopt;
    size_t begin = pos_;
    for (int depth = 1; pos_ < text_.size(); ++pos_) {
      if (text_[pos_] == '(') ++depth;
      if (text_[pos_] == ')' && --depth == 0) {
        return text_.substr(begin, pos_++ - begin);
      }
    }
    return std::nullopt;
  }
  static std::optional<int64_t> GroupInt(std::string_view g) {
    int64_t v = 0;
    auto [p, ec] = std::from_chars(g.data(), g.data() + g.size(), v);
    if (ec != std::errc() || p != g.data() + g.size()) return std::nullopt;
    return v;
  }

  // After '{': minor_to_major, then ':' and the T/L/#/*/E/S/SC/M/D/P items.
  bool Layout(LayoutShape* s) {
    if (Peek() != ':' && Peek() != '}') {
      do {
        std::optional<int64_t> d = Int();
        if (!d) return false;
        s->minor_to_major.push_back(*d);
      } while (Eat(','));
    }
    if (Eat(':')) {
      while (Peek() != '}' && Peek() != '\0') {
        if (!Item(s)) return false;
      }
    }
    return Eat('}');
  }

  bool Item(LayoutShape* s) {
    std::string_view name;
    if (Peek() == '#' || Peek() == '*') {
      name = text_.substr(pos_++, 1);
    } else {
      name = Word();
    }
    if (name.empty() || Peek() != '(') return false;
    std::string all;
    while (Peek() == '(') {
      std::optional<std::string_view> g = Group();
      if (!g) return false;
      if (name == "T") {
        std::vector<int64_t> tile;
        for (size_t b = 0; b <= g->size();) {
          size_t e = std::min(g->find(',', b), g->size());
          std::string_view part = g->substr(b, e - b);
          while (!part.empty() && part.front() == ' ') part.remove_prefix(1);
          while (!part.empty() && part.back() == ' ') part.remove_suffix(1);
          if (part == "*") {
            tile.push_back(kTileCombineDim);
          } else if (std::optional<int64_t> v = GroupInt(part)) {
            tile.push_back(*v);
          } else {
            return false;
          }
          b = e + 1;
        }
        s->tiles.push_back(std::move(tile));
      }
      base::Append(all, "(", *g, ")");
      if (name != "T" && name != "SC") break;
    }
    const std::string_view one =
        all.size() >= 2 ? std::string_view(all).substr(1, all.size() - 2) : "";
    if (name == "E" || name == "S" || name == "L") {
      std::optional<int64_t> v = GroupInt(one);
      if (!v) return false;
      (name == "E"   ? s->element_size_in_bits
       : name == "S" ? s->memory_space
                     : s->tail_padding_alignment) = *v;
    } else if (name == "#" || name == "*") {
      std::optional<PrimitiveType> t = PrimitiveTypeFromName(one);
      if (!t) return false;
      (name == "#" ? s->index_type : s->pointer_type) = *t;
    } else if (name == "SC") {
      s->split_configs = all;
    }
    // M(n), D(...), P(...): not part of Layout::Equal's default compare.
    return true;
  }

  std::string_view text_;
  size_t pos_;
};

}  // namespace

std::optional<LayoutShape> ParseLayoutShape(std::string_view text,
                                            size_t* pos) {
  ShapeReader reader(text, *pos);
  std::optional<LayoutShape> s = reader.Shape(0);
  if (s) *pos = reader.pos();
  return s;
}

std::optional<LayoutShape> LayoutShapeOf(const ParsedFile& file, Id id) {
  if (id == kNone || id >= file.shapes.size() || IsInferredShape(file, id)) {
    return std::nullopt;
  }
  size_t pos = 0;
  return ParseLayoutShape(file.Text(file.shapes[id].span), &pos);
}

bool LayoutsEqual(const LayoutShape& a, const LayoutShape& b,
                  const LayoutEqual& eq) {
  if (a.minor_to_major != b.minor_to_major) return false;
  if (eq.minor_to_major_only) return true;
  return (eq.ignore_tiles || a.tiles == b.tiles) &&
         (eq.ignore_tail_padding ||
          a.tail_padding_alignment == b.tail_padding_alignment) &&
         a.index_type == b.index_type && a.pointer_type == b.pointer_type &&
         (eq.ignore_element_size ||
          a.element_size_in_bits == b.element_size_in_bits) &&
         (eq.ignore_memory_space || a.memory_space == b.memory_space) &&
         a.split_configs == b.split_configs;
}

bool LayoutShapesEqual(const LayoutShape& a, const LayoutShape& b,
                       const LayoutEqual& eq) {
  if (a.is_tuple() || b.is_tuple()) {
    if (a.element_type != b.element_type || a.tuple.size() != b.tuple.size()) {
      return false;
    }
    for (size_t i = 0; i < a.tuple.size(); ++i) {
      if (!LayoutShapesEqual(a.tuple[i], b.tuple[i], eq)) return false;
    }
    return true;
  }
  if (!a.is_array() || !b.is_array()) return a.element_type == b.element_type;
  if (a.element_type != b.element_type &&
      !(eq.ignore_fp_precision && IsFloatingPoint(a.element_type) &&
        IsFloatingPoint(b.element_type))) {
    return false;
  }
  return a.dims == b.dims && a.dynamic == b.dynamic &&
         (eq.ignore_layout || LayoutsEqual(a, b, eq));
}

std::string LayoutShapeString(const LayoutShape& s) {
  if (s.is_tuple()) {
    std::string out = "(";
    for (size_t i = 0; i < s.tuple.size(); ++i) {
      if (i) out += ", ";
      out += LayoutShapeString(s.tuple[i]);
    }
    return out + ")";
  }
  std::string out = base::Cat(PrimitiveTypeName(s.element_type), "[");
  for (size_t i = 0; i < s.dims.size(); ++i) {
    if (i) out += ",";
    if (s.dims[i] == kUnboundedDim) {
      out += "?";
    } else {
      base::Append(out, s.dynamic[i] ? "<=" : "", s.dims[i]);
    }
  }
  out += "]";
  if (!s.is_array()) return out;
  base::Append(out, "{", absl::StrJoin(s.minor_to_major, ","));
  std::string items;
  if (!s.tiles.empty()) {
    items += "T";
    for (const std::vector<int64_t>& t : s.tiles) {
      items += "(";
      for (size_t i = 0; i < t.size(); ++i) {
        if (i) items += ",";
        if (t[i] == kTileCombineDim) {
          items += "*";
        } else {
          base::Append(items, t[i]);
        }
      }
      items += ")";
    }
  }
  if (s.tail_padding_alignment != 1) {
    base::Append(items, "L(", s.tail_padding_alignment, ")");
  }
  if (s.index_type != PrimitiveType::kInvalid) {
    base::Append(items, "#(", PrimitiveTypeName(s.index_type), ")");
  }
  if (s.pointer_type != PrimitiveType::kInvalid) {
    base::Append(items, "*(", PrimitiveTypeName(s.pointer_type), ")");
  }
  if (s.element_size_in_bits != 0) {
    base::Append(items, "E(", s.element_size_in_bits, ")");
  }
  if (s.memory_space != 0) base::Append(items, "S(", s.memory_space, ")");
  if (!s.split_configs.empty()) base::Append(items, "SC", s.split_configs);
  if (!items.empty()) base::Append(out, ":", items);
  return out + "}";
}

std::optional<int64_t> ArrayByteSize(const LayoutShape& s) {
  if (!s.is_array()) return std::nullopt;
  int64_t count = 1;
  for (int64_t d : s.dims) {
    if (d < 0 || __builtin_mul_overflow(count, d, &count)) return std::nullopt;
  }
  if (s.element_size_in_bits != 0) {
    int64_t bits = 0;
    if (__builtin_mul_overflow(count, s.element_size_in_bits, &bits)) {
      return std::nullopt;
    }
    return (bits + 7) / 8;
  }
  int64_t bytes = 0;
  const int64_t width = (PrimitiveTypeBitWidth(s.element_type) + 7) / 8;
  if (__builtin_mul_overflow(count, width, &bytes)) return std::nullopt;
  return bytes;
}

namespace {

// IndexUtil::MultidimensionalIndexToLinearIndex under a minor_to_major.
int64_t LinearIndex(const std::vector<int64_t>& dims,
                    const std::vector<int64_t>& minor_to_major,
                    const std::vector<int64_t>& index) {
  int64_t linear = 0, scale = 1;
  for (int64_t d : minor_to_major) {
    linear += index[d] * scale;
    scale *= dims[d];
  }
  return linear;
}

std::vector<int64_t> Descending(size_t rank) {
  std::vector<int64_t> m2m;
  for (size_t d = rank; d-- > 0;) m2m.push_back(static_cast<int64_t>(d));
  return m2m;
}

// XLA's check_input_unit_indices: every unit index of `a` (one dimension 1,
// the others 0) lands, through the row-major reshape, on an index of `b`
// at the same physical offset.
bool UnitIndicesKeepPlace(const LayoutShape& a, const LayoutShape& b) {
  const std::vector<int64_t> a_major = Descending(a.dims.size());
  const std::vector<int64_t> b_major = Descending(b.dims.size());
  for (size_t dim = 0; dim < a.dims.size(); ++dim) {
    if (a.dims[dim] <= 1) continue;
    std::vector<int64_t> unit(a.dims.size(), 0);
    unit[dim] = 1;
    int64_t logical = LinearIndex(a.dims, a_major, unit);
    std::vector<int64_t> out(b.dims.size(), 0);
    for (int64_t d : b_major) {
      out[d] = logical % b.dims[d];
      logical /= b.dims[d];
    }
    if (LinearIndex(a.dims, a.minor_to_major, unit) !=
        LinearIndex(b.dims, b.minor_to_major, out)) {
      return false;
    }
  }
  return true;
}

bool Plain(const LayoutShape& s) {
  if (!s.is_array() || !s.tiles.empty() ||
      s.minor_to_major.size() != s.dims.size()) {
    return false;
  }
  int64_t count = 1;
  for (int64_t d : s.dims) {
    if (d < 0 || __builtin_mul_overflow(count, d, &count)) return false;
  }
  std::vector<bool> seen(s.dims.size(), false);
  for (int64_t d : s.minor_to_major) {
    if (d < 0 || d >= static_cast<int64_t>(seen.size()) || seen[d]) {
      return false;
    }
    seen[d] = true;
  }
  return true;
}

}  // namespace

std::optional<bool> ReshapeIsBitcast(const LayoutShape& in,
                                     const LayoutShape& out) {
  if (!Plain(in) || !Plain(out)) return std::nullopt;
  if (in.element_type != out.element_type) return false;
  int64_t in_count = 1, out_count = 1;
  for (int64_t d : in.dims) in_count *= d;
  for (int64_t d : out.dims) out_count *= d;
  if (in_count != out_count) return false;
  if (in_count == 0) return true;
  return UnitIndicesKeepPlace(in, out) && UnitIndicesKeepPlace(out, in);
}

}  // namespace hlo
