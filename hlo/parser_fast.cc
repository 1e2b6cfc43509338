// Raw readers for the common instruction line of a dump,
//   %name = f32[2,3]{1,0} add(%a, %b), dimensions={0}, to_apply=%f
// which go straight over the bytes instead of through the token stream (the
// lexer cost ~11 calls per instruction). Each one accepts only the exact
// spelling the printer writes (single blanks, `%` names, a shape seen
// before) and returns the position the lexer would have after the same
// tokens, so the result is token for token what the general path builds;
// anything else (comments, line breaks, nested operands, a new shape, an
// error) returns kNone and the general path reads that part, reporting what
// it reports.
#include <iterator>

#include "hlo/parser_internal.h"

namespace hlo::internal {

// ` = ` after the name. The lexer skips one blank before a token that is not
// trivia; '=' is a token of its own.
Offset Parser::FastEqual(Offset pos) const {
  if (text_.size() - pos < 2 || text_[pos] != ' ' || text_[pos + 1] != '=') {
    return kNone;
  }
  return pos + 2;
}

// ` f32[2]{0}` or ` (f32[], s32[])`: only a shape text parsed before (the
// intern table's key), which ParseShape would return the same way.
Offset Parser::FastShape(Offset pos, Id* shape) {
  const Offset size = static_cast<Offset>(text_.size());
  if (size - pos < 2 || text_[pos] != ' ') return kNone;
  const Offset begin = pos + 1;
  if (!IsIdentStart(text_[begin]) && text_[begin] != '(') return kNone;
  // A recent shape's text here ends where QuickShapeEnd would end it: the
  // same bytes, and no '{' after them that it would take for a layout.
  for (size_t k = 0; k < std::size(recent_shapes_); ++k) {
    const RecentShape recent = recent_shapes_[k];
    if (recent.id == kNone) break;
    const Offset end = begin + recent.size;
    if (end > size || (end < size && text_[end] == '{') ||
        !TextEq()(text_.substr(begin, recent.size),
                  text_.substr(recent.begin, recent.size))) {
      continue;
    }
    for (size_t j = k; j > 0; --j) recent_shapes_[j] = recent_shapes_[j - 1];
    recent_shapes_[0] = recent;
    *shape = recent.id;
    return end;
  }
  const Offset end = QuickShapeEnd(begin);
  if (end == kNone) return kNone;
  auto it = shape_intern_.find(text_.substr(begin, end - begin));
  if (it == shape_intern_.end()) return kNone;
  for (size_t j = std::size(recent_shapes_) - 1; j > 0; --j) {
    recent_shapes_[j] = recent_shapes_[j - 1];
  }
  recent_shapes_[0] = RecentShape{begin, end - begin, it->second};
  *shape = it->second;
  return end;
}

// ` add(`: the opcode, directly followed by its '('; returns the offset of
// the '('.
Offset Parser::FastOpcode(Offset pos, Token* opcode) const {
  const Offset size = static_cast<Offset>(text_.size());
  if (size - pos < 2 || text_[pos] != ' ' || !IsIdentStart(text_[pos + 1])) {
    return kNone;
  }
  const Offset end = ScanIdentTail(text_, pos + 2);
  if (end >= size || text_[end] != '(') return kNone;
  *opcode = Token{TokenKind::kIdent, Span{pos + 1, end}};
  return end;
}

// `%a, %b)` (or `)`) after the '(': plain names only, `, ` between them and
// the printer's `/*index=5*/` hints before them. Appends the operands and
// returns the offset after ')'.
Offset Parser::FastOperandList(Offset pos, Slice* operands) {
  const Offset size = static_cast<Offset>(text_.size());
  auto& scratch = scratch_operands_[0];
  scratch.clear();
  Offset p = pos;
  if (p < size && text_[p] == ')') {
    *operands = Slice{static_cast<Id>(file_.operands.size()), 0};
    return p + 1;
  }
  while (true) {
    if (p >= size || text_[p] != '%') return kNone;
    const Offset end = ScanIdentTail(text_, p + 1);
    if (end == p + 1 || end >= size) return kNone;
    Operand operand;
    operand.span = Span{p, end};
    operand.name = Span{p + 1, end};
    scratch.push_back(operand);
    if (text_[end] == ')') {
      p = end + 1;
      break;
    }
    if (text_[end] != ',') return kNone;
    p = end + 1;
    if (p < size && text_[p] == ' ') ++p;
    if (size - p >= 2 && text_[p] == '/' && text_[p + 1] == '*') {
      const void* close = memmem(text_.data() + p + 2, size - p - 2, "*/", 2);
      if (close == nullptr) return kNone;
      p = static_cast<Offset>(static_cast<const char*>(close) - text_.data()) +
          2;
    }
  }
  *operands = Slice{static_cast<Id>(file_.operands.size()),
                    static_cast<Id>(scratch.size())};
  file_.operands.insert(file_.operands.end(), scratch.begin(), scratch.end());
  return p;
}

// `, key=` (also `,key=`): the attribute name token the lexer would return
// after the comma; the value is read raw by ParseAttributeValue either way.
bool Parser::FastAttributeKey(Offset pos, Token* key) const {
  const Offset size = static_cast<Offset>(text_.size());
  if (pos >= size || text_[pos] != ',') return false;
  Offset begin = pos + 1;
  if (begin < size && text_[begin] == ' ') ++begin;
  if (begin >= size || !IsIdentStart(text_[begin])) return false;
  const Offset end = ScanIdentTail(text_, begin + 1);
  if (end >= size || text_[end] != '=') return false;
  if (end + 1 < size && text_[end + 1] == '=') return false;
  *key = Token{TokenKind::kAttrName, Span{begin, end}};
  return true;
}

// ` name: f32[2]{0}` in a computation's signature, after '(' or ','.
Offset Parser::FastParameter(Offset pos, Parameter* param) {
  const Offset size = static_cast<Offset>(text_.size());
  Offset p = pos;
  if (p < size && text_[p] == ' ') ++p;
  if (p >= size) return kNone;
  Offset name_begin = p;
  if (text_[p] == '%') {
    name_begin = p + 1;
  } else if (!IsIdentStart(text_[p])) {
    return kNone;
  }
  const Offset name_end = ScanIdentTail(text_, p + 1);
  if (name_end == name_begin || name_end >= size || text_[name_end] != ':') {
    return kNone;
  }
  const Offset end = FastShape(name_end + 1, &param->shape);
  if (end == kNone) return kNone;
  param->name = Span{name_begin, name_end};
  return end;
}

}  // namespace hlo::internal
