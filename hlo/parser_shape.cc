// Shapes and layouts: `f32[2,<=3,?]{2,1,0:T(8,128)(2,1)E(4)S(1)}`, tuples,
// and buffers `b(...)`. Top-level shapes are interned by their text, so the
// thousands of repeated operand shapes of a long-text dump cost one entry.
#include <cctype>
#include <charconv>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "hlo/absl_compat.h"
#include "hlo/parser_internal.h"

namespace hlo::internal {
namespace {

bool ParseInt64(std::string_view text, int64_t* out) {
  auto [ptr, ec] =
      std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && ptr == text.data() + text.size();
}

}  // namespace

// Where a shape starting at `begin` ends, by a cheap character scan; kNone
// when unsure. Only used to look the text up among shapes seen before.
Offset Parser::QuickShapeEnd(Offset begin) const {
  const Offset size = static_cast<Offset>(text_.size());
  if (begin >= size) return kNone;
  if (text_[begin] == '(') return ScanBalanced(text_, begin);
  Offset i = begin;
  while (i < size && IsIdentChar(text_[i])) ++i;
  if (i >= size || text_[i] != '[') return kNone;
  const void* close = std::memchr(text_.data() + i, ']', size - i);
  if (close == nullptr) return kNone;
  i = static_cast<Offset>(static_cast<const char*>(close) - text_.data()) + 1;
  if (i < size && text_[i] == '{') {
    const void* end = std::memchr(text_.data() + i, '}', size - i);
    if (end == nullptr) return kNone;
    i = static_cast<Offset>(static_cast<const char*>(end) - text_.data()) + 1;
  }
  return i;
}

Id Parser::ParseShape(int depth) {
  if (depth != 0) return ParseShapeUninterned(depth);
  // Fast path: the same shape text was parsed before.
  const Offset begin = lexer_.Peek().span.begin;
  const Offset quick_end = QuickShapeEnd(begin);
  if (quick_end != kNone) {
    auto it = shape_intern_.find(text_.substr(begin, quick_end - begin));
    if (it != shape_intern_.end()) {
      lexer_.Seek(quick_end);
      return it->second;
    }
  }
  const size_t shapes = file_.shapes.size();
  const size_t ints = file_.ints.size();
  const size_t layouts = file_.layouts.size();
  const size_t tiles = file_.tiles.size();
  const size_t shape_ids = file_.shape_ids.size();
  Id id = ParseShapeUninterned(0);
  if (id == kNone) return kNone;
  auto [it, inserted] = shape_intern_.emplace(Text(file_.shapes[id].span), id);
  if (inserted) return id;
  // Seen before: drop what this parse appended.
  file_.shapes.resize(shapes);
  file_.ints.resize(ints);
  file_.layouts.resize(layouts);
  file_.tiles.resize(tiles);
  file_.shape_ids.resize(shape_ids);
  return it->second;
}

Id Parser::ParseShapeUninterned(int depth) {
  Token t = lexer_.Next();
  if (depth > kMaxDepth) {
    Error(t.span, "shape nested too deeply");
    return kNone;
  }
  Shape shape;
  shape.span.begin = t.span.begin;
  if (t.kind == TokenKind::kLParen) {
    shape.element_type = PrimitiveType::kTuple;
    auto& ids = scratch_shape_ids_[depth];
    ids.clear();
    if (lexer_.Peek().kind == TokenKind::kRParen) {
      lexer_.Next();
    } else {
      while (true) {
        Id element = ParseShapeUninterned(depth + 1);
        if (element == kNone) return kNone;
        ids.push_back(element);
        Token sep = lexer_.Next();
        if (sep.kind == TokenKind::kRParen) break;
        if (sep.kind != TokenKind::kComma) {
          ErrorExpected("',' or ')' in a tuple shape", sep);
          return kNone;
        }
      }
    }
    shape.tuple = Slice{static_cast<Id>(file_.shape_ids.size()),
                        static_cast<Id>(ids.size())};
    file_.shape_ids.insert(file_.shape_ids.end(), ids.begin(), ids.end());
    shape.span.end = lexer_.pos();
    file_.shapes.push_back(shape);
    return static_cast<Id>(file_.shapes.size() - 1);
  }
  if (t.kind != TokenKind::kIdent) {
    ErrorExpected("a shape", t);
    return kNone;
  }
  std::string_view name = Text(t.span);
  if (name == "b" && lexer_.Peek().kind == TokenKind::kLParen) {
    lexer_.Next();
    Id inner = ParseShapeUninterned(depth + 1);
    if (inner == kNone || !Expect(TokenKind::kRParen, "')'")) return kNone;
    shape.element_type = PrimitiveType::kBuffer;
    shape.tuple = Slice{static_cast<Id>(file_.shape_ids.size()), 1};
    file_.shape_ids.push_back(inner);
    shape.span.end = lexer_.pos();
    file_.shapes.push_back(shape);
    return static_cast<Id>(file_.shapes.size() - 1);
  }
  auto type = PrimitiveTypeFromName(name);
  if (!type) {
    Error(t.span, absl::StrCat("unknown element type '", ToAbsl(name), "'"));
    return kNone;
  }
  shape.element_type = *type;
  if (!Expect(TokenKind::kLSquare, "'['")) return kNone;
  if (!ParseDims(&shape)) return kNone;
  // `{` starts a layout only when an integer or ':' follows (XLA's rule), so
  // `-> f32[2] {` still opens the computation body.
  if (lexer_.Peek().kind == TokenKind::kLBrace) {
    Token second = PeekSecond();
    // `f32[]{}` (an empty layout) also appears in hand-written tests.
    if (second.kind == TokenKind::kInt || second.kind == TokenKind::kColon ||
        second.kind == TokenKind::kRBrace) {
      Layout layout;
      if (!ParseLayout(lexer_.Peek().span.begin, &layout)) return kNone;
      shape.layout = static_cast<Id>(file_.layouts.size());
      file_.layouts.push_back(layout);
    }
  }
  shape.span.end = lexer_.pos();
  file_.shapes.push_back(shape);
  return static_cast<Id>(file_.shapes.size() - 1);
}

bool Parser::ParseDims(Shape* shape) {
  const Id begin = static_cast<Id>(file_.ints.size());
  bool any_dynamic = false;
  std::vector<uint8_t>& dynamic = dynamic_scratch_;
  dynamic.clear();
  if (lexer_.Peek().kind == TokenKind::kRSquare) {
    lexer_.Next();
    shape->dims = Slice{begin, 0};
    return true;
  }
  while (true) {
    Token t = lexer_.Next();
    int64_t value = 0;
    bool is_dynamic = false;
    if (t.kind == TokenKind::kLeq) {
      is_dynamic = true;
      t = lexer_.Next();
    }
    if (t.kind == TokenKind::kQuestion && !is_dynamic) {
      value = kUnboundedDim;
      is_dynamic = true;
    } else if (t.kind == TokenKind::kInt) {
      if (!ParseInt64(Text(t.span), &value) || value < 0) {
        Error(t.span, absl::StrCat("invalid dimension size '",
                                   ToAbsl(Text(t.span)), "'"));
        return false;
      }
    } else {
      ErrorExpected("a dimension size", t);
      return false;
    }
    file_.ints.push_back(value);
    dynamic.push_back(is_dynamic ? 1 : 0);
    any_dynamic |= is_dynamic;
    Token sep = lexer_.Next();
    if (sep.kind == TokenKind::kRSquare) break;
    if (sep.kind != TokenKind::kComma) {
      ErrorExpected("',' or ']'", sep);
      return false;
    }
  }
  const Id rank = static_cast<Id>(file_.ints.size()) - begin;
  shape->dims = Slice{begin, rank};
  if (any_dynamic) {
    shape->dynamic = Slice{static_cast<Id>(file_.ints.size()), rank};
    file_.ints.insert(file_.ints.end(), dynamic.begin(), dynamic.end());
  }
  return true;
}

bool Parser::ParseLayout(Offset open_brace, Layout* layout) {
  lexer_.Next();  // '{'
  layout->span.begin = open_brace;
  const Id begin = static_cast<Id>(file_.ints.size());
  while (lexer_.Peek().kind == TokenKind::kInt) {
    Token t = lexer_.Next();
    int64_t value;
    if (!ParseInt64(Text(t.span), &value)) {
      Error(t.span, "invalid layout dimension");
      return false;
    }
    file_.ints.push_back(value);
    if (lexer_.Peek().kind != TokenKind::kComma) break;
    lexer_.Next();
  }
  layout->minor_to_major =
      Slice{begin, static_cast<Id>(file_.ints.size()) - begin};
  layout->tiles = Slice{static_cast<Id>(file_.tiles.size()), 0};
  if (lexer_.Peek().kind == TokenKind::kColon) {
    lexer_.Next();
    Offset pos = lexer_.pos();
    if (!ParseLayoutExtras(&pos, layout)) return false;
    lexer_.Seek(pos);
  }
  Token close;
  if (!Expect(TokenKind::kRBrace, "'}' to close the layout", &close)) {
    return false;
  }
  layout->span.end = close.span.end;
  return true;
}

// The items of D(..) in [begin, end): D, C, S or H, each optionally
// followed by '+' and '~', separated by commas (XLA's ParseDimLevelTypes).
// Returns where the first bad item starts, or kNone; `sparse` is set by any
// item but D.
Offset Parser::CheckDimLevelTypes(Offset begin, Offset end, bool* sparse) {
  Offset pos = begin;
  auto skip_blanks = [&] {
    while (pos < end && (text_[pos] == ' ' || text_[pos] == '\t')) ++pos;
  };
  skip_blanks();
  if (pos >= end) return kNone;  // D() lists none
  while (true) {
    skip_blanks();
    const Offset item = pos;
    const char c = pos < end ? text_[pos] : '\0';
    if (c != 'D' && c != 'C' && c != 'S' && c != 'H') return item;
    // An identifier longer than one letter (`DC`, `X1`) is no abbreviation.
    if (++pos < end && std::isalnum(static_cast<unsigned char>(text_[pos]))) {
      return item;
    }
    *sparse |= c != 'D';
    if (pos < end && text_[pos] == '+') ++pos;
    if (pos < end && text_[pos] == '~') ++pos;
    skip_blanks();
    if (pos >= end) return kNone;
    if (text_[pos] != ',') return pos;
    ++pos;
  }
}

// The items after ':' in a layout, scanned by character: T(..)(..), E(n),
// S(n), L(n), M(n), #(type), *(type), and D(..)/SC(..)/P(..) kept raw.
bool Parser::ParseLayoutExtras(Offset* pos_inout, Layout* layout) {
  Offset pos = *pos_inout;
  const Offset size = static_cast<Offset>(text_.size());
  auto skip_blanks = [&] {
    while (pos < size && (text_[pos] == ' ' || text_[pos] == '\t')) ++pos;
  };
  auto error_at = [&](Offset at, std::string message) {
    Error(Span{at, std::min<Offset>(at + 1, size)}, std::move(message));
    return false;
  };
  // Reads `(int)` at pos.
  auto read_int_group = [&](int64_t* out) {
    if (pos >= size || text_[pos] != '(') return false;
    Offset close = static_cast<Offset>(text_.find(')', pos));
    if (close == static_cast<Offset>(std::string_view::npos)) return false;
    if (!ParseInt64(text_.substr(pos + 1, close - pos - 1), out)) return false;
    pos = close + 1;
    return true;
  };
  const Id tiles_begin = static_cast<Id>(file_.tiles.size());
  // XLA's parser rejects P(shape) unless D(..) makes the array sparse.
  Offset physical_shape = kNone;
  bool sparse = false;
  while (true) {
    skip_blanks();
    if (pos >= size) return error_at(pos, "unterminated layout");
    char c = text_[pos];
    if (c == '}') break;
    Offset item = pos;
    if (c == '#' || c == '*') {
      ++pos;
      Offset close = static_cast<Offset>(text_.find(')', pos));
      if (pos >= size || text_[pos] != '(' ||
          close == static_cast<Offset>(std::string_view::npos)) {
        return error_at(item, "expected '(type)' in the layout");
      }
      auto type = PrimitiveTypeFromName(text_.substr(pos + 1, close - pos - 1));
      if (!type) return error_at(pos + 1, "unknown element type in the layout");
      (c == '#' ? layout->index_type : layout->pointer_type) = *type;
      pos = close + 1;
      continue;
    }
    Offset name_end = pos;
    while (name_end < size && text_[name_end] >= 'A' &&
           text_[name_end] <= 'Z') {
      ++name_end;
    }
    std::string_view name = text_.substr(pos, name_end - pos);
    pos = name_end;
    if (name == "T") {
      if (pos >= size || text_[pos] != '(') {
        return error_at(pos, "expected '(' after T in the layout");
      }
      while (pos < size && text_[pos] == '(') {
        ++pos;
        Tile tile;
        tile.dims.begin = static_cast<Id>(file_.ints.size());
        while (true) {
          skip_blanks();
          Offset start = pos;
          if (pos < size && text_[pos] == '*') {
            file_.ints.push_back(kTileCombineDim);
            ++pos;
          } else {
            while (pos < size && (text_[pos] == '-' ||
                                  (text_[pos] >= '0' && text_[pos] <= '9'))) {
              ++pos;
            }
            int64_t value;
            if (!ParseInt64(text_.substr(start, pos - start), &value)) {
              return error_at(start, "expected a tile dimension");
            }
            file_.ints.push_back(value);
          }
          skip_blanks();
          if (pos < size && text_[pos] == ',') {
            ++pos;
            continue;
          }
          if (pos < size && text_[pos] == ')') {
            ++pos;
            break;
          }
          return error_at(pos, "expected ',' or ')' in a tile");
        }
        tile.dims.count = static_cast<Id>(file_.ints.size()) - tile.dims.begin;
        file_.tiles.push_back(tile);
      }
    } else if (name == "E" || name == "S" || name == "L" || name == "M") {
      int64_t value;
      if (!read_int_group(&value)) {
        return error_at(pos, absl::StrCat("expected '(N)' after ", ToAbsl(name),
                                          " in the layout"));
      }
      if (name == "E") layout->element_size_in_bits = value;
      if (name == "S") layout->memory_space = value;
      if (name == "L") layout->tail_padding_alignment = value;
      if (name == "M") layout->dynamic_metadata_prefix_bytes = value;
    } else if (name == "D" || name == "SC" || name == "P") {
      if (pos >= size || text_[pos] != '(') {
        return error_at(pos, "expected '(' in the layout");
      }
      while (pos < size && text_[pos] == '(') {
        Offset e = ScanBalanced(text_, pos);
        if (e == kNone) return error_at(pos, "unterminated '(' in the layout");
        if (name == "D") {
          Offset bad = CheckDimLevelTypes(pos + 1, e - 1, &sparse);
          if (bad != kNone) {
            return error_at(
                bad, "expected a DimLevelType abbreviation (D, C, or S)");
          }
        }
        pos = e;
      }
      if (name == "P") physical_shape = item;
      if (layout->extras.empty()) layout->extras.begin = item;
      layout->extras.end = pos;
    } else {
      return error_at(item, "unknown layout item");
    }
  }
  if (physical_shape != kNone && !sparse) {
    return error_at(physical_shape,
                    "Layout has physical shape, but is not for a sparse array");
  }
  layout->tiles =
      Slice{tiles_begin, static_cast<Id>(file_.tiles.size()) - tiles_begin};
  *pos_inout = pos;
  return true;
}

}  // namespace hlo::internal
